"""Read and validate catalog files (one YAML file per real product).

Every file is checked against the field tables below; all problems of all files are collected
and reported together, each with its file and key path (`qm9700.yaml: ports[0].rate_gbps:
expected a number, got 'fast'`). A figure must name a `source` that the file's `sources`
mapping defines.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rackdesigner import vocabulary
from rackdesigner.catalog.filecache import MISSING, ParsedFiles
from rackdesigner.catalog.spec import (
    PROTOCOLS,
    REDUCTIONS,
    WIRING_PATTERNS,
    CableFacts,
    DeviceSpec,
    GpuFacts,
    HeatSplit,
    NicFacts,
    PortGroup,
    Power,
    RackFacts,
    Source,
    Stated,
    SwitchFacts,
    SystemPart,
    SystemSpec,
    TransceiverFacts,
    WiringRule,
)
from rackdesigner.vocabulary.wording import counted

MAX_FILE_BYTES = 4 * 2**20
SCHEMA = "rackdesigner.device/1"


@dataclass(frozen=True, slots=True)
class CatalogProblem:
    file: str
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}: {self.path}: " if self.path else f"{self.file}: "
        return where + self.message


class CatalogError(Exception):
    """One or more catalog files are invalid; `problems` lists every one."""

    def __init__(self, problems: list[CatalogProblem]) -> None:
        self.problems = problems
        lines = "\n".join(f"  {p}" for p in problems)
        super().__init__(f"{counted(len(problems), 'problem')} in the device catalog:\n{lines}")


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


class _FileReader:
    """Validates one parsed file, collecting problems instead of stopping at the first."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.problems: list[CatalogProblem] = []
        self.source_refs: list[tuple[str, str]] = []

    def problem(self, path: str, message: str) -> None:
        self.problems.append(CatalogProblem(self.file, path, message))

    def block(self, data: Any, fields: dict, path: str) -> dict[str, Any] | None:
        if not isinstance(data, dict):
            self.problem(path, f"expected a mapping, got {type(data).__name__}")
            return None
        out: dict[str, Any] = {}
        for key in data:
            if key not in fields:
                self.problem(f"{path}.{key}".lstrip("."), f"unknown key{_suggest(key, fields)}")
        for key, (check, required) in fields.items():
            where = f"{path}.{key}".lstrip(".")
            if key not in data:
                if required:
                    self.problem(where, "missing (required)")
                continue
            if check is None:
                out[key] = data[key]
                continue
            try:
                out[key] = check(data[key])
            except _Bad as exc:
                self.problem(where, str(exc))
        for ref in ("source", "load_source", "air_source"):
            if ref in out:
                self.source_refs.append((f"{path}.{ref}".lstrip("."), out[ref]))
        return out

    def read(self, data: Any) -> DeviceSpec | None:
        top = self.block(data, TOP_FIELDS, "")
        if top is None:
            return None
        sources = self._sources(data.get("sources"))
        kwargs: dict[str, Any] = {
            k: top[k]
            for k in ("id", "kind", "manufacturer", "model", "description", "aliases", "u_height",
                      "weight_kg", "airflow", "cooling")
            if k in top
        }
        if "power" in data:
            p = self.block(data["power"], POWER_FIELDS, "power")
            if p is not None:
                kwargs["power"] = Power(p.get("idle_w"), p.get("typical_w"), p.get("max_w"),
                                        p.get("source", ""), p.get("note", ""),
                                        p.get("basis", "published"),
                                        p.get("max_includes_optics", False))
        if "ports" in data:
            kwargs["ports"] = self._ports(data["ports"])
        simple: tuple[tuple[str, dict[str, Any], Any], ...] = (
            ("gpu", GPU_FIELDS, GpuFacts), ("nic", NIC_FIELDS, NicFacts),
            ("transceiver", TRANSCEIVER_FIELDS, TransceiverFacts),
            ("rack", RACK_FIELDS, RackFacts))
        for key, fields, cls in simple:
            if key in data:
                b = self.block(data[key], fields, key)
                if b is not None and not any(p.path.startswith(key) for p in self.problems):
                    kwargs[key] = cls(**{f: b.get(f) for f in fields})
        if "switch" in data:
            b = self.block(data["switch"], SWITCH_FIELDS, "switch")
            if b is not None:
                kwargs["switch"] = SwitchFacts(b.get("latency_ns"), b.get("reductions", ()),
                                               b.get("source", ""))
        if "cable" in data:
            b = self.block(data["cable"], CABLE_FIELDS, "cable")
            if b is not None and "media" in b:
                kwargs["cable"] = CableFacts(
                    b["media"], b.get("protocols", ()), b.get("rate_gbps", 0.0),
                    b.get("max_length_m", 0.0), b.get("latency_ns_per_m", 0.0),
                    b.get("power_w_per_end"), b.get("transceiver"), b.get("source", ""))
        if "heat" in data:
            b = self.block(data["heat"], HEAT_FIELDS, "heat")
            if b is not None and "liquid_fraction" in b:
                if not 0.0 <= b["liquid_fraction"] <= 1.0:
                    self.problem("heat.liquid_fraction", "must be from 0 to 1")
                else:
                    kwargs["heat"] = HeatSplit(b["liquid_fraction"], b.get("source", ""),
                                               b.get("note", ""))
        if "system" in data:
            kwargs["system"] = self._system(data["system"])
        if "stated" in data:
            kwargs["stated"] = self._stated(data["stated"])
        kind = top.get("kind")
        entry = vocabulary.KINDS.get(kind or "")
        required_block = entry.block if entry is not None else None
        if required_block and required_block not in data:
            self.problem(required_block, f"missing (required for kind {kind!r})")
        for block_kind, fields in KIND_FACT_FIELDS.items():
            if block_kind in data and block_kind != kind:
                self.problem(block_kind, f"a {block_kind!r} block belongs to kind {block_kind!r}, "
                             f"not {kind!r}")
            elif block_kind == kind:
                if block_kind not in data:
                    self.problem(block_kind, f"missing (required for kind {kind!r})")
                else:
                    b = self.block(data[block_kind], fields, block_kind)
                    if b is not None:
                        kwargs["facts"] = b
        for where, key in self.source_refs:
            if key not in sources:
                self.problem(where, f"source {key!r} is not defined in 'sources'"
                             f"{_suggest(key, sources)}")
        if self.problems:
            return None
        return DeviceSpec(sources=sources, file=self.file, **kwargs)

    def _sources(self, data: Any) -> dict[str, Source]:
        out: dict[str, Source] = {}
        if not isinstance(data, dict) or not data:
            self.problem("sources", "expected a non-empty mapping of source keys to documents")
            return out
        for key, value in data.items():
            b = self.block(value, SOURCE_FIELDS, f"sources.{key}")
            if b is not None and "title" in b:
                out[str(key)] = Source(str(key), b["title"], b.get("url", ""), b.get("note", ""))
        return out

    def _ports(self, data: Any) -> tuple[PortGroup, ...]:
        if not isinstance(data, list):
            self.problem("ports", "expected a list of port groups")
            return ()
        groups = []
        names: set[str] = set()
        for i, item in enumerate(data):
            b = self.block(item, PORT_FIELDS, f"ports[{i}]")
            if b is None or not all(f in b for f, (_, r) in PORT_FIELDS.items() if r):
                continue  # a required field missing or refused: already a problem
            if b["name"] in names:
                self.problem(f"ports[{i}].name", f"duplicate port group name {b['name']!r}")
            names.add(b["name"])
            groups.append(PortGroup(**b))
        return tuple(groups)

    def _system(self, data: Any) -> SystemSpec | None:
        b = self.block(data, SYSTEM_FIELDS, "system")
        if b is None:
            return None
        parts = []
        raw_parts = b.get("parts")
        if not isinstance(raw_parts, list) or not raw_parts:
            self.problem("system.parts", "expected a non-empty list of parts")
            raw_parts = []
        for i, item in enumerate(raw_parts):
            p = self.block(item, PART_FIELDS, f"system.parts[{i}]")
            if p is not None and "name" in p and "model" in p:
                parts.append(SystemPart(p["name"], p["model"], p.get("count", 1)))
        rules = []
        raw_wiring = b.get("wiring", [])
        if not isinstance(raw_wiring, list):
            self.problem("system.wiring", "expected a list of wiring rules")
            raw_wiring = []
        for i, item in enumerate(raw_wiring):
            w = self.block(item, WIRING_FIELDS, f"system.wiring[{i}]")
            if w is not None and all(k in w for k in ("a", "a_port", "b", "b_port")):
                rules.append(WiringRule(**w))
        return SystemSpec(tuple(parts), tuple(rules), b.get("chassis"), b.get("source", ""))

    def _stated(self, data: Any) -> Stated | None:
        if not isinstance(data, dict) or "source" not in data:
            self.problem("stated", "expected a mapping of published totals with a 'source'")
            return None
        values = {}
        for key, value in data.items():
            if key == "source":
                continue
            try:
                values[str(key)] = _num(value)
            except _Bad as exc:
                self.problem(f"stated.{key}", str(exc))
        self.source_refs.append(("stated.source", str(data["source"])))
        return Stated(values, str(data["source"]))


def read_spec_file(path: Path, cache: ParsedFiles | None = None
                   ) -> tuple[DeviceSpec | None, list[CatalogProblem]]:
    """Parse and validate one catalog file (read under inputs.py's discipline: a regular
    UTF-8 file of at most 4 MiB, YAML without aliases, tags or runaway nesting). With a
    `cache` (`catalog/filecache.py`), data the file parsed to before, as it is now, is taken
    from there, and validated all the same."""
    name = path.name
    data = cache.get(path) if cache is not None else MISSING
    parsed = data is MISSING
    if parsed:
        from rackdesigner.inputs import InputError, load_yaml, read_text

        try:
            data = load_yaml(read_text(path, MAX_FILE_BYTES, "device model file"), name)
        except InputError as exc:
            where = f"line {exc.line}" if exc.line is not None else ""
            return None, [CatalogProblem(name, where, exc.message)]
    reader = _FileReader(name)
    spec = reader.read(data)
    if spec is not None and path.stem != spec.id:
        reader.problem("id", f"id {spec.id!r} must equal the file name {path.stem!r}")
        spec = None
    if cache is not None and parsed and not reader.problems:
        cache.put(path, data)
    return spec, reader.problems
