"""`irw trec-eval -m NAME` for EVERY measure trec_eval 9.0.8 accepts, each requested alone (and
with -q), prints trec_eval's own lines for it: the lines of trec_eval's `-m all_trec -q` output on
DL19 (../shared/conformance/dl19-passage/expected_*.v9.txt) that carry its names, byte for byte.

trec_eval prints a measure requested with a parameter list under the name plus that list as typed
(meas_init.c appends the printable parameters: `set_F.0.5` -> `set_F_0.5`, `utility.2,-1,0,0` ->
`utility_2,-1,0,0`); where such a list gives the default value, the values are all_trec's.
"""
from __future__ import annotations

import io

import pytest

from warehouse.commands import trec_eval
from conftest import conformance_params
from warehouse.evaluation.measures import FAMILIES

RUN = "BM25"

# (-m argument, {name trec_eval prints: name of the all_trec line holding its values})
CASES: list[tuple[str, dict[str, str] | None]] = [
    *((name, None) for name in FAMILIES),  # every measure alone (rbp, rbp_resid and unj: 10.0 only)
    ("P.5,10", {"P_5": "P_5", "P_10": "P_10"}),
    ("P.10", {"P_10": "P_10"}),
    ("recall.1000", {"recall_1000": "recall_1000"}),
    ("relative_P.5", {"relative_P_5": "relative_P_5"}),
    ("success.1,10", {"success_1": "success_1", "success_10": "success_10"}),
    ("ndcg_cut.10", {"ndcg_cut_10": "ndcg_cut_10"}),
    ("map_cut.100", {"map_cut_100": "map_cut_100"}),
    ("iprec_at_recall.0.5", {"iprec_at_recall_0.50": "iprec_at_recall_0.50"}),
    ("iprec_at_recall..10,.20", {"iprec_at_recall_0.10": "iprec_at_recall_0.10",
                                 "iprec_at_recall_0.20": "iprec_at_recall_0.20"}),
    ("Rprec_mult.1.0", {"Rprec_mult_1.00": "Rprec_mult_1.00"}),
    ("set_F.1.0", {"set_F_1.0": "set_F"}),
    ("set_F.1", {"set_F_1": "set_F"}),
    ("utility.1,-1,0,0", {"utility_1,-1,0,0": "utility"}),
    ("11pt_avg.0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0",
     {"11pt_avg_0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0": "11pt_avg"}),
    ("ndcg.1=1", {"ndcg_1=1": "ndcg"}),
    ("G.1=1,2=2", {"G_1=1,2=2": "G"}),
    ("ndcg_rel.3=3", {"ndcg_rel_3=3": "ndcg_rel"}),
    ("Rndcg.2=2", {"Rndcg_2=2": "Rndcg"}),
    ("relstring.10", {"relstring": "relstring"}),  # 9.0.8 reads no relstring parameter (out.test.aql.v9)
    ("rbp.1=1", {"rbp_1=1": "rbp"}),
    ("unj.5", {"unj_5": "unj_5"}),
]
# (trec_eval -l, version): the expected files there are for DL19
OPTIONS = [(1, 9), (2, 9), (1, 10)]


def _expected(conformance, names: dict[str, str] | None, measure: str, per_query: bool, level: int,
              version: int) -> str:
    if version == 10 and names is not None and measure.startswith("relstring"):
        names = {"relstring_10": "relstring"}  # 10.0 reads the parameter and prints it
    suffix = f".q{'.l2' if level == 2 else ''}.v{version}.txt"
    lines = (conformance / "dl19-passage" / f"expected_run.dl19.{RUN}.all_trec{suffix}").read_text() \
        .splitlines(keepends=True)
    out = []
    for line in lines:
        name, query, value = line.split("\t")
        printed = name.rstrip(" ")
        if names is None:
            family = measure
            wanted = printed == family or (printed.startswith(family + "_") and printed[len(family) + 1:][:1].isdigit())
            new = printed
        else:
            reverse = {v: k for k, v in names.items()}
            wanted, new = printed in reverse, reverse.get(printed)
        if wanted and (per_query or query == "all"):
            out.append(f"{new:<22}\t{query}\t{value}")
    return "".join(out)


@pytest.mark.parametrize("level,version", OPTIONS, ids=[f"l{level}-v{version}" for level, version in OPTIONS])
@pytest.mark.parametrize("per_query", [False, True], ids=["summary", "-q"])
@pytest.mark.parametrize("measure,names", CASES, ids=[c[0] for c in CASES])
def test_every_measure_alone_prints_trec_eval_lines(measure, names, per_query, level, version, conformance,
                                                    monkeypatch):
    family = FAMILIES[measure.partition(".")[0]]
    if family.v10_only and version == 9:
        pytest.skip("a trec_eval 10.0 measure")
    folder = conformance / "dl19-passage"
    monkeypatch.chdir(folder)
    expected = _expected(conformance, names, measure, per_query, level, version)
    assert expected or measure.startswith("relstring") and not per_query  # relstring prints only with -q
    out = io.StringIO()
    trec_eval.run([*(["-q"] if per_query else []), "-l", str(level), "--compat", str(version), "-m", measure,
                   "qrels.dl19-passage.txt", f"runs/run.dl19.{RUN}.txt"], out)
    assert out.getvalue() == expected


@pytest.mark.parametrize("per_query", [False, True], ids=["summary", "-q"])
def test_set_F_with_a_parameter_prints_it(per_query, conformance, monkeypatch):
    """`-m set_F.0.5` prints `set_F_0.5` (trec_eval appends the parameters as typed); its values are
    (x + 1) P R / (x P + R) of the set_P and set_recall trec_eval printed (to their 4 digits)."""
    folder = conformance / "dl19-passage"
    monkeypatch.chdir(folder)
    found: dict[tuple[str, str], float] = {}
    for line in (folder / f"expected_run.dl19.{RUN}.all_trec.q.v9.txt").read_text().splitlines():
        name, query, value = line.split("\t")
        if name.rstrip() in ("set_P", "set_recall", "set_F"):
            found[(name.rstrip(), query)] = float(value)
    out = io.StringIO()
    trec_eval.run([*(["-q"] if per_query else []), "-m", "set_F.0.5", "qrels.dl19-passage.txt",
                   f"runs/run.dl19.{RUN}.txt"], out)
    lines = out.getvalue().splitlines()
    assert len(lines) == (44 if per_query else 1) and all(line.startswith("set_F_0.5             \t") for line in lines)
    for line in lines:
        _, query, value = line.split("\t")
        if query == "all":
            continue
        p, r = found[("set_P", query)], found[("set_recall", query)]
        assert float(value) == pytest.approx(1.5 * p * r / (0.5 * p + r) if p + r else 0.0, abs=2e-3)
        assert float(value) != found[("set_F", query)] or p == r


def test_binG_alone_is_evaluated_in_a_warehouse(conformance, tmp_path):
    """`irw eval -m binG` alone read sql/eval/06_gains.sql's tables, built only for G and the nDCG
    families ("Table eval_gain_schemes does not exist"): alone it equals trec_eval's all_trec."""
    import warehouse

    folder = conformance / "dl19-passage"
    expected = {line.split("\t")[1]: float(line.split("\t")[2]) for line in
                (folder / f"expected_run.dl19.{RUN}.all_trec.q.v9.txt").read_text().splitlines()
                if line.startswith("binG ")}
    with warehouse.open(tmp_path / "irw.duckdb") as wh:
        wh.ingest_qrels(folder / "qrels.dl19-passage.txt", "dl19")
        wh.ingest_run(folder / "runs" / f"run.dl19.{RUN}.txt", RUN)
        evaluation = wh.evaluate(RUN, "dl19", "binG", per_query=True)
    assert {q: round(v, 4) for _, q, _, v in evaluation.per_query.rows} == \
        {q: v for q, v in expected.items() if q != "all"}
    assert round(evaluation.summary.rows[0][2], 4) == expected["all"]


@pytest.mark.postgres
def test_binG_alone_on_postgresql(conformance, postgres_url):
    import warehouse

    folder = conformance / "dl19-passage"
    expected = [line for line in (folder / f"expected_run.dl19.{RUN}.all_trec.q.v9.txt").read_text().splitlines()
                if line.startswith("binG ") and line.endswith("\t") is False and "\tall\t" in line]
    with warehouse.open(postgres_url) as wh:
        wh.ingest_qrels(folder / "qrels.dl19-passage.txt", "dl19")
        wh.ingest_run(folder / "runs" / f"run.dl19.{RUN}.txt", RUN)
        evaluation = wh.evaluate(RUN, "dl19", ["binG"])
    assert f"{evaluation.summary.rows[0][2]:6.4f}" == expected[0].split("\t")[2]


BIG = 2147483647  # the largest 32-bit grade


def _rbp(gains: list[float | None], p: float = 0.9) -> float:
    return (1 - p) * sum(g * p ** r for r, g in enumerate(gains) if g is not None)


def test_a_grade_of_2_to_the_31_minus_1_is_evaluated_exactly(tmp_path):
    """rbp listed every grade 0 .. the highest judged (2^31 rows, and "Overflow in addition of
    INT32" first): its gains are normalised by the highest grade, checked here from its definition;
    all_trec under 10.0 and 9.0.8 runs."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(f"1 0 d1 {BIG}\n1 0 d2 1\n1 0 d3 0\n2 0 d1 1\n2 0 d2 5\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n1 Q0 d4 3 1 r\n2 Q0 d2 1 2 r\n2 Q0 d1 2 1 r\n")
    q1 = _rbp([1.0, 1 / BIG])
    q2 = _rbp([1.0, 1 / 5])
    # mapped: grades 0 .. top unmapped gain themselves; query 2's gains {0, 3, 4, 5, 9}, query 1's top is BIG
    m1 = _rbp([1.0, 3 / BIG])
    m2 = _rbp([5 / 9, 3 / 9])
    for spec, name, values in (("rbp", "rbp", (q1, q2)), ("rbp.1=3,2=9", "rbp_1=3,2=9", (m1, m2))):
        out = io.StringIO()
        trec_eval.run(["-q", "--compat", "10", "-m", spec, str(qrels), str(run)], out)
        assert out.getvalue() == f"{name:<22}\t1\t{values[0]:6.4f}\n{name:<22}\t2\t{values[1]:6.4f}\n" \
            f"{name:<22}\tall\t{sum(values) / 2:6.4f}\n"
    for compat in ("9", "10"):
        out = io.StringIO()
        trec_eval.run(["--compat", compat, "-m", "all_trec", str(qrels), str(run)], out)
        assert "num_rel_ret           \tall\t4\n" in out.getvalue()


def _multi_collection_commands() -> list:
    from conftest import CONFORMANCE

    commands = (CONFORMANCE / "multi-collection" / "expected" / "COMMANDS.txt").read_text().splitlines()
    cases = []
    for command in commands:
        args, _, output = command.partition(" > ")
        argv = args.split()[1:]  # trec_eval's own arguments
        cases.append(pytest.param(argv, output.strip(), id=output.strip().removeprefix("expected/")))
    return cases


@pytest.mark.parametrize("argv,output", conformance_params(_multi_collection_commands, 2))
def test_multi_collection_files_byte_for_byte(argv, output, conformance, monkeypatch):
    """Every command of multi-collection/expected/COMMANDS.txt (trec_eval 9.0.8 on three collections,
    `-M 10 -J` among them: relstring shows the judged documents of the top 10 only, and a query -J
    empties prints trec_eval's `-nan`) prints the file it made, byte for byte."""
    folder = conformance / "multi-collection"
    monkeypatch.chdir(folder)
    out = io.StringIO()
    trec_eval.run(argv, out)
    assert out.getvalue() == (folder / output).read_text()


def test_nan_prints_as_trec_eval_prints_it_from_python_too(conformance, monkeypatch):
    """Where the -q lines are formatted in Python (Spark, or a value missing from the SQL's lines),
    a NaN prints `  -nan` as well."""
    folder = conformance / "multi-collection"
    monkeypatch.chdir(folder)
    monkeypatch.setattr(trec_eval, "_per_query_text", lambda *a, **k: None)
    out = io.StringIO()
    trec_eval.run(["-M", "10", "-J", "-q", "-m", "iprec_at_recall.0", "qrels/qrels.beir-v1.0.0-trec-news.test.txt",
                   "runs/SPLADE_P_P_ENSEMBLE_DISTIL/trec_results_news.txt"], out)
    assert "iprec_at_recall_0.00  \t846\t  -nan\n" in out.getvalue()
    assert out.getvalue().endswith("iprec_at_recall_0.00  \tall\t  -nan\n")


@pytest.mark.parametrize("name,printed", [("SetF", "set_F"), ("SetF(beta=0.5)", "set_F_0.5"), ("nDCG", "ndcg"),
                                          ("MAP", "map"), ("MRR@10", "recip_rank_cut_10")])
def test_ir_measures_names_print_as_their_trec_eval_spelling_does(name, printed, conformance, monkeypatch):
    """An ir_measures name prints what trec_eval prints for its -m spelling: SetF is -m set_F, SetF(beta=0.5)
    is -m set_F.0.5; an alias is its measure (MRR@10 is irw's RR@10, recip_rank_cut_10)."""
    folder = conformance / "dl19-passage"
    monkeypatch.chdir(folder)
    out = io.StringIO()
    argv = ["-m", name, "qrels.dl19-passage.txt", f"runs/run.dl19.{RUN}.txt"]
    trec_eval.run(argv, out)
    assert out.getvalue().startswith(f"{printed:<22}\tall\t")


def test_yaap_alone_is_trec_eval_s_formula_on_pytrec_eval_s_ap(conformance, monkeypatch):
    """-m yaap (trec_eval computes it only when named, m_yaap.c): ln((1 + S) / (1 + R - S)), S = AP * R,
    checked per query against pytrec_eval's AP and num_rel (trec_eval 9.0.8 inside), to 1e-9."""
    import math

    pytrec_eval = pytest.importorskip("pytrec_eval")
    folder = conformance / "dl19-passage"
    monkeypatch.chdir(folder)
    qrels: dict[str, dict[str, int]] = {}
    for line in (folder / "qrels.dl19-passage.txt").read_text().splitlines():
        qid, _, doc, grade = line.split()
        qrels.setdefault(qid, {})[doc] = int(grade)
    run: dict[str, dict[str, float]] = {}
    for line in (folder / "runs" / f"run.dl19.{RUN}.txt").read_text().splitlines():
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    oracle = pytrec_eval.RelevanceEvaluator(qrels, {"map", "num_rel"}).evaluate(run)
    expected = {q: math.log((1 + v["map"] * v["num_rel"]) / (1 + v["num_rel"] - v["map"] * v["num_rel"]))
                for q, v in oracle.items()}
    import warehouse

    evaluation = warehouse.evaluate_files("qrels.dl19-passage.txt", {RUN: f"runs/run.dl19.{RUN}.txt"}, ["yaap"],
                                          per_query=True)
    assert {q: v for _, q, _, v in evaluation.per_query.rows} == pytest.approx(expected, abs=1e-9)
    out = io.StringIO()
    trec_eval.run(["-q", "-m", "yaap", "qrels.dl19-passage.txt", f"runs/run.dl19.{RUN}.txt"], out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 44 and lines[-1].startswith("yaap                  \tall\t")
    assert float(lines[-1].split("\t")[2]) == pytest.approx(sum(expected.values()) / 43, abs=5e-5)


@pytest.mark.parametrize("name", ["map_avgjg", "P_avgjg.10", "Rprec_mult_avgjg"])
def test_measures_of_other_judgment_formats_are_refused_by_what_they_read(name, conformance, monkeypatch):
    """trec_eval's *_avgjg read -R qrels_jg files (tests/test_trec_eval_modes.py); over TREC qrels
    irw says so by the measure's name (not 'unknown measure') and names the -R to give."""
    from warehouse import MeasureError

    monkeypatch.chdir(conformance / "dl19-passage")
    with pytest.raises(MeasureError, match=f"{name.partition('.')[0]}(_[0-9]+)? reads judgment groups "
                                           r"\(-R qrels_jg\), not TREC qrels \(-R qrels\): give -R qrels_jg"):
        trec_eval.run(["-m", name, "qrels.dl19-passage.txt", f"runs/run.dl19.{RUN}.txt"], io.StringIO())


@pytest.mark.postgres
def test_a_grade_of_2_to_the_31_minus_1_on_postgresql(postgres_url, tmp_path):
    """PostgreSQL's integer overflowed in rbp as DuckDB's did: a stored evaluation there equals the file's."""
    import warehouse

    qrels = tmp_path / "qrels.txt"
    qrels.write_text(f"1 0 d1 {BIG}\n1 0 d2 1\n1 0 d3 0\n2 0 d1 1\n2 0 d2 5\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n1 Q0 d4 3 1 r\n2 Q0 d2 1 2 r\n2 Q0 d1 2 1 r\n")
    names = ["rbp", "rbp.1=3,2=9", "rbp_resid", "nDCG", "G", "binG"]
    on_files = warehouse.evaluate_files(qrels, {"r": run}, names, per_query=True, compat=10)
    with warehouse.open(postgres_url) as wh:
        wh.ingest_qrels(qrels, "q")
        wh.ingest_run(run, "r")
        stored = wh.evaluate("r", "q", names, per_query=True, compat=10)
    values = {(q, m): v for _, q, m, v in stored.per_query.rows}
    assert values == pytest.approx({(q, m): v for _, q, m, v in on_files.per_query.rows}, rel=1e-12)
    assert len(values) == 12 and values[("1", "rbp")] == pytest.approx(_rbp([1.0, 1 / BIG]))


# -- parameter lists trec_eval refuses, and the few it reads as 0 --------------------------------
@pytest.mark.parametrize("spec, message", [
    # `-m P.$K` with K unset printed nothing and exited 0; set_F. was a traceback
    ("P.", r"P\.: the list has an empty item, which trec_eval reads as cutoff 0 and refuses"),
    ("P.5,", r"P\.5,: the list has an empty item"),
    ("ndcg_cut.,5", r"ndcg_cut\.,5: the list has an empty item.* e\.g\. ndcg_cut\.5,10"),
    ("ndcg.", r"ndcg\.: an empty list of name=value pairs, which trec_eval refuses \(\"malformed pair parameters\"\)"),
    ("G.", r"G\.: an empty list of name=value pairs"),
    ("utility.1", r"utility\.1: utility takes four numbers"),
    ("utility.1,-1,0,0,5", r"utility takes four numbers"),
    ("P.99999999999999999999", r"is more than trec_eval can hold \(a C long"),
    # measures trec_eval 9.0.8 (the default) does not have vanished without a word
    ("rbp", r"rbp is a measure of trec_eval 10\.0, which 9\.0\.8 .* add --compat 10"),
    ("unj", r"unj is a measure of trec_eval 10\.0"),
    ("unj_5", r"unj is a measure of trec_eval 10\.0"),
])
def test_a_list_trec_eval_refuses_is_refused_with_what_to_give(spec, message, conformance, monkeypatch):
    from warehouse import MeasureError

    monkeypatch.chdir(conformance / "trec_eval_test")
    out = io.StringIO()
    with pytest.raises(MeasureError, match=message):
        trec_eval.run(["-m", spec, "-m", "map", "qrels.test", "results.test"], out)
    assert out.getvalue() == ""


def test_empty_items_trec_eval_reads_as_0_print_as_it_prints_them(conformance, monkeypatch):
    """trec_eval reads recall levels and set_F's beta with atof, so an empty item is 0: `-m
    iprec_at_recall..5,` prints the levels 0.00 and 0.50, and `-m set_F.` prints `set_F_` (its
    name and the list as typed), F at beta 0, which is set_P."""
    monkeypatch.chdir(conformance / "trec_eval_test")
    out = io.StringIO()
    trec_eval.run(["-m", "iprec_at_recall..5,", "-m", "set_P", "-m", "set_F.", "qrels.test", "results.test"], out)
    lines = [line.split("\t") for line in out.getvalue().splitlines()]
    assert [name.rstrip() for name, _, _ in lines] == ["iprec_at_recall_0.00", "iprec_at_recall_0.50", "set_P",
                                                       "set_F_"]
    summary = {line.split("\t")[0].rstrip(): line.split("\t")[2] for line in (
        conformance / "trec_eval_test" / "out.test").read_text().splitlines() if "\tall\t" in line}
    values = {name.rstrip(): value for name, _, value in lines}
    assert values["set_F_"] == values["set_P"]
    assert values["iprec_at_recall_0.00"] == summary["iprec_at_recall_0.00"]
    assert values["iprec_at_recall_0.50"] == summary["iprec_at_recall_0.50"]
