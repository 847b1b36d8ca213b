"""The Workload tab's results: its status lines, the six figures with their change against
the baseline (or the intact design under a what-if), and the bar of where the step goes.

`WorkloadResults` is a mixin of `WorkloadTab` (ui/panel/workload.py): the tab builds the
widgets and takes the inputs; this draws each estimate `LiveEstimate` delivers.
"""

from __future__ import annotations

from html import escape

from rackdesigner.ui.panel.theme import DOWN, TEXT_DIM, UP
from rackdesigner.ui.panel.workload_live import WorkloadOutcome
from rackdesigner.ui.panel.workload_spread import spread_line
from rackdesigner.ui.plain_text import plain
from rackdesigner.vocabulary.wording import counted
from rackdesigner.workload import Estimate

PARTS = (("compute_s", "compute", "#76b900"), ("tp_exposed_s", "TP", "#1f6fd1"),
         ("cp_exposed_s", "CP", "#8e44ad"), ("ep_exposed_s", "EP", "#0e9aa7"),
         ("moe_dispatch_s", "MoE dispatch", "#c0392b"),
         ("pp_bubble_s", "bubble", "#b8c2cc"), ("pp_p2p_s", "PP send", "#7b8794"),
         ("dp_exposed_s", "DP", "#e07b16"), ("optimizer_s", "optimizer", "#52606d"))
FIGURES = ("step", "tokens", "mfu", "train", "energy", "memory")


def _seconds(v: float) -> str:
    return f"{v * 1000:,.0f} ms" if v < 1 else f"{v:,.2f} s"


class WorkloadResults:
    """What `WorkloadTab` shows of an estimate (a mixin: `self` is the tab)."""

    def _on_live_busy_changed(self, busy: bool) -> None:
        if busy:
            self.status.setText("estimating…")

    def _on_live_result_ready(self, outcome: WorkloadOutcome) -> None:
        self.current = outcome
        self._redraw()
        self.job_changed.emit()

    def pin_baseline(self) -> bool:
        est = self.current.estimate if self.current else None
        if est is None or est.step_time_s is None:
            return False
        self.baseline = est
        self.clear_button.setEnabled(True)
        self._redraw()
        return True

    def clear_baseline(self) -> None:
        self.baseline = None
        self.clear_button.setEnabled(False)
        self._redraw()

    def figure_text(self, key: str) -> str:
        return self.figure_labels[key].text()

    def _redraw(self) -> None:
        outcome = self.current
        est = outcome.estimate if outcome else None
        timed = est is not None and est.step_time_s is not None
        self.pin_button.setEnabled(timed)
        if outcome is None:
            return
        if est is None:
            self.status.setText(f"<span style='color:{DOWN}'>Cannot estimate: "
                                f"{escape(outcome.error)}</span>")
        else:
            lines = [escape(f"{est.model.name} on {est.label}, {est.gpus:,} × {est.gpu.model}: "
                            f"{est.job.label()}")]
            if outcome.why:
                lines.append(escape(outcome.why))
            if est.timed_anyway:
                lines.append(f"<span style='color:{DOWN}'><b>Does not fit in memory:</b> the "
                             "times below are what it would take if it did</span>")
            lines += [f"<span style='color:{DOWN}'>{escape(m)}</span>" for m in est.messages]
            self.status.setText("<br>".join(lines))
        values = self._values(est)
        reference = outcome.intact if outcome.failed else self.baseline
        unlike = _unlike_jobs(est, reference) if not outcome.failed else ""
        if unlike:
            self.status.setText(self.status.text() + "<br>" + (
                f"<span style='color:{DOWN}'><b>Not like for like:</b> {unlike}: the "
                "changes below mix the hardware with the job (set the same to compare the "
                "hardware alone)</span>"))
        if outcome.failed:  # what-if: the same job on the intact design is the reference
            self.status.setText(self.status.text() + "<br>" + (
                f"<span style='color:{DOWN}'><b>What-if:</b> "
                f"{counted(len(outcome.failed), 'object')} "
                "failed; changes are against the intact design</span>"))
        base = self._values(reference)
        for key in FIGURES:
            text = values.get(key, ("–", None))[0]
            if key in base and key in values and values[key][1] and base[key][1]:
                ratio = values[key][1] / base[key][1] - 1
                better = ratio < 0 if key in ("step", "train", "energy", "memory") else ratio > 0
                color = TEXT_DIM if abs(ratio) < 0.005 else UP if better else DOWN
                text += f" <span style='color:{color}; font-size:8pt'>({ratio:+.0%})</span>"
            self.figure_labels[key].setText(text)
        spread = spread_line(est, _seconds) if timed and est is not None else ""
        if spread:
            self.status.setText(self.status.text()
                                + f"<br><span style='color:{TEXT_DIM}'>{spread}</span>")
        gemm = est.hardware.get("gemm_efficiency") if timed else None
        self.figure_labels["mfu"].setToolTip(
            plain("Model FLOPs per second / the GPU's dense peak."
                  + (f" The step's GEMMs run at {gemm:.0%} of peak on average (ceiling "
               f"{est.gpu.gemm_efficiency(est.job.precision):.0%}: small or "
               "heavily sharded GEMMs lose partial tiles and waves of SMs, thin ones wait on "
               "HBM; docs/workload.md)" if gemm else "")))
        rows = [(est, f"this design ({est.gpus} × {est.gpu.model})")] if timed else []
        if reference is not None and reference.step_time_s is not None:
            b = reference
            name = "intact design" if outcome.failed else "baseline"
            rows.append((b, f"{name} ({b.gpus} × {b.gpu.model})"))
        self.axis.labels = [label for _e, label in rows]
        self.axis.picture = None  # the tick positions may be the same: redraw their labels
        self.axis.update()
        bottom = [0.0] * len(rows)
        for key, _label, _color in PARTS:
            heights = [e.breakdown.get(key, 0.0) for e, _l in rows]
            self.bars[key].setOpts(x=list(range(len(rows))), height=heights, y0=list(bottom))
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
        self.plot.getPlotItem().setXRange(-0.6, max(1, len(rows)) - 0.4, padding=0)
        if bottom:
            self.plot.getPlotItem().setYRange(0, max(bottom) * 1.08, padding=0)

    @staticmethod
    def _values(est: Estimate | None) -> dict[str, tuple[str, float | None]]:
        if est is None:
            return {}
        mem = est.memory
        out = {"memory": (f"{mem.total_GB:,.0f} / {mem.usable_GB:,.0f} GB"
                          + ("" if mem.fits else " — does not fit"), mem.total_GB)}
        if est.step_time_s is None:
            return out
        d = est.to_dict()
        mark = " (does not fit)" if est.timed_anyway else ""
        out["step"] = (_seconds(est.step_time_s) + mark, est.step_time_s)
        out["tokens"] = (f"{d['tokens_per_s']:,.0f}", d["tokens_per_s"])
        out["mfu"] = (f"{est.mfu:.1%}", est.mfu)
        if d.get("time_to_train_days") is not None:
            out["train"] = (f"{d['time_to_train_days']:,.1f} days", d["time_to_train_days"])
        if d.get("energy_MWh") is not None:
            out["energy"] = (f"{d['energy_MWh']:,.0f} MWh", d["energy_MWh"])
        return out


def _unlike_jobs(est: Estimate | None, base: Estimate | None) -> str:
    """What differs between the job of `est` and the baseline's besides the hardware (model,
    batch, sequence, precision), in words; "" when they train the same thing."""
    if est is None or base is None:
        return ""
    parts = []
    if est.model.id != base.model.id:
        parts.append(f"the baseline trains {base.model.name}, this design {est.model.name}")
    for what, mine, theirs in (
            ("a batch of", est.job.gbs, base.job.gbs),
            ("sequences of", est.job.seq or est.model.seq_len, base.job.seq
             or base.model.seq_len),
            ("precision", est.job.precision, base.job.precision)):
        if mine != theirs:
            parts.append(f"{what} {theirs} in the baseline, {mine} here")
    return "; ".join(parts)
