"""Serving columns of sweep results (`serve:` in a spec: the options of `rackdesigner serve`).

`serve: {model: deepseek-r1, precision: fp4, isl: 1024, osl: 1024, interactivity: 75}` adds
`SERVE_COLUMNS` to every point: output tokens/s per GPU at the target (at max load without
one), $ per million output tokens at the point's $/GPU-hour (the cost columns'), tokens/s per MW.
`check_serve` refuses a bad block at spec-load time (the serving job file's own checks); a point
whose GPUs cannot serve it fails with the reason, and one where the model fits no layout has
empty columns.
"""

from __future__ import annotations

from typing import Any

SERVE_COLUMNS = ("serve_tokens_per_s_per_gpu", "serve_usd_per_million_tokens",
                 "serve_tokens_per_s_per_mw")


def _job(value: Any):
    import yaml

    from rackdesigner.serving.jobfile import parse_serve_job

    return parse_serve_job(yaml.safe_dump(value), "serve")


def check_serve(value: Any) -> str | None:
    """Why a spec's `serve:` value cannot be used, or None when it can."""
    from rackdesigner.serving.jobfile import ServeJobError
    from rackdesigner.serving.shapes import served_model

    if not isinstance(value, dict) or not value:
        return ("'serve' must be a mapping of `rackdesigner serve` options (e.g. {model: "
                "deepseek-r1, precision: fp4, isl: 1024, osl: 1024})")
    try:
        job = _job(value)
        served_model(job.model)
    except ServeJobError as exc:
        return f"'serve': {str(exc).split(': ', 1)[-1]}"
    except ValueError as exc:
        return f"'serve' model: {exc}"
    return None


def serve_columns(layout: Any, value: dict[str, Any], usd_per_gpu_hour: float | None
                  ) -> dict[str, Any]:
    from rackdesigner.serving import serve

    job = _job(value)
    try:
        r = serve(layout, job.model, usd_per_gpu_hour=usd_per_gpu_hour, **job.options())
    except ValueError as exc:
        raise ValueError(f"serve: {exc}") from None
    p = r.basis

    def rounded(v: float | None, digits: int) -> float | None:
        return None if v is None else round(v, digits)

    return {"serve_tokens_per_s_per_gpu": None if p is None else round(p.output_per_gpu, 2),
            "serve_usd_per_million_tokens": rounded(r.usd_per_million_tokens, 4),
            "serve_tokens_per_s_per_mw": rounded(r.tokens_per_s_per_mw, 1)}


__all__ = ["SERVE_COLUMNS", "check_serve", "serve_columns"]
