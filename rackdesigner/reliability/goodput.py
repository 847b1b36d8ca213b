"""Goodput of a job that restarts from checkpoints: the checkpoint interval, the effective
training time ratio (ETTR) and the share of time enough healthy GPUs are at hand.

- Interval: Daly's higher-order optimum (Daly 2006) of Young's first-order model (Young 1974):
  tau = sqrt(2 d M) [1 + sqrt(d / 2M) / 3 + d / 18M] - d for a checkpoint taking d seconds and
  a mean time between interruptions M (tau = M once d >= 2M), unless the user gives one.
- ETTR (Young's first-order accounting): each interval of work tau pays a checkpoint of d, and
  each interruption costs the restart R (detection + relaunch) plus, on average, half an
  interval and its checkpoint of lost work:
  ETTR = tau / (tau + d) x max(0, 1 - (R + (tau + d) / 2) / M).
- Spares: while a fault's part is repaired, the GPUs it stopped are out. Outages in repair at
  once are Poisson with mean mu = sum(rate x repair time) (Little's law); each takes, on average,
  the rate-and-repair-weighted GPUs b. A job of N GPUs with S spares runs while the GPUs out
  are no more than S: P = P(Poisson(mu) <= floor(S / b)). Correlated failures (a rack's power)
  and slow-but-not-failed parts are outside this model (docs/reliability.md).
"""

from __future__ import annotations

import math

#: No checkpoint interval is shorter than this (a checkpoint every few seconds is not a
#: setting any framework offers; it also keeps the optimum finite when writes are free).
MIN_INTERVAL_S = 60.0


def optimum_interval(write_s: float, mtbf_s: float) -> float:
    """Daly's optimum checkpoint interval, seconds of work between checkpoints."""
    if not math.isfinite(mtbf_s) or mtbf_s <= 0:
        return MIN_INTERVAL_S if mtbf_s <= 0 else 86400.0 * 365
    d = max(write_s, 0.0)
    if d >= 2 * mtbf_s:
        return max(mtbf_s, MIN_INTERVAL_S)
    x = d / (2 * mtbf_s)
    tau = math.sqrt(2 * d * mtbf_s) * (1 + math.sqrt(x) / 3 + x / 9) - d
    return max(tau, MIN_INTERVAL_S)


def ettr(interval_s: float, write_s: float, restart_s: float, mtbf_s: float) -> float:
    """The share of wall-clock time spent on work that is kept (module docstring)."""
    tau, d = interval_s, max(write_s, 0.0)
    if tau <= 0:
        raise ValueError("the checkpoint interval must be greater than 0")
    useful = tau / (tau + d)
    if not math.isfinite(mtbf_s):
        return useful
    if mtbf_s <= 0:
        return 0.0
    return useful * max(0.0, 1.0 - (restart_s + (tau + d) / 2) / mtbf_s)


def poisson_cdf(k: int, mu: float) -> float:
    """P(X <= k) for X ~ Poisson(mu), summed in log space (mu up to thousands)."""
    if k < 0:
        return 0.0
    if mu <= 0:
        return 1.0
    total = 0.0
    log_term = -mu
    for i in range(k + 1):
        if i:
            log_term += math.log(mu) - math.log(i)
        total += math.exp(log_term)
        if i > mu and math.exp(log_term) < 1e-18:
            break
    return min(total, 1.0)


def spares_needed(mu: float, mean_blast: float, p: float = 0.99) -> int:
    """Spare GPUs that keep the job whole with probability `p` (whole outages of
    `mean_blast` GPUs each, rounded up)."""
    if mu <= 0 or mean_blast <= 0:
        return 0
    k = 0
    while poisson_cdf(k, mu) < p and k < 1_000_000:
        k += 1
    return math.ceil(k * mean_blast)


def p_job_runs(spares: int, mu: float, mean_blast: float) -> float:
    """The share of time no more GPUs are out for repair than there are spares."""
    if mu <= 0 or mean_blast <= 0:
        return 1.0
    return poisson_cdf(math.floor(spares / mean_blast + 1e-9), mu)


__all__ = ["MIN_INTERVAL_S", "ettr", "optimum_interval", "p_job_runs", "poisson_cdf",
           "spares_needed"]
