"""Watching the open file, and the questions asked before a save could lose someone's work.

`FileWatch` remembers what was on disk when the design was opened or last saved (a stat
signature and a SHA-256 of the bytes) and watches the file and its folder. When another program
changes the file (a colleague's save, `git pull`, an editor), `changed_on_disk` is emitted once
the writes settle; the window then offers to reload it or keep the user's version, saying what
differs (`rackdesigner.io.diff.change_summary`). A save over a file that changed since is asked
about first, as is a save over a read-only file.

Kept apart from `files.py` (and free of the window) so the file controller can carry it as is.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from rackdesigner.io import read_regular, safety
from rackdesigner.io.atomic import clean_stale_temps, real_target
from rackdesigner.ui.plain_text import plain

log = logging.getLogger(__name__)
SETTLE_MS = 200  # editors and git write in several steps: check once they are done


def _signature(path: Path) -> tuple[int, int, int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size, info.st_ino, info.st_ctime_ns


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(read_regular(path, safety.MAX_CANONICAL_BYTES)).hexdigest()
    except OSError:
        return None


class FileWatch(QObject):
    """The open file's state on disk, compared with the version the window last read or wrote."""

    changed_on_disk = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path: Path | None = None
        self._signature: tuple[int, int, int] | None = None
        self._digest: str | None = None
        self._kept_over: str | None = None  # a disk version the user chose to keep theirs over
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_watcher_changed)
        self._watcher.directoryChanged.connect(self._on_watcher_changed)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SETTLE_MS)
        self._timer.timeout.connect(self.check)
        self._prefetched: tuple[Path, threading.Thread, list] | None = None

    def prefetch(self, path: str | Path) -> None:
        """Take `path`'s signature and digest on a thread of their own, for the `follow` of
        the open that is starting: reading and hashing release the GIL, so they run beside
        the design's reading instead of between it and the first paint (40 MB: 0.05-0.1 s)."""
        target = Path(path)
        known: list[tuple] = []

        def run() -> None:
            signature = _signature(target)  # first: a file changed while hashed differs
            known.append((signature, _digest(target)))

        thread = threading.Thread(target=run, name="digest-opened-file", daemon=True)
        thread.start()
        self._prefetched = (target, thread, known)

    def _known_now(self, path: Path) -> tuple:
        """`path`'s signature and digest: the prefetched ones while the file is unchanged."""
        prefetched, self._prefetched = self._prefetched, None
        signature = _signature(path)
        if prefetched is not None and prefetched[0] == path:
            prefetched[1].join()
            if prefetched[2] and signature is not None and prefetched[2][0][0] == signature:
                return prefetched[2][0]
        return signature, _digest(path)

    def follow(self, path: str | Path | None) -> None:
        """Watch `path` (None: nothing), taking what is on disk now as the known version."""
        self._timer.stop()
        watched = self._watcher.files() + self._watcher.directories()
        if watched:
            self._watcher.removePaths(watched)
        self.path = Path(path) if path is not None else None
        self._kept_over = None
        if self.path is None:
            self._signature = self._digest = None
            return
        self._signature, self._digest = self._known_now(self.path)
        clean_stale_temps(real_target(self.path))  # a crashed save's leftovers, not a live one's
        self._watch()

    def _watch(self) -> None:
        assert self.path is not None
        for target in (self.path, self.path.parent):
            if target.exists() and str(target) not in (self._watcher.files()
                                                        + self._watcher.directories()):
                self._watcher.addPath(str(target))

    def _on_watcher_changed(self, _path: str) -> None:
        if self.path is not None:
            self._watch()  # a file replaced by rename (every atomic save) drops its watch
            self._timer.start()

    def changed_since_known(self) -> bool:
        """True when the file on disk is not the version last read or written here (nor one
        the user already chose to keep their version over)."""
        if self.path is None:
            return False
        # Same size and mtime does not mean the same bytes: a file rewritten in place with its
        # old mtime restored keeps both (and its inode), so the content decides.
        digest = _digest(self.path)
        if _signature(self.path) == self._signature and digest == self._digest:
            return False
        return digest != self._digest and digest != self._kept_over

    def keep_mine(self) -> None:
        """The user keeps their version over what is on disk now: stop asking about it."""
        if self.path is not None:
            self._kept_over = _digest(self.path)

    def check(self) -> bool:
        """Emit `changed_on_disk` if the file changed; True if it did (tests call this)."""
        self._timer.stop()
        if self.changed_since_known():
            log.info("%s changed on disk", self.path)
            self.changed_on_disk.emit()
            return True
        return False

    def flush(self) -> None:
        if self._timer.isActive():
            self.check()


# ---- questions -----------------------------------------------------------------------------

def reload_prompt(parent: QWidget, path: Path, summary: str, modified: bool,
                  readable: bool) -> QMessageBox:
    """A window-modal (non-blocking) offer to reload `path` or keep the user's version."""
    box = QMessageBox(QMessageBox.Icon.Warning, "File changed on disk",
                      plain(f"{path.name} was changed on disk by another program (a "
                            "colleague's save, a git pull, an editor)."), parent=parent)
    informative = f"On disk, compared with the open design: {summary}."
    if modified:
        informative += " Your unsaved changes are lost if you reload."
    if not readable:
        informative = f"The file on disk cannot be opened now: {summary}."
    box.setInformativeText(plain(informative))
    box.reload_button = box.addButton("Reload from disk", QMessageBox.ButtonRole.AcceptRole)
    box.reload_button.setEnabled(readable)
    box.keep_button = box.addButton("Keep mine", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(box.keep_button if modified or not readable else box.reload_button)
    box.setObjectName("file-changed-prompt")
    return box


def ask_overwrite_changed(parent: QWidget, path: Path, summary: str) -> bool:
    """Save over a file someone changed since it was opened? (modal; True = overwrite)."""
    box = QMessageBox(QMessageBox.Icon.Warning, "File changed on disk",
                      plain(f"{path.name} was changed on disk since you opened it. Saving "
                            "replaces that version with yours."), parent=parent)
    box.setInformativeText(plain(f"On disk, compared with yours: {summary}."))
    overwrite = box.addButton("Overwrite", QMessageBox.ButtonRole.DestructiveRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    return box.clickedButton() is overwrite


def ask_overwrite_read_only(parent: QWidget, path: Path) -> bool:
    """Save over a read-only file? (modal; True = save anyway, keeping it read-only)."""
    box = QMessageBox(QMessageBox.Icon.Warning, "Read-only file",
                      plain(f"{path.name} is read-only: someone protected it from changes."),
                      parent=parent)
    box.setInformativeText("Save over it anyway (it stays read-only), or cancel and use "
                           "File ▸ Save As… to save a copy elsewhere.")
    anyway = box.addButton("Save anyway", QMessageBox.ButtonRole.DestructiveRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    return box.clickedButton() is anyway
