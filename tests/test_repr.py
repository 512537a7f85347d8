"""What a Python REPL and Jupyter show of irw's results: a Table as a short aligned text table and
bounded HTML (the first and last rows, how many are left out), a Comparison and a Leaderboard as
one line saying what they are, never a dump of every row, Measure and Settings object."""
from __future__ import annotations

import datetime as dt
import re

import pytest

import warehouse
from warehouse.formats import formatting
from warehouse.reports import leaderboard

MEASURES = ["AP", "nDCG@10"]
SHOWN_ROWS = 20  # the most rows a table's repr and HTML show (docs/python.md): the first and last 10


@pytest.fixture(scope="module")
def dl19(conformance):
    """A warehouse in memory holding the six DL19 runs and their qrels."""
    folder = conformance / "dl19-passage"
    with warehouse.open(":memory:") as wh:
        wh.ingest_qrels(folder / "qrels.dl19-passage.txt", "dl19")
        wh.ingest_runs(folder / "runs")
        yield wh


def test_a_per_query_table_prints_as_a_short_aligned_text_table(dl19):
    """print(ev.per_query) printed the dataclass's repr: 29,182 characters for 6 runs x 2 measures."""
    table = dl19.evaluate(None, "dl19", MEASURES, per_query=True).per_query
    assert len(table) == 6 * 43 * 2
    text = repr(table)
    assert str(table) == text and len(text) < 3000
    lines = text.splitlines()
    assert lines[0].split() == ["run", "query", "measure", "value"] and set(lines[1]) == {"-", " "}
    first = table.rows[0]
    assert lines[2].split() == [first[0], first[1], first[2], f"{first[3]:.4f}"]  # 4 decimals, as irw prints
    last = table.rows[-1]
    assert lines[-2].split() == [last[0], last[1], last[2], f"{last[3]:.4f}"]
    assert f"... {len(table) - SHOWN_ROWS} rows not shown ..." in lines
    assert lines[-1].startswith(f"[{len(table)} rows x 4 columns") and ".to_pandas()" in lines[-1]
    assert len(lines) == 2 + SHOWN_ROWS + 2
    # aligned: every row's value column ends where the header's does
    assert len({len(line) for line in lines[2:-1] if not line.startswith("...")}) == 1


def test_every_run_row_is_shown_bounded_as_text_and_html(dl19):
    """wh.sql("select * from run_rows") gave 5.7 MB of HTML for its 64,500 rows, and 2.9 MB of text."""
    table = dl19.sql("select * from run_rows order by run_id, query_id, trec_rank")
    assert len(table) == 64_500
    text = repr(table)
    assert len(text) < 3000
    assert "... 64,480 rows not shown ..." in text and "[64,500 rows x 6 columns" in text
    html = table._repr_html_()
    assert len(html) < 5000
    assert html.count("<tr>") == 1 + SHOWN_ROWS + 1  # header, the rows shown, the line of those left out
    assert "64,480 rows not shown" in html and "64,500 rows x 6 columns" in html and ".to_pandas()" in html
    first = "".join(f"<td>{v}</td>" for v in table.rows[0][:4])
    assert first in html and html.index(first) < html.index("rows not shown")
    last = "".join(f"<td>{v}</td>" for v in table.rows[-1][:4])
    assert last in html and html.index(last) > html.index("rows not shown")


def test_a_short_table_shows_every_row_and_its_size():
    table = warehouse.Table(["run", "diff"], [("bm25", -0.00001), ("dense", 0.123456), ("none", None)])
    lines = repr(table).splitlines()
    assert lines == ["run      diff", "-----  ------", "bm25   0.0000", "dense  0.1235", "none", "[3 rows x 2 columns]"]
    assert "-0.0000" not in table._repr_html_() and "not shown" not in table._repr_html_()
    assert repr(warehouse.Table(["n"], [(1,)])).splitlines()[-1] == "[1 row x 1 column]"


@pytest.mark.parametrize("rows", [
    [("bm25", 0.5, 43, None), ("dense", -0.00001, 7, True)],
    [("検索", 1e9, -3, {"k1": "0.9"}), ("a\\nb\n\x1b", float("nan"), None, b"x\\\xff")],
    [(dt.datetime(2024, 5, 1, 12, 30), 2, 1.25, "e\u0301\u202e")],
    [],
])
def test_the_text_form_is_the_table_irw_sql_prints(rows):
    """A Table's repr draws the table `irw sql` prints (formatting.render), then its size: one
    number format, one escaping rule, one alignment."""
    table = warehouse.Table(["run", "value", "n<>", "x\ty"], rows)
    assert repr(table).splitlines()[:-1] == formatting.render(table).splitlines()


def test_names_are_escaped_in_the_text_and_the_html_of_a_long_table():
    table = warehouse.Table(["<b>x</b>", "name\x1b[31m"], [(f"<i>{i}</i>", "a\u202eb\nc") for i in range(50)])
    text = repr(table)
    assert "\x1b" not in text and "\u202e" not in text and "\\x1b[31m" in text and "a\\u202eb\\nc" in text
    assert len(text.splitlines()) == 2 + SHOWN_ROWS + 2
    html = table._repr_html_()
    assert "<b>" not in html and "<i>" not in html and "\x1b" not in html and "\u202e" not in html
    assert "<th>&lt;b&gt;x&lt;/b&gt;</th>" in html and "<td>&lt;i&gt;0&lt;/i&gt;</td>" in html
    assert "<td>&lt;i&gt;49&lt;/i&gt;</td>" in html and "<td>&lt;i&gt;10&lt;/i&gt;</td>" not in html
    assert "30 rows not shown" in html


def test_a_comparison_says_what_it_is_briefly(dl19):
    """repr(Comparison) was 1,846 characters of Measure and Settings objects (30,828 for six runs)."""
    comparison = dl19.compare(None, "dl19", MEASURES)
    text = repr(comparison)
    assert len(text) < 400, text
    assert text.startswith("<Comparison of 6 runs (all pairs) on qrels 'dl19': AP, nDCG@10; 30 comparisons, holm "
                           "correction; trec_eval 9.0.8") and text.endswith(">")
    assert "Measure(" not in text and "Settings(" not in text
    against = repr(dl19.compare(["REP_LLAMA"], "dl19", MEASURES, baseline="BM25"))
    assert against.startswith("<Comparison of 2 runs (against baseline 'BM25') on qrels 'dl19': AP, nDCG@10; "
                              "2 comparisons")
    html = comparison._repr_html_()  # 30 rows, one per measure x pair
    assert "10 rows not shown" in html and html.count("<tr>") == 1 + SHOWN_ROWS + 1


def test_a_leaderboard_says_what_it_is_briefly(dl19):
    """repr(Leaderboard) was 17,159 characters of its Scope, Measures and rows."""
    board = leaderboard(dl19, "dl19", MEASURES)
    text = repr(board)
    assert len(text) < 400, text
    top = board.rows[0].run
    assert text.startswith(f"<Leaderboard of 6 runs on qrels 'dl19', ranked by AP: AP, nDCG@10; baseline '{top}' "
                           "(the top run), 10 comparisons, holm correction; trec_eval 9.0.8")
    assert "Scope(" not in text and "Measure(" not in text and "<Warehouse" not in text
    html = board._repr_html_()
    assert "not shown" not in html and html.count("<tr>") == 1 + 6  # six runs: every one shown


def test_a_name_in_a_result_s_repr_is_said_escaped(dl19):
    runs = dl19.runs().column("name")
    dl19.rename_run(runs[0], "new\x1b]0;x\x07line")
    try:
        text = repr(dl19.compare(None, "dl19", ["AP"], baseline="new\x1b]0;x\x07line"))
    finally:
        dl19.rename_run("new\x1b]0;x\x07line", runs[0])
    assert "\x1b" not in text and "\x07" not in text and "baseline 'new\\x1b]0;x\\x07line'" in text


def test_many_measures_are_named_briefly(dl19):
    measures = ["AP", "nDCG@10", "P@5", "P@10", "P@20", "R@100", "R@1000", "RR", "nDCG@20", "nDCG@100", "bpref"]
    text = repr(dl19.compare(["BM25"], "dl19", measures, baseline="REP_LLAMA"))
    assert re.search(r": AP, nDCG@10, P@5, P@10, P@20, R@100, R@1000, RR and 3 more; ", text), text
    assert "; 11 comparisons, no correction; " in repr(dl19.compare(["BM25"], "dl19", measures, baseline="REP_LLAMA",
                                                                     correction="none"))
