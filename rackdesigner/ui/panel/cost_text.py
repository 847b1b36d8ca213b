"""The Cost tab's text builders: a cost's change against the baseline, the summary line, the
heat line and the headline tile — plain functions of a `CostReport`, so the tab
(ui/panel/cost_tab.py) keeps only its widgets and the panel reads the tile without the tab.
"""

from __future__ import annotations

from html import escape

from rackdesigner.cost import CostReport, format_money
from rackdesigner.ui.panel.figures import Figure
from rackdesigner.ui.panel.theme import DOWN, TEXT_DIM, UP
from rackdesigner.vocabulary.wording import counted


def change_text(now: float | None, base: float | None, symbol: str) -> tuple[str, bool | None]:
    """("+$1.20 M (+7 %)", better?) of a cost against the baseline's; ("", None) when equal."""
    if now is None or base is None or abs(now - base) <= 1e-9 * max(1.0, abs(base)):
        return "", None
    diff = now - base
    pct = f" ({diff / base * 100:+.0f} %)".replace("-", "−") if base else ""
    sign = "+" if diff > 0 else "−"
    return f"{sign}{format_money(abs(diff), symbol)}{pct}", diff < 0


def summary_html(r: CostReport, job_error: str, base: CostReport | None) -> str:
    """The tab's summary: capex, TCO, $/GPU-hour, energy and support, each with its change
    against the pinned baseline `base`; the cost to train the Workload tab's job under it."""
    sym = r.book.symbol
    bound = not r.complete

    def with_delta(now: float | None, then: float | None) -> str:
        if base is None:
            return ""
        text, good = change_text(now, then, sym)
        if not text:
            return f" <span style='color:{TEXT_DIM}'>(= baseline)</span>"
        return f" <span style='color:{UP if good else DOWN}'>{text} vs baseline</span>"

    per = r.usd_per_gpu_hour
    parts = [f"<b>Capex {escape(r.headline())}</b>"
             + with_delta(r.capex.total, base.capex.total if base else None),
             f"TCO {format_money(r.tco, sym, bound=bound)} over {r.assumptions.years:g} "
             "years" + with_delta(r.tco, base.tco if base else None),
             (f"{format_money(per, sym, bound=bound)} per GPU-hour" if per is not None
              else "no GPUs") + with_delta(per, base.usd_per_gpu_hour if base else None),
             f"energy {format_money(r.energy_per_year, sym)}/year "
             f"({r.energy_kwh_per_year / 1e3:,.0f} MWh at PUE {r.assumptions.pue:.3g})",
             f"support {format_money(r.support_per_year, sym, bound=bound)}/year"]
    text = " · ".join(parts)
    t = r.training
    if t is not None and t.days() is not None:
        cost = r.cost_to_train()
        text += (f"<br>Train {escape(t.model)} on {t.gpus:,} GPUs: {t.days():,.1f} days, "
                 f"{format_money(cost or 0.0, sym, bound=bound)}, "
                 f"{r.tokens_per_usd() or 0:,.0f} tokens per {sym.strip()}, "
                 f"{r.energy_per_token_j() or 0:.3g} J/token")
    elif job_error:
        text += f"<br><span style='color:{TEXT_DIM}'>Cost to train: {escape(job_error)}</span>"
    return text


def cooling_text(r: CostReport) -> str:
    """Heat to liquid and to air, racks over their air limit, CDUs over capacity, the site."""
    c = r.cooling
    text = (f"Heat: {c.liquid_w / 1e3:,.1f} kW to liquid, {c.air_w / 1e3:,.1f} kW to air")
    if c.racks_over_air_limit:
        text += f" · over their air limit: {', '.join(c.racks_over_air_limit)}"
    if c.cdus_over_capacity:
        text += f" · CDUs over capacity: {', '.join(c.cdus_over_capacity)}"
    site = c.site.headline()
    if site:
        text += f" · {site}"
    return text


def cost_figures(report: CostReport | None) -> list[Figure]:
    if report is None:
        return []
    sym = report.book.symbol
    bound = not report.complete
    per = report.usd_per_gpu_hour
    detail = (f"{format_money(per, sym, bound=bound)} / GPU-hour" if per is not None
              else f"TCO {format_money(report.tco, sym, bound=bound)}")
    unpriced = (f"; {counted(report.capex.unpriced_items, 'item')} without a price"
                if bound else "")
    return [Figure("capex", "Capex", report.capex.total,
                   format_money(report.capex.total, sym, bound=bound), detail, False,
                   f"Prices: {report.book.describe()}{unpriced}")]


__all__ = ["change_text", "cooling_text", "cost_figures", "summary_html"]
