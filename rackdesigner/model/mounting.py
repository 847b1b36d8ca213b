"""Which device is mounted in which: a device's `rack` never leads back to itself.

A rack mounted in itself (`rack-1` with `rack: rack-1`) or two racks in each other (`rack-1` in
`rack-2`, `rack-2` in `rack-1`) is no arrangement anything can build; the racks view and the
floor plan walked such chains without end or drew nonsense. The mutators (`Layout.add_device`,
`update_device`, `add_all`) and so the file readers (through `add_all`'s `on_error`, which
locates the refusal at the device's line) refuse it with the one message made here.

A device whose `rack` names no device is not refused (the design rules report it): only a
chain of devices that closes on itself is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rackdesigner.model.items import Device

RackOf = Callable[[str], "str | None"]


def mount_cycle(start: str, rack_of: RackOf) -> tuple[str, ...] | None:
    """The devices of a mounting chain from `start` that comes back to `start` (`start`
    first), or None. `rack_of(id)` is the `rack` of the device with that id (None when it has
    none, or there is no such device)."""
    chain = [start]
    seen = {start}
    current = rack_of(start)
    while current is not None:
        if current == start:
            return tuple(chain)
        if current in seen:  # a loop further on, not through `start`
            return None
        seen.add(current)
        chain.append(current)
        current = rack_of(current)
    return None


def batch_mount_cycle(devices: Iterable[Device], rack_of: RackOf, *,
                      alone: bool = False) -> tuple[str, ...] | None:
    """A mounting cycle through one of `devices` (devices about to join a design whose own
    devices' racks `rack_of` gives), or None. Only a device that is some device's rack can be
    on a cycle: with `alone` (the design is empty, as when a file is read) only the new
    devices point anywhere, so only their racks are walked from, two passes and a walk per
    rack; otherwise an old device may point at a new one, and every new device with a rack
    is walked from."""
    devices = list(devices)
    targets = {d.rack for d in devices if d.rack is not None}
    if not targets:
        return None
    new = {d.id: d.rack for d in devices if d.id in targets or (not alone and d.rack)}

    def chain_rack_of(device_id: str) -> str | None:
        return new[device_id] if device_id in new else rack_of(device_id)

    for start, rack in new.items():
        if rack is not None and (cycle := mount_cycle(start, chain_rack_of)) is not None:
            return cycle
    return None


def cycle_problem(cycle: tuple[str, ...]) -> str:
    """The refusal of a mounting cycle, naming every device on it."""
    first = cycle[0]
    if len(cycle) == 1:
        return f"device {first!r}: mounted in itself (rack: {first}); a device's rack must be " \
            "another device"
    chain = ", ".join(f"{a} in {b}" for a, b in zip(cycle, (*cycle[1:], first), strict=True))
    return f"device {first!r}: racks mounted in each other ({chain}); a rack cannot be inside " \
        "what it holds"
