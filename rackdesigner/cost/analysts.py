"""The cost model beside published analyst figures (issue #35): $/GPU-hour, its ratios across
GPU generations and the network's share of capex, for the generated reference designs priced
with a book (the bundled example book by default).

Every published figure here carries its source, date and what it counts; the tool's figure is
computed the way the source counts (`Published.years` and `facility`: a 3-year payback without
the building, or the default 5 years with it). `rows()` sets them side by side, `markdown()`
writes the table `docs/cost.md` shows (`python docs/cost_example.py` regenerates it), and
`tests/test_cost_analysts.py` checks that each lies within `BAND` of its published figure,
or, where the tool counts less than the source (`scope`), below it for the reason stated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: how far the tool may lie from a published figure (issue #35's done-when: within 25 %)
BAND = 0.25

#: the reference designs the figures are taken on: (label, generate template, options)
DESIGNS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "h100": ("DGX H100, 4 SU", "superpod", {"system": "dgx-h100", "sus": 4}),
    "h200": ("DGX H200, 1 SU", "superpod", {"system": "dgx-h200", "sus": 1}),
    "b200": ("DGX B200, 1 SU", "superpod", {"system": "dgx-b200", "sus": 1}),
    "gb200": ("GB200 NVL72, 8 racks", "superpod", {"system": "gb200-nvl72", "racks": 8}),
}
#: the fabrics beside the compute fabric the generator draws for each design (`superpod
#: --fabrics`, generators/sidefabrics.py): what the network-share rows compare, since the
#: published splits count every network of the cluster
FULL_RA: dict[str, str] = {"h100": "compute,storage,oob", "h200": "compute,storage,oob",
                           "b200": "compute,storage,oob", "gb200": "compute,storage,oob"}

@dataclass(frozen=True, slots=True)
class Published:
    """One published figure: `metric` of `designs` (one design, or a ratio of two)."""

    metric: str  # usd_per_gpu_hour | ratio | network_share | network_share_beyond_systems
    designs: tuple[str, ...]
    value: float
    source: str  # who, what, date
    url: str
    counts: str  # what the figure counts, in the source's own terms
    years: float = 5.0
    facility: str | None = None  # None: the book's default; "none": without the building
    scope: str = ""  # set when the tool counts less than the source: why it lies below
    full_ra: bool = False  # taken on the designs with the fabrics of `FULL_RA` drawn


NESOV = ("V. Nesov, LessWrong shortform comment, 2025",
         "https://www.greaterwrong.com/posts/NBEmGx3djmSXawp3H/no77e-s-shortform/comment/"
         "5QKKfBJSbAykKegWo")
AIINFRAMAP = ("aiinframap, 'H100 vs H200 vs B200 TCO' (mid-2026 street prices: H100 $30k, "
              "H200 $35k, B200 $40k per GPU; 5 years of acquisition and power)",
              "https://www.aiinframap.com/tools/chips/h100-vs-h200-vs-b200-tco")
SEMIANALYSIS = ("SemiAnalysis, 'H100 vs GB200 NVL72 Training Benchmarks', 2025-08-20: the "
                "GB200 NVL72 needs 1.6x the H100's performance to break even on TCO",
                "https://newsletter.semianalysis.com/p/h100-vs-gb200-nvl72-training-benchmarks")
EPOCH = ("Epoch AI, training-cost-trends: CLUSTER_INTERCONNECT_COST_FRACTION = 0.19 of the "
         "total cluster cost, applied as servers' acquisition price x 1/(1 - 0.19) "
         "(cost_estimation.py; read 2026-04 and 2026-12)",
         "https://github.com/epoch-research/training-cost-trends")
AMCOMPUTE = ("AMCompute, 'GPU Cluster Networking 101' (2026): networking runs ~20 % of total "
             "cluster cost, from bills of materials of 16- to 24,576-GPU clusters, training, "
             "storage and management networks together", "https://amcompute.com/blog/gpu-cluster-networking")

_FABRICS = ("the network-share rows are taken on the designs with every fabric the generator "
            "can draw (`superpod --fabrics`: storage fabric and out-of-band access layer on DGX "
            "H100, H200 and B200; on GB200 NVL72 the Ethernet storage fabric and two SN2201 "
            "per rack for the trays' BMC and the switch trays' COM Express ports); the in-band "
            "management network, management servers and the out-of-band core are still not "
            "drawn; the storage appliances are priced (derived, at a model-assumption "
            "capacity) and in the total")

PUBLISHED: tuple[Published, ...] = (
    Published("usd_per_gpu_hour", ("h100",), 2.3, *NESOV,
              "~$50k all-in capital per H100 incl. networking, paid back in 3 years, ~20 % a "
              "year operating cost, buildings excluded", years=3, facility="none"),
    Published("usd_per_gpu_hour", ("gb200",), 3.2, *NESOV,
              "the same method at ~$5 M per NVL72 rack all-in ($70k per GPU) with external "
              "networking", years=3, facility="none"),
    Published("ratio", ("h200", "h100"), 37.95 / 32.83, *AIINFRAMAP,
              "5-year TCO, H200 over H100"),
    Published("ratio", ("b200", "h100"), 43.97 / 32.83, *AIINFRAMAP,
              "5-year TCO per GPU, B200 over H100; networking left out"),
    Published("ratio", ("gb200", "h100"), 3.2 / 2.3, *NESOV, "the two figures above"),
    Published("ratio", ("gb200", "h100"), 1.6, *SEMIANALYSIS,
              "TCO per GPU, GB200 NVL72 over H100 (reliability included)"),
    Published("ratio", ("gb200", "b200"), 1.6 / (43.97 / 32.83),
              "SemiAnalysis 2025-08-20 (GB200/H100 1.6) over aiinframap (B200/H100 1.34)",
              SEMIANALYSIS[1], "a ratio of the two published ratios"),
    *(Published("network_share_beyond_systems", (d,), 0.19, *EPOCH,
                "the cluster interconnect over servers plus interconnect: Epoch's code adds it "
                "as a markup of 1/(1 - 0.19) on the servers' price (their NICs inside), with "
                "no storage, racks or building, so set beside the network beyond the systems "
                "over systems plus that network; what the 19 % is made of is not published",
                scope=_FABRICS, full_ra=True)
      for d in DESIGNS),
    *(Published("network_share", (d,), 0.20, *AMCOMPUTE,
                "every network of the cluster (NICs, switches, optics, cables) over its "
                "hardware", scope=_FABRICS, full_ra=True)
      for d in DESIGNS),
)


@dataclass(frozen=True, slots=True)
class Row:
    published: Published
    tool: float

    @property
    def difference(self) -> float:
        """Tool over published, minus one (+0.05: the tool 5 % above)."""
        return self.tool / self.published.value - 1.0

    @property
    def within(self) -> bool:
        return abs(self.difference) <= BAND


def _reports(book: Any, years: float, facility: str | None,
             full_ra: bool = False) -> dict[str, Any]:
    from rackdesigner.cost.assumptions import Assumptions
    from rackdesigner.cost.report import design_cost
    from rackdesigner.generators import default_catalog, generate

    catalog = default_catalog()
    a = Assumptions(years=years, facility=facility)
    return {key: design_cost(generate(template, catalog, **options,
                                      **({"fabrics": FULL_RA[key]} if full_ra else {})), book, a)
            for key, (_label, template, options) in DESIGNS.items()}


def rows(book: Any) -> list[Row]:
    """Every published figure beside the tool's, priced from `book`."""
    cache: dict[tuple[float, str | None, bool], dict[str, Any]] = {}
    out = []
    for p in PUBLISHED:
        key = (p.years, p.facility, p.full_ra)
        if key not in cache:
            cache[key] = _reports(book, *key)
        reports = cache[key]
        if p.metric == "usd_per_gpu_hour":
            tool = reports[p.designs[0]].usd_per_gpu_hour
        elif p.metric == "ratio":
            a, b = (reports[d].usd_per_gpu_hour for d in p.designs)
            tool = a / b
        elif p.metric == "network_share":
            cap = reports[p.designs[0]].capex
            tool = cap.network_with_system_nics() / cap.total
        else:  # Epoch's definition: interconnect over servers + interconnect
            by = reports[p.designs[0]].capex.by_category()
            tool = by["network"] / (by["compute"] + by["network"])
        out.append(Row(p, tool))
    return out


def _name(p: Published) -> str:
    names = [DESIGNS[d][0].split(",")[0] for d in p.designs]
    if p.metric == "ratio":
        return " / ".join(n.replace("DGX ", "").replace(" NVL72", "") for n in names)
    name = DESIGNS[p.designs[0]][0]
    if p.full_ra and FULL_RA[p.designs[0]] != "compute":
        name += f" (`--fabrics {FULL_RA[p.designs[0]]}`)"
    return name


def markdown(table: list[Row]) -> str:
    """The side-by-side tables of `docs/cost.md`, sources numbered below them."""
    sources: list[tuple[str, str]] = []

    def cite(p: Published) -> int:
        if (p.source, p.url) not in sources:
            sources.append((p.source, p.url))
        return sources.index((p.source, p.url)) + 1

    out = []
    for metric, title, fmt in (
            ("usd_per_gpu_hour", "$ per GPU-hour (owner's TCO)", "${:.2f}"),
            ("ratio", "$ per GPU-hour across generations (5 years, defaults)", "{:.2f}"),
            ("network_share", "The network's share of hardware capex (JSON "
             "`network_with_system_nics.share`: the systems' own NICs and DPUs counted as "
             "network)", "{:.1%}"),
            ("network_share_beyond_systems", "The network beyond the systems' own NICs over "
             "systems plus that network, Epoch's definition (JSON `by_category`: network / "
             "(compute + network))", "{:.1%}")):
        out += [f"**{title}**", "", "| design | tool | published | difference | what the "
                "published figure counts [source] |", "|---|---|---|---|---|"]
        for r in (r for r in table if r.published.metric == metric):
            p = r.published
            how = "" if p.years == 5 and p.facility is None else \
                f" ({p.years:g} years, {'no building' if p.facility == 'none' else p.facility})"
            out.append(f"| {_name(p)}{how} | {fmt.format(r.tool)} | {fmt.format(p.value)} | "
                       f"{r.difference:+.0%} | {p.counts} [{cite(p)}] |")
        out.append("")
    scopes = sorted({r.published.scope for r in table if r.published.scope})
    out += [f"Where the tool counts less than the source: {s}." for s in scopes]
    out += ["", "Sources:", ""]
    out += [f"{i}. [{s}]({u})" for i, (s, u) in enumerate(sources, 1)]
    return "\n".join(out) + "\n"


def per_gpu_markdown(book: Any) -> str:
    """Where each design's $/GPU-hour comes from, per GPU (5 years, the book's defaults)."""
    out = ["**Per GPU** (5 years, defaults): what the $/GPU-hour above is made of", "",
           "| design | capex | of it network (with the systems' NICs) | building (capex) | "
           "energy a year | IT kW (max) | PUE | $/GPU-hour |", "|---|---|---|---|---|---|---|---|"]
    for key, r in _reports(book, 5.0, None).items():
        g = r.gpus or 1
        c = r.capex
        building = r.facility.capex if r.facility is not None and r.facility.capex else 0.0
        out.append(f"| {DESIGNS[key][0]} | ${c.total / g:,.0f} | "
                   f"${c.network_with_system_nics() / g:,.0f} | ${building / g:,.0f} | "
                   f"${r.energy_per_year / g:,.0f} | {r.it_max_w / g / 1000:.2f} | "
                   f"{r.assumptions.pue:.2f} | ${r.usd_per_gpu_hour:.2f} |")
    return "\n".join(out) + "\n"


__all__ = ["BAND", "DESIGNS", "FULL_RA", "PUBLISHED", "Published", "Row", "markdown",
           "per_gpu_markdown", "rows"]
