"""`estimate(layout, model, ...)`: what a design does for a training job (the public entry).

An `Estimator` binds a layout, the GPUs in scope (all, a group, or the first N) and a model; it
keeps the engine's figures per group shape, so several jobs (a search, the GUI re-running with
another batch) reuse them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from os import PathLike
from pathlib import Path

from rackdesigner.model import Layout
from rackdesigner.model.failures import closure, degraded
from rackdesigner.simulation.groups import GroupError
from rackdesigner.vocabulary import FABRIC_TUNINGS
from rackdesigner.vocabulary.wording import SettingError
from rackdesigner.workload import hardware as H
from rackdesigner.workload.comm import CommError, CommModel
from rackdesigner.workload.designcache import design_groups
from rackdesigner.workload.job import JOB_WORDS, Job, JobError
from rackdesigner.workload.models import ModelSpec, resolve_model
from rackdesigner.workload.profile import Profile, ProfileError, resolve_profile
from rackdesigner.workload.result import Estimate
from rackdesigner.workload.step import estimate_job


class EstimateError(SettingError):
    """The design, scope, model or job cannot be estimated (the message says why, in the
    design's words, naming settings as `{name}`; `option` names the setting at fault, for a
    surface to add its own name of it: the CLI's `--gpus`, the Workload tab's field)."""

    DESIGN_WORDS = JOB_WORDS


def _connected(ids: list[str], gpus: int | None, label: str,
               component_of: Mapping[str, str],
               largest_part: bool = False) -> tuple[list[str], str]:
    """The GPUs a job runs on and their label: the first `gpus` of `ids` (all without `gpus`),
    all of them on one connected fabric. A job's TP, PP and DP groups together join every
    rank, so GPUs in two parts of a cut fabric cannot run one job: when the first ones are
    cut apart, the job takes the first `gpus` of the largest part that holds them (a failure's
    job impact is the job on what survives), and `EstimateError` when no part does. With
    `largest_part` and no `gpus` (a search job, which lays itself out on what it is given), a
    cut fabric gives the largest part whole."""
    parts: dict[str | None, list[str]] = {}
    for g in ids:
        parts.setdefault(component_of.get(g), []).append(g)
    want = len(ids) if gpus is None else gpus
    chosen = ids[:want]
    if len(parts) == 1 or len({component_of.get(g) for g in chosen}) == 1:
        if gpus is None:
            return chosen, label
        return chosen, f"the first {gpus:,} of the {len(ids):,} working GPUs of {label}"
    largest = max(parts.values(), key=len)
    if gpus is None and largest_part:
        return largest, (f"the largest connected part of {label} ({len(largest):,} of its "
                         f"{len(ids):,} GPUs)")
    if gpus is not None and len(largest) >= gpus:
        return largest[:gpus], (f"the first {gpus:,} GPUs of the largest connected part of "
                                f"{label} ({len(largest):,} GPUs)")
    raise EstimateError(f"the {want:,} GPUs of {label} cannot all reach each other: the "
                        f"fabric is cut into {len(parts)} parts, the largest with "
                        f"{len(largest):,} GPUs (a job runs on one connected part)",
                        option="gpus")


class Estimator:
    def __init__(self, layout: Layout, model: str | ModelSpec, *, gpus: int | None = None,
                 group: str | None = None, gpu_ids: Sequence[str] | None = None,
                 pue: float | None = None, fabric_tuning: str | None = None,
                 largest_part: bool = False) -> None:
        failed = closure(layout)
        if failed:  # failed parts are left out, as in `simulate` (model/failures.py)
            layout = degraded(layout, failed)
            if gpu_ids is not None:
                gpu_ids = [g for g in gpu_ids if g not in failed.devices]
        self.layout = layout
        self.model = resolve_model(model)
        try:  # the topology every figure reads (kept per state), under the fabric's tuning
            groups = design_groups(layout, fabric_tuning)
        except GroupError as exc:
            raise EstimateError(f"{exc} (expected one of {', '.join(FABRIC_TUNINGS)})",
                                option="fabric_tuning") from None
        self.fabric_tuning = groups.fabric_tuning
        power_devices = None
        try:
            ids = (CommModel.layout_gpus(layout, group, groups) if gpu_ids is None
                   else CommModel.select_gpus(layout, gpu_ids))
            if group is not None:
                from rackdesigner.model.scope import ScopeError, find_group

                try:
                    power_devices = layout.group_devices(find_group(layout, group))
                except ScopeError as exc:
                    raise CommError(str(exc)) from None
        except CommError as exc:
            raise EstimateError(str(exc)) from None
        label = (f"group {group}" if group else "the design" if gpu_ids is None
                 else f"{len(ids):,} selected GPUs")
        if not ids:
            raise EstimateError(f"{label} has no GPUs")
        if gpus is not None and (gpus < 1 or gpus > len(ids)):
            raise EstimateError(f"{gpus:,} GPUs asked for, but {label} has "
                                f"{len(ids):,}", option="gpus")
        ids, label = _connected(ids, gpus, label, groups.shape().component_of, largest_part)
        self.label = label
        self.comm = CommModel(layout, ids, pue, groups=groups, power_devices=power_devices)
        try:
            model_id = self.comm.gpu_model()
        except CommError as exc:
            raise EstimateError(str(exc)) from None
        gpu = H.gpu_compute(model_id)
        if gpu is None:
            raise EstimateError(f"no compute figures for GPU model {model_id!r} (known: "
                                + ", ".join(sorted(H.gpu_table())) + ")")
        self.gpu = gpu

    @property
    def gpus(self) -> int:
        return len(self.comm.gpus)

    def profile_of(self, job: Job) -> Profile:
        """The efficiency profile `job` names (the default when it names none)."""
        try:
            return resolve_profile(job.profile)
        except ProfileError as exc:
            raise EstimateError(str(exc)) from None

    def resolve(self, job: Job) -> Job:
        try:
            job = job.resolved(self.gpus, self.model)
        except JobError as exc:
            raise EstimateError(exc.template, exc.option) from None
        if job.sequence_parallel is None:
            job = replace(job, sequence_parallel=self.profile_of(job).sequence_parallel)
        if job.recompute_modules is not None and self.profile_of(job).selective_recompute == "ops":
            raise EstimateError("{recompute_modules} are Megatron-Core's; the "
                                f"{self.profile_of(job).id} profile recomputes operations "
                                "(`selective_recompute: ops`)")
        if H.precision_error(self.gpu, job.precision):
            raise EstimateError(f"{H.precision_error(self.gpu, job.precision)}: set "
                                "{precision} to bf16")
        return job

    def estimate(self, job: Job, tokens: float | None = None, *,
                 time_if_too_big: bool = False) -> Estimate:
        job = self.resolve(job)
        try:
            est = estimate_job(self.model, job, self.comm, self.gpu, self.profile_of(job),
                               tokens, time_if_too_big=time_if_too_big)
            power = self.comm.power_w()
            warnings = tuple(
                ("energy is a lower bound: the " + text) if code == "power_incomplete"
                else text for code, text in self.comm.warnings())
        except CommError as exc:
            raise EstimateError(str(exc)) from None
        messages = list(warnings)
        if job.tp > self.comm.nvlink_domain():
            messages.append(f"TP {job.tp} spans more than one NVLink domain (largest "
                            f"{self.comm.nvlink_domain()} GPUs): its traffic crosses the network")
        if not est.fits:
            messages.append(est.memory.refusal())
        return est.with_context(power_w=power, label=self.label, messages=tuple(messages),
                                fabric_tuning=self.fabric_tuning)


def estimate(layout: Layout | str | PathLike, model: str | ModelSpec, *,
             gpus: int | None = None, group: str | None = None,
             gpu_ids: Sequence[str] | None = None, tp: int = 1, pp: int = 1,
             cp: int = 1, ep: int = 1, vp: int = 1, dp: int | None = None, gbs: int = 1,
             mbs: int = 1, seq: int | None = None, precision: str = "bf16",
             recompute: str = "selective", sharding: str = "optimizer",
             profile: str | None = None, grad_dtype: str | None = None,
             dp_overlap: bool | None = None, sequence_parallel: bool | None = None,
             etp: int | None = None, recompute_modules: Sequence[str] | None = None,
             tokens: float | None = None,
             pue: float | None = None, time_if_too_big: bool = False,
             fabric_tuning: str | None = None) -> Estimate:
    """Estimate one training step of `model` on `layout` (a Layout or a layout file's path):
    on all its GPUs, a group's, listed GPU ids, or the first `gpus` of those.

    `profile` names the software stack's efficiency profile (a bundled id such as `nemo-2025`,
    the default, or a profile file). `fabric_tuning` is the NCCL network setting the cluster
    runs (`vocabulary.FABRIC_TUNINGS`; default vendor-tuned, the level NVIDIA publishes for
    its reference architectures; `typical-defaults`: NCCL's defaults). Raises `EstimateError`
    (degrees that do not divide, unknown model, profile or tuning, GPUs that cannot reach each
    other) or `ModelFileError` (a bad model file). A job that does not fit in memory is
    returned with `fits` false and no step time, unless `time_if_too_big` (then it is timed
    and `timed_anyway` says so).
    """
    if not isinstance(layout, Layout):
        from rackdesigner.io import load_layout

        layout = load_layout(Path(layout))
    est = Estimator(layout, model, gpus=gpus, group=group, gpu_ids=gpu_ids, pue=pue,
                    fabric_tuning=fabric_tuning)
    job = Job(tp=tp, pp=pp, cp=cp, ep=ep, vp=vp, dp=dp, gbs=gbs, mbs=mbs, seq=seq,
              precision=precision, recompute=recompute, sharding=sharding, profile=profile,
              grad_dtype=grad_dtype, dp_overlap=dp_overlap, sequence_parallel=sequence_parallel,
              etp=etp, recompute_modules=None if recompute_modules is None
              else tuple(recompute_modules))
    return est.estimate(job, tokens, time_if_too_big=time_if_too_big)


__all__ = ["EstimateError", "Estimator", "estimate"]
