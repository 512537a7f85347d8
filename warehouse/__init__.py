"""irw: an evaluation warehouse for information retrieval.

    import warehouse
    wh = warehouse.open("irw.duckdb")
    wh.ingest_qrels("qrels.txt", "dl19")
    wh.ingest_run("run.bm25.txt")
    wh.sql("select name, row_count from runs")

    # files to numbers, keeping nothing
    warehouse.evaluate_files("qrels.txt", "run.bm25.txt", ["AP", "nDCG@10"]).summary
"""
from .core import Warehouse, evaluate_files, open
from .errors import (BatchError, ConflictError, InputFileError, IrwError, MeasureError, NotFoundError, Problem,
                     QueryError, ReadOnlyError, SchemaVersionError, UsageError, WarehouseNotFound,
                     WarehouseOpenError)
from .table import Table

__version__ = "0.1.0"

__all__ = [
    "Warehouse", "open", "evaluate_files", "Table", "IrwError", "InputFileError", "Problem", "ConflictError", "NotFoundError",
    "QueryError", "ReadOnlyError", "SchemaVersionError", "UsageError", "WarehouseNotFound", "WarehouseOpenError",
    "MeasureError", "BatchError",
]

from .errors import MissingExtraError  # noqa: E402

__all__ += ["MissingExtraError"]

from .errors import DatabaseError, NotAWarehouse, WarehouseClosed, WarehouseDamaged, WarehouseLocked  # noqa: E402

__all__ += ["DatabaseError", "NotAWarehouse", "WarehouseClosed", "WarehouseDamaged", "WarehouseLocked"]
