"""A query result: column names and rows, the unit every command prints, and the way out of irw
into the data-frame libraries notebooks use (pandas, polars, Arrow), each imported only when asked."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from warehouse.formats.cells import cell_text
from warehouse.errors import MissingExtraError, install_command
from warehouse.formats.escaping import shown

# library to import -> the pip extra of irwarehouse that installs it
_EXTRAS = {"pandas": "pandas", "polars": "polars", "pyarrow": "arrow"}


def optional_import(module: str):
    """Imports an optional library, or says which extra installs it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        extra = _EXTRAS[module]
        raise MissingExtraError(f"{module} is not installed; install it with {install_command(extra)}") from None


class Tabular:
    """Conversions for any result that can be shown as one Table (evaluations, comparisons,
    leaderboards): subclasses define table()."""

    def table(self) -> "Table":
        raise NotImplementedError

    def to_pandas(self):
        """A pandas DataFrame of the table (needs pandas: the pandas extra)."""
        pandas = optional_import("pandas")
        table = self.table()
        return pandas.DataFrame.from_records(table.rows, columns=table.columns)

    def to_polars(self):
        """A polars DataFrame of the table (needs polars: the polars extra)."""
        polars = optional_import("polars")
        table = self.table()
        return polars.DataFrame([list(row) for row in table.rows], schema=table.columns, orient="row",
                                infer_schema_length=None)

    def to_arrow(self):
        """A pyarrow Table of the table (needs pyarrow: the arrow extra)."""
        pyarrow = optional_import("pyarrow")
        table = self.table()
        return pyarrow.table({name: table.column(name) for name in table.columns})

    def _repr_html_(self) -> str:
        """The table as HTML, for Jupyter; numbers as irw prints them, every value escaped."""
        import html

        table = self.table()
        head = "".join(f"<th>{html.escape(shown(str(c)))}</th>" for c in table.columns)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(cell_text(v))}</td>" for v in row) + "</tr>"
                       for row in table.rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


@dataclass
class Table(Tabular):
    columns: list[str]
    rows: list[tuple]

    @classmethod
    def from_result(cls, result) -> "Table":
        columns = [d[0] for d in result.description] if result.description else []
        return cls(columns, result.fetchall())

    def table(self) -> "Table":
        return self

    def to_dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row)) for row in self.rows]

    def column(self, name: str) -> list[Any]:
        index = self.columns.index(name)
        return [row[index] for row in self.rows]

    def __len__(self) -> int:
        return len(self.rows)
