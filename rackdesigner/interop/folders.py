"""Folder exports (NetBox, ASTRA-sim) written whole or not at all.

A folder export is a set of files that only make sense together: NetBox devices beside another
export's cables import as a mixture. So the exporter writes into a temporary sibling folder
(`.NAME.rackdesigner-XXXXXXXX.tmp`), a manifest of every file's SHA-256 goes in last
(`MANIFEST`), and only then is the folder swapped for the old one (an exchange of the two names
where the kernel offers it, else two renames), and the old one is removed. A full disk, a kill
or an error while writing leaves the old folder exactly as it was, plus at worst a temporary
folder the next export of that folder removes.

Two exports of one folder at once take turns on a lock file beside it
(`.NAME.rackdesigner.lock`, `fcntl.flock`, removed when the export ends): the second waits for
the first (up to `LOCK_WAIT_S`, then it is refused naming the lock), and leftovers are removed
only under the lock, so an export never deletes the temporary folder of one still running. A
symlinked folder is written through (its target is replaced and the link stays), as
`io/atomic.py` does for files.

An existing folder is replaced only when it is empty, carries a manifest (an earlier export),
or holds nothing but names the new export writes: an export pointed at a folder of other files
(a home folder) is refused, never emptied. Importers check the manifest when it is there
(`verify_manifest`): a folder missing a file of its export is refused as incomplete; files
changed since the export (a hand edit, or another export's) are named in a note.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import fcntl
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from rackdesigner.interop.base import ExportError, ExportReport
from rackdesigner.io.atomic import _sync_folder as _fsync_dir

MANIFEST = ".rackdesigner-export.json"
TEMP_MARK = "rackdesigner-"
_RENAME_EXCHANGE = 2
#: How long an export waits for another export of the same folder before it gives up.
LOCK_WAIT_S = 120.0
_LOCK_POLL_S = 0.05


def write_folder(path: Path, fmt: str, write: Callable[[Path], ExportReport]) -> ExportReport:
    """Run `write(tmp)` into a temporary sibling of `path`, then swap it in for `path`.

    A symlinked folder is written through: the link's target is replaced, beside the target,
    and the link stays a link (as the file writer does, `io/atomic.py`). Two exports to one
    folder take turns (`_folder_lock`)."""
    shown = Path(os.path.abspath(path))
    path = Path(os.path.realpath(path))
    if path.exists() and not path.is_dir():
        raise ExportError(f"{shown}: a {fmt} export is a folder of files; this is a file")
    path.parent.mkdir(parents=True, exist_ok=True)
    with _folder_lock(path, shown):
        _clean_leftovers(path)  # under the lock: no live export of this folder has a temp
        tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.{TEMP_MARK}", suffix=".tmp",
                                    dir=path.parent))
        try:
            report = write(tmp)
            files = sorted(p for p in tmp.rglob("*") if p.is_file())
            manifest = {"format": fmt, "files": {
                p.relative_to(tmp).as_posix(): _sha256(p) for p in files}}
            (tmp / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n",
                                        encoding="utf-8")
            _fsync_tree(tmp)
            if path.exists():
                _check_replaceable(path, tmp, fmt)
            _swap(tmp, path)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    report.files = [shown / Path(f).relative_to(tmp) if _inside(Path(f), tmp) else Path(f)
                    for f in report.files]
    report.summary = report.summary.replace(str(tmp), str(shown))
    report.messages = [m.replace(str(tmp), str(shown)) for m in report.messages]
    return report


def lock_path(folder: Path) -> Path:
    """The lock file two exports of `folder` take turns on: `.NAME.rackdesigner.lock` beside
    it, there only while an export runs."""
    return folder.parent / f".{folder.name}.rackdesigner.lock"


@contextlib.contextmanager
def _folder_lock(path: Path, shown: Path) -> Iterator[None]:
    """Hold an exclusive `flock` on `lock_path(path)`; wait up to LOCK_WAIT_S for another
    export of the folder to finish, then refuse naming what holds it. The kernel drops the
    lock when its holder dies (even by kill -9), so a crashed export never blocks the next.

    The holder removes the file before it lets go, so none is left behind; a waiter that then
    gets the lock of the removed file sees that the name no longer leads to it and starts
    again on the new file (the usual unlink-safe lock-file protocol)."""
    lock = lock_path(path)
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            _wait_flock(fd, deadline, lock, shown)
            try:
                current = os.stat(lock)
            except FileNotFoundError:
                current = None
            if current is not None and os.path.samestat(current, os.fstat(fd)):
                break
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # the file was removed (or replaced) while we waited: take the new one
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(lock)
        os.close(fd)  # releases the lock


def _wait_flock(fd: int, deadline: float, lock: Path, shown: Path) -> None:
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise ExportError(
                    f"{shown}: another export to this folder is still running (it holds "
                    f"{lock}); waited {LOCK_WAIT_S:g} s, try again when it has finished"
                ) from None
            time.sleep(_LOCK_POLL_S)


def verify_manifest(folder: Path) -> tuple[str | None, list[str]]:
    """(why the folder cannot be read as one export, or None; the files changed since the
    export). A file the manifest lists that is missing makes the folder incomplete (a
    refusal); a changed file may be a hand edit, so it is only named."""
    manifest = folder / MANIFEST
    if not manifest.is_file():
        return None, []
    from rackdesigner.inputs import InputError, read_text

    try:
        data = json.loads(read_text(manifest, 16 * 2**20, "export manifest"))
        files = data["files"]
        if not isinstance(files, dict):
            raise TypeError
    except (InputError, ValueError, KeyError, TypeError):
        return f"{manifest}: the export manifest is damaged (delete it to read the folder " \
            "as it is)", []
    changed = []
    for name, digest in sorted(files.items()):
        target = folder / str(name)
        if not target.is_file():
            return (f"{target}: listed in {MANIFEST} but missing: the folder holds part of an "
                    "export (delete the manifest to read it anyway)"), []
        if _sha256(target) != digest:
            changed.append(str(name))
    return None, changed


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
    except ValueError:
        return False
    return True


def _check_replaceable(path: Path, tmp: Path, fmt: str) -> None:
    existing = {p.name for p in path.iterdir()}
    if not existing or MANIFEST in existing:
        return
    written = {p.name for p in tmp.iterdir()}
    if existing <= written:
        return
    others = sorted(existing - written)
    raise ExportError(f"{path}: the folder holds other files ({', '.join(others[:3])}"
                      f"{'...' if len(others) > 3 else ''}); a {fmt} export replaces its whole "
                      "folder, so choose a new or empty folder")


def _swap(tmp: Path, path: Path) -> None:
    if not path.exists():
        os.rename(tmp, path)
        _fsync_dir(path.parent)
        return
    if _exchange(tmp, path):  # tmp now holds the old export
        shutil.rmtree(tmp, ignore_errors=True)
        _fsync_dir(path.parent)
        return
    aside = Path(tempfile.mkdtemp(prefix=f".{path.name}.{TEMP_MARK}old-", suffix=".tmp",
                                  dir=path.parent))
    os.rmdir(aside)
    os.rename(path, aside)
    try:
        os.rename(tmp, path)
    except BaseException:
        os.rename(aside, path)
        raise
    shutil.rmtree(aside, ignore_errors=True)
    _fsync_dir(path.parent)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two names in one step (Linux renameat2 RENAME_EXCHANGE); False where unavailable."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd = -100
    result = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE)
    if result == 0:
        return True
    if ctypes.get_errno() in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()), str(b))


def _clean_leftovers(path: Path) -> None:
    prefix = f".{path.name}.{TEMP_MARK}"
    with contextlib.suppress(OSError):
        for entry in os.scandir(path.parent):
            if entry.name.startswith(prefix) and entry.name.endswith(".tmp") \
                    and entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)


def _fsync_tree(folder: Path) -> None:
    for p in folder.rglob("*"):
        if p.is_file():
            fd = os.open(p, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
    for d in [folder, *(p for p in folder.rglob("*") if p.is_dir())]:
        _fsync_dir(d)
