"""Every number and row irw prints is formatted here: table, csv, tsv, json. Text given by users
goes out by warehouse/formats/escaping.py's rules: escaped control and bidi characters in the text table,
trec_eval lines and csv/tsv (backslashes escaped too in the table and csv/tsv, so the escapes read back),
and csv/tsv cells neutralised against formula injection."""
from __future__ import annotations

import datetime as dt
import io
import sys
import math
from enum import Enum
from typing import Any, Iterable, Iterator

from warehouse.formats.cells import DECIMALS, _blob_text, _cell, cell_text, format_number  # noqa: F401 (formatting's names before)
from warehouse.formats.escaping import reversible, shown, spreadsheet_cell
from warehouse.formats.table import Table, cannot_write, escaped_cell, text_table, text_table_lines, unique_names


class OutputFormat(str, Enum):
    table = "table"
    csv = "csv"
    tsv = "tsv"
    json = "json"


def _spreadsheet(value: Any) -> str:
    text = escaped_cell(value, human=False)
    return spreadsheet_cell(text) if isinstance(value, str) else text


def _json_value(value: Any) -> Any:
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    # uuid and decimal are looked up, not imported: a value of theirs exists only once something
    # imported them (DuckDB does to return a UUID or DECIMAL), and irw trec-eval never does
    uuid = sys.modules.get("uuid")
    if isinstance(value, dt.timedelta) or uuid is not None and isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _blob_text(value)
    decimal = sys.modules.get("decimal")
    if decimal is not None and isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    return value


FILE_FORMATS = ("parquet", "arrow")  # binary: written to a file, never to a terminal


def render(table: Table, fmt: OutputFormat | str = OutputFormat.table) -> str:
    return "".join(render_chunks(table.columns, [table.rows], fmt))


def render_chunks(columns: list[str], chunks: Iterable[list[tuple]], fmt: OutputFormat | str) -> Iterator[str]:
    """render()'s text, rows given in chunks (irw sql's, read as they come), in pieces as they are
    made: no format holds every row (the text table's widths are its first chunk's:
    text_table_lines)."""
    import json  # here, as csv below: irw trec-eval renders no table

    if fmt in FILE_FORMATS:
        raise ValueError(f"{fmt} is written to a file (write()), not rendered as text")
    if fmt == "jsonl" or fmt == OutputFormat.json:
        keys = unique_names(columns)  # an object's keys are unique: a repeated name would drop a value

        def objects():
            for rows in chunks:
                for row in rows:
                    yield {c: _json_value(v) for c, v in zip(keys, row)}

        if fmt == "jsonl":
            for value in objects():
                yield json.dumps(value, ensure_ascii=False, default=str) + "\n"
            return
        # json.dumps(list, indent=2)'s bytes, an object at a time
        first = True
        for value in objects():
            text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
            yield ("[\n" if first else ",\n") + "\n".join("  " + line for line in text.split("\n"))
            first = False
        yield "[]\n" if first else "\n]\n"
        return
    fmt = OutputFormat(fmt)
    if fmt in (OutputFormat.csv, OutputFormat.tsv):
        header = [spreadsheet_cell(reversible(c)) for c in columns]
        if fmt is OutputFormat.tsv:
            # fields joined by tabs, never quoted: every cell is written by reversible(), which escapes
            # tabs and line breaks, so no field holds one, and a quote is the text's own (csv's quoting
            # wrote a"b as "a""b", which cut and awk then show)
            yield "\t".join(header) + "\n"
            for rows in chunks:
                yield "".join("\t".join(_spreadsheet(v) for v in row) + "\n" for row in rows)
            return
        import csv

        buffer = io.StringIO()
        writer = csv.writer(buffer, delimiter=",", lineterminator="\n")
        writer.writerow(header)
        for rows in chunks:
            writer.writerows([_spreadsheet(v) for v in row] for row in rows)
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
        yield buffer.getvalue()
        return
    yield from text_table_lines(columns, chunks)


# trec_eval's NaN (0/0, as under -J a query whose ranking -J emptied gets for iprec_at_recall_0.00)
# is the x86 default NaN, whose sign bit is set: C's printf("%6.4f") writes it as "  -nan", where
# Python's '%6.4f' writes "   nan"
TREC_NAN = "  -nan"


def trec_line(name: str, qid: str, value: Any, integer: bool = False) -> str:
    """One line as trec_eval prints it: %-22s\t%s\t%6.4f (%ld for counts, %s for strings, NaN as
    TREC_NAN); a query id or string value holding a tab, newline or other control character is
    escaped (warehouse/formats/escaping.py), so it cannot split the line or forge another."""
    qid = shown(str(qid))
    if isinstance(value, str):
        return f"{name:<22}\t{qid}\t{shown(value)}\n"
    if integer:
        return f"{name:<22}\t{qid}\t{int(value)}\n"
    if math.isnan(value):
        return f"{name:<22}\t{qid}\t{TREC_NAN}\n"
    return f"{name:<22}\t{qid}\t{value:6.4f}\n"


def render_trec(evaluation, per_query: bool) -> str:
    """trec_eval-style lines for an Evaluation: per-query lines (-q), then the summary per run,
    opening with runid as trec_eval's summary does."""
    measures = {m.name: m for m in evaluation.measures}
    names = {m.name: m.trec_name_at(evaluation.settings.level) for m in evaluation.measures}
    out = []
    for run in dict.fromkeys(row[0] for row in evaluation.summary.rows):
        if per_query and evaluation.per_query is not None:
            for r, query, measure, value in evaluation.per_query_shown():
                m = measures[measure]
                if r == run and m.family.per_query:
                    out.append(trec_line(names[measure], query, value, m.is_count))
        out.append(trec_line("runid", "all", run))
        for r, measure, value, _micro, _count in evaluation.summary.rows:
            m = measures[measure]
            if r == run:
                out.append(trec_line(names[measure], "all", value, m.is_count))
    return "".join(out)


def write(table: Table, fmt: str, path) -> None:
    """The table into a file: parquet or an Arrow IPC file (through pyarrow, the `arrow` extra), or
    any text format; whole or not at all (output.write_atomically)."""
    from warehouse.formats.files import write_atomically

    if fmt in FILE_FORMATS:
        # first: without pyarrow, its message names the extra to install; a column pyarrow cannot
        # hold is an OutputError naming it
        arrow = table.to_arrow()
        import pyarrow

        try:
            data = _arrow_file(pyarrow, arrow, fmt)
        except (pyarrow.ArrowException, TypeError, ValueError, OverflowError) as exc:
            raise _unwritable(pyarrow, arrow, fmt, exc) from None
    else:
        data = render(table, fmt).encode("utf-8")
    write_atomically(path, data)


def _arrow_file(pyarrow, arrow, fmt: str) -> bytes:
    sink = pyarrow.BufferOutputStream()
    if fmt == "parquet":
        import pyarrow.parquet as parquet

        parquet.write_table(arrow, sink)
    else:
        with pyarrow.ipc.new_file(sink, arrow.schema) as out:
            out.write_table(arrow)
    return sink.getvalue().to_pybytes()


def _unwritable(pyarrow, arrow, fmt: str, exc: Exception):
    """The error for a table pyarrow holds but cannot write as fmt, naming the first column that
    cannot be written alone (tried one by one only now, once writing failed)."""
    for index, name in enumerate(arrow.column_names):
        try:
            _arrow_file(pyarrow, arrow.select([index]), fmt)
        except (pyarrow.ArrowException, TypeError, ValueError, OverflowError) as column_exc:
            return cannot_write(name, str(column_exc) or type(column_exc).__name__, fmt)
    from warehouse.errors import OutputError

    return OutputError(f"cannot write the result to {fmt}: {(str(exc).strip().splitlines() or ['?'])[0]}")
