"""Evaluation on Spark (issue 15): the measure SQL of sql/, derived for Spark SQL by
warehouse/engines/dialect.py and run by warehouse/engines/spark.py's SparkDatabase, gives trec_eval's numbers.

- the derivation itself (no Spark needed): every file of sql/eval and sql/measures becomes Spark
  statements, with the rewrites where Spark means something else (ordered sums, decimal literals,
  generate_series, statements that write tables);
- on Spark (marker `spark`: pyspark local[2], one session for the whole run): `irw trec-eval
  --engine spark -q -m all_trec` prints trec_eval 9.0.8's DL19 output byte for byte (relstring
  aside) for BM25; warehouse.engines.spark.evaluate gives trec_eval's per-query values for the six DL19
  runs at level 2 and the same summary as warehouse.evaluate_files, from text files and from
  DataFrames (qid/docno/score); bad TREC text gives the problems local ingest gives, with file
  and line; the README's example runs as printed.

Without pyspark or Java these tests skip, except under CI, where they fail.
"""
from __future__ import annotations

import io
import os
import re
import shutil
import time
from pathlib import Path

import pytest

import warehouse
from warehouse.engines.dialect import spark_statements
from warehouse.errors import InputFileError
from warehouse.resources import read_sql, sql_dir

from docs_pages import section
from conftest import dl19_expected, spark_conf_dir, write_file

ROOT = Path(__file__).resolve().parents[1]
DL19_RUNS = ("BM25", "BM25_RM3", "D_BERT_KD_TASB", "OPEN_AI_ADA2", "REP_LLAMA", "SPLADE_P_P_ENSEMBLE_DISTIL")
EVAL_FILES = sorted(p.relative_to(sql_dir()).as_posix() for folder in ("eval", "measures")
                    for p in (sql_dir() / folder).glob("*.sql"))


# -- the derivation -----------------------------------------------------------------------------

@pytest.mark.parametrize("path", EVAL_FILES)
def test_every_evaluation_file_derives_for_spark(path):
    statements = spark_statements(read_sql(path))
    assert statements
    for statement in statements:
        text = statement.text
        # Spark's parser refuses an ordered sum and MATERIALIZED, and drops the order of collect_list
        assert not re.search(r"\bSUM\([^()]*\bORDER BY", text), text
        assert "MATERIALIZED" not in text.upper()
        assert "ARRAY_AGG" not in text.upper() and "GENERATE_SERIES" not in text.upper()
        assert "?" not in text and "$" not in text  # Spark's named markers only


def test_the_rewrites_say_in_spark_what_duckdb_means():
    (select,) = spark_statements("select 1.0 * x, sum(v order by q) as s from t group by g")
    assert "CAST(1.0 AS DOUBLE) * x" in select.text  # not a DECIMAL(2,1)
    assert ("CASE WHEN COUNT(v) > 0 THEN AGGREGATE(ARRAY_SORT(COLLECT_LIST(STRUCT(q AS k1, v AS v))), "
            "CAST(0 AS DOUBLE)") in select.text
    (series,) = spark_statements("select g.i from t cross join lateral generate_series(1, t.n) as g(i)")
    assert "CROSS JOIN LATERAL EXPLODE(FILTER(SEQUENCE(1, t.n), irw_i -> irw_i >= 1 AND irw_i <= t.n)) AS g(i)" \
        in series.text
    drop, create = spark_statements("drop table if exists x cascade; create temp table x as select $a as a")
    assert (drop.kind, drop.table, create.kind, create.table, create.names) == ("drop", "x", "create", "x", ("a",))
    assert create.text == "SELECT :a AS a"
    (insert,) = spark_statements("insert into m (a, b) select a, b from p on conflict (a) do update set b = excluded.b")
    assert (insert.kind, insert.columns, insert.conflict, insert.keep_existing) == ("insert", ("a", "b"), ("a",), False)
    (delete,) = spark_statements("delete from scores where run_id in (select unnest($ids))")
    assert delete.text == "SELECT * FROM scores WHERE NOT COALESCE(run_id IN (SELECT EXPLODE(:ids)), FALSE)"
    assert spark_statements("-- irw: postgres only\nanalyze eval_qrels") == ()


def test_an_update_is_refused_rather_than_mistranslated():
    with pytest.raises(ValueError, match="UPDATE on Spark"):
        spark_statements("update runs set row_count = 1")


# -- on Spark -----------------------------------------------------------------------------------

def _without_relstring(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("relstring"))


@pytest.mark.spark
def test_trec_eval_engine_spark_prints_trec_eval_byte_for_byte(spark, conformance):
    from warehouse.commands import trec_eval

    import shlex

    folder = conformance / "dl19-passage"
    # the command of docs/engines.md ("On Spark"), as printed, its two files the DL19 folder's
    (line,) = section("On Spark").split("The drop-in takes the engine and the cluster", 1)[1].split("```")[1].split("\n")[1:2]
    irw, command, *argv, qrels, run = shlex.split(line)
    assert (irw, command, qrels, run) == ("irw", "trec-eval", "qrels.dl19-passage.txt", "runs/run.dl19.BM25.txt")
    out = io.StringIO()
    started = time.perf_counter()
    trec_eval.run([*argv, str(folder / qrels), str(folder / run)], out)
    print(f"irw trec-eval --engine spark -q -m all_trec (BM25): {time.perf_counter() - started:.1f} s")
    expected = (folder / "expected_run.dl19.BM25.all_trec.q.v9.txt").read_text()
    assert _without_relstring(out.getvalue()) == _without_relstring(expected)
    assert spark.sparkContext._jsc is not None  # the test's session was not stopped by the command


@pytest.mark.spark
def test_trec_eval_engine_spark_takes_a_folder_of_runs_and_a_file_twice(spark, conformance, tmp_path):
    """A collection's folder of runs, linked to the publisher's files as people keep them, and one of
    its files again: each block as trec_eval prints it for that file alone, in the order given, as
    without --engine (Spark once said "run run: a name is given to one file" after starting)."""
    from warehouse.commands import trec_eval

    multi = conformance / "multi-collection"
    folder = tmp_path / "covid"
    folder.mkdir()
    systems = ("BM25", "BM25_RM3", "SPLADE_P_P_ENSEMBLE_DISTIL")
    for system in systems:
        (folder / f"{system}.txt").symlink_to(multi / "runs" / system / "trec_results_covid.txt")
    measures = ("runid", "map")

    def trec_eval_of(system: str) -> str:
        lines = (multi / "expected" / f"covid.{system}.all_trec.q.v9.txt").read_text().splitlines(keepends=True)
        return "".join(line for line in lines if line.split()[0] in measures)

    argv = ["-q", "-m", "map", "-m", "runid",
            str(multi / "qrels" / "qrels.beir-v1.0.0-trec-covid.test.txt"), str(folder), str(folder / "BM25.txt")]
    expected = "".join(trec_eval_of(system) for system in (*systems, "BM25"))
    on_spark, on_duckdb = io.StringIO(), io.StringIO()
    trec_eval.run(["--engine", "spark", *argv], on_spark)
    trec_eval.run(argv, on_duckdb)
    assert on_spark.getvalue() == on_duckdb.getvalue() == expected
    # the same folder and a pattern as a cluster's file system gives them (hdfs://...): listed there
    on_cluster = io.StringIO()
    trec_eval.run(["--engine", "spark", *argv[:-2], f"file://{folder}/", f"file://{folder}/BM25.tx?"], on_cluster)
    assert on_cluster.getvalue() == expected


@pytest.mark.spark
def test_six_dl19_runs_at_level_2_give_trec_eval_values(spark, conformance):
    from warehouse.engines import spark as on_spark
    from warehouse.commands.trec_eval import requested_measures

    folder = conformance / "dl19-passage"
    measures = [m for m in requested_measures(["all_trec"], 9) if m.family.trec_name not in ("runid", "relstring")]
    started = time.perf_counter()
    result = on_spark.evaluate(spark, folder / "qrels.dl19-passage.txt", [folder / "runs"], measures, level=2,
                               strict=False)
    try:
        per_query = result.per_query.collect()
        print(f"warehouse.engines.spark.evaluate, six runs, all_trec, -l 2: {time.perf_counter() - started:.1f} s")
        by_name = {m.name: m for m in measures}
        compared = expected_lines = 0
        for run in DL19_RUNS:
            expected = dl19_expected(conformance, run, level=2)
            expected_lines += sum(1 for name, query in expected if query != "all" and name != "relstring")
            name = run  # named as irw ingest run names them: the tag `rank` is shared
            for row in (r for r in per_query if r.run == name):
                m = by_name[row.measure]
                if not m.family.per_query:  # num_q: trec_eval prints it for "all" only
                    continue
                shown = str(int(row.value)) if m.is_count else f"{row.value:.4f}"
                assert shown == expected[(m.trec_name, row.query)], (run, m.trec_name, row.query)
                compared += 1
            summary = {r[1]: r[2] for r in result.summary.rows if r[0] == name}
            for m in measures:
                if m.family.summary and m.family.trec_name not in ("num_q",):
                    shown = str(int(summary[m.name])) if m.is_count else f"{summary[m.name]:.4f}"
                    assert shown == expected[(m.trec_name, "all")], (run, m.trec_name)
        assert compared == expected_lines  # every per-query line trec_eval printed
    finally:
        result.close()


@pytest.mark.spark
def test_dataframes_in_give_evaluate_files_numbers(spark, conformance):
    from warehouse.engines import spark as on_spark

    folder = conformance / "dl19-passage"
    qrels_path, run_path = folder / "qrels.dl19-passage.txt", folder / "runs" / "run.dl19.BM25.txt"
    qrels = spark.read.csv(str(qrels_path), sep=" ", schema="qid STRING, iter STRING, docno STRING, label INT")
    run = spark.read.csv(str(run_path), sep=" ", schema="qid STRING, q0 STRING, docno STRING, rank INT, "
                                                          "score DOUBLE, tag STRING")
    measures = ["AP", "nDCG@10", "P@10", "R(rel=2)@1000", "RR"]
    # gain maps and 11pt_avg levels out of order, read as trec_eval reads them (tests/test_gain_order.py,
    # tests/test_trec_eval_lists.py): trec_eval's 0.4195, 0.2959 and 0.8578 on DL19 BM25
    out_of_order = ["ndcg.1=3.5,2=9.0,4=7.0", "Rndcg.1=3.5,2=9.0,4=7.0", "G.1=0.5,2=1,3=1.5", "ndcg_rel.3=2.5",
                    "11pt_avg.1.0,0.9,0.8,0.7,0.6,0.5,0.4,0.3,0.2,0.1,0.0"]
    result = on_spark.evaluate(spark, qrels, {"bm25": run}, measures + out_of_order)
    try:
        local = warehouse.evaluate_files(qrels_path, {"bm25": run_path}, measures + out_of_order)
        n = len(measures)
        assert result.summary.rows[:n] == local.summary.rows[:n]  # every bit of every double
        # the same numbers (a sum in another order may differ in its last bit)
        assert {row[1]: row[2] for row in result.summary.rows[n:]} == \
            pytest.approx({row[1]: row[2] for row in local.summary.rows[n:]}, rel=1e-12)
        shown = {row[1]: f"{row[2]:.4f}" for row in result.summary.rows}
        assert [shown[name] for name in ("ndcg_1=3.5,2=9,4=7", "G_1=0.5,2=1,3=1.5",
                                         "11pt_avg_1,0.9,0.8,0.7,0.6,0.5,0.4,0.3,0.2,0.1,0")] == \
            ["0.4195", "0.2959", "0.8578"]
        assert result.per_query.count() == 43 * (n + len(out_of_order))
    finally:
        result.close()


BAD_RUN = """\
q1 Q0 d1 1 2.5 tag
q1 Q0 d2 2 abc tag
q1 Q0 d3 3 inf tag
q1 Q0 d1 4 1.0 tag

q2 Q0 d1 1 1.0
q2 Q0 d2 x 0.5 tag
q2 Q0 d3 3 0.4 tag extra
"""
BAD_QRELS = """\
q1 0 d1 1
q1 0 d2 x
q1 0 d1 0
q2 0 d1
q2 d2 1
q2 0 d3 99999999999
"""


def _local_problems(qrels: Path, run: Path | None, strict: bool) -> list[tuple[int, str]]:
    from warehouse.ingestion import files as ingest
    from warehouse.evaluation import oneshot

    with oneshot.database() as db, pytest.raises(InputFileError) as caught:
        if run is None:
            ingest.ingest_qrels(db, qrels, "qrels")
        else:
            ingest.ingest_qrels(db, qrels, "qrels")
            ingest.ingest_run(db, run, "run", strict=strict)
    return [(p.line, p.reason) for p in caught.value.problems]


@pytest.mark.spark
@pytest.mark.parametrize("strict", [True, False], ids=["irw-rules", "trec_eval-rules"])
def test_bad_text_gives_the_problems_local_ingest_gives(spark, tmp_path, strict):
    from warehouse.engines import spark as on_spark

    good_qrels = tmp_path / "qrels.txt"
    good_qrels.write_text("q1 0 d1 1\nq2 0 d1 1\n")
    run = tmp_path / "run.txt"
    run.write_text(BAD_RUN)
    with pytest.raises(InputFileError) as caught:
        on_spark.evaluate(spark, good_qrels, [run], ["AP"], strict=strict)
    problems = [(p.line, p.reason) for p in caught.value.problems]
    assert {p.path for p in caught.value.problems} == {str(run)}
    assert problems == _local_problems(good_qrels, run, strict)
    assert (4, "duplicate document d1 for query q1 (first at line 1)") in problems


@pytest.mark.spark
def test_bad_qrels_give_the_problems_local_ingest_gives(spark, tmp_path):
    from warehouse.engines import spark as on_spark

    qrels = tmp_path / "qrels.txt"
    qrels.write_text(BAD_QRELS)
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d1 1 1.0 t\n")
    with pytest.raises(InputFileError) as caught:
        on_spark.evaluate(spark, qrels, [run], ["AP"])
    assert [(p.path, p.line, p.reason) for p in caught.value.problems] == \
        [(str(qrels), line, reason) for line, reason in _local_problems(qrels, None, True)]


def readme_spark_example() -> str:
    """The Python block of the README's "On Spark" section that runs locally."""
    return section("On Spark").split("```python\n", 1)[1].split("```", 1)[0]  # docs/engines.md


@pytest.mark.spark
def test_the_readme_example_runs_as_printed(spark, conformance, monkeypatch):
    import contextlib

    monkeypatch.chdir(conformance / "dl19-passage")  # the example reads DL19's files from where they are
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(readme_spark_example(), "README.md (On Spark)", "exec"), {})
    printed = [line for line in output.getvalue().splitlines() if line.strip()]
    shown = section("On Spark")
    assert len(printed) >= 4
    for line in printed:
        assert line in shown.splitlines(), line  # what the example prints is what the README shows


RAW_CASES = {
    # a CR inside a line and U+0001: every such line, as local ingest lists them
    "cr-and-soh": b"q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0\rt\nq1 Q0 d3 3 0.5 t\x01\nq2 Q0 d1 1 1.0 t\n",
    # bytes that are not UTF-8: the first such line
    "not-utf8": b"q1 Q0 d1 1 2.0 t\nq1 Q0 d\xff2 2 1.0 t\nq2 Q0 d1 1 1.0 t\nq2 Q0 d\xfe9 2 0.5 t\n",
    # lines ending in CR alone (classic Mac OS): one line to both readers, with the hint
    "mac-line-ends": b"q1 Q0 d1 1 2.0 t\rq1 Q0 d2 2 1.0 t\rq2 Q0 d1 1 1.0 t\r",
    # qrels given as the run: one problem saying so
    "qrels-as-run": b"q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 1\n",
}


@pytest.mark.spark
@pytest.mark.parametrize("case", list(RAW_CASES))
def test_raw_bytes_and_swapped_files_give_the_problems_local_ingest_gives(spark, tmp_path, case):
    from warehouse.engines import spark as on_spark

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d1 1\n")
    run = tmp_path / "run.txt"
    run.write_bytes(RAW_CASES[case])
    with pytest.raises(InputFileError) as caught:
        on_spark.evaluate(spark, qrels, [run], ["AP"])
    problems = [(p.line, p.reason) for p in caught.value.problems]
    assert {p.path for p in caught.value.problems} == {str(run)}
    assert problems == _local_problems(qrels, run, True)
    assert problems  # never an empty list that would equal another empty list


@pytest.mark.spark
def test_a_run_given_as_qrels_is_said_as_local_ingest_says_it(spark, tmp_path):
    from warehouse.engines import spark as on_spark

    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d1 1 2.0 t\nq2 Q0 d1 1 1.0 t\n")
    with pytest.raises(InputFileError) as caught:
        on_spark.evaluate(spark, run, [run], ["AP"])
    assert [(p.path, p.line, p.reason) for p in caught.value.problems] == \
        [(str(run), line, reason) for line, reason in _local_problems(run, None, True)]
    assert "looks like a run file" in caught.value.problems[0].reason


def readme_spark_submit() -> tuple[str, str]:
    """The README's two lines that run irw's command line under spark-submit: the driver file's
    printf, and the spark-submit command (its continuation line joined)."""
    on_spark = section("On Spark")
    (block,) = [b for b in on_spark.split("```")[1::2] if "irw_driver.py" in b]
    printf, *submit = block.strip("\n").replace("\\\n", "").splitlines()
    (submit,) = submit
    return printf, submit


@pytest.mark.spark
def test_the_readme_spark_submit_lines_run_under_spark_submit(spark, conformance, tmp_path):
    import shlex
    import subprocess
    import sys

    folder = conformance / "dl19-passage"
    printf, submit = readme_spark_submit()
    venv_bin = Path(sys.executable).parent
    # this machine's Spark settings, as a cluster's spark-defaults.conf gives them: a shuffle of DL19's
    # small tables in 4 partitions, not Spark's 200 (as the tests' session, conftest.py)
    conf = tmp_path / "spark-conf"
    conf.mkdir()
    spark_conf_dir(conf, {"spark.sql.shuffle.partitions": "4"})  # with the tests' JVM settings
    env = {**os.environ, "PATH": f"{venv_bin}{os.pathsep}{os.environ['PATH']}", "SPARK_CONF_DIR": str(conf)}
    subprocess.run(["bash", "-c", printf], cwd=tmp_path, env=env, check=True)  # as printed
    argv, _, output = submit.partition(" > ")
    # this machine for the cluster, DL19's files for the cluster's, the rest as printed
    argv = [{"spark://head:7077": "local[1]", "8g": "1g",
             "hdfs:///trec/qrels.txt": str(folder / "qrels.dl19-passage.txt"),
             "hdfs:///trec/runs/run.bm25.txt": str(folder / "runs" / "run.dl19.BM25.txt")}.get(a, a)
            for a in shlex.split(argv)]
    assert argv[0] == "spark-submit" and "irw_driver.py" in argv and output.strip() == "run.bm25.eval"
    result = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    expected = set((folder / "expected_run.dl19.BM25.all_trec.q.v9.txt").read_text().splitlines())
    printed = result.stdout.splitlines()
    assert len(printed) == 2 * 44 and all(line in expected for line in printed), result.stdout[:2000]


@pytest.mark.spark
def test_a_spark_failure_in_a_command_is_one_line_that_says_what_to_do(spark):
    from warehouse.engines.spark import SparkError, command_session

    # what pyspark raises when the driver runs out of memory collecting rows (py4j's error type)
    failure = type("Py4JJavaError", (Exception,), {"__module__": "py4j.protocol"})
    with pytest.raises(SparkError) as caught:
        with command_session("local[2]"):
            raise failure("An error occurred while calling o91.collectToPython.\n"
                          ": org.apache.spark.SparkException: [UNABLE_TO_ACQUIRE_MEMORY] Unable to acquire 65536 "
                          "bytes of memory, got 0.\n\tat org.apache.spark.memory.MemoryConsumer.throwOom")
    message = str(caught.value)
    assert message.startswith("Spark failed: org.apache.spark.SparkException: [UNABLE_TO_ACQUIRE_MEMORY]")
    assert "SPARK_DRIVER_MEMORY=8g" in message and "\n" not in message
    assert spark.sparkContext._jsc is not None  # the test's session was not stopped by the command


@pytest.mark.spark
def test_irw_s_session_keeps_the_caller_s_shuffle_partitions_and_its_own_settings(spark):
    from warehouse.engines.spark import SESSION_CONF, SparkDatabase

    db = SparkDatabase(spark)
    try:
        assert db.spark is not spark
        # the tests' session (conftest.py) shuffles into 4 partitions; newSession() alone would give 200
        assert db.spark.conf.get("spark.sql.shuffle.partitions") == spark.conf.get("spark.sql.shuffle.partitions") == "4"
        assert all(db.spark.conf.get(key) == value for key, value in SESSION_CONF.items())
        # irw's settings stay in its session
        assert spark.conf.get("spark.sql.sources.partitionColumnTypeInference.enabled") == "true"
    finally:
        db.close()


# Each rule sql/spark/ restates of local ingest (issue 25: held equal by a test of every rule), with
# the inputs the tests above do not give: (what, kind, the file's bytes, strict). A case either
# side accepts must be accepted by the other.
RULE_CASES = [
    ("scores: forms accepted, NaN, overflow; rank out of range; a comment; tabs", "run",
     b"q1 Q0 d1 1 NaN t\nq1 Q0 d2 2 1e400 t\nq1 Q0 d3 99999999999999999999 1.0 t\nq1 Q0 d4 4 +1 t\n"
     b"q1 Q0 d5 5 .5 t\n# a comment line\nq1 Q0 d6 6 1. t\nq1 Q0 d7 7 -1e5 t\nq1 Q0 d8 8 0x10 t\n"
     b"q2\tQ0\td1\t1\t1.0\tt\n", True),
    ("the same with trec_eval's rules", "run",
     b"q1 Q0 d1 1 NaN t\nq1 Q0 d2 2 1e400 t\nq1 Q0 d3 99999999999999999999 1.0 t\nq1 Q0 d4 4 +1 t x\n", False),
    ("two tags in one run file", "run", b"q1 Q0 d1 1 1.0 a\nq1 Q0 d2 2 0.5 b\nq2 Q0 d1 1 1.0 a\n", True),
    ("NUL inside a line", "run", b"q1 Q0 d1 1 2.0 t\nq1 Q0 d\x002 2 1.0 t\n", True),
    ("qrels: negative and signed grades, a fraction, 2 and 5 fields", "qrels",
     b"q1 0 d1 1\nq1 0 d2 -1\nq1 0 d3 +2\nq1 0 d4 1.5\nq1 d5\nq1 0 d6 1 x\n", True),
    ("qrels of 3 fields, then 4", "qrels", b"q1 d1 1\nq1 0 d2 1\nq2 d1 0\n", True),
    # a file with no data line gave Spark no row to find it by: it was left out of the runs
    ("an empty run file", "run", b"", True),
    ("a run file of a comment and a blank line", "run", b"# nothing yet\n\n", True),
    ("an empty qrels file (Spark said 'no judgment lines')", "qrels", b"", True),
]


def _problems_or_none(call) -> list[tuple[int, str]]:
    try:
        call()
    except InputFileError as exc:
        return [(p.line, p.reason) for p in exc.problems]
    return []


@pytest.mark.spark
def test_every_rule_spark_restates_gives_the_problems_local_ingest_gives(spark, tmp_path):
    from warehouse.ingestion import files as ingest
    from warehouse.evaluation import oneshot
    from warehouse.engines import spark as on_spark

    good_qrels = tmp_path / "good.qrels"
    good_qrels.write_text("q1 0 d1 1\nq2 0 d1 1\n")
    good_run = tmp_path / "good.run"
    good_run.write_text("q1 Q0 d1 1 1.0 t\n")
    differ = []
    for what, kind, data, strict in RULE_CASES:
        path = tmp_path / f"case.{kind}"
        path.write_bytes(data)
        qrels, run = (path, good_run) if kind == "qrels" else (good_qrels, path)

        def local():
            with oneshot.database() as db:
                ingest.ingest_qrels(db, qrels, "qrels")
                ingest.ingest_run(db, run, "run", strict=strict)

        mine = _problems_or_none(local)
        theirs = _problems_or_none(lambda: on_spark.evaluate(spark, qrels, [run], ["AP"], strict=strict))
        if mine != theirs:
            differ.append(f"{what}: local {mine}, Spark {theirs}")
    assert not differ, "\n".join(differ)


@pytest.mark.spark
def test_an_empty_run_file_beside_others_is_refused_as_without_spark(spark, tmp_path):
    """`irw trec-eval --engine spark` with an empty file among its runs ended in a traceback
    (KeyError: 'run2'): the file had no line for Spark to find it by and was left out."""
    from warehouse.commands import trec_eval

    qrels = write_file(tmp_path, "qrels", "q1 0 d0 1\n")
    good = write_file(tmp_path, "run.good", "q1 Q0 d0 1 1 t\n")
    empty = write_file(tmp_path, "run.empty", "")
    with pytest.raises(InputFileError) as raised:
        trec_eval.run(["--engine", "spark", "-q", "-m", "map", str(qrels), str(good), str(empty)], io.StringIO())
    assert [(p.path, p.line, p.reason) for p in raised.value.problems] == [
        (str(empty), 0, "no run lines (the file is empty, or holds only blank lines and comments)")]


# Each rule of sql/spark/frame_*_problems.sql, the rules local ingest of a data frame applies
# (warehouse/ingestion/frames.py and the file rules it reaches), broken by a row of a frame:
# (what, kind, the frame's columns). A frame breaks several rules, on different rows, where local
# ingest reports them together (one Spark job per frame: they are slow). Spark's problems must be
# local ingest's: the message, the row named (0-based, as FrameProblem), the run frame's label,
# and how many there are.
FRAME_RULE_CASES = [
    ("qrels: a missing query, document and grade (NaN); whitespace in a document", "qrels",
     {"query_id": ["q1", None, "q1", "q1", "q1"], "doc_id": ["d1", "d2", None, "d3", "d\t4"],
      "grade": [1, 0, 0, None, 1]}),
    ("qrels: grades of text, not integers or out of range; a document judged twice, and again", "qrels",
     {"query_id": ["q1"] * 7, "doc_id": ["d1", "d2", "d3", "d4", "d1", "d5", "d1"],
      "grade": ["1", "1.5", "x", "99999999999", "1", "+2", "-1"]}),
    ("qrels: fractional grades (a floating-point column)", "qrels",
     {"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "grade": [1.0, 1.5]}),
    ("run: a missing query, document and score, a NaN score; whitespace in a query and a document", "run",
     {"query_id": [None, "q1", "q1", "q2", "q 1", "q1"], "doc_id": ["d1", None, "d3", "d1", "d5", "d 6"],
      "score": [1.0, 0.5, None, float("nan"), 0.1, 0.2]}),
    ("run: infinite scores; a document twice for a query", "run",
     {"query_id": ["q1", "q1", "q1", "q1"], "doc_id": ["d1", "d2", "d3", "d1"],
      "score": [1.0, float("inf"), float("-inf"), 0.2]}),
    ("run: a missing rank", "run", {"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [1.0, 0.5],
                                    "rank": [1, None]}),
]


def _frame_problems_or_none(call) -> tuple[list[tuple], int]:
    from warehouse.ingestion.frames import FrameProblem

    try:
        call()
    except InputFileError as exc:
        return [(type(p) is FrameProblem, p.path, p.line, p.reason) for p in exc.problems], exc.total
    return [], 0


@pytest.mark.spark
def test_every_frame_rule_spark_restates_gives_the_problems_local_ingest_gives(spark):
    pandas = pytest.importorskip("pandas")
    from warehouse.engines import spark as on_spark

    differ = []
    db = on_spark.SparkDatabase(spark)  # the loaders alone: what evaluate runs first, on one database
    try:
        with warehouse.open(":memory:") as wh:
            for what, kind, columns in FRAME_RULE_CASES:
                frame = pandas.DataFrame(columns)

                def local():
                    wh.ingest_qrels(frame, on_spark.QRELS_SET_NAME) if kind == "qrels" else wh.ingest_run(frame, "run")

                def on_spark_():
                    given = spark.createDataFrame(frame)
                    on_spark.load_qrels(db, given) if kind == "qrels" else on_spark.load_runs(db, {"run": given})

                mine = _frame_problems_or_none(local)
                theirs = _frame_problems_or_none(on_spark_)
                if kind == "qrels":  # the Spark qrels set has no name of the user's: "qrels frame"
                    mine = ([(f, path.replace(f" {on_spark.QRELS_SET_NAME}", ""), line, reason)
                             for f, path, line, reason in mine[0]], mine[1])
                if not mine[0] or mine != theirs:
                    differ.append(f"{what}: local {mine}, Spark {theirs}")
    finally:
        db.close()
    assert not differ, "\n".join(differ)


@pytest.mark.spark
def test_float_ids_and_empty_frames_are_refused_on_spark_as_by_local_ingest(spark):
    from warehouse.engines import spark as on_spark

    db = on_spark.SparkDatabase(spark)
    try:
        run = spark.createDataFrame([(1.0, "d1", 1.0)], "qid double, docno string, score double")
        with pytest.raises(warehouse.UsageError) as raised:
            on_spark.load_runs(db, {"r": run})
        assert str(raised.value) == (
            "the run frame's qid column holds floats (double), and a float is no id: its 1.0 would never match the "
            "1 of a qrels file. Give the ids as integers or text (frame.withColumn('qid', F.col('qid').cast('long')); "
            "pandas makes a column of integers float where it holds NaN: drop those rows first)")
        qrels = spark.createDataFrame([("1", 2.0, 1)], "query_id string, doc_id float, relevance int")
        with pytest.raises(warehouse.UsageError, match=r"^the qrels frame's doc_id column holds floats \(float\)"):
            on_spark.load_qrels(db, qrels)
        # an empty frame is said as one, as by local ingest (tests/test_frames.py), not as an empty file
        with pytest.raises(InputFileError, match=r"^qrels frame: the frame has no rows$"):
            on_spark.load_qrels(db, spark.createDataFrame([], "query_id string, doc_id string, relevance int"))
        with pytest.raises(InputFileError, match=r"^run frame r: the frame has no rows$"):
            on_spark.load_runs(db, {"r": spark.createDataFrame([], "qid string, docno string, score double")})
        with pytest.raises(warehouse.UsageError, match=r"no score column: name it score \(it has qid, docno\)$"):
            on_spark.load_runs(db, {"r": spark.createDataFrame([("1", "d")], "qid string, docno string")})
    finally:
        db.close()


@pytest.mark.spark
def test_trec_eval_engine_spark_reads_the_named_files_only(spark, conformance, tmp_path):
    """Hadoop expands `* ? [ ] { }` (and takes `\\` as an escape) in the paths Spark reads: each file
    is read as named there too, the run and the qrels, with the numbers of the plain copies."""
    from test_glob_chars_in_names import _folder_with, _lines
    from warehouse.commands import trec_eval

    source = conformance / "dl19-passage"
    qrels, run = source / "qrels.dl19-passage.txt", source / "runs" / "run.dl19.BM25.txt"
    measures = ["-q", "-m", "num_q", "-m", "num_ret", "-m", "num_rel", "-m", "map"]
    for number, name in enumerate(["s*.txt", "s{a,b}.txt", "s\\x.txt"]):
        case = tmp_path / str(number)
        case.mkdir()
        odd, plain = _folder_with(case, name, _lines(run, 1, 100), _lines(run, 101, 300))
        odd_qrels = odd.with_name("q" + name[1:])
        shutil.copyfile(qrels, odd_qrels)
        for decoy in ("qx.txt", "q1.txt", "qa.txt"):  # what the qrels' name would match: judged twice
            (odd.parent / decoy).write_bytes(_lines(qrels, 1, 2000))
        plain_qrels = plain.with_name("qrels.txt")
        shutil.copyfile(odd_qrels, plain_qrels)
        on_spark, on_duckdb = io.StringIO(), io.StringIO()
        trec_eval.run(["--engine", "spark", *measures, str(odd_qrels), str(odd)], on_spark)
        trec_eval.run([*measures, str(plain_qrels), str(plain)], on_duckdb)
        assert on_spark.getvalue() == on_duckdb.getvalue(), name
        assert "num_ret               \tall\t100\n" in on_spark.getvalue(), name


def test_a_bad_master_is_named_before_spark_starts_and_java_only_when_missing(monkeypatch, tmp_path):
    """(A user's walk) `--master bogus` was reported as a missing Java runtime after the JVM failed
    to start: a master of no form Spark knows is refused first, with the forms; the Java hint is
    given only where no java is found."""
    from warehouse.engines import spark as on_spark
    from warehouse.errors import UsageError

    for bad in ("bogus", "local[x]", "local[0]", "spark:/host:7077", "spark://host", "k8s://", "mesos://h:5050"):
        with pytest.raises(UsageError) as refused:
            on_spark.session(bad)
        message = str(refused.value)
        assert message.startswith(f"--master {bad!r} is not a Spark master URL") and "local[N]" in message, message
        assert "yarn" in message and "spark://HOST:PORT" in message and "Java" not in message
    for good in ("local", "local[2]", "local[*]", "local[2,3]", "local[*,4]", "local-cluster[2,1,1024]",
                 "spark://h1:7077,h2:7077", "spark://[::1]:7077", "yarn", "k8s://https://host:6443"):
        on_spark.check_master(good)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no java on it
    assert "needs a Java 17 runtime" in on_spark._java_hint()
    # a JAVA_HOME without bin/java (a walk: spark-class's "No such file or directory" and nothing of Java)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "nonexistent"))
    assert on_spark._java_hint() == (f"; JAVA_HOME is {tmp_path / 'nonexistent'}, which holds no bin/java: Spark 4 "
                                     "needs a Java 17 runtime (java on PATH or JAVA_HOME), e.g. Debian's "
                                     "openjdk-17-jre-headless; set JAVA_HOME to its folder")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "java").write_text("#!/bin/sh\n")
    (tmp_path / "bin" / "java").chmod(0o755)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    assert "Java" not in on_spark._java_hint()


@pytest.mark.spark
def test_spark_names_runs_and_qrels_as_irw_ingest_does(spark, conformance, tmp_path):
    """(A user's walk, multi-collection: one folder per system, each holding trec_results_<collection>
    files tagged `rank`) Spark named each file alone (trec_results_covid three times: refused), the
    qrels set `qrels`, and said "name at least one run" of a folder of folders: now the names and
    systems are `irw ingest run`'s, the qrels set's ingest's, and the folder is said as ingest says it."""
    from warehouse.engines import spark as on_spark, spark_store
    from warehouse.errors import IrwError

    multi = conformance / "multi-collection"
    qrels = str(multi / "qrels" / "qrels.dl21-passage.txt")
    systems = ("BM25", "BM25_RM3", "SPLADE_P_P_ENSEMBLE_DISTIL")
    with pytest.raises(InputFileError) as refused:
        on_spark.evaluate(spark, qrels, [str(multi / "runs")], ["AP"])
    assert "a folder without run files, only folders (BM25, BM25_RM3, SPLADE_P_P_ENSEMBLE_DISTIL); " \
           "a folder's subfolders are not read" in str(refused.value)
    # each folder one system's runs of four collections: BM25.covid ... (ingest's rule 3); those of
    # the collections DL 2021's qrels do not judge are left out, named (they were an error each)
    folders = on_spark.evaluate(spark, qrels, [str(multi / "runs" / s) for s in systems], ["AP"])
    try:
        assert sorted(row[0] for row in folders.summary.rows) == [f"{s}.dl21" for s in systems]
        assert folders.left_out == tuple(sorted(f"{s}.{c}" for s in systems for c in ("covid", "dl22", "news")))
    finally:
        folders.close()
    # no run judged: each is said, as before
    with pytest.raises(IrwError, match=r"run trec_results_covid has no query judged in qrels qrels\.dl21-passage "):
        on_spark.evaluate(spark, qrels, [str(multi / "runs" / "BM25" / "trec_results_covid.txt")], ["AP"])
    # one collection's file of each system: the folders name the systems (rule 4)
    files = [multi / "runs" / s / "trec_results_dl21.txt" for s in systems]
    result = on_spark.evaluate(spark, qrels, [str(f) for f in files], ["AP"])
    try:
        assert sorted(row[0] for row in result.summary.rows) == [f"{s}.trec_results_dl21" for s in systems]
        with warehouse.open(tmp_path / "spark.duckdb") as wh:
            stored = spark_store.store(result, wh.db, qrels)
            on_spark_runs = wh.db.fetchall("select name, system from runs order by name")
    finally:
        result.close()
    assert stored.qrels == "qrels.dl21-passage"
    with warehouse.open(tmp_path / "local.duckdb") as wh:
        wh.ingest_runs(files)
        assert on_spark_runs == wh.db.fetchall("select name, system from runs order by name")


@pytest.mark.spark
def test_spark_tells_collections_numbering_queries_alike_apart_as_ingest_does(spark, conformance, tmp_path):
    """Two collections whose query ids coincide (test_shared_query_ids.py: covid and news renumbered
    as touche): Spark names the files as `irw ingest run` does, the documents each file ranks
    first included, so a run evaluated there and the same file ingested are one run."""
    from warehouse.engines import spark as on_spark
    from test_shared_query_ids import EXPECTED_RUNS, SYSTEMS, shared_ids_folder

    multi = conformance / "multi-collection"
    folder = shared_ids_folder(multi, tmp_path)
    files = [folder / collection / f"{system}.txt" for collection in ("covid", "touche") for system in SYSTEMS]
    qrels = multi / "qrels" / "qrels.beir-v1.0.0-trec-covid.test.txt"
    result = on_spark.evaluate(spark, str(qrels), [str(f) for f in files], ["AP"])
    try:
        assert sorted(row[0] for row in result.summary.rows) == sorted(EXPECTED_RUNS)
    finally:
        result.close()


@pytest.mark.spark
def test_a_folder_s_readme_is_left_out_on_spark_as_by_ingest(spark, conformance, tmp_path):
    """(A newcomer's walk) a folder of runs as publishers ship it holds a README.md: `irw ingest run`
    and the drop-in leave it out, but `irw eval --engine spark --runs FOLDER` handed the whole folder
    to Spark, which read the README as a run ("expected 6 fields"). Spark reads the folder's files
    as ingest takes them."""
    from warehouse.engines import spark as on_spark

    folder = tmp_path / "runs"
    folder.mkdir()
    shutil.copyfile(conformance / "dl19-passage" / "runs" / "run.dl19.BM25.txt", folder / "BM25.txt")
    (folder / "README.md").write_text("# DL19 runs\n\nRankLLM first-stage results, one file per system.\n")
    with pytest.warns(UserWarning, match=r"README\.md: left out of the folder's runs \(a \.md document"):
        result = on_spark.evaluate(spark, conformance / "dl19-passage" / "qrels.dl19-passage.txt", [folder], ["AP"])
    try:
        assert [(row[0], f"{row[2]:.4f}") for row in result.summary.rows] == \
            [("BM25", dl19_expected(conformance, "BM25")[("map", "all")])]
    finally:
        result.close()
