"""Analyze ▸ Sweep… in the main window: one sweep window per main window, and opening the
design of a clicked point (after the usual unsaved-changes question)."""

from __future__ import annotations

import logging
from typing import Any

from rackdesigner.sweep import SweepSpec
from rackdesigner.ui.sweep_window import SweepWindow

log = logging.getLogger(__name__)


def open_sweep_window(window: Any) -> SweepWindow:
    """Analyze ▸ Sweep…: one sweep window per main window; a clicked point opens its design."""
    existing = getattr(window, "sweep_window", None)
    if existing is None:
        existing = SweepWindow(window)
        existing.design_requested.connect(lambda spec, params: open_point(window, spec, params))
        window.sweep_window = existing
    existing.show()
    existing.raise_()
    existing.activateWindow()
    return existing


def open_point(window: Any, spec: SweepSpec, params: dict[str, Any]) -> bool:
    """Build a point's design and open it in the main window (asking to save first)."""
    from rackdesigner.sweep import build_point_layout

    if not window.maybe_save():
        return False
    try:
        layout = build_point_layout(spec, params, window.catalog)
    except (ValueError, KeyError) as exc:  # the point failed in the sweep too: say why
        window.status_message(f"Cannot build this point: {exc}")
        return False
    except Exception as exc:  # a bug: logged with its traceback, told, never a crash
        log.warning("building sweep point %s failed", params, exc_info=True)
        window.status_message(f"Cannot build this point (an internal error: "
                              f"{type(exc).__name__}: {exc}; details in the log)")
        return False
    window._set_document(layout, None)
    window.status_message("Opened sweep point " + ", ".join(f"{k}={v}"
                                                             for k, v in params.items()))
    return True
