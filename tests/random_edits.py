"""A randomized designer: random edits through the public commands API, with undo and redo.

Shared by `tests/test_history_random.py` (a few hundred steps per seed in CI) and
`benchmarks/apply_revert.py` (20,000 steps). Every step checks what a user relies on:

- a refused or failed edit leaves the saved bytes unchanged (and the exact state);
- a mirror built only from the change events equals the document (views stay right);
- at checkpoints, undo-all gives the starting bytes and the very starting state, redo-all the
  bytes and the exact state (links_of order included) of the checkpoint.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from rackdesigner.catalog import Catalog
from rackdesigner.commands import (
    History,
    MoveDevices,
    RemoveItems,
    add_model,
    change_device,
    change_group,
    change_link,
    extract,
    group_devices,
    paste,
    ungroup,
    wire,
)
from rackdesigner.io import dump_layout_text
from rackdesigner.model import (
    DeviceAdded,
    DeviceChanged,
    DeviceRemoved,
    GroupAdded,
    GroupChanged,
    GroupRemoved,
    Layout,
    LayoutError,
    LinkAdded,
    LinkChanged,
    LinkRemoved,
    MetaChanged,
)

MODELS = ("h100-sxm5", "nvswitch-gen3", "connectx-7", "qm9700", "rack-42u", "dgx-h100",
          "xeon-8480c", "pex88096")


class Mirror:
    """What a view knows: the document rebuilt from change events alone."""

    def __init__(self, layout: Layout) -> None:
        self.devices = {d.id: d for d in layout.devices()}
        self.links = {lk.id: lk for lk in layout.links()}
        self.links.update((lk.id, lk) for lk in layout.unresolved_links)
        self.groups = {g.id: g for g in layout.groups()}
        self.meta = layout.meta
        layout.subscribe(self.on_event)

    def on_event(self, event: object) -> None:
        if isinstance(event, DeviceAdded):
            assert event.device.id not in self.devices
            self.devices[event.device.id] = event.device
        elif isinstance(event, DeviceRemoved):
            del self.devices[event.device.id]
        elif isinstance(event, DeviceChanged):
            assert self.devices[event.old.id] == event.old
            self.devices[event.new.id] = event.new
        elif isinstance(event, LinkAdded):
            assert event.link.id not in self.links
            self.links[event.link.id] = event.link
        elif isinstance(event, LinkRemoved):
            del self.links[event.link.id]
        elif isinstance(event, LinkChanged):
            assert self.links[event.old.id] == event.old
            self.links[event.new.id] = event.new
        elif isinstance(event, GroupAdded):
            self.groups[event.group.id] = event.group
        elif isinstance(event, GroupRemoved):
            del self.groups[event.group.id]
        elif isinstance(event, GroupChanged):
            self.groups[event.new.id] = event.new
        elif isinstance(event, MetaChanged):
            self.meta = event.new

    def content(self) -> tuple:
        return (self.meta, self.devices, self.links, self.groups)


def observed(layout: Layout) -> tuple:
    """Everything order-sensitive a reader sees."""
    return ([d.id for d in layout.devices()], [lk.id for lk in layout.links()],
            [g.id for g in layout.groups()],
            {d.id: [lk.id for lk in layout.links_of(d.id)] for d in layout.devices()})


def recount(layout: Layout, device_id: str) -> dict[str, int]:
    """Port usage counted from scratch (the state keeps it incrementally)."""
    used: dict[str, int] = {}
    for link in layout.links_of(device_id):
        for end in (link.a, link.b):
            if end.device == device_id:
                used[end.group] = used.get(end.group, 0) + link.count
    return used


@dataclass
class Stats:
    applied: int = 0
    refused: int = 0
    unchanged: int = 0
    undos: int = 0
    redos: int = 0
    checkpoints: int = 0
    kinds: dict[str, int] = field(default_factory=dict)


class RandomDesigner:
    def __init__(self, catalog: Catalog, seed: int, check_every: int = 50,
                 max_devices: int = 250) -> None:
        self.rng = random.Random(seed)
        self.max_devices = max_devices
        self.layout = Layout(catalog)
        self.history = History(self.layout)
        self.mirror = Mirror(self.layout)
        self.check_every = check_every
        self.stats = Stats()
        for model in ("dgx-h100", "qm9700", "rack-42u"):  # something to wire from the start
            self.history.push(add_model(self.layout, model, (0.0, 0.0)))
        self.history.steps.clear()
        self.history.index = 0
        self.start_state = self.layout.state
        self.start_bytes = dump_layout_text(self.layout)

    # ---- random commands ------------------------------------------------------------------
    def _pick(self, items: list[str], k: int = 1) -> list[str]:
        return self.rng.sample(items, min(k, len(items))) if items else []

    def _command(self):
        rng, layout = self.rng, self.layout
        devices = [d.id for d in layout.devices()]
        links = [lk.id for lk in layout.links()]
        groups = [g.id for g in layout.groups()]
        choice = rng.randrange(15)
        if choice in (0, 10) and len(devices) > self.max_devices:
            choice = 3  # keep the design small enough that each step stays cheap
        if choice == 0:
            return "add", add_model(layout, rng.choice(MODELS),
                                    (rng.uniform(-500, 500), rng.uniform(-500, 500)))
        if choice in (1, 2) and len(devices) >= 2:
            a, b = self._pick(devices, 2)
            command = wire(layout, a, b)
            return ("wire", command) if not hasattr(command, "reason") else ("noop", None)
        if choice == 3:
            return "remove", RemoveItems(self._pick(devices, rng.randint(0, 3)),
                                         self._pick(links, rng.randint(0, 3)),
                                         self._pick(groups, rng.randint(0, 1)))
        if choice == 4:
            moves = {d: (layout.device(d).pos, (rng.uniform(-900, 900), rng.uniform(-900, 900)))
                     for d in self._pick(devices, rng.randint(1, 5))}
            if moves and rng.random() < 0.2:  # a move naming a missing device: refused
                moves["ghost-1"] = ((0.0, 0.0), (1.0, 1.0))
            return "move", MoveDevices(moves, nudge=rng.random() < 0.3)
        if choice == 5 and devices:
            return "rename", change_device(rng.choice(devices), name=f"n{rng.randrange(99)}")
        if choice == 6 and links:  # counts 0 are refused
            return "count", change_link(rng.choice(links), count=rng.randint(0, 4))
        if choice == 7 and devices:
            rack = rng.choice(devices)
            return "rack", change_device(rng.choice(devices), rack=rack, u=rng.randint(1, 40))
        if choice == 8 and devices:
            return "group", group_devices(layout, self._pick(devices, rng.randint(1, 4)))
        if choice == 9 and groups:
            return "ungroup", ungroup(layout, rng.choice(groups))
        if choice == 10 and devices:
            clip = extract(layout, self._pick(devices, rng.randint(1, 6)))
            return "paste", paste(layout, clip, (40.0, 40.0))
        if choice == 11 and groups:
            return "collapse", change_group(rng.choice(groups), collapsed=rng.random() < 0.5,
                                            parent=rng.choice([None, *groups]))
        if choice == 12:  # refused: a missing device, an unknown field
            if rng.random() < 0.5:
                return "missing", change_device("ghost-2", name="x")
            if devices:
                return "badfield", change_device(rng.choice(devices), colour="red")
        if choice == 13 and devices:
            return "regroup", change_device(rng.choice(devices), group=rng.choice([None, *groups]))
        if choice == 14 and links:  # another cable or length: the same ports (a mount's cables)
            cables = [None, *sorted(s.id for s in layout.catalog.of_kind("cable", "transceiver"))]
            return "cable", change_link(rng.choice(links), cable=rng.choice(cables),
                                        length_m=rng.choice([None, 0.5, 3.0, 40.0]))
        return "noop", None

    # ---- steps ----------------------------------------------------------------------------
    def step(self) -> None:
        rng = self.rng
        roll = rng.random()
        if roll < 0.12:
            for _ in range(rng.randint(1, 3)):
                self.stats.undos += self.history.undo()
            if rng.random() < 0.5:  # changed their mind: redo some of it
                for _ in range(rng.randint(1, 3)):
                    self.stats.redos += self.history.redo()
        elif roll < 0.22:
            for _ in range(rng.randint(1, 3)):
                self.stats.redos += self.history.redo()
        else:
            kind, command = self._command()
            self.stats.kinds[kind] = self.stats.kinds.get(kind, 0) + 1
            if command is not None:
                self._push(command)
        assert self.mirror.content() == self.layout.content(), "a view missed a change"
        for device in self._pick([d.id for d in self.layout.devices()], 3):
            assert self.layout.index().port_usage(device) == recount(self.layout, device)

    def _push(self, command) -> None:
        before_state = self.layout.state
        before_bytes = dump_layout_text(self.layout)
        try:
            changed = self.history.push(command)
        except LayoutError:
            self.stats.refused += 1
            assert self.layout.state is before_state, f"refused {command!r} changed the state"
            assert dump_layout_text(self.layout) == before_bytes
            return
        if changed:
            self.stats.applied += 1
        else:
            self.stats.unchanged += 1
            assert self.layout.state is before_state

    def checkpoint(self) -> None:
        """Undo everything, compare with the start; redo everything, compare with now."""
        self.stats.checkpoints += 1
        here_state, here_bytes = self.layout.state, dump_layout_text(self.layout)
        here_order = observed(self.layout)
        applied = self.history.index
        while self.history.undo():
            pass
        assert self.layout.state is self.start_state
        assert dump_layout_text(self.layout) == self.start_bytes
        for _ in range(applied):
            self.history.redo()
        assert self.layout.state is here_state
        assert dump_layout_text(self.layout) == here_bytes
        assert observed(self.layout) == here_order
        assert self.mirror.content() == self.layout.content()

    def run(self, steps: int) -> Stats:
        for n in range(1, steps + 1):
            self.step()
            if n % self.check_every == 0:
                self.checkpoint()
        self.checkpoint()
        return self.stats
