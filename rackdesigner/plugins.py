"""Tables installed packages extend: device kinds, export formats and catalog packs.

A package adds to RackDesigner by declaring entry points (docs/plugins.md):

- `rackdesigner.kinds`: a `vocabulary.Kind` or a sequence of them (its traits say how every
  engine treats it: an optical circuit switch is a `Kind` with role `switch`);
- `rackdesigner.catalogs`: a folder of device files (a path, or a function returning one),
  read with the shipped catalog;
- `rackdesigner.exporters`: an `interop.base.Exporter` or a sequence of them, whose `module`
  is the plugin's own module with `write(layout, path, **options) -> ExportReport`.

Each is validated when it is registered (`vocabulary.register_kinds`,
`interop.base.register_exporters`, `catalog.register_catalog_folder`): a duplicate name or id,
an unknown role, trait, Palette section or power category is refused with the plugin's name
(`distribution:entry-point`), as orange-canvas-core refuses a duplicate widget. Kinds come
first (a catalog pack's files name them), then catalog packs, then export formats.

The entry points (`cli.main`, the GUI's `app.main`) call `load_plugins()` before anything reads
the tables; a library user calls it too. It costs a scan of the installed packages'
`entry_points.txt` files (a few milliseconds); `importlib.metadata` is imported only when one
of them names a `rackdesigner.` group.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import Any

GROUPS = ("rackdesigner.kinds", "rackdesigner.catalogs", "rackdesigner.exporters")


class PluginError(ValueError):
    """An installed plugin that cannot be loaded or whose tables are refused: names it."""


def declared() -> bool:
    """Whether any installed package declares a `rackdesigner.` entry point: a look at each
    `*.dist-info/entry_points.txt` on `sys.path`, without importing `importlib.metadata`."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(entry or ".", name, "entry_points.txt"),
                          encoding="utf-8") as f:
                    if "[rackdesigner." in f.read():
                        return True
            except OSError:
                continue
    return False


@functools.cache
def load_plugins() -> tuple[str, ...]:
    """Register every installed plugin's tables, once per process; the plugins registered
    (`distribution:entry-point (group)`). PluginError naming the plugin when one fails."""
    if not declared():
        return ()
    from importlib.metadata import entry_points

    done: list[str] = []
    for group in GROUPS:
        found = sorted(entry_points(group=group),
                       key=lambda e: (e.dist.name if e.dist is not None else "", e.name))
        for ep in found:
            source = f"{ep.dist.name if ep.dist is not None else '?'}:{ep.name}"
            try:
                value = ep.load()
                if callable(value) and not hasattr(value, "__dataclass_fields__"):
                    value = value()
                _register(group, value, source)
            except PluginError:
                raise
            except Exception as exc:  # the plugin's own code: whatever it raises, say whose
                raise PluginError(f"plugin {source} ({group}): {exc}") from exc
            done.append(f"{source} ({group})")
    return tuple(done)


def _register(group: str, value: Any, source: str) -> None:
    from rackdesigner.vocabulary import RegistrationError

    try:
        if group == "rackdesigner.kinds":
            from rackdesigner.vocabulary import Kind, register_kinds

            register_kinds([value] if isinstance(value, Kind) else list(value), source)
        elif group == "rackdesigner.catalogs":
            from rackdesigner.catalog.catalog import register_catalog_folder

            if not isinstance(value, (str, os.PathLike)):
                raise PluginError(f"plugin {source} ({group}): expected a folder path, got "
                                  f"{type(value).__name__}")
            register_catalog_folder(value, source)
        else:
            from rackdesigner.interop.base import Exporter, register_exporters

            register_exporters([value] if isinstance(value, Exporter) else list(value),
                               source)
    except RegistrationError as exc:
        raise PluginError(str(exc)) from None
