"""Small findings of a user walk through irw's messages: each message points to a command that
exists and gives advice that fits what was typed; a table, csv or tsv cell reads back as it was."""
from __future__ import annotations

import csv
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import warehouse
from conftest import Cli, write_file

ROOT = Path(__file__).resolve().parents[1]
PREC = ROOT / "examples" / "measures" / "precision_at_k.sql"


def test_measures_rm_of_an_unknown_name_points_to_a_listing_that_exists_and_to_the_stored_case(seeded_db, irw):
    """It said "`irw measures list --user` lists them" (no such option), and `rm PREC` with `prec`
    added gave no hint, though a measure name is one measure in any letter case."""
    assert irw("measures", "add", PREC).exit_code == 0
    missing = irw("measures", "rm", "nosuch")
    assert missing.exit_code == 1
    assert missing.stderr == "Error: no user measure 'nosuch'; `irw measures list` lists them\n"
    assert irw("measures", "list").exit_code == 0
    shouted = irw("measures", "rm", "PREC")
    assert shouted.exit_code == 1
    assert shouted.stderr == "Error: no user measure 'PREC'; did you mean prec? `irw measures list` lists them\n"
    assert "prec" in irw("measures", "list").stdout  # nothing was removed


def test_adding_the_stored_definition_again_changes_nothing_and_succeeds(seeded_db, irw):
    """It was an error suggesting --replace, which would have dropped the measure's scores."""
    assert irw("measures", "add", PREC).exit_code == 0
    assert irw("eval", "-m", "prec", "--qrels", "base").exit_code == 0
    scores = irw("sql", "select count(*) as n from scores where measure = 'prec'", "-f", "csv").stdout
    again = irw("measures", "add", PREC)
    assert again.exit_code == 0, again.stderr
    assert again.stderr == "measure prec is already added with this same definition; nothing changed\n"
    assert irw("sql", "select count(*) as n from scores where measure = 'prec'", "-f", "csv").stdout == scores
    # another definition under the name is still refused, pointing to --replace
    other = write_file(seeded_db.parent, "other.sql", PREC.read_text().replace("k=10", "k=5"))
    refused = irw("measures", "add", other)
    assert refused.exit_code == 1 and "with another definition" in refused.stderr and "--replace" in refused.stderr


def test_the_replace_command_offered_names_the_warehouse(seeded_db, irw, tmp_path, monkeypatch):
    """`irw measures add F --db W` offered `irw measures add F --replace`, which, pasted in a folder
    holding another irw.duckdb, replaced the measure there and deleted its scores (a user-measure
    walk). The command offered names W, and run as offered from that folder it changes W only."""
    import re
    import shlex

    assert irw("measures", "add", PREC).exit_code == 0
    other = write_file(seeded_db.parent, "other.sql", PREC.read_text().replace("k=10", "k=5"))
    refused = irw("measures", "add", other)
    assert refused.exit_code == 1
    (offered,) = re.findall(r"`(irw measures add [^`]+)`", refused.stderr)
    assert offered == f"irw measures add {shlex.quote(str(other))} --replace --db {shlex.quote(str(seeded_db))}"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    warehouse.open(elsewhere / "irw.duckdb").close()
    bystander = Cli(elsewhere / "irw.duckdb")
    assert bystander("measures", "add", PREC).exit_code == 0
    monkeypatch.chdir(elsewhere)
    ran = Cli(elsewhere / "unused.duckdb")(*shlex.split(offered)[1:], db=False)
    assert ran.exit_code == 0, ran.stderr
    with warehouse.open(seeded_db, read_only=True) as wh:
        assert "k=5" in wh.sql("select definition from user_measures where name = 'prec'").rows[0][0]
    with warehouse.open(elsewhere / "irw.duckdb", read_only=True) as wh:
        assert "k=10" in wh.sql("select definition from user_measures where name = 'prec'").rows[0][0]


def test_replacing_or_removing_a_measure_says_how_many_scores_it_deleted(conformance, tmp_path):
    """`irw measures add FILE --replace` said only "added measure prec" and `irw measures rm prec`
    "removed measure prec", though each deleted every stored score of the measure (a user-measure
    walk: 860 of them); and --replace with the stored definition deleted its scores, where the
    same file without it kept them."""
    import warehouse
    from conftest import dl19_with_measure

    irw, measure = dl19_with_measure(conformance, tmp_path, "prec", PREC.read_text())
    assert irw("eval", "-m", "prec", "-m", "prec(k=20)").exit_code == 0
    counted = "select count(*) as n from scores where measure like 'prec%'"
    assert irw("sql", counted, "-f", "csv").stdout == "n\n172\n"  # 2 runs x 43 queries x 2
    same = irw("measures", "add", measure, "--replace")
    assert same.stderr == "measure prec is already added with this same definition; nothing changed\n"
    assert irw("sql", counted, "-f", "csv").stdout == "n\n172\n"
    measure.write_text(PREC.read_text().replace("k=10", "k=5"))
    replaced = irw("measures", "add", measure, "--replace")
    assert (replaced.exit_code, replaced.stderr) == (0, (
        f"added measure prec (parameters: k=5; aggregate: mean) from {measure}, replacing its earlier definition and "
        "deleting that one's 172 stored per-query scores\n"))
    assert irw("eval", "-m", "prec").exit_code == 0
    removed = irw("measures", "rm", "prec")
    assert (removed.exit_code, removed.stderr) == (0, "removed measure prec and its 86 stored per-query scores\n")
    with warehouse.open(irw.db) as wh:
        assert wh.add_measure(measure).scores_deleted is None
        assert wh.add_measure(PREC, replace=True).scores_deleted == 0
        assert wh.remove_measure("prec") == 0
    assert irw("measures", "add", measure).exit_code == 0
    assert irw("measures", "rm", "prec").stderr == "removed measure prec (no scores stored with it)\n"


@pytest.mark.parametrize("statement, named, advice", [
    ("INSTALL httpfs", "INSTALL", "no extension is installed or loaded"),
    ("force install httpfs", "FORCE INSTALL", "no extension is installed or loaded"),
    ("LOAD httpfs", "LOAD", "no extension is installed or loaded"),
    ("PRAGMA threads=1", "PRAGMA", "SELECT * FROM pragma_table_info('runs')"),
    ("SET threads=1", "SET", "--timeout"),
    ("CALL pragma_version()", "CALL", "SELECT * FROM name(...)"),
    ("use memory", "USE", "--db"),
    ("attach 'x.duckdb'", "ATTACH", "irw copy"),
    ("begin", "BEGIN", "always rolled back"),
    ("checkpoint", "CHECKPOINT", "nothing to run"),
    ("copy runs to 'leak.csv'", "COPY", "irw sql -o FILE"),
    ("with x as (select 1) insert into runs select * from runs", "INSERT", "irw ingest"),
])
def test_a_refused_statement_is_named_as_typed_with_advice_that_fits_it(statement, named, advice, seeded_db, irw):
    """INSTALL was called LOAD, PRAGMA and USE SET, CHECKPOINT CALL, and each was told to use irw
    ingest / irw rm to change the warehouse, which none of them does."""
    result = irw("sql", statement)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: irw sql is read-only: {named} statements are refused ("), result.stderr
    assert advice in result.stderr, result.stderr
    if advice != "irw ingest":
        assert "irw ingest / irw rm" not in result.stderr


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_a_file_of_comments_only_is_not_called_empty(kind, seeded_db, tmp_path, irw):
    path = write_file(tmp_path, f"c.{kind}", "# only comment\n")
    result = irw("ingest", kind, path, "--name", "new")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {path}: no {kind} lines (the file is empty, or holds only blank "
                                    "lines and comments)"), result.stderr


_ESCAPE = re.compile(r"\\(\\|n|t|r|x[0-9a-f]{2}|u[0-9a-f]{4})")


def _read_back(cell: str) -> str:
    def one(match: re.Match) -> str:
        code = match.group(1)
        return {"\\": "\\", "n": "\n", "t": "\t", "r": "\r"}.get(code) or chr(int(code[1:], 16))
    return _ESCAPE.sub(one, cell)


TEXTS = ["a\nb", "a\\nb", "a\\\nb", "C:\\dir\\new", "\\x1b", "\x1b[2J", "x\u202ey\\u202e", "\\", "\\\\n"]


def test_the_reversible_rule_reads_back():
    from warehouse.formats.escaping import reversible

    assert reversible("a\nb") == "a\\nb" and reversible("a\\nb") == "a\\\\nb"
    for text in TEXTS:
        assert _read_back(reversible(text)) == text, text


@pytest.mark.parametrize("fmt", ["csv", "tsv", "table"])
def test_sql_cells_read_back_as_they_were(fmt, seeded_db, irw):
    """`select 'a'||chr(10)||'b', 'a\\nb'` printed `a\\nb` for both in csv, tsv and the table."""
    columns = [f"c{i}" for i in range(len(TEXTS))]
    query = "select " + ", ".join(
        "'" + text.replace("'", "''").replace("\n", "' || chr(10) || '").replace("\x1b", "' || chr(27) || '")
        .replace("\u202e", "' || chr(8238) || '") + f"' as {name}" for text, name in zip(TEXTS, columns))
    result = irw("sql", query, "-f", fmt)
    assert result.exit_code == 0, result.stderr
    if fmt == "table":
        header, _rule, row = result.stdout.splitlines()
        starts = [header.index(name) for name in columns]
        cells = [row[start:end].rstrip() for start, end in zip(starts, [*starts[1:], None])]
    else:
        rows = list(csv.reader(io.StringIO(result.stdout), delimiter="," if fmt == "csv" else "\t"))
        assert rows[0] == columns
        cells = rows[1]
    assert [_read_back(cell) for cell in cells] == TEXTS, cells


def test_sql_help_has_no_line_break_inside_a_sentence():
    """`irw sql --help` broke "The result / file is written" across lines at any width."""
    result = subprocess.run([sys.executable, "-m", "warehouse", "sql", "--help"], capture_output=True, text=True,
                            env={**os.environ, "COLUMNS": "200"}, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "The rows are written by irw as they come (a file whole or not at all), never by the SQL." \
        in result.stdout, result.stdout


@pytest.mark.parametrize("spec", ["prec(k=10,k=20)", "prec(k=5)(k=20)", "P(rel=1,rel=2)@10"])
def test_an_argument_given_twice_is_refused_not_the_last_taken(spec, seeded_db, irw):
    """prec(k=10,k=20) evaluated k=20 and said nothing."""
    assert irw("measures", "add", ROOT / "examples" / "measures" / "precision_at_k.sql").exit_code == 0
    result = irw("eval", "-m", spec)
    assert result.exit_code == 2 and result.stdout == ""  # a measure name not understood: a usage error
    key = "rel" if spec.startswith("P(") else "k"
    assert result.stderr == f"Error: {spec}: {key} is given twice; give it once\n"


def test_edit_run_says_settings_as_text_not_python_reprs(seeded_db, irw):
    """`irw edit run` said "description 'x', was None" and parameters as a dict's repr."""
    described = irw("edit", "run", "tagA", "--description", "k1 tuned")
    assert described.exit_code == 0, described.stderr
    assert "run tagA: description 'k1 tuned', was none" in described.stderr
    tuned = irw("edit", "run", "tagA", "--param", "k1=0.9", "--param", "b=0.4")
    assert "run tagA: parameters b=0.4, k1=0.9, was none" in tuned.stderr
    assert "None" not in described.stderr + tuned.stderr and "{" not in tuned.stderr


def test_compare_says_which_measures_have_a_relevance_level_of_their_own_as_eval_does(conformance, tmp_path):
    """`irw eval -m 'prec(k=20,rel=2)'` printed "# prec(k=20,rel=2): relevant means grade >= 2" under
    its settings line; `irw compare` of the same measures did not, though its settings line said
    "relevant: grade >= 1"."""
    from conftest import dl19_with_measure

    irw, _ = dl19_with_measure(conformance, tmp_path, "prec", PREC.read_text())
    measures = ["-m", "AP(rel=2)", "-m", "prec(k=20,rel=2)", "-m", "nDCG@10"]
    evaluated, compared = irw("eval", *measures), irw("compare", *measures)
    assert evaluated.exit_code == compared.exit_code == 0, compared.stderr
    said = ["# AP(rel=2): relevant means grade >= 2", "# prec(k=20,rel=2): relevant means grade >= 2"]
    assert evaluated.stderr.splitlines()[1:3] == compared.stderr.splitlines()[1:3] == said


def test_trec_eval_says_where_a_users_own_measure_is_computed(conformance, tmp_path):
    """`irw trec-eval -m p5_g2` (a measure the user added to a warehouse) said only that trec-eval
    takes trec_eval's and ir_measures' names."""
    from conftest import Cli

    data = conformance / "dl19-passage"
    refused = Cli(tmp_path / "irw.duckdb")("trec-eval", "-m", "p5_g2", data / "qrels.dl19-passage.txt",
                                           data / "runs" / "run.dl19.BM25.txt", db=False)
    assert refused.exit_code == 1 and refused.stdout == ""  # trec_eval's "illegal measure"
    assert refused.stderr.endswith("`irw measures` lists both (a measure added with `irw measures add` is computed in "
                                   "its warehouse: `irw eval -m NAME`)\n"), refused.stderr
