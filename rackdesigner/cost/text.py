"""`rackdesigner cost` as text: the headline figures, breakdowns and what is unpriced."""

from __future__ import annotations

import io

from rackdesigner.cost.report import CostReport, format_money, headline
from rackdesigner.io.sanitize import shown as one_name
from rackdesigner.vocabulary.wording import counted


def format_count(value: float) -> str:
    """15T, 500B, 2.5M: token counts as people write them."""
    for unit, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:.3g}{unit}"
    return f"{value:g}"


def _pct(value: float) -> str:
    return f"{100 * value:.0f} %"


def format_report(report: CostReport, *, lines: bool = False) -> str:
    r = report
    b = r.book
    sym = b.symbol
    bound = not r.complete
    a = r.assumptions
    out = io.StringIO()
    w = out.write
    w(f"Cost of {one_name(r.design)} ({r.gpus:,} GPUs)\n")
    w(f"Prices:      {one_name(b.describe())}\n")
    w(f"Assumptions: {a.describe(sym)}\n\n")
    w(f"Capex        {r.headline()}\n")
    cap = r.capex
    parts = [f"hardware {format_money(cap.hardware, sym, bound=bound)}"]
    if cap.installation:
        parts.append(f"installation {format_money(cap.installation, sym)} "
                     f"({cap.racks} racks)")
    if cap.spares:
        parts.append(f"spares {format_money(cap.spares, sym)}")
    w(f"             {', '.join(parts)}\n")
    w(f"Energy       {r.energy_kwh_per_year / 1e3:,.0f} MWh/year, "
      f"{format_money(r.energy_per_year, sym)}/year ({a.power_basis} IT draw "
      f"{r.it_w / 1e3:,.1f} kW x {_pct(a.utilisation)} x PUE {a.pue:.3g})"
      f"{'' if r.power_complete else ' (lower bound: some devices have no power figure)'}\n")
    s = b.support_percent_per_year
    w("Support      " + (f"{format_money(r.support_per_year, sym, bound=bound)}/year "
                         f"({s.value:g} % of hardware)" if s is not None
                         else "not in the price book") + "\n")
    if r.facility is not None:
        w(f"Facility     {r.facility.describe(sym)}\n")
    w(f"PUE          {a.pue:.3g}: {a.pue_note.split('; ')[0]}\n")
    if a.capital_rate:
        w(f"Capital      {100 * a.capital_rate:g} %/year over {a.years:g} years: capex charged "
          f"as {format_money(r.capital_charge, sym, bound=bound)}\n")
    w(f"TCO          {format_money(r.tco, sym, bound=bound)} over {a.years:g} years\n")
    per = r.usd_per_gpu_hour
    w(f"Per GPU-hour {format_money(per, sym, bound=bound) if per is not None else '—'}\n")
    from rackdesigner.cost.rentbuy import rent_vs_buy

    rent = rent_vs_buy(r)
    if rent is not None:
        even = (f"owning breaks even after {rent.breakeven_months:,.0f} months"
                if rent.breakeven_months is not None
                else "owning never breaks even (renting costs less per month than running)")
        w(f"Rent         the same GPU-hours in the cloud: {format_money(rent.rent_total, sym)} "
          f"over {a.years:g} years at {sym}{rent.cloud_usd_per_gpu_hour:,.2f}/GPU-hour "
          f"({rent.basis}, {rent.date}); {even}\n")
    c = r.cooling
    over = ", ".join(c.racks_over_air_limit) or "none"
    cdus = ", ".join(c.cdus_over_capacity) or "none"
    w(f"Cooling      {c.liquid_w / 1e3:,.1f} kW to liquid, {c.air_w / 1e3:,.1f} kW to air; "
      f"racks over their air limit: {over}; CDUs over capacity: {cdus}\n")
    site = c.site.headline()
    if site:
        w(f"Site         {site}\n")
    if r.training is not None:
        t = r.training
        days = t.days()
        if days is None:
            w(f"Training     {t.model} on {t.gpus:,} GPUs: no step time "
              f"({'; '.join(t.messages) or 'the job does not fit'})\n")
        else:
            cost = r.cost_to_train()
            tpu = r.tokens_per_usd()
            ept = r.energy_per_token_j()
            w(f"Training     {t.model} on {t.gpus:,} GPUs, {format_count(t.tokens)} tokens: "
              f"{days:,.1f} days, "
              f"{format_money(cost, sym, bound=bound) if cost is not None else '—'}, "
              f"{tpu:,.0f} tokens/{sym.strip()}, {ept:.3g} J/token\n" if tpu and ept else "\n")
    total = cap.total or 1.0
    w("\nCapex by category\n")
    for name, value in cap.by_category().items():
        w(f"  {name:<12} {format_money(value, sym):>14}  {_pct(value / total):>5}\n")
    if cap.system_nics:
        net = cap.network_with_system_nics()
        w(f"  (network with the systems' own NICs and DPUs {format_money(net, sym)}, "
          f"{_pct(net / total).strip()})\n")
    if len(cap.by_group) > 1:
        w("\nCapex by group\n")
        shown = [(g, v) for g, v in cap.by_group.items() if v > 0]
        for g, value in sorted(shown, key=lambda kv: -kv[1])[:20]:
            w(f"  {one_name(cap.group_names.get(g, g))[:28]:<28} {format_money(value, sym):>14}  "
              f"{_pct(value / total):>5}\n")
    if cap.unpriced:
        w(f"\nWithout a price ({counted(cap.unpriced_items, 'item')})\n")
        for line in cap.unpriced:
            length = f" {line.length_m:g} m" if line.length_m is not None else ""
            w(f"  {line.count:>7,} x {one_name(line.model)}{length} ({line.kind}): "
              f"{one_name(line.reason)}\n")
    if lines:
        w("\nPriced lines\n")
        for line in cap.lines:
            if line.priced:
                length = f" {line.length_m:g} m" if line.length_m is not None else ""
                unit = format_money(line.unit or 0.0, sym)
                w(f"  {line.count:>7,} x {one_name(line.model)}{length} at {unit}"
                  f" = {format_money(line.total, sym)}  [{line.basis or 'price'}: {line.source},"
                  f" {line.date}]" + (f" — {line.method}" if line.method else "") + "\n")
    for note in r.notes:
        w(f"\nNote: {one_name(note)}\n")
    return out.getvalue()


__all__ = ["format_report", "headline"]
