"""The frozen result of an estimate and its JSON form (`rackdesigner.estimate/1`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from rackdesigner.workload import hardware as H
from rackdesigner.workload.job import Job
from rackdesigner.workload.models import ModelSpec
from rackdesigner.workload.profile import Profile
from rackdesigner.workload.spread import throughput_range, time_range, training_class

SCHEMA = "rackdesigner.estimate/1"
BREAKDOWN_KEYS = ("compute_s", "tp_exposed_s", "cp_exposed_s", "ep_exposed_s",
                  "moe_dispatch_s", "pp_bubble_s", "pp_p2p_s", "dp_exposed_s", "optimizer_s")


def _r(value: float | None, digits: int = 4) -> float | None:
    if value is None or value != value:
        return None
    return float(f"{value:.{digits}g}")


@dataclass(frozen=True)
class Memory:
    """GB per GPU on the busiest GPU."""

    weights_GB: float
    gradients_GB: float
    optimizer_GB: float
    activations_GB: float
    hbm_GB: float

    @property
    def total_GB(self) -> float:
        return self.weights_GB + self.gradients_GB + self.optimizer_GB + self.activations_GB

    @property
    def usable_GB(self) -> float:
        return H.usable_GB(self.hbm_GB)

    @property
    def fits(self) -> bool:
        return self.total_GB <= self.usable_GB

    def to_dict(self) -> dict[str, Any]:
        return {"weights_GB": _r(self.weights_GB), "gradients_GB": _r(self.gradients_GB),
                "optimizer_GB": _r(self.optimizer_GB), "activations_GB": _r(self.activations_GB),
                "total_GB": _r(self.total_GB), "hbm_GB": self.hbm_GB,
                "usable_GB": _r(self.usable_GB)}

    def refusal(self) -> str:
        return (f"does not fit: {self.total_GB:,.1f} GB per GPU (weights {self.weights_GB:,.1f}, "
                f"gradients {self.gradients_GB:,.1f}, optimizer {self.optimizer_GB:,.1f}, "
                f"activations {self.activations_GB:,.1f}) > {self.usable_GB:,.1f} GB usable of "
                f"{self.hbm_GB:,.1f} GB HBM")


@dataclass(frozen=True)
class Estimate:
    model: ModelSpec
    job: Job
    gpu: H.GpuCompute
    memory: Memory
    step_time_s: float | None  # None: refused (does not fit)
    breakdown: dict[str, float]
    comm: dict[str, dict]  # per communication: collective, group size, bytes, time, busbw
    model_flops: float  # per step, all GPUs
    tokens: float | None = None  # tokens to train, for time and energy
    peak_tflops: float = 0.0
    hardware: dict[str, float] = field(default_factory=dict)
    gemms: tuple[dict, ...] = ()  # per GEMM of a layer: shape, waves, bound (gemm.profile)
    power_w: tuple[float, float] = (0.0, 0.0)  # (IT at max, facility)
    label: str = ""  # scope
    messages: tuple[str, ...] = ()
    profile: Profile | None = None  # the efficiency profile it was estimated with
    fabric_tuning: str = ""  # the NCCL network setting the engine's figures assume

    @property
    def fits(self) -> bool:
        return self.memory.fits

    @property
    def timed_anyway(self) -> bool:
        """Timed although it does not fit (`--time-anyway`): the time is marked as such."""
        return not self.fits and self.step_time_s is not None

    @property
    def gpus(self) -> int:
        return self.job.gpus

    @property
    def tokens_per_step(self) -> int:
        return self.job.gbs * (self.job.seq or 0)

    @property
    def tokens_per_s(self) -> float | None:
        return self.tokens_per_step / self.step_time_s if self.step_time_s else None

    @property
    def mfu(self) -> float | None:
        if not self.step_time_s or not self.peak_tflops:
            return None
        return self.model_flops / self.step_time_s / self.gpus / (self.peak_tflops * 1e12)

    @property
    def energy_kWh_per_step(self) -> float | None:
        if not self.step_time_s:
            return None
        return self.power_w[1] * self.step_time_s / 3.6e6

    def with_context(self, **changes: Any) -> Estimate:
        return replace(self, **changes)

    @property
    def spread_class(self) -> str:
        """The class of published runs whose spread the figures' ranges carry (spread.py)."""
        return training_class(self.model.moe is not None)

    def ranges(self) -> dict[str, dict[str, Any]]:
        """{figure: {"range": [lo, hi], "class": name}} for the figures that rest on the fitted
        model: step time, tokens/s (and per GPU), model TFLOP/s per GPU, MFU and time to
        train; empty when not timed or the class has no spread on file."""
        t = self.step_time_s
        if not t:
            return {}
        cls, tps = self.spread_class, self.tokens_per_s
        out = {"step_time_s": time_range(t, cls),
               "tokens_per_s": throughput_range(tps, cls),
               "tokens_per_s_per_gpu": throughput_range(tps / self.gpus if tps else None, cls),
               "model_tflops_per_gpu": throughput_range(
                   self.model_flops / t / self.gpus / 1e12, cls),
               "mfu": throughput_range(self.mfu, cls)}
        if self.tokens:
            days = self.tokens / self.tokens_per_step * t / 86400
            out["time_to_train_days"] = time_range(days, cls)
        return {k: v for k, v in out.items() if v is not None}

    def exposed_comm_s(self) -> float:
        b = self.breakdown
        return sum(b.get(k, 0.0) for k in ("tp_exposed_s", "cp_exposed_s", "ep_exposed_s",
                                           "pp_p2p_s", "dp_exposed_s"))

    def to_dict(self) -> dict[str, Any]:
        t = self.step_time_s
        tps = self.tokens_per_s
        out: dict[str, Any] = {
            "schema": SCHEMA,
            "model": {"id": self.model.id, "name": self.model.name,
                      "params_B": _r(self.model.params / 1e9),
                      "active_params_B": _r(self.model.active_params / 1e9)},
            "scope": {"gpus": self.gpus, "gpu_model": self.gpu.model, "label": self.label},
            "fits": self.fits,
            "step_time_s": _r(t),
            "tokens_per_s": _r(tps),
            "tokens_per_s_per_gpu": _r(tps / self.gpus) if tps else None,
            "model_tflops_per_gpu": _r(self.model_flops / t / self.gpus / 1e12) if t else None,
            "mfu": _r(self.mfu, 3),
            "gemm_efficiency": _r(self.hardware.get("gemm_efficiency"), 3) if t else None,
            "compute_detail": {k: _r(self.hardware.get(k, 0.0)) for k in (
                "recompute_s", "attention_s", "memory_bound_s", "launch_gaps_s")} if t else {},
            "profile": ({"id": self.profile.id, "name": self.profile.name}
                        if self.profile else None),
            "fabric_tuning": self.fabric_tuning or None,
            "gemms": [dict(g) for g in self.gemms] if t else [],
            "peak_tflops_per_gpu": self.peak_tflops,
            "breakdown": {k: _r(self.breakdown.get(k, 0.0)) if t else None
                          for k in BREAKDOWN_KEYS},
            "memory_per_gpu_GB": _r(self.memory.total_GB),
            "memory": self.memory.to_dict(),
            "parallelism": self.job.to_dict(),
            "communication": self.comm,
            "power_W": {"it_max": _r(self.power_w[0]), "facility": _r(self.power_w[1])},
            "energy_kWh_per_step": _r(self.energy_kWh_per_step),
            "ranges": self.ranges(),
            "assumptions": list(H.ASSUMPTIONS),
            "messages": list(self.messages),
        }
        if self.tokens:
            out["tokens"] = self.tokens
            steps = self.tokens / self.tokens_per_step
            out["time_to_train_days"] = _r(steps * t / 86400) if t else None
            ekwh = self.energy_kWh_per_step
            out["energy_MWh"] = _r(steps * ekwh / 1000) if ekwh else None
        if not self.fits:
            out["refused"] = self.memory.refusal()
            out["timed_anyway"] = t is not None
        return out


__all__ = ["BREAKDOWN_KEYS", "SCHEMA", "Estimate", "Memory"]
