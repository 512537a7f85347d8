"""The Python API where a notebook's user meets its edges: one path given as a str, the errors an
`except ImportError:` or a batch's handler reads, NumPy's integers as settings, type hints an IDE or
mypy reads, and a warehouse path written as a shell writes it (`~/t.duckdb`)."""
from __future__ import annotations

import subprocess
import sys
import typing
from pathlib import Path

import pytest

import warehouse
from warehouse import BatchError, MissingExtraError, UsageError
from warehouse.evaluation.settings import Settings
from warehouse.formats import formatting

from conftest import RUN_ROWS, qrels_text, run_text, write_file

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, Path]:
    """A folder of two run files and a folder holding one qrels file."""
    runs = tmp_path / "runs"
    runs.mkdir()
    write_file(runs, "run.a.txt", run_text(RUN_ROWS, tag="a"))
    write_file(runs, "run.b.txt", run_text(RUN_ROWS[:2], tag="b"))
    judged = tmp_path / "qrels"
    judged.mkdir()
    write_file(judged, "qrels.small.txt", qrels_text())
    return runs, judged


# -- 1. one path is one path ---------------------------------------------------------------------
@pytest.mark.parametrize("given", [str, Path], ids=["str", "PathLike"])
def test_one_folder_given_alone_is_one_path_not_its_letters(inputs, given):
    runs, judged = inputs
    with warehouse.open(":memory:") as wh:
        assert sorted(r.name for r in wh.ingest_runs(given(runs))) == ["a", "b"]
        assert [r.name for r in wh.ingest_qrels_files(given(judged / "qrels.small.txt"))] == ["qrels.small"]


def test_what_is_no_path_is_refused_saying_what_is_taken(inputs):
    pandas = pytest.importorskip("pandas")
    runs, _ = inputs
    frame = pandas.DataFrame({"qid": ["q1"], "docno": ["d1"], "score": [1.0]})
    with warehouse.open(":memory:") as wh:
        for given in (frame, [frame, frame], pandas.Series([1, 2]), [runs / "run.a.txt", 7], b"runs"):
            with pytest.raises(UsageError) as caught:
                wh.ingest_runs(given)
            assert "ingest_runs takes" in str(caught.value) and "ingest_run(frame, name=" in str(caught.value)
        with pytest.raises(UsageError, match="ingest_qrels_files takes .*ingest_qrels\\(frame, name"):
            wh.ingest_qrels_files([frame])
        assert wh.run_names() == []


# -- 2. a missing extra is an ImportError --------------------------------------------------------
def test_a_missing_extra_is_caught_by_a_notebooks_import_error_fallback(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # as if pandas were not installed
    try:
        warehouse.Table(["a"], [(1,)]).to_pandas()
    except ImportError as exc:
        assert isinstance(exc, MissingExtraError) and isinstance(exc, warehouse.IrwError)
        assert str(exc).startswith("pandas is not installed; install it with ")
    else:
        pytest.fail("to_pandas() without pandas raised nothing")


def test_the_docs_say_a_missing_extra_raises():
    text = (ROOT / "docs" / "python.md").read_text()
    assert "the call prints the command" not in text
    assert "`MissingExtraError`" in text and "`ImportError`" in text


# -- 3. what a BatchError holds --------------------------------------------------------------------
def test_a_batch_error_holds_what_the_docs_say(inputs):
    runs, _ = inputs
    write_file(runs, "run.c.txt", "q1 Q0 d1 one 2.0 c\n")
    write_file(runs, "run.d.txt", "q1 Q0 d1\n")
    with warehouse.open(":memory:") as wh, pytest.raises(BatchError) as caught:
        wh.ingest_runs(runs)
    lines = caught.value.lines
    assert any(line.startswith(f"{runs / 'run.c.txt'}:1: ") for line in lines)
    assert any(line.startswith(f"{runs / 'run.d.txt'}:1: ") for line in lines)
    assert lines[-1] == "nothing was stored: 2 of 4 files cannot be ingested as they are; fix the files named above, or leave them out, and run the command again"
    assert caught.value.message_lines() == lines
    text = (ROOT / "docs" / "python.md").read_text()
    assert "a `BatchError` lists every problem)" not in text  # it said so, and named no attribute
    assert "`BatchError` whose `lines`" in text


# -- 4. NumPy's integers are integers; a bool is no level ------------------------------------------
def test_numpy_integers_are_taken_as_settings(inputs):
    numpy = pytest.importorskip("numpy")
    runs, judged = inputs
    settings = Settings(level=numpy.int64(2), depth=numpy.int32(10), num_docs=numpy.uint16(5), compat=numpy.int8(10))
    assert (settings.level, settings.depth, settings.num_docs, settings.compat) == (2, 10, 5, 10)
    assert all(type(v) is int for v in (settings.level, settings.depth, settings.num_docs, settings.compat))
    assert settings.key == "level=2;depth=10;judged_only=0;complete=0;compat=10;norel=include;num_docs=5"
    evaluation = warehouse.evaluate_files(judged / "qrels.small.txt", runs / "run.a.txt", ["P@10"],
                                          level=numpy.int64(2), depth=numpy.int32(10))
    assert evaluation.settings == Settings(level=2, depth=10)


@pytest.mark.parametrize("field", ["level", "depth", "num_docs"])
def test_a_bool_is_no_integer_setting(field):
    with pytest.raises(UsageError, match=f"takes .*, not True"):
        Settings(**{field: True})
    with pytest.raises(UsageError, match="not 2.5"):
        Settings(**{field: 2.5})


# -- 5. type hints -------------------------------------------------------------------------------
def test_type_hints_resolve_without_importing_the_frame_libraries():
    # every public function and method of the API, in a process of its own: which modules it imports is the point
    probe = ("import sys, typing, warehouse\n"
             "from warehouse import core\n"
             "methods = [getattr(core.Warehouse, n) for n in dir(core.Warehouse) if not n.startswith('_')\n"
             "           and callable(getattr(core.Warehouse, n))]\n"
             "for f in (core.evaluate_files, core.evaluate_on_spark, core.open, core.copy, *methods):\n"
             "    typing.get_type_hints(f)\n"
             "hints = typing.get_type_hints(warehouse.Warehouse.ingest_run)\n"
             "print(hints['path'])\n"
             "print(sorted(m for m in ('pandas', 'polars', 'pyarrow') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    path_hint, imported = done.stdout.splitlines()
    assert "os.PathLike[str]" in path_hint and "Any" in path_hint  # a frame is a path's alternative
    assert imported == "[]"


def test_the_package_says_it_is_typed():
    assert (Path(warehouse.__file__).parent / "py.typed").is_file()


# -- 6. ~ is the home folder, as DuckDB and a shell read it ------------------------------------------
def test_a_warehouse_under_tilde_is_in_the_home_folder(tmp_path, monkeypatch):
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    home.mkdir(), cwd.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(cwd)
    with warehouse.open("~/t.duckdb") as wh:
        assert wh.path == str(home / "t.duckdb")
        wh.ingest_qrels_files([write_file(tmp_path, "qrels.small.txt", qrels_text())])
    with warehouse.open(Path("~/t.duckdb"), read_only=True) as wh:
        assert wh.qrels_sets().to_dicts()[0]["name"] == "qrels.small"
    warehouse.core.copy("~/t.duckdb", "~/u.duckdb")
    assert sorted(p.name for p in home.glob("*.duckdb")) == ["t.duckdb", "u.duckdb"]
    assert list(cwd.iterdir()) == []  # no folder named ~


def test_a_run_of_evaluate_files_is_read_back_by_the_path_it_came_from(conformance):
    run = conformance / "dl19-passage" / "runs" / "run.dl19.BM25.txt"
    evaluation = warehouse.evaluate_files(conformance / "dl19-passage" / "qrels.dl19-passage.txt", run, ["AP"])
    assert evaluation.value(run, "AP") == evaluation.value(str(run), "AP")
    assert f"{evaluation.value(run, 'AP'):.4f}" == "0.2993"  # trec_eval's map (expected_run.dl19.BM25...v9)


@pytest.mark.parametrize("first_read_only", [False, True])
def test_a_file_this_process_holds_open_otherwise_says_to_close_it(tmp_path, first_read_only):
    path = tmp_path / "w.duckdb"
    warehouse.open(path).close()
    with warehouse.open(path, read_only=first_read_only):
        with pytest.raises(warehouse.WarehouseLocked) as caught:
            warehouse.open(path, read_only=not first_read_only)
    assert "this process has it open already" in str(caught.value)
    assert "close it first (its close(), or leave its `with` block)" in str(caught.value)


def test_a_notebook_shows_a_warehouse_an_evaluation_and_a_table_briefly(conformance, tmp_path):
    """print(ev) printed the dataclass's repr of every Measure (1,541 characters for two measures);
    a Table could be measured (len) but not iterated."""
    folder = conformance / "dl19-passage"
    evaluation = warehouse.evaluate_files(folder / "qrels.dl19-passage.txt", {"bm25": folder / "runs" / "run.dl19.BM25.txt"},
                                          ["AP", "nDCG@10"])
    assert repr(evaluation).startswith("<Evaluation of 1 run against qrels ") and "AP, nDCG@10; trec_eval 9.0.8" in \
        repr(evaluation) and len(repr(evaluation)) < 300
    (row,) = list(evaluation.table())
    assert row[0] == "bm25" and f"{row[2]:.4f}" == "0.2993"
    with warehouse.open(tmp_path / "w.duckdb") as wh:
        assert repr(wh) == f"<Warehouse {tmp_path / 'w.duckdb'}>"


def test_a_misspelt_setting_is_named_with_the_one_meant(conformance):
    folder = conformance / "dl19-passage"
    with pytest.raises(TypeError, match=r"^no setting named levle; did you mean level\? \(settings: level, depth, "):
        warehouse.evaluate_files(folder / "qrels.dl19-passage.txt", folder / "runs" / "run.dl19.BM25.txt", ["AP"],
                                 levle=2)


def test_a_notebook_gets_the_leaderboard_the_command_prints(conformance, tmp_path):
    """docs/python.md named Leaderboard.to_latex(), but no call of the public API returned a
    Leaderboard (only warehouse.reports' internal leaderboard()): wh.leaderboard is `irw report
    leaderboard`'s board, with the same runs, letters and caption."""
    from conftest import Cli

    data = conformance / "dl19-passage"
    irw = Cli(tmp_path / "irw.duckdb")
    assert irw("ingest", "qrels", data / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    assert irw("ingest", "run", data / "runs").exit_code == 0
    command = ["report", "leaderboard", "-m", "nDCG@10", "-m", "AP", "--correction", "bh"]
    printed = irw(*command, "--format", "latex")
    assert printed.exit_code == 0, printed.stderr
    with warehouse.open(tmp_path / "irw.duckdb") as wh:
        board = wh.leaderboard("dl19", ["nDCG@10", "AP"], correction="bh")
        assert board.to_latex() == printed.stdout
        assert repr(board).startswith("<Leaderboard of 6 runs on qrels 'dl19', ranked by nDCG@10: nDCG@10, AP; "
                                      "baseline 'REP_LLAMA' (the top run), 10 comparisons, bh correction;")
        chosen = wh.leaderboard(measures="AP", runs="BM25*", baseline="REP_LLAMA", level=2)
        assert chosen.selection.names == ("BM25", "BM25_RM3")
        assert formatting.render(chosen.table(), "json") == irw(
            "report", "leaderboard", "BM25*", "-m", "AP", "--baseline", "REP_LLAMA", "-l", "2", "--format", "json").stdout
