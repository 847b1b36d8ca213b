"""Folded-Clos (fat-tree) planning: how many switches of each tier, and who connects to whom.

Pure arithmetic, no layout. Leaves have `down` ports towards endpoints and `up` ports towards
spines. Two levels: every leaf connects to every spine with the same number `m` of parallel links;
the spine count is the smallest divisor of `up` whose switches have ports for all leaves, which
is exactly how the DGX SuperPOD tables size their spine layer (H100: 3 SUs → 16 spines, sized
for 4; B300-XDR: 4 SUs → 18 spines). Three levels: leaves form pods of `leaves_per_pod`; each
pod has `up` spines (one link from every pod leaf to every pod spine), each spine has as many
uplinks as downlinks, and spine *j* of every pod connects to core group *j*, whose size is again
the smallest divisor that gives the cores enough ports (B200 16/32/64 SUs → 64/128/256 cores).
"""

from __future__ import annotations

from dataclasses import dataclass

from rackdesigner.generators.design import GeneratorError


@dataclass(frozen=True, slots=True)
class ClosPlan:
    radix: int
    levels: int
    leaves: int
    down: int
    up: int
    spines: int
    cores: int = 0
    pods: int = 1
    leaves_per_pod: int = 0
    spines_per_pod: int = 0
    leaf_spine_m: int = 1
    spine_up: int = 0
    core_group: int = 0
    spine_core_m: int = 0

    @property
    def leaf_spine_links(self) -> int:
        return self.leaves * self.up if self.spines else 0

    @property
    def spine_core_links(self) -> int:
        return self.spines * self.spine_up if self.levels == 3 else 0

    @property
    def switches(self) -> int:
        return self.leaves + self.spines + self.cores


def _smallest_divisor_at_least(n: int, minimum: float) -> int | None:
    for d in range(1, n + 1):
        if n % d == 0 and d >= minimum:
            return d
    return None


def plan_two_level(leaves: int, radix: int, down: int, up: int) -> ClosPlan:
    if leaves > radix:
        raise GeneratorError(f"a two-level fabric of {radix}-port switches takes at most "
                             f"{radix} leaves ({radix * down} endpoints at {down} per leaf); "
                             f"this design needs {leaves}: use three levels")
    if leaves <= 1:
        return ClosPlan(radix, 2, leaves, down, up, 0)
    spines = _smallest_divisor_at_least(up, leaves * up / radix)
    assert spines is not None  # leaves <= radix guarantees spines = up works
    return ClosPlan(radix, 2, leaves, down, up, spines, leaf_spine_m=up // spines)


def plan_three_level(leaves: int, radix: int, down: int, up: int, leaves_per_pod: int
                     ) -> ClosPlan:
    if leaves_per_pod < 1 or leaves_per_pod * 2 > radix:
        raise GeneratorError(f"a pod of {leaves_per_pod} leaves does not fit {radix}-port spines")
    pods = -(-leaves // leaves_per_pod)
    if pods > radix:
        raise GeneratorError(f"a three-level fabric of {radix}-port switches takes at most "
                             f"{radix} pods of {leaves_per_pod} leaves "
                             f"({radix * leaves_per_pod * down} endpoints); this design needs "
                             f"{pods} pods")
    spine_up = leaves_per_pod
    group = _smallest_divisor_at_least(spine_up, pods * spine_up / radix)
    assert group is not None
    spines_per_pod = up
    return ClosPlan(radix, 3, leaves, down, up, pods * spines_per_pod,
                    cores=spines_per_pod * group, pods=pods, leaves_per_pod=leaves_per_pod,
                    spines_per_pod=spines_per_pod, leaf_spine_m=1, spine_up=spine_up,
                    core_group=group, spine_core_m=spine_up // group)
