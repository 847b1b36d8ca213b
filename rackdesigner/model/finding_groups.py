"""The same finding on many objects, told once: findings grouped by what they say.

A 102,400-GPU rail-optimized design with 400 Gb/s NICs on 800 Gb/s leaf ports has one thing to
say, 102,400 times ("link link-1: dgx-1.nic0:ib runs at 400 Gb/s and leaf-1:ib.0 at 800 Gb/s").
The command line and the Problems dock show it as one line with a count and examples; the JSON
keeps every finding and its objects.

Two findings say the same thing when they have the same severity and rule code and their
messages are equal once the design's own names are taken out: a word that is a device, link or
group id of the design (or such an id before a `:port` part, whose numbers are taken out too)
becomes a placeholder. Figures, model names and everything else in the message must match, so
400-on-800 and 200-on-800 links stay two groups.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rackdesigner.model.layout import Layout
from rackdesigner.model.order import DictMap
from rackdesigner.model.rules import Finding

#: a group of this many findings or more is one line (fewer are listed one by one)
GROUP_FROM = 3
#: how many further objects a grouped line names as examples
EXAMPLES = 3

_SPACES = re.compile(r"(\s+)")
_OTHER_SPACE = re.compile(r"[^\S ]")  # any white space but a plain space
_DIGITS = re.compile(r"\d+")
_TRAILING = ",;)"


@dataclass(frozen=True, slots=True)
class FindingGroup:
    """Findings that say the same thing of different objects, in the order they came."""

    findings: tuple[Finding, ...]

    @property
    def first(self) -> Finding:
        return self.findings[0]

    @property
    def severity(self) -> str:
        return self.first.severity

    @property
    def code(self) -> str:
        return self.first.code

    def __len__(self) -> int:
        return len(self.findings)

    def examples(self, count: int = EXAMPLES) -> list[str]:
        """The first object of the findings after the first one, `count` at most."""
        return [f.objects[0] for f in self.findings[1:1 + count] if f.objects]

    def summary(self) -> str:
        """The first finding's message, and how many more say the same (with examples)."""
        if len(self) == 1:
            return self.first.message
        more = len(self) - 1
        examples = self.examples()
        shown = ", ".join(examples)
        if more > len(examples):
            shown += ", …"
        return (f"{self.first.message} [and {more:,} more like it"
                + (f": {shown}]" if examples else "]"))


def message_shape(layout: Layout, message: str, memo: dict[str, str] | None = None) -> str:
    """`message` with the design's own ids (and their port numbers) taken out.

    `memo` keeps each word's shape between calls on the same layout (a rule's 102,400 messages
    share most of their words; with the split on plain spaces: 1.6 s → 0.6 s at 100k)."""
    return _Shaper(layout, memo).shape(message)


class _Shaper:
    """`message_shape` for many messages of one layout: each word's shape is kept (`memo`),
    the id test reads the state's maps directly and a port's shape is kept per port text (at
    100k GPUs, 307,200 words are ids of links and ports, each seen once: 0.86 → 0.4 s)."""

    __slots__ = ("has_id", "ports", "shapes")

    def __init__(self, layout: Layout, memo: dict[str, str] | None = None) -> None:
        self.shapes: dict[str, str] = {} if memo is None else memo
        self.ports: dict[str, str] = {}
        self.has_id = _id_test(layout)

    def shape(self, message: str) -> str:
        shapes = self.shapes
        if _OTHER_SPACE.search(message) is None:  # words between single spaces: the fast split
            get, word = shapes.get, self.word
            return " ".join([get(w) or word(w) for w in message.split(" ")])
        pieces = _SPACES.split(message)  # words at even places, the spaces between at odd ones
        for i in range(0, len(pieces), 2):
            known = shapes.get(pieces[i])
            pieces[i] = self.word(pieces[i]) if known is None else known
        return "".join(pieces)

    def word(self, text: str) -> str:
        """One word of a message (kept): a placeholder for a design id (and its port's
        numbers)."""
        core = text.rstrip(_TRAILING)
        end = text[len(core):]
        if core.endswith(":") or core.endswith("."):
            end = core[-1] + end
            core = core[:-1]
        head, colon, port = core.partition(":")
        if head and self.has_id(head):
            shaped = self.ports.get(port)
            if shaped is None:
                shaped = self.ports[port] = _DIGITS.sub("#", port)
            found = "\0" + colon + shaped + end
        else:
            found = text
        self.shapes[text] = found
        return found


def _id_test(layout: Layout) -> Callable[[str], bool]:
    """`layout.has_id`, asking the state's maps directly (their key views where the state
    holds plain dicts: a membership test at C speed, not a method call per map)."""
    state = getattr(layout, "state", None)
    maps: list[Any] = [getattr(state, name, None)
                       for name in ("devices", "links", "groups", "unresolved")]
    if any(m is None for m in maps):
        return layout.has_id
    devices, links, groups, unresolved = (m.keys() if isinstance(m, DictMap) else m
                                          for m in maps)

    def has_id(item_id: str) -> bool:
        return (item_id in devices or item_id in links or item_id in groups
                or item_id in unresolved)

    return has_id


def group_findings(layout: Layout, findings: list[Finding]) -> list[FindingGroup]:
    """Findings grouped by what they say, groups in the order of their first finding."""
    groups: dict[tuple[str, str, str], list[Finding]] = {}
    shape = _Shaper(layout).shape
    for finding in findings:
        key = (finding.severity, finding.code, shape(finding.message))
        groups.setdefault(key, []).append(finding)
    return [FindingGroup(tuple(members)) for members in groups.values()]


__all__ = ["EXAMPLES", "GROUP_FROM", "FindingGroup", "group_findings", "message_shape"]
