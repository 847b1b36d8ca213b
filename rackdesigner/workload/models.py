"""Transformer model descriptions: the bundled catalog (`resources/models/`) and users' files.

A model file (`schema_version: 1`) gives the shape of a decoder-only transformer: layers, hidden
size, attention heads and KV heads (or a multi-head-latent-attention block), FFN size and kind,
vocabulary, default sequence length and, for a mixture of experts, the expert block. Unknown keys
and missing required keys are errors; every error names the file, the line and what was expected
(`ModelFileError`). Parameter counts are derived once (`ModelSpec.params`), so memory, FLOPs
and the catalog listing agree.

The shape itself and the figures derived from it are `model_spec.py`; this module reads the
files. Every name is still imported from here.
"""

from __future__ import annotations

import difflib
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from rackdesigner._resources import resources_root
from rackdesigner.workload.model_spec import _MOE_KEYS, MlaSpec, ModelSpec, MoeSpec, WindowSpec

SCHEMA_VERSION = 1
FFN_KINDS = ("gelu", "swiglu")
_TOP_KEYS = ("schema_version", "name", "layers", "hidden", "heads", "kv_heads", "head_dim",
             "ffn_hidden", "ffn", "vocab", "seq_len", "moe", "mla", "sliding_window", "dropout",
             "rope", "tie_embeddings", "source")
_REQUIRED = ("schema_version", "name", "layers", "hidden", "heads", "ffn", "vocab", "seq_len",
             "source")
_WINDOW_KEYS = ("window", "every")
_MLA_KEYS = ("q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",
             "v_head_dim")
MAX_FILE_BYTES = 1024 * 1024
#: Bounds far above any published model (the largest have ~100-200 layers, hidden ~20k,
#: vocab ~250k, 256 experts): a larger figure is a typo or a hostile file, and the estimator's
#: per-layer work must stay bounded.
MAX_INT = 10**9
MAXIMA = {"layers": 10_000, "hidden": 1_000_000, "heads": 100_000, "kv_heads": 100_000,
          "experts": 100_000, "top_k": 100_000, "every": 10_000, "first_dense": 10_000,
          "shared_experts": 100_000, "seq_len": 100_000_000}


class ModelFileError(ValueError):
    """A model file cannot be used: says where (file:line) and what was expected."""

    def __init__(self, path: str, message: str, line: int | None = None) -> None:
        self.path, self.message, self.line = path, message, line
        super().__init__(f"{path}:{line}: {message}" if line else f"{path}: {message}")


# ---- reading ---------------------------------------------------------------------------------
def models_dir() -> Path:
    return resources_root() / "models"


def bundled_ids() -> list[str]:
    return list(_bundled_ids())


@lru_cache(maxsize=1)
def _bundled_ids() -> tuple[str, ...]:
    """The shipped model files, listed once: every estimate resolves its model through this
    (a layout search, many times), and a worker cancelled inside a directory listing left its
    scandir iterator open (a ResourceWarning in the GUI tests)."""
    return tuple(sorted(p.stem for p in models_dir().glob("*.yaml")))


def bundled_models() -> list[ModelSpec]:
    return [load_model_file(models_dir() / f"{i}.yaml") for i in bundled_ids()]


def resolve_model(ref: str | ModelSpec) -> ModelSpec:
    """A bundled id (`llama3-70b`) or the path of a model file."""
    if isinstance(ref, ModelSpec):
        return ref
    ids = bundled_ids()
    if ref in ids:
        return load_model_file(models_dir() / f"{ref}.yaml")
    path = Path(ref)
    if path.suffix in (".yaml", ".yml") or path.exists():
        return load_model_file(path)
    close = difflib.get_close_matches(ref, ids, n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise ModelFileError(ref, f"no bundled model {ref!r} and no such file{hint}; "
                         f"bundled: {', '.join(ids)}")


def load_model_file(path: str | Path) -> ModelSpec:
    return _Reader(str(path), Path(path).stem).read(_compose(path, ModelFileError))


def _compose(path: str | Path, error: type[ModelFileError]) -> Any:
    """The YAML node tree of a small data file (model, profile), or `error` saying why not.
    Read under inputs.py's discipline: a regular UTF-8 file of at most 1 MiB (checked before
    reading: a FIFO or /dev/zero is refused, not read), YAML without aliases, tags, runaway
    nesting or numbers of hundreds of digits."""
    from rackdesigner.inputs import InputError, compose_yaml, read_text

    name = str(path)
    try:
        return compose_yaml(read_text(Path(path), MAX_FILE_BYTES, "model file"), name)
    except InputError as exc:
        raise error(name, exc.message, exc.line) from None


class _Reader:
    def __init__(self, path: str, stem: str) -> None:
        self.path, self.stem = path, stem

    def fail(self, line: int | None, message: str) -> ModelFileError:
        return ModelFileError(self.path, message, line)

    def mapping(self, node: Any, keys: tuple[str, ...], what: str,
                line: int | None = None) -> dict[str, tuple[Any, int]]:
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node.start_mark.line + 1 if node is not None else line,
                            f"{what} must be a mapping of keys to values")
        out: dict[str, tuple[Any, int]] = {}
        for key_node, value_node in node.value:
            key = key_node.value
            kline = key_node.start_mark.line + 1
            if key not in keys:
                close = difflib.get_close_matches(str(key), keys, n=1)
                hint = f" (did you mean {close[0]}?)" if close else ""
                raise self.fail(kline, f"unknown key {key!r} in {what}{hint}; expected one of "
                                + ", ".join(keys))
            out[key] = (value_node, kline)  # a key given twice: refused by the loader
        return out

    def value(self, node: Any) -> Any:
        if isinstance(node, yaml.ScalarNode):
            from rackdesigner.inputs import scalar_value

            try:
                return scalar_value(node)
            except ValueError as exc:
                raise self.fail(node.start_mark.line + 1, str(exc)) from None
        return node

    def integer(self, entries: dict, key: str, *, default: int | None = None,
                minimum: int = 1, what: str = "") -> int:
        if key not in entries:
            if default is None:
                raise self.fail(None, f"missing required key {key!r}{what}")
            return default
        node, line = entries[key]
        v = self.value(node)
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(line, f"{key} must be a whole number, got {_short(v)}")
        if v < minimum:
            raise self.fail(line, f"{key} must be at least {minimum}, got {v}")
        high = MAXIMA.get(key, MAX_INT)
        if v > high:  # `layers: 10**21` made `estimate` loop for ever
            raise self.fail(line, f"{key} must be at most {high:,}, got {_short(v)}")
        return v

    def text(self, entries: dict, key: str) -> str:
        node, line = entries[key]
        v = self.value(node)
        if not isinstance(v, str) or not v.strip():
            raise self.fail(line, f"{key} must be a non-empty text, got {_short(v)}")
        return v.strip()

    def read(self, root: Any) -> ModelSpec:
        if root is None:
            raise self.fail(None, "the file is empty; expected a model description "
                            "(schema_version: 1, name, layers, hidden, ...)")
        e = self.mapping(root, _TOP_KEYS, "the model file")
        missing = [k for k in _REQUIRED if k not in e]
        if missing:
            raise self.fail(root.start_mark.line + 1, "missing required key"
                            f"{'s' if len(missing) > 1 else ''} " + ", ".join(missing))
        node, line = e["schema_version"]
        version = self.value(node)
        if version != SCHEMA_VERSION:
            raise self.fail(line, f"schema_version {_short(version)} is not supported "
                            f"(this RackDesigner reads {SCHEMA_VERSION})")
        hidden = self.integer(e, "hidden")
        heads = self.integer(e, "heads")
        head_dim = self.integer(e, "head_dim", default=0, minimum=0)
        if hidden % heads and not head_dim:
            raise self.fail(e["heads"][1], f"heads ({heads}) must divide hidden ({hidden}), "
                            "or give head_dim")
        kv_heads = self.integer(e, "kv_heads", default=heads)
        if kv_heads > heads or heads % kv_heads:
            raise self.fail(e["kv_heads"][1], f"kv_heads ({kv_heads}) must divide heads "
                            f"({heads})")
        node, line = e["ffn"]
        ffn = self.value(node)
        if ffn not in FFN_KINDS:
            raise self.fail(line, f"ffn must be one of {', '.join(FFN_KINDS)}, got {_short(ffn)}")
        layers = self.integer(e, "layers")
        moe = None
        if "moe" in e:
            node, line = e["moe"]
            m = self.mapping(node, _MOE_KEYS, "moe", line)
            for key in ("experts", "top_k", "expert_ffn_hidden"):
                if key not in m:
                    raise self.fail(line, f"moe is missing required key {key!r}")
            moe = MoeSpec(self.integer(m, "experts"), self.integer(m, "top_k"),
                          self.integer(m, "expert_ffn_hidden"),
                          self.integer(m, "shared_experts", default=0, minimum=0),
                          self.integer(m, "every", default=1),
                          self.integer(m, "first_dense", default=0, minimum=0))
            if moe.top_k > moe.experts:
                raise self.fail(m["top_k"][1], f"top_k ({moe.top_k}) cannot exceed experts "
                                f"({moe.experts})")
            if moe.first_dense >= layers:
                raise self.fail(m["first_dense"][1], f"first_dense ({moe.first_dense}) leaves "
                                f"no MoE layer of the {layers}")
        mla = None
        if "mla" in e:
            node, line = e["mla"]
            a = self.mapping(node, _MLA_KEYS, "mla", line)
            for key in _MLA_KEYS:
                if key not in a:
                    raise self.fail(line, f"mla is missing required key {key!r}")
            mla = MlaSpec(*(self.integer(a, k) for k in _MLA_KEYS))
        window = None
        if "sliding_window" in e:
            node, line = e["sliding_window"]
            w = self.mapping(node, _WINDOW_KEYS, "sliding_window", line)
            if "window" not in w:
                raise self.fail(line, "sliding_window is missing required key 'window'")
            window = WindowSpec(self.integer(w, "window"), self.integer(w, "every", default=1))
        dropout = 0.0
        if "dropout" in e:
            node, line = e["dropout"]
            dropout = self.value(node)
            if isinstance(dropout, bool) or not isinstance(dropout, int | float) \
                    or not 0 <= dropout < 1:
                raise self.fail(line, f"dropout must be a probability from 0 to below 1, got "
                                f"{_short(dropout)}")
        tie, rope = self.flag(e, "tie_embeddings", False), self.flag(e, "rope", True)
        return ModelSpec(
            id=self.stem, name=self.text(e, "name"), layers=layers, hidden=hidden, heads=heads,
            kv_heads=kv_heads, ffn_hidden=self.integer(e, "ffn_hidden", default=4 * hidden),
            ffn=ffn, vocab=self.integer(e, "vocab"), seq_len=self.integer(e, "seq_len"),
            source=self.text(e, "source"), moe=moe, mla=mla, tie_embeddings=tie,
            path=self.path, head_dim_=head_dim, window=window, dropout=float(dropout), rope=rope)

    def flag(self, entries: dict, key: str, default: bool) -> bool:
        if key not in entries:
            return default
        node, line = entries[key]
        v = self.value(node)
        if not isinstance(v, bool):
            raise self.fail(line, f"{key} must be true or false, got {_short(v)}")
        return v


def _short(value: Any) -> str:
    if isinstance(value, yaml.Node):
        return "a " + ("mapping" if isinstance(value, yaml.MappingNode) else "list")
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


__all__ = ["FFN_KINDS", "MlaSpec", "ModelFileError", "ModelSpec", "MoeSpec", "WindowSpec",
           "bundled_ids", "bundled_models", "load_model_file", "models_dir", "resolve_model"]
