"""The sweep window's scatter: the axes, colours and Pareto front of a results table, the
hover tips and a click on a point (which asks the main window to open that design).

`SweepScatter` is a mixin of `SweepWindow` (ui/sweep_window.py), which builds the widgets,
runs the sweep and reads and writes results files.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QPointF

from rackdesigner.sweep import (
    FAILED,
    INVALID,
    pareto_front,
)
from rackdesigner.sweep.pareto import lower_is_better
from rackdesigner.sweep.point import HEADLINE
from rackdesigner.ui.panel.theme import pg
from rackdesigner.ui.plain_text import markup, plain
from rackdesigner.vocabulary.wording import counted

DEFAULT_X = "power_max_w"
DEFAULT_Y = "all_reduce_busbw_GBps"
NOT_AXES = ("point", "status", "error", "capex_complete")
PALETTE = ((31, 111, 209), (46, 158, 68), (224, 123, 22), (142, 68, 173), (14, 154, 167),
           (192, 57, 43), (123, 135, 148), (183, 149, 11))
FRONT_COLOR = "#d62728"


class SweepScatter:
    """The results plot of `SweepWindow` (a mixin: `self` is the window)."""

    def show_rows(self, columns: list[str], rows: list[dict[str, Any]]) -> None:
        """Plot rows (from a run or a results file) and list the failed points."""
        self.columns, self.rows = columns, rows
        numeric = [c for c in columns if c not in NOT_AXES and any(
            isinstance(r.get(c), int | float) and not isinstance(r.get(c), bool) for r in rows)]
        for combo, default in ((self.x_axis, DEFAULT_X), (self.y_axis, DEFAULT_Y)):
            keep = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(numeric)
            choice = keep if keep in numeric else default if default in numeric else ""
            if choice:
                combo.setCurrentText(choice)
            combo.blockSignals(False)
        self._set_directions()
        params = _parameters(columns)
        varied = [c for c in params if 1 < len({repr(r.get(c)) for r in rows}) <= len(PALETTE)]
        self.colour_by.blockSignals(True)
        self.colour_by.clear()
        self.colour_by.addItems(["", *params])
        self.colour_by.setCurrentText(varied[0] if varied else "")
        self.colour_by.blockSignals(False)
        failed = [r for r in rows if r.get("status") == FAILED]
        self.failures.setText(plain(
            "" if not failed else f"{counted(len(failed), 'failed point')}: " + "; ".join(
            f"point {r.get('point')} ({self._params_text(r)}): {r.get('error')}"
            for r in failed[:8]) + (" …" if len(failed) > 8 else "")))
        self.redraw()

    def _set_directions(self) -> None:
        for combo, box in ((self.x_axis, self.x_lower), (self.y_axis, self.y_lower)):
            box.blockSignals(True)
            box.setChecked(lower_is_better(combo.currentText()))
            box.blockSignals(False)

    def redraw(self) -> None:
        x, y = self.x_axis.currentText(), self.y_axis.currentText()
        for combo, side in ((self.x_axis, "bottom"), (self.y_axis, "left")):
            name = combo.currentText()
            units = "W" if name.endswith("_w") else None  # SI prefixes: kW, MW
            self.plot.setLabel(side, html.escape(name), units=units)  # pyqtgraph takes HTML
        for item in self.scatters:
            self.plot.removeItem(item)
        self.scatters = []
        colour = self.colour_by.currentText()
        categories: dict[Any, list[dict[str, Any]]] = {}
        xs: list[float | None] = []
        ys: list[float | None] = []
        for index, row in enumerate(self.rows):
            vx, vy = _number(row.get(x)), _number(row.get(y))
            xs.append(vx)
            ys.append(vy)
            if vx is None or vy is None:
                continue
            categories.setdefault(row.get(colour) if colour else None, []).append(
                {"pos": (vx, vy), "data": index, "hollow": row.get("status") == INVALID})
        for k, (category, spots) in enumerate(categories.items()):
            rgb = PALETTE[k % len(PALETTE)]
            for spot in spots:
                spot["pen"] = pg.mkPen(rgb, width=1.5)
                spot["brush"] = pg.mkBrush(None) if spot.pop("hollow") else pg.mkBrush(*rgb, 170)
            name = html.escape(f"{colour} = {category}") if colour else "designs"  # HTML
            item = pg.ScatterPlotItem(spots, size=9, hoverable=True, tip=self._tip, name=name,
                                      pen=pg.mkPen(rgb, width=1.5), brush=pg.mkBrush(*rgb, 170))
            item.sigClicked.connect(self._on_scatter_clicked)
            self.plot.addItem(item)
            self.scatters.append(item)
        self.front = pareto_front(xs, ys, maximize_x=not self.x_lower.isChecked(),
                                  maximize_y=not self.y_lower.isChecked()) if x and y else []
        self.front_line.setData([xs[i] for i in self.front], [ys[i] for i in self.front])
        self.plot.getPlotItem().enableAutoRange()
        self._keep_room_for_legend()

    def _keep_room_for_legend(self) -> None:
        """Lay the legend out in rows of up to three entries and make the plot's top margin
        as tall as it is."""
        entries = len(self.scatters) + 1  # and the Pareto front
        self.legend.setColumnCount(min(3, entries))
        self.legend.updateSize()
        height = self.legend.boundingRect().height()
        self.plot.getPlotItem().layout.setContentsMargins(0, height + 4, 0, 0)

    def drawn(self) -> int:
        """How many designs are drawn."""
        return sum(len(item.points()) for item in self.scatters)

    def point_scene_pos(self, index: int) -> QPointF:
        """Where row `index` is drawn, in the plot's scene (tests click there)."""
        row = self.rows[index]
        x = _number(row.get(self.x_axis.currentText()))
        y = _number(row.get(self.y_axis.currentText()))
        return self.plot.getPlotItem().vb.mapViewToScene(QPointF(x or 0.0, y or 0.0))

    def _on_axis_changed(self, _index: int) -> None:
        self._set_directions()
        self.redraw()

    def _on_direction_toggled(self, _checked: bool) -> None:
        self.redraw()

    def _params_text(self, row: dict[str, Any]) -> str:
        names = (self.spec.parameter_names() if self.spec is not None
                 else _parameters(self.columns))
        return ", ".join(f"{n}={row.get(n)}" for n in names)

    def _tip(self, x: float, y: float, data: Any) -> str:
        """A hovered point (pyqtgraph joins up to three into one tooltip): always escaped
        markup, so the join renders as text whichever comes first."""
        row = self.rows[data]
        return markup(f"point {row.get('point')}: {self._params_text(row)}\n"
                      f"{self.x_axis.currentText()} = {x:g}\n"
                      f"{self.y_axis.currentText()} = {y:g}\n"
                      f"status: {row.get('status')}"
                      + ("" if self.spec is None else "\nclick to open this design"))

    def _on_scatter_clicked(self, _item: Any, points: Any, *args: Any) -> None:
        if not len(points) or self.spec is None:
            if self.spec is None:
                self.status.setText("Results opened from a file: run the spec to open designs.")
            return
        row = self.rows[points[0].data()]
        params = {n: row.get(n) for n in self.spec.parameter_names()}
        self.status.setText(plain(f"Opening point {row.get('point')} ({self._params_text(row)})…"))
        self.design_requested.emit(self.spec, params)


def _parameters(columns: list[str]) -> list[str]:
    """A results table's parameter columns: after `point`, before the first figure."""
    end = next((i for i, c in enumerate(columns) if c in HEADLINE), len(columns))
    return [c for c in columns[:end] if c not in NOT_AXES]


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if value == value else None
