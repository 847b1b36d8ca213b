"""LLM serving on a design: prefill and decode times, KV capacity, the throughput-interactivity
curve, aggregated and disaggregated, with every collective timed on the drawn links.

Pure Python (no Qt), beside `workload/` (training): it reads the same model shapes, GPU table
and the engine's collective times through `workload.comm.CommModel`. docs/serving.md explains
the model and compares it with published serving measurements.
"""

from __future__ import annotations

from rackdesigner.serving.api import SCHEMA, ServeError, ServeResult, serve

__all__ = ["SCHEMA", "ServeError", "ServeResult", "serve"]
