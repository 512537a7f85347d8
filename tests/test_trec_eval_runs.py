"""`irw trec-eval QRELS RUN1 RUN2 ...`: a whole track in one call (issue 27, item 3), and the one
table of trec-eval's flags (issue 25, item 4).

- several runs print each run's block exactly as a call for that run alone prints it, in the order
  given, for a range of options (-q, -m lists, -c, -M, -J, -l, -n, -N, -o, -R, -Z, --compat 10,
  relstring), both when the files are staged together (plain space-separated files: DL19, DL21)
  and when each is read alone (tab-separated, comments, extra columns: trec_eval's test files);
- against trec_eval's own files: the six DL19 runs (all tagged `rank`) in one call print the
  concatenation of trec_eval's six outputs, and trec_eval_test's outputs repeat for a file given twice;
- folders and quoted glob patterns give their files in name order;
- a bad file among many is an error naming file:line, with nothing printed; so is a run without
  a judged query (exit 7);
- `-h` lists every flag the parser takes, and the usage error names each.
"""
from __future__ import annotations

import io
import random
import shutil
from pathlib import Path

import pytest

from conftest import CONFORMANCE
from warehouse.evaluation import oneshot
from warehouse.commands import trec_eval
from warehouse.errors import InputFileError

pytestmark = pytest.mark.usefixtures("conformance")

TEST = CONFORMANCE / "trec_eval_test"
DL19 = CONFORMANCE / "dl19-passage"
DL21_RUNS = [CONFORMANCE / "multi-collection" / "runs" / system / "trec_results_dl21.txt"
             for system in ("BM25", "BM25_RM3", "SPLADE_P_P_ENSEMBLE_DISTIL")]
DL21_QRELS = CONFORMANCE / "multi-collection" / "qrels" / "qrels.dl21-passage.txt"
DL19_SYSTEMS = ("BM25", "BM25_RM3", "D_BERT_KD_TASB", "OPEN_AI_ADA2", "REP_LLAMA", "SPLADE_P_P_ENSEMBLE_DISTIL")


def trec_eval_out(args: list) -> str:
    out = io.StringIO()
    trec_eval.run([str(a) for a in args], out)
    return out.getvalue()


def one_by_one(options: list, qrels: Path, runs: list) -> str:
    return "".join(trec_eval_out([*options, qrels, run]) for run in runs)


@pytest.fixture(scope="module")
def dl21_runs(tmp_path_factory) -> list[Path]:
    """DL21's three runs, and two of them with each query's scores permuted (fixed seeds): five
    space-separated files that are staged together."""
    folder = tmp_path_factory.mktemp("dl21")
    runs = list(DL21_RUNS)
    for k, source in enumerate(DL21_RUNS[:2]):
        rng = random.Random(k)
        by_query: dict[str, list[list[str]]] = {}
        for line in source.read_text().splitlines():
            by_query.setdefault(line.split()[0], []).append(line.split())
        lines = []
        for qid, rows in by_query.items():
            scores = [row[4] for row in rows]
            rng.shuffle(scores)
            lines.extend(f"{qid} Q0 {row[2]} {row[3]} {score} permuted{k}\n" for row, score in zip(rows, scores))
        path = folder / f"permuted{k}.txt"
        path.write_text("".join(lines))
        runs.append(path)
    return runs


@pytest.mark.parametrize("options", [
    [], ["-q"], ["-q", "-c"], ["-q", "-n"], ["-m", "all_trec"], ["-q", "-m", "all_trec", "-l", "2"],
    ["-q", "-M", "20", "-J", "-m", "map", "-m", "P.5,10", "-m", "ndcg_cut.10"], ["-q", "-m", "relstring.15"],
    ["--compat", "10", "-q", "-c", "-m", "all_trec"], ["-o", "-N", "100", "-m", "utility.1,-1,0,0", "-m", "runid"],
    ["-m", "nDCG@10", "-m", "RR", "-m", "num_q"],
], ids=lambda o: " ".join(o) or "default")
def test_several_runs_print_each_block_as_alone_staged_together(options, dl21_runs):
    """Plain space-separated files: read by one statement (sql/oneshot/stage_runs.sql)."""
    assert trec_eval_out([*options, DL21_QRELS, *dl21_runs]) == one_by_one(options, DL21_QRELS, dl21_runs)


@pytest.mark.parametrize("options", [["-q", "-m", "all_trec"], ["-q", "--compat", "10", "-m", "relstring"]])
def test_chunks_staged_together_and_files_read_alone_mix(options, dl21_runs, tmp_path, monkeypatch):
    """Files staged together in chunks (oneshot.STAGE_TOGETHER_BYTES), a chunk holding a file that
    cannot be staged so (a header line: each of its files read alone) between chunks that are."""
    header = tmp_path / "with_header.txt"
    header.write_text("# a comment line first\n" + dl21_runs[2].read_text())
    runs = [*dl21_runs[:2], header, *dl21_runs[2:], dl21_runs[0]]
    monkeypatch.setattr(oneshot, "STAGE_TOGETHER_BYTES", 2 * max(r.stat().st_size for r in runs))
    chunks = list(oneshot._chunks(runs, [str(r) for r in runs]))
    assert len(chunks) > 2 and all(len(chunk) >= 2 for chunk in chunks[:2])
    assert trec_eval_out([*options, DL21_QRELS, *runs]) == one_by_one(options, DL21_QRELS, runs)


@pytest.mark.parametrize("options, qrels, runs", [
    ([], "qrels.test", ["results.test", "results.trunc", "results-302.test"]),
    (["-q", "-c", "-m", "all_trec"], "qrels.test", ["results.trunc", "results.test"]),
    (["-q", "-c", "-M100", "-m", "all_trec", "--compat", "10"], "qrels.test", ["results.trunc", "results.test"]),
    (["-q", "-m", "all_trec", "-Z", "zscores_file"], "qrels.test", ["results.test", "results.trunc"]),
    (["-q", "-m", "all_trec", "-mrelstring.20", "-l2"], "qrels.rel_level", ["results.test", "results.trunc"]),
    (["-q", "-m", "qrels_jg", "-R", "qrels_jg"], "qrels.123", ["results.test", "results.trunc"]),
    (["-q", "-m", "all_prefs", "-R", "prefs"], "prefs.test", ["prefs.results.test", "prefs.results.test"]),
    (["-q", "-m", "all_prefs", "-R", "qrels_prefs"], "qrels.test", ["results.test", "results.trunc"]),
    # (results.test answers none of qrels.comment.test's queries: trec_eval refuses it, -c or not)
    (["-q", "-c", "--compat", "10"], "qrels.comment.test", ["results.comment.test", "results.comment.test"]),
], ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_several_runs_print_each_block_as_alone_read_one_by_one(options, qrels, runs, monkeypatch):
    """trec_eval's test files (tabs, comments, extra columns, several formats): each read alone."""
    monkeypatch.chdir(TEST)
    assert trec_eval_out([*options, qrels, *runs]) == one_by_one(options, qrels, runs)


@pytest.mark.parametrize("version, level", [(9, 1), (10, 1), (9, 2)])
def test_the_six_dl19_runs_print_trec_eval_s_six_outputs(version, level):
    """Six 43,000-line runs that all carry the tag `rank`, in one call: trec_eval's own outputs,
    one after another, in the order given (not the files' name order)."""
    systems = list(reversed(DL19_SYSTEMS))
    runs = [DL19 / "runs" / f"run.dl19.{s}.txt" for s in systems]
    options = ["-m", "all_trec", "-q", *(["--compat", "10"] if version == 10 else []),
               *(["-l", "2"] if level == 2 else [])]
    suffix = f"all_trec.q{'.l2' if level == 2 else ''}.v{version}.txt"
    expected = "".join((DL19 / f"expected_run.dl19.{s}.{suffix}").read_text() for s in systems)
    assert trec_eval_out([*options, DL19 / "qrels.dl19-passage.txt", *runs]) == expected


@pytest.mark.parametrize("expected, args", [
    ("out.test.aq.v9", ["-m", "all_trec", "-q", "qrels.test"]),
    ("out.test.aqZ", ["-q", "-m", "all_trec", "-Z", "zscores_file", "qrels.test"]),
])
def test_a_file_given_twice_prints_twice(expected, args, monkeypatch):
    monkeypatch.chdir(TEST)
    if not expected.endswith(".v9"):
        args = ["--compat", "10", *args]
    assert trec_eval_out([*args, "results.test", "results.test"]) == (TEST / expected).read_text() * 2


def test_a_file_given_twice_staged_together_prints_twice(dl21_runs):
    twice = [dl21_runs[0], dl21_runs[1], dl21_runs[0]]
    first, second = (trec_eval_out(["-q", "-m", "runid", "-m", "map", DL21_QRELS, run]) for run in twice[:2])
    assert first != second
    assert trec_eval_out(["-q", "-m", "runid", "-m", "map", DL21_QRELS, *twice]) == first + second + first


def test_runs_sharing_a_tag_stay_apart(tmp_path):
    """All six DL19 runs are tagged `rank`: each keeps its own values and prints runid rank."""
    runs = [DL19 / "runs" / f"run.dl19.{s}.txt" for s in DL19_SYSTEMS[:3]]
    out = trec_eval_out(["-m", "runid", "-m", "map", DL19 / "qrels.dl19-passage.txt", *runs])
    lines = out.splitlines()
    assert [line.split("\t")[2] for line in lines[::2]] == ["rank"] * 3
    assert len({line for line in lines[1::2]}) == 3


def test_folders_and_patterns_give_their_files_in_name_order(dl21_runs, tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    for name, source in zip(("c.txt", "a.txt", "b.txt"), dl21_runs):
        shutil.copy(source, folder / name)
    (folder / ".hidden").write_text("not a run\n")
    in_order = [folder / "a.txt", folder / "b.txt", folder / "c.txt"]
    expected = one_by_one(["-m", "map"], DL21_QRELS, in_order)
    assert trec_eval_out(["-m", "map", DL21_QRELS, folder]) == expected
    assert trec_eval_out(["-m", "map", DL21_QRELS, str(folder / "*.txt")]) == expected
    assert trec_eval_out(["-m", "map", DL21_QRELS, folder / "c.txt", str(folder / "[ab].txt")]) == \
        one_by_one(["-m", "map"], DL21_QRELS, [folder / "c.txt", folder / "a.txt", folder / "b.txt"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputFileError, match="a folder without run files"):
        trec_eval_out([DL21_QRELS, tmp_path / "empty"])
    with pytest.raises(InputFileError, match=r"nothing\*\.txt: no run file matches this pattern"):
        trec_eval_out([DL21_QRELS, str(tmp_path / "nothing*.txt")])



def test_evaluate_files_takes_folders_and_patterns_as_trec_eval_does():
    """warehouse.evaluate_files(qrels, "runs/") refused the folder ("is a directory, not a file")
    that `irw trec-eval QRELS runs/` takes: a folder or pattern now gives its files, each named by
    its path, with trec_eval's numbers (the six DL19 runs)."""
    import warehouse
    from conftest import dl19_expected

    qrels, folder = DL19 / "qrels.dl19-passage.txt", DL19 / "runs"
    by_folder = warehouse.evaluate_files(qrels, folder, ["AP", "nDCG@10"])
    names = [str(folder / f"run.dl19.{system}.txt") for system in DL19_SYSTEMS]
    assert [row[0] for row in by_folder.wide().rows] == names
    for system, name in zip(DL19_SYSTEMS, names):
        expected = dl19_expected(CONFORMANCE, system)
        assert (f"{by_folder.value(name, 'map'):.4f}", f"{by_folder.value(name, 'ndcg_cut.10'):.4f}") == \
            (expected[("map", "all")], expected[("ndcg_cut_10", "all")])
    by_pattern = warehouse.evaluate_files(qrels, [str(folder / "*BM25*.txt")], ["AP"])
    assert [row[0] for row in by_pattern.wide().rows] == names[:2]
    given = warehouse.evaluate_files(qrels, f"{DL19}/./runs/run.dl19.BM25.txt", ["AP"])
    assert [row[0] for row in given.wide().rows] == [f"{DL19}/./runs/run.dl19.BM25.txt"]  # a file: as given
    assert given.qrels == str(qrels)  # the qrels set is named by its file, as the runs are
    # a run of another collection among them: the message names both files ("in qrels qrels" once)
    covid = CONFORMANCE / "multi-collection" / "runs" / "BM25" / "trec_results_covid.txt"
    from warehouse.errors import MeasureError
    with pytest.raises(MeasureError) as refused:
        warehouse.evaluate_files(qrels, [folder / "run.dl19.BM25.txt", covid], ["AP"])
    assert str(refused.value) == (f"run {covid} has no query judged in qrels {qrels} (50 of its queries are not in "
                                  "the qrels): no measure has a value; check that run and qrels are of the same "
                                  "collection (its first query ids: 1, 10, 11; the qrels': 1037798, 104861, 1063750)")

@pytest.mark.parametrize("bad_position", [0, 1, 2])
def test_a_bad_file_among_many_names_its_line_and_prints_nothing(bad_position, dl21_runs, tmp_path, capsys):
    lines = DL21_RUNS[0].read_text().splitlines(keepends=True)
    lines[2] = "1 Q0 doc 3 not-a-score run\n"
    bad = tmp_path / "bad.txt"
    bad.write_text("".join(lines))
    runs = [str(p) for p in dl21_runs[:2]]
    runs.insert(bad_position, str(bad))
    status = trec_eval.main(["-q", str(DL21_QRELS), *runs])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    assert f"{bad}:3" in captured.err and "not-a-score" in captured.err


def test_a_run_without_judged_queries_among_many_prints_nothing(dl21_runs, tmp_path, capsys):
    stray = tmp_path / "stray.txt"
    stray.write_text("nosuchquery Q0 d1 1 2.0 t\nnosuchquery Q0 d2 2 1.0 t\n")
    status = trec_eval.main([str(DL21_QRELS), str(dl21_runs[0]), str(stray), str(dl21_runs[1])])
    captured = capsys.readouterr()
    assert status == 7 and captured.out == ""
    assert captured.err == (f"Error: {stray}: trec_eval: No queries with both results and relevance info "
                            "(no run's lines were printed)\n")
    # one run alone says what trec_eval says
    assert trec_eval.main([str(DL21_QRELS), str(stray)]) == 7
    assert capsys.readouterr().err == "Error: trec_eval: No queries with both results and relevance info\n"


@pytest.mark.parametrize("options", [["-c"], ["-c", "-q"], ["-c", "-J"], ["-c", "-M", "10", "-m", "num_q"]])
def test_with_c_a_run_answering_no_query_of_the_qrels_is_refused_as_trec_eval_refuses_it(dl21_runs, tmp_path,
                                                                                        capsys, options):
    # -c adds every qrels query the run lacks as an empty ranking; trec_eval still refuses a run that
    # answers none of them (exit 7), where irw printed map 0.0000 and exited 0
    stray = tmp_path / "stray.txt"
    stray.write_text("nosuchquery Q0 d1 1 2.0 t\n")
    assert trec_eval.main([*options, str(DL21_QRELS), str(stray)]) == 7
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "Error: trec_eval: No queries with both results and relevance info\n"
    assert trec_eval.main([*options, str(DL21_QRELS), str(dl21_runs[0]), str(stray)]) == 7
    assert capsys.readouterr().out == ""


def test_help_lists_every_flag_the_parser_takes():
    parser = trec_eval._parser()
    flags = [option for action in parser._actions for option in action.option_strings]
    assert len(flags) == sum(len(flag.names) for flag in trec_eval.FLAGS)  # -h and --help are one flag
    help_flags = {word.rstrip(",") for line in trec_eval.HELP.splitlines() if line.startswith("  -")
                  for word in line.split()[:2] if word.startswith("-")}
    usage = trec_eval.HELP.split("\n\n")[0]
    for flag in flags:
        assert flag in help_flags, f"{flag} is taken by the parser and not shown by -h"
    for flag in trec_eval.FLAGS:  # the usage names each flag once, by its first name
        assert f"[{flag.names[0]}" in usage and f"[{flag.names[0]}" in trec_eval.USAGE
    assert help_flags == set(flags)
    assert "QRELS_FILE RUN_FILE..." in usage


def test_trec_eval_s_long_names_version_and_end_of_options(capsys, tmp_path, monkeypatch):
    """trec_eval's getopt_long names (--measure, --query_eval_wanted ...), -v and -T trec_results
    were usage errors; a usage error printed argparse's usage and then irw's. (A file named like
    an option is given as ./-run: the first `--` is dropped, as Click drops it for `irw`.)"""
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    run_file = tmp_path / "-run"
    run_file.write_text("1 Q0 d2 1 2 r\n1 Q0 d1 2 1 r\n")
    out = io.StringIO()
    trec_eval.run(["-q", "-m", "map", str(qrels), str(run_file)], out)
    long = io.StringIO()
    trec_eval.run(["--query_eval_wanted", "--measure", "map", "--level_for_rel", "1", "--Judged_docs_only",
                   "--Max_retrieved_per_topic", "10", "--complete_rel_info_wanted", "--Number_docs_in_coll", "5",
                   "--Rel_info_format", "qrels", "--Results_format", "trec_results", "--Output_old_results_format",
                   "-T", "trec_results", str(qrels), str(run_file)], long)
    assert long.getvalue() == out.getvalue() and out.getvalue().startswith("map                   \t1\t0.5000\n")
    monkeypatch.chdir(tmp_path)
    assert trec_eval.main(["-m", "map", "qrels", "./-run"]) == 0
    assert capsys.readouterr().out == "map                   \tall\t0.5000\n"
    assert trec_eval.main(["-v"]) == 0
    assert capsys.readouterr().err.startswith("trec_eval version 9.0.7")
    assert trec_eval.main(["--nope", "qrels", "./-run"]) == 1
    assert capsys.readouterr().err == f"Error: unrecognized arguments: --nope\nError: {trec_eval.USAGE}\n"
    assert trec_eval.main(["-M0", "qrels", "./-run"]) == 1
    assert capsys.readouterr().err == "Error: -M takes the number of documents to keep per query, at least 1, not 0\n"


def test_usage_errors(capsys, tmp_path):
    assert trec_eval.main(["-q", "--nope", "qrels", "run"]) == 1
    assert f"Error: {trec_eval.USAGE}\n" in capsys.readouterr().err
    # refused before Spark starts: a missing folder or pattern among the runs, a mode Spark lacks
    assert trec_eval.main(["--engine", "spark", "qrels", "run1", "runs/*.txt"]) == 2
    assert "runs/*.txt: no run file matches this pattern" in capsys.readouterr().err
    assert trec_eval.main(["--engine", "spark", "-R", "prefs", "qrels", "run"]) == 1
    assert "-Z and -R run with --engine duckdb (the default) only" in capsys.readouterr().err
    # an xz file, which Spark would read as text (it has no xz decompressor), in a folder of runs
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "bm25.txt.gz").write_bytes(b"")
    (tmp_path / "runs" / "splade.xz").write_bytes(b"\xfd7zXZ\x00")
    (tmp_path / "qrels").write_text("1 0 d1 1\n")  # a missing one is said first (test_spark_walk.py)
    assert trec_eval.main(["--engine", "spark", str(tmp_path / "qrels"), str(tmp_path / "runs")]) == 2
    assert capsys.readouterr().err == (f"Error: {tmp_path / 'runs' / 'splade.xz'}: xz-compressed, which Spark cannot read: "
                                       "decompress it (xz -d) or compress it as .gz, .bz2 or .zst, or evaluate it "
                                       "with --engine duckdb\n")
    out = io.StringIO()
    trec_eval.run(["-h"], out)
    assert out.getvalue() == trec_eval.HELP
