"""A training job written down: a YAML file of `rackdesigner estimate` options (`--job FILE`).

The keys are the estimate's options, as a sweep spec's `workload:` takes them (that block can
be pasted as it is, with or without its `workload:` key)::

    model: llama3-70b        # a bundled id (`rackdesigner models`) or a model file
    gpus: 1008               # optional: the first N GPUs (of `group`)
    tp: 8
    pp: 4
    gbs: 512

or, for a job each design lays out for itself (`workload/jobsearch.py`: the fastest layout on
the design's GPUs, or on fewer when that is faster)::

    model: deepseek-v3
    layout: search           # fixed (the default): the degrees given
    gbs: 1024
    tokens: 15T

Every error names the file, the line and what was expected. The heat map and `whatif` read the
job from here (the GUI takes it from the Workload tab instead).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from rackdesigner.workload.job import (
    GRAD_DTYPES,
    PRECISIONS,
    RECOMPUTE,
    RECOMPUTE_MODULES,
    SHARDING,
    Job,
)
from rackdesigner.workload.models import resolve_model

DEGREES = ("tp", "pp", "cp", "ep", "vp", "dp", "gbs", "mbs", "seq", "etp")
CHOICES = {"precision": PRECISIONS, "recompute": RECOMPUTE, "sharding": SHARDING,
           "grad_dtype": GRAD_DTYPES}
FLAGS = ("dp_overlap",)
MAX_BYTES = 64 * 1024  # a job file is a dozen lines
#: Parallel degrees, batch sizes and GPU counts past this are typos or hostile files.
MAX_DEGREE = 10**7
#: 10^18 tokens: a million times the largest published training runs (~1.5e13).
MAX_TOKENS = 1e18
KEYS = ("model", "gpus", "group", "layout", *DEGREES, *CHOICES, *FLAGS, "profile", "tokens",
        "pue", "recompute_modules")
#: `layout:` fixed (the degrees given) or search (each design finds its own)
LAYOUTS = ("fixed", "search")
#: what a search job chooses for itself (a job file giving one of these is a fixed layout)
SEARCHED = ("tp", "pp", "cp", "ep", "vp", "dp", "mbs", "etp", "recompute")


class JobFileError(ValueError):
    """A job file that cannot be used: `file:line: what was expected`."""


@dataclass(frozen=True)
class JobSpec:
    """A job file's content: the model, the job and the GPUs it runs on."""

    model: str
    job: Job
    gpus: int | None = None
    group: str | None = None
    tokens: float | None = None
    pue: float | None = None
    source: str = ""
    options: dict[str, Any] = field(default_factory=dict, compare=False)
    #: each design finds the job's layout (`layout: search`) instead of taking its degrees
    search: bool = False


def load_job(path: str | Path) -> JobSpec:
    """Read and check a job file (see the module docstring); raises `JobFileError`."""
    from rackdesigner.inputs import InputError, read_text

    label = str(path)
    try:  # a FIFO or device is refused at once, never waited on (inputs.py)
        text = read_text(path, MAX_BYTES, "job file")
    except InputError as exc:
        raise JobFileError(str(exc)) from None
    spec = parse_job(text, label)
    model = Path(spec.model)
    if model.suffix and not model.is_absolute() and not model.exists():
        beside = Path(path).parent / model  # a model file next to the job file
        if beside.exists():
            spec = replace(spec, model=str(beside))
    profile = Path(spec.job.profile or "")
    if profile.suffix and not profile.is_absolute() and not profile.exists():
        beside = Path(path).parent / profile  # a profile file next to the job file
        if beside.exists():
            spec = replace(spec, job=replace(spec.job, profile=str(beside)))
    return spec


def parse_job(text: str, label: str = "<job>") -> JobSpec:
    from rackdesigner.inputs import InputError, compose_yaml, scalar_value

    try:  # aliases, tags, deep nesting and 4,300-digit numbers refused (rackdesigner/inputs.py)
        node = compose_yaml(text, label, max_nodes=10_000)
    except InputError as exc:
        raise JobFileError(f"{exc} (expected a YAML job file)") from None

    def fail(n: yaml.Node | None, message: str) -> JobFileError:
        line = f":{n.start_mark.line + 1}" if n is not None else ""
        return JobFileError(f"{label}{line}: {message}")

    if node is None:
        raise fail(None, "the job file is empty (expected e.g. model: llama3-70b, tp: 8, "
                   "gbs: 512)")
    entries = _mapping(node, fail)
    if set(entries) == {"workload"}:  # a sweep spec's block, pasted with its key
        node = entries["workload"][1]
        entries = _mapping(node, fail)
    values: dict[str, Any] = {}
    for name, (key, value) in entries.items():
        if name not in KEYS:
            close = difflib.get_close_matches(name, KEYS, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise fail(key, f"unknown key {name!r}; {hint}(a job file takes: {', '.join(KEYS)})")
        if name == "recompute_modules":  # a list, or names separated by commas
            values[name] = _modules(value, fail)
            continue
        try:
            v = scalar_value(value)
        except ValueError:
            raise fail(value, f"{name}: unsupported value (expected a single number or "
                       "name)") from None
        if name in (*DEGREES, "gpus"):
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_DEGREE:
                raise fail(value, f"{name} must be a whole number from 1 to {MAX_DEGREE:,}, "
                           f"got {_short(v)}")
        elif name in CHOICES:
            if v not in CHOICES[name]:
                raise fail(value, f"{name} must be one of {', '.join(CHOICES[name])}, got {v!r}")
        elif name == "layout":
            if v not in LAYOUTS:
                raise fail(value, f"layout must be one of {', '.join(LAYOUTS)}, got {v!r}")
        elif name in ("model", "group", "profile"):
            if not isinstance(v, str) or not v:
                raise fail(value, f"{name} must be a name, got {v!r}")
        elif name in FLAGS:
            if not isinstance(v, bool):
                raise fail(value, f"{name} must be true or false, got {v!r}")
        elif name == "pue":
            if isinstance(v, bool) or not isinstance(v, int | float) or not 1 <= v < 10:
                raise fail(value, f"pue must be a number from 1 to 10, got {v!r}")
            v = float(v)
        elif name == "tokens":
            try:
                v = token_count(v)
            except ValueError as exc:
                raise fail(value, f"tokens: {exc}") from None
        values[name] = v
    if "model" not in values:
        raise fail(node, "missing 'model': a bundled model id (`rackdesigner models`) or a "
                   "model file")
    if "gbs" not in values:
        raise fail(node, "missing 'gbs': the global batch in sequences")
    search = values.get("layout") == "search"
    if search:
        chosen = [k for k in SEARCHED if k in values]
        if chosen:
            raise fail(entries[chosen[0]][0], f"{chosen[0]}: a search job (layout: search) "
                       "chooses its own degrees; remove it, or set layout: fixed")
    model = values["model"]
    if not Path(model).suffix:  # a bundled id: check it now, with its line
        try:
            resolve_model(model)
        except ValueError as exc:
            raise fail(entries["model"][1], f"model: {exc}") from None
    if "profile" in values and not Path(values["profile"]).suffix:
        from rackdesigner.workload.profile import resolve_profile

        try:
            resolve_profile(values["profile"])
        except ValueError as exc:
            raise fail(entries["profile"][1], f"profile: {exc}") from None
    job = Job(**{k: values[k] for k in (*DEGREES, *CHOICES, *FLAGS, "profile",
                                         "recompute_modules") if k in values})
    return JobSpec(model, job, values.get("gpus"), values.get("group"), values.get("tokens"),
                   values.get("pue"), label, values, search)


def dump_job(spec: JobSpec) -> str:
    """The job file of `spec` (what `parse_job` reads back as the same spec): the GUI's Save
    Job writes this."""
    from rackdesigner.workload.job import Job

    default = Job()
    lines = ["# RackDesigner training job (rackdesigner estimate/compare/whatif --job FILE)",
             f"model: {_quoted(spec.model)}"]
    if spec.search:
        lines.append("layout: search")
    for key, value in (("gpus", spec.gpus), ("group", spec.group)):
        if value is not None:
            lines.append(f"{key}: {_quoted(value) if isinstance(value, str) else value}")
    for key in (*DEGREES, *CHOICES, *FLAGS, "profile"):
        if spec.search and key in SEARCHED:
            continue
        value = getattr(spec.job, key, None)
        if value is None or (key != "gbs" and value == getattr(default, key, None)):
            continue
        lines.append(f"{key}: {_quoted(value) if isinstance(value, str) else value}")
    modules = spec.job.recompute_modules
    if modules and not spec.search:
        lines.append(f"recompute_modules: [{', '.join(modules)}]")
    if spec.tokens:
        lines.append(f"tokens: {round(spec.tokens)}")
    if spec.pue is not None:
        lines.append(f"pue: {spec.pue:g}")
    return "\n".join(lines) + "\n"


def _quoted(text: str) -> str:
    from rackdesigner.io.jsonout import json_text

    return json_text(text, indent=None)  # a JSON string is a YAML string: any name, escaped


def _modules(node: yaml.Node, fail) -> tuple[str, ...]:
    """`recompute_modules`: Megatron-Core's module names (job.RECOMPUTE_MODULES), as a YAML
    list or one comma-separated name; each unknown name is refused at its line."""
    from rackdesigner.inputs import scalar_value

    items = node.value if isinstance(node, yaml.SequenceNode) else [node]
    out: list[str] = []
    for item in items:
        try:
            v = scalar_value(item)
        except ValueError:
            raise fail(item, "recompute_modules: expected module names such as "
                       "[layernorm, moe_act]") from None
        for name in (str(v).split(",") if v is not None else [""]):
            name = name.strip()
            if name not in RECOMPUTE_MODULES:
                close = difflib.get_close_matches(name, RECOMPUTE_MODULES, n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                raise fail(item, f"recompute_modules: unknown module {_short(name)}; {hint}"
                           f"(Megatron-Core's modules the estimator models: "
                           f"{', '.join(RECOMPUTE_MODULES)})")
            out.append(name)
    return tuple(dict.fromkeys(out))


def _mapping(node: yaml.Node, fail) -> dict[str, tuple[yaml.Node, yaml.Node]]:
    if not isinstance(node, yaml.MappingNode):
        raise fail(node, "expected a mapping of estimate options (model: ..., tp: ..., "
                   "gbs: ...)")
    out: dict[str, tuple[yaml.Node, yaml.Node]] = {}
    for key, value in node.value:
        name = key.value if isinstance(key, yaml.ScalarNode) else None
        if not isinstance(name, str):
            raise fail(key, "keys must be option names")
        out[name] = (key, value)  # a key given twice: refused by the loader
    return out


_UNITS = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}


def token_count(value: Any) -> float:
    """A token count from a number or text such as `15T`, `500B`, `2e12` (job files, sweep
    specs)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:
            number = float("inf")
    elif isinstance(value, str):
        t = value.strip().lower()
        try:
            if len(t) > 64:
                raise ValueError
            number = float(t[:-1] if t[-1:] in _UNITS else t) * _UNITS.get(t[-1:], 1.0)
        except ValueError:
            raise ValueError(f"expected a token count such as 15T or 2e12, got {value!r}") \
                from None
    else:
        raise ValueError(f"expected a token count such as 15T or 2e12, got {value!r}")
    if not 0 < number <= MAX_TOKENS:  # NaN and infinities fail too
        raise ValueError(f"the token count must be positive and at most {MAX_TOKENS:.0e}, got "
                         f"{_short(value)}")
    return number


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


__all__ = ["JobFileError", "JobSpec", "load_job", "parse_job", "token_count"]
