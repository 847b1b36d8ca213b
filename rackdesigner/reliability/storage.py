"""Where a checkpoint goes: the storage systems the GPUs reach over the fabric, and the
bandwidth to write to them (`structure.StoragePath`).

Per storage system (the storage role of the vocabulary) the GPUs' hosts reach over network links
(the storage fabric's included): the
lesser of its rated write throughput (its kind's `write_GBps` fact) and its links' bandwidth;
summed over them, and no more than the GPU hosts' own NIC bandwidth. The fabric between is not
checked for a bottleneck (the simulation's bisection says what it carries).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rackdesigner.reliability.structure import ROLE_CODES, StoragePath
from rackdesigner.vocabulary.wording import counted


def storage_path(index: Any, conn: Any, ids: list[str], roles: np.ndarray, label: np.ndarray,
                 node_gpus: np.ndarray, net_a: np.ndarray, net_b: np.ndarray,
                 net_GBps: np.ndarray) -> StoragePath:
    """The storage path of a design whose devices are `ids` (with role codes `roles` and host
    node labels `label`) and whose network links join rows `net_a` and `net_b` at `net_GBps`."""
    storage = np.flatnonzero(roles == ROLE_CODES["storage"])
    if not len(storage):
        return StoragePath(None, 0, 0, basis="no storage system in the design")
    n = len(ids)
    wired = np.zeros(n)
    client = 0.0
    in_gpu_node = node_gpus[label] > 0
    for end in (net_a, net_b):
        wired += np.bincount(end, weights=net_GBps, minlength=n)
        clients = (roles[end] == ROLE_CODES["nic"]) & in_gpu_node[end]
        client += float(net_GBps[clients].sum())
    # over any network link (the storage fabric's too: the compute fabric's connectivity,
    # `conn`, leaves storage and management links out), a host's devices joined in its node
    from rackdesigner.model.linktable import components

    joined = components(n, np.concatenate([net_a, np.arange(n)]), np.concatenate([net_b, label]))
    gpus = np.flatnonzero(roles == ROLE_CODES["gpu"])
    gpu_components = set(joined[gpus].tolist())
    reachable = [s for s in storage.tolist() if int(joined[s]) in gpu_components]
    if not reachable:
        drawn = counted(len(storage), "storage system")
        return StoragePath(None, len(storage), 0, basis=f"{drawn} drawn, none reachable from "
                           "the GPUs over the fabric")
    rated = appliance = 0.0
    unrated = 0
    for s in reachable:
        spec = index.spec(ids[s])
        value = spec.fact("write_GBps") if spec is not None else None
        if value is None:
            unrated += 1
            continue
        appliance += float(value)
        rated += min(float(value), float(wired[s]))
    wired_total = float(wired[reachable].sum())
    write = min(rated, client) if client else rated
    limit = ("the storage systems' rated write throughput" if appliance <= wired_total
             else "the storage systems' links")
    if client and client < rated:
        limit = "the GPU hosts' NIC bandwidth"
    basis = (f"{counted(len(reachable), 'storage system')} reachable over the fabric: "
             f"{appliance:,.0f} GB/s rated write, {wired_total:,.0f} GB/s of links; "
             f"limited by {limit}")
    if unrated:
        basis += f"; {unrated} without a write figure left out"
    return StoragePath(write if write > 0 else None, len(storage), len(reachable), appliance,
                       wired_total, client, basis)


__all__ = ["storage_path"]
