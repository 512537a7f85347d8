"""A query result: column names and rows, the unit every command prints, and the way out of irw
into the data-frame libraries notebooks use (pandas, polars, Arrow), each imported only when asked."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from warehouse.formats.cells import cell_text
from warehouse.errors import MissingExtraError, OutputError, install_command
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
        return polars.DataFrame([list(row) for row in table.rows], schema=unique_names(table.columns), orient="row",
                                infer_schema_length=None)

    def to_arrow(self):
        """A pyarrow Table of the table (needs pyarrow: the arrow extra): repeated column names made
        unique (unique_names), a DuckDB MAP column an Arrow map. A column pyarrow cannot hold raises
        OutputError naming it."""
        pyarrow = optional_import("pyarrow")
        table = self.table()
        types = table.types or [None] * len(table.columns)
        arrow_types = (table.arrow_types() if table.arrow_types else None) or [None] * len(table.columns)
        arrays = [_arrow_array(pyarrow, name, [row[i] for row in table.rows], types[i], arrow_types[i])
                  for i, name in enumerate(table.columns)]
        return pyarrow.Table.from_arrays(arrays, names=unique_names(table.columns))

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
    # DuckDB's type of each column ("MAP(VARCHAR, VARCHAR)"), for a result of DuckDB's; else None
    types: list[str] | None = field(default=None, compare=False, repr=False)
    # gives the Arrow type DuckDB gives each column holding a MAP (None for the others), set by the
    # engine that ran the statement (warehouse/store/adhoc.py: engines.duckdb.arrow_types), as only it
    # has DuckDB; asked only when Arrow is written, as only then is pyarrow there to be asked
    arrow_types: Callable[[], list | None] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_result(cls, result, max_rows: int | None = None) -> "Table":
        """A DB-API result's columns and rows (every row, or the first max_rows), with DuckDB's type of
        each column when DuckDB gave it (parquet and arrow write a MAP as a map by it)."""
        description = result.description or []
        columns = [d[0] for d in description]
        rows = result.fetchall() if max_rows is None else result.fetchmany(max_rows)
        # DuckDB describes a column's type with a DuckDBPyType; psycopg with a number, Spark with none
        duckdb_types = all(len(d) > 1 and type(d[1]).__name__ == "DuckDBPyType" for d in description)
        return cls(columns, rows, [str(d[1]) for d in description] if duckdb_types else None)

    def table(self) -> "Table":
        return self

    def to_dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row)) for row in self.rows]

    def column(self, name: str) -> list[Any]:
        index = self.columns.index(name)
        return [row[index] for row in self.rows]

    def __iter__(self):
        """The rows, as tuples: `for run, value in table` reads a table as its rows."""
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)


def unique_names(columns: list[str]) -> list[str]:
    """The column names with each repeated one made unique as DuckDB does (CREATE TABLE AS, COPY
    TO): the second `a` becomes a_1, the third a_2, skipping a name already taken (a_1 -> a_1_1).
    Names are compared exactly, as JSON keys and Arrow fields are: `a` and `A` stay as they are.
    The one rule of every output that needs unique names (json, jsonl, parquet, arrow, polars);
    csv, tsv and the text table keep the names as given."""
    if len(set(columns)) == len(columns):
        return list(columns)
    seen: dict[str, int] = {}
    names = []
    for name in columns:
        if name in seen:
            base = name
            name = f"{base}_{seen[base]}"
            while name in seen:
                seen[base] += 1
                name = f"{base}_{seen[base]}"
        seen[name] = seen.get(name, 0) + 1
        names.append(name)
    return names


def holds_map(duckdb_type: str | None) -> bool:
    """Whether a column of DuckDB's type holds a MAP (at any depth: MAP(...)[], STRUCT(m MAP(...)))."""
    return duckdb_type is not None and "MAP(" in duckdb_type.upper()


def _for_arrow(pyarrow, value: Any, arrow_type) -> Any:
    """A value as pyarrow takes it for arrow_type: a dict for a map as its (key, value) pairs."""
    if value is None:
        return None
    types = pyarrow.types
    if types.is_map(arrow_type) and isinstance(value, dict):
        return [(_for_arrow(pyarrow, k, arrow_type.key_type), _for_arrow(pyarrow, v, arrow_type.item_type))
                for k, v in value.items()]
    if types.is_struct(arrow_type) and isinstance(value, dict):
        return {f.name: _for_arrow(pyarrow, value.get(f.name), f.type) for f in arrow_type}
    if (types.is_list(arrow_type) or types.is_large_list(arrow_type) or types.is_fixed_size_list(arrow_type)) \
            and isinstance(value, (list, tuple)):
        return [_for_arrow(pyarrow, v, arrow_type.value_type) for v in value]
    return value


def _map_like(values: list[Any]) -> bool:
    """Without the column's type: dicts that cannot be one struct's rows (a struct's dict has the
    same text keys in every row, at least one) are a map's."""
    dicts = [v for v in values if v is not None]
    if not dicts or not all(isinstance(v, dict) for v in dicts):
        return False
    keys = list(dicts[0])
    return not keys or any(list(v) != keys for v in dicts) or not all(isinstance(k, str) for k in keys)


def _inferred_map_type(pyarrow, values: list[Any]):
    """map<key, value> with the types pyarrow infers from the keys and the values (text when none)."""
    def inferred(items: list[Any]):
        found = pyarrow.array(items).type
        return pyarrow.string() if pyarrow.types.is_null(found) else found

    return pyarrow.map_(inferred([k for v in values if v for k in v]),
                        inferred([x for v in values if v for x in v.values()]))


def cannot_write(name: str, reason: str, where: str = "Arrow") -> OutputError:
    """The error for a column pyarrow cannot hold or write: which column, why, and what to do."""
    import re

    reason = (reason.strip().splitlines() or ["not supported"])[0]
    sql = name if re.fullmatch(r"[a-z_][a-z0-9_]*", name) else '"' + name.replace('"', '""') + '"'
    return OutputError(f"cannot write column {name!r} to {where}: {reason}; cast it in the query to a type that "
                       f"can be written, e.g. CAST({sql} AS VARCHAR) or to_json({sql})")


def _arrow_array(pyarrow, name: str, values: list[Any], duckdb_type: str | None, arrow_type=None):
    """One column as a pyarrow array; a MAP column (or one holding maps) typed as DuckDB types it
    (arrow_type), not inferred (pyarrow would make a struct of every key seen, an empty one when no
    row has a key); without DuckDB's type, dicts that only a map holds are made a map."""
    try:
        if arrow_type is not None:
            return pyarrow.array([_for_arrow(pyarrow, v, arrow_type) for v in values], type=arrow_type)
        if (duckdb_type is None or holds_map(duckdb_type)) and _map_like(values):
            try:
                arrow_type = _inferred_map_type(pyarrow, values)
                return pyarrow.array([_for_arrow(pyarrow, v, arrow_type) for v in values], type=arrow_type)
            except (pyarrow.ArrowException, TypeError, ValueError, OverflowError):
                pass  # values of several types: only a struct (a type per key) holds them
        return pyarrow.array(values)
    except (pyarrow.ArrowException, TypeError, ValueError, OverflowError) as exc:
        raise cannot_write(name, str(exc) or type(exc).__name__) from None
