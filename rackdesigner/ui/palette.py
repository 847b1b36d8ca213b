"""The palette: catalog models by category, with a search box; drag one onto the canvas.

Each entry shows the model name and its key figures (ports, power, size). Dragging carries the
model id as `MODEL_MIME`; double-click (or Enter) asks to place the model at the view centre.
"""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QModelIndex, QRect, QSize, Qt, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLineEdit,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rackdesigner import vocabulary
from rackdesigner.catalog import Catalog, DeviceSpec
from rackdesigner.ui import style
from rackdesigner.ui.canvas.interaction import MODEL_MIME
from rackdesigner.ui.plain_text import plain

MODEL_ROLE = Qt.ItemDataRole.UserRole
FIGURES_ROLE = Qt.ItemDataRole.UserRole + 1
KIND_ROLE = Qt.ItemDataRole.UserRole + 2
SEARCH_ROLE = Qt.ItemDataRole.UserRole + 3
USER_ROLE = Qt.ItemDataRole.UserRole + 4  # True for a model from the user's catalog folder

SHORT_PROTOCOL = {p.name: p.short for p in vocabulary.PROTOCOLS.values()}
CATEGORIES = vocabulary.PALETTE_SECTIONS


def category(spec: DeviceSpec) -> str | None:
    """The model's Palette section, from the kind registry (None for cables, transceivers,
    chassis: properties of links and systems)."""
    return vocabulary.palette_section(spec.kind, (g.protocol for g in spec.ports))


def _watts(w: float | None) -> str:
    if not w:
        return ""
    return f"{w / 1000:.1f} kW" if w >= 1000 else f"{w:g} W"


def _gpu_count(catalog: Catalog, spec: DeviceSpec) -> int:
    if spec.traits.computes:
        return 1
    if spec.system is None:
        return 0
    return sum(p.count * _gpu_count(catalog, catalog.get(p.model)) for p in spec.system.parts
               if p.model in catalog)


def figures(catalog: Catalog, spec: DeviceSpec) -> str:
    """Key figures of a model, one short line."""
    bits: list[str] = []
    if spec.traits.contains == "parts":
        gpus = _gpu_count(catalog, spec)
        if gpus:
            bits.append(f"{gpus} GPUs")
    elif spec.traits.contains == "units" and spec.rack is not None:
        bits.append(f"{spec.rack.height_u}U")
        bits.append(f"{_watts(spec.rack.power_budget_w)} budget")
    else:
        bits += vocabulary.fact_figures(spec.kind, spec.fact)
        for group in spec.ports[:1]:
            name = SHORT_PROTOCOL.get(group.protocol, group.protocol)
            bits.append(f"{group.count}× {name} {style.format_rate(group.rate_gbps)}")
    if spec.traits.contains != "units":
        power = _watts(spec.power.max_w or spec.power.typical_w)
        if power:
            bits.append(power)
        if spec.u_height and category(spec) is not None:
            bits.append(f"{spec.u_height:g}U")
    return " · ".join(bits)


class _EntryDelegate(QStyledItemDelegate):
    """Two lines per model: bold name, dim figures, and a kind-coloured chip."""

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        if index.data(MODEL_ROLE) is None:
            return QSize(option.rect.width(), 24)
        return QSize(option.rect.width(), 36)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        model = index.data(MODEL_ROLE)
        if model is None:
            super().paint(painter, option, index)
            return
        painter.save()
        if option.state & QStyle.StateFlag.State_Selected:
            painter.fillRect(option.rect, option.palette.highlight())
        rect = option.rect
        chip = QRect(rect.left() + 2, rect.top() + 8, 4, rect.height() - 16)
        painter.fillRect(chip, style.KIND_COLORS.get(index.data(KIND_ROLE), style.MIXED_COLOR))
        painter.setPen(option.palette.text().color())
        width = rect.width() - 16
        painter.setFont(style.font(9, True))
        name = painter.fontMetrics().elidedText(index.data(Qt.ItemDataRole.DisplayRole),
                                                Qt.TextElideMode.ElideRight, width)
        painter.drawText(QRect(rect.left() + 12, rect.top() + 2, width, 17),
                         Qt.AlignmentFlag.AlignVCenter, name)
        painter.setPen(style.TEXT_DIM)
        painter.setFont(style.font(8))
        figures_text = painter.fontMetrics().elidedText(index.data(FIGURES_ROLE) or "",
                                                        Qt.TextElideMode.ElideRight, width)
        painter.drawText(QRect(rect.left() + 12, rect.top() + 18, width, 15),
                         Qt.AlignmentFlag.AlignVCenter, figures_text)
        painter.restore()


class _PaletteTree(QTreeWidget):
    def mimeData(self, items: list[QTreeWidgetItem]) -> QMimeData:
        models = [it.data(0, MODEL_ROLE) for it in items if it.data(0, MODEL_ROLE)]
        return model_mime(models[0]) if models else QMimeData()

    def mimeTypes(self) -> list[str]:
        return [MODEL_MIME]


def model_mime(model_id: str) -> QMimeData:
    """The drag payload for a catalog model (what a drop onto the canvas reads)."""
    mime = QMimeData()
    mime.setData(MODEL_MIME, model_id.encode())
    mime.setText(model_id)
    return mime


MIN_WIDTH = 140


class PaletteWidget(QWidget):
    model_activated = Signal(str)  # double-click / Enter: place at the view centre

    def __init__(self, catalog: Catalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        # never narrower than a model's name can be read: a window made small once left the
        # Palette ~50 px wide, and the dock state brought it back so on the next start
        self.setMinimumWidth(MIN_WIDTH)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search models…")
        self.search.setClearButtonEnabled(True)
        self.tree = _PaletteTree(self)
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(True)
        self.tree.setIndentation(10)
        self.tree.setUniformRowHeights(False)
        self.tree.setItemDelegate(_EntryDelegate(self.tree))
        self.tree.setDragEnabled(True)
        self.tree.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.setSpacing(4)
        box.addWidget(self.search)
        box.addWidget(self.tree)
        self._populate()
        self.search.textChanged.connect(self._on_search_changed)
        self.tree.itemActivated.connect(self._on_item_activated)

    def _populate(self) -> None:
        headers = {}
        for name in CATEGORIES:
            header = QTreeWidgetItem([name])
            header.setFlags(Qt.ItemFlag.ItemIsEnabled)
            header.setFont(0, style.font(8.5, True))
            headers[name] = header
        for spec in sorted(self.catalog, key=lambda s: s.model.lower()):
            name = category(spec)
            if name is None:
                continue
            item = QTreeWidgetItem([spec.model])
            item.setData(0, MODEL_ROLE, spec.id)
            figures_text = figures(self.catalog, spec)
            tip = f"{spec.manufacturer} {spec.model} ({spec.id})\n{spec.description}".strip()
            if spec.is_user:  # from the user's own catalog folder (catalog/user.py)
                figures_text = "your model · " + figures_text
                overrides = spec.id in getattr(self.catalog, "overrides", ())
                tip += (f"\nYour catalog: {spec.file}"
                        + (" (replaces the shipped model)" if overrides else ""))
            item.setData(0, USER_ROLE, spec.is_user)
            item.setData(0, FIGURES_ROLE, figures_text)
            item.setData(0, KIND_ROLE, spec.kind)
            item.setData(0, SEARCH_ROLE, " ".join((spec.id, spec.model, spec.manufacturer,
                                                    *spec.aliases, name,
                                                    "user" if spec.is_user else "")).lower())
            item.setToolTip(0, plain(tip))
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
                          | Qt.ItemFlag.ItemIsDragEnabled)
            headers[name].addChild(item)
        for name in CATEGORIES:
            if headers[name].childCount():
                self.tree.addTopLevelItem(headers[name])
                headers[name].setExpanded(True)

    def entries(self) -> list[str]:
        """Model ids of the visible entries (in display order)."""
        out = []
        for i in range(self.tree.topLevelItemCount()):
            header = self.tree.topLevelItem(i)
            for j in range(header.childCount()):
                child = header.child(j)
                if not child.isHidden() and not header.isHidden():
                    out.append(child.data(0, MODEL_ROLE))
        return out

    def _on_search_changed(self, text: str) -> None:
        words = text.lower().split()
        for i in range(self.tree.topLevelItemCount()):
            header = self.tree.topLevelItem(i)
            shown = 0
            for j in range(header.childCount()):
                child = header.child(j)
                match = all(w in child.data(0, SEARCH_ROLE) for w in words)
                child.setHidden(not match)
                shown += match
            header.setHidden(shown == 0)

    def _on_item_activated(self, item: QTreeWidgetItem, column: int) -> None:
        model = item.data(0, MODEL_ROLE)
        if model:
            self.model_activated.emit(model)
