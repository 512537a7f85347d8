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
from warehouse.commands import trec_eval
from warehouse.errors import InputFileError, UsageError
from warehouse.evaluation.measures import FAMILIES

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
def test_zscores_with_c_count_the_queries_a_run_lacks_as_trec_eval_does(monkeypatch):
    """-Z with -c: trec_eval converts the queries it evaluates, and -c's average then counts the
    qrels' other queries as 0 (log 1e-5 for gm_map) and replaces num_rel's sum by the qrels' count.
    results.trunc answers 301 and 303 of qrels.test's three queries. irw z-scored the zeros of the
    query -c adds: Zndcg_cut_10 -0.8703, Znum_rel 0.0000. The lines are trec_eval 9.0.8's for
    this command (its library, as pytrec_eval builds it), which out.test.* holds none of."""
    args = ["-c", "-Z", "zscores_file", "-m", "ndcg_cut.10", "-m", "num_rel", "-m", "gm_map", "-m", "success.5000",
            "-m", "num_q", "qrels.test", "results.trunc"]
    assert run(args, monkeypatch) == ("Znum_q                 \tall\t3.0000\n"
                                      "Znum_rel               \tall\t561.0000\n"
                                      "Zgm_map                \tall\t0.0000\n"
                                      "Zndcg_cut_10           \tall\t0.0516\n"
                                      "Zsuccess_5000          \tall\t-666666.6667\n")
    assert run(["-q", *args[:5], "qrels.test", "results.trunc"], monkeypatch) == (
        "Zndcg_cut_10           \t301\t-0.8903\n"
        "Zndcg_cut_10           \t303\t1.0452\n"
        "Zndcg_cut_10           \tall\t0.0516\n")  # (-0.8903 + 1.0452) / 3


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
    z = tmp_path / "z" / "zscores.txt"
    z.parent.mkdir()
    z.write_text(content)
    with pytest.raises(InputFileError) as error:
        run(["-Z", str(z), str(qrels), str(run_file)], monkeypatch, tmp_path)
    assert reason in str(error.value)
    # the path as given (it was once shown as a run's name, "zscores", without its folder or suffix)
    assert str(error.value).startswith(f"{z}:")


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


# -- judgment groups (-R qrels_jg) -------------------------------------------------------------

JG = ["map_avgjg", "P_avgjg", "Rprec_mult_avgjg"]


@pytest.mark.conformance
@pytest.mark.usefixtures("conformance")
@pytest.mark.parametrize("qrels", ["qrels.123", "qrels.comments.123"])
@pytest.mark.parametrize("compat", ["9", "10"])
def test_judgment_groups_print_trec_eval_lines(qrels, compat, monkeypatch):
    """out.test.qrels_jg: `-m qrels_jg -q -R qrels_jg` over qrels.123 (TESTS.md: also qrels.comments.123);
    -m qrels_jg is also the default of -R qrels_jg."""
    expected = (FOLDER / "out.test.qrels_jg").read_text()
    args = ["--compat", compat, "-q", "-R", "qrels_jg", qrels, "results.test"]
    assert run(["-m", "qrels_jg", *args], monkeypatch) == expected
    assert run(args, monkeypatch) == expected


@pytest.mark.conformance
@pytest.mark.usefixtures("conformance")
@pytest.mark.parametrize("per_query", [False, True], ids=["summary", "-q"])
@pytest.mark.parametrize("measure,names", [
    *((family, None) for family in JG),
    ("P_avgjg.5,1000", ["P_avgjg_5", "P_avgjg_1000"]),
    ("Rprec_mult_avgjg.0.2,2.0", ["Rprec_mult_avgjg_0.20", "Rprec_mult_avgjg_2.00"]),
])
def test_every_judgment_group_measure_alone(measure, names, per_query, monkeypatch):
    text = (FOLDER / "out.test.qrels_jg").read_text()
    if names is None:
        expected = _lines_of(text, measure, per_query)
    else:
        expected = "".join(line for line in text.splitlines(keepends=True)
                           if line.split("\t")[0].rstrip() in names and (per_query or "\tall\t" in line))
    assert expected
    args = ["-m", measure, "-R", "qrels_jg", "qrels.123", "results.test"]
    assert run((["-q"] if per_query else []) + args, monkeypatch) == expected


def test_judgment_groups_by_hand(tmp_path, monkeypatch):
    """Two groups judge query 1 apart: d1 relevant for u1, d2 and d3 for u2; the run ranks d1 d2 d3.
    map_avgjg = (AP_u1 + AP_u2) / 2 = (1 + (1/2 + 2/3) / 2) / 2; P_avgjg_1 = (1 + 0) / 2;
    Rprec_mult_avgjg_1.00 = (P@1 for u1 + P@2 for u2) / 2 = (1 + 1/2) / 2. A query of one group
    (2) scores as plain AP."""
    (tmp_path / "jg").write_text("1 u1 d1 1\n1 u1 d2 0\n1 u2 d1 0\n1 u2 d2 1\n1 u2 d3 2\n2 u1 d1 1\n")
    (tmp_path / "run").write_text("1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n1 Q0 d3 3 1 r\n2 Q0 d9 1 2 r\n2 Q0 d1 2 1 r\n")
    text = run(["-q", "-m", "map_avgjg", "-m", "P_avgjg.1", "-m", "Rprec_mult_avgjg.1.0", "-R", "qrels_jg",
                "jg", "run"], monkeypatch, tmp_path)
    values = {(line.split("\t")[0].rstrip(), line.split("\t")[1]): float(line.split("\t")[2])
              for line in text.splitlines()}
    assert values[("map_avgjg", "1")] == pytest.approx((1 + (1 / 2 + 2 / 3) / 2) / 2, abs=5e-5)
    assert values[("P_avgjg_1", "1")] == 0.5
    assert values[("Rprec_mult_avgjg_1.00", "1")] == pytest.approx(0.75, abs=5e-5)
    assert values[("map_avgjg", "2")] == 0.5


def test_a_measure_of_another_format_is_refused_by_name(tmp_path, monkeypatch):
    (tmp_path / "jg").write_text("1 u1 d1 1\n")
    (tmp_path / "run").write_text("1 Q0 d1 1 3 r\n")
    from warehouse.errors import MeasureError

    with pytest.raises(MeasureError, match=r"map, P read TREC qrels .* not judgment groups \(-R qrels_jg\): give "
                                           r"-R qrels .* or with -R qrels_jg ask for -m qrels_jg"):
        run(["-R", "qrels_jg", "-m", "map", "-m", "P.5", "jg", "run"], monkeypatch, tmp_path)
    with pytest.raises(UsageError, match="take no -J here"):
        run(["-R", "qrels_jg", "-J", "jg", "run"], monkeypatch, tmp_path)
    with pytest.raises(UsageError):
        run(["-R", "qrels_other", "jg", "run"], monkeypatch, tmp_path)


# -- preference judgments (-R prefs, -R qrels_prefs) ------------------------------------------

from warehouse.evaluation.measures import PREFS_FAMILIES  # noqa: E402

PREFS_CASES = {"prefs": ("out.test.prefs", "prefs.test", "prefs.results.test"),
               "prefs-comments": ("out.test.prefs", "prefs.comment.test", "prefs.results.test"),
               "qrels_prefs": ("out.test.qrels_prefs", "qrels.test", "results.test")}


def _prefs_args(case: str) -> list[str]:
    _, judgments, results = PREFS_CASES[case]
    return ["-R", "qrels_prefs" if case == "qrels_prefs" else "prefs", judgments, results]


@pytest.mark.conformance
@pytest.mark.usefixtures("conformance")
@pytest.mark.parametrize("compat", ["9", "10"])
@pytest.mark.parametrize("case", list(PREFS_CASES))
def test_all_prefs_prints_trec_eval_lines(case, compat, monkeypatch):
    """out.test.prefs (prefs.test, and prefs.comment.test as TESTS.md says) and
    out.test.qrels_prefs; -m all_prefs is also the default of -R prefs."""
    expected = (FOLDER / PREFS_CASES[case][0]).read_text()
    assert run(["--compat", compat, "-m", "all_prefs", "-q", *_prefs_args(case)], monkeypatch) == expected
    assert run(["--compat", compat, "-q", *_prefs_args(case)], monkeypatch) == expected


@pytest.mark.conformance
@pytest.mark.usefixtures("conformance")
@pytest.mark.parametrize("case, per_query", [("prefs", False), ("prefs", True), ("qrels_prefs", True)],
                         ids=["prefs-summary", "prefs-q", "qrels_prefs-q"])
@pytest.mark.parametrize("family", list(PREFS_FAMILIES))
def test_every_prefs_measure_alone(family, case, per_query, monkeypatch):
    """Each all_prefs measure requested alone prints its lines of trec_eval's output (the -q lines
    of qrels_prefs end with its summary line, so the summary path is held there too)."""
    text = (FOLDER / PREFS_CASES[case][0]).read_text()
    expected = "".join(line for line in text.splitlines(keepends=True)
                       if line.split("\t")[0].rstrip() == family and (per_query or "\tall\t" in line))
    assert expected
    assert run((["-q"] if per_query else []) + ["-m", family, *_prefs_args(case)], monkeypatch) == expected


@pytest.mark.conformance
@pytest.mark.usefixtures("conformance")
def test_prefs_with_a_depth_and_zscores(tmp_path, monkeypatch):
    """-M counts only the first documents (each retrieved as far as -M 1 leaves it: one per query);
    -Z converts prefs values as any (mean 0, stddev 1: the value itself)."""
    text = run(["-q", "-M", "1", "-m", "prefs_num_prefs_ful_ret", *_prefs_args("prefs")], monkeypatch)
    assert {line.split("\t")[2] for line in text.splitlines() if "\tall\t" not in line} == {"0"}
    z = tmp_path / "z"
    z.write_text("21.EC.cb prefs_simp 0 1\n")
    text = run(["-q", "-m", "prefs_simp", "-Z", str(z), *_prefs_args("prefs")], monkeypatch)
    assert "Zprefs_simp            \t21.EC.cb\t0.4000\n" in text
    assert "Zprefs_simp            \t22.EC.c3l\t-1000000.0000\n" in text


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("content, reason", [
    ("1 g s d1 2\n1 g s d2 1\n1 g t d2 3\n1 g t d1 1\n",
     "prefs:1: judgment group g of query 1 prefers documents to themselves (d1, d2): its sub-groups form a cycle"),
    ("1 g s d1 2\n1 g s\n", "2: expected 5 fields (qid jg jsg docid rel_level, trec_eval -R prefs), found 3"),
    ("1 g s d1 2\n1 g s d2 high\n", "2: rel_level high is not a number >= 0"),
    ("1 g s d1 2\n1 g s d2 -1\n", "2: rel_level -1 is not a number >= 0"),
    ("1 g s d1 2\n1 g s d1 1\n", "2: document d1 is rated twice in sub-group s of judgment group g of query 1"),
    ("1 g s d1 2\n1 g s d2 0\n1 g t d2 1\n1 g t d3 0\n",
     "3: document d2 of query 1 is rated 0 (non-relevant) and above 0 in judgment group g (lines 2 and 3)"),
])
def test_a_bad_prefs_file_is_one_error_naming_its_line(tmp_path, monkeypatch, content, reason):
    judgments = _write(tmp_path, "prefs", content)
    run_file = _write(tmp_path, "run", "1 Q0 d1 1 2 r\n1 Q0 d2 2 1 r\n")
    with pytest.raises(InputFileError) as error:
        run(["-R", "prefs", str(judgments), str(run_file)], monkeypatch, tmp_path)
    assert reason in str(error.value)


def test_transitive_preferences_by_hand(tmp_path, monkeypatch):
    """One user (g) says d1 > d2 in sub-group s and d2 > d3 in t: three preferences, d1 > d3
    included. The run ranks d3 d1 d2: d1 > d2 is fulfilled, d1 > d3 and d2 > d3 are not."""
    judgments = _write(tmp_path, "prefs", "1 g s d1 2\n1 g s d2 1\n1 g t d2 2\n1 g t d3 1\n")
    run_file = _write(tmp_path, "run", "1 Q0 d3 1 3 r\n1 Q0 d1 2 2 r\n1 Q0 d2 3 1 r\n")
    text = run(["-q", "-m", "prefs_num_prefs_poss", "-m", "prefs_num_prefs_ful", "-m", "prefs_simp", "-R", "prefs",
                str(judgments), str(run_file)], monkeypatch, tmp_path)
    values = {line.split("\t")[0].rstrip(): line.split("\t")[2] for line in text.splitlines() if "\t1\t" in line}
    assert values == {"prefs_num_prefs_poss": "3", "prefs_num_prefs_ful": "1", "prefs_simp": "0.3333"}


def test_prefs_measures_need_preference_judgments(tmp_path, monkeypatch):
    from warehouse.errors import MeasureError

    qrels = _write(tmp_path, "qrels", "1 0 d1 1\n")
    run_file = _write(tmp_path, "run", "1 Q0 d1 1 2 r\n")
    with pytest.raises(MeasureError, match=r"prefs_simp reads preference judgments \(-R prefs or -R qrels_prefs\), "
                                           r"not TREC qrels \(-R qrels\): give -R prefs"):
        run(["-m", "prefs_simp", str(qrels), str(run_file)], monkeypatch, tmp_path)


@pytest.mark.conformance
@pytest.mark.usefixtures("conformance")
def test_num_docs_as_a_stored_setting(irw, monkeypatch):
    """irw eval --num-docs N stores utility under its own settings: the value without it stays,
    and each equals irw trec-eval's with the same -N."""
    assert irw("ingest", "qrels", str(FOLDER / "qrels.test"), "--name", "t").exit_code == 0
    assert irw("ingest", "run", str(FOLDER / "results.test"), "--name", "full").exit_code == 0

    def stored(*extra: str) -> str:
        result = irw("eval", "full", "--qrels", "t", "-m", "utility.1,-1,0,2", "--format", "csv", *extra)
        assert result.exit_code == 0, result.stderr
        return result.stdout.splitlines()[1].split(",")[2]

    def printed(n: str) -> str:
        line = run([f"-N{n}", "-m", "utility.1,-1,0,2", "qrels.test", "results.test"], monkeypatch)
        return line.split("\t")[2].strip()

    with_n, without = stored("--num-docs", "1000"), stored()
    assert f"{float(with_n):.4f}" == printed("1000") == "300.6667"
    assert f"{float(without):.4f}" == printed("0") == "-1699.3333"
    assert stored("--num-docs", "1000") == with_n
