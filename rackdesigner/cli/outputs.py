"""The command line's check that a verb's output is none of its inputs (`io/overlap.py`).

Every verb that writes something other than a layout calls `refuse_over_input` before it
reads or computes anything, so the refusal (exit 2) comes at once and nothing is written.
"""

from __future__ import annotations

import os
from collections.abc import Iterable


def refuse_over_input(output: str | os.PathLike, inputs: Iterable[str | os.PathLike | None],
                      what: str, *, folder: bool = False) -> None:
    """Raise UsageError when writing `output` would replace one of `inputs`."""
    from rackdesigner.cli import UsageError
    from rackdesigner.io.overlap import input_under_output, output_over_input_message

    source = input_under_output(output, inputs, folder=folder)
    if source is not None:
        raise UsageError(output_over_input_message(output, source, what))
