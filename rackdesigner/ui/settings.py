"""Persistent preferences (QSettings): window geometry, dock layout, recent files.

Stored values carry a `settings_version`; `migrate` upgrades older stores step by step with
functions registered by `@migrator(from_version)`, as napari's settings do.

A store that cannot be read (a hand-edit gone wrong, `settings_version=abc`, a damaged file) must
never stop the app from starting: it is copied aside as `<file>.bad-<time>`, reset to defaults,
and one warning line says so (also shown in the status bar, `reset_notice`).
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

log = logging.getLogger(__name__)

SETTINGS_VERSION = 1
MAX_RECENT = 10
_MIGRATORS: dict[int, Callable[[QSettings], None]] = {}


def migrator(from_version: int) -> Callable[[Callable[[QSettings], None]], Callable]:
    def register(fn: Callable[[QSettings], None]) -> Callable[[QSettings], None]:
        _MIGRATORS[from_version] = fn
        return fn
    return register


@migrator(0)
def _v0_to_v1(store: QSettings) -> None:
    """Version 0 (unversioned) stores had no recent-file list worth keeping."""
    store.remove("recent")


#: A settings file larger than this is not ours (ours is a few KiB): it is set aside unread.
MAX_SETTINGS_BYTES = 16 * 2**20


def settings_files() -> list[Path]:
    """The files QSettings("RackDesigner", "RackDesigner") reads on this platform (the
    application's, then the organisation-wide fallback); [] where it uses no files."""
    if sys.platform in ("win32", "darwin"):
        return []  # the registry; a property list that Qt reads through CoreFoundation
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return [base / "RackDesigner" / "RackDesigner.conf", base / "RackDesigner.conf"]


def unusable_settings_file() -> tuple[Path, str] | None:
    """A settings file that must not be opened (Qt blocks for ever opening a FIFO, and reads a
    device or a huge file whole): (path, why), checked with lstat/stat, never opened."""
    for path in settings_files():
        try:
            info = os.stat(path)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode):
            from rackdesigner.io.atomic import file_kind

            return path, f"it is a {file_kind(info.st_mode)}, not a settings file"
        if info.st_size > MAX_SETTINGS_BYTES:
            return path, f"it is {info.st_size / 2**20:.0f} MiB, far larger than any settings"
    return None


def _default_store() -> tuple[QSettings, str]:
    """The app's QSettings, with any unusable settings file moved aside first (and if it
    cannot be moved, a store in a temporary folder for this run); (store, notice)."""
    notice = ""
    for _ in range(len(settings_files())):
        bad = unusable_settings_file()
        if bad is None:
            break
        path, why = bad
        aside = path.with_name(f"{path.name}.bad-{time.strftime('%Y%m%d-%H%M%S')}")
        try:
            os.rename(path, aside)
            notice = (f"Settings reset to defaults: {why} ({path}); it was moved to {aside}")
        except OSError as exc:
            tmp = Path(tempfile.mkdtemp(prefix="rackdesigner-settings-")) / "settings.conf"
            notice = (f"Settings not kept this session: {why} ({path}) and it cannot be moved "
                      f"({exc.strerror or exc})")
            log.warning("%s", notice)
            return QSettings(str(tmp), QSettings.Format.IniFormat), notice
        log.warning("%s", notice)
    return QSettings("RackDesigner", "RackDesigner"), notice


class Settings:
    def __init__(self, store: QSettings | None = None) -> None:
        notice = ""
        if store is None:
            store, notice = _default_store()
        self.store = store
        self.reset_notice = notice
        problem = self._problem()
        if problem is not None:
            self.reset(problem)
        self.migrate()

    def _problem(self) -> str | None:
        """Why the store cannot be used as it is, or None."""
        if self.store.status() != QSettings.Status.NoError:
            return "the file is not in the settings format"
        raw = self.store.value("settings_version", 0)
        try:
            int(raw or 0)
        except (TypeError, ValueError):
            return f"settings_version={str(raw)[:40]!r} is not a number"
        recent = self.store.value("recent", [])
        if not isinstance(recent, str | list | type(None)):
            return "the recent-file list is damaged"
        for key in ("window/geometry", "window/state"):
            if not isinstance(self.store.value(key), QByteArray | type(None)):
                return f"{key} is damaged"
        return None

    def reset(self, reason: str) -> None:
        """Keep a copy of the store's file, then start from defaults (one line says so)."""
        path = Path(self.store.fileName())
        backup = path.with_name(f"{path.name}.bad-{time.strftime('%Y%m%d-%H%M%S')}")
        kept = ""
        try:
            if path.is_file():
                shutil.copy2(path, backup)
                kept = f"; the old file is kept as {backup}"
        except OSError as exc:
            kept = f"; it could not be kept ({exc.strerror or exc})"
        self.store.clear()
        self.store.sync()
        self.reset_notice = f"Settings reset to defaults: {reason} in {path}{kept}"
        log.warning("%s", self.reset_notice)

    def migrate(self) -> None:
        version = int(self.store.value("settings_version", 0) or 0)
        while version < SETTINGS_VERSION:
            step = _MIGRATORS.get(version)
            if step is not None:
                step(self.store)
            version += 1
        self.store.setValue("settings_version", SETTINGS_VERSION)

    def recent_files(self) -> list[str]:
        value = self.store.value("recent", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or []) if Path(str(v)).exists()]

    def add_recent(self, path: str | Path) -> None:
        path = str(Path(path).resolve())
        recent = [p for p in self.recent_files() if p != path]
        self.store.setValue("recent", [path, *recent][:MAX_RECENT])

    def price_book(self) -> str | None:
        """The price book file the user chose in the Cost tab, if it still exists."""
        value = self.store.value("cost/price_book", "")
        if not isinstance(value, str) or not value:
            return None
        return value if Path(value).is_file() else None

    def set_price_book(self, path: str | Path | None) -> None:
        """Remember the Cost tab's price book between sessions (None: the default book)."""
        if path is None:
            self.store.remove("cost/price_book")
        else:
            self.store.setValue("cost/price_book", str(Path(path).resolve()))

    def window_state(self) -> tuple[QByteArray | None, QByteArray | None]:
        return self.store.value("window/geometry"), self.store.value("window/state")

    def save_window_state(self, geometry: QByteArray, state: QByteArray) -> None:
        self.store.setValue("window/geometry", geometry)
        self.store.setValue("window/state", state)

    def last_template(self) -> tuple[str, dict[str, str]]:
        """The template New from Template built last and its fields as typed ("", {} if none
        or if the stored value is damaged: a remembered choice is a convenience, never an
        error)."""
        import json

        try:
            data = json.loads(str(self.store.value("template/last", "") or "{}"))
            name, values = data.get("template", ""), data.get("values", {})
        except (ValueError, AttributeError):
            return "", {}
        if not isinstance(name, str) or not isinstance(values, dict):
            return "", {}
        return name, {str(k): str(v) for k, v in values.items() if v is not None}

    def save_last_template(self, name: str, values: dict[str, str | None]) -> None:
        from rackdesigner.io.jsonout import json_text

        self.store.setValue("template/last", json_text(
            {"template": name, "values": {k: v for k, v in values.items() if v is not None}},
            indent=None))

    def compare_inputs(self) -> tuple[list[str], bool]:
        """Compare With…'s files (those that still exist) and its "with the Workload tab's job"
        option, as last used ([], False if none or damaged: a convenience, never an error)."""
        import json

        try:
            data = json.loads(str(self.store.value("compare/last", "") or "{}"))
            paths, with_job = data.get("files", []), data.get("with_job", False)
        except (ValueError, AttributeError):
            return [], False
        if not isinstance(paths, list):
            paths = []
        return ([str(p) for p in paths if isinstance(p, str) and Path(p).is_file()],
                with_job is True)

    def save_compare_inputs(self, paths: list[str], with_job: bool) -> None:
        from rackdesigner.io.jsonout import json_text

        self.store.setValue("compare/last", json_text(
            {"files": [str(p) for p in paths], "with_job": bool(with_job)}, indent=None))

    def sync(self) -> None:
        self.store.sync()
