"""Importers produce only what the layout reader accepts.

A design built from another tool's file is written as a layout and read back (in memory) with
the same reader File ▸ Open uses, before anyone can save it: whatever the importer let through
that the reader would refuse (a count of 10¹², a rack unit of −5, a key the format does not
know) is refused at import, named by its object, instead of producing a file the app then
cannot open.
"""

from __future__ import annotations

from rackdesigner.model import Layout


def unreadable_reason(layout: Layout) -> str | None:
    """None when `layout` saves to a file the reader loads back; else the reader's reason."""
    from rackdesigner.io import LayoutFileError, dump_layout_text, parse_layout_text

    try:
        text = dump_layout_text(layout)
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        return f"it cannot be written as a layout: {exc}"
    try:
        parse_layout_text(text, "<imported>", layout.catalog)
    except LayoutFileError as exc:
        return f"the layout it makes would not open again: {exc.message}"
    return None
