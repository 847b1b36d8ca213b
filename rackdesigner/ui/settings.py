"""Persistent preferences (QSettings): window geometry, dock layout, recent files.

Stored values carry a `settings_version`; `migrate` upgrades older stores step by step with
functions registered by `@migrator(from_version)`, as napari's settings do.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

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


class Settings:
    def __init__(self, store: QSettings | None = None) -> None:
        self.store = store if store is not None else QSettings("RackDesigner", "RackDesigner")
        self.migrate()

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

    def window_state(self) -> tuple[QByteArray | None, QByteArray | None]:
        return self.store.value("window/geometry"), self.store.value("window/state")

    def save_window_state(self, geometry: QByteArray, state: QByteArray) -> None:
        self.store.setValue("window/geometry", geometry)
        self.store.setValue("window/state", state)

    def sync(self) -> None:
        self.store.sync()
