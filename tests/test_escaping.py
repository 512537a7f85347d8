"""Names given by users going out of irw (issue 24): one rule per format (warehouse/formats/escaping.py).
Control characters are shown escaped on terminals and never split a line of any format; bidi
controls cannot reorder an HTML page or a LaTeX table; empty names are refused; csv/tsv text cells
cannot be spreadsheet formulas; a non-Latin name on a latin-1 terminal is no traceback."""
from __future__ import annotations

import os
import shlex
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Cli, qrels_text, write_file

ROOT = Path(__file__).resolve().parents[1]
from warehouse.formats.escaping import name_problem, shown, spreadsheet_cell

HOSTILE = ["\x1b]52;c;ZWNobyBoaQ==\x07", "\x1b[2J", "ab\x08\x08XY", "a\x7fb", "x\u202ey", "p\u2066q\u2069",
           "\x9b31m", "l\u2028m"]
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def _run_lines(tag: str, queries=("q1", "q2")) -> str:
    return "".join(f"{q} Q0 d{i} {i} {3 - i}.5 {tag}\n" for q in queries for i in (1, 2))


@pytest.fixture
def hostile(tmp_path):
    """A warehouse whose runs are named by hostile tags (tags are data: stored as read)."""
    path = tmp_path / "w.duckdb"
    irw = Cli(path)
    assert irw("ingest", "qrels", str(write_file(tmp_path, "q.txt", "q1 0 d1 1\nq2 0 d2 1\n")), "--name", "q").exit_code == 0
    outputs = []
    for i, text in enumerate(HOSTILE):
        tag = f"t{i}" + text.replace(" ", "").replace("\t", "")
        result = irw("ingest", "run", str(write_file(tmp_path, f"r{i}.txt", _run_lines(tag))))
        assert result.exit_code == 0, result.stderr
        outputs.append(result.stdout + result.stderr)
    return irw, outputs


def test_the_rule():
    assert shown("plain run-1 ü 运行") == "plain run-1 ü 运行"
    assert shown("a\x1b[2Jb\tc\nd\re\x08\u202e") == "a\\x1b[2Jb\\tc\\nd\\re\\x08\\u202e"
    assert [spreadsheet_cell(t) for t in ("=1+1", "+x", "-x", "@SUM(A1)", "\tx", "\rx", "-0.5", "+3e5", "a=b",
                                          "'=x", "'quoted", "it's")] == \
        ["'=1+1", "'+x", "'-x", "'@SUM(A1)", "'\tx", "'\rx", "-0.5", "+3e5", "a=b", "''=x", "''quoted", "it's"]
    assert [name_problem(n) for n in ("", "  ", "\t", "ok", "\udcff")] == \
        ["is empty", "is only blanks", "is only blanks", None, "is not UTF-8 text"]


def test_terminal_outputs_show_control_characters_escaped(hostile, tmp_path):
    irw, ingest_outputs = hostile
    outputs = list(ingest_outputs)
    for command in (["runs"], ["eval", "-m", "AP", "--qrels", "q"], ["eval", "-m", "AP", "--qrels", "q", "-q"],
                    ["eval", "-m", "AP", "--qrels", "q", "--format", "trec"],
                    ["sql", "select tag from runs"], ["sql", "select tag from runs", "-f", "csv"],
                    ["sql", "select tag from runs", "-f", "tsv"],
                    ["report", "leaderboard", "--qrels", "q", "-m", "AP", "--format", "markdown"],
                    ["report", "leaderboard", "--qrels", "q", "-m", "AP", "--format", "latex"],
                    ["report", "leaderboard", "--qrels", "q", "-m", "AP", "--format", "table"],
                    ["rm", "run", "nosuch\x1b[2J"]):
        result = irw(*command)
        outputs.append(result.stdout + result.stderr)
    for text in outputs:
        assert not RAW.search(text), repr(text)
    assert any("\\x1b[2J" in text for text in outputs)


def test_html_reports_isolate_bidi_and_controls(hostile, tmp_path):
    irw, _ = hostile
    page = tmp_path / "lb.html"
    assert irw("report", "leaderboard", "--qrels", "q", "-m", "AP", "-o", str(page)).exit_code == 0
    pages = [page, *sorted(page.parent.rglob("*.html"))]
    for html in pages:
        text = html.read_text(encoding="utf-8")
        assert not RAW.search(text), (html, RAW.search(text))
    assert "\\u202e" in page.read_text(encoding="utf-8")


def test_a_file_name_cannot_forge_a_trec_line(tmp_path):
    path = tmp_path / "w.duckdb"
    irw = Cli(path)
    assert irw("ingest", "qrels", str(write_file(tmp_path, "q.txt", "q1 0 d1 1\n")), "--name", "q").exit_code == 0
    forged = write_file(tmp_path, "run.b\nmap\tall\t0.9999.txt", _run_lines("tag", ("q1",)))
    result = irw("ingest", "run", str(forged), "--name-from", "file")
    assert result.exit_code == 0, result.stderr
    for extra in ([], ["-q"]):
        out = irw("eval", "-m", "AP", "--qrels", "q", "--format", "trec", *extra).stdout
        lines = out.splitlines()
        assert all(len(line.split("\t")) == 3 for line in lines), out
        assert not any(line.split("\t")[1:] == ["all", "0.9999"] for line in lines), out
        assert "run.b\\nmap\\tall\\t0.9999" in out
    markdown = irw("report", "leaderboard", "--qrels", "q", "-m", "AP", "--format", "markdown").stdout
    table = [line for line in markdown.splitlines() if line.startswith("|")]
    assert len(table) == 3 and all(line.endswith("|") for line in table), markdown
    tsv = irw("sql", "select name, 1 as x from runs", "-f", "tsv").stdout
    assert tsv.count("\n") == 2 and all(line.count("\t") == 1 for line in tsv.splitlines()), tsv


def test_csv_and_tsv_cells_are_no_formulas(seeded_db):
    irw = Cli(seeded_db)
    for fmt, sep in (("csv", ","), ("tsv", "\t")):
        out = irw("sql", "select '=HYPERLINK(\"http://x\")' as a, '+1+1' as b, '-0.5' as c, -0.5 as d, "
                         "'@SUM(1)' as e, 'ok' as f, 2 as g", "-f", fmt).stdout
        row = out.splitlines()[1]
        cells = row.split(sep)
        assert cells[0].lstrip('"').startswith("'=") and cells[1] == "'+1+1" and cells[2] == "-0.5"
        assert cells[3] == "-0.5" and cells[4] == "'@SUM(1)" and cells[5:] == ["ok", "2"], row


def test_empty_and_blank_names_are_refused(tmp_path):
    irw = Cli(tmp_path / "w.duckdb")
    q = str(write_file(tmp_path, "q.txt", qrels_text()))
    r = str(write_file(tmp_path, "r.txt", _run_lines("tag")))
    for command in (["ingest", "qrels", q, "--name", ""], ["ingest", "qrels", q, "--name", " \t"],
                    ["ingest", "run", r, "--name", ""], ["ingest", "run", r, "--name", "  "],
                    ["ingest", "run", r, "--name", "x", "--system", ""]):
        result = irw(*command)
        assert result.exit_code != 0 and "give it another name" in result.stderr, (command, result.stderr)
    assert not (tmp_path / "w.duckdb").exists() or irw("runs").stdout.count("\n") <= 2


def test_dot_names_are_refused_as_links_and_paths_read_them(tmp_path):
    """A run, system or qrels set named . or .. cannot be linked to (a browser resolves /runs/.. to
    /runs/, %2E%2E too) nor be a folder: refused wherever a name is given, and from a file's tag."""
    irw = Cli(tmp_path / "w.duckdb")
    q = str(write_file(tmp_path, "q.txt", qrels_text()))
    r = str(write_file(tmp_path, "r.txt", _run_lines("tag")))
    dotted = str(write_file(tmp_path, "dotted.txt", _run_lines("..")))
    assert irw("ingest", "qrels", q).exit_code == 0
    assert irw("ingest", "run", r, "--name", "tag").exit_code == 0
    for command in (["ingest", "qrels", q, "--name", ".."], ["ingest", "run", r, "--name", "."],
                    ["ingest", "run", r, "--name", "x", "--system", ".."], ["rename", "run", "tag", ".."],
                    ["ingest", "run", dotted, "--name-from", "tag"]):
        result = irw(*command)
        assert result.exit_code != 0, command
        assert "is a dot segment, which links and paths read as this folder or the one above" in result.stderr, \
            (command, result.stderr)
    assert [line.split()[0] for line in irw("runs").stdout.splitlines()[2:]] == ["tag"]


def _irw(*args, env=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "warehouse", *args], capture_output=True,
                          env={**os.environ, **(env or {})}, cwd=cwd, timeout=300)


def test_a_name_that_is_not_utf8_is_said_so(tmp_path):
    write_file(tmp_path, "r.txt", _run_lines("tag"))
    result = _irw(b"ingest", b"run", b"r.txt", b"--name", b"bad\xffname", b"--db", b"w.duckdb", cwd=tmp_path)
    stderr = result.stderr.decode()
    assert result.returncode != 0 and "is not UTF-8 text" in stderr and "DuckDB failed" not in stderr, stderr
    write_file(tmp_path, "q.txt", "q1 0 d1 1\n")
    for args in ([b"ingest", b"run", b"r.txt", b"--system", b"s\xff"], [b"ingest", b"run", b"r.txt", b"--param", b"k=\xfe"],
                 [b"ingest", b"run", b"r.txt", b"--description", b"\xff"],
                 [b"ingest", b"qrels", b"q.txt", b"--name", b"q\xff"],
                 [b"ingest", b"qrels", b"q.txt", b"--name", b"q", b"--description", b"\xff"]):
        result = _irw(*args, b"--db", b"w.duckdb", cwd=tmp_path)
        stderr = result.stderr.decode()
        assert result.returncode != 0 and "is not UTF-8 text" in stderr and "Traceback" not in stderr, (args, stderr)


def test_a_non_latin_name_on_a_latin1_terminal(tmp_path):
    write_file(tmp_path, "r.txt", _run_lines("运行"))
    write_file(tmp_path, "q.txt", "q1 0 d1 1\n")
    assert _irw("ingest", "qrels", "q.txt", "--name", "q", "--db", "w.duckdb", cwd=tmp_path).returncode == 0
    env = {"PYTHONIOENCODING": "latin-1"}
    ingested = _irw("ingest", "run", "r.txt", "--db", "w.duckdb", cwd=tmp_path, env=env)
    assert ingested.returncode == 0, ingested.stderr
    for command in (["runs"], ["eval", "-m", "AP", "--qrels", "q"], ["sql", "select name from runs"]):
        result = _irw(*command, "--db", "w.duckdb", cwd=tmp_path, env=env)
        assert result.returncode == 0 and b"Traceback" not in result.stderr, result.stderr
        assert b"\\u8fd0\\u884c" in result.stdout
    result = _irw("trec-eval", "q.txt", "r.txt", cwd=tmp_path, env=env)
    assert result.returncode == 0 and result.stdout.startswith(b"runid                 \tall\t\\u8fd0\\u884c\n")



def test_trec_eval_s_per_query_lines_write_a_query_id_s_control_characters_escaped(tmp_path):
    """An escaping walk: `irw trec-eval -q` wrote a query id holding ESC [31m raw (its -q lines are
    formatted apart from trec_line), where the runid line and irw eval -f trec escaped it."""
    write_file(tmp_path, "q.txt", "q\x1b[31m1 0 d1 1\nq\x1b[31m1 0 d2 0\nq2 0 d1 1\n")
    write_file(tmp_path, "r.txt", "q\x1b[31m1 Q0 d1 1 2.0 t\nq\x1b[31m1 Q0 d2 2 1.0 t\nq2 Q0 d1 1 1.0 t\n")
    for flags in ([], ["-c"], ["-n"]):
        result = _irw("trec-eval", "-q", *flags, "-m", "map", "-m", "relstring", "q.txt", "r.txt", cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert b"\x1b" not in result.stdout
        lines = result.stdout.decode().splitlines()
        assert "map                   \tq\\x1b[31m1\t1.0000" in lines, lines
        assert "relstring             \tq\\x1b[31m1\t'10'" in lines and "map                   \tq2\t1.0000" in lines


@pytest.mark.parametrize("name", ["plain", "a b", "it's", "-2+3", "q\x1b[31m1", "tab\there", "back\\slash\x01",
                                  "bidi\u202eX", "emoji\U0001F600", "bad\udcffname", "$(touch pwned)", "`id`;x"])
def test_a_printed_command_pasted_into_bash_gives_the_name_itself(name, tmp_path):
    """An escaping walk: a name was shell-quoted and then its control characters escaped with the
    message line (shown), so the pasted command named the text `q\\x1b[31m1`, not the run; and a
    name starting with a dash was read as an option. The word survives the line's escaping."""
    from warehouse.formats.escaping import shell_command, shell_join, shown

    line = shown(shell_join(["printf", "%s\\0", name, "next"]))
    done = subprocess.run(["bash", "-c", line], capture_output=True, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout == name.encode("utf-8", "surrogateescape") + b"\0next\0", line
    assert list(tmp_path.iterdir()) == []  # nothing ran but printf
    assert (" -- " in shell_command(["irw", "rm", "run"], [name])) == name.startswith("-")


def test_a_run_named_with_a_dash_gets_a_date_note_whose_command_runs(tmp_path):
    """The note on a run dated after today printed `irw edit run '-v2' --date DATE`: `No such option: -v`."""
    irw = Cli(tmp_path / "w.duckdb")
    assert irw("ingest", "qrels", str(write_file(tmp_path, "q.txt", "q1 0 d1 1\n")), "--name", "q").exit_code == 0
    result = irw("ingest", "run", str(write_file(tmp_path, "r.txt", _run_lines("t"))), "--name", "-v2",
                 "--date", "2999-01-01")
    assert result.exit_code == 0, result.stderr
    command = re.search(r"`(irw edit run [^`]*)` corrects it", result.stderr).group(1)
    assert command == "irw edit run --date DATE -- -v2", result.stderr
    words = shlex.split(command.replace("DATE", "2026-01-01"))[1:]
    edited = irw(*words[:2], "--db", irw.db, *words[2:], db=False)  # --db before the --
    assert edited.exit_code == 0, edited.stderr
    assert irw("runs", "-f", "csv").stdout.count("2026-01-01") == 1

def test_a_name_cannot_split_a_message_or_forge_a_line_of_its_own(tmp_path):
    """A run named "a\\nError: forged" was echoed by ingest, and by an error naming it, with the line
    break itself: a second line, "Error: forged", that irw never wrote. Each message line is escaped
    whole; an error of several lines (a SQL error with its caret) keeps them."""
    irw = Cli(tmp_path / "w.duckdb")
    assert irw("ingest", "qrels", str(write_file(tmp_path, "q.txt", "q1 0 d1 1\n")), "--name", "q").exit_code == 0
    forged = "a\nError: forged\u2028x\ry"
    result = irw("ingest", "run", str(write_file(tmp_path, "r.txt", _run_lines("tag", ("q1",)))), "--name", forged)
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines() == [
        f"ingested run a\\nError: forged\\u2028x\\ry: 2 lines, 1 query from {tmp_path / 'r.txt'}"]
    missing = irw("rm", "run", "b\nError: forged")
    assert missing.exit_code == 1 and len(missing.stderr.splitlines()) == 1, missing.stderr
    assert missing.stderr.startswith("Error: no run named 'b\\nError: forged'")
    # a batch's errors keep each file's error to its line: a file named so, stored, then changed
    named = write_file(tmp_path, "c\nError: forged.txt", _run_lines("tag", ("q1",)))
    assert irw("ingest", "run", str(named), "--name-from", "file").exit_code == 0
    named.write_text(_run_lines("other", ("q1",)))
    batch = irw("ingest", "run", str(named), str(write_file(tmp_path, "d.txt", _run_lines("tag2", ("q1",)))),
                "--name-from", "file")
    assert batch.exit_code == 1 and len(batch.stderr.splitlines()) == 2, batch.stderr
    assert "run c\\nError: forged already exists with different content" in batch.stderr
    sql = irw("sql", "select nosuch from runs")
    lines = sql.stderr.splitlines()
    assert sql.exit_code == 1 and len(lines) > 2 and all(line.startswith("Error: ") for line in lines), sql.stderr
    assert any(line.strip().endswith("^^^^^^") for line in lines)


def _terminal_columns(text: str) -> int:
    """Columns a terminal gives text, by Unicode's own tables (not irw's rule): two for East Asian
    wide and full-width characters, none for combining marks."""
    import unicodedata

    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def test_names_in_any_script_line_up_in_a_table(tmp_path):
    """A run named in Japanese, or with an accent written as a combining mark, took its characters
    for its width: the columns after it stood six (and one) places to the right of the others'."""
    irw = Cli(tmp_path / "w.duckdb")
    assert irw("ingest", "qrels", write_file(tmp_path, "q.txt", "q1 0 d1 1\nq2 0 d2 1\n"), "--name", "q").exit_code == 0
    names = ["検索システム-v1", "cafe\u0301 run", "ｶﾀｶﾅ", "plain"]
    for i, name in enumerate(names):
        ingested = irw("ingest", "run", write_file(tmp_path, f"r{i}.txt", _run_lines("t")), "--name", name,
                       "--system", name[:2])
        assert ingested.exit_code == 0, ingested.stderr
    for argv in (["eval", "-m", "AP", "-m", "P@10"], ["runs"]):
        result = irw(*argv)
        assert result.exit_code == 0, result.stderr
        header, rule, *rows = result.stdout.splitlines()
        assert sorted(row.split("  ")[0].strip() for row in rows) == sorted(names)
        # every column starts where the rule's dashes start, in every row: the gaps in the rule
        starts = [m.start() for m in re.finditer(r"(?<!-)-", rule)]
        for row in rows:
            for start in starts[1:]:
                before = next(i for i in range(len(row) + 1) if _terminal_columns(row[:i]) >= start)
                assert _terminal_columns(row[:before]) == start and row[before - 2:before] == "  ", (argv, row)


def test_a_command_irw_suggests_runs_as_printed_when_a_name_has_spaces(tmp_path, conformance):
    """The commands in irw's messages quote the names they hold, as a shell reads them: `irw rm run
    acme nightly 1` (printed so) removed nothing, and `--qrels my covid` chose qrels `my`."""
    import shlex

    folder = tmp_path / "my runs"
    folder.mkdir()
    irw = Cli(folder / "irw.duckdb")
    dl19 = conformance / "dl19-passage"
    assert irw("ingest", "qrels", dl19 / "qrels.dl19-passage.txt", "--name", "my dl19").exit_code == 0
    assert irw("ingest", "qrels", write_file(tmp_path, "other.txt", "x1 0 d1 1\n"), "--name", "other").exit_code == 0
    for name in ("acme nightly 1", "acme nightly 2"):
        ingested = irw("ingest", "run", dl19 / "runs" / "run.dl19.BM25.txt", "--name", name, "--system", "acme sys")
        assert ingested.exit_code == 0, ingested.stderr

    def suggested(result, before: str) -> list[str]:
        assert result.exit_code != 0
        command = re.search(f"`({re.escape(before)}[^`]*)`", result.stderr).group(1)
        return shlex.split(command)

    # a rename onto a stored name: the rm it suggests removes that run
    words = suggested(irw("rename", "run", "acme nightly 1", "acme nightly 2"), "irw rm")
    assert words == ["irw", "rm", "run", "acme nightly 2"]
    assert irw(*words[1:]).exit_code == 0
    # several qrels sets judging the runs (a second version of DL19's): the --qrels it suggests evaluates
    assert irw("ingest", "qrels", dl19 / "qrels.dl19-passage.txt", "--name", "my dl19 v2").exit_code == 0
    words = suggested(irw("eval", "-m", "AP", "acme*"), "--qrels")
    assert words == ["--qrels", "my dl19"] and irw("eval", "-m", "AP", "acme*", *words).exit_code == 0
    # a system given as the baseline: the --baseline it suggests compares
    words = suggested(irw("compare", "--qrels", "my dl19", "--baseline", "acme sys", "-m", "AP"), "--baseline")
    assert words == ["--baseline", "acme nightly 1"]
    # a measure file added twice: the --replace it suggests replaces it
    measure = ROOT / "examples" / "measures" / "precision_at_k.sql"
    spaced = folder / "my prec.sql"
    spaced.write_text(measure.read_text())
    assert irw("measures", "add", spaced).exit_code == 0
    spaced.write_text(measure.read_text().replace("k=10", "k=5"))  # another definition: the same is a no-op
    words = suggested(irw("measures", "add", spaced), "irw measures add")
    assert words == ["irw", "measures", "add", str(spaced), "--replace", "--db", str(folder / "irw.duckdb")]
    assert irw(*words[1:], db=False).exit_code == 0


def test_a_served_error_s_backquoted_spans_are_code_and_escaped_as_any_text():
    """A served error page showed a message's backticks (`irw eval -m all_trec`) as written: each
    pair is a <code> span now, its text with the page's one escaping rule, as the rest's."""
    from warehouse.reports.render import code_spans

    assert str(code_spans("for measures an `irw eval` stored already")) == \
        "for measures an <code>irw eval</code> stored already"
    assert str(code_spans("run `<b>\u202e`: `x` & y")) == \
        "run <code>&lt;b&gt;\\u202e</code>: <code>x</code> &amp; y"
    assert str(code_spans("one ` alone <i>")) == "one ` alone &lt;i&gt;"
