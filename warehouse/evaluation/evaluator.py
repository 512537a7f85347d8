"""Evaluation: prepares the ranked join in the warehouse's database (DuckDB or PostgreSQL, from the
same files under sql/), runs each measure family's SQL for all runs at once, stores per-query values
in `scores`, and reads summaries back. Python only orchestrates: every statement is in sql/eval/
and sql/measures/, and lists of records reach them as temporary tables (Database.load_rows)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Iterator, Sequence

from warehouse import progress
from warehouse.store import catalog
from warehouse.engines.duckdb import Database
from warehouse.errors import (ConflictError, MeasureError, MeasureValueError, NotEvaluated, NotFoundError,
                             ReadOnlyError, RowsNotStoredError, UsageError)
from warehouse.evaluation.measures import CUTOFFS, LEVELS, RAW, Measure, at_level, is_user, parse, parse_all, stored_name, tie_variant
from warehouse.evaluation.gain_order import FULL_TABLE_LEVELS, GAIN_ORDER_COLUMNS, gain_order_rows
from warehouse.resources import read_sql
from warehouse.evaluation.settings import NO_DEPTH, Settings, prepare_steps  # noqa: F401 (evaluate.Settings is the API's name)
from warehouse.formats.table import Table, Tabular

# Runs are computed together up to about this many rows: the evaluation's temp tables hold every
# row of the runs computed together (~130 bytes a row), so 10,000 stored runs of 5,000 lines
# computed at once peaked at 7 GB. 2,000 such runs: 1.38 GB and 2.5 s at once, 436 MB and 3.0 s in
# batches of 1M rows, 322 MB and 4.6 s of 500k (each batch re-reads the qrels). A larger run is
# computed alone. Spark plans its own memory.
ROWS_PER_BATCH = 1_000_000


def runs_by_rows(rows_per_run: Iterable[tuple[int, int]], rows_per_batch: int) -> Iterator[list[int]]:
    """Run ids, in order, in batches of at most rows_per_batch rows (a larger run alone)."""
    batch: list[int] = []
    held = 0
    for run_id, rows in rows_per_run:
        if batch and held + rows > rows_per_batch:
            yield batch
            batch, held = [], 0
        batch.append(run_id)
        held += rows
    if batch:
        yield batch


# The measure files that read no eval_judged (sql/eval/05_judged.sql): a batch of their measures
# alone is prepared without it. The tie-aware measures rank every run row by tie groups of their
# own (sql/eval/04b_run_rows_graded.sql): at 1,000 stored runs on PostgreSQL eval_judged was 7.2 s
# of the leaderboard's 49 s evaluation of AP(ties=min) and AP(ties=max), read by nothing.
WITHOUT_JUDGED_STEP = frozenset({"measures/ties.sql"})

GAIN_FAMILIES = ("ndcg", "ndcg_rel", "Rndcg", "G", "rbp", "rbp_resid")  # parameters: grade=gain pairs
# measures whose SQL reads the gain tables of sql/eval/06_gains.sql
GAIN_SCHEME_FAMILIES = ("ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "G")
# measures whose SQL reads the DCG tables of sql/eval/07_dcg.sql (built from the gain tables)
DCG_FAMILIES = ("ndcg", "ndcg_rel", "Rndcg", "ndcg_cut")


def _option(measure: Measure, key: str, unused: float) -> float:
    """A numeric option's value (alpha=0 is a value), or a placeholder for families without it."""
    value = measure.option(key)
    return unused if value is None else float(value)


# The temporary tables a measure family's SQL reads its measures from (sql/measures/*.sql and
# sql/eval/06_gains.sql), filled by load_measure_params: one row per measure being computed (with
# what sql/eval/register_measures.sql stores of it), and the lists some measures take, one row per
# item in the order given.
PARAM_COLUMNS = {
    "eval_params": [("measure", "varchar"), ("family", "varchar"), ("k", "bigint"), ("x", "double"),
                    ("has_gains", "boolean"), ("alpha", "double"), ("beta", "double"), ("ties", "varchar"),
                    ("trec_name", "varchar"), ("aggregate", "varchar"), ("description", "varchar"),
                    ("gain_scheme", "varchar")],
    # 11pt_avg's recall levels, utility's four coefficients
    "eval_param_values": [("measure", "varchar"), ("position", "integer"), ("value", "double")],
    # the grade=gain pairs of the gain measures (ndcg.1=3,2=9), in the order given
    "eval_param_gains": [("measure", "varchar"), ("position", "integer"), ("grade", "bigint"), ("gain", "double")],
}


@dataclass(frozen=True)
class MeasureParams:
    """One measure as its family's SQL reads it: its row of eval_params, and its rows of
    eval_param_values and eval_param_gains (PARAM_COLUMNS). gain_scheme: the table of gains its
    grade=gain pairs make, named as the measure is stored ('' for the grades as gains, shared by
    every measure without pairs), as eval_params says it to sql/eval/06_gains.sql."""

    row: tuple
    values: tuple[tuple, ...] = ()
    gains: tuple[tuple, ...] = ()
    gain_scheme: str = ""


def measure_params(measure: Measure) -> MeasureParams:
    """What a family's SQL reads of a measure: the name its scores are stored under, its family,
    its numbers (k of a cutoff, x of a level, rbp's persistence, the options alpha, beta, ties),
    its lists (numbers, or grade=gain pairs), and what the measures table says of it."""
    name, family, kind = stored_name(measure), measure.family.trec_name, measure.family.kind
    k = int(measure.param) if kind == CUTOFFS else 0
    x = float(measure.param) if kind == LEVELS else 0.0
    if family == "rbp":
        x = 0.9  # rbp's persistence p; rbp.p=0.95 sets it
    values: list[tuple] = []
    gains: list[tuple] = []
    if kind == RAW and family in GAIN_FAMILIES:
        for pair in str(measure.param).split(",") if measure.param else []:
            grade, equals, gain = pair.partition("=")
            try:
                if grade == "p" and equals:  # rbp.p=0.95; the other gain measures skip it, as trec_eval 10.0 does
                    if family == "rbp":
                        x = float(gain)
                    continue
                gains.append((name, len(gains) + 1, int(grade), float(gain)))
            except ValueError:
                raise MeasureError(f"{measure.trec_spec}: expected grade=gain pairs (whole-number grades: "
                                   f"{family}.1=3,2=9)") from None
    elif kind == RAW:
        try:  # a list given empty (11pt_avg.) reads as the one number 0.0
            numbers = [float(v) for v in str(measure.param).split(",") if v != ""] if measure.param else [0.0]
        except ValueError:
            raise MeasureError(f"{measure.trec_spec}: expected numbers separated by commas") from None
        if family == "utility" and len(numbers) != 4:
            # trec_eval's calc_utility refuses any other count ("improper number of coefficients")
            raise MeasureError(f"{measure.trec_spec}: utility takes four numbers, the gains of a relevant and of a "
                               "non-relevant document retrieved, and of each missed: utility.1,-1,0,0")
        values = [(name, position, number) for position, number in enumerate(numbers, 1)]
    # alpha and beta: the options of the diversity families; ties: of the tie-aware ones (measures.Family.options)
    gain_scheme = name if gains else ""
    row = (name, family, k, x, bool(gains), _option(measure, "alpha", 0.5), _option(measure, "beta", 0.5),
           str(measure.option("ties") or ""), measure.trec_name, measure.aggregate, measure.family.description,
           gain_scheme)
    return MeasureParams(row, tuple(values), tuple(gains), gain_scheme)


def load_measure_params(db: Database, measures: Sequence[Measure]) -> dict[str, MeasureParams]:
    """Fills eval_params, eval_param_values and eval_param_gains with these measures: each family
    file then reads the rows of the measures it is given ($measures, their stored names). Returns
    what it loaded, by stored name."""
    params = [measure_params(m) for m in measures]
    db.load_rows("eval_params", PARAM_COLUMNS["eval_params"], [p.row for p in params])
    db.load_rows("eval_param_values", PARAM_COLUMNS["eval_param_values"], [v for p in params for v in p.values])
    db.load_rows("eval_param_gains", PARAM_COLUMNS["eval_param_gains"], [g for p in params for g in p.gains])
    return {p.row[0]: p for p in params}


def load_gain_order(db: Database, measures: Sequence[tuple[Measure, MeasureParams]], judged_only: bool) -> None:
    """Fills eval_gain_order, the tables of gains of these gain measures (with what
    load_measure_params loaded of them) in trec_eval's sorted order
    (warehouse/evaluation/gain_order.py), for every number of grade levels an evaluated query has:
    one table per gain scheme (MeasureParams.gain_scheme).

    trec_eval looks up grade -1 for a retrieved document the qrels do not judge, so a pair -1=x
    gives those documents gain x; irw's gain tables hold judged documents only, so such a pair is
    refused (unless judged_only, -J, leaves those documents out, as it does in trec_eval)."""
    schemes: dict[str, list[tuple[int, float]]] = {"": []}
    for m, params in measures:
        pairs = [(grade, gain) for _name, _position, grade, gain in params.gains]
        if not judged_only and any(grade == -1 and gain != 0 for grade, gain in pairs):
            raise MeasureError(f"{m.trec_spec}: grade -1 is how trec_eval looks up retrieved documents the qrels do "
                               "not judge, and irw gives them no gain: leave -1 out (or map it to 0), or give -J "
                               "(judged documents only)")
        schemes[params.gain_scheme] = pairs
    judged_by_levels: dict[int, set[int]] = {0: set()}  # a query judging no grade >= 0 has 0 levels
    for levels, grade in db.run_file("eval/gain_levels.sql", {"full_table_levels": FULL_TABLE_LEVELS}).fetchall():
        judged_by_levels.setdefault(int(levels), set()).update([] if grade is None else [int(grade)])
    db.load_rows("eval_gain_order", GAIN_ORDER_COLUMNS, gain_order_rows(schemes, judged_by_levels))


# The temporary tables sql/eval/summary.sql and per_query.sql read: the stored scores to read
# (evaluation, stored name), the name to show and its place; and the runs in the order asked.
WANTED_COLUMNS = [("evaluation_id", "integer"), ("stored", "varchar"), ("measure", "varchar"), ("position", "integer")]
WANTED_RUN_COLUMNS = [("run_id", "integer"), ("position", "integer")]


def load_wanted(db: Database, wanted: Sequence[dict[str, Any]], run_ids: Sequence[int]) -> None:
    """Fills eval_wanted with `wanted` ({evaluation_id, stored, measure, position} records) and
    eval_wanted_runs with the runs in this order, before sql/eval/summary.sql or per_query.sql runs."""
    db.load_rows("eval_wanted", WANTED_COLUMNS,
                 [(w["evaluation_id"], w["stored"], w["measure"], w["position"]) for w in wanted])
    db.load_rows("eval_wanted_runs", WANTED_RUN_COLUMNS, [(run_id, i) for i, run_id in enumerate(run_ids)])


# where sql/eval/store_scores.sql takes a family file's SELECT
_FAMILY_SCORES = "from family_scores as f"


def store_scores_sql(family_file: str) -> str:
    """sql/eval/store_scores.sql around one family file's SELECT (a subquery of its own, so its
    WITH clauses stay inside it): the statement that stores the family's per-query values."""
    return read_sql("eval/store_scores.sql").replace(_FAMILY_SCORES, f"from (\n{read_sql(family_file)}\n) as f")


def measure_notes(measures: Sequence[Measure], settings: Settings) -> list[str]:
    """One line per measure evaluated at a relevance level of its own (`AP(rel=2)`), and one per
    measure whose conventions are not the printed settings' (gdeval's and ndeval's tie orders):
    what `irw eval` and `irw compare` print beside the settings' line."""
    return [f"{m.name}: relevant means grade >= {m.level}" for m in measures
            if m.level is not None and m.level != settings.level] + \
        [f"{m.name}: {m.family.conventions}" for m in measures if m.family.conventions] + \
        [f"{m.name}: recall level {m.param:g} is above 1, which no ranking reaches, so every value is 0 (as "
         f"trec_eval's iprec_at_recall.{m.param:g}); IPrec@0.1 is the precision at 10% recall" for m in measures
         if m.family.trec_name == "iprec_at_recall" and m.param is not None and m.param > 1]


@dataclass
class Evaluation(Tabular):
    """The result of evaluate(): per-query scores and summaries, with the settings behind them.

    As a table (to_pandas(), to_polars(), to_arrow(), Jupyter's HTML) it is wide(): one row per
    run, one column per measure; wide(per_query=True) and the summary / per_query Tables give the rest."""

    qrels: str
    settings: Settings
    measures: list[Measure]
    summary: Table
    per_query: Table | None = None
    ignored_queries: dict[str, int] = field(default_factory=dict)  # run -> queries not in the qrels
    norel_queries: int = 0
    selection: Any = None  # the runs Warehouse.evaluate chose (catalog.RunSelection), and those left out
    # (run, query) of the qrels queries -c evaluated for a run that lacks them (read with per_query)
    queries_not_in_run: frozenset = frozenset()
    grades: tuple[int, int] | None = None  # the qrels set's lowest and highest grade (None: no judgment)
    # the runs none of whose retrieved documents the qrels judge, read in a warehouse only (a
    # one-shot evaluation, irw trec-eval, prints trec_eval's output and no note)
    judging_none_retrieved: frozenset[str] = frozenset()
    # the runs none of whose queries the qrels judge: no values, or under -c only the zeros of queries
    # the run lacks (trec_eval refuses such a run either way)
    no_query_judged: frozenset[str] = frozenset()
    # run -> the qrels' queries it does not answer (a run judged on some of them): left out of its
    # means as trec_eval leaves them, or scored 0 under -c
    unanswered_queries: dict[str, int] = field(default_factory=dict)
    # what is said of names given for one measure (`-m P@10 -m P_10`), shown once (one_measure_notes)
    same_measure_notes: list[str] = field(default_factory=list)

    def table(self) -> Table:
        return self.wide(per_query=False)

    def __repr__(self) -> str:
        # the dataclass's own repr printed every Measure object: 1,500 characters for two measures
        runs = list(dict.fromkeys(row[0] for row in self.summary.rows))
        return (f"<Evaluation of {len(runs)} run{'' if len(runs) == 1 else 's'} against qrels {self.qrels!r}: "
                f"{', '.join(m.name for m in self.measures)}; {self.settings.describe()}>")

    def measure_notes(self) -> list[str]:
        return [*self.same_measure_notes, *measure_notes(self.measures, self.settings)]

    def judgment_notes(self, qrels: str | None = None) -> list[str]:
        """One line per relevance level in use above every grade of the qrels (no document is
        relevant there: trec_eval's zeros, likely not what was meant), and one per run none of whose
        retrieved documents the qrels judge (likely a run of another collection). qrels: the name
        to call them by (on Spark, the file given), else the evaluation's."""
        qrels = qrels or self.qrels
        notes = []
        scored = [m for m in self.measures if m.family.sql is not None]
        if self.grades is not None:
            lowest, highest = self.grades
            grades = str(lowest) if lowest == highest else f"{lowest} to {highest}"
            by_level: dict[int, list[Measure]] = {}
            for m in scored:
                by_level.setdefault(m.level if m.level is not None else self.settings.level, []).append(m)
            for level, group in sorted(by_level.items()):
                if level <= highest:
                    continue
                # named when other measures of this evaluation are at a level of their own
                whose = f"{_few([m.name for m in group])}: " if len(group) < len(scored) else ""
                note = (f"{whose}no document of {qrels} has grade >= {level} (its grades: {grades}): every "
                        "measure of relevance is 0")
                gains = [m.name for m in group if m.family.trec_name in GAIN_SCHEME_FAMILIES]
                if gains:
                    reads = "reads" if len(gains) == 1 else "read"
                    note += f" ({_few(gains)} {reads} the grades as gains, not the level)"
                notes.append(note)
        unjudged = self.judging_none_retrieved
        queries: dict[str, int] = {}  # the queries each was evaluated on, as wide() counts them
        for run, _measure, _value, _micro, count in self.summary.rows:
            if run in unjudged:
                queries[run] = max(queries.get(run, 0), count)
        for run, count in sorted(queries.items()):
            notes.append(f"none of {run}'s retrieved documents is judged in {qrels} ({count} "
                         f"{'query' if count == 1 else 'queries'}): is it a run of another collection?")
        return notes

    def value(self, run: str | os.PathLike[str], measure: str | Measure) -> float:
        """run's summary value of measure, named in any way evaluate takes it (nDCG@10,
        ndcg_cut.10, ndcg_cut_10 are one measure). A run or measure this evaluation lacks is
        NotEvaluated (a KeyError too), which says what it holds. A run of evaluate_files may be
        given as the Path it was evaluated from (it is named by the path)."""
        run = os.fspath(run) if isinstance(run, os.PathLike) else run
        resolved = [m.name for m in at_level(_resolve([measure], self.settings.compat), self.settings.level)]
        if len(resolved) != 1:
            raise MeasureError(f"{measure} names {len(resolved)} measures ({', '.join(resolved)}): name one")
        (name,) = resolved
        for row in self.summary.rows:
            if row[0] == run and row[1] == name:
                return row[2]
        runs = list(dict.fromkeys(row[0] for row in self.summary.rows))
        if run not in runs:
            raise NotEvaluated(f"run {run!r} is not in this evaluation; its runs: {', '.join(runs)}")
        names = [m.name for m in self.measures if m.family.sql is not None]
        raise NotEvaluated(f"{name} is not in this evaluation; its measures: {', '.join(names)}")

    def per_query_shown(self) -> list[tuple]:
        """The rows of per_query that irw eval -q prints, in every format: under --compat 9 none of a
        qrels query the run lacks (-c scores it 0 in the means), as trec_eval 9.0.8 prints no line
        for it; 10.0 prints its zeros. per_query itself holds every stored value."""
        if self.per_query is None:
            raise UsageError("evaluate with per_query=True to read per-query values")
        if self.settings.prints_queries_not_in_run or not self.queries_not_in_run:
            return self.per_query.rows
        return [row for row in self.per_query.rows if (row[0], row[1]) not in self.queries_not_in_run]

    def wide(self, per_query: bool = False, micro: bool = False) -> Table:
        """One row per run (or run x query, per_query_shown()), one column per measure: the shape
        people read."""
        names = [m.name for m in self.measures if m.family.sql is not None]
        if per_query:
            cells: dict[tuple, dict[str, float]] = {}
            for run, query, measure, value in self.per_query_shown():
                cells.setdefault((run, query), {})[measure] = value
            return Table(["run", "query", *names],
                         [(*key, *(values.get(n) for n in names)) for key, values in cells.items()])
        ratio = {m.name for m in self.measures if m.family.ratio}
        columns = ["run", "queries", *names]
        if micro:
            columns += [f"{n} (micro)" for n in names if n in ratio]
        runs: dict[str, dict[str, tuple]] = {}
        queries: dict[str, int] = {}
        for run, measure, value, micro_value, count in self.summary.rows:
            runs.setdefault(run, {})[measure] = (value, micro_value)
            queries[run] = max(queries.get(run, 0), count)
        rows = []
        for run, values in runs.items():
            row = [run, queries[run], *(values.get(n, (None, None))[0] for n in names)]
            if micro:
                row += [values.get(n, (None, None))[1] for n in names if n in ratio]
            rows.append(tuple(row))
        return Table(columns, rows)


@dataclass
class EvaluationsBySet(Tabular):
    """The result of Warehouse.evaluate_each(): an Evaluation per qrels set, of the runs it judges
    (`irw eval` without --qrels in a warehouse of several collections). As a table it is wide():
    one row per run (or run x query), with the qrels set beside the run once there are several."""

    by_qrels: dict[str, Evaluation]
    left_out: tuple[str, ...] = ()  # the runs chosen that no stored set judges
    notes_left_out: list[str] = field(default_factory=list)  # what a command says of them on stderr

    def table(self) -> Table:
        return self.wide(per_query=False)

    def __repr__(self) -> str:
        sets = ", ".join(f"{qrels!r} ({len(evaluation.selection or ())} runs)"
                         for qrels, evaluation in self.by_qrels.items())
        return f"<EvaluationsBySet: {sets}>"

    def wide(self, per_query: bool = False, micro: bool = False) -> Table:
        """Evaluation.wide() of each set, one after the other; with a `qrels` column after `run`
        when there are several sets (one set's table is its Evaluation's, as `--qrels` gives it)."""
        tables = {qrels: evaluation.wide(per_query=per_query, micro=micro)
                  for qrels, evaluation in self.by_qrels.items()}
        if len(tables) == 1:
            return next(iter(tables.values()))
        first = next(iter(tables.values()))
        return Table([first.columns[0], "qrels", *first.columns[1:]],
                     [(row[0], qrels, *row[1:]) for qrels, table in tables.items() for row in table.rows])

    def value(self, run: str, measure: str | Measure) -> float:
        """run's summary value of measure, from the set that judges it."""
        for evaluation in self.by_qrels.values():
            if evaluation.selection is not None and run in evaluation.selection.names:
                return evaluation.value(run, measure)
        raise NotEvaluated(f"run {run!r} is not in this evaluation; its runs: "
                           + ", ".join(name for e in self.by_qrels.values() for name in (e.selection or ())))


class Evaluator:
    def __init__(self, db: Database):
        self.db = db
        # user measures' values, computed in irw sql's sandbox before the evaluation's transaction
        # (warehouse/evaluation/user_measures.py): (stored name, run_id) -> [(query_id, value)]
        self._user_values: dict[tuple[str, int], list[tuple[str, float]]] = {}

    def evaluate(self, runs: Sequence[str], qrels: str, measures: Iterable[str | Measure], *,
                 per_query: bool = False, settings: Settings | None = None, recompute: bool = False) -> Evaluation:
        """recompute: compute the scores again even where stored ones exist, and store the new ones."""
        settings = settings or Settings()
        measures = list(measures)  # read twice: parsed, and named again by a read-only warehouse's message
        if not runs:
            raise UsageError("name at least one run")
        run_ids = catalog.run_ids(self.db, runs)  # one query, not one per run (1.1 s over 1,000 runs)
        qrels_id = catalog.qrels_set_id(self.db, qrels)
        parsed = at_level([m for m in _resolve(measures, settings.compat) if m.family.sql is not None], settings.level)
        if not parsed:
            raise MeasureError("runid and relstring are text, not scores: only `irw trec-eval` prints them")
        check_qrels_for(self.db, qrels, qrels_id, parsed)
        check_settings_for(settings, parsed)
        if any(is_user(m) for m in parsed):
            from warehouse.evaluation import user_measures

            user_measures.check_settings(settings, [m.name for m in parsed if is_user(m)])
            if not self.db.keeps_scores:
                raise MeasureError(f"{', '.join(m.name for m in parsed if is_user(m))}: a user measure is computed in "
                                   "a warehouse it was added to (irw measures add), not by a one-shot evaluation")
        by_level: dict[int, list[Measure]] = {}
        for m in parsed:
            by_level.setdefault(m.level if m.level is not None else settings.level, []).append(m)
        evaluation_ids = {}
        for level, group in by_level.items():
            group_settings = replace(settings, level=level)
            evaluation_ids[level] = self._ensure_scores(qrels_id, group_settings, list(run_ids.values()), group,
                                                        recompute)
        evaluation = self._read(qrels, qrels_id, run_ids, parsed, settings, evaluation_ids, per_query)
        evaluation.same_measure_notes = one_measure_notes(measures, settings)
        try:
            _require_values(evaluation, list(run_ids), self.db, measures)
        except ReadOnlyError:
            # no evaluation ran here to count a run's unjudged queries: the catalog says which it has
            # none of (else a reader was told to compute scores no one can)
            # (by query ids: a run whose ids qrels judges, but whose documents another set does, is
            # evaluated as trec_eval would, its values 0, so its scores are missing as any run's are)
            chosen = catalog.select_runs(self.db, list(run_ids), qrels=qrels)
            unjudged = [run for run in run_ids if run in chosen.named_unjudged and run not in chosen.other_collection]
            if unjudged:
                raise MeasureValueError.of_lines([
                    f"run {catalog.listed_name(run)} has no query judged in qrels {catalog.listed_name(qrels)}: no "
                    "measure has a value; check that run and qrels are of the same collection"
                    for run in unjudged]) from None
            raise
        except MeasureValueError:
            changed = catalog.runs_changed(self.db, run_ids)
            if changed:  # not "no value with these settings": a teammate's `irw rm`, `--replace` or rename
                raise ConflictError(f"run{'s' if len(changed) > 1 else ''} "
                                    f"{', '.join(catalog.listed_name(name) for name in changed)} "
                                    f"{'were' if len(changed) > 1 else 'was'} removed, replaced or renamed by "
                                    "another writer while this evaluation ran: run the command again") from None
            raise
        return evaluation

    # -- computing ---------------------------------------------------------------------------
    def _find_evaluation_id(self, qrels_id: int, s: Settings) -> int | None:
        row = self.db.run_file("eval/find_evaluation.sql",
                               {"qrels_set_id": qrels_id, "settings_key": s.key}).fetchone()
        return row[0] if row else None

    def _evaluation_id(self, qrels_id: int, s: Settings) -> int:
        found = self._find_evaluation_id(qrels_id, s)
        return found if found is not None else self._insert_evaluation(qrels_id, s)

    def _insert_evaluation(self, qrels_id: int, s: Settings) -> int:
        return self.db.run_file("eval/insert_evaluation.sql", {
            "qrels_set_id": qrels_id, "settings_key": s.key, "level": s.level, "depth": s.depth,
            "judged_only": s.judged_only, "complete": s.complete, "compat": s.compat, "norel": s.norel,
        }).fetchone()[0]

    def _ensure_scores(self, qrels_id: int, s: Settings, run_ids: list[int], measures: list[Measure],
                       recompute: bool = False) -> int:
        scored = [m for m in measures if m.family.sql is not None]
        if not self.db.keeps_scores:
            evaluation_id = self._insert_evaluation(qrels_id, s)
            for batch in self._batches(run_ids):
                self._compute_batch(evaluation_id, qrels_id, s, _one_per_stored_name(scored), batch)
            self.db.run_file("eval/register_measures.sql")
            return evaluation_id
        if self.db.read_only:
            if recompute:
                raise ReadOnlyError("the warehouse is open read-only: scores cannot be recomputed")
            found = self._find_evaluation_id(qrels_id, s)
            return found if found is not None else -1
        user = [m for m in scored if is_user(m)]
        self._user_values = {}
        if user:
            # user measures run in irw sql's sandbox, which a transaction of the writer would bar
            found = self._find_evaluation_id(qrels_id, s)
            done = set() if recompute or found is None else self._done(found, run_ids, user)
            missing = [(r, m) for r in run_ids for m in scored if (r, stored_name(m)) not in done]
            if any(is_user(m) for _, m in missing):  # the runs the transaction computes, as it finds them
                self._compute_user_values(qrels_id, s, sorted({r for r, _ in missing}), user)
        with self.db.transaction():
            # on a server, another client may be storing these scores now: wait for it, then
            # find what it stored (a DuckDB file has one writer at a time)
            self.db.lock_scores(qrels_id)
            evaluation_id = self._evaluation_id(qrels_id, s)
            done = set() if recompute else self._done(evaluation_id, run_ids, user)
            missing = [(r, m) for r in run_ids for m in scored if (r, stored_name(m)) not in done]
            if not missing:
                return evaluation_id
            todo_runs = sorted({r for r, _ in missing})
            todo_measures = _one_per_stored_name([m for _, m in missing])
            _require_rows(self.db, qrels_id, todo_runs, [stored_name(m) for m in todo_measures],
                          self._done(evaluation_id, run_ids, user) if recompute else done, s, recompute)
            first, *batches = self._batches(todo_runs)
            self._compute_batch(evaluation_id, qrels_id, s, todo_measures, first)
            self.db.run_file("eval/register_measures.sql")  # the measures of eval_params, filled by _compute
            for m in todo_measures:
                if is_user(m):
                    self.db.run_file("catalog/record_definition_hash.sql", {
                        "evaluation_id": evaluation_id, "run_ids": first, "measure": stored_name(m),
                        "definition_hash": m.family.definition_hash})
        # Each further batch in a transaction of its own: DuckDB frees what a transaction's dropped
        # temp tables held only when it commits, so one transaction would hold every batch's rows.
        # A batch's scores are recorded with them (record_evaluated.sql), so a call cut short
        # leaves whole batches that a later call does not compute again.
        done_runs = len(first)
        if batches:  # work of several batches (a measure new to thousands of runs): said as it goes
            progress.step("runs evaluated", done_runs, len(todo_runs))
        for batch in batches:
            with self.db.transaction():
                self.db.lock_scores(qrels_id)
                self._compute_batch(evaluation_id, qrels_id, s, todo_measures, batch)
            done_runs += len(batch)
            progress.step("runs evaluated", done_runs, len(todo_runs))
        return evaluation_id

    def _done(self, evaluation_id: int, run_ids: list[int], user: list[Measure]) -> set[tuple[int, str]]:
        """The (run, stored name) pairs of an evaluation whose scores are stored; a user measure's
        count only when computed with its current definition (evaluated.definition_hash)."""
        done = set(self.db.run_file("eval/evaluated_already.sql",
                                    {"evaluation_id": evaluation_id, "run_ids": run_ids}).fetchall())
        if user:
            current = {stored_name(m): m.family.definition_hash for m in user}
            for run_id, measure, definition_hash in self.db.run_file(
                    "eval/user_measures_evaluated.sql", {"evaluation_id": evaluation_id, "run_ids": run_ids,
                                                         "measures": sorted(current)}).fetchall():
                if definition_hash != current[measure]:
                    done.discard((run_id, measure))
        return done

    def _compute_user_values(self, qrels_id: int, s: Settings, run_ids: list[int], user: list[Measure]) -> None:
        from warehouse.evaluation import user_measures

        if not run_ids:
            return
        computed = {}
        for measure in {stored_name(m): m for m in user}.values():
            computed[stored_name(measure)] = measure
            for run_id in run_ids:
                self._user_values[(stored_name(measure), run_id)] = []
        for name, run_id, query_id, value in user_measures.compute(
                self.db, list(computed.values()), run_ids, qrels_id, s):
            self._user_values[(name, run_id)].append((query_id, value))
        self._refuse_infinite_values(computed)

    def _refuse_infinite_values(self, measures: dict[str, Measure]) -> None:
        """A user measure's value is a number: an infinity (a division by zero) is refused before
        the evaluation's transaction stores anything (sql/eval/user_values_infinite.sql). A NaN is
        a value undefined for the query, as trec_eval's -nan, and kept."""
        self._load_user_values(list(measures), sorted({r for _, r in self._user_values}))
        problems = []
        for name, run, query_id, value, count in self.db.run_file("eval/user_values_infinite.sql").fetchall():
            more = f" (and {count - 1} more)" if count > 1 else ""
            problems.append(f"{measures[name].name}: its value is infinite ({value}) for run {run}, query "
                            f"{query_id}{more}: a user measure's value is a number; check its SQL for a division by "
                            "zero (nullif(divisor, 0) gives null, which scores 0; cast('nan' as double) marks a "
                            "value undefined for the query, as trec_eval's -nan)")
        if problems:
            raise MeasureValueError.of_lines(problems)

    def _load_user_values(self, names: list[str], run_ids: list[int]) -> None:
        """eval_user_values: the computed values of these user measures (stored names) and runs."""
        self.db.load_rows("eval_user_values", [("measure", "varchar"), ("run_id", "integer"), ("query_id", "varchar"),
                                               ("value", "double")],
                          [(n, r, q, v) for n in names for r in run_ids for q, v in self._user_values.get((n, r), ())])

    def _store_user_scores(self, evaluation_id: int, qrels_id: int, measures: list[Measure], run_ids: list[int]) -> None:
        names = [stored_name(m) for m in measures]
        missing = [(n, r) for n in names for r in run_ids if (n, r) not in self._user_values]
        if missing:
            raise MeasureValueError(f"{missing[0][0]}: its values were not computed before the evaluation's transaction "
                                    "(another client changed the stored scores meanwhile); evaluate again")
        self._load_user_values(names, run_ids)
        self.db.run_file("eval/store_user_scores.sql", {"evaluation_id": evaluation_id, "qrels_set_id": qrels_id,
                                                        "measures": names})

    def _compute_batch(self, evaluation_id: int, qrels_id: int, s: Settings, measures: list[Measure],
                       run_ids: list[int]) -> None:
        judged = any(is_user(m) or m.family.sql not in WITHOUT_JUDGED_STEP for m in measures)
        self._prepare(qrels_id, s, run_ids, judged=judged)
        self._compute(evaluation_id, qrels_id, s, measures, run_ids)

    def _batches(self, run_ids: list[int]) -> list[list[int]]:
        """run_ids split, in order, into batches of about ROWS_PER_BATCH rows (a larger run alone)."""
        if not self.db.batches_runs or len(run_ids) < 2:
            return [run_ids]
        rows = dict(self.db.run_file("eval/run_row_counts.sql", {"run_ids": run_ids}).fetchall())
        return list(runs_by_rows(((run_id, rows.get(run_id, 0)) for run_id in run_ids), ROWS_PER_BATCH))

    def _prepare(self, qrels_id: int, s: Settings, run_ids: list[int], *, judged: bool = True) -> None:
        params = {"qrels_set_id": qrels_id, "level": s.level, "run_ids": run_ids,
                  "depth": s.depth or NO_DEPTH, "complete": s.complete, "judged_only": s.judged_only,
                  "exclude_norel": s.norel == "exclude"}
        for step in prepare_steps(s, judged=judged):
            self.db.run_file(step, params)

    def _compute(self, evaluation_id: int, qrels_id: int, s: Settings, measures: list[Measure],
                 run_ids: list[int]) -> None:
        by_file: dict[str, list[Measure]] = {}
        for m in measures:
            if not is_user(m):
                by_file.setdefault(m.family.sql, []).append(m)
        user = [m for m in measures if is_user(m)]
        names = [stored_name(m) for m in measures]
        if self.db.keeps_scores:
            self.db.run_file("eval/delete_scores.sql",
                             {"evaluation_id": evaluation_id, "run_ids": run_ids, "measures": names})
        params = load_measure_params(self.db, measures)
        gain_measures = [m for m in measures if m.family.trec_name in GAIN_SCHEME_FAMILIES]
        if not gain_measures:
            # sql/measures/gain.sql reads the gain tables for G: binG alone (no G) gets them built
            # for itself (its scheme '' is never read), so that the file finds the tables it names
            gain_measures = [m for m in measures if m.family.sql == "measures/gain.sql"]
        if gain_measures:
            load_gain_order(self.db, [(m, params[stored_name(m)]) for m in gain_measures], s.judged_only)
            self.db.run_file("eval/06_gains.sql", {"measures": [stored_name(m) for m in gain_measures]})
            if any(m.family.trec_name in DCG_FAMILIES for m in gain_measures):
                self.db.run_file("eval/07_dcg.sql")
        for sql_file, group in sorted(by_file.items()):
            self.db.run_sql(store_scores_sql(sql_file), {
                "evaluation_id": evaluation_id, "qrels_set_id": qrels_id, "compat": s.compat,
                "depth": s.depth or NO_DEPTH, "judged_only": s.judged_only, "level": s.level,
                "num_docs": s.num_docs, "measures": [stored_name(m) for m in group]})
        if user:
            self._store_user_scores(evaluation_id, qrels_id, user, run_ids)
        if self.db.keeps_scores:
            self.db.run_file("eval/record_evaluated.sql",
                             {"evaluation_id": evaluation_id, "run_ids": run_ids, "measures": names})
            for m in user:
                self.db.run_file("catalog/record_definition_hash.sql", {
                    "evaluation_id": evaluation_id, "run_ids": run_ids, "measure": stored_name(m),
                    "definition_hash": m.family.definition_hash})

    # -- reading -----------------------------------------------------------------------------
    def _read(self, qrels: str, qrels_id: int, run_ids: dict[str, int], measures: list[Measure], s: Settings,
              evaluation_ids: dict[int, int], per_query: bool) -> Evaluation:
        wanted = [{"evaluation_id": evaluation_ids[m.level if m.level is not None else s.level],
                   "stored": stored_name(m), "measure": m.name, "position": i}
                  for i, m in enumerate(measures) if m.family.sql is not None]
        load_wanted(self.db, wanted, list(run_ids.values()))
        counts = {m.name for m in measures if m.is_count}
        summary = _counts_as_integers(Table.from_result(self.db.run_file("eval/summary.sql")), counts)
        detail = _counts_as_integers(Table.from_result(self.db.run_file("eval/per_query.sql")), counts) \
            if per_query else None
        ignored, judging_none, unanswered = {}, set(), {}
        for run, count, judged_queries, missing in self.db.run_file(
                "eval/ignored_queries.sql", {"run_ids": list(run_ids.values()), "qrels_set_id": qrels_id}).fetchall():
            if count:
                ignored[run] = count
            if not judged_queries:
                judging_none.add(run)
            elif missing:
                unanswered[run] = missing
        norel, lowest, highest = self.db.run_file("eval/norel_queries.sql",
                                                  {"qrels_set_id": qrels_id, "level": s.level}).fetchone()
        absent = frozenset(self.db.run_file("eval/queries_not_in_run.sql").fetchall()) \
            if per_query and s.complete else frozenset()
        # for irw eval's note on runs of another collection: one statement for every run; a one-shot
        # evaluation (irw trec-eval) spares it, printing no note
        unjudged = frozenset(run for (run,) in self.db.run_file(
            "eval/runs_judging_none_retrieved.sql", {"run_ids": list(run_ids.values()), "qrels_set_id": qrels_id})
            .fetchall()) if self.db.keeps_scores else frozenset()
        return Evaluation(qrels, s, measures, summary, detail, ignored, norel, queries_not_in_run=absent,
                          grades=None if highest is None else (int(lowest), int(highest)), judging_none_retrieved=unjudged,
                          no_query_judged=frozenset(judging_none), unanswered_queries=unanswered)


def _one_per_stored_name(measures: list[Measure]) -> list[Measure]:
    """One measure per stored name, in the order given: `AP` and `AP(rel=2)` of an evaluation at
    level 2 are one score (stored_name), computed once; two would store every value twice."""
    return list({stored_name(m): m for m in measures}.values())


def _require_rows(db: Database, qrels_id: int, run_ids: list[int], measures: list[str],
                  done: set[tuple[int, str]], s: Settings, recompute: bool = False) -> None:
    """Refuses to compute measures of runs whose rows are elsewhere (schema 11): from no rows they
    would be zeros. Says what each such run holds, or that the qrels judge none of its queries;
    recompute: asked to compute stored scores again, which needs the rows as much (said so: a walk
    read "not stored" of scores `irw eval` then printed)."""
    problems = []
    by_held: dict[tuple[str, ...], list[str]] = {}  # said once for the runs holding the same measures
    for run_id, name, qrels, queries, judged in db.run_file("eval/runs_without_rows.sql",
                                                      {"run_ids": run_ids, "qrels_set_id": qrels_id}).fetchall():
        if queries and not judged:
            problems.append(_no_judged_query(db, name, qrels, queries))
            continue
        by_held.setdefault(tuple(sorted(m for r, m in done if r == run_id)), []).append(name)
    for held, names in by_held.items():
        one = len(names) == 1
        it, its = ("it", "its") if one else ("them", "their")
        shown = _runs_said(names)
        if recompute:
            kept = (f"{it.capitalize() if one else 'They'} {'holds' if one else 'hold'} {', '.join(held)} with these "
                    f"settings, which irw eval without --recompute reads. " if held else "")
            problems.append(
                f"--recompute: {', '.join(measures)} of {'run' if one else 'runs'} {shown} cannot be computed again "
                f"here: {'the run was' if one else 'the runs were'} evaluated on Spark (irw eval --engine spark "
                f"--into) and {its} rows are not in this warehouse. {kept}Store {its} rows with irw ingest run FILE "
                f"({its} scores are kept) to compute here, or evaluate {it} on Spark again with --into --replace")
            continue
        advice = (f"evaluate {it} on Spark again with these measures and --into, or store {its} rows with irw ingest "
                  f"run FILE ({its} scores are kept)")
        advice = f"{'It holds' if one else 'They hold'} {', '.join(held)} with these settings: name those (-m), or " \
                 f"{advice}" if held else advice[0].upper() + advice[1:]
        problems.append(
            f"{', '.join(measures)} with these settings ({s.key}) of {'run' if one else 'runs'} {shown}: not stored, "
            f"and cannot be computed here: {'the run was' if one else 'the runs were'} evaluated on Spark (irw eval "
            f"--engine spark --into) and {its} rows are not in this warehouse. {advice}")
    if problems:
        raise RowsNotStoredError.of_lines(problems)


def _no_judged_query(db: Database, run: str, qrels: str, ignored: int, complete: bool = False) -> str:
    """Why run has no value: the qrels judge none of its queries; with the first ids of each, where
    ids written two ways (1 and 001, q1 and 1) show what no count says (a walk's frame ids)."""
    values = ("evaluated on every query of the qrels it would score 0 (trec_eval refuses such a run)" if complete
              else "no measure has a value")
    are = "is" if ignored == 1 else "are"
    ids: dict[str, list[str]] = {"run": [], "qrels": []}
    for side, query_id in db.run_file("eval/query_id_samples.sql", {"run": run, "qrels": qrels}).fetchall():
        ids[side].append(query_id)
    samples = (f" (its first query ids: {', '.join(ids['run'])}; the qrels': {', '.join(ids['qrels'])})"
               if ids["run"] and ids["qrels"] else "")
    return (f"run {run} has no query judged in qrels {qrels} ({ignored} of its queries {are} not in the qrels): "
            f"{values}; check that run and qrels are of the same collection{samples}")


def _counts_as_integers(table: Table, counts: set[str]) -> Table:
    """A summary or per-query table whose count measures (num_ret, NumQ ...) hold ints, as trec_eval
    prints them: sums of whole numbers, stored as doubles like every score."""
    if not counts:
        return table
    index = table.columns.index("value")
    measure = table.columns.index("measure")
    return Table(table.columns, [row[:index] + (int(row[index]),) + row[index + 1:]
                                 if row[measure] in counts and row[index] is not None else row for row in table.rows])


def _require_values(evaluation: Evaluation, runs: list[str], db: Database,
                    given: Iterable[str | Measure] = ()) -> None:
    """An evaluation that yields no value for a requested run and measure is an error saying why,
    never an empty table. Read-only, it says which scores were never computed and what stores them
    (_never_computed); given: the measures as the caller named them."""
    have = {(row[0], row[1]) for row in evaluation.summary.rows}
    names = [m.name for m in evaluation.measures if m.family.sql is not None]
    problems = []
    unstored: dict[str, list[str]] = {}
    for run in runs:
        missing = [n for n in names if (run, n) not in have]
        if run in evaluation.no_query_judged and evaluation.settings.complete:
            # -c gives such a run the zeros of every qrels query it lacks: trec_eval refuses it
            problems.append(_no_judged_query(db, run, evaluation.qrels, evaluation.ignored_queries[run], complete=True))
            continue
        if not missing:
            continue
        if len(missing) == len(names) and evaluation.ignored_queries.get(run) and not db.read_only:
            problems.append(_no_judged_query(db, run, evaluation.qrels, evaluation.ignored_queries[run]))
        elif db.read_only:
            unstored[run] = missing
        else:
            problems.append(f"{', '.join(missing)} of run {run}: no value with these settings "
                            f"({evaluation.settings.describe()}); no query was evaluated")
    if unstored:
        raise _never_computed(db, evaluation, unstored, [m.name if isinstance(m, Measure) else m for m in given])
    if problems:
        raise MeasureValueError.of_lines(problems)


def _never_computed(db: Database, evaluation: Evaluation, unstored: dict[str, list[str]],
                    given: list[str]) -> ReadOnlyError:
    """The scores a read-only warehouse lacks: a line for the runs lacking the same measures, then
    the one call that stores them all. Opened read-only by its caller (no read_only_reason: only
    the Python API opens it so, and irw serve's pages, which show their own command), the call is
    Python's evaluate(); else (a PostgreSQL role that may only read, from a command or from Python)
    the `irw eval` command that stores them, run by a role that may write (eval_command)."""
    from warehouse.evaluation.eval_command import eval_command, evaluate_call, writer_db

    s = evaluation.settings
    by_missing: dict[tuple[str, ...], list[str]] = {}
    for run, missing in unstored.items():
        by_missing.setdefault(tuple(missing), []).append(run)
    lines = []
    for missing, runs in by_missing.items():
        one = len(runs) == 1
        lines.append(f"{_few(missing, 8)} of {'run' if one else 'runs'} {_runs_said(runs)}: never computed with these "
                     f"settings ({s.key})")
    asked = [m.name for m in evaluation.measures if m.family.sql is not None]
    wanted = [n for n in asked if any(n in missing for missing in unstored.values())]
    # the measures as named (all_trec) when every one asked is missing, which stores exactly them, or
    # when they are fewer words than the missing ones: a command computes only what is not stored
    # (`-m all_trec`, not the 89 of its measures an earlier evaluation did not store)
    measures = given if given and (len(wanted) == len(asked) or len(given) < len(wanted)) else wanted
    try:
        judged: Sequence[str] = catalog.select_runs(db, None, qrels=evaluation.qrels).names
    except NotFoundError:  # no stored run has a query judged in the qrels set
        judged = ()
    runs = [] if set(unstored) == set(judged) else list(unstored)  # none: every run the qrels set judges
    if db.read_only_reason is None:
        opened = "sandboxed=True" if db.sandboxed else "read_only=True"
        target = repr(db.path) if db.sandbox_in_process else "url"
        lines.append(f"The warehouse is open read-only ({opened}): store them as a user or role that may write it, "
                     f"on the warehouse opened without read_only or sandboxed: "
                     f"warehouse.open({target}).{evaluate_call(evaluation.qrels, measures, runs, s)}"
                     + ("" if db.sandbox_in_process else f", url being {db.path} with a writing role's user name "
                                                         "and password"))
    else:
        where, first = writer_db(db)
        command = eval_command(where, evaluation.qrels, measures, runs, s)
        lines.append(f"The warehouse is read-only here ({db.read_only_reason}): "
                     + (f"{first}, and store them with `{command}`" if first else
                        f"store them as a user or role that may write it with `{command}`"))
    error = ReadOnlyError.of_lines(lines)
    # the lines without the last, which stores them: irw serve's page says its own (warehouse/serve/access.py)
    error.never_computed = lines[:-1]
    return error


def keeps_judged_rows_only(settings: Settings, measures: "Iterable[str | Measure] | str") -> bool:
    """Whether a warehouse made only to evaluate these measures (warehouse.evaluate_files) may keep
    only the judged rows of each run: not when a measure ranks every row itself (gdeval's order,
    tie groups, ndeval's order), nor under --compat 10. A bad name is left for evaluate() to report."""
    try:
        parsed = _resolve([measures] if isinstance(measures, str) else measures, settings.compat)
    except MeasureError:
        return settings.reads_judged_rows_only
    return settings.reads_judged_rows_only and not any(m.family.reads_run_rows for m in parsed)


def check_settings_for(settings: Settings, measures: list[Measure]) -> None:
    """The tie-aware measures take -M (a cutoff of every tie order) or -J (ties among the judged
    documents), not both: which documents -M keeps before -J drops the unjudged ones would itself
    depend on the tie order."""
    groups = sorted({m.family.trec_name for m in measures if m.family.rel_format == "qrels_jg"})
    if groups and settings.judged_only:
        raise UsageError(f"{', '.join(groups)} take no -J here: trec_eval drops the documents each judgment group "
                         "lacks, a ranking per group, which irw does not compute; evaluate without -J")
    ties = sorted({m.name for m in measures if m.family.sql == "measures/ties.sql"})
    if ties and settings.depth is not None and settings.judged_only:
        raise UsageError(f"{', '.join(ties)} take -M or -J, not both (which documents -M keeps before -J "
                         "drops the unjudged ones depends on the tie order): drop one of them")


def tie_forms(measures: Iterable[Measure], settings: Settings | None) -> list[Measure]:
    """The measures' lowest and highest forms over tie orders (sql/measures/ties.sql), which the
    reports show beside a primary measure nobody asked for them of: none where the settings leave
    them undefined (-M with -J, check_settings_for), so that such settings leave the forms out
    instead of refusing the report; every form where no settings are known yet."""
    forms = [variant for m in measures for mode in ("min", "max")
             if (variant := tie_variant(m, mode)) is not None]
    if settings is None or not forms:
        return forms
    try:
        check_settings_for(settings, forms)
    except UsageError:
        return []
    return forms


def _runs_said(runs: Sequence[str]) -> str:
    """Runs a message about scores names: every one up to six ("a, b and c"), else five and how many more."""
    if len(runs) <= 6:
        return runs[0] if len(runs) == 1 else f"{', '.join(runs[:-1])} and {runs[-1]}"
    return f"{', '.join(runs[:5])} and {len(runs) - 5:,} more"


def _few(names: Sequence[str], shown: int = 3) -> str:
    """names for a message: the first few, and how many more (all_prefs asks for 14, qrels_jg 20)."""
    if len(names) <= shown + 1:
        return ", ".join(names)
    return f"{', '.join(names[:shown])} and {len(names) - shown} more"


def check_qrels_for(db: Database, qrels: str, qrels_id: int, measures: list[Measure]) -> None:
    """Measures that need something of the qrels set say so before anything is computed: the
    judgment-group measures (trec_eval -R qrels_jg) and the diversity measures need subtopic
    judgments (the groups are stored as subtopics); the preference measures need preference
    judgments; gdeval's ERR refuses grades above 4, as gdeval.pl does (its stopping chance
    (2^g - 1) / 16 would pass 1)."""
    has_subtopics: list[bool] = []  # asked once, by the first measure that needs subtopics

    def subtopics() -> bool:
        if not has_subtopics:
            has_subtopics.append(bool(db.run_file("eval/qrels_has_subtopics.sql",
                                                  {"qrels_set_id": qrels_id}).fetchone()[0]))
        return has_subtopics[0]

    groups = sorted({m.name for m in measures if m.family.rel_format == "qrels_jg"})
    if groups and not subtopics():
        raise MeasureValueError(f"{_few(groups)} {'needs' if len(groups) == 1 else 'need'} judgment groups, and "
                                f"qrels {qrels} has none: ingest the judgments (`qid group docid grade`, trec_eval's "
                                "qrels_jg format) with `irw ingest qrels FILE --subtopics --name NAME` (the groups are "
                                "kept as subtopics) and evaluate with --qrels NAME")
    prefs = sorted({m.name for m in measures if m.family.rel_format == "prefs"})
    if prefs and not db.run_file("eval/preference_count.sql", {"qrels_set_id": qrels_id}).fetchone()[0]:
        raise MeasureValueError(f"{_few(prefs)} {'needs' if len(prefs) == 1 else 'need'} preference judgments, and qrels {qrels} has "
                                "none: ingest them (`qid jg jsg docid rel_level`, trec_eval's prefs format) with "
                                "`irw ingest prefs FILE --name NAME` and evaluate with --qrels NAME")
    diversity = sorted({m.name for m in measures if m.family.sql == "measures/diversity.sql"})
    if diversity and not subtopics():
        needs = f"{_few(diversity)} {'needs' if len(diversity) == 1 else 'need'} subtopic judgments"
        ingest = "`irw ingest qrels FILE --subtopics --name NAME` and evaluate with --qrels NAME"
        if not db.keeps_scores:
            # irw trec-eval and warehouse.evaluate_files: no qrels set of that name to ingest into
            # (a walk read "qrels qrels has none ... --qrels NAME" from irw trec-eval)
            raise MeasureValueError(f"{needs}, which irw trec-eval and warehouse.evaluate_files do not read (a "
                                    "qrels file's second column is trec_eval's iteration, no subtopic): evaluate "
                                    f"in a warehouse: {ingest}")
        raise MeasureValueError(f"{needs}, and qrels {qrels} has none: ingest the diversity qrels (`qid subtopic "
                                f"docid grade`, ndeval's format) with {ingest}")
    if any(m.family.trec_name == "gdeval_err" for m in measures):
        row = db.run_file("eval/grade_above.sql", {"qrels_set_id": qrels_id, "max_grade": 4}).fetchone()
        if row:
            raise MeasureValueError(
                f"ERR (gdeval) takes grades up to 4, and qrels {qrels} grades document {row[1]} of query "
                f"{row[0]} {row[2]}: gdeval.pl refuses such a file. Map the grades to 0..4 in a copy of the "
                "qrels and ingest it under another name (nDCG(dcg=exp-log2) takes any grade)")


def one_measure_notes(given: Iterable[str | Measure], settings: Settings) -> list[str]:
    """A line per measure named more than one way (`-m P@10 -m P_10 -m P.10`, `-m map -m AP`): its
    names, and the one it is shown under, once (a walk asked for three and read one column, unsaid).
    A name of several measures (P.5,10, all_trec) is a set, not a spelling, and is left out."""
    spellings: dict[str, list[str]] = {}
    for spec in given:
        if not isinstance(spec, str):
            continue
        try:
            named = at_level(parse(spec, compat=settings.compat), settings.level)
        except MeasureError:
            return []  # said by the evaluation itself
        if len(named) == 1 and spec.strip() not in spellings.setdefault(named[0].name, []):
            spellings[named[0].name].append(spec.strip())
    return [f"{' and '.join([', '.join(typed[:-1]), typed[-1]] if len(typed) > 2 else typed)} name one measure, "
            f"{name}: shown once" for name, typed in spellings.items() if len(typed) > 1]


def _resolve(measures: Iterable[str | Measure], compat: int = 9) -> list[Measure]:
    """The measures named, each once; all_trec is trec_eval's set of version compat."""
    out: dict[str, Measure] = {}
    for m in measures:
        for item in ([m] if isinstance(m, Measure) else parse_all([m], compat)):
            out.setdefault(item.name, item)
    if not out:
        raise MeasureError("name at least one measure (-m), e.g. -m AP -m nDCG@10")
    return list(out.values())
