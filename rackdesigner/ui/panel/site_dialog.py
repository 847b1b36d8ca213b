"""Site limits dialog: the facility power, IT power, liquid loop, air cooling and floor a
design must fit (`Meta.site`; the power hierarchy is kept as the file states it)."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QSpinBox,
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
        self.facility = _kw_spin(self, site.facility_power_kw, "Utility feed: facility power "
                                 "(IT x PUE, the PUE from the cooling mix) must fit it")
        self.liquid = _kw_spin(self, site.liquid_kw, "Liquid loop capacity: the heat the "
                               "design sends to liquid must fit it")
        self.air = _kw_spin(self, site.air_kw, "Air-cooling capacity: the heat the design "
                            "sends to air must fit it")
        self.positions = QSpinBox(self)
        self.positions.setRange(0, 100_000)
        self.positions.setSpecialValueText("not set")
        self.positions.setValue(site.rack_positions or 0)
        self.positions.setToolTip("Rack positions on the floor: the design's racks must fit")
        form.addRow("Facility power", self.facility)
        form.addRow("IT power", self.power)
        form.addRow("Liquid loop", self.liquid)
        form.addRow("Air cooling", self.air)
        form.addRow("Cooling (total)", self.cooling)
        form.addRow("Rack positions", self.positions)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel, parent=self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def values(self) -> dict[str, float | int | None]:
        """The site's limits as edited (None where not set), by `Site` field."""
        return {"power_kw": self.power.value() or None,
                "cooling_kw": self.cooling.value() or None,
                "facility_power_kw": self.facility.value() or None,
                "liquid_kw": self.liquid.value() or None, "air_kw": self.air.value() or None,
                "rack_positions": self.positions.value() or None}


def ask_site(parent: QWidget | None, site: Site) -> dict[str, float | int | None] | None:
    dialog = SiteDialog(parent, site)
    return dialog.values() if dialog.exec() == QDialog.DialogCode.Accepted else None


__all__ = ["SiteDialog", "ask_site"]
