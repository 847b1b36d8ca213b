"""RackDesigner: design GPU clusters and see what they deliver.

The public Python API is re-exported here; everything in it is pure Python (no Qt).
"""

from __future__ import annotations

from typing import Any

__version__ = "0.2.0"

__all__ = ["__version__", "estimate", "load_layout", "save_layout", "simulate"]


def __getattr__(name: str) -> Any:
    # Lazy re-exports keep `import rackdesigner` (and the CLI's --version) fast.
    if name in ("load_layout", "save_layout"):
        from rackdesigner import io

        return getattr(io, name)
    if name == "simulate":
        from rackdesigner.simulation import simulate

        return simulate
    if name == "estimate":
        from rackdesigner.workload import estimate

        return estimate
    raise AttributeError(f"module 'rackdesigner' has no attribute {name!r}")
