"""The NCCL version a cluster runs, as an input: which algorithms it has and how wide NVLS goes.

The engine's constants are NCCL's at the version `DEFAULT_VERSION` names (`constants.py`:
tuning.cc, enqueue.cc and nvls.cc at v2.30.7). An older NCCL lacks what came later; the
releases are read from the NVIDIA/nccl repository's tags:

- NVLS (NVLink SHARP, `src/transport/nvls.cc`) first ships in v2.17.1-1;
- NVLS-tree (`NCCL_ALGO_NVLS_TREE`, `src/include/devcomm.h`) first in v2.18.1-1;
- `NCCL_MAX_NVLS_ARITY` (local ranks an NVLS graph spans, and the most GPUs per domain NVLS
  AllGather/ReduceScatter runs on) is 8 up to v2.20.5-1 and 32 from v2.21.5-1.

What the version does not change here: the per-version tuning of small-size NVLS (chunk and
channel counts changed in several releases without a published curve per version to check
them against); those stay at `DEFAULT_VERSION`'s (docs/simulation.md, limits).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: the NCCL whose constants the engine carries (the default of the input)
DEFAULT_VERSION = "2.30"
_VERSION = re.compile(r"^\s*v?(\d+)\.(\d+)(?:\.(\d+))?(?:-\d+)?\s*$")
#: (first version, feature): NVIDIA/nccl tags
NVLS_SINCE = (2, 17)
NVLS_TREE_SINCE = (2, 18)
WIDE_NVLS_SINCE = (2, 21)
NVLS_ARITY_BEFORE_WIDE = 8


class NcclVersionError(ValueError):
    """A version string that is not MAJOR.MINOR[.PATCH]."""


@dataclass(frozen=True, slots=True)
class NcclRelease:
    """What one NCCL release can run, as the engine uses it."""

    major: int
    minor: int
    patch: int = 0

    @property
    def key(self) -> tuple[int, int]:
        return self.major, self.minor

    @property
    def text(self) -> str:
        return f"{self.major}.{self.minor}" + (f".{self.patch}" if self.patch else "")

    @property
    def has_nvls(self) -> bool:
        return self.key >= NVLS_SINCE

    @property
    def has_nvls_tree(self) -> bool:
        return self.key >= NVLS_TREE_SINCE

    def nvls_arity(self, current: int) -> int:
        """NCCL_MAX_NVLS_ARITY of this release (`current`: the engine's, from 2.21 on)."""
        return current if self.key >= WIDE_NVLS_SINCE else NVLS_ARITY_BEFORE_WIDE

    def missing(self, algorithm: str) -> str | None:
        """Why this release cannot run `algorithm` (NCCL's name), None when it can."""
        if algorithm in ("nvls", "nvls_tree") and not self.has_nvls:
            return f"NVLS needs NCCL 2.17 or later; this cluster runs NCCL {self.text}"
        if algorithm == "nvls_tree" and not self.has_nvls_tree:
            return f"NVLS-tree needs NCCL 2.18 or later; this cluster runs NCCL {self.text}"
        return None


def parse_version(text: str | None) -> NcclRelease:
    """'2.19', '2.19.3', 'v2.19.3-1' -> NcclRelease; None -> `DEFAULT_VERSION`'s."""
    match = _VERSION.match(DEFAULT_VERSION if text is None else str(text))
    if match is None or int(match.group(1)) != 2:
        raise NcclVersionError(f"NCCL version {text!r}: expected 2.MINOR[.PATCH], e.g. 2.19.3")
    return NcclRelease(2, int(match.group(2)), int(match.group(3) or 0))
