"""Writing files so that a crash, a full disk or `kill -9` never leaves a damaged target.

`write_bytes` / `write_text` are the one way RackDesigner writes an output file (layouts, images,
bills of materials, results): the data go to a temporary file next to the real target, are
flushed and fsynced, get the target's mode (and owner, where permitted), and then replace the
target in one `os.replace`. So:

* a symlink is written *through*: its target is replaced, in the target's folder, and the link
  stays a link (a layout kept in a repository and linked from elsewhere keeps being updated);
* a read-only file (no write bit at all, e.g. 0444) is refused with `ReadOnlyFileError` unless
  the caller passes `allow_read_only=True` after asking the user; a folder, FIFO or device is
  refused with `NotRegularFileError`;
* hard links are not kept: the target gets a new inode (a write in place could be cut short,
  which is worse); the docs say so.

Temporary files are named `.NAME.rackdesigner-XXXXXXXX.tmp` and hold an exclusive `flock` while
they exist. The kernel drops that lock when the writer dies, even by `kill -9`, so the next write
of the same file can tell a crashed save's leftover (removed) from one still being written by a
live process (left alone). Leftovers of older versions (`.NAME.XXXXXXXX.tmp` holding a layout,
no lock) are removed once they are a minute old.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import re
import stat
import tempfile
import time
from pathlib import Path

from rackdesigner.inputs import NotRegularFileError, file_kind

log = logging.getLogger(__name__)

TEMP_MARK = "rackdesigner-"
_LEGACY = re.compile(r"[a-z0-9_]{8}")
_LEGACY_MIN_AGE_S = 60.0
_LEGACY_HEAD = b"# RackDesigner layout"

__all__ = ["NotRegularFileError", "ReadOnlyFileError", "clean_stale_temps", "file_kind",
           "real_target", "write_bytes", "write_text"]


class ReadOnlyFileError(PermissionError):
    """The target exists and has no write permission bit: overwriting it needs a confirmation."""

    def __init__(self, path: str | os.PathLike) -> None:
        super().__init__(errno.EACCES, "the file is read-only (no write permission); it was "
                         "left unchanged", os.fspath(path))


def real_target(path: str | os.PathLike) -> Path:
    """The file a write to `path` must replace: symlinks followed (also a dangling one's target)."""
    return Path(os.path.realpath(os.fspath(path)))


def write_text(path: str | os.PathLike, text: str, *, encoding: str = "utf-8",
               allow_read_only: bool = False) -> Path:
    """Write `text` atomically (see the module's docstring); returns the file written."""
    return write_bytes(path, text.encode(encoding), allow_read_only=allow_read_only)


def write_bytes(path: str | os.PathLike, data: bytes, *, allow_read_only: bool = False) -> Path:
    """Write `data` atomically to `path` (through symlinks); returns the file written.

    Raises `ReadOnlyFileError` for an existing file without write permission bits (unless
    `allow_read_only`), `NotRegularFileError` for a folder, FIFO or device, and `OSError` for
    anything the system refuses (full disk, read-only folder...), leaving the target unchanged.
    """
    target = real_target(path)
    try:
        old = os.stat(target)
    except FileNotFoundError:
        old = None
    if old is not None:
        if not stat.S_ISREG(old.st_mode):
            raise NotRegularFileError(path, file_kind(old.st_mode))
        if not old.st_mode & 0o222 and not allow_read_only:
            raise ReadOnlyFileError(path)
    clean_stale_temps(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.{TEMP_MARK}", suffix=".tmp",
                               dir=target.parent)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # "a live writer holds this file"
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
        os.fchmod(fd, (old.st_mode & 0o7777) if old is not None else 0o666 & ~_umask())
        if old is not None:
            _keep_owner(fd, old)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    finally:
        os.close(fd)
    _sync_folder(target.parent)
    return target


def clean_stale_temps(target: str | os.PathLike) -> list[Path]:
    """Remove leftovers of crashed writes of `target` that no live process holds; returns them."""
    target = Path(target)
    prefix = f".{target.name}."
    removed: list[Path] = []
    try:
        entries = [e for e in os.scandir(target.parent)
                   if e.name.startswith(prefix) and e.name.endswith(".tmp")]
    except OSError:
        return removed
    for entry in entries:
        middle = entry.name[len(prefix):-len(".tmp")]
        legacy = _LEGACY.fullmatch(middle) is not None
        if not (middle.startswith(TEMP_MARK) or legacy):
            continue
        if _remove_if_stale(Path(entry.path), legacy):
            removed.append(Path(entry.path))
    if removed:
        log.info("removed %d leftover temporary file(s) of an interrupted save of %s",
                 len(removed), target)
    return removed


def _remove_if_stale(path: Path, legacy: bool) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
            return False
        if legacy and (time.time() - info.st_mtime < _LEGACY_MIN_AGE_S
                       or os.read(fd, len(_LEGACY_HEAD)) != _LEGACY_HEAD):
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # a live process is writing it
        try:
            if not os.path.samestat(os.stat(path, follow_symlinks=False), info):
                return False  # replaced meanwhile
            os.unlink(path)
        except OSError:
            return False
        return True
    finally:
        os.close(fd)


def _keep_owner(fd: int, old: os.stat_result) -> None:
    """Give the new file the old one's owner and group where the system permits it."""
    if (old.st_uid, old.st_gid) == (os.geteuid(), os.getegid()):
        return
    try:
        os.fchown(fd, old.st_uid, old.st_gid)
    except PermissionError:
        try:
            os.fchown(fd, -1, old.st_gid)  # a member of the group may keep the group
        except PermissionError:
            log.info("could not keep the owner %d:%d of the file", old.st_uid, old.st_gid)


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _umask() -> int:
    """The process's umask, read without changing it where /proc allows (threads may write)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
