"""The `link-list` export format: every link as one tab-separated line (a, b, protocol, count),
written atomically with RackDesigner's own helper."""

from __future__ import annotations

from pathlib import Path

from rackdesigner.interop.base import ExportReport
from rackdesigner.io import atomic


def write(layout, path: Path, **options) -> ExportReport:
    index = layout.index()
    lines = ["a\tb\tprotocol\tcount"]
    for link in layout.links():
        lines.append(f"{link.a.device}:{link.a.group}\t{link.b.device}:{link.b.group}\t"
                     f"{index.protocol(link) or '-'}\t{link.count}")
    atomic.write_text(path, "\n".join(lines) + "\n")
    return ExportReport([Path(path)], [], f"{path}: {len(lines) - 1} links")
