"""irw: an evaluation warehouse for information retrieval.

    import warehouse
    wh = warehouse.open("irw.duckdb")
    wh.ingest_qrels("qrels.txt", "dl19")
    wh.ingest_run("run.bm25.txt")
    wh.sql("select name, row_count from runs")

    # files to numbers, keeping nothing
    warehouse.evaluate_files("qrels.txt", "run.bm25.txt", ["AP", "nDCG@10"]).summary
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from warehouse.version import __version__  # noqa: F401

# name -> the module under warehouse/ that defines it. Imported on first use (PEP 562), so that
# `irw trec-eval`, which needs none of the warehouse API (warehouse/commands/trec_eval.py), does not pay for
# importing all of it at start-up; `from warehouse import Warehouse` and `warehouse.open` work as
# if these names were imported here.
_EXPORTS = {
    "Warehouse": "core", "open": "core", "evaluate_files": "core", "evaluate_on_spark": "core", "copy": "core",
    "Table": "formats.table",
    **dict.fromkeys((
        "BatchError", "ConflictError", "InputFileError", "IrwError", "MeasureError", "NotEvaluated", "NotFoundError", "Problem",
        "QueryError", "QueryTimeoutError", "ReadOnlyError", "SchemaVersionError", "UsageError", "WarehouseNotFound", "WarehouseOpenError",
        "MissingExtraError", "DatabaseError", "NotAWarehouse", "WarehouseClosed", "WarehouseDamaged",
        "WarehouseLocked", "Note"), "errors"),
}

__all__ = [
    "Warehouse", "open", "evaluate_files", "evaluate_on_spark", "copy", "Table", "IrwError", "InputFileError", "Problem", "ConflictError", "NotFoundError",
    "QueryError", "QueryTimeoutError", "ReadOnlyError", "SchemaVersionError", "UsageError", "WarehouseNotFound", "WarehouseOpenError",
    "MeasureError", "NotEvaluated", "BatchError", "MissingExtraError", "DatabaseError", "NotAWarehouse", "WarehouseClosed",
    "WarehouseDamaged", "WarehouseLocked", "Note",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f".{module}", __name__), name)
        globals()[name] = value  # once imported, an ordinary attribute
        return value
    try:  # a submodule not imported yet (warehouse.ingestion.files, warehouse.engines.duckdb ...), as an eager import made them
        return importlib.import_module(f".{name}", __name__)
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{name}":
            raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if TYPE_CHECKING:  # for type checkers and IDEs: the names __getattr__ provides
    from warehouse.core import Warehouse, copy, evaluate_files, evaluate_on_spark, open  # noqa: F401
    from warehouse.errors import (BatchError, ConflictError, DatabaseError, InputFileError, IrwError, MeasureError,
                                  MissingExtraError, NotAWarehouse, NotFoundError, Problem, QueryError,
                                  QueryTimeoutError, ReadOnlyError, SchemaVersionError, UsageError,
                                  WarehouseClosed, WarehouseDamaged, WarehouseLocked, WarehouseNotFound,
                                  WarehouseOpenError, Note)
    from warehouse.formats.table import Table  # noqa: F401
