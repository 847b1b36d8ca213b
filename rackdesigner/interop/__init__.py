"""Other tools' formats: exports (Slurm topology, cabling plan, NetBox, graphml/dot,
ASTRA-sim) and imports (ibnetdiscover, NetBox device types, graphml). One module per format;
`units.py` holds the physical view (racks, boxes, cables) the exports share. Qt-free.

Every export is `export(layout, path, **options) -> ExportReport` through `EXPORTERS`.
"""

from __future__ import annotations

from rackdesigner.interop.base import EXPORTERS, ExportError, ExportReport, export

__all__ = ["EXPORTERS", "ExportError", "ExportReport", "export"]
