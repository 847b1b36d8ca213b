"""`rackdesigner models`: list the bundled transformer models (table or JSON)."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "models", help="list the bundled training models",
        description="List the transformer models `estimate --model` takes by id (any other "
        "model: give the path of a model file, see docs/workload.md).")
    parser.add_argument("--json", action="store_true", help="print a JSON list")
    parser.add_argument("--profiles", action="store_true",
                        help="list the efficiency profiles (software stacks) `estimate "
                        "--profile` takes instead")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rackdesigner.cli import UsageError
    from rackdesigner.io.jsonout import json_text
    from rackdesigner.workload import ModelFileError, bundled_models

    if args.profiles:
        return _profiles(args)
    try:
        models = bundled_models()
    except ModelFileError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        sys.stdout.write(json_text([m.to_dict() for m in models], newline=True))
        return 0
    rows = [("id", "name", "params", "active", "layers", "hidden", "heads/kv", "seq", "experts")]
    for m in models:
        experts = f"{m.moe.experts} (top {m.moe.top_k})" if m.moe else "-"
        rows.append((m.id, m.name, f"{m.params / 1e9:,.1f}B", f"{m.active_params / 1e9:,.1f}B",
                     str(m.layers), str(m.hidden), f"{m.heads}/{m.kv_heads}", str(m.seq_len),
                     experts))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        sys.stdout.write("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                         + "\n")
    return 0


def _profiles(args: argparse.Namespace) -> int:
    from rackdesigner.cli import UsageError
    from rackdesigner.io.jsonout import json_text
    from rackdesigner.workload.profile import DEFAULT_PROFILE, ProfileError, bundled_profiles

    try:
        profiles = bundled_profiles()
    except ProfileError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        sys.stdout.write(json_text([dict(p.to_dict(), default=p.id == DEFAULT_PROFILE)
                                    for p in profiles], newline=True))
        return 0
    for p in profiles:
        default = " (default)" if p.id == DEFAULT_PROFILE else ""
        overlap = ", ".join(k for k, on in (("TP", p.tp_overlap), ("DP", p.dp_overlap),
                                             ("EP", p.ep_overlap)) if on) or "none"
        sys.stdout.write(f"{p.id}{default}: {p.name}\n    attention {p.attention}, overlap "
                         f"{overlap}, gradients {p.grad_dtype}\n")
    return 0
