"""Input files given in a form irw does not read as given, each refused with one error saying what the
file is and what to do, instead of every line's problem: compressed data whose name lacks the
suffix irw decompresses by, a qrels file given as preferences (and preferences given as a qrels
file read as preferences); and a quoted glob pattern, which `irw ingest run` expands as
`irw trec-eval` does."""
from __future__ import annotations

import shlex

import pytest

from conftest import RUN_ROWS, compress, fingerprint_at, qrels_text, run_text, write_file
from warehouse.errors import InputFileError
from warehouse.ingestion import files as ingest

FORMATS = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".zst": "zstd"}


# -- compressed data under a name without its suffix ------------------------------------------------

@pytest.mark.parametrize("suffix", FORMATS)
@pytest.mark.parametrize("command", ["ingest run", "trec-eval"])
def test_compressed_data_without_its_suffix_is_one_error(command, suffix, seeded_db, tmp_path, irw):
    """`gzip -c run > run_noext` was read as text: ~20 errors of U+0001 and CR inside lines. Now one
    error naming the format and the suffix to give; the file so named is read."""
    path = tmp_path / "run_noext"
    path.write_bytes(compress(run_text(RUN_ROWS).encode(), suffix))
    qrels = write_file(tmp_path, "q.txt", qrels_text())
    before = fingerprint_at(seeded_db)
    args = ["ingest", "run", path] if command == "ingest run" else ["trec-eval", "-m", "map", qrels, path]
    result = irw(*args, db=command == "ingest run")
    assert result.exit_code == (2 if command == "trec-eval" else 1), result.output  # trec_eval's "Quit in file"
    renamed = tmp_path / f"run_noext{suffix}"
    assert result.stderr.splitlines() == [
        f"Error: {path}: holds {FORMATS[suffix]}-compressed data, but its name does not end in {suffix}: name it "
        f"with the suffix {suffix}, by which irw reads {FORMATS[suffix]} data (e.g. mv {shlex.quote(str(path))} "
        f"{shlex.quote(str(renamed))})"], result.stderr
    assert fingerprint_at(seeded_db) == before
    path.rename(renamed)  # as the message says
    assert irw(*args[:-1], renamed, db=command == "ingest run").exit_code == 0
    # text that starts as bzip2 data does ("BZh" and a digit) is text: only the whole magic is bzip2's
    text = write_file(tmp_path, "bzh.txt", run_text([("BZh91AY", "d1", 1, "1"), ("q1", "d1", 1, "1")], tag="bzh"))
    assert irw(*args[:-1], text, db=command == "ingest run").exit_code == 0


def test_compressed_data_under_another_compression_suffix_names_its_format(seeded_db, tmp_path, irw):
    """xz data named .gz was `corrupt or truncated gz data (Not a gzipped file ...)`."""
    path = tmp_path / "run.txt.gz"
    path.write_bytes(compress(run_text(RUN_ROWS).encode(), ".xz"))
    before = fingerprint_at(seeded_db)
    result = irw("ingest", "run", path)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"Error: {path}: holds xz-compressed data, not the gz data its name says: name it with the suffix .xz, "
        f"by which irw reads xz data (e.g. mv {path} {tmp_path / 'run.txt.xz'})"], result.stderr
    assert fingerprint_at(seeded_db) == before


# -- the other preference format ----------------------------------------------------------------------

QRELS_AS_PREFS = ("looks like a qrels file (4 fields: qid jg docid rel_level), not preferences (5 fields: qid jg "
                  "jsg docid rel_level); read a qrels file as preferences with --qrels-format (irw ingest prefs) "
                  "or -R qrels_prefs (irw trec-eval)")
PREFS_AS_QRELS = ("looks like a preference file (5 fields: qid jg jsg docid rel_level), not a qrels file (4 fields: "
                  "qid jg docid rel_level); read preferences without --qrels-format (irw ingest prefs) or with -R "
                  "prefs (irw trec-eval)")
PREFS_TEXT = "".join(f"q{q} g s d{d} {d % 3}\n" for q in range(1, 4) for d in range(1, 9))


@pytest.mark.parametrize("given", ["qrels as prefs", "prefs as qrels_prefs"])
@pytest.mark.parametrize("command", ["ingest prefs", "trec-eval"])
def test_the_other_preference_format_is_one_error_naming_the_option(command, given, seeded_db, tmp_path, irw):
    """A qrels file given to `irw ingest prefs` (or `trec-eval -R prefs`) was 20 lines of `expected 5
    fields ... found 4` and a count; now one error saying what it looks like and the option that reads it."""
    qrels_format = given == "prefs as qrels_prefs"
    judgments = write_file(tmp_path, "judgments.txt", PREFS_TEXT if qrels_format else
                           "".join(f"q{q} 0 d{d} {d % 3}\n" for q in range(1, 4) for d in range(1, 9)))
    run = write_file(tmp_path, "r.txt", run_text([("q1", "d1", 1, "2"), ("q1", "d2", 2, "1")]))
    before = fingerprint_at(seeded_db)
    if command == "ingest prefs":
        result = irw("ingest", "prefs", judgments, *(["--qrels-format"] if qrels_format else []))
    else:
        result = irw("trec-eval", "-R", "qrels_prefs" if qrels_format else "prefs", judgments, run, db=False)
    assert result.exit_code == (2 if command == "trec-eval" else 1), result.output
    said = PREFS_AS_QRELS if qrels_format else QRELS_AS_PREFS
    if command == "trec-eval":  # its own -R value, not ingest's option
        said = said.split("; ")[0] + ("; give -R prefs to read preference judgments" if qrels_format
                                      else "; give -R qrels_prefs to read a qrels file as preferences")
    assert result.stderr.splitlines() == [f"Error: {judgments}: {said}"]
    assert fingerprint_at(seeded_db) == before


def test_a_long_qrels_file_given_as_prefs_is_refused_so_by_its_first_window(wh, tmp_path, monkeypatch):
    """A file longer than line mode's first window is judged by that window (_stage_lines): there too
    the other format is said, not the field count of each of the window's lines."""
    monkeypatch.setattr(ingest, "_staging_caps", lambda: (ingest.HEAD_LINES, ingest.HEAD_LINES))
    lines = 2 * ingest.HEAD_LINES + 5
    path = write_file(tmp_path, "big.qrels", "".join(f"q{i // 100} 0 d{i} 1\n" for i in range(lines)))
    with pytest.raises(InputFileError) as caught:
        wh.ingest_prefs(path, "p")
    assert [str(p) for p in caught.value.problems] == [f"{path}: {QRELS_AS_PREFS}"]
    assert caught.value.read_lines == ingest.HEAD_LINES
    assert wh.db.fetchone("select count(*) from qrels_sets")[0] == 0


# -- a quoted glob pattern ----------------------------------------------------------------------------

def test_ingest_run_takes_a_quoted_pattern_as_trec_eval_does(db_path, tmp_path, irw):
    """`irw ingest run 'runs/*BM25*'` was `no such file` while `irw trec-eval` read the files the
    pattern matches; both now expand it by one rule (ingest.pattern_files)."""
    runs = tmp_path / "runs"
    runs.mkdir()
    for name, tag in (("run.BM25.txt", "bm25"), ("run.BM25_RM3.txt", "rm3"), ("run.SPLADE.txt", "splade")):
        write_file(runs, name, run_text(RUN_ROWS, tag=tag))
    result = irw("ingest", "run", f"{runs}/*BM25*")
    assert result.exit_code == 0, result.stderr
    assert sorted(line.split(",")[0] for line in irw("runs", "--format", "csv").stdout.splitlines()[1:]) == \
        ["bm25", "rm3"]
    before = fingerprint_at(db_path)
    result = irw("ingest", "run", f"{runs}/*nothing*", runs / "run.SPLADE.txt")
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == f"Error: {runs}/*nothing*: no run file matches this pattern"
    assert fingerprint_at(db_path) == before


# -- run lines of more than 6 fields ----------------------------------------------------------------

@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_lines_of_more_than_six_fields_say_how_to_write_the_six(suffix, conformance, tmp_path, irw):
    """trec_eval's own results.trunc ends lines in "more junk ...": `irw trec-eval` reads it as
    trec_eval does, `irw ingest run` listed 20 lines of "found 9" and nothing to do. A line after
    them now gives the command writing the first six fields; run as printed (in a shell), the file it
    writes is ingested, and evaluates as trec_eval evaluated results.trunc (out.test.aqc.v9)."""
    import subprocess

    data = conformance / "trec_eval_test"
    given = tmp_path / f"results.trunc{suffix}"
    given.write_bytes(compress((data / "results.trunc").read_bytes(), suffix) if suffix
                      else (data / "results.trunc").read_bytes())
    result = irw("ingest", "run", given)
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[0].startswith(f"Error: {given}:1: expected 6 fields")  # file:line first, as ever
    (hint,) = [line for line in lines if line.startswith(f"Error: {given}: lines of more than 6 fields: trec_eval "
                                                          "and `irw trec-eval` ignore")]
    command = hint.split("write the first six (", 1)[1].rsplit(") and ingest that file", 1)[0]
    subprocess.run(command, shell=True, check=True, cwd=tmp_path)
    written = tmp_path / "results.trunc.run"
    assert irw("ingest", "qrels", data / "qrels.test").exit_code == 0
    assert irw("ingest", "run", written, "--name", "trunc").exit_code == 0
    ours = irw("eval", "trunc", "-c", "-m", "map", "-f", "trec")
    expected = [line for line in (data / "out.test.aqc.v9").read_text().splitlines()
                if line.split()[:2] == ["map", "all"]]
    assert [line for line in ours.stdout.splitlines() if line.split()[:2] == ["map", "all"]] == expected


def test_judgment_groups_read_as_qrels_say_how_to_ingest_them(conformance, irw):
    """trec_eval's qrels.123 (qrels_jg: the second field a judgment group) gave 20 lines of
    duplicate judgments and "6247 more", nothing else; each now says the second fields differ and
    names --subtopics, with which the file is ingested."""
    qrels = conformance / "trec_eval_test" / "qrels.123"
    result = irw("ingest", "qrels", qrels)
    assert result.exit_code == 1
    first = result.stderr.splitlines()[0]
    assert first.startswith(f"Error: {qrels}:3682: duplicate judgment of document CR93E-10279 for query 301")
    assert first.endswith("; their second fields differ: if they name judgment groups (trec_eval's qrels_jg), "
                          "ingest the file with --subtopics")
    assert irw("ingest", "qrels", qrels, "--subtopics").exit_code == 0
