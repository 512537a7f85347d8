"""A run or a qrels set is known by its text, compressed or not (text_sha256: schema 21 for runs,
22 for qrels sets).

Before, a run was known by its file's bytes only: `gzip BM25.txt` and the folder ingested again
stored BM25.txt.gz as a second run beside BM25 (exit 0), a folder per system whose files were
compressed for the archive was refused as new versions of every run, and `--replace` dropped the
scores of runs whose text had not changed; a gzipped qrels file was "already exists with different
content", which --replace answered by dropping every score computed with it. A file the warehouse
holds under another name, or holds compressed, is the same run or set, said so, and changes nothing.
"""
from __future__ import annotations

import gzip
import hashlib
import shutil
from pathlib import Path

import pytest

import warehouse
from warehouse.store.transfer import copy_warehouse

from conftest import compress


def _runs(irw) -> list[tuple]:
    result = irw("sql", "select name, system from runs order by name", "--format", "csv")
    assert result.exit_code == 0, result.stderr
    return result.stdout.splitlines()


def _compressed_copy(source: Path, folder: Path, suffix: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / (source.name + suffix)
    target.write_bytes(compress(source.read_bytes(), suffix))
    return target


@pytest.mark.parametrize("suffix", [".gz", ".zst", ".bz2", ".xz"])
def test_a_stored_run_compressed_and_ingested_again_is_the_same_run(irw, tmp_path, conformance, suffix):
    runs = tmp_path / "runs"
    runs.mkdir()
    for name in ("run.dl19.BM25.txt", "run.dl19.BM25_RM3.txt"):
        shutil.copy(conformance / "dl19-passage" / "runs" / name, runs / name)
    assert irw("ingest", "run", runs).exit_code == 0
    before = _runs(irw)
    plain = runs / "run.dl19.BM25.txt"
    packed = _compressed_copy(plain, runs, suffix)
    plain.unlink()  # as `gzip runs/run.dl19.BM25.txt` leaves the folder

    result = irw("ingest", "run", runs)

    assert result.exit_code == 0, result.stderr
    assert _runs(irw) == before == ["name,system", "BM25,BM25", "BM25_RM3,BM25_RM3"]
    assert f"run BM25 already holds this text (sha256 " in result.stderr
    assert f") of {packed}; nothing to do" in result.stderr
    assert "ingested" not in result.stderr


def test_a_stored_compressed_run_decompressed_is_the_same_run(irw, tmp_path, conformance):
    source = conformance / "dl19-passage" / "runs" / "run.dl19.BM25.txt"
    packed = _compressed_copy(source, tmp_path / "archive", ".gz")
    assert irw("ingest", "run", packed).exit_code == 0
    plain = tmp_path / "work" / source.name
    plain.parent.mkdir()
    shutil.copy(source, plain)

    result = irw("ingest", "run", plain)

    assert result.exit_code == 0, result.stderr
    assert _runs(irw) == ["name,system", "run.dl19.BM25,run.dl19.BM25"]
    assert (f"run run.dl19.BM25 already holds these bytes (sha256 " in result.stderr
            and f"of {plain}; nothing to do" in result.stderr)


def test_a_run_and_its_compressed_copy_in_one_batch_are_one_run(irw, tmp_path, conformance):
    source = conformance / "dl19-passage" / "runs" / "run.dl19.BM25.txt"
    plain = tmp_path / "covid" / "BM25.txt"
    plain.parent.mkdir()
    shutil.copy(source, plain)
    packed = _compressed_copy(source, tmp_path / "news", ".gz")

    result = irw("ingest", "run", plain, packed)

    assert result.exit_code == 0, result.stderr
    assert _runs(irw) == ["name,system", "BM25,BM25"]
    assert f"{packed}: the same text as {plain}: one run, BM25, stored once" in result.stderr


def test_a_folder_per_system_compressed_for_the_archive_changes_nothing(irw, tmp_path, conformance):
    """The publisher's layout (a folder per system, the same file names in each), ingested, then
    every file gzipped in place: the twelve runs are the twelve stored, not new versions of them."""
    source = conformance / "multi-collection" / "runs"
    systems = sorted(p.name for p in source.iterdir() if p.is_dir())
    plain = [tmp_path / "runs" / system for system in systems]
    for system, folder in zip(systems, plain):
        shutil.copytree(source / system, folder)
    assert irw("ingest", "run", *plain).exit_code == 0
    before = _runs(irw)
    assert len(before) == 13
    for folder in plain:
        for file in sorted(folder.iterdir()):
            with open(file, "rb") as src, gzip.open(str(file) + ".gz", "wb") as dst:
                shutil.copyfileobj(src, dst)
            file.unlink()

    result = irw("ingest", "run", *plain)

    assert result.exit_code == 0, result.stderr
    assert _runs(irw) == before
    assert result.stderr.count("already holds this text") == 12, result.stderr
    assert "new version" not in result.stderr and "ingested" not in result.stderr


def test_replace_with_the_compressed_text_keeps_the_scores(irw, tmp_path, conformance):
    dl19 = conformance / "dl19-passage"
    run = tmp_path / "BM25.txt"
    shutil.copy(dl19 / "runs" / "run.dl19.BM25.txt", run)
    assert irw("ingest", "qrels", dl19 / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    assert irw("ingest", "run", run).exit_code == 0
    assert irw("eval", "--qrels", "dl19", "-m", "AP", "-m", "nDCG@10").exit_code == 0
    scores = irw("sql", "select count(*) from scores", "--format", "csv").stdout
    packed = _compressed_copy(run, tmp_path, ".gz")

    result = irw("ingest", "run", packed, "--replace")

    assert result.exit_code == 0, result.stderr
    # its date by the rule (the new file's time) is applied in place; nothing else changes
    assert f"{packed}: run BM25 already holds this text; its date is now " in result.stderr, result.stderr
    assert "replaced" not in result.stderr
    assert irw("sql", "select count(*) from scores", "--format", "csv").stdout == scores != "count_star()\n0\n"


def test_a_compressed_run_stored_now_is_found_by_its_bytes_without_staging(wh, tmp_path, conformance):
    """Both sha256s are stored: ingesting the same archive again is a hash of its bytes, as before."""
    packed = _compressed_copy(conformance / "dl19-passage" / "runs" / "run.dl19.BM25.txt", tmp_path, ".gz")
    wh.ingest_run(packed, "BM25")
    file_sha, text_sha = wh.sql("select sha256, text_sha256 from runs").rows[0]
    assert file_sha == hashlib.sha256(packed.read_bytes()).hexdigest()
    assert text_sha == hashlib.sha256(gzip.decompress(packed.read_bytes())).hexdigest()
    again = wh.ingest_run(packed, "BM25")
    assert again.status == "unchanged"


def test_a_warehouse_stored_before_schema_21_knows_its_plain_runs_compressed(db_path, tmp_path, conformance):
    source = conformance / "dl19-passage" / "runs" / "run.dl19.BM25.txt"
    with warehouse.open(db_path) as wh:
        wh.ingest_run(source, "BM25")
        # back to schema 20, as a warehouse stored before runs were known by their text
        wh.db.execute("alter table runs drop column text_sha256")
        wh.db.execute("alter table qrels_sets drop column text_sha256")  # schema 22's
        wh.db.execute("delete from irw_schema where version >= 21")
    packed = _compressed_copy(source, tmp_path, ".xz")
    with warehouse.open(db_path) as wh:
        assert wh.db.schema_version() >= 21
        assert wh.sql("select name, text_sha256 from runs").rows == [("BM25", None)]
        result = wh.ingest_runs([packed])
        assert [(r.name, r.status) for r in result] == [("BM25", "unchanged")]
        assert wh.sql("select count(*) from runs").rows == [(1,)]


def test_copy_leaves_a_run_whose_text_the_target_holds_compressed(tmp_path, conformance):
    source = conformance / "dl19-passage" / "runs" / "run.dl19.BM25.txt"
    packed = _compressed_copy(source, tmp_path, ".zst")
    with warehouse.open(tmp_path / "a.duckdb") as a, warehouse.open(tmp_path / "b.duckdb") as b:
        a.ingest_run(source, "BM25")
        b.ingest_run(packed, "BM25")
        result = copy_warehouse(a.db, b.db)
        assert result.runs == {"BM25": "unchanged"}
        assert b.sql("select sha256 <> text_sha256 from runs").rows == [(True,)]


def test_a_bad_compressed_file_is_refused_before_its_text_is_hashed(irw, tmp_path, monkeypatch):
    """Its text is hashed only once it is staged: a file its head refuses is not read whole."""
    from warehouse.ingestion import files

    hashed = []
    real = files.text_sha256
    monkeypatch.setattr(files, "text_sha256", lambda path, scan: hashed.append(path) or real(path, scan))
    bad = tmp_path / "bad.run.gz"
    bad.write_bytes(gzip.compress(b"q1 Q0 d1 1 notanumber tag\n" * 20_000))

    result = irw("ingest", "run", bad)

    assert result.exit_code != 0
    assert f"Error: {bad}:1: " in result.stderr and "the rest of the file was not read" in result.stderr
    assert hashed == []



def test_a_shared_warehouse_knows_a_run_compressed_by_its_text(postgres_url, tmp_path, conformance):
    """On PostgreSQL a run or a set is stored locally and sent (text_sha256 travels with it)."""
    source = conformance / "dl19-passage" / "runs" / "run.dl19.BM25.txt"
    packed = _compressed_copy(source, tmp_path, ".gz")
    qrels = conformance / "dl19-passage" / "qrels.dl19-passage.txt"
    with warehouse.open(postgres_url) as wh:
        assert wh.ingest_qrels(_compressed_copy(qrels, tmp_path, ".gz"), "dl19").status == "ingested"
        assert wh.ingest_qrels(qrels).status == "unchanged"
        assert wh.ingest_run(packed, "BM25").status == "ingested"
        assert wh.sql("select sha256 <> text_sha256 from runs").rows == [(True,)]
        assert [(r.name, r.status) for r in wh.ingest_runs([source], name="BM25")] == [("BM25", "unchanged")]
        assert wh.sql("select count(*) from runs").rows == [(1,)]


def test_other_text_compressed_is_still_other_content(irw, tmp_path, conformance):
    runs = conformance / "dl19-passage" / "runs"
    plain = tmp_path / "BM25.txt"
    shutil.copy(runs / "run.dl19.BM25.txt", plain)
    assert irw("ingest", "run", plain).exit_code == 0
    other = tmp_path / "gz" / "BM25.txt.gz"
    other.parent.mkdir()
    other.write_bytes(gzip.compress((runs / "run.dl19.BM25_RM3.txt").read_bytes()))

    result = irw("ingest", "run", other, "--name", "BM25")

    assert result.exit_code == 1
    assert f"{other}: run BM25 already exists with different content; pass `--replace`" in result.stderr


def _qrels_count(irw) -> list[str]:
    return irw("sql", "select name, judgment_count from qrels_sets order by name", "--format", "csv").stdout.splitlines()


@pytest.mark.parametrize("suffix", [".gz", ".xz"])
def test_a_stored_qrels_set_compressed_is_the_same_set_even_renamed(irw, tmp_path, conformance, suffix):
    qrels = tmp_path / "qrels.dl19-passage.txt"
    shutil.copy(conformance / "dl19-passage" / "qrels.dl19-passage.txt", qrels)
    assert irw("ingest", "qrels", qrels).exit_code == 0
    packed = _compressed_copy(qrels, tmp_path / "archive", suffix)

    alone = irw("ingest", "qrels", packed)
    assert alone.exit_code == 0, alone.stderr
    assert f"qrels qrels.dl19-passage already holds this text (sha256 " in alone.stderr
    assert irw("rename", "qrels", "qrels.dl19-passage", "dl19").exit_code == 0
    folder = irw("ingest", "qrels", packed.parent)  # a folder: every file checked before any is stored

    assert folder.exit_code == 0, folder.stderr
    assert f"qrels dl19 already holds this text (sha256 " in folder.stderr and f"of {packed}; nothing to do" in folder.stderr
    assert _qrels_count(irw) == ["name,judgment_count", "dl19,9260"]


def test_replacing_qrels_with_their_compressed_text_keeps_the_scores(irw, tmp_path, conformance):
    dl19 = conformance / "dl19-passage"
    qrels = tmp_path / "dl19.qrels"
    shutil.copy(dl19 / "qrels.dl19-passage.txt", qrels)
    assert irw("ingest", "qrels", qrels, "--name", "dl19").exit_code == 0
    assert irw("ingest", "run", dl19 / "runs" / "run.dl19.BM25.txt").exit_code == 0
    assert irw("eval", "--qrels", "dl19", "-m", "AP").exit_code == 0
    scores = irw("sql", "select count(*) from scores", "--format", "csv").stdout
    packed = _compressed_copy(qrels, tmp_path / "gz", ".zst")

    result = irw("ingest", "qrels", packed, "--name", "dl19", "--replace")

    assert result.exit_code == 0, result.stderr
    assert "already holds this text" in result.stderr and "replaced" not in result.stderr
    assert irw("sql", "select count(*) from scores", "--format", "csv").stdout == scores != "count_star()\n0\n"


def test_a_compressed_qrels_set_is_found_by_its_bytes_and_its_text(wh, tmp_path, conformance):
    qrels = conformance / "dl19-passage" / "qrels.dl19-passage.txt"
    packed = _compressed_copy(qrels, tmp_path, ".bz2")
    wh.ingest_qrels(packed, "dl19")
    assert wh.sql("select sha256 = text_sha256, text_sha256 from qrels_sets").rows == [
        (False, hashlib.sha256(qrels.read_bytes()).hexdigest())]
    assert wh.ingest_qrels(packed).status == "unchanged"
    assert wh.ingest_qrels(qrels).status == "unchanged"
    assert wh.sql("select name from qrels_sets").rows == [("dl19",)]


def test_a_compressed_prefs_file_is_the_stored_prefs_set(wh, tmp_path):
    prefs = tmp_path / "p.prefs"
    prefs.write_text("q1 g1 a d1 2\nq1 g1 b d2 1\nq1 g1 c d3 0\n")
    first = wh.ingest_prefs(prefs)
    packed = _compressed_copy(prefs, tmp_path / "gz", ".gz")

    again = wh.ingest_prefs(packed)

    assert (first.status, again.status, again.name) == ("ingested", "unchanged", first.name)
    assert wh.sql("select count(*) from qrels_sets").rows == [(1,)]
