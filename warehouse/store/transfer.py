"""Moving stored rows between warehouses, DuckDB and PostgreSQL alike.

Two uses: ingest into a PostgreSQL warehouse (files are validated and ranked in a local DuckDB
staging database, then the run's or qrels set's rows are sent with COPY, warehouse/ingestion/files.py),
and `irw copy` (a warehouse's qrels, runs and stored scores into another, either direction).

Rows travel as headerless CSV files in a private temporary folder: DuckDB writes and reads them
with COPY, PostgreSQL through psycopg's COPY FROM STDIN / TO STDOUT, ~10x faster than row-by-row
inserts. Doubles are written as their shortest round-trip text by both engines, so every score
arrives with the same bits (tests/test_postgres.py checks this). Ids are the target's: a run's
rows are written with its new run_id, so nothing is remapped on the target. The judged rows of a
run (judged_run_rows) are linked again on the target, against the qrels it holds.

Every query is a file under sql/transfer/; a table's rows are read by the file of its name there, and
appended by the engine's copy_in with the column names of the registries below (never the user's).
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator

from warehouse.formats.escaping import shell_word
from warehouse.store import catalog
from warehouse import leftovers
from warehouse.engines import db_option, shown
from warehouse.errors import ConflictError, NotFoundError
from warehouse.formats.cells import listed_name, said_value
from warehouse.resources import read_sql

# table -> its columns, in the order rows travel (sql/transfer/<table>.sql reads them); the first is
# replaced by the target's id
RUN_ROW_TABLES = {
    "run_rows": ("run_id", "query_id", "doc_id", "rank_given", "score", "trec_rank"),
    "run_queries": ("run_id", "query_id", "num_ret"),
}
QRELS_ROW_TABLES = {
    "qrels": ("qrels_set_id", "query_id", "doc_id", "grade"),
    "qrels_subtopics": ("qrels_set_id", "query_id", "subtopic", "doc_id", "grade"),
    "preference_judgments": ("qrels_set_id", "query_id", "jg", "jsg", "doc_id", "rel_level"),
    "preference_pairs": ("qrels_set_id", "query_id", "jg", "doc_id", "other_doc_id"),
}
SCORE_COLUMNS = ("evaluation_id", "qrels_set_id", "run_id", "query_id", "measure", "value", "numerator",
                 "denominator")


@contextmanager
def _folder() -> Iterator[str]:
    """A private temporary folder ($TMPDIR/irw-transfer-<pid>-<hex>); what a killed copy left is
    removed by the next one (warehouse/leftovers.py)."""
    with leftovers.temporary_folder("irw-transfer-") as folder:
        yield str(folder)


def _move_rows(source, target, table: str, columns: tuple[str, ...], source_id: int, new_id: int,
               folder: str) -> None:
    """Sends source's rows of table of one run or qrels set (source_id: sql/transfer/<table>.sql)
    to target, their first column set to new_id."""
    path = os.path.join(folder, f"{table}.csv")
    export(source, read_sql(f"transfer/{table}.sql"), {"source_id": source_id, "new_id": new_id}, path)
    load(target, table, columns, path)


def export(db, select: str, params: dict, path: str) -> None:
    """Writes a query's rows (irw's own SQL) to a headerless CSV file."""
    db.copy_out(select, params, path)


def load(db, table: str, columns: tuple[str, ...], path: str) -> None:
    """Appends a headerless CSV file's rows to a table."""
    if os.path.getsize(path) == 0:
        return  # no rows (DuckDB cannot read an empty CSV file's dialect)
    db.copy_in(table, columns, path)


def _row(db, file: str, params: dict) -> dict | None:
    """The one row of a query file under sql/transfer/, by its column names; None when there is none."""
    result = db.run_file(f"transfer/{file}", params)
    row = result.fetchone()
    return dict(zip((column[0] for column in result.description), row)) if row else None


def _insert_returning(db, file: str, values: dict) -> int:
    """Inserts one row (values by column name) with a file under sql/transfer/; what it returns."""
    return db.run_file(f"transfer/{file}", values).fetchone()[0]


# -- one run, one qrels set ---------------------------------------------------------------------

def ship_run(source, target, name: str, *, replacing: int | None = None, link_in_source: bool = False) -> int:
    """Copies run `name` (its row, run_rows, run_queries) from source to target inside the
    caller's transaction on target, replacing target's run `replacing` (a run_id) if given; links
    its judged rows against target's qrels. Returns the run's id in target.

    link_in_source (source is a staging database of our own, which may take temporary tables):
    the judged rows are joined in source against target's judgments of the run's queries and
    sent, instead of joined on target over every row just sent (_link_in_source)."""
    row = _row(source, "run.sql", {"name": name})
    if row is None:
        raise NotFoundError(f"no run named {name!r} in {source.path}")
    source_id = row.pop("run_id")
    if replacing is not None:
        catalog.delete_run(target, replacing)
    run_id = _insert_returning(target, "insert_run.sql", row)
    with _folder() as folder:
        for table, columns in RUN_ROW_TABLES.items():
            _move_rows(source, target, table, columns, source_id, run_id, folder)
        if link_in_source:
            _link_in_source(source, target, source_id, run_id, folder)
    if not link_in_source:
        target.run_file("ingest/link_judged_rows.sql", {"run_id": run_id, "qrels_set_id": None})
    return run_id


LINK_QRELS_COLUMNS = (("qrels_set_id", "integer"), ("query_id", "varchar"), ("doc_id", "varchar"))
JUDGED_ROW_COLUMNS = ("qrels_set_id", "run_id", "query_id", "doc_id", "trec_rank")


def _link_in_source(source, target, source_id: int, run_id: int, folder: str) -> None:
    """Adds to target's judged_run_rows the judged rows of run source_id (run_id on target), the
    rows link_judged_rows.sql would add there: target's judgments of the run's queries are read
    into source (a temporary table), joined with the run's rows there, and the result is sent.
    On a 7M-line run into PostgreSQL the join on the server read every row just sent (setting
    each page's hint bits on the way) for ~10 s; this reads ~15,000 judgments and sends ~10,000 rows."""
    queries = [row[0] for row in source.run_file("catalog/run_query_ids.sql", {"run_id": source_id}).fetchall()]
    _read_link_qrels(source, target.run_file("ingest/qrels_of_link_queries.sql", {"query_ids": queries})
                     if queries else None)
    judged_csv = os.path.join(folder, "judged_run_rows.csv")
    export(source, read_sql("ingest/judged_rows_against_link_qrels.sql"), {"source_id": source_id, "new_id": run_id},
           judged_csv)
    load(target, "judged_run_rows", JUDGED_ROW_COLUMNS, judged_csv)
    source.run_file("transfer/drop_link_qrels.sql")


LINK_QRELS_CHUNK = 100_000   # judgments held in Python at once on their way into link_qrels


def _read_link_qrels(source, result) -> None:
    """link_qrels in source: the rows of result (qrels_of_link_queries.sql on the target), fetched
    in chunks. Fetched rather than sent with COPY TO STDOUT (a message, and a round of psycopg's
    loop, per row): at 1,000 stored runs the COPY of a run's 10,000 judgments took 0.044 s of its
    ingest, and the temporary table of its query ids (made, analyzed, dropped) 0.012 s more."""
    rows = result.fetchmany(LINK_QRELS_CHUNK) if result is not None else []  # None: a run of no query
    source.load_rows("link_qrels", LINK_QRELS_COLUMNS, rows)
    while len(rows) == LINK_QRELS_CHUNK:
        rows = result.fetchmany(LINK_QRELS_CHUNK)
        source.load_rows("link_qrels_more", LINK_QRELS_COLUMNS, rows)
        source.run_file("transfer/append_link_qrels.sql")


def send_run_rows(source, target, run_id: int) -> None:
    """Sends source's run_rows of run_id to target's run of the same id, inside the caller's
    transaction on target (ingest.store_missing_rows: rows ranked locally for a stored run)."""
    columns = RUN_ROW_TABLES["run_rows"]
    with _folder() as folder:
        _move_rows(source, target, "run_rows", columns, run_id, run_id, folder)


def ship_qrels(source, target, name: str, *, replacing: int | None = None) -> int:
    """Copies qrels set `name` (its row, judgments, subtopic judgments) from source to target
    inside the caller's transaction on target; links the judged rows of target's runs."""
    row = _row(source, "qrels_set.sql", {"name": name})
    if row is None:
        raise NotFoundError(f"no qrels set named {name!r} in {source.path}")
    source_id = row.pop("qrels_set_id")
    if replacing is not None:
        catalog.delete_qrels_set(target, replacing)
    set_id = _insert_returning(target, "insert_qrels_set.sql", row)
    with _folder() as folder:
        for table, columns in QRELS_ROW_TABLES.items():
            _move_rows(source, target, table, columns, source_id, set_id, folder)
    target.run_file("ingest/link_judged_rows.sql", {"run_id": None, "qrels_set_id": set_id})
    return set_id


# -- irw copy -----------------------------------------------------------------------------------

@dataclass
class CopyResult:
    """What `irw copy` did, name by name."""

    qrels: dict[str, str] = field(default_factory=dict)   # name -> copied / replaced / updated / unchanged
    runs: dict[str, str] = field(default_factory=dict)
    scores: int = 0                                        # per-query score rows copied
    # user measure name -> added (the source's definition, which target lacked) or "defined
    # otherwise" (target's definition kept, the source's scores of it left behind)
    measures: dict[str, str] = field(default_factory=dict)
    # what the line of a run or qrels set ("run", name) says past its status: the settings of an
    # unchanged or updated one that differ, or differed, from the source's (_same_content); the
    # scores a --replace removed with the old content
    said: dict[tuple[str, str], str] = field(default_factory=dict)
    # lines on what the name lines do not say: rows held under another name (_note_held_as), the
    # scores of a measure defined otherwise left behind (_copy_scores)
    notes: list[str] = field(default_factory=list)
    # the target migrated to this irw's schema when the copy opened it (engines.upgrade_said), said
    # first, as every other command that writes says it
    upgraded: str | None = None

    def lines(self) -> list[str]:
        out = [self.upgraded] if self.upgraded else []
        out += [f"{kind} {listed_name(name)}: {self.said.get((kind, name), status)}"
               for kind, statuses in (("qrels", self.qrels), ("run", self.runs)) for name, status in statuses.items()]
        out += [f"measure {listed_name(name)}: added (the source's definition)"
                for name, status in self.measures.items() if status == "added"]
        out += self.notes
        out.append(f"{self.scores} stored per-query scores copied")
        return out


def copy_warehouse(source, target, *, replace: bool = False, runs: list[str] | None = None) -> CopyResult:
    """Copies source's qrels sets, runs (all, or those named) and stored scores into target, in
    one transaction on target. With runs named, the qrels sets copied are those judging one of
    them: the others are neither copied nor compared with target's (a --replace replaced a set of
    the same name there that the runs never needed). A name that target holds with other content
    (another sha256) is a ConflictError unless replace; with the same content it is left as it is
    (its scores are still copied where target lacks them), but for its settings (a run's system,
    description, parameters and date, a qrels set's description: what `irw edit` changes): where
    they differ from source's, replace makes them source's in place (the scores stay: the rows
    are the same), and without, the result's line of it says which differ and how to take source's."""
    if target.read_only:
        # a server's role that may only read: said as ingest says it (Warehouse._require_writable),
        # before the server refuses the first insert
        from warehouse.errors import ReadOnlyError

        raise ReadOnlyError(f"cannot copy into it: the warehouse {target.path} is read-only here: "
                            f"{target.read_only_reason or 'it was opened read-only'}; use a role that may write it "
                            "(see docs/engines.md, \"A shared warehouse\")")
    result = CopyResult()
    if runs is not None:
        runs = list(dict.fromkeys(runs))  # a run named twice is copied once, and said once as copied
    run_names = runs if runs is not None else [r[0] for r in source.run_file("transfer/run_names.sql").fetchall()]
    qrels_names = [r[0] for r in source.run_file("transfer/qrels_set_names.sql").fetchall()]
    if runs is not None:  # every named run exists
        catalog.run_ids(source, runs, runs_command=f"irw runs --db {shell_word(shown(source.path))}")
        judging = {name for name, _ in catalog.judging_qrels(source, runs)}
        qrels_names = [name for name in qrels_names if name in judging]
    clashes = []
    for table, names, kind in (("qrels_set", qrels_names, "qrels set"), ("run", run_names, "run")):
        for name in names:
            mine = source.run_file(f"transfer/{table}_content.sql", {"name": name}).fetchone()[1]
            theirs = target.run_file(f"transfer/{table}_content.sql", {"name": name}).fetchone()
            if theirs is not None and theirs[1] != mine and not replace:
                clashes.append(f"{kind} {name}")
    if clashes:
        them = "them" if len(clashes) > 1 else "it"
        raise ConflictError(f"{target.path} already holds {', '.join(clashes)} with other content; pass --replace "
                            f"to replace {them} (and every score computed with {them}), or remove {them} there first")
    with target.transaction():
        qrels_ids, copying = {}, frozenset(qrels_names)
        for name in qrels_names:
            qrels_ids[name], result.qrels[name] = _copy_one(source, target, "qrels_set", name, ship_qrels, replace,
                                                            result, copying)
        run_ids, copying = {}, frozenset(run_names)
        for name in run_names:
            run_ids[name], result.runs[name] = _copy_one(source, target, "run", name, ship_run, replace, result,
                                                         copying)
        result.scores = _copy_scores(source, target, qrels_ids, run_ids, result)
        _copy_user_measures(source, target, result)
    _check_added_measures(target, result)
    return result


def _check_added_measures(target, result: CopyResult) -> None:
    """Each measure the copy added, checked on target's engine as `irw measures add` checks a file:
    SQL one engine runs, another's sandbox may refuse (pg_sleep is a no-op on DuckDB), which was
    said only at the first `irw eval` there. The copy stands; its note says what to do."""
    from warehouse.errors import IrwError
    from warehouse.evaluation import user_measures

    for name, status in result.measures.items():
        if status != "added":
            continue
        try:
            user_measures.trial(target, user_measures.definition_of(target, name))
        except IrwError as exc:
            result.notes.append(
                f"measure {listed_name(name)}: this warehouse refuses its SQL ({exc}), so `irw eval -m {name}` here "
                f"fails: replace it with a file it runs (`irw measures add FILE --replace {db_option(target)}`) or "
                f"remove it (`irw measures rm {name} {db_option(target)}`)")


def _copy_user_measures(source, target, result: CopyResult) -> None:
    """The measures added with `irw measures add` that target lacks, so that their copied scores
    are read there (a name target defines otherwise keeps target's definition, and _copy_scores
    leaves the other definition's scores behind)."""
    have = {row[0] for row in target.run_file("transfer/user_measure_names.sql").fetchall()}
    found = source.run_file("transfer/user_measures.sql")
    columns = [column[0] for column in found.description]
    for row in found.fetchall():
        if row[0] not in have:
            target.run_file("transfer/insert_user_measure.sql", dict(zip(columns, row)))
            result.measures[row[0]] = "added"


def _copy_one(source, target, kind: str, name: str, ship, replace: bool, result: CopyResult,
              copying: frozenset = frozenset()) -> tuple[int, str]:
    """kind: run or qrels_set (sql/transfer/<kind>_content.sql ...); copying: the names of that kind
    this copy takes (_note_held_as)."""
    mine = source.run_file(f"transfer/{kind}_content.sql", {"name": name}).fetchone()[1]
    theirs = target.run_file(f"transfer/{kind}_content.sql", {"name": name}).fetchone()
    if theirs is not None and theirs[1] == mine:
        return theirs[0], _same_content(source, target, kind, name, theirs[0], replace, result)
    if theirs is None:
        _note_held_as(source, target, kind, name, mine, result.notes, copying)
    if source.text_holds_nul and not target.text_holds_nul:
        _refuse_nul(source, kind, name)
    if theirs is None:
        return ship(source, target, name), "copied"
    # what goes with the old content, said: a --replace asked for it, but not how much it was
    removed = target.run_file("transfer/stored_score_count.sql", {"run_id": theirs[0] if kind == "run" else None,
                              "qrels_set_id": theirs[0] if kind != "run" else None}).fetchone()[0]
    if removed:
        result.said[("run" if kind == "run" else "qrels", name)] = (
            f"replaced, with the {removed:,} stored per-query score{'' if removed == 1 else 's'} computed with the "
            "target's content")
    return ship(source, target, name, replacing=theirs[0]), "replaced"


# What `irw edit` changes, by kind (sql/transfer/<kind>.sql's columns): a copy compares them
# where the content is the same. A run's date is its file_created_at with the date_source it came from.
SETTINGS = {"run": ("system", "description", "parameters", "file_created_at"), "qrels_set": ("description",)}
SETTING_WORDS = {"system": "system", "description": "description", "parameters": "parameters",
                 "file_created_at": "date"}


def _same_content(source, target, kind: str, name: str, target_id: int, replace: bool, result: CopyResult) -> str:
    """The status of a run or qrels set target holds with source's content: unchanged, or updated
    where replace made its differing settings source's (its line says each, or, without replace,
    how to take source's)."""
    mine, theirs = _row(source, f"{kind}.sql", {"name": name}), _row(target, f"{kind}.sql", {"name": name})
    differ = [key for key in SETTINGS[kind] if _setting(mine, key) != _setting(theirs, key)]
    if not differ:
        return "unchanged"
    what = "run" if kind == "run" else "qrels"
    said = [f"{SETTING_WORDS[key]} {_said_setting(mine, key)} in the source, {_said_setting(theirs, key)} here"
            for key in differ]
    if not replace:
        result.said[(what, name)] = (f"unchanged rows, but its {'; '.join(said)}: kept; pass --replace to take the "
                                     "source's (its scores stay)")
        return "unchanged"
    if kind == "run":
        target.run_file("transfer/update_run_settings.sql",
                        {"run_id": target_id, **{key: mine[key] for key in (*SETTINGS["run"], "date_source")}})
    else:
        target.run_file("catalog/edit_qrels_set_description.sql",
                        {"qrels_set_id": target_id, "description": mine["description"]})
    result.said[(what, name)] = "updated: the same rows; its " + "; ".join(
        f"{SETTING_WORDS[key]} {'are' if key == 'parameters' else 'is'} now {_said_setting(mine, key)}, was "
        f"{_said_setting(theirs, key)}" for key in differ) + " (its scores stay)"
    return "updated"


def _note_held_as(source, target, kind: str, name: str, content: str, notes: list[str],
                  copying: frozenset = frozenset()) -> None:
    """A note when target holds the content of a run or qrels set it is about to copy under another
    name that source does not hold it under (renamed in one of the two warehouses): two names for
    the same rows, which a selection by pattern then takes twice. Names source holds with the same
    rows too (stored twice there on purpose, or copied a moment ago) are source's own and not said,
    nor are names this copy takes (copying): their rows are source's once it is done (a walk's note
    named a run --replace then gave other rows, as the one to remove)."""
    query = "transfer/runs_by_content.sql" if kind == "run" else "catalog/qrels_sets_by_content.sql"
    others = [row[0] for row in target.run_file(query, {"sha256": content, "name": name}).fetchall()
              if row[0] not in copying]
    others = [other for other in others
              if (source.run_file(f"transfer/{kind}_content.sql", {"name": other}).fetchone() or (None, None))[1]
              != content]
    if others:
        what, other = ("run", "run") if kind == "run" else ("qrels", "qrels set")
        notes.append(f"{what} {listed_name(name)}: the target holds the same rows as {other} "
                     f"{', '.join(map(listed_name, others))} too (renamed in "
                     f"one of the two warehouses?): `irw rm {what}` the name not wanted")


def _setting(row: dict, key: str):
    """A setting of a run.sql or qrels_set.sql row, as compared between engines: no parameters is
    an empty map, a date comes with where it came from."""
    if key == "parameters":
        return dict(row[key] or {})
    if key == "file_created_at":
        return row[key], row["date_source"]
    return row[key]


def _said_setting(row: dict, key: str) -> str:
    if key == "file_created_at":
        return f"{row[key]} (from {row['date_source']})"
    return said_value(_setting(row, key))


def _refuse_nul(source, kind: str, name: str) -> None:
    """A run or qrels set stored before irw refused NUL at ingest (docs/input-formats.md) holds text
    PostgreSQL cannot: said naming it and where, instead of the server's error mid-copy."""
    from warehouse.errors import DatabaseError
    from warehouse.formats.escaping import shown

    found = source.run_file(f"transfer/{kind}_nul.sql", {"name": name}).fetchone()
    where = f"query {shown(found[0])}, document {shown(found[1])}" if found else None
    if where is None:
        texts = source.run_file(f"transfer/{kind}_texts.sql", {"name": name}).fetchone()
        if any(isinstance(v, str) and "\x00" in v for v in texts):
            where = "its name, tag or metadata"
    if where:
        raise DatabaseError(f"{'run' if kind == 'run' else 'qrels set'} {shown(name)} in {source.path} holds NUL (U+0000) at {where}, which PostgreSQL's "
                         "text cannot hold (irw now refuses it at ingest); leave it out with --run, or remove it "
                         "and ingest it again from a file without NUL")


def _defined_otherwise(measure: str, definition_hash: str | None, defined: dict[str, str]) -> bool:
    """Whether measure's scores were computed with a user measure's definition other than the one
    target holds under its name (user_measures.name; stored as NAME or NAME(k=...)): such scores are
    not copied, as irw sql's score views would show them as target's measure."""
    if definition_hash is None:
        return False
    family = measure.split("(", 1)[0]
    return family in defined and defined[family] != definition_hash


def _copy_scores(source, target, qrels_ids: dict[str, int], run_ids: dict[str, int], result: CopyResult) -> int:
    """Copies the stored scores of the copied runs with the copied qrels sets that target lacks.
    A user measure target defines otherwise keeps target's definition; the source's scores of it
    are left behind, and result.notes says so: the same command then prints other numbers for
    that measure in the two warehouses."""
    copied = 0
    left_behind: dict[str, set[str]] = {}  # user measure -> the runs whose scores of it stay behind
    defined = dict(target.run_file("transfer/user_measure_hashes.sql").fetchall())
    evaluations = source.run_file("transfer/evaluations.sql").fetchall()
    source_run_ids = dict(source.run_file("catalog/all_run_ids.sql").fetchall())
    for source_eval, qrels in evaluations:
        if qrels not in qrels_ids:
            continue
        values = _row(source, "evaluation.sql", {"evaluation_id": source_eval})
        found = target.run_file("transfer/evaluation_of_settings.sql",
                                {"qrels_set_id": qrels_ids[qrels], "settings_key": values["settings_key"]}).fetchone()
        target_eval = found[0] if found else _insert_returning(
            target, "insert_evaluation.sql", {"qrels_set_id": qrels_ids[qrels], **values})
        for name, target_run in run_ids.items():
            rows = source.run_file("transfer/evaluated.sql",
                                   {"evaluation_id": source_eval, "run_id": source_run_ids[name]}).fetchall()
            have = {r[0] for r in target.run_file("transfer/evaluated_measures.sql",
                                                  {"evaluation_id": target_eval, "run_id": target_run}).fetchall()}
            missing = []
            for row in rows:
                if _defined_otherwise(row[0], row[3], defined):  # said whether target holds scores of it or not
                    left_behind.setdefault(row[0].split("(", 1)[0], set()).add(name)
                elif row[0] not in have:
                    missing.append(row)
            if not missing:
                continue
            for measure, _, _, definition_hash in missing:
                described = _row(source, "measure.sql", {"measure": measure})
                if described and not target.run_file("transfer/measure_named.sql", {"measure": measure}).fetchone():
                    _insert_returning(target, "insert_measure.sql", described)
                    if definition_hash is not None:  # a user measure's (schema 13)
                        target.run_file("transfer/set_definition_hash.sql",
                                        {"definition_hash": definition_hash, "measure": measure})
            for measure, query_count, computed_at, definition_hash in missing:
                target.run_file("transfer/insert_evaluated.sql", {
                    "evaluation_id": target_eval, "run_id": target_run, "measure": measure,
                    "query_count": query_count, "computed_at": computed_at, "definition_hash": definition_hash})
            with _folder() as folder:
                path = os.path.join(folder, "scores.csv")
                export(source, read_sql("transfer/scores.sql"),
                       {"evaluation_id": target_eval, "qrels_set_id": qrels_ids[qrels], "run_id": target_run,
                        "source_eval": source_eval, "source_run": source_run_ids[name],
                        "measures": [m for m, *_ in missing]}, path)
                load(target, "scores", SCORE_COLUMNS, path)
                copied += target.run_file("transfer/copied_score_count.sql", {
                    "evaluation_id": target_eval, "run_id": target_run,
                    "measures": [m for m, *_ in missing]}).fetchone()[0]
    for measure, runs in left_behind.items():
        result.measures[measure] = "defined otherwise"
        result.notes.append(
            f"measure {listed_name(measure)}: the target defines it otherwise, and keeps its definition: the source's "
            f"scores of it ({len(runs):,} run{'' if len(runs) == 1 else 's'}) were not copied, and `irw eval` there "
            f"computes the target's; to take the source's, add its file there with `irw measures add FILE --replace "
            f"{db_option(target)}` (deleting the target's scores of it), then copy again")
    return copied
