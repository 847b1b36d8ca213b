"""Untitled copies: bundled examples and templates open as designs that are not yet anywhere.

Saving over an installed example would write into site-packages (or fail there), and a template
has no file at all. Both open as an untitled document titled after what they are ("DGX H100
(example)"), so File ▸ Save asks where to keep the design, suggesting the example's file name.
"""

from __future__ import annotations

from pathlib import Path

from rackdesigner.model import Layout

MAX_TITLE = 48


def is_bundled_example(path: str | Path) -> bool:
    """True for a file among the installed example layouts (symlinks resolved)."""
    from rackdesigner._resources import examples_dir

    try:
        examples = examples_dir().resolve()
    except (FileNotFoundError, OSError):
        return False
    return Path(path).resolve().is_relative_to(examples)


def copy_title(layout: Layout, kind: str, fallback: str) -> str:
    """The window title of an untitled copy: the design's name (or `fallback`) and its kind."""
    name = layout.meta.name or fallback
    if len(name) > MAX_TITLE:
        name = name[: MAX_TITLE - 1].rstrip() + "…"
    return f"{name} ({kind})"


def suggested_save_path(name: str, folder: Path | None = None) -> Path:
    """Where Save As proposes to put an untitled copy: `name` in `folder` (the designer passes
    the folder of the last design opened; the working folder when none is given)."""
    folder = folder if folder is not None else Path.cwd()
    return folder / (name if name.endswith((".yaml", ".yml")) else f"{name}.yaml")
