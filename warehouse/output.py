"""Files irw writes for a user (reports, `irw sql -o`): whole or not at all, with a message that
says why when it cannot."""
from __future__ import annotations

import errno
import os
import secrets
from pathlib import Path

from .errors import OutputError


def write_atomically(path: Path, data: bytes) -> None:
    """data into path whole or not at all (temporary file in the same folder, fsync, rename)."""
    path = Path(path)
    _make_folder(path.parent)
    if path.is_dir():
        raise OutputError(f"cannot write {path}: it is a folder; name a file with -o")
    temporary = path.with_name(f".{path.name[:100]}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        # os.open, not tempfile: the page gets the usual permissions (0666 less the umask), not 0600
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except OSError as exc:
        try:
            temporary.unlink()
        except OSError:
            pass
        hint = "free some space or choose another -o path" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else \
            "choose another -o path"
        raise OutputError(f"cannot write {path}: {_os_reason(exc)}; the file is as it was ({hint})") from None


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
