"""Regression: PySide6 6.12.0 on CPython 3.11 decrements None's refcount on every call of a
Qt method returning None, until the interpreter crashes. pyproject excludes that version; this
test catches it (or a relapse) if it slips in anyway."""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QWidget


def test_qt_methods_returning_none_keep_none_alive(qapp):
    widget = QWidget()
    calls = 5000
    for _ in range(100):  # warm up caches that may legitimately take references
        widget.setToolTip("warm")
    before = sys.getrefcount(None)
    for i in range(calls):
        result = widget.setToolTip(f"tip {i % 7}")
        assert result is None
    del result
    after = sys.getrefcount(None)
    # None is immortal on 3.12+ (refcount is a constant); on 3.11 it must not drift downward.
    assert after >= before - 10, f"None's refcount fell from {before} to {after}"
    widget.deleteLater()
