"""Read and validate catalog files (one YAML file per real product).

Every file is checked against the field tables; all problems of all files are collected
and reported together, each with its file and key path (`qm9700.yaml: ports[0].rate_gbps:
expected a number, got 'fast'`). A figure must name a `source` that the file's `sources`
mapping defines.

The field tables and their checks are `fields.py`; this module reads a file against them. Every
name is still imported from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rackdesigner import vocabulary
from rackdesigner.catalog.fields import (
    CABLE_FIELDS,
    GPU_FIELDS,
    HEAT_FIELDS,
    KIND_FACT_FIELDS,
    MAX_COUNT,
    MAX_NUMBER,
    NIC_FIELDS,
    PART_FIELDS,
    PORT_FIELDS,
    POWER_FIELDS,
    RACK_FIELDS,
    SCHEMA,
    SOURCE_FIELDS,
    SWITCH_FIELDS,
    SYSTEM_FIELDS,
    TOP_FIELDS,
    TRANSCEIVER_FIELDS,
    WIRING_FIELDS,
    _Bad,
    _num,
    _suggest,
)
from rackdesigner.catalog.filecache import MISSING, ParsedFiles
from rackdesigner.catalog.spec import (
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

__all__ = ["CABLE_FIELDS", "GPU_FIELDS", "HEAT_FIELDS", "KIND_FACT_FIELDS", "MAX_COUNT",
           "MAX_FILE_BYTES", "MAX_NUMBER", "NIC_FIELDS", "PART_FIELDS", "PORT_FIELDS",
           "POWER_FIELDS", "RACK_FIELDS", "SCHEMA", "SOURCE_FIELDS", "SWITCH_FIELDS",
           "SYSTEM_FIELDS", "TOP_FIELDS", "TRANSCEIVER_FIELDS", "WIRING_FIELDS", "CatalogError",
           "CatalogProblem", "read_spec_file"]

MAX_FILE_BYTES = 4 * 2**20



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
