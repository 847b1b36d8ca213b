"""Which GPUs a question is asked of: a group named by id or name, or GPUs listed by id.

The simulation's scope and the workload estimator's both resolve names here, so a name means
the same GPUs and a bad name gets the same sentence in the CLI, the panel and the estimator.
Messages speak of the design; each surface adds its own wording (an option name, a field).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from rackdesigner.model.layout import Layout, natural_key


class ScopeError(ValueError):
    """A group or GPU that is not in the design (the message says which)."""


def find_group(layout: Layout, name: str) -> str:
    """The id of the group `name` (an id, or the name of exactly one group)."""
    if layout.has_group(name):
        return name
    matches = [g.id for g in layout.groups() if g.name == name]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise ScopeError(f"several groups are named {name!r}: " + ", ".join(sorted(matches))
                         + " (use an id)")
    names = [g.id for g in layout.groups()] + [g.name for g in layout.groups() if g.name]
    close = difflib.get_close_matches(name, names, n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise ScopeError(f"no group {name!r} in this layout{hint}")


def is_gpu(layout: Layout, device_id: str) -> bool:
    spec = layout.spec(device_id) if layout.has_device(device_id) else None
    return spec is not None and spec.traits.computes


def group_gpus(layout: Layout, name: str) -> list[str]:
    """The GPUs of group `name` (and its sub-groups) in natural id order."""
    members = layout.group_devices(find_group(layout, name))
    return sorted((d for d in members if is_gpu(layout, d)), key=natural_key)


def select_gpus(layout: Layout, ids: Iterable[str]) -> list[str]:
    """GPUs chosen by id, each once, in natural id order; an id that is not a GPU of the
    design is refused with the reason."""
    out = list(dict.fromkeys(ids))
    for g in out:
        if not layout.has_device(g):
            raise ScopeError(f"no device {g!r} in this layout")
        if not is_gpu(layout, g):
            raise ScopeError(f"device {g!r} is not a GPU")
    return sorted(out, key=natural_key)
