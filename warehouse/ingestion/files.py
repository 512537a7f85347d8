"""Validated ingest of TREC qrels and run files.

Each file is read by DuckDB and validated in SQL (sql/ingest/), and inserted in one transaction: a
bad file raises InputFileError naming file:line and changes nothing. Qrels are read in line mode
(one text column, split in SQL); a run is first read as six columns, and read again in line mode
only when that reading would differ from line mode's or the file has problems to name by line.
"""
from __future__ import annotations

import datetime as dt
import glob
import importlib
import io
import os
import re
import stat
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Mapping, Sequence
from typing import BinaryIO, Callable, Iterator, TypeVar


from warehouse.formats.cells import said_date, said_value
from warehouse.formats.escaping import name_problem, shell_word, shown
from warehouse import interrupt, leftovers
from warehouse.store import transfer
from warehouse.store.catalog import GLOB_CHARS, delete_qrels_set, delete_run, refuse_bad_name
from warehouse.engines.duckdb import (SPILL_LIMIT_ADVICE, Database, DuckDBError, DuckDBInvalidInput, DuckDBIOError,
                                      DuckDBOutOfMemory, memory_limit, spill_limit_met, spill_limit_said)
from warehouse.errors import ConflictError, InputFileError, Note, Problem, UsageError
from warehouse.resources import composed_sql, read_sql

# Extensions DuckDB decompresses itself, and those Python decompresses into a FIFO DuckDB reads (_Feed).
_DUCKDB_COMPRESSION = {".gz": "gzip", ".zst": "zstd"}
# (the module whose open() reads it: imported when a file needs it, as gzip, zlib and zstandard are)
_PYTHON_DECOMPRESSORS = {".bz2": "bz2", ".xz": "lzma"}
COMPRESSED_SUFFIXES = (*_DUCKDB_COMPRESSION, *_PYTHON_DECOMPRESSORS)


def is_compressed(path: "str | os.PathLike[str]") -> bool:
    """Whether irw reads the file as compressed: by its suffix alone (its text is not its bytes)."""
    return Path(path).suffix.lower() in COMPRESSED_SUFFIXES

# How each of those formats begins (its magic number), with the format's name. irw picks a file's
# decompression by its suffix alone, so compressed data under another name would be read as text
# and refused line by line for its binary bytes (U+0001, CR), which hides the cause: the first
# bytes, read anyway by check_input_file, say it. bzip2's "BZh" is text, so its block size digit
# and the magic of its first block (or of its end, when empty) are required too.
_COMPRESSION_MAGIC = ((re.compile(rb"\x1f\x8b"), ".gz", "gzip"),
                      (re.compile(rb"\x28\xb5\x2f\xfd"), ".zst", "zstd"),
                      (re.compile(rb"BZh[1-9](1AY&SY|\x17\x72\x45\x38\x50\x90)"), ".bz2", "bzip2"),
                      (re.compile(rb"\xfd7zXZ\x00"), ".xz", "xz"))
_MAGIC_BYTES = 10  # enough of a file's head for every magic number above
_CSV_LINE = re.compile(r"CSV Error on Line: (\d+)")
IR_METADATA_HEAD_LINES = 10_000  # the ir_metadata block is a header: look for it this far
# A file read in line mode is first checked on its first lines (_refuse_by_head): one whose head
# already has a problem is refused there, the rest unread.
HEAD_LINES = 10_000
_HEAD_BYTES_READ = 4 << 20  # at most this much of the head (lines up to MAX_LINE_BYTES each)
# What is staged before a file's problems are looked at (_staging_caps): line mode stages a file in
# windows of lines, the first of memory_limit / _BYTES_PER_LINE lines, each next one _WINDOW_GROWTH
# times larger, and looks for problems in each window that does not reach the file's end (a bad
# file is refused in the window of its first problem, the rest unread); the column readers stage at
# most memory_limit / _BYTES_PER_ROW rows (a larger file goes to line mode's windows). Staged sizes
# measured: ~90 bytes a row in a column reader, ~150-200 a line in line mode, so the first window
# holds about a twentieth of the memory limit and the column readers' cap a fifth; 4 GiB: 1,048,000
# lines, 8.4M rows (a 7M-line run is still taken by its column reader). Under a limit of a few tens
# of MB, DuckDB's own text buffers (~32 MB) leave room for no larger window.
_BYTES_PER_LINE, _BYTES_PER_ROW, _WINDOW_GROWTH = 4096, 512, 4
T = TypeVar("T")


@dataclass
class IngestResult:
    kind: str  # "run" or "qrels"
    name: str
    path: str
    # "ingested", "replaced", "unchanged", "redated" (same bytes, date corrected: warehouse.ingestion.batch),
    # "updated" (same bytes, what was said of it changed: batch._same_bytes, _same_set) or
    # "rows stored" (a run evaluated on Spark gets its rows: store_missing_rows)
    status: str
    rows: int
    queries: int
    messages: list[str] = field(default_factory=list)


# Bytes a plain file is searched for while it is hashed (memchr over each chunk). tab, CR and U+0001
# make the column reader's view of a run differ from line mode's; VT and FF are whitespace to
# DuckDB's number casts, so a score holding them must go through line mode's rules (see
# sql/ingest/stage_run_columns.sql).
_FIELD_BREAKING_BYTES = {"tab": b"\t", "cr": b"\r", "soh": b"\x01", "vt": b"\x0b", "ff": b"\x0c"}
_CHUNK = 1 << 20
# The longest line irw reads, in bytes, its line end included (DuckDB's max_line_size default). A
# longer one is refused naming it (TextScan): DuckDB dropped a last line of 32 MiB or more unsaid.
MAX_LINE_BYTES = 2_000_000
assert _CHUNK < MAX_LINE_BYTES  # TextScan.feed: no line inside one chunk can pass the limit


def long_line_problem(path: Path, line: int) -> Problem:
    return Problem(_shown_path(path), line, f"a line longer than {MAX_LINE_BYTES:,} bytes: "
                                            "not a TREC file")


class TextScan(Mapping[str, bool]):
    """What a file's text holds, seen chunk by chunk: which of _FIELD_BREAKING_BYTES occur (the
    mapping), and how its lines end. CR LF and LF line ends may be mixed; a CR anywhere else (the
    file's last byte excepted, which ends its last line) is an error, as is U+0001, which line mode
    cannot read (sql/ingest/line_mode.sql). Counting CRs costs a chunk anything only when it holds one."""

    def __init__(self) -> None:
        self._holds = dict.fromkeys(_FIELD_BREAKING_BYTES, False)
        self.crlf = False       # a line ends in CR LF
        self.bare_lf = False    # a line ends in LF alone
        self.lone_cr = False    # a CR that neither precedes an LF nor ends the file
        self.final_cr = False   # the file's last byte is a CR
        self._cr_pending = False  # the last chunk ended in CR: the next byte says which it was
        self.lines = 0            # line ends (LF) seen so far
        self._open_line = 0       # bytes of the line not yet ended
        self.long_line: int | None = None  # the first line longer than MAX_LINE_BYTES, by number

    def __getitem__(self, key: str) -> bool:
        return self._holds[key]

    def __iter__(self):
        return iter(self._holds)

    def __len__(self) -> int:
        return len(self._holds)

    def feed(self, chunk: bytes) -> None:
        if not chunk:
            return
        if len(chunk) > _CHUNK:  # a decompressor's output can be any size: fed in pieces
            for start in range(0, len(chunk), _CHUNK):
                self.feed(chunk[start:start + _CHUNK])
            return
        self._measure_lines(chunk)
        holds = self._holds
        for key, byte in _FIELD_BREAKING_BYTES.items():
            if not holds[key] and byte in chunk:
                holds[key] = True
        start = 0
        if self._cr_pending:
            self._cr_pending = False
            if chunk[:1] == b"\n":
                self.crlf, start = True, 1
            else:
                self.lone_cr = True
        if b"\r" in chunk:
            ends_in_cr = chunk.endswith(b"\r")
            pairs = chunk.count(b"\r\n")
            self.crlf = self.crlf or pairs > 0
            if chunk.count(b"\r") - ends_in_cr > pairs:
                self.lone_cr = True
            if chunk.count(b"\n", start) > pairs:
                self.bare_lf = True
            self._cr_pending = ends_in_cr
        elif not self.bare_lf and chunk.find(b"\n", start) >= 0:
            self.bare_lf = True

    def _measure_lines(self, chunk: bytes) -> None:
        """Counts line ends, and notes the first line longer than MAX_LINE_BYTES (its LF counted, as
        DuckDB counts): only a line crossing a chunk's start can be (a chunk is shorter than the
        limit), so find and rfind do."""
        if self.long_line is not None:
            return
        first = chunk.find(b"\n")
        if self._open_line + (len(chunk) if first < 0 else first) + 1 > MAX_LINE_BYTES:
            self.long_line = self.lines + 1
            return
        if first < 0:
            self._open_line += len(chunk)
            return
        self.lines += chunk.count(b"\n")
        self._open_line = len(chunk) - chunk.rfind(b"\n") - 1

    def finish(self) -> "TextScan":
        if self._cr_pending:
            self._cr_pending, self.final_cr = False, True
        return self

    def long_line_error(self, path: Path) -> InputFileError | None:
        """The file refused at its first line longer than MAX_LINE_BYTES, if it has one."""
        if self.long_line is None:
            return None
        problem = long_line_problem(path, self.long_line)
        if self.lone_cr or self._cr_pending:
            problem = Problem(problem.path, problem.line, problem.reason + "; its lines may end in CR alone, as on "
                              "classic Mac OS: convert them, e.g. with tr '\\r' '\\n'")
        return InputFileError([problem])

    @property
    def has_line_problems(self) -> bool:
        """Lines irw refuses before reading them: U+0001, or a CR inside a line."""
        return self._holds["soh"] or self.lone_cr

    @property
    def mixed_line_ends(self) -> bool:
        """Line ends DuckDB's reader refuses ("state machine reached an invalid state"): CR LF and LF
        mixed, or a CR ending the file. Python rewrites CR LF as LF in a copy, which DuckDB reads."""
        return (self.crlf and self.bare_lf) or self.final_cr


@dataclass
class FileScan:
    sha256: str
    # what the file's text holds (a TextScan) when the file is plain; every byte assumed present
    # when it is compressed (its bytes are not its text)
    holds: Mapping[str, bool]

    @property
    def text(self) -> TextScan | None:
        return self.holds if isinstance(self.holds, TextScan) else None


def _file_kind(mode: int) -> str:
    if stat.S_ISCHR(mode):
        return "a character device (like /dev/null)"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISFIFO(mode):
        return "a pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


# What publishers ship beside runs and qrels in a folder (a README, a licence, metadata, the script
# that made them): documents, never input files. By suffix, case aside; and by name (README,
# README.txt, readme.md ...): what comes before the name's first dot.
DOCUMENT_SUFFIXES = frozenset((".md", ".markdown", ".rst", ".html", ".htm", ".pdf", ".doc", ".docx", ".odt",
                               ".yaml", ".yml", ".json", ".ini", ".cfg", ".toml", ".py", ".sh", ".ipynb"))
DOCUMENT_NAMES = frozenset(("readme", "license", "licence", "notice", "changelog", "copying", "authors"))


class LeftOutNote(Note):
    """A file of a folder given as input that is left out of its files as a document (folder_files).
    A library user sees it as a warning; the irw command says it as a line on stderr
    (warehouse/__main__.py)."""


def document_kind(path: Path) -> str | None:
    """What makes a file a document rather than an input file ("a .md document", "a LICENSE
    document"), None when nothing does."""
    suffix = path.suffix.lower()
    if suffix in DOCUMENT_SUFFIXES:
        return f"a {suffix} document"
    stem = path.name.split(".")[0]
    if stem.lower() in DOCUMENT_NAMES:
        return f"a {stem} document"
    return None


def folder_files(folder: Path, kind: str = "run") -> list[Path]:
    """The input files of a folder given as input: its files, not hidden ones, subfolders or
    documents (document_kind: README.md, LICENSE, notes.yaml ...), in name order. Each document
    left out is said (a LeftOutNote warning), with how to read it anyway: given by its own path, a
    file is read whatever its name. kind: what the folder's files are ("run", "qrels")."""
    import warnings

    plural = "runs" if kind == "run" else f"{kind} files"
    entries = []
    for path in sorted(p for p in folder.iterdir() if not p.name.startswith(".")):
        if path.is_file() or path.is_symlink() and not path.is_dir():
            # a link to nothing (a run moved away) or a loop of links is read as given alone, and
            # refused: a walk's folder of 151 files stored 150 and said nothing of the other
            entries.append(path)
        elif not path.is_dir():
            warnings.warn(LeftOutNote(f"{path}: left out of the folder's {plural} (not a regular file: a pipe, "
                                      "socket or device)"))
    return _without_documents(entries, f"the folder's {plural}", kind)


def _without_documents(paths: "list[Path]", among: str, kind: str) -> list[Path]:
    """paths but the documents (document_kind), each said as left out of `among` (a LeftOutNote)."""
    import warnings

    files = []
    for path in paths:
        document = document_kind(path)
        if document is None:
            files.append(path)
            continue
        warnings.warn(LeftOutNote(f"{path}: left out of {among} ({document}, not a {kind} file); "
                                  "give it by its own path to read it as one"))
    return files


def has_scheme(location: "str | os.PathLike[str]") -> bool:
    """A location with a scheme (hdfs://, s3a://, file:// ...): Spark's to read as it is, never a
    local path to look at here."""
    return re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", os.fspath(location)) is not None


def run_files(names: "list[str | os.PathLike[str]]") -> list[Path]:
    """The run files of RUN_FILE arguments, in the order given: a file as is (a file given twice is
    evaluated twice, as a loop of trec_eval would), a folder's files (not hidden, not in
    subfolders) in name order, and a pattern no file is named by (`'runs/*.txt'`, quoted so the
    shell left it) the files it matches in name order."""
    files: list[Path] = []
    for name in names:
        path, name = Path(name), os.fspath(name)
        if path.is_dir():
            inside = folder_files(path)
            if not inside:
                raise InputFileError([Problem(str(path), 0, "a folder without run files: runs are given as "
                                              "run files, folders of run files or glob patterns")])
            files.extend(inside)
        elif is_pattern(name):
            files.extend(pattern_files(name))
        else:
            files.append(path)
    return files


def is_pattern(name: "str | os.PathLike[str]") -> bool:
    """Whether a run file argument is a glob pattern: it names no file (a file may be named
    `run[1].txt`) and holds * ? or [."""
    return not Path(name).exists() and any(c in GLOB_CHARS for c in os.fspath(name))


def pattern_files(name: "str | os.PathLike[str]") -> list[Path]:
    """The files a pattern (is_pattern) matches, in name order: the one rule of irw trec-eval
    (run_files) and irw ingest run (warehouse/ingestion/batch.py) for a pattern quoted so the shell
    left it. Documents are left out as of a folder (`'runs/*'` matches runs/README.md): a file is
    read whatever its name only when given by its own path. None matching is an InputFileError."""
    name = os.fspath(name)
    found = sorted(Path(p) for p in glob.glob(name) if Path(p).is_file())
    matched = _without_documents(found, f"the files {name} matches", "run")
    if not matched:
        left_out = f" (only {len(found):,} document{'s' if len(found) > 1 else ''}, left out)" if found else ""
        raise InputFileError([Problem(name, 0, f"no run file matches this pattern{left_out}")])
    return matched


def no_input_files(folder: Path, kind: str, command: str) -> str:
    """Why a folder gives no input file of its kind ("run", "qrels"): it is empty, or it holds
    folders only (one per system or per collection, as publishers keep runs), which a folder's files
    do not include: the hint names them and `command`, which takes them all ({folders}: FOLDER/*/,
    which the shell expands to its folders)."""
    inner = sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not inner:
        return f"a folder without {kind} files: give the {kind} files, or the folder that holds them"
    listed = ", ".join(inner[:5]) + (f" and {len(inner) - 5:,} more" if len(inner) > 5 else "")
    return (f"a folder without {kind} files, only folders ({listed}); a folder's subfolders are not read: "
            + command.format(folders=f"{shell_word(str(folder))}/*/"))


def nothing_stored(failed: int, total: int, folders: bool = False, *, said: str = "nothing was stored",
                   of: str = "") -> str:
    """The last line of a batch refused (irw ingest run or qrels of several files), with what to do
    when some of its files could be stored; folders: whether an empty folder given is among them.
    said and of: what was not stored, and whose files are counted (a backfill's later night:
    "nothing of night N or later was stored (K files)", "that night's ")."""
    return (f"{said}: {failed} of {of}{total} {'files and folders' if folders else 'files'} cannot be "
            "ingested as they are"
            + ("" if failed == total else "; fix the files named above, or leave them out, and run the command again"))


def check_input_file(path: Path) -> None:
    """Refuses, with a message saying what the path is, anything irw cannot read as an input file:
    a missing path, a directory, a device or pipe (irw reads a file twice: to hash it, then to load
    it), a file it may not read, a name that is not UTF-8 (DuckDB takes paths as UTF-8 text)."""
    shown = _shown_path(path)
    _check_name(path)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        if str(path) == "-":  # a pipe's usual name; as a pipe given by its path, below
            raise InputFileError([Problem(shown, 0, "no such file; standard input is not read: irw reads an input "
                                          "file twice (to hash it, then to load it); save the data to a file "
                                          "first")]) from None
        if path.is_symlink():  # a run moved away from under its link
            raise InputFileError([Problem(shown, 0, f"a symbolic link to {os.readlink(path)}, which does not "
                                          "exist")]) from None
        raise InputFileError([Problem(shown, 0, "no such file")]) from None
    except OSError as exc:
        raise InputFileError([Problem(shown, 0, f"cannot read the file: {exc.strerror or exc}")]) from None
    if stat.S_ISDIR(mode):
        raise InputFileError([Problem(shown, 0, "is a directory, not a file")])
    if not stat.S_ISREG(mode):
        raise InputFileError([Problem(shown, 0, f"is {_file_kind(mode)}, not a regular file: irw reads an input "
                                      "file twice (to hash it, then to load it); save the data to a file first")])
    try:
        with open(path, "rb") as handle:
            head = handle.read(_MAGIC_BYTES)
    except OSError as exc:
        raise InputFileError([Problem(shown, 0, f"cannot read the file: {exc.strerror or exc}")]) from None
    misnamed = misnamed_compression(path, head)
    if misnamed:
        raise InputFileError([Problem(shown, 0, misnamed)])


def misnamed_compression(path: Path, head: bytes) -> str | None:
    """Why a file whose first bytes are head cannot be read as its name says: it holds data of a
    compressed format irw reads (_COMPRESSION_MAGIC) while its suffix names no compression or
    another one. None when the name fits (plain text, or the format its suffix names)."""
    suffix = path.suffix.lower()
    for magic, wanted, format_name in _COMPRESSION_MAGIC:
        if not magic.match(head) or suffix == wanted:
            continue
        # a wrong compression suffix is replaced, any other (.txt) kept: display_name drops both
        target = path.with_suffix(wanted) if suffix in COMPRESSED_SUFFIXES else Path(str(path) + wanted)
        fix = (f"name it with the suffix {wanted}, by which irw reads {format_name} data "
               f"(e.g. mv {shell_word(str(path))} {shell_word(str(target))})")
        if suffix in COMPRESSED_SUFFIXES:
            return f"holds {format_name}-compressed data, not the {suffix[1:]} data its name says: {fix}"
        return f"holds {format_name}-compressed data, but its name does not end in {wanted}: {fix}"
    return None


def _check_name(path: Path) -> None:
    try:
        os.fsencode(path).decode("utf-8")
    except UnicodeDecodeError:
        raise InputFileError([Problem(_shown_path(path), 0, "the file name is not valid UTF-8, which irw cannot "
                                      "pass to DuckDB; rename the file (or link it under a UTF-8 name)")]) from None


def _shown_path(path: Path) -> str:
    """The path as printed: bytes of a non-UTF-8 name as \\xNN escapes."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def scan_file(path: Path, *, digest: bool = True) -> FileScan:
    """Hashes the file (unless digest=False: sha256 is then "") and, when it is plain text, notes
    what its text holds (TextScan: memchr and, where there are CRs, counts over the chunks read:
    ~0.05 s on a 7M-line run)."""
    if digest:
        import hashlib  # here: OpenSSL's libcrypto is ~3.5 MB that irw trec-eval (digest=False) never needs

    hasher = hashlib.sha256() if digest else None
    compressed = is_compressed(path)
    text = None if compressed else TextScan()
    holds = dict.fromkeys(_FIELD_BREAKING_BYTES, True) if compressed else text
    if compressed and not hasher:
        return FileScan("", holds)
    try:
        with open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(_CHUNK), b""):
                if hasher:
                    hasher.update(chunk)
                if text is not None:
                    text.feed(chunk)
    except OSError as exc:
        raise InputFileError([Problem(_shown_path(path), 0, f"cannot read the file: {exc.strerror or exc}")]) from None
    if text is not None:
        text.finish()
    return FileScan(hasher.hexdigest() if hasher else "", holds)


def text_sha256(path: Path, scan: FileScan) -> str:
    """The sha256 of the file's text, which a run is known by (runs.text_sha256, schema 21): a plain
    file's is its bytes' (scan's); a compressed file's is that of its decompressed text, read again
    here. Asked only of a file already staged, so that a file its head refuses is never read whole
    (a bomb's text is not hashed), and of none scanned without a digest ("")."""
    if scan.text is not None or not scan.sha256:
        return scan.sha256
    import hashlib

    hasher = hashlib.sha256()
    try:
        with _open_decompressed(path) as stream:
            for chunk in iter(lambda: stream.read(_CHUNK), b""):
                hasher.update(chunk)
    except _decompression_errors() as exc:  # changed since it was staged
        raise InputFileError([Problem(_shown_path(path), 0, f"corrupt or truncated {path.suffix.lower()[1:]} "
                                      f"data ({exc})")]) from None
    return hasher.hexdigest()


def read_input(path: Path, *, digest: bool = True) -> FileScan:
    """The first step of every ingest: refuse what is not a readable file (check_input_file), then
    hash it and note what its text holds (scan_file)."""
    check_input_file(path)
    return scan_file(path, digest=digest)


def display_name(path: Path) -> str:
    """run.dl19.BM25.txt.gz -> run.dl19.BM25"""
    name = path.name
    for suffix in COMPRESSED_SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    for suffix in (".txt", ".trec", ".run", ".qrels", ".tsv"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name or path.name


def _open_decompressed(path: Path) -> BinaryIO:
    """The file's text as a binary stream, decompressed by Python whatever its suffix."""
    suffix = path.suffix.lower()
    if suffix == ".gz":
        import gzip

        return gzip.open(path, "rb")  # also reads past the zero padding `gzip -t` accepts
    if suffix == ".zst":
        import zstandard

        raw = open(path, "rb")
        return io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True,
                                                                            closefd=True))
    if suffix in _PYTHON_DECOMPRESSORS:
        return importlib.import_module(_PYTHON_DECOMPRESSORS[suffix]).open(path, "rb")
    return open(path, "rb")


def _decompression_errors() -> tuple[type[BaseException], ...]:
    import lzma
    import zlib

    errors: tuple[type[BaseException], ...] = (EOFError, OSError, lzma.LZMAError, zlib.error)
    try:
        import zstandard
    except ImportError:  # pragma: no cover - a dependency
        return errors
    return (*errors, zstandard.ZstdError)


def _line_problems(path: Path) -> InputFileError:
    """The lines holding U+0001 or a CR that does not end the line, by number, read by Python (only
    a file holding them pays for this pass)."""
    problems: list[Problem] = []
    total = 0
    mac_line_ends = False
    with _open_decompressed(path) as stream:
        for number, line in enumerate(stream, start=1):
            body = line[:-1] if line.endswith(b"\n") else line
            if body.endswith(b"\r"):
                body = body[:-1]
            reasons = []
            if b"\r" in body:
                mac_line_ends = number == 1 and not line.endswith(b"\n")
                reasons.append("a carriage return (CR) inside the line; lines end in LF or CR LF"
                               + (" (this file's lines end in CR alone, as on classic Mac OS: "
                                  "convert them, e.g. with tr '\\r' '\\n')" if mac_line_ends else ""))
            if b"\x01" in body:
                reasons.append("the control character U+0001 inside the line; it is not text a TREC file "
                               "holds: remove it")
            total += len(reasons)
            if len(problems) < InputFileError.MAX_SHOWN:
                problems.extend(Problem(_shown_path(path), number, reason) for reason in reasons)
    return InputFileError(problems, total=total)


class _Found:
    """What a pass over a file's text found: damaged data (problem) and the text's TextScan, for
    the whole pass and for its first _HEAD_BYTES_READ bytes (head, head_problem). A file its head
    refused (_refuse_by_head) is judged by what its first bytes hold, so the pass may stop there
    (stop_at_head) and a file's verdict never depends on how far a thread got."""

    def __init__(self) -> None:
        self.text = TextScan()
        self.problem: str | None = None
        self.head: TextScan | None = None  # set once _HEAD_BYTES_READ bytes are fed, or the pass ends
        self.head_problem: str | None = None
        self._fed = 0

    def feed(self, chunk: bytes) -> None:
        if self.head is None and self._fed + len(chunk) >= _HEAD_BYTES_READ:
            import copy

            room = _HEAD_BYTES_READ - self._fed
            self.text.feed(chunk[:room])
            self.head = copy.deepcopy(self.text)
            chunk = chunk[room:]
        self._fed += len(chunk)
        self.text.feed(chunk)

    def damaged(self, problem: str) -> "_Found":
        self.problem = problem
        if self.head is None:
            self.head, self.head_problem = self.text, problem
        return self

    def stopped(self) -> "_Found":
        """The pass stopped before the end (a line too long, Ctrl-C, stop_at_head, DuckDB done)."""
        if self.head is None:
            self.head = self.text
        return self

    def finished(self) -> "_Found":
        self.text.finish()
        return self.stopped()

    def found(self, head_only: bool) -> tuple[str | None, TextScan]:
        return (self.head_problem, self.head) if head_only and self.head is not None else (self.problem, self.text)


class _Feed:
    """One read by DuckDB of a file's text through a FIFO (a named pipe, no data on disk), written
    by a thread as Python decompresses the file (.bz2 and .xz, which DuckDB cannot read, and any
    file read through Python), CR LF line ends made LF (DuckDB refuses a file that mixes them with
    LF), a CR ending the file dropped (it ends the last line); or of given bytes (data). DuckDB
    reads it as it reads a .gz file, in order, so memory is bounded as there and a read that stops
    early (a LIMIT, a bad line) stops the decompression too: the writer's next write fails. The
    text is scanned on the way (TextScan); the writer stops at a line longer than MAX_LINE_BYTES,
    at damaged compressed data (problem), at Ctrl-C and at close(), and DuckDB then sees the end of
    the file. Each read needs a FIFO of its own: a FIFO whose reader went away can still hold the
    last writer's bytes."""

    _WAIT = 0.05  # seconds a writer waits on a full pipe before it looks whether to stop

    def __init__(self, fifo: Path, path: Path, data: bytes | None = None) -> None:
        import threading

        self.fifo, self.path, self.data = fifo, path, data
        self.found = _Found()
        self._stop = threading.Event()
        self._closed = False
        os.mkfifo(fifo, 0o600)
        self._thread = threading.Thread(target=self._run, name="irw-feed", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            fd = os.open(self.fifo, os.O_WRONLY)  # waits for DuckDB (or close()) to open it
        except OSError:
            return
        try:
            if not self._stop.is_set():
                os.set_blocking(fd, False)
                if self.data is not None:
                    self._write(fd, self.data)
                else:
                    self._feed(fd)
        finally:
            os.close(fd)

    def _feed(self, fd: int) -> None:
        found = self.found
        try:
            with _open_decompressed(self.path) as src:
                held = b""  # a CR ending one chunk may start a CR LF with the next
                for chunk in iter(lambda: src.read(_CHUNK), b""):
                    found.feed(chunk)
                    if found.text.long_line is not None:
                        found.stopped()
                        return  # refused at that line (close's caller), the rest unread
                    data = held + chunk
                    held = b"\r" if data.endswith(b"\r") else b""
                    data = data[:-1] if held else data
                    if not self._write(fd, data.replace(b"\r\n", b"\n") if b"\r" in data else data):
                        found.stopped()
                        return
                # a CR ending the file ends its last line: dropped
        except _decompression_errors() as exc:
            found.damaged(f"corrupt or truncated {self.path.suffix.lower()[1:]} data ({exc})")
            return
        found.finished()

    def _write(self, fd: int, data: bytes) -> bool:
        """Whether all of data went into the pipe (not: DuckDB stopped reading, or the feed stops)."""
        import select

        view = memoryview(data)
        while view:
            if self._stop.is_set() or interrupt.requested.is_set():
                return False
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:
                select.select([], [fd], [], self._WAIT)
            except BrokenPipeError:
                return False  # DuckDB read what it needed
        return True

    def close(self) -> None:
        """Stops the writer and waits for it (at most _WAIT and one chunk's decompression)."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        reader = None
        if self._thread.is_alive():
            try:  # a writer still waiting for a reader: this open lets it through, to stop
                reader = os.open(self.fifo, os.O_RDONLY | os.O_NONBLOCK)
            except OSError:
                pass
        self._thread.join()
        if reader is not None:
            os.close(reader)


class _Readable:
    """What DuckDB reads a file from: the file itself, read as often as asked (path()), or a new
    FIFO for each read (_Feed) when streamed."""

    def __init__(self, file: Path, compression: str, fifos: Path | None = None) -> None:
        self.file, self.compression, self._fifos = file, compression, fifos
        self.feeds: list[_Feed] = []

    @property
    def streamed(self) -> bool:
        return self._fifos is not None

    @property
    def compressed(self) -> bool:
        """Whether the file is compressed: its text may be far larger than its bytes."""
        return is_compressed(self.file)

    def path(self) -> str:
        """The path for one read by DuckDB."""
        if self._fifos is None:
            return str(self.file)
        return str(self.feed().fifo)

    def feed(self, data: bytes | None = None) -> _Feed:
        """A new FIFO of the file's text (or of data) in this read's folder."""
        assert self._fifos is not None
        feed = _Feed(self._fifos / f"text-{len(self.feeds)}", self.file, data)
        self.feeds.append(feed)
        return feed

    def close(self) -> None:
        for feed in self.feeds:
            feed.close()

    def error(self, head_only: bool = False) -> InputFileError | None:
        """What the feeds found that refuses the file, in the order a .gz file's check says it
        (_read_checked): damaged data, then a line too long, then lines holding U+0001 or a CR
        inside (named by a pass of their own, _line_problems). head_only: in the first
        _HEAD_BYTES_READ bytes only (a file its head refused)."""
        path = self.file
        found = [feed.found.found(head_only) for feed in self.feeds]
        for problem, _ in found:
            if problem:
                return InputFileError([Problem(_shown_path(path), 0, problem)])
        for _, text in found:
            long_line = text.long_line_error(path)
            if long_line:
                return long_line
        if any(text.has_line_problems for _, text in found):
            try:
                return _line_problems(path)
            except _decompression_errors() as exc:  # damage past where the feeds stopped
                return InputFileError([Problem(_shown_path(path), 0, f"corrupt or truncated "
                                               f"{path.suffix.lower()[1:]} data ({exc})")])
        return None


def _duckdb_reads_as_named(path: Path) -> bool:
    """Whether DuckDB reads the path as the one file it names. Its readers take `*`, `?` and `[` as
    a pattern (in a list of paths too), so `s*.txt` also read every `s...txt` beside it, and a
    leading `~` as the home folder. Escaping (`[*]`) is no cure: DuckDB still lists the folder, and
    fails on a path, or a file beside it, whose name holds a backslash."""
    text = str(path)
    return not (text.startswith("~") or any(c in GLOB_CHARS for c in text))


@contextmanager
def _readable_by_duckdb(path: Path, through_python: bool = False) -> Iterator[_Readable]:
    """Yields what DuckDB reads the file from, and its compression. bz2 and xz, a file DuckDB would
    not read as named (_duckdb_reads_as_named), and any file when through_python, are streamed:
    each read is a FIFO Python writes the file's text into as it decompresses it (_Feed), in a
    temporary folder that holds nothing else; a file whose text those reads found damaged, with a
    line too long or with line problems (TextScan) is refused on the way out, naming the lines,
    whatever DuckDB said of it."""
    suffix = path.suffix.lower()
    if suffix not in _PYTHON_DECOMPRESSORS and not through_python and _duckdb_reads_as_named(path):
        yield _Readable(path, _DUCKDB_COMPRESSION.get(suffix, "none"))
        return
    with leftovers.temporary_folder("irw-text-") as tmp:
        readable = _Readable(path, "none", tmp)
        try:
            yield readable
        except Exception as exc:
            readable.close()
            error = readable.error(head_only=_head_refusal(exc))
            if error:
                raise error from None
            raise
        finally:
            readable.close()
        error = readable.error()
        if error:
            raise error


def _head_refusal(exc: BaseException | None) -> bool:
    """Whether exc refuses a file by its first lines (_refuse_by_head)."""
    return isinstance(exc, InputFileError) and exc.read_lines is not None


def _gzip_problem(path: Path, stop_at_head: "threading.Event") -> _Found:
    """DuckDB's gzip reader checks neither the CRC32 nor the length in each member's trailer, so a
    damaged file can decode to plausible wrong lines; Python's gzip checks both. That costs about
    1 s of CPU on a 7M-line run, spent in a thread beside DuckDB's own read (zlib drops the GIL).
    The decompressed text is scanned on the way (_Found)."""
    import gzip
    import zlib

    found = _Found()
    try:
        with gzip.open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(_CHUNK), b""):
                found.feed(chunk)
                if found.text.long_line is not None or interrupt.requested.is_set() or \
                        (stop_at_head.is_set() and found.head is not None):
                    return found.stopped()  # refused at that line or its head (or Ctrl-C), the rest unread
    except (EOFError, OSError, zlib.error) as exc:
        return found.damaged(f"corrupt or truncated gz data ({exc})")
    return found.finished()


def _zstd_problem(path: Path, stop_at_head: "threading.Event") -> _Found:
    """DuckDB's zstd reader stops quietly at a truncated frame and returns the lines before it.
    python-zstandard decodes the whole file in a thread beside DuckDB's read (checking each frame's
    content checksum where it has one); a frame that never reaches its end means the file was cut.
    The decompressed text is scanned on the way (_Found)."""
    import zstandard

    found = _Found()
    try:
        with open(path, "rb") as handle:
            frame = zstandard.ZstdDecompressor().decompressobj()
            fed = False
            for chunk in iter(lambda: handle.read(_CHUNK), b""):
                while chunk:
                    found.feed(frame.decompress(chunk))
                    if found.text.long_line is not None or interrupt.requested.is_set() or \
                            (stop_at_head.is_set() and found.head is not None):
                        return found.stopped()  # refused at that line or its head (or Ctrl-C), the rest unread
                    fed = True
                    if not frame.eof:
                        break
                    # a frame ended inside this chunk: the rest belongs to the next frame
                    chunk, frame, fed = frame.unused_data, zstandard.ZstdDecompressor().decompressobj(), False
    except zstandard.ZstdError as exc:
        return found.damaged(f"corrupt or truncated zst data ({exc})")
    if fed and not frame.eof:
        return found.damaged("corrupt or truncated zst data (the file ends inside a frame)")
    return found.finished()


_COMPRESSION_CHECKS = {".gz": _gzip_problem, ".zst": _zstd_problem}


NOT_UTF8 = "bytes that are not valid UTF-8"


def not_utf8_reason(path: Path, utf16: bool = False) -> str:
    """What to do with a file that is not UTF-8: a UTF-16 one (Windows tools write them, with a byte
    order mark) or, most often, Latin-1 text; iconv converts either (a messy-input walk got the bare
    reason for both)."""
    try:
        with _open_decompressed(path) as stream:
            start = stream.read(2)
    except _decompression_errors():
        start = b""
    encoding = "UTF-16" if utf16 or start in (b"\xff\xfe", b"\xfe\xff") else "LATIN1"
    command = f"iconv -f {encoding} -t UTF-8"
    if not is_compressed(path):
        command += f" {shell_word(str(path))} > {shell_word(str(path) + '.utf8')}"
    if encoding == "UTF-16":
        return f"{NOT_UTF8}: a UTF-16 file (a NUL byte beside each letter); convert it, e.g. `{command}`"
    return f"{NOT_UTF8}; if it is Latin-1 text, convert it, e.g. `{command}`"


def _read_error_reason(message: str) -> str:
    """A DuckDB read_csv error turned into the reason a person can act on."""
    if "Invalid unicode" in message:
        return NOT_UTF8
    size = re.search(r"Maximum line size of (\d+) bytes exceeded", message)
    if size:
        return f"a line longer than {int(size.group(1)):,} bytes: not a TREC file"
    if "Expected Number of Columns" in message:
        # stage_fields.sql reads with chr(1) as the delimiter, so a second column means that byte
        # (a file holding it is refused before it is read: this is a safety net).
        return "the control character U+0001 inside the line"
    lines = [line for line in message.splitlines()
             if line.strip() and not line.startswith(("Invalid Input Error: CSV Error", "Original Line"))]
    return lines[0] if lines else message.strip()


class _UnreadableByDuckDB(InputFileError):
    """DuckDB could not read the file as a whole (no line to name): a copy Python decompressed and
    whose line ends it made LF may still be read."""


def _read_checked(path: Path, read: Callable[[bool], T], text: TextScan | None) -> T:
    """Runs read(through_python), which stages the file with DuckDB (through_python: from the text
    _readable_by_duckdb streams), refusing first what DuckDB would misread.

    A plain file's text was scanned before (text): lines holding U+0001 or a lone CR are named
    and refused, mixed line ends are read through Python. bz2 and xz always go through Python. A
    .gz or .zst file is read by DuckDB while a thread checks its compressed data and scans its
    text: damaged data explains whatever DuckDB tripped over, so that cause is reported; then the
    text's line problems; and mixed line ends, or a file DuckDB could not read at all (gzip's zero
    padding), are read again through Python. A file its head refused is judged so by what its
    first _HEAD_BYTES_READ bytes hold, and the check stops there: a bomb is not read whole. The
    caller has checked that the file exists."""
    _check_name(path)
    suffix = path.suffix.lower()
    check = _COMPRESSION_CHECKS.get(suffix)
    if check is None:
        long_line = text.long_line_error(path) if text is not None else None
        if long_line:
            raise long_line
        if text is not None and text.has_line_problems:
            raise _line_problems(path)
        return read(text is not None and text.mixed_line_ends)
    # imported here: only a compressed file needs a thread, and the import costs ~4 ms of every
    # `irw trec-eval` call (DuckDB imports the rest of what this module uses)
    import threading
    from concurrent.futures import ThreadPoolExecutor

    stop_at_head = threading.Event()
    with ThreadPoolExecutor(max_workers=1) as pool:
        checked = pool.submit(check, path, stop_at_head)
        try:
            result, failed = read(False), None
        except InputFileError as exc:
            result, failed = None, exc
        if _head_refusal(failed):  # judged by its first bytes: the check need not read the rest
            stop_at_head.set()
        problem, text = checked.result().found(_head_refusal(failed))
    if problem:
        raise InputFileError([Problem(_shown_path(path), 0, problem)])
    long_line = text.long_line_error(path)
    if long_line:
        raise long_line
    if text.has_line_problems:
        raise _line_problems(path)
    if text.mixed_line_ends or isinstance(failed, _UnreadableByDuckDB):
        return read(True)
    if failed:
        raise failed
    return result


@contextmanager
def _read_errors(path: Path, compression: str) -> Iterator[None]:
    """DuckDB's errors while reading a file, as InputFileError naming file:line and the reason."""
    try:
        yield
    except DuckDBInvalidInput as exc:
        message = str(exc)
        line = _CSV_LINE.search(message)
        reason = _read_error_reason(message)
        if reason == NOT_UTF8:
            reason = not_utf8_reason(path)
        problem = Problem(_shown_path(path), int(line.group(1)) if line else 0, reason)
        raise (InputFileError if line else _UnreadableByDuckDB)([problem]) from None
    except DuckDBOutOfMemory as exc:
        if spill_limit_met(exc):
            raise InputFileError([Problem(_shown_path(path), 0, (
                f"reading it needs {spill_limit_said()}; nothing was stored: {SPILL_LIMIT_ADVICE}"))]) from None
        # not the file's fault: DuckDB reads text in buffers of 16 x its longest line (about 32 MB)
        raise InputFileError([Problem(_shown_path(path), 0, (
            f"reading it needs more memory than irw lets DuckDB use ({memory_limit()}: IRW_MEMORY_LIMIT; DuckDB reads "
            "text in buffers of about 32 MB); nothing was stored: run it again with a larger IRW_MEMORY_LIMIT"))]) from None
    except (DuckDBIOError, DuckDBError) as exc:
        first = str(exc).splitlines()[0].removeprefix("IO Error: ")
        if compression != "none":
            reason = f"corrupt or truncated {path.suffix.lower()[1:]} data ({first})"
        else:
            reason = f"cannot read the file: {first}"
        raise _UnreadableByDuckDB([Problem(_shown_path(path), 0, reason)]) from None


def _text_of(path: Path, holds: Mapping[str, bool] | None) -> TextScan | None:
    """The TextScan of a plain file: holds when it is one (FileScan.holds), else scanned now."""
    if isinstance(holds, TextScan):
        return holds
    if is_compressed(path):
        return None
    return scan_file(path, digest=False).text


def stage_file(db: Database, path: Path, holds: Mapping[str, bool] | None = None,
               problems: Callable[[], tuple[str, dict]] | None = None,
               refuse: Callable[[], None] | None = None) -> None:
    """Loads the file's data lines, split into fields, into stage_fields (line mode). holds:
    FileScan.holds, if the file was scanned already. problems: the file's problems query and its
    parameters (see _stage_lines), for a file too long to stage whole before it is checked; refuse:
    the check said before those problems (a file plainly of another format), run on the same lines."""
    def read(through_python: bool) -> None:
        db.run_file("ingest/line_mode.sql")
        with _readable_by_duckdb(path, through_python) as readable:
            _stage_lines(db, path, readable, {}, "prefs", problems, refuse)

    _read_checked(path, read, _text_of(path, holds))


class SwappedFileError(InputFileError):
    """A run file given as qrels, or qrels given as a run. looks_like: what the file looks like,
    for callers that add their own hint (irw trec-eval asks whether QRELS and RUN were swapped)."""

    def __init__(self, path: Path, looks_like: str, hint: str):
        self.path, self.looks_like = path, looks_like
        super().__init__([Problem(_shown_path(path), 0, f"{looks_like}; {hint}")])


RUN_FILE_LOOKS = "looks like a run file (6 fields: qid Q0 docid rank score tag), not qrels"
QRELS_FILE_LOOKS = {4: "looks like a qrels file (4 fields: qid iter docid grade), not a run",
                    3: "looks like a qrels file (3 fields: qid docid grade), not a run"}


_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_DECOMPRESS_COMMANDS = {".gz": "zcat", ".zst": "zstdcat", ".bz2": "bzcat", ".xz": "xzcat"}


@dataclass(frozen=True)
class HeaderLine:
    """A first data line that names columns (BEIR's `query-id corpus-id score`, a TSV's header)."""
    line: int
    text: str


def _header_line(db: Database) -> HeaderLine | None:
    """The staged file's first line when it is a header: a line of several fields none of which
    is a number (a qrels line ends in an integer grade, a run line has a rank and a score), followed
    by more data lines. Such a line is never a valid line, so calling it a header refuses nothing
    that was accepted; it only says what it is."""
    return header_line(*db.run_file("ingest/header_facts.sql").fetchone())


def header_line(line: int, fields: list[str] | None, count: int) -> HeaderLine | None:
    """The rule of _header_line on a file's first data line (its number and fields) and its count of
    data lines; shared with Spark's reading (warehouse/engines/spark.py). A header is the file's first line
    (after a byte order mark), not a line after comments."""
    if line != 1 or count < 2 or not fields or len(fields) < 2 or any(_NUMBER.fullmatch(f) for f in fields):
        return None
    return HeaderLine(line, " ".join(fields).translate(_CONTROL_ESCAPES))


def header_error(path: Path, header: HeaderLine, kind: str) -> InputFileError:
    """irw reads TREC files without a header line (qrels as trec_eval does): the error names the
    line and gives the command that writes the file without it."""
    shown = _shown_path(path)
    command, target = _rewrite_command(path, kind, f"tail -n +{header.line + 1}", ".noheader")
    what = "judgment (qid iter docid grade, or qid docid grade)" if kind == "qrels" else \
        "run line (qid Q0 docid rank score tag)"
    return InputFileError([Problem(shown, header.line,
                                   f"`{header.text}` is a header line, not a {what}: irw reads TREC files without "
                                   f"one; write the file without it ({command} > {target}) and give irw that file")])


def _rewrite_command(path: Path, kind: str, filter_command: str, tag: str) -> tuple[str, str]:
    """The shell command that writes path's lines through filter_command (`tail -n +2`), and the
    file it writes them to (shell-quoted): path's name without its compression and text suffixes,
    as .qrels or .run (with tag before it when that is path's own name)."""
    stem, extension = path.name, ".qrels" if kind == "qrels" else ".run"
    for suffix in COMPRESSED_SUFFIXES:
        stem = stem.removesuffix(suffix)
    for suffix in (".txt", ".tsv", ".trec", ".run", ".qrels"):
        stem = stem.removesuffix(suffix)
    target = path.with_name(stem + extension)
    if target == path:
        target = path.with_name(stem + tag + extension)
    source = shell_word(str(path))
    decompress = _DECOMPRESS_COMMANDS.get(path.suffix.lower())
    command = f"{decompress} {source} | {filter_command}" if decompress else f"{filter_command} {source}"
    return command, shell_word(str(target))


_EXTRA_FIELDS = re.compile(r"expected 6 fields \(qid Q0 docid rank score tag\), found (\d+)")


_DECIMAL_GRADE = re.compile(r"grade -?[0-9]+\.0+ is not an integer")


def _problems_hint(path: Path, reasons: list[str]) -> Problem | None:
    """The way out where every problem shown is of one kind a command fixes: a run's extra fields,
    or qrels grades written as decimals (1.0: a float column written out, as pandas does)."""
    if reasons and all(_DECIMAL_GRADE.fullmatch(reason) for reason in reasons):
        command, target = _rewrite_command(path, "qrels", "awk '{$NF = int($NF)} 1'", ".int")
        return Problem(_shown_path(path), 0, "grades written as decimals (a float column written out): trec_eval "
                                             "reads 1.0 as 1, irw takes whole numbers; write them whole "
                                             f"({command} > {target}) and give that file instead")
    return _extra_fields_hint(path, reasons)


def _extra_fields_hint(path: Path, reasons: list[str]) -> Problem | None:
    """Where every problem shown is a run line of more than 6 fields (trec_eval's results.trunc
    ends lines in "more junk"), the way out: trec_eval reads the first six and ignores the rest,
    `irw trec-eval` too; a stored run keeps exactly what it is, so the file is written without them."""
    found = [_EXTRA_FIELDS.fullmatch(reason) for reason in reasons]
    if not found or not all(m and int(m.group(1)) > 6 for m in found):
        return None
    command, target = _rewrite_command(path, "run", "awk '{print $1, $2, $3, $4, $5, $6}'", ".6fields")
    return Problem(_shown_path(path), 0, "lines of more than 6 fields: trec_eval and `irw trec-eval` ignore what "
                                         f"follows the sixth, `irw ingest` stores runs as they are; write the "
                                         f"first six ({command} > {target}) and ingest that file")


def _refuse_swapped(db: Database, path: Path, kind: str, header: HeaderLine | None = None) -> None:
    """Refuses a staged file (stage_fields) that is plainly the other kind: qrels whose first data
    line and at least half of all have 6 or more fields (a run), or a run whose first data line and
    at least half have 3 or 4 fields ending in an integer (qrels). Said first, and alone: the
    problems of every line would only hide it. A header line (BEIR's `query-id corpus-id score`)
    is passed over: the line after it decides."""
    first_count, first_grade, share = _swap_facts(db, kind, header)
    if share is not None and share >= 0.5:
        try:
            refuse_if_swapped(path, kind, first_count, first_grade)
        except SwappedFileError as exc:
            if header is None:
                raise
            raise SwappedFileError(path, f"{exc.looks_like} (its line {header.line}, `{header.text}`, is a header)",
                                   exc.problems[0].reason.partition("; ")[2]) from None
    if header is not None:
        raise header_error(path, header, kind)


def _swap_facts(db: Database, kind: str, header: HeaderLine | None) -> tuple:
    """(field count of the first data line after the header, whether it ends in an integer, the
    share of data lines that look like the other kind) of the file staged in stage_fields."""
    facts = "ingest/swap_facts_run.sql" if kind == "run" else "ingest/swap_facts_qrels.sql"
    return db.run_file(facts, {"after": header.line if header else 0}).fetchone()


def refuse_if_swapped(path: Path, kind: str, first_count: int, first_grade: bool) -> None:
    """The rule's last step, shared with Spark's check (warehouse/engines/spark.py): for a file where the
    other kind's lines are at least half, its first data line decides (kind: what it was given as)."""
    if kind == "qrels" and first_count >= 6:
        raise SwappedFileError(path, RUN_FILE_LOOKS, "a run is ingested with `irw ingest run`")
    if kind == "run" and first_count in (3, 4) and first_grade:
        raise SwappedFileError(path, QRELS_FILE_LOOKS[first_count], "qrels are ingested with `irw ingest qrels`")


def stage_run(db: Database, path: Path, *, strict: bool, holds: Mapping[str, bool] | None = None,
              read_ir_metadata: bool = True, refuse_nul: bool = True) -> tuple[str | None, list[tuple[str, int | None, int | None]]]:
    """Stages a validated run file as the view stage_run (query_id, doc_id, rank_given, score);
    returns its ir_metadata text and its tags as (tag, first line, last line),
    the lines None when the file has one tag.

    The column reader takes a clean file in one pass; anything it does not take exactly as line mode
    would (sql/ingest/stage_run_columns.sql, columns_clean.sql) is read again in line mode, which
    names each problem's line. Either way the staged rows are the same. holds (FileScan.holds) says
    what the file's text holds: it spares the search for bytes the file is known not to hold, and
    the scan of a plain file's text. read_ir_metadata=False returns None for the ir_metadata text without
    looking for it, for a database that keeps nothing (warehouse/evaluation/oneshot.py): then a plain file
    whose first line is a run line is not read by ir_metadata.sql at all (_first_line_tag)."""
    if refuse_nul:
        _refuse_binary(path, "run")
    text = _text_of(path, holds)

    def read(through_python: bool) -> tuple[str | None, list[tuple[str, int | None, int | None]]]:
        with _readable_by_duckdb(path, through_python) as readable:
            compression = readable.compression
            may_hold = _may_hold(text, compression, readable.streamed)
            params = {"compression": compression, "head_lines": IR_METADATA_HEAD_LINES,
                      "strict": strict, **{f"may_hold_{key}": value for key, value in may_hold.items()}}
            db.run_file("ingest/line_mode.sql")
            db.run_file("ingest/run_field_rules.sql")
            head = None if read_ir_metadata or compression != "none" else _first_line_tag(path)
            if head is not None:
                ir_metadata, header_lines, first_tag = None, 0, head
            else:
                with _read_errors(path, compression):
                    ir_metadata, header_lines, first_tag = db.run_file(
                        "ingest/ir_metadata.sql", params | {"path": readable.path()}).fetchone()
                ir_metadata = ir_metadata if read_ir_metadata else None
            problems = lambda: ("ingest/run_problems.sql", {"strict": strict})  # noqa: E731
            if readable.compressed:  # before the column reader stages every line (_refuse_by_head)
                _refuse_by_head(db, path, "run", problems)
            if _stage_run_columns(db, params | {"path": [readable.path()], "skip": header_lines,
                                                "first_tag": first_tag}):
                db.run_file("ingest/stage_run_from_columns.sql")
                return ir_metadata, [(first_tag, None, None)]  # every line has that tag
            if not readable.compressed:
                _refuse_by_head(db, path, "run", problems)
            _stage_lines(db, path, readable, params, "run", problems)
        _require_data(db, path, "run")
        _refuse_swapped(db, path, "run", _header_line(db))
        _collect_problems(db, path, "ingest/run_problems.sql", {"strict": strict})
        db.run_file("ingest/stage_run_from_fields.sql")
        return ir_metadata, db.run_file("ingest/run_tags.sql").fetchall()

    ir_metadata, tags = _read_checked(path, read, text)
    if refuse_nul:  # a warehouse's file; a database thrown away after one evaluation keeps NUL as data
        staged_tag(path, tags, strict)  # a second tag is said first, as the caller would
        _refuse_nul(db, path, "stage_run", [ir_metadata or "", *(tag or "" for tag, _, _ in tags)])
    return ir_metadata, tags


_BINARY_HEAD_BYTES = 8192  # as git and diff decide that a file is binary


def _utf16_without_mark(head: bytes) -> bool:
    """ASCII text written as UTF-16 with no byte order mark: a NUL at every other byte."""
    pairs = head[: len(head) // 2 * 2]
    return len(pairs) >= 16 and (set(pairs[1::2]) == {0} or set(pairs[0::2]) == {0})


def _refuse_binary(path: Path, kind: str) -> None:
    """A file whose first 8 KB of text hold NUL bytes (an executable, an image, an archive given by
    mistake) is refused as one, in one line: its lines were refused one by one, twenty lines of
    control characters and carriage returns (a walk). A warehouse's file only: `irw trec-eval` keeps
    NUL as data, as trec_eval reads it (_refuse_nul)."""
    try:
        with _open_decompressed(path) as stream:
            head = stream.read(_BINARY_HEAD_BYTES)
    except _decompression_errors():
        return  # the whole file's read says what is wrong with it
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") or _utf16_without_mark(head):  # text, though NULs are half its bytes
        raise InputFileError([Problem(_shown_path(path), 1, not_utf8_reason(path, utf16=True))])
    # a NUL or two in a text file are said at their lines (_refuse_nul); many are a binary file's
    if head.count(b"\0") > 16:
        at = head.index(b"\0")
        raise InputFileError([Problem(_shown_path(path), head.count(b"\n", 0, at) + 1,
                                      f"a binary file (a NUL byte at byte {at + 1}: an executable, image or "
                                      f"archive?), not a TREC {kind} file of text lines")])


def _refuse_nul(db: Database, path: Path, staged: str, texts=()) -> None:
    """NUL (U+0000) in what irw stores of a file (a query id, doc id, tag or ir_metadata block) is
    an error naming its line, on every engine: PostgreSQL's text cannot hold it, and a warehouse
    must not keep on DuckDB what it could not copy to a server. staged is irw's own view name
    (stage_run or stage_qrels: sql/ingest/nul_in_<staged>.sql)."""
    if not any("\x00" in text for text in texts) and not db.run_file(f"ingest/nul_in_{staged}.sql").fetchone()[0]:
        return
    raise InputFileError([Problem(str(path), _nul_line(path, staged == "stage_run"),
                                  "the control character NUL (U+0000) inside the line; irw stores "
                                  "no NUL in a query id, doc id or tag, on any engine")])


def _nul_line(path: Path, run: bool) -> int:
    """The first data line holding NUL in a field irw stores (a run's query id, doc id and tag, a
    qrels line's query id and doc id), else the first comment line holding NUL (the ir_metadata
    block), else 0."""
    comment = 0
    with _open_decompressed(path) as handle:
        for number, line in enumerate(handle, 1):
            if b"\x00" not in line:
                continue
            fields = [f for f in re.split(rb"[ \t\r\n]+", line) if f]
            if fields and fields[0].startswith(b"#"):
                comment = comment or number
                continue
            stored = [fields[i] for i in ((0, 2, 5) if run else (0, len(fields) - 2)) if 0 <= i < len(fields)]
            if any(b"\x00" in field for field in stored):
                return number
    return comment


_HEAD_BYTES = 1 << 16


def _first_line_tag(path: Path) -> str | None:
    """The tag (sixth field) of a plain or streamed file's first line when that line is a run line, as
    ir_metadata.sql would find it (header_lines 0, first_tag that field), read by Python from the
    file's first bytes instead of by DuckDB (~10 ms of a DL19-sized evaluation). None, for
    ir_metadata.sql to decide, whenever the first line is anything else: a comment or blank line
    (the file has a header), fewer than six fields, no line end in the first 64 KiB, bytes that are
    not UTF-8, a byte-order mark. The column reader checks every line's tag against this one, so a
    line DuckDB reads differently sends the file to line mode, never to different rows."""
    try:
        with _open_decompressed(path) as handle:
            head = handle.read(_HEAD_BYTES)
    except _decompression_errors():
        return None
    end = head.find(b"\n")
    if end < 0:
        return None
    try:
        line = head[:end].decode("utf-8")
    except UnicodeDecodeError:
        return None
    if line.startswith("\ufeff") or "\x01" in line:
        return None
    # line_mode.sql's trec_fields: CR and tab are spaces, fields are the non-empty pieces between spaces
    fields = [f for f in line.replace("\r", " ").replace("\t", " ").split(" ") if f]
    if len(fields) < 6 or fields[0].startswith("#"):
        return None
    return fields[5]


def _may_hold(text: TextScan | None, compression: str, streamed: bool) -> Mapping[str, bool]:
    """Which of _FIELD_BREAKING_BYTES the file DuckDB reads may hold, for a column reader: what the
    scan of the plain file found; any of them in a compressed file or in text streamed by Python
    (its TextScan is not done when DuckDB starts reading)."""
    if text is not None and compression == "none" and not streamed:
        return text
    return dict.fromkeys(_FIELD_BREAKING_BYTES, True)


def _stage_run_columns(db: Database, params: dict) -> bool:
    """Whether the column reader took the run file cleanly (else line mode follows)."""
    return _stage_columns(db, "stage_run_columns", params)


def _stage_columns(db: Database, table: str, params: dict) -> bool:
    """Reads a file into `table` (stage_run_columns or stage_qrels_columns) with the column reader
    of the same name under sql/ingest/; whether it took the file cleanly (else the table is dropped
    and line mode follows)."""
    row_cap = _staging_caps()[1]
    try:
        db.run_file(f"ingest/{table}.sql", params | {"row_cap": row_cap})
        clean = db.run_file("ingest/columns_clean.sql", {"stage_table": table, "row_cap": row_cap}).fetchone()[0]
    except DuckDBError:
        clean = False
    if not clean:
        db.run_file(f"ingest/drop_{table}.sql")
    return clean


def _drop_stage(db: Database) -> None:
    db.run_file("ingest/drop_stage.sql")


@contextmanager
def _staging(db: Database) -> Iterator[None]:
    """The stage tables a file is read into live only inside: dropped on the way out, stored or not."""
    try:
        yield
    finally:
        _drop_stage(db)


# Control characters in a reason (a field quoted from the file) printed as \xNN: a VT or FF
# would otherwise break the message into lines, a NUL or ESC hide part of it.
_CONTROL_ESCAPES = {code: f"\\x{code:02x}" for code in (*range(32), 127)}


def _collect_problems(db: Database, path: Path, sql_file: str, params: dict, *,
                      head_lines: int | None = None) -> None:
    """Refuses the staged file if sql_file (one query of (line_no, reason) rows) finds problems: the
    first InputFileError.MAX_SHOWN, and their count. Neither holds every problem at once (a file of
    millions of bad lines peaked at gigabytes when all were fetched): DuckDB keeps a top-N and a
    count, and a file without problems pays for the first query only. head_lines: what is staged
    is only the file's first head_lines lines (_refuse_by_head), refused when they hold a problem
    (the rest unread: the message says so)."""
    query = read_sql(sql_file).strip().rstrip(";")
    rows = db.run_sql(composed_sql("ingest/first_problems.sql", problems=query),
                      params | {"shown": int(InputFileError.MAX_SHOWN) + 1}).fetchall()
    if head_lines is not None and not rows:
        return
    if rows:
        total = len(rows)
        if total > InputFileError.MAX_SHOWN:
            total = db.run_sql(composed_sql("ingest/problem_count.sql", problems=query), params).fetchone()[0]
        shown = rows[: InputFileError.MAX_SHOWN]
        raise InputFileError([Problem(_shown_path(path), line, reason.translate(_CONTROL_ESCAPES))
                              for line, reason in shown], total=total, read_lines=head_lines,
                             hint=_problems_hint(path, [reason for _line, reason in shown]))


def _head_text(path: Path) -> bytes | None:
    """The first HEAD_LINES lines of the file's text (decompressed, CR LF line ends made LF as
    _readable_by_duckdb does). None when the file ends within them (reading it whole costs no
    more) or its head holds no line end within _HEAD_BYTES_READ bytes. A file whose data is
    damaged is None too: the whole file's read says so."""
    head, lines = b"", 0
    try:
        with _open_decompressed(path) as stream:
            while lines < HEAD_LINES and len(head) < _HEAD_BYTES_READ:
                chunk = stream.read(min(_CHUNK, _HEAD_BYTES_READ - len(head)))
                if not chunk:
                    return None
                head += chunk
                lines = head.count(b"\n")
    except _decompression_errors():
        return None
    if lines >= HEAD_LINES:
        cut = -1
        for _ in range(HEAD_LINES):
            cut = head.find(b"\n", cut + 1)
        cut += 1
    else:
        cut = head.rfind(b"\n") + 1
    if cut == 0:
        return None
    head = head[:cut]
    return head.replace(b"\r\n", b"\n") if b"\r" in head else head


def _refuse_by_head(db: Database, path: Path, kind: str, problems: Callable[[], tuple[str, dict]]) -> None:
    """Refuses a file about to be read whole when its first lines (_head_text),
    staged by the same SQL, already hold a problem: the same first problems the whole file's check
    names (each rule judges a line by it and the lines before it), then their count in those lines
    and that the rest was not read, so a bad file is refused at its first bad line without staging
    the rest, and a bomb of bad lines costs no memory. What the head cannot decide is left to the
    whole file's check: a file the head shows as maybe the other kind (the share of all its lines
    decides), one whose head holds no problem. A compressed file is checked so before the column
    reader, which stages every line before its whole-file checks (a bomb of duplicate lines would
    be staged whole); a valid file's head holds no problem, so this refuses only what line mode
    would. A plain file, whose text costs what its bytes cost, pays for it (~20-50 ms) only when
    the column reader does not take it.
    problems() gives the problems query and its parameters (read from stage_fields). The head
    reaches DuckDB through a FIFO (_Feed), never a file; line_mode.sql's macros exist."""
    head = _head_text(path)
    if head is None:
        return
    read_lines = head.count(b"\n")
    with leftovers.temporary_folder("irw-head-") as tmp:
        feed = _Feed(tmp / "head", path, head)
        try:
            db.run_file("ingest/stage_fields.sql", {"path": str(feed.fifo), "compression": "none", "line_limit": None})
        except DuckDBError:
            return  # the whole file's read names what DuckDB cannot read
        finally:
            feed.close()
    try:
        if db.run_file("ingest/stage_fields_count.sql").fetchone()[0] < 2:
            return  # (_header_line's rule needs the count of the whole file's data lines)
        header = _header_line(db)
        first_count, first_grade, _ = _swap_facts(db, kind, header)
        if first_count is None:
            return
        try:
            refuse_if_swapped(path, kind, first_count, first_grade)
        except SwappedFileError:
            return
        if header is not None:
            raise header_error(path, header, kind)
        _collect_problems(db, path, *problems(), head_lines=read_lines)
    finally:
        db.run_file("ingest/drop_stage_fields.sql")


_SIZE_UNITS = {"b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
               "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}


def _staging_caps() -> tuple[int, int]:
    """(the lines of line mode's first window, the most rows a column reader stages), from
    memory_limit() (see _BYTES_PER_LINE); never fewer than HEAD_LINES."""
    number, unit = re.fullmatch(r"\s*([\d.]+)\s*([A-Za-z]+)\s*", memory_limit()).groups()
    limit = int(float(number) * _SIZE_UNITS[unit.lower()])
    return max(HEAD_LINES, limit // _BYTES_PER_LINE // 1000 * 1000), max(HEAD_LINES, limit // _BYTES_PER_ROW)


def _stage_lines(db: Database, path: Path, readable: _Readable, params: dict, kind: str,
                 problems: Callable[[], tuple[str, dict]] | None,
                 refuse: Callable[[], None] | None = None) -> None:
    """Stages the whole file in line mode (stage_fields), or refuses it by its first problem
    without staging the rest: the file is read in windows of its first lines (_staging_caps), each
    read from the start and stopping one line past the window; a window that reaches the file's end
    is the file, staged whole, checked by the caller as ever. In a window that does not, the
    problems query (problems(), on stage_fields) is run as _refuse_by_head runs it (the same rules
    judge a line by it and the lines before it): the file is refused there, naming its first
    problems in the window's lines and that the rest was not read; else the next, larger window is
    read. So a bad file costs memory and time for the lines up to its first problem (times
    _WINDOW_GROWTH at most), spilling nothing a valid file of that length would not, and a valid
    file of fewer lines than the first window is staged once, as before. kind: "run", "qrels"
    (a window that looks like the other kind, or starts with a header, is refused so, as the whole
    file would be) or "prefs" (refuse(), if given, runs there as _refuse_swapped runs for the others)."""
    window = _staging_caps()[0]
    while True:
        with _read_errors(path, readable.compression):
            db.run_file("ingest/stage_fields.sql", params | {
                "path": readable.path(), "compression": readable.compression, "line_limit": window})
        if not db.run_file("ingest/stage_fields_beyond.sql", {"window": window}).fetchone()[0]:
            return
        db.run_file("ingest/drop_fields_beyond.sql", {"window": window})
        if problems is not None and db.run_file("ingest/stage_fields_count.sql").fetchone()[0]:
            try:
                if kind != "prefs":
                    _refuse_swapped(db, path, kind, _header_line(db))
                elif refuse is not None:
                    refuse()
            except InputFileError as exc:
                exc.read_lines = window  # judged by this window: the rest need not be read (_head_refusal)
                raise
            _collect_problems(db, path, *problems(), head_lines=window)
        window *= _WINDOW_GROWTH


def _require_data(db: Database, path: Path, what: str) -> int:
    count = db.run_file("ingest/stage_fields_count.sql").fetchone()[0]
    if count == 0:
        # comments and blank lines are not staged: a file of only those is not said to be empty
        raise InputFileError([Problem(_shown_path(path), 0, f"no {what} lines (the file is empty, or holds only "
                                                            "blank lines and comments)")])
    return count


def unchanged(kind: str, name: str, path: Path, sha: str, existing: tuple) -> IngestResult:
    """The no-op result of ingesting a file whose content the warehouse holds under that name
    (existing: stored_run's or stored_qrels_set's row): its bytes, or a compressed file's text."""
    return IngestResult(kind, name, str(path), "unchanged", existing[2], existing[3],
                        [f"{kind} {name} already holds {held_content(path)} (sha256 {sha[:12]}) of {path}; "
                         "nothing to do"])


def held_content(path: Path) -> str:
    """What a stored run holds of a file known to it: its bytes, or a compressed file's text."""
    return "this text" if is_compressed(path) else "these bytes"


# Where a run's date came from (runs.date_source, schema 007).
DATE_GIVEN, DATE_IR_METADATA, DATE_FOLDER, DATE_FILE_MTIME = "--date", "ir_metadata", "folder name", "file mtime"


@dataclass(frozen=True)
class RunDate:
    """A run's date (naive, UTC) and where it came from (one of the DATE_ sources)."""

    value: dt.datetime
    source: str


# A folder named by a date, as a nightly job writes its runs (2026-02-02/BM25.txt, 20260202/,
# 2026-02-02T0300/): the date, and a time if it has one, in UTC
_NIGHT = re.compile(r"(?P<y>\d{4})(?P<sep>[-_.]?)(?P<m>\d{2})(?P=sep)(?P<d>\d{2})"
                    r"(?:[T_ .-]?(?P<H>\d{2})(?:[:.-]?(?P<M>\d{2})(?:[:.-]?(?P<S>\d{2}))?)?Z?)?")


def night_of(folder: str) -> dt.datetime | None:
    """The date (and time) a folder is named by, None when its name is not one: such a folder holds
    one night's runs (warehouse.ingestion.batch names them by their files, not by the folder)."""
    found = _NIGHT.fullmatch(folder)
    if not found:
        return None
    try:
        return dt.datetime(*(int(found.group(key) or 0) for key in ("y", "m", "d", "H", "M", "S")))
    except ValueError:
        return None


def placed_folder(path: "str | os.PathLike[str]") -> Path:
    """The folder holding a file as the user laid the files out: absolute, with `.` and `..` taken
    away, symbolic links not followed (a run file linked into a collection's folder belongs to that
    folder, not to the one its link points into). The one folder a run is named by
    (warehouse.ingestion.batch) and dated by (file_date)."""
    return Path(os.path.abspath(path)).parent


def file_date(path: Path) -> RunDate:
    """A run file's date when neither --date nor its ir_metadata gives one: the date its folder
    (placed_folder), or the folder above it, is named by (2026-02-02/BM25.txt and
    2026-02-02/BM25/trec_results_dl21.txt ran on 2026-02-02, whenever the files were copied: a night
    of a folder per system or per collection), else its modification time."""
    folder = placed_folder(path)
    for named in (folder.name, folder.parent.name):
        night = night_of(named)
        if night is not None:
            return RunDate(night, DATE_FOLDER)
    return file_mtime_date(path)


def file_mtime_date(path: Path) -> RunDate:
    """The fallback: the file's modification time in UTC. (Not its birth time, which some systems
    have and others do not: the same file would be dated differently by the machine reading it.)"""
    stamp = dt.datetime.fromtimestamp(path.stat().st_mtime, tz=dt.timezone.utc).replace(tzinfo=None)
    return RunDate(stamp, DATE_FILE_MTIME)


def _stored_qrels(db: Database, name: str, shas: tuple[str, ...], subtopics: bool, replace: bool,
                  prefs: bool = False) -> tuple[tuple | None, bool]:
    """The stored qrels (prefs: preferences) set of that name (stored_qrels_set's row, or None) and
    whether it holds this content read the same way (nothing to do): shas are the file's bytes' and,
    once known, its text's sha256 (schema 22). A set holding other content is a ConflictError unless
    replace."""
    existing = stored_qrels_set(db, name)
    if (existing and any(sha and sha in (existing[1], existing[7]) for sha in shas)
            and existing[4] == subtopics and existing[5] == prefs):
        return existing, True
    if existing and not replace:
        raise ConflictError(f"qrels set {name} already exists with different content; "
                            "pass --replace to replace it and every score computed with it")
    return existing, False


def ingest_qrels(db: Database, path: str | os.PathLike[str], name: str | None = None, *,
                 description: str | None = None, replace: bool = False, subtopics: bool = False,
                 digest: bool = True) -> IngestResult:
    """subtopics=True reads ndeval's diversity format, `qid subtopic docid grade`, into a subtopic
    set (qrels_subtopics, schema 008; qrels gets each document's highest grade). digest=False
    skips hashing the file (qrels_sets.sha256 is ""), for a database thrown away after one
    evaluation (warehouse/evaluation/oneshot.py), where nothing will ask whether it holds these bytes."""
    path = Path(path)

    def stage(stage_db: Database, scan: FileScan) -> None:
        stage_qrels(stage_db, path, subtopics=subtopics, holds=scan.holds, refuse_nul=db.keeps_scores)

    def store(into: Database, name: str, description: str | None, shas: tuple[str, str], existing) -> int:
        return _store_qrels(into, path, name, description, shas, subtopics, existing)

    return _ingest_judgments(db, path, name, "qrels", description=description, replace=replace, digest=digest,
                             subtopics=subtopics, prefs=False, stage=stage, store=store)


def _ingest_judgments(db: Database, path: Path, name: str | None, kind: str, *, description: str | None,
                      replace: bool, digest: bool, subtopics: bool, prefs: bool,
                      stage: Callable[[Database, FileScan], None],
                      store: Callable[[Database, str, str | None, tuple[str, str], tuple | None], int]) -> IngestResult:
    """One judgment file stored as a set of its kind (qrels or prefs), the steps both kinds take:
    the name checked (given, else the stored set holding this content, else the file's), stage(db,
    scan) reading the file into the stage tables, a compressed file's text hashed once staged (a
    file its head refused is never read whole) and looked for among the stored sets, then
    store(db, name, description, shas, existing) writing the staged rows as the set, in the
    warehouse's transaction; on a server warehouse the set is stored locally, then sent
    (warehouse/store/transfer.py)."""
    if name is not None:
        refuse_bad_name(f"{kind} set", name)
    if isinstance(description, str) and name_problem(description) == "is not UTF-8 text":
        raise UsageError(f"the {kind} set's --description '{shown(description)}' is not UTF-8 text")
    scan = read_input(path, digest=digest)
    sha = scan.sha256
    given = name
    name = name or default_set_name(db, path, (sha,), subtopics=subtopics, prefs=prefs)
    if name_problem(name):
        raise UsageError(f"{path}: the {kind} set's name '{shown(name)}' {name_problem(name)}; name it with --name")
    # a compressed file may still be a stored set's text: other content is refused once that is known
    existing, same = _stored_qrels(db, name, (sha,), subtopics, replace or scan.text is None, prefs)
    if same:
        return _same_set(db, kind, name, path, existing[1], existing, description, replace)
    staging = db.staging
    with _staging(staging):
        stage(staging, scan)
        text_sha = text_sha256(path, scan)  # staged: a file its head refused was not read whole
        if text_sha != sha:
            name = given or default_set_name(db, path, (sha, text_sha), subtopics=subtopics, prefs=prefs)
            existing, same = _stored_qrels(db, name, (sha, text_sha), subtopics, replace, prefs)
            if same:
                return _same_set(db, kind, name, path, existing[1], existing, description, replace)
        messages: list[str] = []
        if existing:
            description, messages = _replacing_description(path, kind, name, existing, description)
        if staging is db:
            with db.transaction():
                store(db, name, description, (sha, text_sha), existing)
        else:
            with staging.transaction():
                local_id = store(staging, name, description, (sha, text_sha), None)
            try:
                with db.transaction():
                    transfer.ship_qrels(staging, db, name, replacing=existing[0] if existing else None)
            finally:
                with staging.transaction():
                    delete_qrels_set(staging, local_id)
        rows, queries = stored_qrels_set(db, name)[2:4]
    messages += _same_bytes_elsewhere(db, path, name, text_sha)
    return IngestResult(kind, name, str(path), "replaced" if existing else "ingested", rows, queries, messages)


def _same_bytes_elsewhere(db: Database, path: Path, name: str, sha: str) -> list[str]:
    """The message for a set just stored as name whose content (sha: its text's sha256) other stored
    sets hold: one set of judgments under two names splits the evaluations between them, so it is
    said, as for runs."""
    others = [row[0] for row in db.run_file("catalog/qrels_sets_by_content.sql", {"sha256": sha, "name": name})
              .fetchall()] if sha else []
    if not others:
        return []
    same = "its text is" if is_compressed(path) else "the same bytes are"
    return [f"{path}: {same} stored as qrels set{'s' if len(others) > 1 else ''} {', '.join(others)} too"]


def default_set_name(db: Database, path: Path, shas: tuple[str, ...], *, subtopics: bool = False,
                     prefs: bool = False) -> str:
    """The name of a qrels (prefs: preferences) file ingested without one: the stored set's holding
    its content read the same way (shas: its bytes' and, once known, its text's sha256), else its
    file's (display_name). The same judgments are one set whatever the file is called, compressed
    or not, as a run file's content keeps its stored run's name (warehouse.ingestion.batch, rule 1):
    after `irw rename qrels A B`, ingesting A's file again is a no-op saying B holds it, not a
    second copy. A set named by the file wins, then the oldest."""
    name = display_name(path)
    others = [row[0] for sha in dict.fromkeys(shas) if sha  # not hashed (digest=False): nothing to match
              for row in db.run_file("catalog/qrels_sets_by_content.sql", {"sha256": sha, "name": name}).fetchall()]
    for candidate in dict.fromkeys((name, *others)):
        if _stored_qrels(db, candidate, shas, subtopics, True, prefs)[1]:
            return candidate
    return name


def _same_set(db: Database, kind: str, name: str, path: Path, sha: str, existing: tuple,
              description: str | None, replace: bool) -> IngestResult:
    """The result for a file whose bytes the set of its name holds (kind: qrels or prefs): nothing
    to do, unless a description other than the stored one is given. replace applies it in place
    (the judgments and scores stay: the bytes are the same); without, the option that does is
    said, as for a run (warehouse.ingestion.batch._same_bytes)."""
    result = unchanged(kind, name, path, sha, existing)
    old = existing[6]
    if description is None or description == old:
        return result
    if not replace:
        same = "the text is the same" if is_compressed(path) else "the bytes are the same"
        result.messages.append(f"{path}: {kind} {name} has description {said_value(old)}, not {said_value(description)}: pass --replace "
                               f"to change it ({same}: its scores stay)")
        return result
    with db.transaction():
        db.run_file("catalog/edit_qrels_set_description.sql", {"qrels_set_id": existing[0], "description": description})
    return IngestResult(kind, name, str(path), "updated", result.rows, result.queries,
                        [f"{path}: {kind} {name} already holds {held_content(path)}; its description is now {said_value(description)}, "
                         f"was {said_value(old)}"])


def _replacing_description(path: Path, kind: str, name: str, existing: tuple,
                           description: str | None) -> tuple[str | None, list[str]]:
    """The description of the set replacing `existing` (stored_qrels_set's row) with other bytes:
    the one given, else the stored one (what the user said of the set stays with it, as a replaced
    run's does: _kept_settings); and the message saying which, when there is one to say."""
    old = existing[6]
    if description is None:
        if old is None:
            return None, []
        return old, [f"{path}: {kind} {name} replaced: it keeps its description {said_value(old)} (--description gives another)"]
    if description != old:
        return description, [f"{path}: {kind} {name} replaced: its description is now {said_value(description)}, was {said_value(old)}"]
    return description, []


def ingest_qrels_files(db: Database, paths: "Sequence[str | os.PathLike[str]]", name: str | None = None, *,
                       description: str | None = None, replace: bool = False,
                       subtopics: bool = False) -> list[IngestResult]:
    """Several qrels files (`irw ingest qrels FILE... / FOLDER`), each a qrels set named by its file
    (display_name: qrels.dl21-passage.txt is qrels.dl21-passage), or by the stored set holding its
    bytes (default_set_name), a folder's files (not hidden, not in subfolders) in name order, a
    file given twice once. Every file is read and validated, and every name checked, before the
    first set is stored: a bad file, two files of one name, or a name a stored set holds with other
    content (without replace) is a BatchError listing each problem, and nothing is stored. name names
    the set of the one file given, or of the one file a folder holds."""
    from warehouse.errors import BatchError, IrwError

    files: list[Path] = []
    problems: list[str] = []
    failed = empty = 0
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            inside = folder_files(path, "qrels")
            if not inside:
                problems.append(f"{path}: " + no_input_files(path, "qrels",
                                                             "ingest them with `irw ingest qrels {folders}`"))
                failed, empty = failed + 1, empty + 1
            files.extend(inside)
        else:
            files.append(path)
    files = list(dict.fromkeys(files))
    if name is not None and not problems:
        if len(files) != 1:
            raise UsageError(f"--name names one qrels set, and {len(files)} files were given; without it each is "
                             "named by its file name (`irw rename qrels` renames a set)")
        return [ingest_qrels(db, files[0], name, description=description, replace=replace, subtopics=subtopics)]
    named: dict[str, Path] = {}
    for path in files:
        try:
            scan = read_input(path)
            shas: tuple[str, ...] = (scan.sha256,)
            name = default_set_name(db, path, shas, subtopics=subtopics)
            # a compressed file may still be a stored set's text (schema 22): its name is known once
            # it is staged and its text hashed, so other content is refused then
            stored = _stored_qrels(db, name, shas, subtopics, replace or scan.text is None)[1]
            if not stored and scan.text is None:
                with _staging(db.staging):
                    stage_qrels(db.staging, path, subtopics=subtopics, holds=scan.holds, refuse_nul=db.keeps_scores)
                shas = (scan.sha256, text_sha256(path, scan))
                name = default_set_name(db, path, shas, subtopics=subtopics)
            if name in named:
                problems.append(f"{path}: would be qrels set {name}, as would {named[name]}; ingest such files one at "
                                "a time, each with --name")
                failed += 1
                continue
            named[name] = path
            if name_problem(name):
                raise UsageError(f"{path}: the qrels set's name '{shown(name)}' {name_problem(name)}; ingest it alone "
                                 "with --name")
            if stored or _stored_qrels(db, name, shas, subtopics, replace)[1] or scan.text is None:
                continue  # already stored, or staged above: nothing more to read
            with _staging(db.staging):
                stage_qrels(db.staging, path, subtopics=subtopics, holds=scan.holds, refuse_nul=db.keeps_scores)
        except ConflictError as exc:
            problems.append(f"{path}: {exc}")
            failed += 1
        except IrwError as exc:
            problems.extend(exc.message_lines())
            failed += 1
    if problems:
        raise BatchError([*problems, nothing_stored(failed, len(files) + empty, folders=empty > 0)])
    return [ingest_qrels(db, path, name, description=description, replace=replace, subtopics=subtopics)
            for name, path in named.items()]


def ingest_prefs(db: Database, path: str | os.PathLike[str], name: str | None = None, *,
                 description: str | None = None, replace: bool = False, qrels_format: bool = False,
                 digest: bool = True) -> IngestResult:
    """Preference judgments (trec_eval -R prefs: `qid jg jsg docid rel_level`; qrels_format=True,
    -R qrels_prefs: a qrels file, `qid jg docid rel_level`, one sub-group) stored as a prefs set:
    a qrels set with preference_judgments (schema 14) and the transitive preferences of each
    judgment group of several sub-groups, preference_pairs (schema 19; a group of one sub-group is
    ordered by its levels, and sql/measures/prefs.sql counts from them; the view preferences lists
    every preference). A bad line, a document
    rated twice in one sub-group, 0 and above 0 in one group, or a group whose preferences form a
    cycle is an error naming file:line; nothing is stored."""
    path = Path(path)
    params = {"qrels_format": qrels_format}

    def stage(stage_db: Database, scan: FileScan) -> None:
        refuse = lambda: _refuse_other_prefs_format(stage_db, path, qrels_format)  # noqa: E731
        stage_file(stage_db, path, scan.holds, lambda: ("ingest/prefs_problems.sql", params), refuse)
        _require_data(stage_db, path, "preference")
        refuse()
        _collect_problems(stage_db, path, "ingest/prefs_problems.sql", params)
        stage_db.run_file("ingest/stage_prefs.sql", params)
        _collect_problems(stage_db, path, "ingest/prefs_cycles.sql", {})
        if db.keeps_scores:
            _refuse_nul(stage_db, path, "stage_qrels")

    def store(into: Database, name: str, description: str | None, shas: tuple[str, str], existing) -> int:
        return _store_prefs(into, path, name, description, shas, existing)

    return _ingest_judgments(db, path, name, "prefs", description=description, replace=replace, digest=digest,
                             subtopics=False, prefs=True, stage=stage, store=store)


class PrefsFormatError(InputFileError):
    """A qrels file given as preferences (trec_eval -R prefs), or preferences given as a qrels file
    read as preferences (-R qrels_prefs). looks_like: what the file looks like, for a caller that
    adds its own hint; the message names the option of both commands that reach ingest_prefs
    (irw ingest prefs --qrels-format, irw trec-eval -R qrels_prefs), as neither is known here."""

    def __init__(self, path: Path, looks_like: str, hint: str):
        self.path, self.looks_like = path, looks_like
        super().__init__([Problem(_shown_path(path), 0, f"{looks_like}; {hint}")])


# qrels_format -> the other format's field count, what a file of it looks like, and what reads it
_PREFS_FORMATS = {
    False: (4, "looks like a qrels file (4 fields: qid jg docid rel_level), not preferences (5 fields: qid jg "
               "jsg docid rel_level)",
            "read a qrels file as preferences with --qrels-format (irw ingest prefs) or -R qrels_prefs "
            "(irw trec-eval)"),
    True: (5, "looks like a preference file (5 fields: qid jg jsg docid rel_level), not a qrels file (4 fields: "
              "qid jg docid rel_level)",
           "read preferences without --qrels-format (irw ingest prefs) or with -R prefs (irw trec-eval)"),
}


def _refuse_other_prefs_format(db: Database, path: Path, qrels_format: bool) -> None:
    """Refuses a staged preference file (stage_fields) that is plainly the other preference format:
    its first data line and at least half of all have the other format's field count. Said first,
    and alone, as _refuse_swapped says a run given as qrels: every line's field count error would
    only hide it."""
    other, looks_like, hint = _PREFS_FORMATS[qrels_format]
    first_count, share = db.run_file("ingest/swap_facts_prefs.sql", {"other_count": other}).fetchone()
    if first_count == other and share is not None and share >= 0.5:
        raise PrefsFormatError(path, looks_like, hint)


def _store_prefs(db: Database, path: Path, name: str, description: str | None, shas: tuple[str, str],
                 existing: tuple | None) -> int:
    """Stores the staged preferences (stage_prefs.sql) as set name, in the caller's transaction."""
    if existing:
        delete_qrels_set(db, existing[0])
    set_id = _insert_qrels_set(db, path, name, description, shas)
    db.run_file("ingest/insert_prefs.sql", {"qrels_set_id": set_id})
    db.run_file("ingest/link_judged_rows.sql", {"run_id": None, "qrels_set_id": set_id})
    return set_id


def stage_qrels(db: Database, path: Path, *, subtopics: bool = False, holds: Mapping[str, bool] | None = None,
                refuse_nul: bool = True) -> None:
    """Stages a validated qrels file as the view stage_qrels (query_id, doc_id, grade), and a
    subtopic file also as stage_fields (insert_subtopic_qrels.sql reads its subtopics there).

    A 4-field file goes in through the column reader (sql/ingest/stage_qrels_columns.sql) when it
    takes the file cleanly, as a run's does; anything else is read in line mode, which names each
    problem's line and reads 3-field and subtopic files. Either way the staged rows are the same."""
    if refuse_nul:
        _refuse_binary(path, "qrels")
    text = _text_of(path, holds)

    def read(through_python: bool) -> bool:
        """Whether the column reader took the file (else it is in stage_fields)."""
        with _readable_by_duckdb(path, through_python) as readable:
            compression = readable.compression
            db.run_file("ingest/line_mode.sql")
            problems = lambda: _qrels_problems(db, subtopics)  # noqa: E731
            if readable.compressed:  # before the column reader stages every line (_refuse_by_head)
                _refuse_by_head(db, path, "qrels", problems)
            if not subtopics:
                may_hold = _may_hold(text, compression, readable.streamed)
                if _stage_qrels_columns(db, {"path": readable.path(), "compression": compression,
                                             **{f"may_hold_{key}": may_hold[key] for key in ("tab", "cr", "soh")}}):
                    db.run_file("ingest/stage_qrels_from_columns.sql")
                    return True
            if not readable.compressed:
                _refuse_by_head(db, path, "qrels", problems)
            _stage_lines(db, path, readable, {}, "qrels", problems)
        return False

    if _read_checked(path, read, text):
        if refuse_nul:
            _refuse_nul(db, path, "stage_qrels")
        return
    _require_data(db, path, "qrels")
    _refuse_swapped(db, path, "qrels", _header_line(db))
    _collect_problems(db, path, *_qrels_problems(db, subtopics))
    db.run_file("ingest/stage_qrels_from_fields.sql")
    if refuse_nul:
        _refuse_nul(db, path, "stage_qrels")


def _qrels_problems(db: Database, subtopics: bool) -> tuple[str, dict]:
    """The problems query of the qrels staged in stage_fields, and its parameters."""
    if subtopics:
        return "ingest/subtopic_qrels_problems.sql", {}
    # The layout (3 or 4 fields) is set by the first line that has one; a malformed first line
    # is reported on its own instead of making every good line "differ from the first".
    layout = db.run_file("ingest/qrels_layout.sql").fetchone()[0]
    return "ingest/qrels_problems.sql", {"field_count": layout}


def _stage_qrels_columns(db: Database, params: dict) -> bool:
    """Whether the column reader took the qrels file cleanly (else line mode follows)."""
    return _stage_columns(db, "stage_qrels_columns", params)


def _store_qrels(db: Database, path: Path, name: str, description: str | None, shas: tuple[str, str],
                 subtopics: bool, existing: tuple | None) -> int:
    """Stores the staged qrels (stage_qrels; a subtopic file's stage_fields) as set name, in the
    caller's transaction; returns its id. shas: the file's bytes' and text's sha256."""
    if existing:
        delete_qrels_set(db, existing[0])
    set_id = _insert_qrels_set(db, path, name, description, shas)
    db.run_file("ingest/insert_subtopic_qrels.sql" if subtopics else "ingest/insert_qrels.sql",
                {"qrels_set_id": set_id})
    db.run_file("ingest/link_judged_rows.sql", {"run_id": None, "qrels_set_id": set_id})
    return set_id


def _insert_qrels_set(db: Database, path: Path, name: str, description: str | None, shas: tuple[str, str]) -> int:
    """The row of a new qrels or prefs set, counted from its staged judgments; its id."""
    sha, text_sha = shas
    return db.run_file("ingest/insert_qrels_set.sql", {
        "name": name, "description": description, "source_path": str(path.resolve()), "sha256": sha,
        "text_sha256": text_sha or None}).fetchone()[0]


def stored_qrels_set(db: Database, name: str) -> tuple | None:
    """(qrels_set_id, content sha256, judgment_count, query_count, holds subtopics, holds preferences,
    description, file sha256) of the stored set of that name, or None (sql/catalog/stored_qrels_set.sql:
    the content is the text's sha256, schema 22)."""
    return db.run_file("catalog/stored_qrels_set.sql", {"name": name}).fetchone()


def ingest_run(db: Database, path: str | os.PathLike[str], name: str | None = None, *,
               system: str | None = None, description: str | None = None,
               parameters: Mapping[str, str] | None = None, replace: bool = False,
               strict: bool = True, judged_rows_only: bool = False, run_date: RunDate | None = None,
               digest: bool | None = None, read_ir_metadata: bool = True) -> IngestResult:
    """Ingests one run file, named name or else by its tag. strict=False reads as trec_eval does
    (extra columns and any rank accepted, several tags allowed), for the trec_eval drop-in.

    judged_rows_only=True stores only the rows the stored qrels judge (with their trec_eval ranks
    and every query's document count): enough for every measure but relstring and --compat 10,
    for a warehouse that exists to evaluate files once (warehouse.evaluate_files). The file is
    hashed (runs.sha256) unless digest=False, or digest is None and judged_rows_only: a database
    thrown away after one evaluation (warehouse/evaluation/oneshot.py) has nothing that will ask whether it
    holds these bytes. read_ir_metadata=False does not look for the file's ir_metadata block
    (runs.ir_metadata stays NULL), for such a database too. run_date defaults to the file's
    modification time.
    Batches, the naming rule and dates from ir_metadata are warehouse.ingestion.batch.ingest_runs."""
    path = Path(path)
    scan = read_input(path, digest=not judged_rows_only if digest is None else digest)
    sha = scan.sha256
    # a run named by the caller is looked up before its file is read (unchanged bytes cost a hash);
    # one named by its tag, once the file is staged
    existing = stored_run(db, name) if name else None
    if existing and sha and sha in (existing[1], existing[5]) and existing[4]:
        return unchanged("run", name, path, existing[1], existing)
    with _staging(db.staging):
        ir_metadata, tags = stage_run(db.staging, path, strict=strict, holds=scan.holds,
                                      read_ir_metadata=read_ir_metadata, refuse_nul=db.keeps_scores)
        tag = staged_tag(path, tags, strict)
        text_sha = text_sha256(path, scan)  # staged: a file its head refused was not read whole
        if not name:
            name = (tag if len(tags) == 1 else None) or display_name(path)
            existing = stored_run(db, name)
        same = bool(existing and sha and (text_sha == existing[1] or sha == existing[5]))
        if same and existing[4]:
            return unchanged("run", name, path, existing[1], existing)
        if same:
            return store_missing_rows(db, path, name, existing)
        if existing and not replace:
            raise ConflictError(f"{path}: run {name} already exists with different content; pass --replace to "
                                "replace it and every score computed from it, or choose --name")
        return insert_staged_run(db, path, name, tag=tag, sha=sha, text_sha=text_sha, ir_metadata=ir_metadata,
                                 replacing=existing,
                                 system=system, description=description, parameters=parameters,
                                 run_date=run_date or file_date(path), judged_rows_only=judged_rows_only)


def store_missing_rows(db: Database, path: Path, name: str, existing: tuple) -> IngestResult:
    """Stores the staged rows of a file into the stored run `existing` (stored_run's row) that holds
    its bytes' scores but not its rows (evaluated on Spark, schema 11), keeping its scores: the
    same bytes give the same rows, so every stored score stays true."""
    run_id = existing[0]
    stage = db.staging
    if stage is db:
        with db.transaction():
            db.run_file("ingest/insert_run_rows.sql", {"run_id": run_id})
            db.run_file("ingest/link_judged_rows.sql", {"run_id": run_id, "qrels_set_id": None})
            db.run_file("ingest/mark_rows_stored.sql", {"run_id": run_id})
    else:  # a server warehouse: ranked locally under the stored run's id, then sent
        with stage.transaction():
            stage.run_file("ingest/insert_run_rows.sql", {"run_id": run_id})
        try:
            with db.transaction():
                transfer.send_run_rows(stage, db, run_id)
                db.run_file("ingest/link_judged_rows.sql", {"run_id": run_id, "qrels_set_id": None})
                db.run_file("ingest/mark_rows_stored.sql", {"run_id": run_id})
        finally:
            with stage.transaction():
                stage.run_file("ingest/delete_staged_run_rows.sql", {"run_id": run_id})
    return IngestResult("run", name, str(path), "rows stored", existing[2], existing[3],
                        [f"run {name} held these bytes' scores (evaluated on Spark) without its rows: its rows "
                         "are stored now, its scores kept"])


def stored_run(db: Database, name: str) -> tuple | None:
    """(run_id, content sha256, row_count, query_count, rows_stored, file sha256) of the stored run of
    that name, or None (sql/catalog/stored_run.sql: the content is the text's sha256, schema 21)."""
    return db.run_file("catalog/stored_run.sql", {"name": name}).fetchone()


def staged_tag(path: Path, tags: list[tuple[str, int | None, int | None]], strict: bool) -> str:
    """The run tag of a staged file (stage_run's tags); strict refuses a file with two tags."""
    if strict and len(tags) > 1:
        # One file, one run: two tags almost always mean run files were concatenated, and the
        # scores of two systems would be silently mixed under one name.
        raise InputFileError([
            Problem(str(path), first_line, f"a second run tag {tag!r} (the file began with tag {tags[0][0]!r}); "
                    "a run file holds one run: split it into one file per tag")
            for tag, first_line, _ in tags[1:]
        ])
    # trec_eval's runid is the tag of the last line; with one tag that is the only tag.
    return max(tags, key=lambda t: t[2])[0] if len(tags) > 1 else tags[0][0]


def _kept_settings(db: Database, path: Path, name: str, replacing: tuple, system: str | None,
                   rule_system: str | None, description: str | None, parameters: Mapping[str, str] | None,
                   run_date: RunDate) -> tuple[str, str | None, dict, list[str]]:
    """The system, description and parameters of the run replacing the stored run `replacing`
    (stored_run's row): those given, else the stored ones (what the user said of the run stays with
    it); and the message saying what was kept and what changed (none when nothing is to be said).
    The date is the new file's (run_date): a --date date of the old bytes is said to go."""
    old_system, old_description, old_parameters, old_date, old_source = db.run_file(
        "catalog/run_settings.sql", {"run_id": replacing[0]}).fetchone()
    old_parameters = dict(old_parameters or {})
    kept: list[tuple[str, str]] = []  # (what was kept, the option that gives another)
    changed: list[str] = []
    if system is None:
        system = old_system
        if old_system != (rule_system or name):
            kept.append((f"its system {old_system}", "--system"))
    elif system != old_system:
        changed.append(f"its system is now {system}, was {old_system}")
    if description is None:
        description = old_description
        if old_description is not None:
            kept.append((f"its description {said_value(old_description)}", "--description"))
    elif description != old_description:
        changed.append(f"its description is now {said_value(description)}, was {said_value(old_description)}")
    if not parameters:
        parameters = old_parameters
        if old_parameters:
            kept.append((f"its parameters {said_value(dict(old_parameters))}", "--param"))
    elif dict(parameters) != old_parameters:
        changed.append(f"its parameters are now {said_value(dict(parameters))}, was {said_value(dict(old_parameters or {}))}")
    said = []
    if kept:
        things, options = [k for k, _ in kept], [o for _, o in kept]
        said.append(f"it keeps {_and(things)} ({_and(options)} give{'s' * (len(options) == 1)} "
                    f"{'another' if len(options) == 1 else 'others'})")
    said += changed
    if DATE_GIVEN in (old_source, run_date.source) and (old_date, old_source) != (run_date.value, run_date.source):
        said.append(f"its date is now {said_date(run_date.value)} (from {run_date.source}), was {said_date(old_date)} "
                    f"(from {old_source})"
                    + (" (--date gives another)" if run_date.source != DATE_GIVEN else ""))
    messages = [f"{path}: run {name} replaced: {'; '.join(said)}"] if said else []
    return system, description, dict(parameters), messages


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def insert_staged_run(db: Database, path: Path, name: str, *, tag: str, sha: str, ir_metadata: str | None,
                      replacing: tuple | None, system: str | None, description: str | None,
                      parameters: Mapping[str, str] | None, run_date: RunDate,
                      judged_rows_only: bool = False, rule_system: str | None = None,
                      text_sha: str | None = None) -> IngestResult:
    """Stores the staged run (stage_run) as run name in one transaction, replacing the stored run
    `replacing` (stored_run's row) if given. A server warehouse (db.staging is a local DuckDB
    database) gets the run stored and ranked locally, then sent in one transaction.

    system, description and parameters are those given (None, or no parameters: not given). A new
    run's system defaults to rule_system (the naming rule's, warehouse.ingestion.batch), else its
    name; a replaced run keeps its stored system, description and parameters where none is given
    (_kept_settings), and the result's message says what was kept and what changed. sha is the
    file's bytes' sha256, text_sha its text's (runs.text_sha256: the content a run is known by)."""
    messages: list[str] = []
    if replacing:
        system, description, parameters, messages = _kept_settings(
            db, path, name, replacing, system, rule_system, description, parameters, run_date)
    else:
        system = system or rule_system
    if db.staging is not db:
        stage = db.staging
        insert_staged_run(stage, path, name, tag=tag, sha=sha, text_sha=text_sha, ir_metadata=ir_metadata,
                          replacing=None,
                          system=system, description=description, parameters=parameters, run_date=run_date,
                          judged_rows_only=judged_rows_only)
        try:
            with db.transaction():
                transfer.ship_run(stage, db, name, replacing=replacing[0] if replacing else None,
                                  link_in_source=True)
        finally:
            with stage.transaction():
                delete_run(stage, stored_run(stage, name)[0])
        rows, queries = stored_run(db, name)[2:4]
        return IngestResult("run", name, str(path), "replaced" if replacing else "ingested", rows, queries, messages)
    with db.transaction():
        if replacing:
            delete_run(db, replacing[0])
        run_id = db.run_file("ingest/insert_run.sql", {
            "name": name, "system": system or name, "tag": tag, "description": description,
            "parameters": dict(parameters or {}), "ir_metadata": ir_metadata, "source_path": str(path.resolve()),
            "sha256": sha, "text_sha256": text_sha or None, "run_date": run_date.value,
            "date_source": run_date.source}).fetchone()[0]
        db.run_file("ingest/insert_run_queries.sql", {"run_id": run_id})
        _insert_run_rows(db, run_id, judged_rows_only)
        db.run_file("ingest/link_judged_rows.sql", {"run_id": run_id, "qrels_set_id": None})
        rows, queries = db.run_file("ingest/count_run.sql", {"run_id": run_id}).fetchone()
    return IngestResult("run", name, str(path), "replaced" if replacing else "ingested", rows, queries, messages)


# Ranking judged rows by counting costs (judged retrieved x documents) per query, sorting about
# n log n over all rows. Measured on 1M rows (1,000 per query): 10 judged per query 0.15 s
# counting vs 0.19 s sorting, 50 judged 0.78 s vs 0.19 s. The choice uses an upper bound
# (judgments, retrieved or not), so counting is taken only where it cannot be much slower.
_COUNTING_COMPARISONS_PER_ROW = 8


def _insert_run_rows(db: Database, run_id: int, judged_rows_only: bool) -> None:
    if judged_rows_only:
        comparisons, documents = db.run_file("ingest/counting_comparisons.sql", {"run_id": run_id}).fetchone()
        if comparisons <= _COUNTING_COMPARISONS_PER_ROW * documents:
            db.run_file("ingest/insert_run_rows_by_counting.sql", {"run_id": run_id})
            return
        db.run_file("ingest/insert_judged_run_rows_by_sorting.sql", {"run_id": run_id})
        return
    db.run_file("ingest/insert_run_rows.sql", {"run_id": run_id})
