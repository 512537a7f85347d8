"""Folders irw makes for the length of one command, and what a killed command leaves of them.

A command killed with SIGKILL (or by the machine going down) runs no `finally`: the temporary
folder of `irw copy` ($TMPDIR/irw-transfer-*), an export's work folder beside DIR
(.DIR.irw-export-*), DuckDB's spill files of a big ingest stay behind. Each such folder is made
here, named `<prefix><pid>-<random>`, and held by its process with an advisory lock (flock on the
folder itself, released by the kernel when the process ends, however it ends). The next irw
command that uses the same place removes a leftover only when both say its maker is gone: the lock
can be taken, and no live process has the pid in its name. A live command's folder, another
user's, or anything not named by this rule is never touched.
"""
from __future__ import annotations

import errno
import fcntl
import os
import re
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

# seconds a folder named by an irw before this module (no pid) must have been left untouched
LEGACY_AGE = 3600
# the folders this process made and holds: path -> the descriptor holding the lock
_HELD: dict[str, int] = {}
# the folders this process made and has not yet removed or put in place (sweep)
_MADE: set[str] = set()
# (folder, prefix) this process has cleaned already (temporary_folder)
_CLEANED: set[tuple[str, str]] = set()


def make_held_folder(parent: str | os.PathLike[str], prefix: str, mode: int = 0o777) -> Path:
    """A new folder `parent/<prefix><pid>-<random>`, locked for as long as this process lives (or
    until release()). OSError if it cannot be made."""
    parent = Path(parent)
    for _ in range(100):
        folder = parent / f"{prefix}{os.getpid()}-{os.urandom(4).hex()}"
        try:
            folder.mkdir(mode=mode)
        except FileExistsError:
            continue
        _hold(folder)
        _MADE.add(str(folder))
        return folder
    raise FileExistsError(errno.EEXIST, "cannot find a free name", str(parent / prefix))


def _hold(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise
    _HELD[str(folder)] = fd


def release(folder: str | os.PathLike[str]) -> None:
    """Lets go of a folder's lock (after the folder is removed, or renamed into place)."""
    _MADE.discard(str(folder))
    fd = _HELD.pop(str(folder), None)
    if fd is not None:
        os.close(fd)


def remove_held_folder(folder: str | os.PathLike[str]) -> None:
    """Removes a folder this process made with make_held_folder, and lets go of its lock."""
    try:
        shutil.rmtree(folder, ignore_errors=True)
    finally:
        release(folder)
        if os.path.lexists(folder):  # something still writing into it: sweep() tries again at exit
            _MADE.add(str(folder))


def sweep() -> None:
    """Removes every folder this process made and has not removed or put in place: for a process
    ending with os._exit after Ctrl-C, where a query that was interrupted can still be finishing a
    file in one of them as the `finally` that removes it runs (retried for up to half a second)."""
    import time as _time

    for _ in range(10):
        left = [folder for folder in list(_MADE) if os.path.lexists(folder)]
        for folder in left:
            shutil.rmtree(folder, ignore_errors=True)
        if not any(os.path.lexists(folder) for folder in left):
            break
        _time.sleep(0.05)
    _MADE.clear()


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's live process
    except OSError:
        return True
    return True


def abandoned(folder: Path, prefix: str) -> bool:
    """Whether folder (named `<prefix><pid>-<hex>`) was left by a process that is gone: its pid is
    not a live process and its lock is free. Anything else, or any doubt, is False."""
    # or `<prefix>` and 8 characters of [0-9a-z_] with no pid: made by an irw before this module
    # (secrets.token_hex, tempfile.mkdtemp), which held no lock
    match = re.fullmatch(re.escape(prefix) + r"(?:(\d+)-[0-9a-f]{8}|[0-9a-z_]{8})", folder.name)
    if not match or folder.is_symlink() or not folder.is_dir():
        return False
    if str(folder) in _HELD or (match.group(1) and _pid_alive(int(match.group(1)))):
        return False
    if not match.group(1):
        # no pid to ask and no lock to find: only one untouched for a while (a live command's
        # folder changes as it writes into it)
        try:
            if time.time() - folder.stat().st_mtime < LEGACY_AGE:
                return False
        except OSError:
            return False
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False  # held: its maker lives
    finally:
        os.close(fd)  # also lets go of the lock just taken
    return True


def clean(parent: str | os.PathLike[str], prefix: str,
          remove: Callable[[Path], None] | None = None) -> list[Path]:
    """Removes the folders under parent named `<prefix><pid>-<hex>` that a process now gone left
    (abandoned), with remove(folder) (default: the whole folder, it holding only irw's files); the
    folders removed. Never fails: a leftover that cannot be removed stays."""
    removed = []
    try:
        entries = list(Path(parent).iterdir())
    except OSError:
        return removed
    for folder in entries:
        if not folder.name.startswith(prefix) or not abandoned(folder, prefix):
            continue
        try:
            if remove is None:
                shutil.rmtree(folder)
            else:
                remove(folder)
        except OSError:
            continue
        removed.append(folder)
    return removed


def clean_once(parent: str | os.PathLike[str], prefix: str) -> None:
    """clean(parent, prefix), the first time this process asks."""
    if (str(parent), prefix) not in _CLEANED:
        _CLEANED.add((str(parent), prefix))
        clean(parent, prefix)


@contextmanager
def temporary_folder(prefix: str) -> Iterator[Path]:
    """A private folder in the system's temporary folder ($TMPDIR) for the length of a with block,
    named and held as above; what commands killed before left under the same prefix is removed
    first (clean)."""
    parent = tempfile.gettempdir()
    clean_once(parent, prefix)  # once a process: a copy of many runs makes a folder each
    folder = make_held_folder(parent, prefix, mode=0o700)
    try:
        yield folder
    finally:
        remove_held_folder(folder)
