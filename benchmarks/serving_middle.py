"""What the published data allow in the middle of the GB200 NVL72 / 8-GPU B200 comparison
(DeepSeek-R1 FP4 1k/1k, InferenceX 2026-05-22), and whether the model's wide-EP exchange is
what makes its middle fast.

    python3 benchmarks/serving_middle.py

1. **The MoE all-to-all on the drawn rack.** The serving model's dispatch and combine of one
   MoE layer (serving/links.py on the simulation engine, the NVL72 as generated) against the
   latencies TensorRT-LLM publishes for its NVLinkOneSided kernels on a GB200 NVL72
   (`benchmarks/published/trtllm_moe_alltoall.yaml`, tech blog 18), same payload (BF16 tokens
   to min(EP, top-k) ranks). Ratio > 1: the model's exchange is slower than the kernels.
2. **The published-step envelope.** InferenceX ran DEP32 on the rack at 4 sequences per GPU
   with 3 draft tokens (16 tokens per GPU per step) and at 64 with 1 (128 tokens); its
   tok/s/user times the tokens a step gains gives the decode step of each. A step between them
   grows with its tokens (linearly here, extrapolated past 128 tokens), so DEP32 at 8-64
   sequences per GPU with 3 draft tokens — the batches InferenceX's recipes skipped — has the
   speed those two steps imply. Its deployment's total tok/s/GPU is counted as the validation
   script's recipe curve counts InferenceX's own (sequences x speed x (ISL + OSL) / OSL over the
   decode and prefill GPUs), with prefill GPUs in 4-GPU workers at the request rate the
   published 64-per-GPU deployment's prefill pool carried. Interpolated with the published
   points as the dashboard interpolates (monotone cubic), it says what the published steps
   allow at 100, 125 and 150 tok/s/user, next to InferenceX's table and the model's curve.
"""

from __future__ import annotations

import math
import sys
from functools import cache
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import serving_validation as V  # noqa: E402

from rackdesigner.generators import generate  # noqa: E402
from rackdesigner.serving.api import served_model, speed_at  # noqa: E402
from rackdesigner.serving.frontier import tokens_per_step  # noqa: E402
from rackdesigner.serving.links import Links  # noqa: E402
from rackdesigner.workload.api import Estimator  # noqa: E402

ALLTOALL_FILE = HERE / "published" / "trtllm_moe_alltoall.yaml"
#: the sequences per GPU (3 draft tokens) the envelope prices on DEP32
ENVELOPE_PER_GPU = (8, 16, 32, 64)
#: the iso-interactivity points the envelope is read at
MIDDLE = (100.0, 125.0, 150.0)
DEP32 = {"gpus": 32, "attention_dp": True, "pp": 1}


def alltoall_rows(path: Path = ALLTOALL_FILE) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


@cache
def _links(ep: int) -> Links:
    rack = generate("nvl72")
    return Links(Estimator(rack, served_model("deepseek-r1")).comm, ep)


def alltoall_compare() -> list[tuple[dict, float, float]]:
    """(published row, model dispatch + combine µs, published dispatch + combine µs) per row."""
    data = alltoall_rows()
    out = []
    for r in data["runs"]:
        ep = int(r["ep"])
        size = r["tokens"] * min(ep, data["top_k"]) * data["hidden"] * data["bytes_per_element"]
        model = 2.0 * _links(ep).time("all_to_all", float(size), ep) * 1e6
        out.append((r, model, float(r["dispatch_us"]) + float(r["combine_us"])))
    return out


def _dep32_rows() -> list[V.Row]:
    rows = [r for r in V.load_rows() if r.point == "speed" and r.system == "nvl72"
            and r.config.get("gpus") == 32 and r.config.get("attention_dp")]
    return sorted(rows, key=lambda r: r.batch)


def published_steps() -> list[tuple[float, float]]:
    """(tokens per GPU per step, step seconds) of InferenceX's DEP32 deployments."""
    return [(r.batch / 32 * (1 + r.mtp), tokens_per_step(r.mtp) / r.measured)
            for r in _dep32_rows()]


def envelope() -> list[dict]:
    """DEP32 at ENVELOPE_PER_GPU sequences per GPU with 3 draft tokens, as the published steps
    imply: speed, prefill GPUs, total tok/s/GPU — and the model's speed of the same layout."""
    (t0, s0), (t1, s1) = published_steps()
    wide = _dep32_rows()[-1]  # the published deployment whose prefill pool sets the rate
    rate_per_gpu = wide.batch * wide.measured / wide.osl / wide.prefill_gpus
    rack = V.design("nvl72")
    out = []
    for per in ENVELOPE_PER_GPU:
        tokens = per * 4
        step = s0 + (s1 - s0) * (tokens - t0) / (t1 - t0)
        speed = tokens_per_step(3) / step
        seqs = per * 32
        prefill = 4 * math.ceil(seqs * speed / wide.osl / rate_per_gpu / 4)
        total = seqs * speed * (wide.isl + wide.osl) / wide.osl / (32 + prefill)
        model = speed_at(rack, "deepseek-r1", DEP32, seqs, precision="fp4", isl=wide.isl,
                         osl=wide.osl, gpus=72, mtp=3)
        out.append({"per_gpu": per, "tokens": tokens, "step_ms": step * 1e3, "speed": speed,
                    "prefill_gpus": prefill, "total_per_gpu": total, "model_speed": model})
    return out


def middle() -> list[dict]:
    """At MIDDLE tok/s/user: InferenceX's table (rack, B200 nodes), the rack's published
    deployments alone and with the envelope's, interpolated as the dashboard does."""
    rows = V.load_rows()
    results = [(r, 0.0, 0.0) for r in rows]
    published = V.recipe_points(results, "nvl72", False)
    allowed = published + [(e["speed"], e["total_per_gpu"]) for e in envelope()]
    allowed = [p for p in allowed if not any(q[0] >= p[0] and q[1] > p[1] for q in allowed)]
    table = {(r.system, r.interactivity): r.measured for r in rows
             if r.point == "interactivity"}
    return [{"x": x, "table_rack": table[("nvl72", x)],
             "table_b200": table[("dgx-b200-x9-roce", x)],
             "published_points": V.monotone_at(published, x),
             "allowed": V.monotone_at(allowed, x)} for x in MIDDLE]


def main() -> int:
    print("MoE all-to-all per layer (dispatch + combine, BF16), model on the drawn NVL72 vs "
          "TensorRT-LLM's NVLinkOneSided kernels (tech blog 18)")
    print(f"{'EP':>3} {'tokens/rank':>11} {'published us':>12} {'model us':>9} {'ratio':>6}")
    for r, model, pub in alltoall_compare():
        print(f"{r['ep']:3d} {r['tokens']:11d} {pub:12.1f} {model:9.1f} {model / pub:6.2f}")
    print("\nInferenceX's DEP32 steps on the rack (tokens per GPU per step, ms): "
          + ", ".join(f"{t:g} -> {s * 1e3:.1f}" for t, s in published_steps()))
    print(f"{'seq/GPU':>7} {'tokens':>6} {'step ms':>8} {'tok/s/user':>10} {'model':>6} "
          f"{'prefill':>7} {'tok/s/GPU':>9}")
    for e in envelope():
        print(f"{e['per_gpu']:7d} {e['tokens']:6d} {e['step_ms']:8.1f} {e['speed']:10.1f} "
              f"{e['model_speed']:6.1f} {e['prefill_gpus']:7d} {e['total_per_gpu']:9,.0f}")
    print("\nat tok/s/user: InferenceX table rack / B200, the rack's published deployments "
          "alone, with the envelope; ratios over the table's B200")
    for m in middle():
        pub, allowed = m["published_points"], m["allowed"]
        print(f"{m['x']:5.0f}: table {m['table_rack']:6,.0f} / {m['table_b200']:5,.0f} "
              f"({m['table_rack'] / m['table_b200']:.2f}x); published points {pub:6,.0f} "
              f"({pub / m['table_b200']:.2f}x); with the envelope {allowed:6,.0f} "
              f"({allowed / m['table_b200']:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
