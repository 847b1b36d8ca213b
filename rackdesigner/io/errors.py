"""The one error type for unreadable or invalid layout files, always located.

`LayoutFileError` is `rackdesigner.inputs.InputError` — one located-error class (file, line,
column, what was expected) for a layout and for every other input file; the name stays for the
layout readers and their callers.
"""

from __future__ import annotations

from rackdesigner.inputs import InputError

LayoutFileError = InputError

__all__ = ["LayoutFileError"]
