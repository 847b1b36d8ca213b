"""The export registry: one entry per format, each a function of its own module.

An exporter is `write(layout, path, **options) -> ExportReport`; it writes atomically (through
`write_atomic` below, i.e. `rackdesigner.io.atomic`; a folder export is written into a temporary
sibling folder and swapped in whole, `folders.py`) and raises `ExportError` with a plain
sentence when the design cannot be expressed in the target's format (no switches for a Slurm
tree...).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rackdesigner.model import Layout


def write_atomic(path: str | Path, data: str | bytes) -> Path:
    """Write an output file through the project's atomic writer (`rackdesigner.io.atomic`:
    temp file beside the target, fsync, `os.replace`; symlinks written through, read-only
    targets refused). Text is UTF-8 with "\\n" line ends."""
    from rackdesigner.io import atomic

    if isinstance(data, str):  # a lone surrogate (no UTF-8 for it) becomes "?", not an error
        return atomic.write_bytes(path, data.encode("utf-8", "replace"))
    return atomic.write_bytes(path, data)


class ExportError(ValueError):
    """The design cannot be written in the requested format; the message says why."""


@dataclass
class ExportReport:
    files: list[Path] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)  # what the user should know (warnings)
    summary: str = ""


@dataclass(frozen=True)
class Exporter:
    name: str
    module: str  # rackdesigner.interop.<module>, function `write`
    description: str
    suffixes: tuple[str, ...]  # accepted output suffixes ("" = a folder)
    file_filter: str  # for the GUI's save dialog
    title: str = ""  # the GUI's menu entry


#: The export formats, by name: immutable (a `MappingProxyType` of frozen entries), as the
#: vocabulary's tables.
EXPORTERS: MappingProxyType[str, Exporter] = MappingProxyType({e.name: e for e in (
    Exporter("slurm-tree", "slurm", "Slurm topology/tree: topology.conf (or topology.yaml)",
             (".conf", ".yaml", ".yml"), "Slurm topology (*.conf *.yaml)",
             "Slurm Topology (&Tree)"),
    Exporter("slurm-block", "slurm", "Slurm topology/block: one block per NVLink domain",
             (".conf", ".yaml", ".yml"), "Slurm topology (*.conf *.yaml)",
             "Slurm Topology (&Blocks: NVLink Domains)"),
    Exporter("cabling", "cabling", "cabling plan for the site team: CSV or XLSX",
             (".csv", ".xlsx"), "Cabling plan (*.csv *.xlsx)", "&Cabling Plan (CSV, XLSX)"),
    Exporter("netbox", "netbox", "NetBox bulk-import files (CSV + device-type YAML) in a folder",
             ("",), "", "&NetBox Import Files"),
    Exporter("graphml", "graphml", "the topology as GraphML (networkx, Gephi, yEd)",
             (".graphml",), "GraphML (*.graphml)", "&GraphML"),
    Exporter("dot", "dot", "the topology as Graphviz DOT (boxes and cables)",
             (".dot", ".gv"), "Graphviz DOT (*.dot *.gv)", "Graphviz &DOT"),
    Exporter("astra-sim", "astrasim", "ASTRA-sim analytical network.yml + system.json in a "
             "folder", ("",), "", "&ASTRA-sim Network and System"),
)})


def register_exporters(entries: Any, source: str) -> tuple[str, ...]:
    """Add the export formats `entries` (each an `Exporter` whose `module` is the full dotted
    path of a module with `write(layout, path, **options) -> ExportReport`) that plugin
    `source` declares to `EXPORTERS`, refusing the whole set — naming `source` — when an entry
    is not an `Exporter`, its name is taken, its module is not a dotted path outside
    `rackdesigner`, or its suffixes are not file suffixes (".csv") or the folder mark (""). The
    names registered."""
    from rackdesigner.vocabulary import RegistrationError

    global EXPORTERS
    new: dict[str, Exporter] = {}
    for e in entries:
        if not isinstance(e, Exporter):
            raise RegistrationError(f"plugin {source}: an export format must be a "
                                    f"rackdesigner.interop.base.Exporter, got "
                                    f"{type(e).__name__}")
        where = f"plugin {source}: export format {e.name!r}"
        if e.name in EXPORTERS or e.name in new:
            raise RegistrationError(f"{where} is already registered")
        if "." not in e.module or e.module.startswith("rackdesigner."):
            raise RegistrationError(f"{where}: module must be the plugin's own dotted module "
                                    f"path (with a write function), got {e.module!r}")
        if not e.suffixes or not all(isinstance(x, str) and (x == "" or x.startswith("."))
                                     for x in e.suffixes):
            raise RegistrationError(f"{where}: suffixes must be file suffixes such as "
                                    f"('.csv',), or ('',) for a folder; got {e.suffixes!r}")
        new[e.name] = e
    EXPORTERS = MappingProxyType({**EXPORTERS, **new})
    import rackdesigner.interop as package

    package.EXPORTERS = EXPORTERS
    return tuple(new)


def export(layout: Layout, fmt: str, path: str | Path, **options: Any) -> ExportReport:
    """Write `layout` as `fmt` to `path`; ExportError when it cannot be done."""
    try:
        exporter = EXPORTERS[fmt]
    except KeyError:
        raise ExportError(f"unknown export format {fmt!r} (expected one of "
                          f"{', '.join(EXPORTERS)})") from None
    path = Path(path)
    if exporter.suffixes != ("",) and path.suffix.lower() not in exporter.suffixes:
        raise ExportError(f"{path}: a {fmt} export is written to a file ending in "
                          f"{' or '.join(exporter.suffixes)}")
    if exporter.suffixes == ("",) and path.exists() and not path.is_dir():
        raise ExportError(f"{path}: a {fmt} export is a folder of files; this is a file")
    module = importlib.import_module(exporter.module if "." in exporter.module  # a plugin's
                                     else f"rackdesigner.interop.{exporter.module}")
    if exporter.module == "slurm":
        options.setdefault("plugin", fmt.split("-", 1)[1])
    if exporter.suffixes == ("",):
        from rackdesigner.interop.folders import write_folder

        return write_folder(path, fmt, lambda tmp: module.write(layout, tmp, **options))
    return module.write(layout, path, **options)
