"""The Cost tab's decision aids: the sensitivity tornado, the list of lines that are unpriced
or priced from derived figures, and the facility / PUE / renting line.

The tornado is `cost.sensitivity` drawn as horizontal bars around the base $/GPU-hour: for each
input moved -20 % and +20 % (largest swing on top), a bar from the base to each end. It is
computed on the GUI thread from the report the worker produced: the variations reuse the
report's formulas with one input changed (no re-pricing), a few milliseconds.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem, QWidget

from rackdesigner.cost import CostReport, format_money
from rackdesigner.cost.sensitivity import Sensitivity, sensitivity
from rackdesigner.ui.panel.axes import styled_plot
from rackdesigner.ui.panel.theme import DOWN, TEXT_DIM, UP, pg
from rackdesigner.ui.plain_text import plain


class FactorAxisItem(pg.AxisItem):
    """Left axis naming the rows 0, 1, 2... of a horizontal bar chart from `labels`."""

    def __init__(self) -> None:
        super().__init__(orientation="left")
        self.labels: list[str] = []

    def tickValues(self, minVal, maxVal, size):
        return [(1, list(range(len(self.labels))))]

    def tickStrings(self, values, scale, spacing):
        return [self.labels[int(v)] if 0 <= int(v) < len(self.labels) else "" for v in values]


#: the tornado's row names (the factor labels of `cost.sensitivity`, short enough for the axis)
SHORT = {"gpu_price": "GPU price", "network_price": "network", "kwh_price": "$/kWh",
         "pue": "PUE", "utilisation": "utilisation", "years": "years"}


class TornadoChart:
    """$/GPU-hour at -20 % (left of the base, when it lowers the figure) and +20 % of each
    input: a pyqtgraph plot whose items are created once and updated with `setOpts`."""

    def __init__(self) -> None:
        self.axis = FactorAxisItem()
        self.axis.setWidth(64)
        self.widget = styled_plot("$/GPU-hour with each input ±20 %", "",
                                  axis_items={"left": self.axis})
        self.widget.setMinimumHeight(150)
        item = self.widget.getPlotItem()
        self.low_bars = pg.BarGraphItem(x0=[], x1=[], y=[], height=0.6,
                                        brush=pg.mkBrush(UP))
        self.high_bars = pg.BarGraphItem(x0=[], x1=[], y=[], height=0.6,
                                         brush=pg.mkBrush(DOWN))
        self.base_line = pg.InfiniteLine(angle=90, pen=pg.mkPen(TEXT_DIM, width=1))
        for graphic in (self.low_bars, self.high_bars, self.base_line):
            item.addItem(graphic)
        self.current: Sensitivity | None = None

    def show(self, report: CostReport | None) -> None:
        data = sensitivity(report) if report is not None and report.usd_per_gpu_hour else None
        self.current = data
        rows = list(reversed(data.rows)) if data is not None else []  # largest on top
        base = data.base if data is not None and data.base is not None else 0.0
        self.axis.labels = [SHORT.get(r.factor, r.label) for r in rows]
        ys = list(range(len(rows)))
        self.low_bars.setOpts(x0=[base] * len(rows), x1=[r.low or base for r in rows], y=ys,
                              height=0.6)
        self.high_bars.setOpts(x0=[base] * len(rows), x1=[r.high or base for r in rows],
                               y=ys, height=0.6)
        self.base_line.setValue(base)
        item = self.widget.getPlotItem()
        ends = [v for r in rows for v in (r.low, r.high) if v is not None] or [base]
        lo, hi = min([*ends, base]), max([*ends, base])
        pad = max((hi - lo) * 0.08, 1e-3)
        item.setXRange(lo - pad, hi + pad, padding=0)
        item.setYRange(-0.6, max(len(rows), 1) - 0.4, padding=0)
        symbol = report.book.symbol if report is not None else "$"
        item.setLabel("bottom", f"per GPU-hour, base {symbol}{base:,.2f}; green -20 %, "
                      "red +20 %", color=TEXT_DIM, **{"font-size": "8pt"})
        self.axis.picture = None
        self.axis.update()


def fill_lines(tree: QTreeWidget, report: CostReport) -> None:
    """The lines a planner should check: without a price (why), then priced from derived
    figures (how), largest money first."""
    tree.clear()
    sym = report.book.symbol
    for line in report.capex.unpriced:
        length = f" {line.length_m:g} m" if line.length_m is not None else ""
        item = QTreeWidgetItem([f"{line.count:,}", f"{line.model}{length}", "—",
                                f"no price: {line.reason}"])
        item.setForeground(3, pg.mkColor(DOWN))
        tree.addTopLevelItem(item)
    derived: dict[str, tuple[int, float]] = {}
    for line in report.capex.lines:
        if line.priced and line.basis == "derived" and line.section not in ("installation",
                                                                            "spares"):
            count, total = derived.get(line.model, (0, 0.0))
            derived[line.model] = (count + line.count, total + line.total)
    for model, (count, total) in sorted(derived.items(), key=lambda kv: -kv[1][1]):
        price = report.book.price(model)
        how = price.method if price is not None else ""
        item = QTreeWidgetItem([f"{count:,}", model, format_money(total, sym),
                                f"derived: {how}"])
        item.setToolTip(3, plain(how))
        tree.addTopLevelItem(item)
    for column in (0, 1, 2):
        tree.resizeColumnToContents(column)



def make_lines_tree(parent: QWidget) -> QTreeWidget:
    tree = QTreeWidget(parent)
    tree.setHeaderLabels(["Count", "Part", "Money", "Unpriced, or derived: how"])
    tree.setRootIsDecorated(False)
    tree.setMinimumHeight(120)  # several rows at the default dock size, not a 2-row box
    tree.setAlternatingRowColors(True)
    tree.setWordWrap(True)
    for column in (0, 2):
        tree.headerItem().setTextAlignment(column, Qt.AlignmentFlag.AlignRight)
    return tree


def bill_html(report: CostReport) -> str:
    """Facility, PUE and renting, one short line each (rich text)."""
    from rackdesigner.cost.rentbuy import rent_vs_buy

    sym = report.book.symbol
    a = report.assumptions
    parts = []
    f = report.facility
    if f is not None:
        parts.append(f"Facility: {f.describe(sym)}")
    parts.append(f"PUE {a.pue:.3g}: {a.pue_note.split('; ')[0]}")
    rent: Any = rent_vs_buy(report)
    if rent is not None:
        even = (f"owning breaks even after {rent.breakeven_months:,.0f} months"
                if rent.breakeven_months is not None else "owning never breaks even")
        parts.append(f"Renting the same GPU-hours: {format_money(rent.rent_total, sym)} at "
                     f"{sym}{rent.cloud_usd_per_gpu_hour:,.2f}/GPU-hour; {even}")
    return "<br>".join(parts)


__all__ = ["FactorAxisItem", "TornadoChart", "bill_html", "fill_lines", "make_lines_tree"]
