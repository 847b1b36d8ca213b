"""Site limits dialog: the facility power and cooling a design must fit (`Meta.site`)."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QWidget,
)

from rackdesigner.model import Site
from rackdesigner.model.items import SITE_KW_MAX
from rackdesigner.ui.plain_text import plain

MAX_KW = SITE_KW_MAX  # 10 GW: beyond any site (the reader refuses more)


def _kw_spin(parent: QWidget, value: float | None, tip: str) -> QDoubleSpinBox:
    spin = QDoubleSpinBox(parent)
    spin.setRange(0.0, MAX_KW)
    spin.setDecimals(0)
    spin.setSingleStep(100.0)
    spin.setSuffix(" kW")
    spin.setSpecialValueText("not set")
    spin.setValue(value or 0.0)
    spin.setToolTip(plain(tip))
    return spin


class SiteDialog(QDialog):
    def __init__(self, parent: QWidget | None, site: Site) -> None:
        super().__init__(parent)
        self.setWindowTitle("Site limits")
        self.power = _kw_spin(self, site.power_kw, "Power the site delivers to IT equipment "
                              "(critical IT load): checked against the design's maximum draw")
        self.cooling = _kw_spin(self, site.cooling_kw, "Heat the site can remove: checked "
                                "against the design's heat (all IT power ends as heat)")
        form = QFormLayout(self)
        note = QLabel("0 = not set. Saved in the design (site: in the file).", self)
        note.setWordWrap(True)
        form.addRow(note)
        form.addRow("IT power", self.power)
        form.addRow("Cooling", self.cooling)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel, parent=self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def values(self) -> tuple[float | None, float | None]:
        return (self.power.value() or None, self.cooling.value() or None)


def ask_site(parent: QWidget | None, site: Site) -> tuple[float | None, float | None] | None:
    dialog = SiteDialog(parent, site)
    return dialog.values() if dialog.exec() == QDialog.DialogCode.Accepted else None


__all__ = ["SiteDialog", "ask_site"]
