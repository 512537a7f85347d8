"""-o's file name says the format when --format is not given: `irw sql ... -o rows.parquet` wrote a
text table into rows.parquet (pyarrow: "Parquet magic bytes not found"), and `irw report history
-o history.csv` an HTML page, each saying "wrote". A name that says a format the command does not
write is refused before anything is written; a --format given is what is written."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Cli, dl19_cli

QUERY = "select name, tag, row_count from runs order by name"


@pytest.fixture
def dl19(conformance: Path, tmp_path: Path) -> Cli:
    return dl19_cli(conformance, tmp_path)


def test_irw_sql_writes_the_format_the_file_name_says(dl19, tmp_path):
    pyarrow_parquet = pytest.importorskip("pyarrow.parquet")
    named = dl19("sql", QUERY, "-o", tmp_path / "runs.parquet")
    assert named.exit_code == 0, named.stderr
    assert named.stderr == f"wrote 2 rows to {tmp_path / 'runs.parquet'}\n"
    assert pyarrow_parquet.read_table(tmp_path / "runs.parquet").to_pylist() == [
        {"name": "BM25", "tag": "rank", "row_count": 4300}, {"name": "BM25_RM3", "tag": "rank", "row_count": 4300}]
    for name, fmt in (("runs.csv", "csv"), ("RUNS.JSON", "json"), ("runs.tsv", "tsv"), ("runs.ndjson", "jsonl")):
        assert dl19("sql", QUERY, "-o", tmp_path / name).exit_code == 0
        assert (tmp_path / name).read_text() == dl19("sql", QUERY, "-f", fmt).stdout, name
    assert (tmp_path / "runs.csv").read_text().splitlines()[0] == "name,tag,row_count"


def test_a_format_given_is_written_whatever_the_file_is_named(dl19, tmp_path):
    assert dl19("sql", QUERY, "-f", "json", "-o", tmp_path / "runs.csv").exit_code == 0
    assert (tmp_path / "runs.csv").read_text() == dl19("sql", QUERY, "-f", "json").stdout
    assert dl19("sql", QUERY, "-o", tmp_path / "runs.out").exit_code == 0  # a name that says no format: the default
    assert (tmp_path / "runs.out").read_text() == dl19("sql", QUERY).stdout


def test_a_name_for_a_format_the_command_does_not_write_is_refused_before_anything_is_written(dl19, tmp_path):
    for argv, said in (
            (["sql", QUERY, "-o", tmp_path / "runs.html"],
             f"Error: {tmp_path / 'runs.html'} names an HTML file, which irw sql does not write (its formats: table, "
             "csv, tsv, json, jsonl, parquet, arrow): give --format, or name the file for the format you want\n"),
            (["report", "run", "BM25", "-m", "AP", "-o", tmp_path / "BM25.md"],
             f"Error: {tmp_path / 'BM25.md'} names a Markdown file, which irw report run does not write (its "
             "formats: html, table, csv, tsv, json): give --format, or name the file for the format you want\n")):
        refused = dl19(*argv)
        assert (refused.exit_code, refused.stdout, refused.stderr) == (2, "", said)
        assert not argv[-1].exists()


def test_each_report_writes_the_format_the_file_name_says(dl19, tmp_path):
    for command, name, fmt in ((["report", "leaderboard", "-m", "AP", "-m", "nDCG@10"], "board.csv", "csv"),
                               (["report", "leaderboard", "-m", "AP"], "board.md", "markdown"),
                               (["report", "leaderboard", "-m", "AP"], "board.tex", "latex"),
                               (["report", "history", "-m", "AP"], "history.json", "json"),
                               (["report", "compare", "BM25", "BM25_RM3", "-m", "AP"], "compare.tsv", "tsv"),
                               (["report", "run", "BM25", "-m", "AP"], "BM25.csv", "csv"),
                               # .txt wrote the default, an HTML page, into board.txt (a walk)
                               (["report", "leaderboard", "-m", "AP"], "board.txt", "table"),
                               (["report", "history", "-m", "AP"], "HISTORY.TXT", "table")):
        written = dl19(*command, "-o", tmp_path / name)
        assert (written.exit_code, written.stdout, written.stderr) == (0, "", f"wrote {tmp_path / name}\n"), name
        assert (tmp_path / name).read_text() == dl19(*command, "--format", fmt).stdout, name
    assert {"AP", "nDCG@10"} <= set((tmp_path / "board.csv").read_text().splitlines()[0].split(","))
    page = dl19("report", "history", "-m", "AP", "-o", tmp_path / "history.htm")
    assert page.exit_code == 0 and (tmp_path / "history.htm").read_text().startswith("<!DOCTYPE html>")
