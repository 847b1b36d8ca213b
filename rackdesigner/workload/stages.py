"""How Megatron-Core spreads a model's layers over pipeline stages, and what each stage holds.

Two layouts, as Megatron-Core builds them (`megatron/core/transformer/transformer_block.py`
`get_num_layers_to_build`, `pipeline_parallel/schedules.py`):

- **even** (the default): every stage runs L / PP layers (uneven splits: ⌈L/PP⌉ on the busiest
  stage, which the estimate also charges the output layer, as before);
- **embedding and loss accounted** (`account_for_embedding_in_pipeline_split` and
  `account_for_loss_in_pipeline_split`): the input embedding and the loss each take one layer's
  slot, so (L + 2) / (PP x VP) slots per model chunk — the first chunk of the first stage runs one
  layer fewer, the last chunk of the last stage too. It is how a model whose layers do not divide
  PP x VP runs when L + 2 does: NeMo's Llama 3.1 405B recipes set both flags (Megatron-Bridge
  `recipes/llama/llama3.py` `llama31_405b_pretrain_config`: 126 layers, PP 8 / 16 with VP 8 / 4).
  The estimator applies it exactly then.

Memory held for the backward pass follows the schedule, per pipeline rank: 1F1B keeps PP - rank
micro-batches in flight; the interleaved schedule runs 2 x (PP - rank - 1) + (VP - 1) x PP
warm-up forwards of model chunks (chunk (k // PP) mod VP at the k-th) before the first backward,
so it holds one more than that (`forward_backward_pipelining_with_interleaving`). On rank 0 with
an even split that is Korthikanti et al. 2022's PP x (1 + (PP - 1) / (PP x VP)) stages' worth.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rackdesigner.workload.job import Job
from rackdesigner.workload.models import ModelSpec


@dataclass(frozen=True, slots=True)
class Stage:
    """One pipeline rank: transformer layers per model chunk, and whether it holds the input
    embedding and the output layer (with the loss)."""

    rank: int
    chunks: tuple[float, ...]  # layers per model chunk (fractional: an uneven split's average)
    embedding: bool
    output: bool

    @property
    def layers(self) -> float:
        return float(sum(self.chunks))


def accounted(model: ModelSpec, job: Job) -> bool:
    """Whether the embedding and the loss take a layer slot each (see the module docstring)."""
    slots = job.pp * job.vp
    return job.pp > 1 and model.layers % slots != 0 and (model.layers + 2) % slots == 0


def stages(model: ModelSpec, job: Job) -> tuple[Stage, ...]:
    """The first, second and last pipeline ranks (the ones whose memory or time can be the
    largest); one stage without pipeline parallelism."""
    pp, vp = job.pp, job.vp
    if pp == 1:
        return (Stage(0, (model.layers,), True, True),)
    ranks = sorted({0, 1, pp - 1})
    if accounted(model, job):
        per = float((model.layers + 2) // (pp * vp))
        out = []
        for r in ranks:
            chunks = [per] * vp
            if r == 0:
                chunks[0] -= 1.0
            if r == pp - 1:
                chunks[-1] -= 1.0
            out.append(Stage(r, tuple(chunks), r == 0, r == pp - 1))
        return tuple(out)
    chunk = math.ceil(model.layers / pp) / vp
    return tuple(Stage(r, (chunk,) * vp, r == 0, r == pp - 1) for r in ranks)


def candidates(model: ModelSpec, job: Job) -> tuple[tuple[float, bool], ...]:
    """The stages that can be the slowest: (layers, holds the output layer). Even split: ⌈L/PP⌉
    layers and the output layer (the estimate's convention for uneven splits). Accounted: a
    middle stage's (L + 2) / PP layers, or the last stage's one fewer plus the output layer."""
    if not accounted(model, job):
        return ((math.ceil(model.layers / job.pp), True),)
    per_stage = (model.layers + 2) // job.pp
    last = (float(per_stage - 1), True)  # the loss takes the last slot
    if job.pp == 2:  # the first stage gives its slot to the embedding: no fuller stage
        return (last,)
    return ((float(per_stage), False), last)


def inflight_layers(job: Job, stage: Stage) -> float:
    """Layers' worth of one micro-batch's activations the stage holds at its peak."""
    pp, vp, m = job.pp, job.vp, job.microbatches
    if pp == 1:
        return float(stage.layers)
    if vp == 1:
        return min(pp - stage.rank, m) * float(stage.layers)
    total = m * vp
    warm = 2 * (pp - stage.rank - 1) + (vp - 1) * pp
    held = total if warm >= total else warm + 1
    return float(sum(stage.chunks[(k // pp) % vp] for k in range(held)))


def inflight_microbatches(job: Job, stage: Stage) -> float:
    """Micro-batches in flight at the stage's peak (for what is held per micro-batch, not per
    layer: the last stage's logits)."""
    if job.pp == 1:
        return 1.0
    return inflight_layers(job, stage) / (stage.layers or 1.0)


__all__ = ["Stage", "accounted", "candidates", "inflight_layers",
           "inflight_microbatches", "stages"]
