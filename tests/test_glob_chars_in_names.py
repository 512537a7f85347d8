"""A run or qrels file whose name holds a glob character (`*`, `?`, `[`, and `]`, `{`, `}` for good
measure) is that one file: DuckDB's readers expand `*`, `?` and `[...]` in the path they are
given, so `s*.txt` read every `s...txt` beside it, and a sibling whose name starts with a backslash
made the read fail naming the wrong file. irw streams such a file to DuckDB through Python
(warehouse/ingestion/files.py), and the read of several of `irw trec-eval`'s runs at once escapes
the pattern characters (literal_path, sql/ingest/line_mode.sql), or leaves them to be read one by one.

Each case puts the file beside decoys its name would match as a pattern (holding other lines of
the same data) and checks that `irw trec-eval`, `irw ingest run` and `irw ingest qrels` see exactly
its own lines: the same numbers as the file copied to a plain name.
"""
from __future__ import annotations

import bz2
import gzip
import io
import shutil
from pathlib import Path

import pytest
import zstandard

import warehouse
from warehouse.commands import trec_eval

# names DuckDB or Hadoop would read as patterns, and names each would match
NAMES = ["s*.txt", "s?.txt", "s[1].txt", "s]1.txt", "s{a,b}.txt", "s\x1b[31m.txt", "s\\[x].txt"]
DECOYS = ["sx.txt", "s1.txt", "sa.txt", "sb.txt", "s\x1b3m.txt", "s\\x.txt"]
COMPRESSORS = {"": lambda data: data, ".gz": gzip.compress, ".bz2": bz2.compress,
               ".zst": lambda data: zstandard.ZstdCompressor().compress(data)}


def _lines(path: Path, first: int, last: int) -> bytes:
    return b"".join(path.read_bytes().splitlines(keepends=True)[first - 1:last])


def _folder_with(tmp_path: Path, name: str, data: bytes, decoy: bytes, suffix: str = "",
                 decoys: list[str] = DECOYS) -> tuple[Path, Path]:
    """(the file `name` holding data among decoys holding decoy, the same data under a plain name
    in a folder of its own)."""
    compress = COMPRESSORS[suffix]
    folder = tmp_path / "odd"
    folder.mkdir()
    for other in decoys:  # named as name would match them: its first letter, then the pattern's
        other = name[0] + other[1:] if other.startswith("s") else other
        (folder / (other + suffix)).write_bytes(compress(decoy))
    odd = folder / (name + suffix)
    odd.write_bytes(compress(data))
    plain = tmp_path / "plain" / ("plain.txt" + suffix)
    plain.parent.mkdir()
    shutil.copyfile(odd, plain)
    return odd, plain


def _trec_eval(*args: Path | str) -> str:
    out = io.StringIO()
    trec_eval.run(["-q", "-m", "num_q", "-m", "num_ret", "-m", "num_rel_ret", "-m", "map", *map(str, args)], out)
    return out.getvalue()


@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2", ".zst"])
@pytest.mark.parametrize("name", NAMES)
def test_trec_eval_reads_the_named_run_file_only(conformance, tmp_path, name, suffix):
    source = conformance / "dl19-passage"
    qrels, run = source / "qrels.dl19-passage.txt", source / "runs" / "run.dl19.BM25.txt"
    odd, plain = _folder_with(tmp_path, name, _lines(run, 1, 100), _lines(run, 101, 300), suffix)
    out = _trec_eval(qrels, odd)
    assert "num_ret               \tall\t100\n" in out and "num_q                 \tall\t1\n" in out
    assert out == _trec_eval(qrels, plain)


@pytest.mark.parametrize("name", NAMES)
def test_trec_eval_reads_named_run_files_together(conformance, tmp_path, name):
    """Two plain run files are read by one statement (warehouse/evaluation/oneshot.py): the odd name
    is still one file there."""
    source = conformance / "dl19-passage"
    qrels, run = source / "qrels.dl19-passage.txt", source / "runs" / "run.dl19.BM25.txt"
    odd, plain = _folder_with(tmp_path, name, _lines(run, 1, 100), _lines(run, 101, 300))
    other = tmp_path / "other.txt"
    other.write_bytes(_lines(source / "runs" / "run.dl19.BM25_RM3.txt", 1, 500))
    out = _trec_eval(qrels, odd, other)
    assert out == _trec_eval(qrels, plain, other)
    assert "num_ret               \tall\t100\n" in out and "num_ret               \tall\t500\n" in out


@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2"])
@pytest.mark.parametrize("name", NAMES)
def test_ingest_run_stores_the_named_file_only(conformance, tmp_path, irw, name, suffix):
    run = conformance / "dl19-passage" / "runs" / "run.dl19.BM25.txt"
    odd, plain = _folder_with(tmp_path, name, _lines(run, 1, 100), _lines(run, 101, 300), suffix)
    result = irw("ingest", "run", odd, "--name", "odd")
    assert result.exit_code == 0, result.output
    assert "odd: 100 lines, 1 query from" in result.output
    assert irw("ingest", "run", plain, "--name", "plain").exit_code == 0
    with warehouse.open(irw.db) as wh:
        rows = {r[0]: r[1:] for r in wh.sql("select name, row_count, query_count from runs").rows}
    assert rows["odd"] == rows["plain"] == (100, 1)


@pytest.mark.parametrize("suffix", ["", ".gz"])
@pytest.mark.parametrize("name", [n.replace("s", "q", 1) for n in NAMES])
def test_ingest_qrels_stores_the_named_file_only(conformance, tmp_path, irw, name, suffix):
    qrels = conformance / "dl19-passage" / "qrels.dl19-passage.txt"
    data = _lines(qrels, 1, 500)
    odd, plain = _folder_with(tmp_path, name, data, _lines(qrels, 1, 1000), suffix)
    result = irw("ingest", "qrels", odd, "--name", "odd")
    assert result.exit_code == 0, result.output
    assert irw("ingest", "qrels", plain, "--name", "plain").exit_code == 0
    with warehouse.open(irw.db) as wh:
        judged = dict(wh.sql("select s.name, count(*) from qrels q join qrels_sets s using (qrels_set_id) "
                             "group by s.name").rows)
    assert judged["odd"] == judged["plain"] == len(data.splitlines())


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_a_sibling_named_with_a_backslash_is_no_matter(conformance, tmp_path, irw, suffix):
    """DuckDB's pattern matching of the folder failed on a sibling whose name starts with a
    backslash ("cannot join incompatible paths", naming that sibling)."""
    source = conformance / "dl19-passage"
    qrels, run = source / "qrels.dl19-passage.txt", source / "runs" / "run.dl19.BM25.txt"
    odd, plain = _folder_with(tmp_path, "s[1].txt", _lines(run, 1, 100), _lines(run, 101, 300), suffix,
                              decoys=["\\x.txt", "s1.txt"])
    assert _trec_eval(qrels, odd) == _trec_eval(qrels, plain)
    result = irw("ingest", "run", odd, "--name", "odd")
    assert result.exit_code == 0 and "odd: 100 lines, 1 query from" in result.output, result.output

