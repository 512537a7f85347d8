"""The paths a new user takes first, on the real DL19 passage files, through the CLI on a fresh
warehouse: measure names with parameters (checked against trec_eval's own outputs, the `.l2.` files
at relevance level 2), the names users mistype, trec-eval's help, and defaults that need no flags."""
from __future__ import annotations

import json
import re

import pytest

import warehouse
from warehouse import MeasureError
from warehouse.evaluation.measures import parse
from warehouse.engines.duckdb import migrations

from conftest import Cli, dl19_expected as expected

RUNS = ("BM25", "REP_LLAMA")  # a sparse run of 100 per query and a dense one of 1,000

# ir_measures name -> the trec_eval name of the same number, in the expected file at that level.
# `(rel=2)` is trec_eval's -l 2; gain measures (nDCG) use the grades and ignore the level.
AT_LEVEL_2 = {
    "AP(rel=2)": "map", "P(rel=2)@10": "P_10", "P(rel=2)@1000": "P_1000", "R(rel=2)@1000": "recall_1000",
    "R(rel=2)@100": "recall_100", "RR(rel=2)": "recip_rank", "Rprec(rel=2)": "Rprec", "AP(rel=2)@100": "map_cut_100",
    "Success(rel=2)@10": "success_10", "IPrec(rel=2)@0.5": "iprec_at_recall_0.50", "Bpref(rel=2)": "bpref",
    "infAP(rel=2)": "infAP", "NumRelRet(rel=2)": "num_rel_ret", "NumRel(rel=2)": "num_rel",
    "SetP(rel=2)": "set_P", "SetR(rel=2)": "set_recall", "SetF(beta=1,rel=2)": "set_F", "SetAP(rel=2)": "set_map",
    "GMAP(rel=2)": "gm_map",
}
AT_LEVEL_1 = {"nDCG@10": "ndcg_cut_10", "AP@1000": "map_cut_1000", "P@20": "P_20", "NumRet": "num_ret",
              "RR": "recip_rank", "Success@1": "success_1", "nDCG": "ndcg"}


def as_trec(measure: str, value) -> str:
    return str(int(value)) if parse(measure)[0].is_count else f"{value:.4f}"


@pytest.fixture
def dl19(tmp_path, conformance) -> Cli:
    """A fresh warehouse holding the DL19 qrels as `dl19` and two of its runs, by the CLI."""
    irw = Cli(tmp_path / "irw.duckdb")
    folder = conformance / "dl19-passage"
    assert irw("ingest", "qrels", folder / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    for run in RUNS:
        assert irw("ingest", "run", folder / "runs" / f"run.dl19.{run}.txt", "--name", run).exit_code == 0
    return irw


def eval_json(irw: Cli, *args: str) -> list[dict]:
    result = irw("eval", "--qrels", "dl19", *args, "--format", "json")
    assert result.exit_code == 0, result.stderr
    rows = json.loads(result.stdout)
    assert rows, "an empty result is never a success"
    return rows


def test_every_parameterised_name_equals_trec_eval_at_its_level(dl19, conformance):
    measures = {**AT_LEVEL_2, **AT_LEVEL_1}
    args = [a for m in measures for a in ("-m", m)]
    summary = eval_json(dl19, *args)
    per_query = eval_json(dl19, *args, "-q")
    assert {row["run"] for row in summary} == set(RUNS)
    for run in RUNS:
        oracle = {2: expected(conformance, run, 2), 1: expected(conformance, run, 1)}
        (row,) = [r for r in summary if r["run"] == run]
        for measure, trec_name in measures.items():
            level = 2 if measure in AT_LEVEL_2 else 1
            assert as_trec(measure, row[measure]) == oracle[level][(trec_name, "all")], (run, measure)
        rows = [r for r in per_query if r["run"] == run]
        assert len(rows) == 43
        for r in rows:
            for measure, trec_name in measures.items():
                if measure == "GMAP(rel=2)":
                    continue  # trec_eval prints gm_map for the summary only
                level = 2 if measure in AT_LEVEL_2 else 1
                assert as_trec(measure, r[measure]) == oracle[level][(trec_name, r["query"])], (run, measure)


def test_rel_names_first_then_the_level_form_then_recompute(dl19, conformance):
    """The order of the bug report: `AP(rel=2)` first used to store its scores where `-l 2 -m AP`
    could not find them, and blanked that command until the qrels were ingested again."""
    first = eval_json(dl19, "-m", "AP(rel=2)", "-m", "R(rel=2)@1000", "-m", "nDCG@10")
    then = eval_json(dl19, "-l", "2", "-m", "AP", "-m", "R@1000")
    again = eval_json(dl19, "-l", "2", "-m", "AP", "-m", "R@1000", "--recompute")
    for run in RUNS:
        oracle = expected(conformance, run, 2)
        (a,) = [r for r in first if r["run"] == run]
        (b,) = [r for r in then if r["run"] == run]
        (c,) = [r for r in again if r["run"] == run]
        assert f"{a['AP(rel=2)']:.4f}" == f"{b['AP']:.4f}" == f"{c['AP']:.4f}" == oracle[("map", "all")]
        assert f"{a['R(rel=2)@1000']:.4f}" == f"{b['R@1000']:.4f}" == oracle[("recall_1000", "all")]
        assert f"{a['nDCG@10']:.4f}" == expected(conformance, run, 1)[("ndcg_cut_10", "all")]
    # stored once, under one key, and readable by its typed columns
    stored = dl19("sql", "select run, value from run_summary where qrels = 'dl19' and measure = 'AP' "
                         "and level = 2 order by run", "--format", "json")
    assert [(r["run"], f"{r['value']:.4f}") for r in json.loads(stored.stdout)] == [
        (run, expected(conformance, run, 2)[("map", "all")]) for run in RUNS]


def test_rel_names_in_compare_reports_and_the_api(dl19, conformance, tmp_path):
    oracle = {run: expected(conformance, run, 2)[("map", "all")] for run in RUNS}
    compared = dl19("compare", "--qrels", "dl19", "-m", "AP(rel=2)", "--format", "json")
    assert compared.exit_code == 0, compared.stderr
    (row,) = json.loads(compared.stdout)
    assert row["measure"] == "AP(rel=2)" and row["queries"] == 43
    assert {f"{row['run_mean']:.4f}", f"{row['baseline_mean']:.4f}"} == set(oracle.values())
    board = dl19("report", "leaderboard", "--qrels", "dl19", "-m", "AP(rel=2)", "-m", "nDCG@10", "--format", "json")
    assert board.exit_code == 0, board.stderr
    assert {r["run"]: f"{r['AP(rel=2)']:.4f}" for r in json.loads(board.stdout)} == oracle
    page = tmp_path / "board.html"
    assert dl19("report", "leaderboard", "-m", "AP(rel=2)", "-m", "nDCG@10", "-o", page).exit_code == 0
    assert "relevant means grade &gt;= 1 (trec_eval -l 1); nDCG uses grades as gains; AP(rel=2): grade &gt;= 2" \
        in page.read_text()  # the footer states the level behind each number
    with warehouse.open(dl19.db, read_only=True) as wh:
        ev = wh.evaluate(list(RUNS), "dl19", ["AP(rel=2)"])
        assert {run: f"{ev.value(run, 'AP(rel=2)'):.4f}" for run in RUNS} == oracle
    folder = conformance / "dl19-passage"
    files = [str(folder / "runs" / f"run.dl19.{run}.txt") for run in RUNS]
    ev = warehouse.evaluate_files(folder / "qrels.dl19-passage.txt", files, ["AP(rel=2)", "P(rel=2)@10"])
    for run, path in zip(RUNS, files):
        assert f"{ev.value(path, 'AP(rel=2)'):.4f}" == oracle[run]
        assert f"{ev.value(path, 'P(rel=2)@10'):.4f}" == expected(conformance, run, 2)[("P_10", "all")]


def test_every_listed_name_reads_back_as_itself_with_and_without_rel():
    """One name for one thing: each measure's canonical name, with or without a level, parses to that
    same measure, for every family `irw measures` lists."""
    from dataclasses import replace

    from warehouse.evaluation.measures import ALL_FAMILIES, default_measures

    for family in ALL_FAMILIES.values():
        if family.sql is None or any(default is None for _, default in family.options):
            continue  # text, not a score; or named only with a required option (AP(ties=min): test_ties)
        for measure in default_measures(family):
            assert parse(measure.name) == [measure], measure.name
            leveled = replace(measure, level=2)
            if family.trec_name == "num_ret":  # ir_measures' NumRet(rel=k) counts the relevant: NumRelRet(rel=k)
                assert [m.name for m in parse(leveled.name)] == ["NumRelRet(rel=2)"]
                continue
            try:
                assert parse(leveled.name) == [leveled], leveled.name
            except MeasureError as refused:  # a family that has no relevance level says so, by name
                assert "take no rel=" in str(refused) and not str(refused).startswith("unknown"), str(refused)


def test_judged_at_k_is_one_minus_trec_eval_10s_unjudged_share(dl19, conformance):
    rows = eval_json(dl19, "-m", "Judged@10", "-q")
    for run in RUNS:
        oracle = expected(conformance, run, 1, version=10)
        for r in (r for r in rows if r["run"] == run):
            assert f"{1 - r['Judged@10']:.4f}" == oracle[("unj_10", r["query"])]


@pytest.mark.parametrize("typed, meant", [
    ("ndcg@10", "nDCG@10"), ("map@100", "AP@100"), ("recall@1000", "R@1000"), ("mrr", "RR"),
    ("NDCG_cut_10", "nDCG@10"), ("p@10", "P@10"), ("P10", "P@10"), ("rprec(rel=2)", "Rprec(rel=2)"),
    ("ndgc@10", "nDCG@10"), ("xyzzy", None), ("P@ 10", "P@10"),
])
def test_a_mistyped_measure_gets_the_name_it_means(dl19, typed, meant):
    for command in (["eval", "--qrels", "dl19"], ["compare", "--qrels", "dl19"],
                    ["report", "leaderboard", "--qrels", "dl19", "--format", "csv"]):
        result = dl19(*command, "-m", typed)
        assert result.exit_code != 0 and result.stdout == ""
        first = result.stderr.splitlines()[0]
        assert first.startswith("Error: unknown measure") and typed in first, first
        if meant:
            assert f"did you mean {meant}?" in first, first


def test_a_name_irw_prints_at_a_level_of_its_own_is_taken_back(dl19):
    # as `irw eval --format trec` prints a measure at a level of its own (an ir_measures user's walk
    # got a did-you-mean for them; a measure-names walk asked that they be taken as printed)
    for printed, meant in (("P_rel_2_10", "P(rel=2)@10"), ("map_rel_2", "AP(rel=2)")):
        by_printed, by_name = (dl19("eval", "--qrels", "dl19", "-m", m, "-f", "csv") for m in (printed, meant))
        assert by_printed.exit_code == by_name.exit_code == 0, by_printed.stderr
        assert by_printed.stdout == by_name.stdout and meant in by_printed.stdout.splitlines()[0]
    refused = dl19("eval", "--qrels", "dl19", "-m", "ndcg_cut_rel_2_10")
    assert refused.exit_code != 0 and "take no rel=" in refused.stderr and "write nDCG@10" in refused.stderr


def test_trec_eval_takes_ir_measures_names_and_prints_trec_eval_s(conformance, tmp_path):
    folder = conformance / "dl19-passage"
    files = [folder / "qrels.dl19-passage.txt", folder / "runs" / "run.dl19.BM25.txt"]
    irw = Cli(tmp_path / "unused.duckdb")
    by_ir = irw("trec-eval", "-m", "nDCG@10", "-m", "AP", "-m", "P@10", "-m", "R@1000", *files, db=False)
    by_trec = irw("trec-eval", "-m", "ndcg_cut.10", "-m", "map", "-m", "P.10", "-m", "recall.1000", *files,
                  db=False)
    assert by_ir.exit_code == by_trec.exit_code == 0
    assert by_ir.stdout == by_trec.stdout and by_ir.stdout.count("\n") == 4
    oracle = expected(conformance, "BM25", 1)
    for line in by_ir.stdout.splitlines():
        name, query, value = (f.strip() for f in line.split("\t"))
        assert oracle[(name, query)] == value
    typo = irw("trec-eval", "-m", "ndcg@10", *files, db=False)
    assert typo.exit_code == 1  # trec_eval's "illegal measure", as for an unknown option
    assert "did you mean nDCG@10 (trec_eval: ndcg_cut.10)?" in typo.stderr
    level = irw("trec-eval", "-m", "AP(rel=2)", *files, db=False)
    assert level.exit_code == 1 and "use -l 2 -m map" in level.stderr  # trec_eval's "illegal measure"
    # with -l 2 given too: -m map is still what to type, and irw eval takes the level per measure
    matched = irw("trec-eval", "-l", "2", "-m", "AP(rel=2)", *files, db=False)
    assert matched.exit_code == 1 and matched.stderr.rstrip().endswith(
        "use -l 2 -m map (irw eval and warehouse.evaluate_files take a level per measure)"), matched.stderr
    assert not (tmp_path / "unused.duckdb").exists()


def test_trec_eval_help_and_irw_version(tmp_path):
    irw = Cli(tmp_path / "unused.duckdb")
    for flag in ("-h", "--help"):
        result = irw("trec-eval", flag, db=False)
        assert result.exit_code == 0
        for documented in ("-q, --query_eval_wanted", "-c, --complete_rel_info_wanted", "-l, --level_for_rel N",
                           "-M, --Max_retrieved_per_topic N", "-J, --Judged_docs_only", "-n, --nosummary",
                           "-m, --measure MEASURE", "--compat 9|10", "QRELS_FILE"):
            assert re.search(rf"^\s+{re.escape(documented)}\s", result.stdout, re.M), documented
    version = irw("--version", db=False)
    assert version.exit_code == 0 and version.stdout == f"irw {warehouse.__version__} (warehouse schema {migrations()[-1][0]})\n"


def test_compare_and_eval_need_no_run_names_nor_qrels_with_one_set_stored(dl19, conformance):
    compared = dl19("compare", "-m", "nDCG@10", "--format", "json")
    assert compared.exit_code == 0, compared.stderr
    (row,) = json.loads(compared.stdout)  # two runs stored: one pair
    assert {row["run"], row["baseline"]} == set(RUNS)
    rows = eval_json(dl19, "-m", "NumQ", "-m", "NumRelRet")
    # counts are integers in every format, as trec_eval prints them
    assert all(isinstance(r["NumQ"], int) and isinstance(r["NumRelRet"], int) for r in rows)
    csv = dl19("eval", "-m", "NumRet", "--format", "csv")
    assert csv.stdout.splitlines()[1:] == ["BM25,43,4300", "REP_LLAMA,43,43000"]
    table = dl19("eval", "-m", "NumRet")
    assert re.search(r"BM25\s+43\s+4300$", table.stdout, re.M)
    board = json.loads(dl19("report", "leaderboard", "-m", "NumRelRet", "-m", "AP", "--format", "json").stdout)
    assert {r["run"]: r["NumRelRet"] for r in board} == {
        run: int(expected(conformance, run, 1)[("num_rel_ret", "all")]) for run in RUNS}
    assert all(isinstance(r["NumRelRet"], int) for r in board)
    dl19("ingest", "qrels", conformance / "dl19-passage" / "qrels.dl19-passage.txt", "--name", "dl19-copy")
    two = dl19("eval", "-m", "AP")
    assert two.exit_code == 2 and "name the qrels set with --qrels" in two.stderr and "dl19, dl19-copy" in two.stderr


def test_no_value_is_an_error_not_an_empty_table(tmp_path):
    irw = Cli(tmp_path / "irw.duckdb")
    (tmp_path / "q.txt").write_text("x 0 d1 1\n")
    (tmp_path / "r.txt").write_text("y Q0 d1 1 1.0 other-collection\n")
    irw("ingest", "qrels", tmp_path / "q.txt", "--name", "q")
    irw("ingest", "run", tmp_path / "r.txt")
    result = irw("eval", "--qrels", "q", "-m", "AP")
    assert result.exit_code == 1 and result.stdout == ""
    assert "run other-collection has no query judged in qrels q" in result.stderr


def test_a_run_tied_with_another_that_ties_can_lift_is_marked_on_the_page(tmp_path, conformance):
    """A reviewer's walk of the six DL19 runs by P@10: OPEN_AI_ADA2 (0.8070, no ties of its own)
    shares rank 3 with REP_LLAMA, whose tied documents in another order give up to 0.8256, which
    takes OPEN_AI_ADA2 to rank 4; its rank carried no ≈ (its value sits at the low end of
    REP_LLAMA's range, and the two differ in the 16th digit, where the ranking rounds)."""
    irw = Cli(tmp_path / "irw.duckdb")
    folder = conformance / "dl19-passage"
    assert irw("ingest", "qrels", folder / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    assert irw("ingest", "run", folder / "runs").exit_code == 0
    board = {row["run"]: row for row in json.loads(irw("report", "leaderboard", "-m", "P@10", "-f", "json").stdout)}
    assert (board["OPEN_AI_ADA2"]["rank"], board["REP_LLAMA"]["rank"]) == (3, 3)
    assert f"{board['REP_LLAMA']['P@10_tie_high']:.4f}" == "0.8256"
    marked = {run for run, row in board.items() if row["rank_may_change_with_ties"]}
    # the two at rank 1 can fall below REP_LLAMA too; BM25 and BM25_RM3 stay where they are
    assert marked == {"D_BERT_KD_TASB", "SPLADE_P_P_ENSEMBLE_DISTIL", "OPEN_AI_ADA2", "REP_LLAMA"}
    page = tmp_path / "board.html"
    assert irw("report", "leaderboard", "-m", "P@10", "-o", page, "--no-run-pages").exit_code == 0
    row = next(line for line in page.read_text(encoding="utf-8").split("<tr") if 'data-value="OPEN_AI_ADA2"' in line)
    assert "&asymp;</sup>" in row and "its rank may change under another order of tied documents" in row


def test_the_leaderboards_table_carries_the_tie_ranges_its_page_marks(dl19):
    """`--format` outputs say what the page's ≈ says: each run's lowest and highest primary mean
    over the orders of its tied documents, and whether its rank could change with them."""
    board = json.loads(dl19("report", "leaderboard", "-m", "AP", "--format", "json").stdout)
    assert [r["run"] for r in board] == ["REP_LLAMA", "BM25"]
    for row in board:
        assert row["AP_tie_low"] <= row["AP"] <= row["AP_tie_high"]
    rep = board[0]
    assert rep["AP_tie_high"] - rep["AP_tie_low"] > 0.005  # REP_LLAMA's scores tie often on DL19
    for row in board:
        others = [o for o in board if o is not row]
        can_pass = any(row["AP_tie_low"] < o["AP_tie_high"] and o["AP_tie_low"] <= row["AP_tie_high"] for o in others)
        assert row["rank_may_change_with_ties"] == can_pass


def test_a_comparison_of_one_measure_says_one_measure_and_one_test(dl19, tmp_path):
    """A fresh-install walk: the compare page of BM25 and REP_LLAMA on nDCG@10 said "on 1
    measures: 1 paired tests corrected together"."""
    page = tmp_path / "cmp.html"
    assert dl19("report", "compare", *RUNS, "-m", "nDCG@10", "-o", page).exit_code == 0
    lede = re.search(r'<p class="lede">(.*?)</p>', page.read_text(encoding="utf-8"), re.S).group(1)
    assert "on 1 measure: 1 paired test corrected together" in " ".join(lede.split()), lede


def test_a_measure_s_own_level_equal_to_the_evaluation_s_is_one_measure_everywhere(dl19, tmp_path):
    """A names walk: at level 1, `-m AP -m 'AP(rel=1)'` gave two columns of one stored score,
    `irw compare` corrected over two comparisons of it (p_adjusted 0.0006 against -m AP's 0.0003),
    the history refused "2 measures", and Python's value(run, 'AP(rel=1)') was NotEvaluated."""
    assert dl19("eval", "BM25", "-m", "AP", "-m", "AP(rel=1)", "-f", "csv").stdout.splitlines()[0] == "run,queries,AP"
    assert dl19("eval", "BM25", "-l", "2", "-m", "AP(rel=2)", "-m", "AP", "-f", "csv").stdout.splitlines()[0] == \
        "run,queries,AP"
    alone = json.loads(dl19("compare", *RUNS, "-m", "AP", "-f", "json").stdout)
    twice = json.loads(dl19("compare", *RUNS, "-m", "AP", "-m", "AP(rel=1)", "-f", "json").stdout)
    assert twice == alone and len(alone) == 1
    assert dl19("report", "history", "-m", "AP", "-m", "AP(rel=1)", "-o", tmp_path / "h.html").exit_code == 0
    with warehouse.open(dl19.db) as wh:
        evaluation = wh.evaluate(["BM25"], "dl19", ["AP"])
        assert evaluation.value("BM25", "AP(rel=1)") == evaluation.value("BM25", "AP")
        assert f"{evaluation.value('BM25', 'AP'):.4f}" == "0.2993"
        at_two = wh.evaluate(["BM25"], "dl19", ["AP(rel=2)", "AP"], level=2)
        assert [m.name for m in at_two.measures] == ["AP"] and f"{at_two.value('BM25', 'AP(rel=2)'):.4f}" == "0.2476"
