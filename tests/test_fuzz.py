"""The seeded fuzz corpus (tests/fuzz_corpus.py): every file gets the answer the README's rules give.

Accepted by the oracle: irw stores exactly the rows the oracle read (and the run's tag). Refused:
irw raises InputFileError naming the oracle's lines in order (0: the file as a whole), with the
oracle's total, and the warehouse is unchanged (warehouse_fingerprint). Every second run file is
also read as `irw trec-eval` reads it (strict=False). `make test` runs the first
IRW_FUZZ_CASES files (default 300, seconds); `make fuzz` runs 4,000. A sample goes through the CLI
(`irw ingest ... --db`): exit code, the first `Error: FILE:LINE: ` line, nothing stored.
"""
from __future__ import annotations

import os

import pytest

import warehouse
from warehouse import InputFileError
from warehouse.store import catalog
from warehouse.ingestion import files as ingest

from conftest import Cli, fingerprint_at, warehouse_fingerprint
from fuzz_corpus import corpus, read

SEED = 20261201
COUNT = int(os.environ.get("IRW_FUZZ_CASES", "300"))
CASES = corpus(SEED, COUNT)
CLI_EVERY = 10


class FuzzWarehouse:
    """One warehouse for the whole corpus: each accepted file is removed again after its check.
    Its fingerprint is taken again only after something changed it (an accepted file)."""

    def __init__(self, wh):
        self.wh, self._fingerprint = wh, None

    def fingerprint(self):
        if self._fingerprint is None:
            self._fingerprint = warehouse_fingerprint(self.wh)
        return self._fingerprint

    def changed(self):
        self._fingerprint = None


@pytest.fixture(scope="module")
def fuzz_wh(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    with warehouse.open(folder / "fuzz.duckdb") as wh:
        (folder / "base.qrels").write_text("q1 0 d1 1\nq1 0 d2 0\n")
        (folder / "base.run").write_text("q1 Q0 d1 1 2.5 base\nq1 Q0 d3 2 1.5 base\n")
        wh.ingest_qrels(folder / "base.qrels", "base")
        ingest.ingest_run(wh.db, folder / "base.run", "base")
        yield FuzzWarehouse(wh)


def _stored(wh, kind: str):
    if kind == "run":
        rows = wh.sql("select r.query_id, r.doc_id, r.rank_given, r.score from run_rows r join runs u using (run_id) "
                      "where u.name = 'fuzz'").rows
        (tag,) = wh.sql("select tag from runs where name = 'fuzz'").rows[0]
        return sorted(rows), tag
    rows = wh.sql("select q.query_id, q.doc_id, q.grade from qrels q join qrels_sets s using (qrels_set_id) "
                  "where s.name = 'fuzz'").rows
    return sorted(rows), None


def _remove(wh, kind: str) -> None:
    db = wh.db
    with db.transaction():
        if kind == "run":
            catalog.delete_run(db, db.fetchone("select run_id from runs where name = 'fuzz'")[0])
        else:
            catalog.delete_qrels_set(db, db.fetchone("select qrels_set_id from qrels_sets where name = 'fuzz'")[0])


def describe(case, verdict) -> str:
    return (f"{case.id} ({', '.join(case.notes) or 'no changes'}); oracle: "
            + (f"accept {len(verdict.rows)} rows" if verdict.accepted else
               f"refuse lines {verdict.lines} of {verdict.total} ({verdict.reason})")
            + f"\ntext: {case.text[:600]!r}")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_fuzz_file_gets_the_readme_answer(case, fuzz_wh, tmp_path):
    verdict = read(case.kind, case.text)
    path = tmp_path / f"case{case.suffix or '.txt'}"
    path.write_bytes(case.raw)
    before = fuzz_wh.fingerprint()
    wh = fuzz_wh.wh
    ingest_file = ingest.ingest_run if case.kind == "run" else ingest.ingest_qrels
    try:
        ingest_file(wh.db, path, "fuzz")
    except InputFileError as exc:
        assert not verdict.accepted, f"refused: {exc}\n{describe(case, verdict)}"
        assert [p.line for p in exc.problems] == verdict.lines, f"{exc}\n{describe(case, verdict)}"
        assert exc.total == verdict.total, f"{exc}\n{describe(case, verdict)}"
        assert verdict.names(exc.problems[0].reason), f"{exc}\n{describe(case, verdict)}"
        assert all(p.path == str(path) for p in exc.problems)
        assert warehouse_fingerprint(wh) == before
        return
    fuzz_wh.changed()
    assert verdict.accepted, f"accepted\n{describe(case, verdict)}"
    rows, tag = _stored(wh, case.kind)
    _remove(wh, case.kind)
    assert rows == verdict.rows, describe(case, verdict)
    assert tag == verdict.tag, describe(case, verdict)


TREC_EVAL_CASES = [case for case in CASES if case.kind == "run"][::2]


@pytest.mark.parametrize("case", TREC_EVAL_CASES, ids=[c.id for c in TREC_EVAL_CASES])
def test_fuzz_run_read_as_trec_eval_reads_it(case, fuzz_wh, tmp_path):
    """The trec_eval drop-in's reading (strict=False): extra fields, any rank, several tags."""
    verdict = read(case.kind, case.text, strict=False)
    path = tmp_path / f"case{case.suffix or '.txt'}"
    path.write_bytes(case.raw)
    before = fuzz_wh.fingerprint()
    wh = fuzz_wh.wh
    try:
        ingest.ingest_run(wh.db, path, "fuzz", strict=False)
    except InputFileError as exc:
        assert not verdict.accepted, f"refused: {exc}\n{describe(case, verdict)}"
        assert [p.line for p in exc.problems] == verdict.lines, f"{exc}\n{describe(case, verdict)}"
        assert exc.total == verdict.total and verdict.names(exc.problems[0].reason), f"{exc}\n{describe(case, verdict)}"
        assert warehouse_fingerprint(wh) == before
        return
    fuzz_wh.changed()
    assert verdict.accepted, f"accepted\n{describe(case, verdict)}"
    rows = sorted(wh.sql("select r.query_id, r.doc_id, r.score from run_rows r join runs u using (run_id) "
                         "where u.name = 'fuzz'").rows)
    (tag,) = wh.sql("select tag from runs where name = 'fuzz'").rows[0]
    _remove(wh, "run")
    assert (rows, tag) == (verdict.rows, verdict.tag), describe(case, verdict)


CLI_CASES = CASES[::CLI_EVERY]


@pytest.mark.parametrize("case", CLI_CASES, ids=[c.id for c in CLI_CASES])
def test_fuzz_file_through_the_cli(case, seeded_db, tmp_path):
    verdict = read(case.kind, case.text)
    path = tmp_path / f"case{case.suffix or '.txt'}"
    path.write_bytes(case.raw)
    before = fingerprint_at(seeded_db)
    result = Cli(seeded_db)("ingest", case.kind, path, "--name", "fuzz")
    if verdict.accepted:
        assert result.exit_code == 0, f"{result.stderr}\n{describe(case, verdict)}"
        with warehouse.open(seeded_db, read_only=True) as wh:
            assert _stored(wh, case.kind) == (verdict.rows, verdict.tag), describe(case, verdict)
        return
    assert result.exit_code == 1, f"{result.stderr}\n{describe(case, verdict)}"
    first = result.stderr.splitlines()[0]
    where = f"{path}:{verdict.lines[0]}: " if verdict.lines[0] else f"{path}: "
    assert first.startswith(f"Error: {where}"), f"{result.stderr}\n{describe(case, verdict)}"
    assert verdict.names(first), f"{result.stderr}\n{describe(case, verdict)}"
    assert fingerprint_at(seeded_db) == before


def test_the_corpus_holds_what_it_is_about():
    """Guards against a generator change that would quietly stop testing a case."""
    notes = [note for case in CASES for note in case.notes]
    verdicts = [read(case.kind, case.text) for case in CASES]
    for expected in ("U+0001", "CR inside a line", "not UTF-8", "duplicate", "bad score", "line ends: mixed",
                     "line ends: crlf", "a field dropped", "blank or comment line"):
        assert expected in notes, expected
    assert {case.suffix for case in CASES} >= {"", ".gz", ".zst", ".bz2", ".xz"}
    accepted = sum(v.accepted for v in verdicts)
    assert 0.2 * len(CASES) < accepted < 0.8 * len(CASES)
    reasons = {word for v in verdicts if not v.accepted for word in v.reason.split("|")}
    assert {"U+0001", "carriage return", "not valid UTF-8", "duplicate", "expected 6 fields"} <= reasons
