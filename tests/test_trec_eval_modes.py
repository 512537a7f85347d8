"""trec_eval's other modes in `irw trec-eval`: -Z (z scores against reference runs), -N (documents in
the collection) and -o (accepted, no effect), held to trec_eval's own outputs in
../shared/conformance/trec_eval_test (out.test.aqZ is trec_eval 10.0's `-q -m all_trec -Z
zscores_file`; TESTS.md) and, for -N, to trec_eval's utility formula over its own printed counts.
"""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from conftest import CONFORMANCE
from warehouse import trec_eval
from warehouse.errors import InputFileError, UsageError
from warehouse.measures import FAMILIES

FOLDER = CONFORMANCE / "trec_eval_test"


def run(args: list[str], monkeypatch, cwd: Path = FOLDER) -> str:
    monkeypatch.chdir(cwd)
    out = io.StringIO()
    trec_eval.run(args, out)
    return out.getvalue()


def _lines_of(text: str, family: str, per_query: bool) -> str:
    """The lines of trec_eval output `text` that family prints (its Z name under -Z)."""
    out = []
    for line in text.splitlines(keepends=True):
        name, query, _ = line.split("\t")
        printed = name.rstrip(" ")
        if printed.startswith("Z"):
            printed = printed[1:]
        wanted = printed == family or (printed.startswith(family + "_") and printed[len(family) + 1:][:1].isdigit())
        if wanted and (per_query or query == "all"):
            out.append(line)
    return "".join(out)


ALL_TREC = [name for name in FAMILIES if name != "yaap"]


@pytest.mark.conformance
@pytest.mark.usefixtures("conformance")
@pytest.mark.parametrize("per_query", [False, True], ids=["summary", "-q"])
@pytest.mark.parametrize("family", ALL_TREC)
def test_zscores_of_every_measure_alone(family, per_query, monkeypatch):
    """-Z with each all_trec measure requested alone prints out.test.aqZ's lines of that measure."""
    expected = _lines_of((FOLDER / "out.test.aqZ").read_text(), family, per_query)
    assert expected or (family == "relstring" and not per_query), family
    args = ["--compat", "10", "-m", family, "-Z", "zscores_file", "qrels.test", "results.test"]
    assert run((["-q"] if per_query else []) + args, monkeypatch) == expected


@pytest.mark.conformance
@pytest.mark.usefixtures("conformance")
def test_zscores_with_other_options(monkeypatch):
    """-Z with -n (no summary), -o and -N (no effect on these measures) and in another order."""
    aqz = (FOLDER / "out.test.aqZ").read_text()
    per_query = "".join(line for line in aqz.splitlines(keepends=True) if "\tall\t" not in line)
    assert run(["--compat", "10", "-Z", "zscores_file", "-o", "-N", "100000", "-q", "-n", "-m", "all_trec",
                "qrels.test", "results.test"], monkeypatch) == per_query
    summary = "".join(line for line in aqz.splitlines(keepends=True) if "\tall\t" in line)
    assert run(["--compat", "10", "-mall_trec", "-Zzscores_file", "qrels.test", "results.test"],
               monkeypatch) == summary


@pytest.mark.conformance
@pytest.mark.usefixtures("conformance")
def test_zscores_of_a_query_or_measure_the_file_lacks(tmp_path, monkeypatch):
    """trec_eval prints -1000000 for a (query, measure) the file lacks, and for every measure of a
    query it lacks; a stddev of 0 gives 0 where the value equals the mean, else -1000000."""
    z = tmp_path / "z"
    z.write_text("301 map 0.0324 0\n301 P_5 0.5 0.25\n302 map 0 1\n")
    text = run(["-q", "-m", "map", "-m", "P.5", "-m", "num_q", "-Z", str(z), "qrels.test", "results.test"],
               monkeypatch)
    values = {(line.split("\t")[0].rstrip(), line.split("\t")[1]): line.split("\t")[2].strip()
              for line in text.splitlines()}
    # map of 301 is 0.0324 to four places but not exactly: stddev 0 and another value
    assert values[("Zmap", "301")] == "-1000000.0000"
    assert values[("ZP_5", "301")] == "-2.0000"          # (0.0 - 0.5) / 0.25
    assert values[("Zmap", "302")] == "0.4175"           # mean 0, stddev 1: the value (out.test.aq.v9)
    assert values[("ZP_5", "302")] == "-1000000.0000"    # the file lacks P_5 of 302
    assert values[("Zmap", "303")] == "-1000000.0000"    # the file lacks query 303
    assert values[("Znum_q", "all")] == "3.0000"
    assert float(values[("ZP_5", "all")]) == pytest.approx((-2.0 - 2 * 1000000.0) / 3, abs=1e-4)


@pytest.mark.parametrize("content, reason", [
    ("301 map 0.5\n", "expected `qid measure mean stddev` (4 fields), found 3"),
    ("301\n", "a measure's name and its mean and stddev are missing"),
    ("301 map 0.5 0.1\n301 map x 0.1\n", "mean and stddev must be numbers"),
    ("301 map 0.5 0.1\n301 map 0.4 0.1\n", "query 301 measure map was given on line 1 already"),
    ("", "the zscore file holds no line"),
])
def test_a_bad_zscore_file_is_one_error_naming_its_line(tmp_path, monkeypatch, content, reason):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1\n")
    run_file = tmp_path / "run"
    run_file.write_text("1 Q0 d1 1 1.0 r\n")
    z = tmp_path / "zscores"
    z.write_text(content)
    with pytest.raises(InputFileError) as error:
        run(["-Z", str(z), str(qrels), str(run_file)], monkeypatch, tmp_path)
    assert reason in str(error.value)
    assert str(error.value).startswith("zscores")


def _counts(text: str) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {}
    for line in text.splitlines():
        name, query, value = line.split("\t")
        if name.rstrip() in ("num_ret", "num_rel", "num_rel_ret") and query != "all":
            counts.setdefault(query, {})[name.rstrip()] = int(value)
    return counts


@pytest.mark.conformance
@pytest.mark.usefixtures("conformance")
@pytest.mark.parametrize("n", [0, 1000, 250000])
def test_num_docs_in_collection_reaches_utility(n, monkeypatch):
    """-N N: utility a,b,c,d is a r + b (n - r) + c (R - r) + d (N + r - n - R) (m_utility.c),
    checked over the counts trec_eval printed itself (out.test.aq.v9)."""
    counts = _counts((FOLDER / "out.test.aq.v9").read_text())
    a, b, c, d = 2, -1, 0.5, 0.25
    expected = {q: a * v["num_rel_ret"] + b * (v["num_ret"] - v["num_rel_ret"])
                + c * (v["num_rel"] - v["num_rel_ret"]) + d * (n + v["num_rel_ret"] - v["num_ret"] - v["num_rel"])
                for q, v in counts.items()}
    text = run(["-q", f"-N{n}", "-m", "utility.2,-1,0.5,0.25", "qrels.test", "results.test"], monkeypatch)
    lines = text.splitlines()
    assert lines == [f"{'utility_2,-1,0.5,0.25':<22}\t{q}\t{v:6.4f}" for q, v in sorted(expected.items())] + \
        [f"{'utility_2,-1,0.5,0.25':<22}\tall\t{sum(expected.values()) / 3:6.4f}"]


@pytest.mark.conformance
@pytest.mark.usefixtures("conformance")
@pytest.mark.parametrize("flags", [["-o"], ["-N", "1000000"], ["-o", "-N5"]], ids=" ".join)
def test_o_and_n_leave_every_other_measure_alone(flags, monkeypatch):
    """trec_eval 9.0.8 and 10.0 accept -o ("obsolete, no longer supported") and change nothing;
    -N changes only utility, whose default coefficient d is 0."""
    expected = (FOLDER / "out.test.aq.v9").read_text()
    assert run([*flags, "-q", "-m", "all_trec", "qrels.test", "results.test"], monkeypatch) == expected


def test_num_docs_is_a_whole_number_from_0(tmp_path, monkeypatch):
    with pytest.raises(UsageError, match="-N takes the number of documents"):
        run(["-N", "-3", "q", "r"], monkeypatch, tmp_path)
    with pytest.raises(UsageError):
        run(["-N", "x", "q", "r"], monkeypatch, tmp_path)
