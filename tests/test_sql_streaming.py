"""`irw sql` writes its rows as they come, on DuckDB and PostgreSQL: a result larger than memory is
never held whole, and a reader that stops (`| head`) stops the statement.

Before, every row was fetched into Python first: `select * from range(10000000)` took 2.7 GB and
`| head -2` waited for all of them (a walk: 50M rows, 2 min 47 s). The bounds below are generous
(what is asserted is "not the whole result", not a speed): 1M rows took ~0.33 GB held whole and
~0.11 GB streamed.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

import warehouse
from warehouse.formats.table import text_table

from conftest import Cli

ROWS = 1_000_000
MEMORY_BOUND_MB = 200


def peak_child_megabytes(argv: list[str], output) -> tuple[subprocess.CompletedProcess, float]:
    """The command run to its end, and the peak memory of it (its own ru_maxrss: run in a child
    that reports it, so other children of the test process do not count)."""
    probe = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], stdout=sys.stdout, "
             "stderr=subprocess.PIPE, text=True); sys.stderr.write(p.stderr); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(p.returncode)")
    done = subprocess.run([sys.executable, "-c", probe, *argv], stdout=output, stderr=subprocess.PIPE, text=True,
                          timeout=600)
    *messages, peak = done.stderr.splitlines()
    return subprocess.CompletedProcess(argv, done.returncode, None, "\n".join(messages)), int(peak) / 1024


def first_lines(argv: list[str], count: int) -> tuple[list[bytes], bytes]:
    """The first lines the command prints, read as `| head` reads them, and its stderr once the
    pipe is closed; the command must end by itself within a minute (it is killed after that)."""
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = [process.stdout.readline() for _ in range(count)]
    process.stdout.close()
    try:
        process.wait(timeout=60)
    finally:
        process.kill()
    return lines, process.stderr.read()


def irw_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "warehouse", *args]


@pytest.fixture
def empty_warehouse(tmp_path) -> str:
    db = tmp_path / "irw.duckdb"
    with warehouse.open(db):
        pass
    return str(db)


@pytest.mark.parametrize("fmt", ["csv", "table"])
def test_a_large_result_is_written_without_holding_it(empty_warehouse, tmp_path, fmt):
    out = tmp_path / f"rows.{fmt}.txt"
    with out.open("w") as sink:
        done, peak = peak_child_megabytes(irw_argv("sql", f"select range as n, 'doc-' || range as doc from range({ROWS})",
                                                   "--db", empty_warehouse, "-f", fmt), sink)
    assert done.returncode == 0, done.stderr
    with out.open() as written:
        lines = sum(1 for _ in written)
    assert lines == ROWS + (2 if fmt == "table" else 1 if fmt == "csv" else 0)
    assert peak < MEMORY_BOUND_MB, f"{peak:.0f} MB for {ROWS:,} rows ({fmt})"


def test_to_a_file_too_and_the_count_is_said(empty_warehouse, tmp_path):
    out = tmp_path / "rows.csv"
    done, peak = peak_child_megabytes(irw_argv("sql", f"select range as n from range({ROWS})", "--db", empty_warehouse,
                                               "-o", str(out)), subprocess.DEVNULL)
    assert done.returncode == 0 and done.stderr == f"wrote {ROWS:,} rows to {out}", done.stderr
    assert peak < MEMORY_BOUND_MB
    with out.open() as written:
        assert next(written) == "n\n" and sum(1 for _ in written) == ROWS


def test_a_reader_that_stops_stops_the_statement(empty_warehouse):
    """Two billion rows would take many minutes to make: the command ends once head has its lines."""
    head, stderr = first_lines(irw_argv("sql", "select * from range(2000000000)", "--db", empty_warehouse, "-f", "csv"),
                               3)
    assert head == [b"range\n", b"0\n", b"1\n"]
    assert b"Traceback" not in stderr


def test_an_error_midway_leaves_the_file_as_it_was(empty_warehouse, tmp_path):
    out = tmp_path / "rows.csv"
    out.write_text("before\n")
    irw = Cli(empty_warehouse)
    query = "select case when range < 25000 then range else error('boom at ' || range) end as n from range(30000)"
    result = irw("sql", query, "-o", out)
    assert result.exit_code == 1 and "boom at 25000" in result.stderr
    assert out.read_text() == "before\n" and not list(tmp_path.glob(".rows.csv*"))


def test_the_text_table_takes_its_widths_from_the_first_ten_thousand_rows(empty_warehouse):
    """Its rows come 10,000 at a time: a result of up to that many is aligned as a whole; further
    down, a longer cell widens its own line only."""
    irw = Cli(empty_warehouse)
    query = "select range as n, case when range < 10000 then 'a' else 'longer' end as word from range(10002)"
    lines = irw("sql", query).stdout.splitlines(keepends=True)
    with warehouse.open(empty_warehouse, read_only=True) as wh:
        first = wh.sql(query + " limit 10000")
    assert "".join(lines[:10002]) == text_table(first.columns, first.rows)
    assert lines[10002:] == ["10000  longer\n", "10001  longer\n"]
    small = "select range as n, 'x' || range as word from range(500)"
    with warehouse.open(empty_warehouse, read_only=True) as wh:
        whole = wh.sql(small)
    assert irw("sql", small).stdout == text_table(whole.columns, whole.rows)


@pytest.mark.postgres
def test_on_postgresql_the_rows_come_through_a_server_side_cursor(postgres_url, tmp_path):
    with warehouse.open(postgres_url, create=True):
        pass
    out = tmp_path / "rows.csv"
    with out.open("w") as sink:
        done, peak = peak_child_megabytes(
            irw_argv("sql", f"select n, 'doc-' || n as doc from generate_series(1, {ROWS}) as n", "--db", postgres_url,
                     "-f", "csv"), sink)
    assert done.returncode == 0, done.stderr
    assert peak < MEMORY_BOUND_MB, f"{peak:.0f} MB"
    with out.open() as written:
        assert next(written) == "n,doc\n" and sum(1 for _ in written) == ROWS
    # two billion rows, made as they are read (one generate_series of them would be made whole first)
    endless = "select a * 100000 + b as n from generate_series(0, 19999) as a, generate_series(1, 100000) as b"
    head, stderr = first_lines(irw_argv("sql", endless, "--db", postgres_url, "-f", "csv"), 2)
    assert head == [b"n\n", b"1\n"] and b"Traceback" not in stderr
    # an EXPLAIN cannot be declared as a cursor: read as before
    result = Cli(postgres_url)("sql", "explain select 1")
    assert result.exit_code == 0 and "Result" in result.stdout


def test_rows_printed_before_an_error_are_said_to_be_incomplete(empty_warehouse, tmp_path):
    """(A walk) a query failing after millions of rows left them on stdout, and only the error said
    anything: they read as the result. The rows come in chunks, so some are printed first (DuckDB
    runs ahead of the fetches, by as much as the machine allows: the error comes late)."""
    query = "select case when range < 2500000 then range else error('boom late') end as n from range(3000000)"
    with (tmp_path / "stdout.csv").open("w") as sink:
        done = subprocess.run(irw_argv("sql", query, "--db", empty_warehouse, "-f", "csv"), stdout=sink,
                              stderr=subprocess.PIPE, text=True, timeout=300)
    printed = (tmp_path / "stdout.csv").read_text().count("\n") - 1
    assert done.returncode == 1 and printed > 0
    assert done.stderr.splitlines() == [
        f"# the {printed:,} rows printed are not the whole result: the query failed after them (-o FILE writes a "
        "result whole or not at all)", "Error: Invalid Input Error: boom late"]


@pytest.mark.parametrize("engine", ["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_python_s_sql_rows_are_read_inside_their_with_block_one_query_at_a_time(engine, request, tmp_path):
    """(A walk) wh.sql() inside a sql_rows loop raised DuckDB's own TransactionException and broke
    the loop (PostgreSQL: 'cursor irw_user_sql does not exist'); chunks read after the block were
    silently none on DuckDB. Both are a UsageError saying what to do, and the stream goes on."""
    from warehouse.errors import UsageError

    target = str(tmp_path / "irw.duckdb") if engine == "duckdb" else request.getfixturevalue("postgres_url")
    many = "select * from range(30000)" if engine == "duckdb" else "select n from generate_series(1, 30000) as n"
    with warehouse.open(target, create=True) as wh:
        with wh.sql_rows(many) as rows:
            chunks = iter(rows.chunks)
            first = next(chunks)
            with pytest.raises(UsageError, match="the rows of another query .* are still being read"):
                wh.sql("select 1")
            with pytest.raises(UsageError, match="still being read"):
                with wh.sql_rows("select 2"):
                    pass
            assert len(first) + sum(len(chunk) for chunk in chunks) == 30000
        with wh.sql_rows(many) as unread:
            pass
        with pytest.raises(UsageError, match="read inside its with block"):
            list(unread.chunks)
        assert wh.sql("select 42 as x").rows == [(42,)]


@pytest.mark.postgres
def test_on_postgresql_the_timeout_bounds_the_whole_statement_and_errors_quote_the_query(postgres_url):
    """(A walk) each FETCH of the server-side cursor had the whole timeout, so a query returning rows
    steadily ran on (13 s under --timeout 2); and the server's messages quoted irw's DECLARE."""
    with warehouse.open(postgres_url, create=True):
        pass
    irw = Cli(postgres_url)
    slow = ("select n, (select count(*) from generate_series(1, 3000 + n % 7) as g) as c "
            "from generate_series(1, 100000) as n")
    result = irw("sql", slow, "--timeout", "1", "-f", "csv")
    assert result.exit_code == 1 and "timeout of 1 s" in result.stderr, result.stderr[-300:]
    mistyped = irw("sql", "select nme\nfrom irw_schema")
    assert mistyped.exit_code == 1 and "DECLARE" not in mistyped.stderr
    assert mistyped.stderr.splitlines()[:2] == ['Error: column "nme" does not exist', "Error: LINE 1: select nme"]
    # a typo the checker cannot parse was "irw sql reads the warehouse and nothing else: the statement
    # cannot be parsed to be checked": the server's own syntax error, asked to parse it alone
    typo = irw("sql", "select * frm irw_schema")
    assert typo.exit_code == 1 and typo.stderr.splitlines() == [
        'Error: syntax error at or near "frm"', "Error: LINE 1: select * frm irw_schema", "Error:                  ^"]
    refused = irw("sql", "delete from irw_schema")
    assert refused.exit_code == 1 and "read-only" in refused.stderr
    # a query in parentheses is a query (it was refused: "SELECT statements are refused")
    assert irw("sql", "(select 1 as a) order by 1", "-f", "csv").stdout == "a\n1\n"
