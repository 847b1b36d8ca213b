"""The blast radius on the canvas: the GPUs one fault of the selected part stops, outlined in
magenta (the Reliability tab's "Show blast radius of the selection", `reliability/blast.py`).

The scene keeps the set of device ids; a device item paints its mark when its id is in it, and
a collapsed group or aggregate block when it stands for one of them (a tray, a rack or an SU
drawn as one box), so the mark follows expanding, collapsing and zooming. Setting a new set
repaints only the items of the old and the new one. Mixed into `RackScene`.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen

BLAST = QColor("#e0218a")  # magenta: no kind is drawn in it (NICs and DPUs are orange)
BLAST_VEIL = QColor(224, 33, 138, 60)


def paint_blast(painter: QPainter, rect: QRectF, far: bool = False) -> None:
    """A magenta veil and outline over `rect` (a device or group the fault stops)."""
    painter.save()
    path = QPainterPath()
    path.addRoundedRect(rect, 6, 6)
    if far:
        painter.fillPath(path, BLAST)
    else:
        painter.fillPath(path, BLAST_VEIL)
        pen = QPen(BLAST, 3.0)
        pen.setCosmetic(True)  # three screen pixels at any zoom
        painter.setPen(pen)
        painter.drawPath(path)
    painter.restore()


class BlastMarks:
    """Keeps the blast-radius mark on the items drawing the GPUs one fault stops."""

    blast_devices: frozenset[str] = frozenset()
    blast_groups: frozenset[str] = frozenset()  # collapsed groups or blocks standing for them

    def set_blast(self, devices: Iterable[str] | None) -> None:
        """Mark the items drawing `devices` (None or empty: no mark)."""
        before = self.blast_items()
        self.blast_devices = frozenset(devices or ())
        self.refresh_blast()
        for item in before | self.blast_items():
            item.update()

    def refresh_blast(self) -> None:
        """Find the groups standing for marked devices again (after a re-layout, cells opened
        or closed) and repaint those that changed."""
        before = self.blast_groups
        self.blast_groups = self._standing_groups()
        groups = self.item_for_group  # type: ignore[attr-defined]
        for g in before ^ self.blast_groups:
            if g in groups:
                groups[g].update()

    def _standing_groups(self) -> frozenset[str]:
        groups: set[str] = set()
        for d in self.blast_devices:
            if d in self.item_for_device:  # type: ignore[attr-defined]
                continue
            item = self.item_standing_for(d)  # type: ignore[attr-defined]
            group_id = getattr(item, "group_id", None)
            if group_id is not None:
                groups.add(group_id)
        return frozenset(groups)

    def blast_items(self) -> set:
        """The items drawn with the mark."""
        devices = self.item_for_device  # type: ignore[attr-defined]
        groups = self.item_for_group  # type: ignore[attr-defined]
        out = {devices[d] for d in self.blast_devices if d in devices}
        out.update(groups[g] for g in self.blast_groups if g in groups)
        return out


__all__ = ["BLAST", "BlastMarks", "paint_blast"]
