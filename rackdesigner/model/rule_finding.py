"""What a design rule says: a `Finding` (severity, code, message, the ids or the file key it is
about), the two severities, and the per-device spec lookup every rule family shares (`_Specs`).
The rules themselves are `rules.py` and its families (`rules_links.py`, `rules_racks.py`,
`rules_cooling.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rackdesigner.catalog import DeviceSpec
from rackdesigner.model.layout import Layout

if TYPE_CHECKING:
    pass

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Finding:
    severity: str
    code: str
    message: str
    objects: tuple[str, ...] = ()
    #: the top-level file key a design-level finding is about (`site`), where there is no
    #: object to name; `Layout.source_lines["site:"]` is its line when read from a file
    key: str = ""

    def __str__(self) -> str:
        return f"{self.severity}: {self.message}"


def has_errors(findings: list[Finding]) -> bool:
    return any(f.severity == ERROR for f in findings)


class _Specs:
    """Spec per device id, with None for unknown models (looked up once per model)."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.index = layout.index()

    def __call__(self, device_id: str) -> DeviceSpec | None:
        return self.index.spec(device_id)


#: What to do about a model the catalog lacks, in the design's words (the Problems dock shows it
