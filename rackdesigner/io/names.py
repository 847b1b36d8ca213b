"""Ids from a file that become file names: one check, so no file can name a place to write.

A model id embedded in a design (`x-rackdesigner-models`), the `slug` of a NetBox device type
and a catalog model id are free text from someone else's file. Writers that name an output file
after one (`pack --unpack`, `export -f netbox`, `catalog import-netbox`, the designer's device
type import) build the path with `path_inside`, never with `folder / f"{id}.yaml"`:

* the id must be a plain file name: not empty, no path separator (`/`, and `\\` which is one on
  Windows), not `.` or `..`, no control character (NUL ends a C string; a newline forges
  listings), no longer than `MAX_NAME_BYTES` in UTF-8 with its suffix (a file system's NAME_MAX
  is 255);
* the joined path, symlinks followed, must stay inside the folder: a link already in the folder
  that points elsewhere would make an atomic write replace the file it points at.

A refusal is an `UnsafeNameError` (a ValueError) saying what was expected; callers prefix where
the id came from (file and key), the CLI exits 2 and nothing is written.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

#: Longest file name (UTF-8 bytes, suffix included) written: POSIX file systems take 255.
MAX_NAME_BYTES = 255
_SEPARATORS = ("/", "\\")


class UnsafeNameError(ValueError):
    """An id that cannot be a file name inside the chosen folder."""


def check_file_name(name: object, suffix: str = "") -> str:
    """`name + suffix` if `name` is one plain file name, else UnsafeNameError (what is wrong)."""
    if not isinstance(name, str) or not name:
        raise UnsafeNameError(f"{name!r} cannot be a file name (an empty or non-text id)")
    if name in (".", ".."):
        raise UnsafeNameError(f"{name!r} cannot be a file name (it names a folder)")
    if any(sep in name for sep in _SEPARATORS):
        raise UnsafeNameError(f"{_short(name)!r} cannot be a file name (it holds a path "
                              "separator; an id must be a plain name such as 'my-switch')")
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in name):
        raise UnsafeNameError(f"{_short(name)!r} cannot be a file name (it holds a control "
                              "character)")
    full = name + suffix
    try:
        size = len(full.encode("utf-8"))
    except UnicodeEncodeError:  # pragma: no cover - lone surrogates are refused above
        size = MAX_NAME_BYTES + 1
    if size > MAX_NAME_BYTES:
        raise UnsafeNameError(f"{_short(name)!r} cannot be a file name (it is {size} bytes "
                              f"long; at most {MAX_NAME_BYTES})")
    return full


def path_inside(folder: str | os.PathLike, name: object, suffix: str = "") -> Path:
    """`folder / (name + suffix)`, checked to be a plain name that stays inside `folder` once
    symlinks are followed (a link in the folder pointing out of it is refused too)."""
    full = check_file_name(name, suffix)
    base = Path(folder)
    target = base / full
    real_base = os.path.realpath(os.fspath(base))
    real_target = os.path.realpath(os.fspath(target))
    if os.path.dirname(real_target) != real_base:
        raise UnsafeNameError(f"{_short(str(name))!r}: {target} leads out of {base} (a link "
                              f"to {real_target}); nothing is written there")
    return target


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


__all__ = ["MAX_NAME_BYTES", "UnsafeNameError", "check_file_name", "path_inside"]
