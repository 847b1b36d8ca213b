"""Failures and goodput of a drawn design: how often it stops a training job, what each fault
takes down, how long a checkpoint takes over the drawn storage path, and the share of the
paid-for time the job trains (docs/reliability.md).

`library` reads the failure rates (resources/reliability/failures.yaml or a user's file),
`structure` counts the design's failing units and what each one's fault stops, `goodput`
holds the checkpoint and availability formulas, `report.assess` puts them together.
"""

from __future__ import annotations

from rackdesigner.reliability.library import Library, LibraryError, load_library
from rackdesigner.reliability.report import (
    SCHEMA,
    Assessment,
    Job,
    ReliabilityError,
    assess,
)

__all__ = ["SCHEMA", "Assessment", "Job", "Library", "LibraryError", "ReliabilityError",
           "assess", "load_library"]
