"""What the warehouse holds, and removing it with everything derived from it."""
from __future__ import annotations

from .db import Database
from .errors import NotFoundError, UsageError

# Tables that hold rows derived from a run or a qrels set, keyed by run_id / qrels_set_id.
# Children are listed before parents: DuckDB has no cascading deletes (see sql/schema/001_core.sql).
# Every table exists once the schema is migrated, which opening a warehouse does.
RUN_TABLES = ("scores", "evaluated", "judged_run_rows", "run_queries", "run_rows", "runs")
QRELS_TABLES = ("scores", "evaluations", "judged_run_rows", "qrels_subtopics", "qrels", "qrels_sets")


def run_ids(db: Database, names) -> dict[str, int]:
    """name -> run_id for each name, in the order given; a name not stored is an error."""
    names = list(names)
    ids = dict(db.fetchall("select name, run_id from runs where name in (select unnest(?))", [names]))
    for name in names:
        if name not in ids:
            raise NotFoundError(f"no run named {name!r}; `irw runs` lists the stored runs")
    return {name: ids[name] for name in names}


def run_id(db: Database, name: str) -> int:
    return run_ids(db, [name])[name]


def qrels_set_id(db: Database, name: str) -> int:
    row = db.fetchone("select qrels_set_id from qrels_sets where name = ?", [name])
    if row is None:
        raise NotFoundError(f"no qrels set named {name!r}; `irw qrels` lists the stored sets")
    return row[0]


def qrels_name(db: Database, name: str | None) -> str:
    """The qrels set a command means: the one named, or the only one stored when none is named."""
    if name is not None:
        return name
    names = [row[0] for row in db.fetchall("select name from qrels_sets order by name")]
    if len(names) == 1:
        return names[0]
    if not names:
        raise NotFoundError("no qrels set is stored; ingest one with `irw ingest qrels FILE --name NAME`")
    raise UsageError(f"name the qrels set with --qrels: this warehouse holds {len(names)} "
                     f"({', '.join(names)})")


def delete_run(db: Database, run_id_: int) -> None:
    """Deletes a run and its derived rows; the caller holds the transaction."""
    # stored test results (schema 009) of the run against a baseline, or of a run against it
    db.execute("delete from significance_results where run_id = ? or baseline_id = ?", [run_id_, run_id_])
    for table in RUN_TABLES:
        db.execute(f"delete from {table} where run_id = ?", [run_id_])


def delete_qrels_set(db: Database, set_id: int) -> None:
    """Deletes a qrels set, its judgments and every evaluation made with it."""
    db.execute("delete from significance_results where evaluation_id in "
               "(select evaluation_id from evaluations where qrels_set_id = ?)", [set_id])
    db.execute("delete from evaluated where evaluation_id in "
               "(select evaluation_id from evaluations where qrels_set_id = ?)", [set_id])
    for table in QRELS_TABLES:
        db.execute(f"delete from {table} where qrels_set_id = ?", [set_id])

