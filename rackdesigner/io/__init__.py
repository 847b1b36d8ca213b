"""Files: YAML layouts (load, save, schema versions and migrations), atomic writes
(`atomic.write_bytes` / `atomic.write_text`, for every output file) and safe reads
(`regular.read_regular`: regular files only, size-capped)."""

from __future__ import annotations

import importlib
import os
from typing import IO, TYPE_CHECKING, Any

from rackdesigner.catalog import Catalog
from rackdesigner.inputs import NotRegularFileError
from rackdesigner.io import safety
from rackdesigner.io.errors import LayoutFileError
from rackdesigner.io.fastread import Progress, ReadCancelled
from rackdesigner.io.reader import parse_text
from rackdesigner.io.regular import FileTooLargeError, read_regular
from rackdesigner.io.schema import CURRENT_VERSION
from rackdesigner.model import Layout

if TYPE_CHECKING:
    from rackdesigner.io import atomic
    from rackdesigner.io.atomic import ReadOnlyFileError, write_bytes, write_text
    from rackdesigner.io.writer import dump_layout_text, save_layout

#: Names of the writing side, imported when first asked for: a command that only reads a
#: design (`rackdesigner simulate`) does not import the atomic writer (logging, tempfile,
#: fcntl) or the YAML writer.
_LAZY = {"atomic": ("rackdesigner.io.atomic", None),
         "ReadOnlyFileError": ("rackdesigner.io.atomic", "ReadOnlyFileError"),
         "write_bytes": ("rackdesigner.io.atomic", "write_bytes"),
         "write_text": ("rackdesigner.io.atomic", "write_text"),
         "dump_layout_text": ("rackdesigner.io.writer", "dump_layout_text"),
         "save_layout": ("rackdesigner.io.writer", "save_layout")}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module_name, attr = _LAZY[name]
    module = importlib.import_module(module_name)
    value = module if attr is None else getattr(module, attr)
    globals()[name] = value
    return value

__all__ = [
    "CURRENT_VERSION",
    "FileTooLargeError",
    "LayoutFileError",
    "NotRegularFileError",
    "Progress",
    "ReadCancelled",
    "ReadOnlyFileError",
    "atomic",
    "dump_layout_text",
    "load_layout",
    "parse_layout_text",
    "read_regular",
    "save_layout",
    "write_bytes",
    "write_text",
]


def load_layout(source: str | os.PathLike | IO, catalog: Catalog | None = None,
                progress: Progress | None = None) -> Layout:
    """Read a layout from a path or an open file; raises `LayoutFileError` (located).

    `progress(stage, fraction)` is called now and then while reading (the designer's open
    dialog); it may raise `ReadCancelled` to stop the reading."""
    if hasattr(source, "read"):
        label = str(getattr(source, "name", "<stream>"))
        try:
            data = source.read(safety.MAX_BYTES + 1)  # type: ignore[union-attr]
        except UnicodeDecodeError:  # a text stream opened with the wrong encoding
            raise LayoutFileError(label, "not UTF-8 text (a YAML layout was expected)") from None
        except OSError as exc:
            raise LayoutFileError(label, f"cannot read: {exc.strerror or exc}") from None
        return parse_text(data, label, catalog, progress)
    path = os.fspath(source)  # type: ignore[arg-type]
    try:
        data = read_regular(path, safety.MAX_CANONICAL_BYTES)
    except NotRegularFileError as exc:
        raise LayoutFileError(path, f"is a {exc.kind}, not a layout file (give the path of a "
                              "regular .yaml file)") from None
    except FileTooLargeError as exc:
        raise LayoutFileError(path, f"file is {exc.size / 2**20:.0f} MiB; layouts larger than "
                              f"{exc.limit // 2**20} MiB are refused") from None
    except IsADirectoryError:
        raise LayoutFileError(path, "is a folder, not a layout file") from None
    except FileNotFoundError:
        raise LayoutFileError(path, "no such file") from None
    except OSError as exc:
        raise LayoutFileError(path, f"cannot read: {exc.strerror or exc}") from None
    return parse_text(data, path, catalog, progress)


def parse_layout_text(text: str, label: str = "<text>", catalog: Catalog | None = None) -> Layout:
    """Read a layout from YAML text (e.g. the clipboard)."""
    return parse_text(text, label, catalog)
