"""Files irw writes for a user (reports, run pages, `irw sql -o`, export folders): whole or not at
all, with a message that says why when it cannot, and never over a database.

check_output is the one rule every command that writes a file applies before writing anything: the
path must not be a warehouse this process has open (its file, WAL or spill folder), nor an existing
database file of any kind (DuckDB's or SQLite's file header), which a CSV or an HTML page would
destroy. write_atomically applies it too, so no write can skip it.
"""
from __future__ import annotations

import errno
import os
import re
import stat
import sys
import threading
from pathlib import Path
from typing import Iterable, Sequence

from warehouse.errors import OutputError, UsageError

# the warehouse files open in this process (Database registers its file while open)
_OPEN_WAREHOUSES: dict[str, int] = {}
# file headers of databases: (offset, bytes, what it is)
DUCKDB_DATABASE = "a DuckDB database"
_DATABASE_HEADERS = ((8, b"DUCK", DUCKDB_DATABASE), (0, b"SQLite format 3\x00", "a SQLite database"))
HEAD_BYTES = 16  # enough of a file to tell every header of _DATABASE_HEADERS


def protect(path: str | os.PathLike[str]) -> None:
    """Marks a warehouse file as open: check_output refuses it, its WAL and its spill folder."""
    key = str(Path(path).absolute())
    _OPEN_WAREHOUSES[key] = _OPEN_WAREHOUSES.get(key, 0) + 1


def unprotect(path: str | os.PathLike[str]) -> None:
    key = str(Path(path).absolute())
    if _OPEN_WAREHOUSES.get(key, 0) > 1:
        _OPEN_WAREHOUSES[key] -= 1
    else:
        _OPEN_WAREHOUSES.pop(key, None)


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


# DuckDB's lock on its file is a POSIX record lock: it belongs to the process and is let go when
# the process closes any descriptor of that file. So irw never closes a descriptor of a file DuckDB
# may hold: a file's head is read through DuckDB's own descriptor when there is one, and a head read
# and a DuckDB connect (warehouse/engines/duckdb.py) never run at once (irw serve opens the warehouse
# for every request, in threads).
FILE_OPENING = threading.Lock()


def read_head(path: str | os.PathLike[str], info: os.stat_result, size: int) -> bytes:
    """The first bytes of the regular file at path (info: its stat), read without closing a
    descriptor of it that this process holds (a Warehouse open on it, irw serve's other requests,
    or a closed connection's database DuckDB has not freed yet): through that descriptor if there
    is one (Linux's /proc/self/fd), else through one of its own, opened and closed here."""
    with FILE_OPENING:
        held = _held_descriptor(info)
        if held is not None:
            return os.pread(held, size, 0)
        with open(path, "rb") as handle:
            return handle.read(size)


def _held_descriptor(info: os.stat_result) -> int | None:
    """A descriptor this process holds on the file info describes, or None (none, or no
    /proc/self/fd to tell)."""
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return None
    for name in names:
        try:
            held = os.stat(f"/proc/self/fd/{name}")
        except OSError:
            continue  # the listing's own descriptor, or one closed since
        if (held.st_dev, held.st_ino) == (info.st_dev, info.st_ino) and stat.S_ISREG(held.st_mode):
            return int(name)
    return None


def database_kind(path: str | os.PathLike[str]) -> str | None:
    """What database an existing regular file is, from its header ("a DuckDB database", "a SQLite
    database"), or None (not a file, unreadable, or no database header)."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            return None  # a pipe or device is never opened here
        head = read_head(path, info, HEAD_BYTES)
    except OSError:
        return None
    return kind_of_head(head)


def kind_of_head(head: bytes) -> str | None:
    """What database a file starting with these bytes (HEAD_BYTES of them) is, as database_kind says."""
    for offset, magic, kind in _DATABASE_HEADERS:
        if head[offset:offset + len(magic)] == magic:
            return kind
    return None


def part_of_warehouse(path: str | os.PathLike[str], warehouse: str) -> str | None:
    """How path is part of the DuckDB warehouse file `warehouse`, or None: the file itself, its WAL
    (which holds transactions not yet written into the file: a WAL written over loses them, and a
    folder there fails every later open), or its spill folder or what is in it."""
    path, base = Path(path), os.fspath(warehouse)
    if _same(path, Path(base)):
        return "it is the warehouse"
    if path.name.endswith(".wal") and _same(path, Path(base + ".wal")):
        return "it is the WAL file of the warehouse"
    if path.name.endswith(".tmp") and _same(path, Path(base + ".tmp")):
        return "it is the spill folder of the warehouse"
    if path.parent.name.endswith(".tmp") and _same(path.parent, Path(base + ".tmp")):
        return "it is in the spill folder of the warehouse"
    return None


def check_output(path: str | os.PathLike[str], what: str = "-o path", warehouse: str | None = None) -> None:
    """Refuses, before anything is written, an output path that is part of a warehouse this
    command has open or will open (`warehouse`: a DuckDB file; its WAL, its spill folder:
    part_of_warehouse), an existing database file or a folder. what: how the user names another
    path in the message."""
    path = Path(path)
    for known in [*_OPEN_WAREHOUSES, *([warehouse] if warehouse else [])]:
        where = part_of_warehouse(path, known)
        if where:
            raise OutputError(f"cannot write {path}: {where} this command has open ({known}); irw never "
                              f"writes over a warehouse: choose another {what}")
    kind = database_kind(path)
    if kind:
        raise OutputError(f"cannot write {path}: it is {kind} file, which irw never writes over; choose another "
                          f"{what}")
    if path.is_dir():
        raise OutputError(f"cannot write {path}: it is a folder, not a file; choose another {what}")


# What a file name's suffix says it holds (compared in lower case), and that format's name in a message
NAMED_BY_SUFFIX = {".csv": "csv", ".tsv": "tsv", ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl",
                   ".parquet": "parquet", ".arrow": "arrow", ".html": "html", ".htm": "html", ".md": "markdown",
                   ".markdown": "markdown", ".tex": "latex", ".txt": "table"}
FORMAT_WORDS = {"csv": "a CSV", "tsv": "a TSV", "json": "a JSON", "jsonl": "a JSON lines", "parquet": "a Parquet",
                "arrow": "an Arrow", "html": "an HTML", "markdown": "a Markdown", "latex": "a LaTeX",
                "table": "a text table's"}


def format_for_output(path: str | os.PathLike[str] | None, given: str | None, formats: "Sequence[str]",
                      default: str, command: str) -> str:
    """The format a command writes: the one given (--format), else the one the output file's name
    says (-o board.csv: csv) when the command writes it, else its default. A name that says a format
    the command does not write (`irw sql -o page.html`) is a UsageError, as writing the default
    there would give a file that is not what its name says (stdout, `-`, names none)."""
    if given is not None:
        return given
    if path is None or str(path) == "-":
        return default
    named = NAMED_BY_SUFFIX.get(Path(path).suffix.lower())
    if named is None or named in formats:
        return named or default
    raise UsageError(f"{path} names {FORMAT_WORDS[named]} file, which {command} does not write (its formats: "
                     f"{', '.join(formats)}): give --format, or name the file for the format you want")


def write_atomically(path: Path, data: bytes | Iterable[bytes]) -> None:
    """data (bytes, or pieces of them as they are made: irw sql's rows) into path whole or not at
    all (temporary file in the same folder, fsync, rename; an error while the pieces are made
    leaves the file as it was);
    never over a warehouse or database file (check_output). A symbolic link stays: the file it
    names is written. What is no regular file (a FIFO, a terminal, /dev/null) or names an open
    descriptor (/dev/stdout, /dev/fd/N, /proc/self/fd/N) is written into, as a shell's `>` does,
    not replaced: a rename there would put a plain file in place of the device, or of /dev/stdout."""
    path = Path(path)
    check_output(path)
    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        regular = None  # not there yet (or a dangling link): made as a file
    descriptor = _descriptor_of(path) if regular else None
    if regular is False or descriptor is not None:  # a FIFO, a device, a socket; or a shell's open file
        _write_in_place(path, data, descriptor, regular)
        return
    if path.is_symlink():
        path = Path(os.path.realpath(path))
        check_output(path)
    _make_folder(path.parent)
    temporary = path.with_name(f".{path.name[:100]}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        # os.open, not tempfile: the page gets the usual permissions (0666 less the umask), not 0600
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except BaseException as exc:  # an OSError, or Ctrl-C (warehouse/interrupt.py) midway: no temporary left
        try:
            temporary.unlink()
        except OSError:
            pass
        if not isinstance(exc, OSError):
            raise
        hint = "free some space or choose another -o path" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else \
            "choose another -o path"
        raise OutputError(f"cannot write {path}: {_os_reason(exc)}; the file is as it was ({hint})") from None


_DESCRIPTOR_FOLDERS = ("/proc/", "/dev/fd/")
_OWN_DESCRIPTOR = re.compile(r"/(?:proc/(?:self|thread-self)|dev)/fd/(\d+)")


def _descriptor_of(path: Path) -> str | None:
    """The path that names an open descriptor on the way from path along its links (/dev/stdout is
    /proc/self/fd/1), or None."""
    hop = str(path.absolute())
    for _ in range(40):  # as the kernel follows at most 40 links
        if hop.startswith(_DESCRIPTOR_FOLDERS):
            return hop
        if not os.path.islink(hop):
            return None
        hop = os.path.join(os.path.dirname(hop), os.readlink(hop))
    return None


def _write_in_place(path: Path, data: bytes | Iterable[bytes], descriptor: str | None, regular: bool) -> None:
    """data written into what path names (descriptor: the path of an open descriptor on its way,
    _descriptor_of; regular: whether it is a regular file): through this process's own descriptor
    when path names it (`-o /dev/stdout > out.csv` then `>>` further output: the shell's offset
    moves on, as it does for a shell's own `>&1`); else opened as a shell's `>` opens it."""
    own = _OWN_DESCRIPTOR.fullmatch(descriptor.replace(f"/proc/{os.getpid()}/", "/proc/self/")) \
        if descriptor else None
    try:
        if own:
            fd = int(own.group(1))
            if fd in (1, 2):
                (sys.stdout if fd == 1 else sys.stderr).flush()
            _write_all(fd, data)
            return
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC if regular else os.O_WRONLY)
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {_os_reason(exc)}; choose another -o path") from None


def _write_all(fd: int, data: bytes | Iterable[bytes]) -> None:
    for piece in [data] if isinstance(data, (bytes, bytearray)) else data:
        view = memoryview(piece)
        while view:
            view = view[os.write(fd, view):]


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next((p for p in [folder, *folder.parents] if p.exists() and not p.is_dir()), folder)
        raise OutputError(f"cannot write into {folder}: {blocker} is a file, not a folder; "
                          "choose another -o path") from None
    except OSError as exc:
        raise OutputError(f"cannot make the folder {folder}: {_os_reason(exc)}; choose another -o path") from None


def _os_reason(exc: OSError) -> str:
    reasons = {errno.EACCES: "permission denied", errno.EPERM: "permission denied",
               errno.ENOSPC: "no space left on the device", errno.EDQUOT: "disk quota exceeded",
               errno.EROFS: "the file system is read-only", errno.ENOTDIR: "a part of the path is not a folder",
               errno.EISDIR: "it is a folder", errno.ENAMETOOLONG: "the name is too long",
               errno.ENOENT: "its folder does not exist or cannot hold files"}
    return reasons.get(exc.errno, exc.strerror or type(exc).__name__)


# what writing stdout fails with when the output cannot be written: a full disk (`> /dev/full`),
# a quota, a file too big, a device gone. Errors of irw's own files are IrwErrors by then
OUTPUT_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO}


def output_failed(exc: OSError) -> int:
    """Says that the output could not be written, as an `Error:` line, instead of a traceback;
    returns the exit status. stdout then points at /dev/null, so the interpreter's last flush of
    what is still buffered cannot fail again."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    try:
        sys.stderr.write(f"Error: cannot write the output: {exc.strerror or exc}\n")
        sys.stderr.flush()
    except OSError:
        pass
    return 1
