"""Parsed data files kept between runs, so a command does not parse the same YAML every time.

Every `rackdesigner` command reads the shipped catalog: 53 small YAML files that took 12 ms to
parse, plus 10 ms to import PyYAML at all, on every start (`rackdesigner simulate` of a 1k-GPU
design takes about 0.3 s in all). What a file parses to is plain data (mappings, lists, text,
numbers), so it is kept as JSON in the user's cache folder, keyed by the file's path, size and
modification time (as Python keeps its bytecode), and read back in about a millisecond. The
data read back is checked by the same validation as data just parsed (`catalog/loader.py`),
so the cache can change how fast a file is read, never what it says: a file that changed, or
one whose data JSON cannot hold exactly, is parsed again.

The folder: `$RACKDESIGNER_CACHE_DIR` (empty or `off`: no cache), else the platform's user
cache folder (`$XDG_CACHE_HOME` or `~/.cache` on Linux). A cache that cannot be read or
written is ignored: it is never an error.
"""

from __future__ import annotations

import json
import os
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

CACHE_ENV = "RACKDESIGNER_CACHE_DIR"
#: Not cached: anything larger (the catalog's whole cache is ~70 kB).
MAX_CACHE_BYTES = 16 * 2**20
#: Raise it when what a file parses to may change (a reader refusing more): old caches go.
FORMAT = 1
MISSING: Any = object()


def cache_folder() -> Path | None:
    """Where parsed files are kept, or None when caching is off."""
    value = os.environ.get(CACHE_ENV)
    if value is not None:
        return None if value.strip() in ("", "off") else Path(value)
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = str(Path.home() / "Library" / "Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rackdesigner"


class ParsedFiles:
    """The cached data of the files under one folder (`get`, `put`, then `save`)."""

    def __init__(self, folder: Path, name: str) -> None:
        place = cache_folder()
        tag = f"{zlib.crc32(str(folder.resolve()).encode('utf-8', 'surrogatepass')):08x}"
        self.path = None if place is None else place / f"{name}-{tag}.json"
        self.files: dict[str, list[Any]] = {}
        self.changed = False
        if self.path is not None:
            self.files = _read(self.path)

    @staticmethod
    def _key(path: Path) -> tuple[str, int, int] | None:
        try:
            stat = path.stat()
        except OSError:
            return None
        return str(path), stat.st_size, stat.st_mtime_ns

    def get(self, path: Path) -> Any:
        """The data `path` parsed to when it was last read as it is now, else `MISSING`."""
        key = self._key(path)
        entry = self.files.get(key[0]) if key is not None else None
        if key is None or entry is None or entry[:2] != [key[1], key[2]]:
            return MISSING
        return entry[2]

    def put(self, path: Path, data: Any) -> None:
        """Keep what `path` parsed to, if JSON holds it exactly (text keys, plain values)."""
        key = self._key(path)
        if self.path is None or key is None:
            return
        try:
            if json.loads(json.dumps(data, allow_nan=False)) != data:
                return
        except (TypeError, ValueError, RecursionError):  # dates, sets, NaN...: not kept
            return
        self.files[key[0]] = [key[1], key[2], data]
        self.changed = True

    def save(self) -> None:
        """Write the cache if anything was added (atomically; any failure is ignored)."""
        if not self.changed or self.path is None:
            return
        self.changed = False
        doc = {"format": FORMAT, "files": self.files}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            temp.write_text(json.dumps(doc, separators=(",", ":"), allow_nan=False),
                            encoding="utf-8")
            os.replace(temp, self.path)
        except OSError as exc:
            import logging

            logging.getLogger(__name__).debug("cache %s not written: %s", self.path, exc)


def _read(path: Path) -> dict[str, list[Any]]:
    """The cache file's entries (none when it is missing, too large or not ours)."""
    try:
        if path.stat().st_size > MAX_CACHE_BYTES:
            return {}
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    if (not isinstance(doc, dict) or doc.get("format") != FORMAT
            or not isinstance(doc.get("files"), dict)):
        return {}
    return {name: entry for name, entry in doc["files"].items()
            if isinstance(entry, list) and len(entry) == 3}


def parsed_file(path: Path, parse: Callable[[str], Any], name: str = "data") -> Any:
    """What `parse(text of path)` gives, kept between runs as `ParsedFiles` keeps it (for a
    shipped data file read by a module of its own, such as the transport table)."""
    cache = ParsedFiles(path.parent, name)
    data = cache.get(path)
    if data is MISSING:
        data = parse(path.read_text(encoding="utf-8"))
        cache.put(path, data)
        cache.save()
    return data
