"""A serving job written down: a YAML file of `rackdesigner serve` options (`--serve FILE` of
`compare`)::

    model: deepseek-r1       # a bundled id, an alias or a model file
    precision: fp4           # bf16 | fp8 | fp4
    isl: 1024
    osl: 1024
    interactivity: 75        # optional: the target tokens/s per user
    ttft: 2.0                # optional: the largest time to first token, seconds
    mode: best               # optional: aggregated | disaggregated | best
    gpus: 72                 # optional: the first N GPUs (of `group`)

Every error names the file, the line and what was expected (read under inputs.py's
discipline: a regular UTF-8 file of at most 64 KiB, YAML without aliases or tags).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from rackdesigner.serving.frontier import MODES
from rackdesigner.workload.hardware import PRECISIONS

MAX_BYTES = 64 * 1024
KEYS = ("model", "precision", "isl", "osl", "interactivity", "ttft", "mode", "gpus", "group",
        "stack", "mtp")
REQUIRED = ("model", "precision", "isl", "osl")
MAX_TOKENS = 10_000_000


class ServeJobError(ValueError):
    """A serving job file that cannot be used: `file:line: what was expected`."""


@dataclass(frozen=True, slots=True)
class ServeJob:
    model: str
    precision: str
    isl: int
    osl: int
    interactivity: float | None = None
    ttft: float | None = None
    mode: str = "best"
    gpus: int | None = None
    group: str | None = None
    stack: str | None = None
    mtp: int = 0

    def options(self) -> dict[str, Any]:
        """Keyword arguments of `serving.serve`."""
        return {"precision": self.precision, "isl": self.isl, "osl": self.osl,
                "interactivity": self.interactivity, "ttft": self.ttft, "mode": self.mode,
                "gpus": self.gpus, "group": self.group, "stack": self.stack, "mtp": self.mtp}


def load_serve_job(path: str | Path) -> ServeJob:
    """Read and check a serving job file; raises `ServeJobError`."""
    from rackdesigner.inputs import InputError, read_text

    try:
        text = read_text(path, MAX_BYTES, "serving job file")
    except InputError as exc:
        raise ServeJobError(str(exc)) from None
    return parse_serve_job(text, str(path))


def parse_serve_job(text: str, label: str) -> ServeJob:
    """A serving job from its YAML text (`label` names it in errors)."""
    from rackdesigner.inputs import (
        InputError,
        compose_yaml,
        finite_number,
        scalar_value,
        whole_number,
    )

    try:
        root = compose_yaml(text, label)
    except InputError as exc:
        raise ServeJobError(str(exc)) from None

    def fail(line: int | None, message: str) -> ServeJobError:
        return ServeJobError(f"{label}:{line}: {message}" if line else f"{label}: {message}")

    if not isinstance(root, yaml.MappingNode):
        raise fail(None, "expected a mapping of serve options (model, precision, isl, osl, "
                   "...)")
    values: dict[str, tuple[Any, int]] = {}
    for key_node, value_node in root.value:
        key, line = key_node.value, key_node.start_mark.line + 1
        if key not in KEYS:
            close = difflib.get_close_matches(str(key), KEYS, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise fail(line, f"unknown key {str(key)[:40]!r}{hint}; expected one of "
                       + ", ".join(KEYS))
        try:
            values[key] = (scalar_value(value_node), line)
        except ValueError as exc:
            raise fail(line, f"{key}: {exc}") from None
    missing = [k for k in REQUIRED if k not in values]
    if missing:
        raise fail(root.start_mark.line + 1, "missing required key" + (
            "s " if len(missing) > 1 else " ") + ", ".join(missing))
    out: dict[str, Any] = {}
    for key, (value, line) in values.items():
        try:
            if key in ("isl", "osl"):
                out[key] = whole_number(value, key, low=1, high=MAX_TOKENS)
            elif key == "gpus":
                out[key] = whole_number(value, key, low=1, high=10**7)
            elif key == "mtp":
                out[key] = whole_number(value, key, low=0, high=3)
            elif key in ("interactivity", "ttft"):
                out[key] = finite_number(value, key, low=1e-9)
            elif key in ("precision", "mode"):
                choices = PRECISIONS if key == "precision" else MODES
                if value not in choices:
                    raise ValueError(f"{key} must be one of {', '.join(choices)}, got "
                                     f"{str(value)[:40]!r}")
                out[key] = value
            else:
                if not isinstance(value, str) or not value.strip():
                    raise ValueError(f"{key} must be a non-empty text")
                out[key] = value.strip()
        except ValueError as exc:
            raise fail(line, str(exc)) from None
    return ServeJob(**out)


__all__ = ["ServeJob", "ServeJobError", "load_serve_job"]
