"""The failure library: per-part failure rates, what a fault stops, repair, restart and
checkpoint figures, read from YAML (`resources/reliability/failures.yaml`, or a user's file).

A user's file (`--failures FILE`) holds the same blocks; its causes replace the bundled causes
of the same name and add new ones, its `restart` and `checkpoint` keys replace the bundled
ones, so a fleet's own GPU rate is a five-line file. Every error is located
(`file:line: what was expected`) and is a `LibraryError` (a ValueError): the CLI exits 2.

A cause is counted `per` a unit the design's structure gives (`UNITS`): a vocabulary role
(devices of that role, never a device name), or a host node, or a NIC link. What it `stops`
is one of `STOPS` (see resources/reliability/failures.yaml for both).
"""

from __future__ import annotations

import datetime as _dt
import difflib
import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from rackdesigner.vocabulary import ROLES
from rackdesigner.yamlnodes import NodeReader

#: Device roles a rate may be counted per (the others hold no failing part of their own:
#: enclosures, media, facility and management parts).
ROLE_UNITS = tuple(r for r in ROLES if r in ("gpu", "cpu", "nvswitch", "switch", "nic",
                                               "storage"))
#: Structural units: host nodes, NIC link lanes, and the share of those over optics.
UNITS = (*ROLE_UNITS, "node", "nic_link", "nic_optic_link")
STOPS = ("nvlink_domain", "node", "attached_nodes")
MAX_BYTES = 256 * 1024
_TOP = ("schema_version", "name", "date", "sources", "causes", "restart", "checkpoint")
_CAUSE = ("label", "per", "rate", "stops", "repair_hours", "source", "derived")
_RESTART = ("detect_s", "restart_s", "source", "derived")
_CHECKPOINT = ("bytes_per_param", "source", "derived", "default_bytes_per_gpu",
               "default_derived", "storage_GBps_per_gpu", "storage_derived", "blocking")
_SOURCE = ("title", "url", "date", "note")


class LibraryError(ValueError):
    """A failure library that cannot be used: `file:line: what was expected`."""


@dataclass(frozen=True)
class Cause:
    name: str
    label: str
    per: str  # one of UNITS
    rate: float  # failures per 1,000 unit-days
    stops: str  # one of STOPS
    repair_hours: float
    source: str
    derived: str

    @property
    def per_day(self) -> float:
        """Failures per unit per day."""
        return self.rate / 1000.0


@dataclass(frozen=True)
class Restart:
    detect_s: float
    restart_s: float
    derived: str = ""

    @property
    def total_s(self) -> float:
        return self.detect_s + self.restart_s


@dataclass(frozen=True)
class CheckpointFacts:
    bytes_per_param: float
    default_bytes_per_gpu: float
    storage_GBps_per_gpu: float
    blocking: bool = True
    derived: str = ""
    default_derived: str = ""
    storage_derived: str = ""


@dataclass(frozen=True)
class Library:
    name: str
    causes: tuple[Cause, ...]
    restart: Restart
    checkpoint: CheckpointFacts
    sources: dict[str, dict[str, str]] = field(default_factory=dict)
    origin: str = ""  # where it came from: "bundled", or "bundled + FILE"

    def cause(self, name: str) -> Cause:
        for c in self.causes:
            if c.name == name:
                return c
        raise KeyError(name)


def bundled_path() -> Path:
    from rackdesigner._resources import resources_root

    return resources_root() / "reliability" / "failures.yaml"


def load_library(path: str | Path | None = None) -> Library:
    """The bundled library, with a user's file over it when `path` is given."""
    base = _read(bundled_path())
    base = replace(base, origin=f"bundled ({base.name})")
    if path is None:
        return base
    user = _read(Path(path), base)
    return replace(user, origin=f"{path} over the bundled library")


def parse_library(text: str, label: str, base: Library | None = None) -> Library:
    """A library from YAML text. Without `base` every block is required (the bundled file);
    with one, the text's causes replace or add to `base`'s, and its `restart` and `checkpoint`
    blocks, when present, replace `base`'s (a user's file over the bundled library)."""
    from rackdesigner.inputs import InputError, compose_yaml

    try:
        node = compose_yaml(text, label, max_nodes=20_000)
    except InputError as exc:
        raise LibraryError(f"{exc} (expected a failure library)") from None
    return _Reader(label).library(node, base)


def _read(path: Path, base: Library | None = None) -> Library:
    from rackdesigner.inputs import InputError, read_text

    try:
        text = read_text(path, MAX_BYTES, "failure library")
    except InputError as exc:
        raise LibraryError(str(exc)) from None
    except OSError as exc:
        raise LibraryError(f"{path}: cannot read the failure library: "
                           f"{exc.strerror or exc}") from None
    return parse_library(text, str(path), base)


class _Reader(NodeReader):
    def __init__(self, label: str) -> None:
        super().__init__(label, LibraryError)

    def text(self, node: yaml.Node, what: str) -> str:
        v = self.value(node, what)
        if isinstance(v, _dt.date):
            return v.isoformat()
        if not isinstance(v, str | int | float) or isinstance(v, bool) or v == "":
            raise self.fail(node, f"{what}: expected text, got {v!r}")
        return str(v)

    def number(self, node: yaml.Node, what: str, *, positive: bool = False,
               high: float | None = None) -> float:
        v = self.value(node, what)
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise self.fail(node, f"{what}: expected a number, got {node.value!r}")
        if v < 0 or (positive and v == 0):
            need = "greater than 0" if positive else "0 or more"
            raise self.fail(node, f"{what}: must be {need}, got {v:g}")
        if high is not None and v > high:
            raise self.fail(node, f"{what}: must be at most {high:g}, got {v:g}")
        return float(v)

    def library(self, node: yaml.Node | None, base: Library | None) -> Library:
        if node is None:
            raise self.fail(None, "the failure library is empty (expected schema_version: 1 "
                            "and causes)")
        top = self.mapping(node, "failure library", _TOP)
        if "schema_version" not in top:
            raise self.fail(node, "missing 'schema_version' (expected schema_version: 1)")
        version = self.value(top["schema_version"][1], "schema_version")
        if version != 1:
            raise self.fail(top["schema_version"][1], f"schema_version: this version reads "
                            f"schema_version 1, got {version!r}")
        sources: dict[str, dict[str, str]] = dict(base.sources) if base is not None else {}
        if "sources" in top:
            for name, (key, value) in self.mapping(top["sources"][1], "sources", None).items():
                fields = self.mapping(value, f"sources.{name}", _SOURCE)
                if "title" not in fields:
                    raise self.fail(key, f"sources.{name}: missing 'title'")
                sources[name] = {k: self.text(v, f"sources.{name}.{k}")
                                 for k, (_, v) in fields.items()}
        self.sources = sources
        causes = {c.name: c for c in base.causes} if base is not None else {}
        if "causes" in top:
            for name, (key, value) in self.mapping(top["causes"][1], "causes", None).items():
                causes[name] = self.cause(name, key, value)
        for block in ("causes", "restart", "checkpoint"):
            if base is None and block not in top:
                raise self.fail(node, f"missing {block!r} (the library has causes, restart "
                                "and checkpoint)")
        restart = (self.restart(top["restart"][1]) if "restart" in top
                   else base.restart if base is not None else None)
        checkpoint = (self.checkpoint(top["checkpoint"][1]) if "checkpoint" in top
                      else base.checkpoint if base is not None else None)
        assert restart is not None and checkpoint is not None
        name = self.text(top["name"][1], "name") if "name" in top else self.label
        return Library(name, tuple(causes.values()), restart, checkpoint, sources)

    def _source(self, fields: dict, what: str) -> str:
        _key, value = fields["source"]
        source = self.text(value, f"{what}.source")
        if source not in self.sources:
            raise self.fail(value, f"{what}.source: {source!r} is not in 'sources' (known: "
                            f"{', '.join(self.sources) or 'none'})")
        return source

    def cause(self, name: str, key: yaml.Node, node: yaml.Node) -> Cause:
        what = f"causes.{name}"
        fields = self.mapping(node, what, _CAUSE)
        for required in ("per", "rate", "stops", "source", "derived"):
            if required not in fields:
                raise self.fail(node, f"{what}: missing {required!r} (a cause has per, rate, "
                                "stops, source and derived)")
        per_node = fields["per"][1]
        per = self.text(per_node, f"{what}.per")
        if per not in UNITS:
            close = difflib.get_close_matches(per, UNITS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise self.fail(per_node, f"{what}.per: unknown unit {per!r}{hint}; a rate is "
                            f"counted per one of {', '.join(UNITS)}")
        stops_node = fields["stops"][1]
        stops = self.text(stops_node, f"{what}.stops")
        if stops not in STOPS:
            raise self.fail(stops_node, f"{what}.stops: expected one of {', '.join(STOPS)}, "
                            f"got {stops!r}")
        rate = self.number(fields["rate"][1], f"{what}.rate (failures per 1,000 unit-days)",
                           high=1e6)
        repair = (self.number(fields["repair_hours"][1], f"{what}.repair_hours", high=1e5)
                  if "repair_hours" in fields else 24.0)
        label = self.text(fields["label"][1], f"{what}.label") if "label" in fields else name
        return Cause(name, label, per, rate, stops, repair, self._source(fields, what),
                     self.text(fields["derived"][1], f"{what}.derived"))

    def restart(self, node: yaml.Node) -> Restart:
        fields = self.mapping(node, "restart", _RESTART)
        for required in ("detect_s", "restart_s", "derived"):
            if required not in fields:
                raise self.fail(node, f"restart: missing {required!r}")
        if "source" in fields:
            self._source(fields, "restart")
        return Restart(self.number(fields["detect_s"][1], "restart.detect_s", high=1e6),
                       self.number(fields["restart_s"][1], "restart.restart_s", high=1e6),
                       self.text(fields["derived"][1], "restart.derived"))

    def checkpoint(self, node: yaml.Node) -> CheckpointFacts:
        fields = self.mapping(node, "checkpoint", _CHECKPOINT)
        for required in ("bytes_per_param", "default_bytes_per_gpu", "storage_GBps_per_gpu"):
            if required not in fields:
                raise self.fail(node, f"checkpoint: missing {required!r}")
        if "source" in fields:
            self._source(fields, "checkpoint")
        blocking = True
        if "blocking" in fields:
            blocking = self.value(fields["blocking"][1], "checkpoint.blocking")
            if not isinstance(blocking, bool):
                raise self.fail(fields["blocking"][1], "checkpoint.blocking: expected true "
                                "or false")

        def text(key: str) -> str:
            return self.text(fields[key][1], f"checkpoint.{key}") if key in fields else ""

        return CheckpointFacts(
            self.number(fields["bytes_per_param"][1], "checkpoint.bytes_per_param",
                        positive=True, high=1e3),
            self.number(fields["default_bytes_per_gpu"][1], "checkpoint.default_bytes_per_gpu",
                        positive=True, high=1e15),
            self.number(fields["storage_GBps_per_gpu"][1], "checkpoint.storage_GBps_per_gpu",
                        positive=True, high=1e6),
            blocking, text("derived"), text("default_derived"), text("storage_derived"))


__all__ = ["STOPS", "UNITS", "Cause", "CheckpointFacts", "Library", "LibraryError", "Restart",
           "bundled_path", "load_library", "parse_library"]
