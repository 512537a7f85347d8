"""A query result: column names and rows, the unit every command prints, and the way out of irw
into the data-frame libraries notebooks use (pandas, polars, Arrow), each imported only when asked."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from warehouse.formats.cells import _blob_text, _cell, cell_text
from warehouse.errors import MissingExtraError, OutputError, install_command
from warehouse.formats.escaping import reversible, shown

# the rows a Table's text form (repr, print) and Jupyter's HTML show at most: the first and last half
SHOWN_ROWS = 20

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


def shown_rows(rows: list[tuple]) -> tuple[list[tuple], int]:
    """The rows a table's repr shows (all of at most SHOWN_ROWS; else the first and last
    SHOWN_ROWS // 2), and how many it leaves out."""
    if len(rows) <= SHOWN_ROWS:
        return list(rows), 0
    half = SHOWN_ROWS // 2
    return [*rows[:half], *rows[len(rows) - half:]], len(rows) - 2 * half


def escaped_cell(value: Any, human: bool) -> str:
    """A value as a table, csv or tsv cell, by escaping.reversible's rule."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        # a BLOB's \xNN (a byte that is not UTF-8) is an escape: only the backslash bytes are doubled
        return shown(_blob_text(bytes(value).replace(b"\\", b"\\\\")))
    return reversible(_cell(value, human))


def text_table(columns: list[str], rows: list[tuple]) -> str:
    """The aligned text table `irw sql` prints (formatting.render's "table", and a Table's repr):
    names, a rule, one line a row, numbers right-aligned. Here, below formatting, as a Table's repr
    needs it and formatting imports this module."""
    return "".join(text_table_lines(columns, [rows]))


def text_table_lines(columns: list[str], chunks: Iterable[list[tuple]]) -> Iterator[str]:
    """text_table's lines, rows given in chunks, each line as it is made: the widths and the
    alignment are the first chunk's (`irw sql` writes its rows as they come, 10,000 at a time: a
    longer cell further down widens its own line, not the columns above it)."""
    from rich.cells import cell_len  # 14 ms to import: only for a table shown in a terminal

    chunks = iter(chunks)
    rows = next(chunks, [])
    cells = [[escaped_cell(v, human=True) for v in row] for row in rows]
    names = [reversible(c) for c in columns]
    numeric = [
        all(isinstance(row[i], (int, float)) and not isinstance(row[i], bool) for row in rows if row[i] is not None)
        and any(row[i] is not None for row in rows)
        for i in range(len(columns))
    ]
    # widths in terminal columns, not characters: 検索 takes four, an accent combined with its
    # letter none, so that names in any script line up
    widths = [max([cell_len(c)] + [cell_len(r[i]) for r in cells]) for i, c in enumerate(names)]

    def line(values: list[str]) -> str:
        padding = [" " * max(0, w - cell_len(v)) for v, w in zip(values, widths)]
        return "  ".join(pad + v if num else v + pad for v, pad, num in zip(values, padding, numeric)).rstrip() + "\n"

    yield line(names)
    yield "  ".join("-" * w for w in widths) + "\n"
    for values in cells:
        yield line(values)
    for rows in chunks:
        for row in rows:
            yield line([escaped_cell(v, human=True) for v in row])


def _count(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


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
        unique (unique_names), a DuckDB MAP column an Arrow map, and each column of a query's result
        typed by its SQL type when the engine gave it (arrow_types; an all-NULL column too). A column
        pyarrow cannot hold raises OutputError naming it."""
        pyarrow = optional_import("pyarrow")
        table = self.table()
        types = table.types or [None] * len(table.columns)
        arrow_types = (table.arrow_types() if table.arrow_types else None) or [None] * len(table.columns)
        arrays = [_arrow_array(pyarrow, name, [row[i] for row in table.rows], types[i], arrow_types[i])
                  for i, name in enumerate(table.columns)]
        return pyarrow.Table.from_arrays(arrays, names=unique_names(table.columns))

    def _repr_html_(self) -> str:
        """The table as HTML, for Jupyter; numbers as irw prints them, every value escaped. At most
        SHOWN_ROWS rows, the first and last of a longer table, and a line saying how many are left
        out and how to get them all: 64,500 rows were 5.7 MB of HTML."""
        import html

        table = self.table()
        rows, hidden = shown_rows(table.rows)
        head = "".join(f"<th>{html.escape(shown(str(c)))}</th>" for c in table.columns)
        lines = ["<tr>" + "".join(f"<td>{html.escape(cell_text(v))}</td>" for v in row) + "</tr>" for row in rows]
        if hidden:
            lines.insert(SHOWN_ROWS // 2, f'<tr><td colspan="{max(len(table.columns), 1)}">... {hidden:,} rows not '
                                          "shown ...</td></tr>")
        out = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(lines)}</tbody></table>"
        if hidden:
            out += f"<p>{html.escape(self._size_line(table, hidden))}</p>"
        return out

    def _text(self) -> str:
        """The table as `irw sql` prints it (text_table: numbers to 4 decimals, names escaped by the
        text table's rule), at most SHOWN_ROWS rows: the first and last of a longer table around a
        `... N rows not shown ...` line, and its size last."""
        table = self.table()
        rows, hidden = shown_rows(table.rows)
        lines = text_table(table.columns, rows).splitlines()
        if hidden:
            lines.insert(2 + SHOWN_ROWS // 2, f"... {hidden:,} rows not shown ...")  # after the names and the rule
        return "\n".join([*lines, f"[{self._size_line(table, hidden)}]"])

    def _size_line(self, table: "Table", hidden: int) -> str:
        """How big the table is and, when rows are left out, where they all are."""
        size = f"{_count(len(table.rows), 'row')} x {_count(len(table.columns), 'column')}"
        if not hidden:
            return size
        half = SHOWN_ROWS // 2
        every = ".rows" if table is self else ".table().rows"
        return f"{size}, the first {half} and last {half} shown; all of them: .to_pandas() or {every}"


@dataclass
class Table(Tabular):
    columns: list[str]
    rows: list[tuple]
    # DuckDB's type of each column ("MAP(VARCHAR, VARCHAR)"), for a result of DuckDB's; else None
    types: list[str] | None = field(default=None, compare=False, repr=False)
    # gives the Arrow type of each column's SQL type (None for a column the engine cannot type), set
    # by the engine that ran the statement (warehouse/store/adhoc.py: engines.duckdb.arrow_types;
    # engines.postgres.arrow_types), as only it knows its types; asked only when Arrow is written, as
    # only then is pyarrow there to be asked
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

    def __repr__(self) -> str:
        # the dataclass's own repr printed every row: 29,182 characters for the per-query AP and
        # nDCG@10 of the six DL19 runs, 2.9 MB for their 64,500 run rows
        return self._text()

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


def _holds_arrow_map(pyarrow, arrow_type) -> bool:
    """Whether an Arrow type is or holds a map (in a list's values or a struct's fields)."""
    types = pyarrow.types
    if types.is_map(arrow_type):
        return True
    if types.is_list(arrow_type) or types.is_large_list(arrow_type) or types.is_fixed_size_list(arrow_type):
        return _holds_arrow_map(pyarrow, arrow_type.value_type)
    if types.is_struct(arrow_type):
        return any(_holds_arrow_map(pyarrow, f.type) for f in arrow_type)
    return False


def _exact(pyarrow, arrow_type) -> bool:
    """Whether pyarrow makes values of the Python type an engine gives for a column of arrow_type
    into arrow_type without changing one (refusing, not rounding, a value that does not fit): whole
    numbers, floats, text, bytes, booleans, dates, times and timestamps. A decimal keeps the type its
    values give (their precision and scale), an interval the duration its timedelta values give: as
    before the engine's types were asked."""
    types = pyarrow.types
    return any(check(arrow_type) for check in (
        types.is_integer, types.is_floating, types.is_string, types.is_large_string, types.is_binary,
        types.is_large_binary, types.is_boolean, types.is_date, types.is_time, types.is_timestamp))


def _nested(pyarrow, arrow_type) -> bool:
    types = pyarrow.types
    return types.is_nested(arrow_type) or types.is_union(arrow_type)


def _typed_array(pyarrow, values: list[Any], arrow_type):
    """The column as its SQL type (arrow_type) says, or None to infer it from the values: a column
    with no value (all NULL, or no rows) has the SQL type, not pyarrow's `null` (an interval the
    duration its values give); one with values has it where pyarrow keeps every value (_exact). A
    list, a struct (a map is typed before) or a union is inferred from its values, as before."""
    import datetime
    import decimal

    if _nested(pyarrow, arrow_type):
        return None  # a list's or a struct's values give its types, all-NULL ones `null`, as before
    if all(v is None for v in values):
        if pyarrow.types.is_interval(arrow_type):
            arrow_type = pyarrow.duration("us")  # what timedelta values give
        elif pyarrow.types.is_dictionary(arrow_type):
            arrow_type = arrow_type.value_type  # an ENUM's: what its text values give
        try:
            return pyarrow.nulls(len(values), arrow_type)
        except (pyarrow.ArrowException, TypeError, ValueError):
            return None
    floating = pyarrow.types.is_floating(arrow_type)
    if not _exact(pyarrow, arrow_type) or any(
            isinstance(v, (decimal.Decimal, datetime.timedelta)) or floating and isinstance(v, int) for v in values):
        return None  # a float column's whole numbers (PostgreSQL's numeric sum) stay what they give
    try:
        typed = pyarrow.array(values, type=arrow_type)
    except (pyarrow.ArrowException, TypeError, ValueError, OverflowError):
        return None  # values not of the type the engine said: inferred, as before
    if floating and arrow_type.bit_width < 64 and not all(
            a == b or a != a and b != b for a, b in zip(typed.cast(pyarrow.float64()).to_pylist(), values)):
        return None  # doubles a float32 would round (NaN is NaN): kept whole
    return typed


def _arrow_array(pyarrow, name: str, values: list[Any], duckdb_type: str | None, arrow_type=None):
    """One column as a pyarrow array, typed by its SQL type when the engine gave it (arrow_type;
    _typed_array) else inferred from its values. A MAP column (or one holding maps) is typed as
    DuckDB types it, not inferred (pyarrow would make a struct of every key seen, an empty one when
    no row has a key); without DuckDB's type, dicts that only a map holds are made a map."""
    try:
        if arrow_type is not None and _holds_arrow_map(pyarrow, arrow_type):
            return pyarrow.array([_for_arrow(pyarrow, v, arrow_type) for v in values], type=arrow_type)
        if (duckdb_type is None or holds_map(duckdb_type)) and _map_like(values):
            try:
                inferred_type = _inferred_map_type(pyarrow, values)
                return pyarrow.array([_for_arrow(pyarrow, v, inferred_type) for v in values], type=inferred_type)
            except (pyarrow.ArrowException, TypeError, ValueError, OverflowError):
                pass  # values of several types: only a struct (a type per key) holds them
        typed = _typed_array(pyarrow, values, arrow_type) if arrow_type is not None else None
        return typed if typed is not None else pyarrow.array(values)
    except (pyarrow.ArrowException, TypeError, ValueError, OverflowError) as exc:
        raise cannot_write(name, str(exc) or type(exc).__name__) from None
