"""Files: YAML layouts (load, save, schema versions and migrations)."""

from __future__ import annotations

import os
from typing import IO

from rackdesigner.catalog import Catalog
from rackdesigner.io import safety
from rackdesigner.io.errors import LayoutFileError
from rackdesigner.io.reader import parse_text
from rackdesigner.io.schema import CURRENT_VERSION
from rackdesigner.io.writer import dump_layout_text, save_layout
from rackdesigner.model import Layout

__all__ = [
    "CURRENT_VERSION",
    "LayoutFileError",
    "dump_layout_text",
    "load_layout",
    "parse_layout_text",
    "save_layout",
]


def load_layout(source: str | os.PathLike | IO, catalog: Catalog | None = None) -> Layout:
    """Read a layout from a path or an open file; raises `LayoutFileError` (located)."""
    if hasattr(source, "read"):
        label = str(getattr(source, "name", "<stream>"))
        try:
            data = source.read(safety.MAX_CANONICAL_BYTES + 1)  # type: ignore[union-attr]
        except UnicodeDecodeError:  # a text stream opened with the wrong encoding
            raise LayoutFileError(label, "not UTF-8 text (a YAML layout was expected)") from None
        except OSError as exc:
            raise LayoutFileError(label, f"cannot read: {exc.strerror or exc}") from None
        return parse_text(data, label, catalog)
    path = os.fspath(source)  # type: ignore[arg-type]
    try:
        with open(path, "rb") as handle:
            data = handle.read(safety.MAX_CANONICAL_BYTES + 1)
    except IsADirectoryError:
        raise LayoutFileError(path, "is a folder, not a layout file") from None
    except FileNotFoundError:
        raise LayoutFileError(path, "no such file") from None
    except OSError as exc:
        raise LayoutFileError(path, f"cannot read: {exc.strerror or exc}") from None
    return parse_text(data, path, catalog)


def parse_layout_text(text: str, label: str = "<text>", catalog: Catalog | None = None) -> Layout:
    """Read a layout from YAML text (e.g. the clipboard)."""
    return parse_text(text, label, catalog)
