"""Design rules: findings about a layout, never refusals.

`check_layout(layout)` returns `Finding`s (severity, message, the ids involved). Files with
errors still load; the GUI lists findings in the Problems dock and `rackdesigner validate` prints
them. Every rule is linear in the size of the design (no pairwise GPU checks). Port usage,
NVLink domains, NIC reach and reachability come from the design's derived index
(`model/index.py`), which the canvas, the Inspector and the simulation read too; rack occupancy
by mounted unit (whole systems, faces) from `model/racks.py`, which the Racks tab draws from.

The rules come in families, one module each: what a finding is (`rule_finding.py`), links and
ports (`rules_links.py`), racks (`rules_racks.py`), cooling and site (`rules_cooling.py`); this
module keeps the model, NIC-reach and reachability rules and runs them all. Every name is still
imported from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rackdesigner import vocabulary
from rackdesigner.model.layout import Layout
from rackdesigner.model.racks import RackIndex
from rackdesigner.model.rule_finding import ERROR, WARNING, Finding, _Specs, has_errors
from rackdesigner.model.rules_cooling import check_cooling
from rackdesigner.model.rules_links import (
    _all_links_checked,
    _check_links,
    _check_pair,
    _exhausted,
    _link_findings,
    _port_group,
    check_exhausted,
    check_links_of,
    check_unresolved,
)
from rackdesigner.model.rules_racks import _anchors, _check_racks, _in_rack_group, _rack_groups
from rackdesigner.vocabulary.wording import counted

if TYPE_CHECKING:
    from rackdesigner.model.cooling import CoolingReport

__all__ = ["ERROR", "HOST_PROTOCOLS", "MAX_LISTED", "USER_MODEL_HINT", "WARNING", "Finding",
           "RuleParts", "_Specs", "_all_links_checked", "_anchors", "_check_links",
           "_check_models", "_check_nic_reach", "_check_pair", "_check_racks",
           "_check_reachability", "_exhausted", "_in_rack_group", "_link_findings",
           "_port_group", "_rack_groups", "check_cooling", "check_exhausted", "check_layout",
           "check_links_of", "check_parts", "check_racks", "check_unresolved", "has_errors",
           "nvlink_domains"]

HOST_PROTOCOLS = vocabulary.protocols_of("host")


def check_layout(layout: Layout) -> list[Finding]:
    """All findings for `layout`, errors first, then in object order.

    A pass over the whole design: on a large one, callers that can afford it hold the garbage
    collector off meanwhile (`model/gcpause.py`; the CLI, the designer's workers)."""
    return check_parts(layout).findings()


@dataclass
class RuleParts:
    """The findings of each rule group, and of each link and over-wired port group: what an
    edit's re-check starts from (`model/findings.py` re-checks only what the edit touched)."""

    models: list[Finding]
    links: list[Finding]
    racks: list[Finding]
    cooling: list[Finding]
    nic_reach: list[Finding]
    reachability: list[Finding]
    by_link: dict[str, list[Finding]]  # link id -> its findings (those with any)
    exhausted: dict[tuple[str, str], Finding]  # (device, port group) -> ports-exhausted

    def findings(self) -> list[Finding]:
        """All findings: errors first, then by rule group and object order."""
        out = [*self.models, *self.links, *self.racks, *self.cooling, *self.nic_reach,
               *self.reachability]
        out.sort(key=lambda f: 0 if f.severity == ERROR else 1)
        return out


def check_parts(layout: Layout) -> RuleParts:
    """Every rule over the whole design, kept by rule group (see `RuleParts`)."""
    from rackdesigner.model.racks_evolve import rack_index

    specs = _Specs(layout)
    by_link: dict[str, list[Finding]] = {}
    exhausted: dict[tuple[str, str], Finding] = {}
    racks = rack_index(layout)  # one per state, shared with the Racks tab and cooling
    return RuleParts(_check_models(layout, specs),
                     _check_links(layout, specs, by_link, exhausted),
                     _check_racks(layout, specs, racks), check_cooling(layout, racks),
                     _check_nic_reach(layout, specs), _check_reachability(layout),
                     by_link, exhausted)


def check_racks(layout: Layout, index: RackIndex | None = None,
                cooling: CoolingReport | None = None) -> list[Finding]:
    """Only the rack rules (slots, power, load, cooling, CDUs, site): what the racks view marks
    (which passes the `RackIndex` it drew from and the `CoolingReport` it draws, so nothing is
    computed twice)."""
    index = index or RackIndex(layout)
    return _check_racks(layout, _Specs(layout), index) + check_cooling(layout, index, cooling)



#: as it is; the CLI adds its options: cli/validate_cmd.py).
USER_MODEL_HINT = ("; if it is someone's own model, add their catalog folder or open a copy of "
                   "the design packed with its models (docs/interop.md)")


def _check_models(layout: Layout, specs: _Specs) -> list[Finding]:
    out = []
    explained: set[str] = set()
    table = specs.index.link_table()
    devices = (layout.devices() if table is None  # a large design: its unknown ones only
               else (layout.device(table.ids[i]) for i in table.unknown_devices()))
    for device in devices:
        if specs(device.id) is None:
            try:
                layout.catalog.get(device.model)
                hint = ""
            except KeyError as exc:
                hint = str(exc.args[0]) if exc.args else ""
            if device.model not in explained and "did you mean" not in hint:
                explained.add(device.model)
                hint = (hint or f"unknown model {device.model}") + USER_MODEL_HINT
            out.append(Finding(ERROR, "unknown-model",
                               f"device {device.id}: {hint or 'unknown model ' + device.model}",
                               (device.id,)))
    return out



def nvlink_domains(layout: Layout) -> list[set[str]]:
    """GPU sets joined by NVLink (directly or through NVSwitches), largest first."""
    return layout.index().nvlink_domains()


def _check_nic_reach(layout: Layout, specs: _Specs) -> list[Finding]:
    index = specs.index
    domains = index.nvlink_domains()
    if len(domains) <= 1:
        return []
    reached = index.nic_reach()
    out = []
    for domain in domains:
        missing = sorted(g for g in domain if g not in reached)
        if not missing:
            continue
        if len(missing) == len(domain):
            for gpu in missing:
                out.append(Finding(ERROR, "gpu-no-nic",
                                   f"GPU {gpu} has no path to a NIC, and neither has any GPU of "
                                   f"its NVLink domain: it cannot reach the other "
                                   f"{counted(len(domains) - 1, 'NVLink domain')}", (gpu,)))
        else:
            for gpu in missing:
                out.append(Finding(WARNING, "gpu-no-nic",
                                   f"GPU {gpu} has no PCIe/C2C path to a NIC; it reaches other "
                                   f"domains only through an NVLink peer's NIC", (gpu,)))
    return out


MAX_LISTED = 20


def _check_reachability(layout: Layout) -> list[Finding]:
    """The design is partitioned: the same finding (and sentence) the simulation reports."""
    reach = layout.index().reachability()
    if not reach.partitioned:
        return []
    return [Finding(ERROR, "gpus-unreachable",
                    f"{reach.describe()}; the figures cover the largest group of "
                    f"{len(reach.reachable)} GPUs", reach.unreachable[:MAX_LISTED])]
