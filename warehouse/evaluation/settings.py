"""The settings behind every number (trec_eval's -l, -M, -J, -c, -N and version), and the SQL that
prepares an evaluation's rows for them: read by the evaluation (warehouse/evaluation/evaluator.py) and by user
measures (warehouse/evaluation/user_measures.py), which rank and judge with the same files."""
from __future__ import annotations

import operator
from dataclasses import dataclass, fields

from warehouse.errors import SettingError

NO_DEPTH = 1 << 62


def prepare_steps(s: "Settings", *, judged: bool = True) -> list[str]:
    """The SQL that builds the evaluation's temp tables, in order, for these settings; without
    eval_judged (05_judged.sql) unless judged."""
    steps = ["eval/01_qrels.sql", "eval/02_query_stats.sql",
             "eval/03_ranked_float32.sql" if s.reads_judged_rows_only else "eval/03_ranked_double.sql"]
    if s.judged_only:
        steps.append("eval/03b_judged_only.sql")
    return steps + ["eval/04_run_queries.sql", "eval/04b_run_rows_graded.sql"] + (["eval/05_judged.sql"] if judged else [])


def level_problem(level: object) -> str | None:
    """What is wrong with a relevance level (-l, or a measure's own rel=), or None."""
    if _integer(level) is not None and 0 <= level < 2**31:
        return None
    # Below 0 trec_eval compares its markers for documents the qrels do not judge (-1) or grade
    # below 0 (-2) with the level, so they count as relevant retrieved documents but not in R (its
    # -l-1 gives P_10 1.0 for any run, and map 0.55 where grades >= -1 give 0.23): numbers no
    # measure here reproduces, so the level is refused, not misreported.
    below = (" (below 0, trec_eval counts the documents the qrels do not judge as relevant, which irw "
             "does not reproduce; 0 counts every judged document)"
             if _integer(level) is not None and level < 0 else " (grades are 32-bit integers)")
    return f"takes an integer from 0 to {2**31 - 1}{below}, not {level!r}"


def _integer(value: object) -> int | None:
    """value as an int when it is a whole number of any integer type (operator.index: int, NumPy's
    int64 ...), else None. Not a bool, though Python counts it an int: level=True is a mistake, not
    level 1 (operator.index refuses NumPy's bool already)."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


@dataclass(frozen=True)
class Settings:
    """The settings behind every number; stored with the scores and printed beside them."""

    level: int = 1                 # trec_eval -l: relevant means grade >= level
    depth: int | None = None       # trec_eval -M: only the first N documents count
    judged_only: bool = False      # trec_eval -J
    complete: bool = False         # trec_eval -c: every qrels query, zeros for the missing
    compat: int = 9                # 9: trec_eval 9.0.8 (float32 scores, floor(xR + .9)); 10: 10.0
    norel: str = "include"         # queries with no relevant document: include (trec_eval) or exclude
    num_docs: int = 0              # trec_eval -N: documents in the collection (utility's d term only)

    def __post_init__(self):
        # NumPy's integers (a value read from a frame, np.int64(2)) are integers: each is kept as
        # the int it is, which the SQL binds and the key spells as any int. The frozen fields are
        # set as dataclasses' own __init__ sets them.
        for name in ("level", "depth", "compat", "num_docs"):
            if (whole := _integer(getattr(self, name))) is not None:
                object.__setattr__(self, name, whole)
        # Range checks before any SQL: the level is compared with INTEGER grades and the depth is a
        # BIGINT, so larger values would overflow in DuckDB instead of saying what is wrong.
        problem = level_problem(self.level)
        if problem:
            raise SettingError("level", problem)
        if self.depth is not None and (_integer(self.depth) is None or self.depth > NO_DEPTH):
            raise SettingError("depth", f"takes an integer from 1 to {NO_DEPTH} (a depth beyond a run's "
                                        f"length counts every document), not {self.depth!r}")
        for name in ("judged_only", "complete"):  # a string such as 'no' would be true
            if not isinstance(getattr(self, name), bool) and getattr(self, name) not in (0, 1):
                raise SettingError(name, f"takes True or False, not {getattr(self, name)!r}")
        if _integer(self.compat) not in (9, 10):
            raise SettingError("compat", f"takes 9 or 10, not {self.compat!r}")
        if self.norel not in ("include", "exclude"):
            raise SettingError("norel", f"takes include or exclude, not {self.norel!r}")
        if self.depth is not None and self.depth < 1:
            raise SettingError("depth", f"must be at least 1, not {self.depth}")
        if _integer(self.num_docs) is None or not 0 <= self.num_docs < 2**62:
            raise SettingError("num_docs", f"takes the number of documents in the collection, a whole number "
                                           f"from 0, not {self.num_docs!r}")

    @classmethod
    def resolve(cls, settings: "Settings | None", options: dict) -> "Settings":
        """The settings of an API call that takes either a Settings or its fields as keywords."""
        if settings is None:
            unknown = sorted(set(options) - {f.name for f in fields(cls)})
            if unknown:  # a TypeError of Settings.__init__ named no option it takes
                import difflib

                names = [f.name for f in fields(cls)]
                close = difflib.get_close_matches(unknown[0], names, n=1)
                raise TypeError(f"no setting named {unknown[0]}{f'; did you mean {close[0]}?' if close else ''} "
                                f"(settings: {', '.join(names)})")
            return cls(**options)
        if options:
            raise TypeError("pass either settings or keyword options, not both")
        return settings

    @property
    def reads_judged_rows_only(self) -> bool:
        """Whether an evaluation reads only the judged run rows at their stored ranks (9.0.8's
        order); 10.0's double-score order re-sorts every row of a run (sql/eval/03_ranked_*.sql)."""
        return self.compat == 9

    @property
    def prints_queries_not_in_run(self) -> bool:
        """Whether -q prints lines for a qrels query the run lacks (-c scores it 0 in the means):
        10.0 prints its zeros and an empty relstring, 9.0.8 prints no line for it. The one rule
        irw eval (Evaluation.per_query_shown) and irw trec-eval (its -q lines, in Python and in
        sql/oneshot/per_query_lines.sql) follow."""
        return self.compat != 9

    @property
    def key(self) -> str:
        # num_docs (trec_eval -N) joins the key only when set: keys stored before it stay the same
        return (f"level={self.level};depth={self.depth or 'all'};judged_only={int(self.judged_only)};"
                f"complete={int(self.complete)};compat={self.compat};norel={self.norel}"
                + (f";num_docs={self.num_docs}" if self.num_docs else ""))

    @property
    def options(self) -> list[str]:
        """The options of `irw eval` that give these settings (none for the defaults): for a
        message's command to show the scores a result was computed from."""
        given = [("-l", self.level, 1), ("-M", self.depth, None), ("--compat", self.compat, 9),
                 ("--norel", self.norel, "include"), ("--num-docs", self.num_docs, 0)]
        return ([*(part for flag, value, default in given if value != default for part in (flag, str(value)))]
                + (["-J"] if self.judged_only else []) + (["-c"] if self.complete else []))

    def describe(self) -> str:
        ties = "score (float32) desc, docid desc" if self.compat == 9 else "score (double) desc, docid desc"
        query_set = "every qrels query (-c)" if self.complete else "queries in both run and qrels"
        if self.norel == "exclude":
            query_set += ", without queries that have no relevant document"
        return (f"trec_eval {'9.0.8' if self.compat == 9 else '10.0'} conventions; relevant: grade >= {self.level}; "
                f"depth: {self.depth or 'all'}; judged only: {'yes' if self.judged_only else 'no'}; "
                f"ties: {ties}; query set: {query_set}")
