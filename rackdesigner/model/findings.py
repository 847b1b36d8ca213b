"""The design rules' findings of a state, kept per state and re-checked by what an edit touched.

`check_layout` reads the whole design (3-4 s at 32k GPUs). Two things make that unnecessary
after an edit:

- No rule reads a device's position on the canvas or any status: after a move, a Fail, a
  Restore or their Undo the findings are those of the state before. Such a state takes a hint
  from its predecessor (`DesignState.take_index_hint`) and gets the same list.
- Every other edit changes a few objects, and the rules are per object: a link's own checks
  read that link and its two devices' models; the ports it takes are checked against the other
  links on the same port groups; an over-wired port group is one (device, group); the rules
  over islands and reachability read the derived index, itself updated by the edit
  (`model/index_evolve.py`). So `findings(layout)` takes the findings of the nearest earlier
  state that has them (`DesignState.edit_base`) and checks again only: the links that changed,
  the links of devices whose model changed, the other links on the port groups they touch
  (their port conflicts), those port groups' counts, the device models if a device of unknown
  model came or went, and the index-based rules; the rack and cooling rules are checked again
  whenever devices, links or groups changed, from the state's `RackIndex`, itself evolved by
  the edit (`model/racks_evolve.py`: units and power per rack, the racks touched only).

The result is the list `check_layout` gives, in the same order (tests/test_findings.py
checks it after random edits). The Problems dock's last result holds the findings alive, so
the next edit's re-check finds them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from rackdesigner.model.layout import Layout
from rackdesigner.model.racks_evolve import rack_index
from rackdesigner.model.rules import (
    Finding,
    RuleParts,
    _check_models,
    _check_nic_reach,
    _check_racks,
    _check_reachability,
    _Specs,
    check_cooling,
    check_exhausted,
    check_layout,
    check_links_of,
    check_parts,
    check_unresolved,
)
from rackdesigner.model.state import DesignState

Check = Callable[[Layout], list[Finding]]


class Findings(list):
    """The findings of one state, errors first (a list a state can refer to weakly), with
    what they were assembled from (`parts`) and the state they are of."""

    parts: RuleParts | None = None
    state: DesignState | None = None


def findings(layout: Layout, check: Check = check_layout, *, fresh: bool = False) -> Findings:
    """`check(layout)` for the layout's current state, computed once per state and shared by
    every state that differs from it by positions and statuses only, re-checked by what an
    edit touched when an earlier state's findings are known (see the module docstring);
    `fresh` checks the whole design again."""

    def build(state: DesignState, hint: tuple | None) -> Findings:
        if not fresh and hint is not None and hint[0] == "like":
            return hint[1]
        if check is not check_layout:  # a replaced check (tests): no parts to start from
            return Findings(check(layout))
        # the earlier state's index and racks, held while this one's are derived from them
        # (the Layout lets go of a state's values once it holds the next state's)
        pinned = [state.edit_base(key) for key in ("index", "racks")]  # noqa: F841
        found = None if fresh else state.edit_base("findings")
        if found is not None and found[0].parts is not None and found[0].state is not None:
            parts = recheck(layout, found[0].parts, found[0].state, found[1])
        else:
            parts = check_parts(layout)
            _map_positions(state)
        out = Findings(parts.findings())
        out.parts, out.state = parts, state
        return out

    if fresh:
        layout.state.memo.pop("findings", None)
        layout.state.memo.pop("findings_like", None)
    return layout.derived("findings", build)


@dataclass
class _Edit:
    devices: set[str]  # present in either state and differing (positions, statuses aside)
    models: set[str]  # ... whose model changed, came or went
    links: set[str]  # links that came, went or changed (statuses aside)
    groups: bool  # a group came, went or changed (but for folding and status)
    unresolved: bool  # an unresolved link came or went
    meta: bool
    rewired: set[str] = field(default_factory=set)  # ... of those: came, went, or changed
    # ends or count (not only cable or length: the ports it takes are the same)


def _edit(before: DesignState, after: DesignState, touched: dict[str, set]) -> _Edit:
    out = _Edit(set(), set(), set(), False, bool(touched["u"]), bool(touched["m"]))
    for device_id in touched["d"]:
        a, b = before.devices.get(device_id), after.devices.get(device_id)
        if a == b or (a is not None and b is not None
                      and replace(a, pos=b.pos, status=b.status) == b):
            continue
        out.devices.add(device_id)
        if a is None or b is None or a.model != b.model:
            out.models.add(device_id)
    for link_id in touched["l"]:
        a, b = before.links.get(link_id), after.links.get(link_id)
        if a == b or (a is not None and b is not None and replace(a, status=b.status) == b):
            if before.unresolved.get(link_id) != after.unresolved.get(link_id):
                out.unresolved = True
            continue
        out.links.add(link_id)
        if a is None or b is None or (a.a, a.b, a.count) != (b.a, b.b, b.count):
            out.rewired.add(link_id)
    for group_id in touched["g"]:
        a, b = before.groups.get(group_id), after.groups.get(group_id)
        if a != b and (a is None or b is None
                       or replace(a, collapsed=b.collapsed, status=b.status) != b):
            out.groups = True
    return out


def recheck(layout: Layout, base: RuleParts, before: DesignState,
            touched: dict[str, set]) -> RuleParts:
    """The rule parts of `layout`'s state from those of `before` (an earlier state) and the
    objects `touched` since (see the module docstring)."""
    after = layout.state
    edit = _edit(before, after, touched)
    specs = _Specs(layout)
    index = specs.index
    models = base.models
    if any(index.spec(d) is None for d in edit.models if d in after.devices) or any(
            d in before.devices and _unknown(layout, before.devices[d].model)
            for d in edit.models):
        models = _check_models(layout, specs)
    links, by_link, exhausted = _recheck_links(layout, specs, base, before, edit)
    if edit.devices or edit.links or edit.groups or edit.meta:
        rack = rack_index(layout)  # evolved from the earlier state's by the same edit
        racks, cooling = _check_racks(layout, specs, rack), check_cooling(layout, rack)
    else:
        racks, cooling = base.racks, base.cooling
    # islands, NIC reach and reachability follow the wiring and the devices' models only (a
    # Racks-tab mount moves a unit and lets its cables follow: neither)
    structural = bool(edit.models or edit.rewired)
    nic_reach = _check_nic_reach(layout, specs) if structural else base.nic_reach
    reach = _check_reachability(layout) if structural else base.reachability
    return RuleParts(models, links, racks, cooling, nic_reach, reach, by_link, exhausted)


def _unknown(layout: Layout, model: str) -> bool:
    return model not in layout.catalog


def _recheck_links(layout: Layout, specs: _Specs, base: RuleParts, before: DesignState,
                   edit: _Edit) -> tuple[list[Finding], dict, dict]:
    after = layout.state
    if not edit.links and not edit.models and not edit.unresolved and not edit.devices:
        return base.links, base.by_link, base.exhausted
    # the port groups whose links or counts may have changed: both ends of every rewired
    # link, in both states, and every group of a device whose model changed (a link whose
    # cable or length alone changed takes the same ports: only its own checks change)
    pairs: set[tuple[str, str]] = set()
    for state in (before, after):
        for link_id in edit.rewired:
            link = state.links.get(link_id)
            if link is not None:
                pairs.add((link.a.device, link.a.group))
                pairs.add((link.b.device, link.b.group))
        for device_id in edit.models:
            for link_id in state.link_ids_of(device_id):
                link = state.links[link_id]
                pairs.add((link.a.device, link.a.group))
                pairs.add((link.b.device, link.b.group))
    # links whose own findings may differ, and every link sharing a port group with them
    # (to know which ports were taken before each of them)
    again = {i for i in edit.links if i in after.links}
    for device_id in edit.models:
        again.update(after.link_ids_of(device_id))
    again.update(_links_on(after, pairs))
    ends: set[tuple[str, str]] = set()
    for link_id in again:
        link = after.links[link_id]
        ends.add((link.a.device, link.a.group))
        ends.add((link.b.device, link.b.group))
    seen = again | _links_on(after, ends)
    position = after.link_order.position
    ordered = [after.links[i] for i in sorted(seen, key=position)]
    found: dict[str, list[Finding]] = {}
    check_links_of(ordered, specs, {}, found)
    by_link = {k: v for k, v in base.by_link.items()
               if k not in again and k not in edit.links and k in after.links}
    for link_id in again:
        if link_id in found:
            by_link[link_id] = found[link_id]
    exhausted = {k: v for k, v in base.exhausted.items()
                 if k not in pairs and k[0] in after.devices}
    for device_id, group in pairs:
        if device_id in after.devices:
            finding = check_exhausted(layout, specs, device_id, group)
            if finding is not None:
                exhausted[(device_id, group)] = finding
    unresolved = check_unresolved(layout)
    out = list(unresolved)
    for link_id in sorted(by_link, key=position):
        out += by_link[link_id]
    out += [exhausted[k] for k in sorted(exhausted, key=lambda k: _use_order(after, k))]
    return out, by_link, exhausted


def _links_on(state: DesignState, pairs: set[tuple[str, str]]) -> set[str]:
    """Ids of the links with an end on one of the (device, port group) `pairs`."""
    out: set[str] = set()
    links = state.links
    for device_id in {d for d, _ in pairs}:
        groups = {g for d, g in pairs if d == device_id}
        for link_id in state.link_ids_of(device_id):
            link = links[link_id]
            if (link.a.device == device_id and link.a.group in groups) or (
                    link.b.device == device_id and link.b.group in groups):
                out.add(link_id)
    return out


def _map_positions(state: DesignState) -> None:
    """Map the state's orders' positions here, on the checking worker: an order read from a
    file maps them only when first asked (`Order.position`), and the re-checks after the next
    edits (and the Racks tab) sort what they touched by position (0.3 s at 32k GPUs)."""
    for order in (state.device_order, state.link_order):
        first = next(iter(order), None)
        if first is not None:
            order.position(first)


def _use_order(state: DesignState, pair: tuple[str, str]) -> tuple[int, int]:
    """Where `DesignIndex.exhausted_ports` lists (device, group): by device, then as the
    state keeps the device's port usage."""
    device_id, group = pair
    groups = [name for name, _ in state.port_use.get(device_id, ())]
    return (state.device_order.position(device_id),
            groups.index(group) if group in groups else len(groups))
