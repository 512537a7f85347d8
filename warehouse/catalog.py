"""What the warehouse holds, and removing it with everything derived from it."""
from __future__ import annotations

from .db import Database
from .errors import ConflictError, NotFoundError, UsageError

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



def edit_run(db: Database, run_id_: int, *, name: str | None = None, system: str | None = None,
             description: str | None = None, parameters=None, date=None) -> None:
    """Changes a stored run's name, system, description, parameters or date (an ingest.RunDate) in
    place; None keeps what is stored. The caller holds the transaction; everything derived from the
    run is keyed by run_id and stays attached."""
    db.run_file("catalog/edit_run.sql", {
        "run_id": run_id_, "name": name, "system": system, "description": description,
        "run_date": date.value if date is not None else None, "date_source": date.source if date is not None else None})
    if parameters is not None:
        db.run_file("catalog/edit_run_parameters.sql", {"run_id": run_id_, "parameters": dict(parameters)})


def _new_name(kind: str, old: str, new: str, taken: bool, remove: str) -> None:
    if not new.strip():
        raise UsageError(f"a {kind} name cannot be empty")
    if new == old:
        raise UsageError(f"{kind} {old} is already named {new}")
    if taken:
        raise ConflictError(f"cannot rename {kind} {old} to {new}: a {kind} named {new} is stored; choose another "
                            f"name, or remove that one first (`{remove} {new}`)")


def rename_run(db: Database, old: str, new: str) -> list[str]:
    """Renames a run (its system stays: `irw edit run --system` changes it). Returns what changed."""
    run_id_ = run_id(db, old)
    _new_name("run", old, new, db.fetchone("select 1 from runs where name = ?", [new]) is not None, "irw rm run")
    with db.transaction():
        edit_run(db, run_id_, name=new)
    return [f"renamed run {old} to {new}"]


def rename_qrels_set(db: Database, old: str, new: str) -> list[str]:
    set_id = qrels_set_id(db, old)
    _new_name("qrels set", old, new, db.fetchone("select 1 from qrels_sets where name = ?", [new]) is not None,
              "irw rm qrels")
    with db.transaction():
        db.run_file("catalog/rename_qrels_set.sql", {"qrels_set_id": set_id, "name": new})
    return [f"renamed qrels set {old} to {new}"]
