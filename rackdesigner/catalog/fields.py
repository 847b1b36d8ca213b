"""The field tables of a catalog file: each block's keys with the check that converts its value
(or raises `_Bad` with what was expected) and whether it is required, the checks themselves, and
the bounds no real figure comes near. `loader.py` reads a file against them."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from typing import Any

from rackdesigner import vocabulary
from rackdesigner.catalog.spec import (
    PROTOCOLS,
    REDUCTIONS,
    WIRING_PATTERNS,
)

SCHEMA = "rackdesigner.device/1"


# --- field tables -------------------------------------------------------------------------
# name -> (checker, required). Checkers return the converted value or raise _Bad.


class _Bad(Exception):
    pass


def _str(v: Any) -> str:
    if not isinstance(v, str) or not v.strip():
        raise _Bad(f"expected a non-empty string, got {v!r}")
    return v


#: No figure in a device file comes near these; larger ones are typos or hostile files (a
#: port count of 10^9 made a NetBox export allocate for 19 s, a u_height of 1e11 drew racks
#: a billion units tall).
MAX_NUMBER = 1e9
MAX_COUNT = 10**6


def _num(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise _Bad(f"expected a number, got {v!r}")
    try:
        number = float(v)
    except OverflowError:
        raise _Bad("expected a finite number >= 0, got a number too large") from None
    if number != number or number in (float("inf"), float("-inf")) or number < 0:
        raise _Bad(f"expected a finite number >= 0, got {v!r}")
    if number > MAX_NUMBER:
        raise _Bad(f"expected a number up to {MAX_NUMBER:g}, got {v!r}")
    return number


def _pos_num(v: Any) -> float:
    """A rate: a finite number > 0 (a port or cable of 0 Gb/s carries nothing, and every
    bandwidth, time and busbw figure divides by it)."""
    if _num(v) <= 0:
        raise _Bad(f"expected a number > 0, got {v!r}")
    return float(v)


def _int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise _Bad(f"expected a whole number >= 0, got {v!r}")
    if v > MAX_COUNT:
        raise _Bad(f"expected a whole number up to {MAX_COUNT:,}, got {v!r}")
    return v


def _at_most(check: Callable[[Any], Any], high: float, what: str) -> Callable[[Any], Any]:
    def bounded(v: Any) -> Any:
        value = check(v)
        if value is not None and value > high:
            raise _Bad(f"expected at most {high:g} {what}, got {v!r}")
        return value

    return bounded


def _pos_int(v: Any) -> int:
    if _int(v) < 1:
        raise _Bad(f"expected a whole number >= 1, got {v!r}")
    return v


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise _Bad(f"expected true or false, got {v!r}")
    return v


def _opt_num(v: Any) -> float | None:
    return None if v is None else _num(v)


def _one_of(*choices: str) -> Callable[[Any], str]:
    def check(v: Any) -> str:
        if v not in choices:
            raise _Bad(f"expected one of {', '.join(choices)}, got {v!r}{_suggest(v, choices)}")
        return v

    return check


def _str_list(v: Any) -> tuple[str, ...]:
    if not isinstance(v, list):
        raise _Bad(f"expected a list of strings, got {v!r}")
    return tuple(_str(item) for item in v)


def _suggest(word: Any, choices: Iterable[str]) -> str:
    if not isinstance(word, str):
        return ""
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


POWER_FIELDS = {
    "idle_w": (_opt_num, False),
    "typical_w": (_opt_num, False),
    "max_w": (_opt_num, False),
    "source": (_str, True),
    "note": (_str, False),
    "basis": (_one_of("published", "estimate", "facility"), False),
    "max_includes_optics": (_bool, False),
}
PORT_FIELDS = {
    "name": (_str, True),
    "protocol": (_one_of(*PROTOCOLS), True),
    "generation": (lambda v: _str(str(v)), True),
    "count": (_at_most(_pos_int, 4096, "ports in a group"), True),
    "lanes": (_at_most(_pos_int, 64, "lanes"), True),
    "rate_gbps": (_pos_num, True),
    "connector": (_str, True),
    "ports_per_connector": (_pos_int, False),
    "source": (_str, True),
}
GPU_FIELDS = {
    "architecture": (_str, True),
    "sm": (_pos_int, True),
    "memory_gb": (_opt_num, False),
    "source": (_str, True),
}
SWITCH_FIELDS = {
    "latency_ns": (_opt_num, False),
    "reductions": (lambda v: tuple(_one_of(*REDUCTIONS)(r) for r in _str_list(v)), False),
    "source": (_str, True),
}
NIC_FIELDS = {"latency_ns": (_opt_num, False), "source": (_str, True),
              "transport": (_one_of(*vocabulary.TRANSPORTS), False)}
CABLE_FIELDS = {
    "media": (_one_of("dac", "acc", "aec", "aoc", "fiber", "pcb", "utp"), True),
    "protocols": (lambda v: tuple(_one_of(*PROTOCOLS)(p) for p in _str_list(v)), True),
    "rate_gbps": (_pos_num, True),
    "max_length_m": (_num, True),
    "latency_ns_per_m": (_num, True),
    "power_w_per_end": (_num, False),
    "transceiver": (_str, False),
    "source": (_str, True),
}
TRANSCEIVER_FIELDS = {
    "rate_gbps": (_pos_num, True),
    "form_factor": (_str, True),
    "media": (_str, True),
    "reach_m": (_opt_num, False),
    "source": (_str, True),
}
RACK_FIELDS = {
    "height_u": (_at_most(_pos_int, 100, "rack units"), True),
    "power_budget_w": (_num, True),
    "source": (_str, True),
    "budget_basis": (_str, False),
    "static_load_kg": (_opt_num, False),
    "load_source": (_str, False),
    "air_cooling_w": (_opt_num, False),
    "air_source": (_str, False),
}
HEAT_FIELDS = {
    "liquid_fraction": (_num, True),
    "source": (_str, True),
    "note": (_str, False),
}
PART_FIELDS = {"name": (_str, True), "model": (_str, True),
               "count": (_at_most(_pos_int, 4096, "parts"), False)}
WIRING_FIELDS = {
    "a": (_str, True),
    "a_port": (_str, True),
    "b": (_str, True),
    "b_port": (_str, True),
    "pattern": (_one_of(*WIRING_PATTERNS), False),
    "count": (_pos_int, False),
}
SYSTEM_FIELDS = {
    "parts": (None, True),
    "wiring": (None, False),
    "chassis": (_str, False),
    "source": (_str, True),
}
SOURCE_FIELDS = {"title": (_str, True), "url": (_str, False), "note": (_str, False)}
TOP_FIELDS: dict[str, tuple[Callable[[Any], Any] | None, bool]] = {
    "schema": (_one_of(SCHEMA), True),
    "id": (_str, True),
    "kind": (lambda v: _one_of(*vocabulary.KINDS)(v), True),  # plugins may add kinds
    "manufacturer": (_str, True),
    "model": (_str, True),
    "description": (_str, False),
    "aliases": (_str_list, False),
    "u_height": (_at_most(_num, 100, "rack units"), False),
    "weight_kg": (_opt_num, False),
    "airflow": (_str, False),
    "cooling": (_one_of("air", "liquid"), False),
    "power": (None, False),
    "ports": (None, False),
    "gpu": (None, False),
    "switch": (None, False),
    "nic": (None, False),
    "cable": (None, False),
    "transceiver": (None, False),
    "rack": (None, False),
    "system": (None, False),
    "stated": (None, False),
    "heat": (None, False),
    "sources": (None, True),
    "notes": (_str, False),
}
#: a kind's own facts block (kinds declared with `facts` in `vocabulary/kinds.py`) is the
#: top-level key named after the kind
_FACT_CHECKERS: dict[str, Callable[[Any], Any]] = {"number": _num, "count": _pos_int,
                                                   "text": _str}
KIND_FACT_FIELDS: dict[str, dict[str, tuple[Callable[[Any], Any], bool]]] = {
    k.name: {f.name: (_FACT_CHECKERS[f.type], f.required) for f in k.facts}
    for k in vocabulary.KINDS.values() if k.facts
}
TOP_FIELDS.update({name: (None, False) for name in KIND_FACT_FIELDS})
