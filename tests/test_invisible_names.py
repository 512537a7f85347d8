"""Names that differ only by an invisible character (a zero-width space, a soft hyphen, a BOM, a
word joiner, a combining grapheme joiner, a Hangul filler) printed alike in `irw runs`, eval,
reports and pages, and a soft hyphen moved the columns after it. They are shown escaped as bidi
controls are (warehouse/formats/escaping.py), while emoji and the scripts that need a joiner or a
variation selector keep them. And a name in a message is spelled one way, the name asked for as
the names listed: `no run named 'a\\\\tb'` with the stored `a\\tb` listed bare read as two spellings
of one name, and a run named `a,b"c` blended into the list."""
from __future__ import annotations

import json
import unicodedata

import pytest

from conftest import Cli, write_file
from warehouse.evaluation.user_measures import MeasureFileError, parse_definition
from warehouse.formats.cells import listed_name, said_name, said_value
from warehouse.formats.escaping import reversible, shown

INVISIBLE = {"BM\u200b25": "BM\\u200b25", "BM\u00ad25": "BM\\xad25", "BM25\ufeff": "BM25\\ufeff",
             "BM\u206025": "BM\\u206025", "BM\u034f25": "BM\\u034f25"}
# Default_Ignorable_Code_Point characters of other categories than Cf (Unicode's DerivedCoreProperties)
IGNORABLE_NOT_CF = ["\u034f", "\u115f", "\u1160", "\u17b4", "\u17b5", "\u180b", "\u180c", "\u180d", "\u180f",
                    "\u3164", "\ufe00", "\ufe0f", "\uffa0", "\ufff0", "\U000e0000", "\U000e0100", "\U000e01ef",
                    "\U000e0fff"]


def _run_lines(tag: str) -> str:
    return "".join(f"{q} Q0 d{i} {i} {3 - i}.5 {tag}\n" for q in ("q1", "q2") for i in (1, 2))


def test_invisible_characters_are_shown_escaped():
    for name, escaped in INVISIBLE.items():
        assert shown(name) == escaped
    for filler in ("\u115f", "\u1160", "\u3164", "\uffa0"):
        assert shown(f"a{filler}b") == f"a\\u{ord(filler):04x}b"
    # a joiner or a variation selector where it joins or selects nothing is as invisible
    assert shown("BM\u200d25") == "BM\\u200d25" and shown("BM\u200c25") == "BM\\u200c25"
    assert shown("BM\ufe0f25") == "BM\\ufe0f25" and shown("\u2764\u200d") == "\u2764\\u200d"
    assert shown("\u200d\U0001f469") == "\\u200d\U0001f469" and shown("\U0001f468\u200d\u200d\U0001f469") == \
        "\U0001f468\\u200d\\u200d\U0001f469"
    # tag characters (ASCII hidden in plain sight) outside an emoji flag: 5 hex digits need \U
    assert shown("run\U000e0041\U000e0042") == "run\\U000e0041\\U000e0042"
    assert shown("\U0001f3f4\U000e0067\U000e0062") == "\U0001f3f4\\U000e0067\\U000e0062"  # no cancel tag


def test_every_format_and_default_ignorable_character_is_escaped():
    chars = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf"] + IGNORABLE_NOT_CF
    for char in chars:
        text = shown(f"a{char}b")
        assert text.isascii() and text != f"a{char}b", hex(ord(char))


def test_emoji_and_joining_scripts_keep_their_joiners_and_selectors():
    kept = ["\u2764\ufe0f", "\U0001f468\u200d\U0001f469\u200d\U0001f467", "\U0001f3f3\ufe0f\u200d\U0001f308",
            "1\ufe0f\u20e3", "#\ufe0f\u20e3", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
            "\u0915\u094d\u200d\u0937", "\u845b\U000e0100",
            "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
            "\U0001f9d1\U0001f3fd\u200d\U0001f4bb"]
    for text in kept:
        assert shown(text) == text, ascii(text)
        assert shown(f"run {text} 2") == f"run {text} 2", ascii(text)


def test_a_name_in_a_message_is_spelled_one_way():
    assert said_name("BM25") == "'BM25'" and listed_name("BM25") == "BM25"
    assert said_name("a\\tb") == listed_name("a\\tb") == "'a\\\\tb'"
    assert said_name("a\tb") == listed_name("a\tb") == "'a\\tb'"
    assert said_name("it's") == listed_name("it's") == "'it\\'s'"
    assert said_name('a,b"c') == listed_name('a,b"c') == "'a,b\"c'"
    assert listed_name("acme nightly") == "'acme nightly'" and listed_name("BM\u200b25") == "'BM\\u200b25'"
    assert listed_name("-rf") == "-rf" and listed_name("検索-v1") == "検索-v1"
    assert said_value("C:\\runs") == said_name("C:\\runs") and said_value("first try") == "'first try'"


@pytest.fixture
def named_runs(tmp_path):
    irw = Cli(tmp_path / "w.duckdb")
    assert irw("ingest", "qrels", write_file(tmp_path, "q.txt", "q1 0 d1 1\nq2 0 d2 1\n"), "--name", "q").exit_code == 0
    names = ["BM25", *INVISIBLE, "a\\tb", "a\tb", 'a,b"c', "it's", "\u2764\ufe0f"]
    for i, name in enumerate(names):
        result = irw("ingest", "run", write_file(tmp_path, f"r{i}.txt", _run_lines("t")), "--name", name,
                     "--system", name)
        assert result.exit_code == 0, result.stderr
    return irw, names


def test_runs_differing_by_an_invisible_character_look_different(named_runs, tmp_path):
    irw, names = named_runs
    for argv in (["runs"], ["eval", "-m", "AP"]):
        result = irw(*argv)
        assert result.exit_code == 0, result.stderr
        header, rule, *rows = result.stdout.splitlines()
        firsts = [row.split("  ")[0].strip() for row in rows]
        assert sorted(firsts) == sorted(reversible(name) for name in names), firsts
        assert all(escaped in firsts for escaped in INVISIBLE.values())
        # an escaped name is ASCII, a character a column: rows of the same cells are as wide (a soft
        # hyphen, drawn or not by the terminal, moved the columns after it by one)
        assert len({len(row) for row in rows if row.isascii()}) == 1, (argv, result.stdout)
    csv = irw("eval", "-m", "AP", "--format", "csv").stdout
    assert all(escaped in csv for escaped in INVISIBLE.values()) and "\u2764\ufe0f" in csv
    markdown = irw("report", "leaderboard", "--qrels", "q", "-m", "AP", "--format", "markdown").stdout
    assert all(escaped.replace("\\", "\\\\") in markdown for escaped in INVISIBLE.values()), markdown
    page = tmp_path / "lb.html"
    assert irw("report", "leaderboard", "--qrels", "q", "-m", "AP", "-o", page).exit_code == 0
    html = page.read_text(encoding="utf-8")
    assert all(escaped in html for escaped in INVISIBLE.values()) and "\u200b" not in html
    # JSON keeps the exact text
    rows = json.loads(irw("eval", "-m", "AP", "--format", "json").stdout)
    text = json.dumps(rows, ensure_ascii=False)
    assert all(json.dumps(name, ensure_ascii=False)[1:-1] in text for name in INVISIBLE)


def test_an_error_spells_the_name_asked_for_as_the_names_it_lists(named_runs):
    irw, _ = named_runs
    backslash = irw("eval", "-m", "AP", "a\\tbc")
    assert "Error: no run named 'a\\\\tbc'; did you mean 'a\\\\tb'? " in backslash.stderr, backslash.stderr
    tab = irw("eval", "-m", "AP", "a\tbc")
    assert "Error: no run named 'a\\tbc'; did you mean 'a\\tb'? " in tab.stderr, tab.stderr
    pattern = irw("eval", "-m", "AP", "zz*")
    listed = pattern.stderr.split("stored runs: ", 1)[1]
    for spelled in ("'a\\\\tb'", "'a\\tb'", "'a,b\"c'", "'it\\'s'", "'BM\\u200b25'", "BM25, "):
        assert spelled in listed, (spelled, pattern.stderr)
    assert "Error: no stored run matches 'zz*'" in pattern.stderr
    system = irw("eval", "-m", "AP", "--system", "a,b")
    assert system.stderr.startswith("Error: no stored run is of system 'a,b'; ") and "'a,b\"c'" in system.stderr


def test_the_measure_name_rule_says_ascii_letters():
    with pytest.raises(MeasureFileError, match="ASCII letters"):
        parse_definition("-- measure: \u00fc_m\u00e9\n-- parameters: none\n-- aggregate: mean\nselect 1\n", "m.sql")
