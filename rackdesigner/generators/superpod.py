"""DGX SuperPOD compute fabrics as NVIDIA's reference architectures publish them.

- DGX H100 (RA-11333-001, Table 4): SU = 32 DGX H100 on 8 QM9700 rail leaves; one node slot of
  SU 1 goes to the UFM connections (4 cables), so 1/2/3/4 SUs hold 31/63/95/127 nodes with
  8/16/24/32 leaves, 4/8/16/16 spines, 252/508/764/1020 node+UFM cables and 256/512/768/1024
  leaf-spine cables. The UFM appliances are represented by their fabric adapters (the catalog
  has no UFM appliance model): 2 appliances x 2 ConnectX-7 ports = the 4 published cables.
- DGX H200: the same fabric as the H100 design.
- DGX B200 (DGX SuperPOD B200 RA): SU = 32 DGX B200, QM9700, no UFM slot in the compute table;
  2/4/8 SUs are two levels (16/32/64 leaves, 8/16/32 spines), 16/32/64 SUs add a core tier
  (128/256/512 spines, 64/128/256 cores, every tier 4096/8192/16384 cables).
- DGX A100: SU = 20 DGX A100 on 8 QM8700 (HDR, 40 ports) leaves. The A100 RA's table was not
  available to check, so its spine and core counts follow the same sizing rule and are derived,
  not published.

Only the compute (east-west) InfiniBand fabric is generated: storage, in-band and out-of-band
management fabrics, management servers and the storage NICs' cabling are left out.
"""

from __future__ import annotations

from dataclasses import dataclass

from rackdesigner.catalog import Catalog
from rackdesigner.generators.design import GeneratorError
from rackdesigner.generators.rail import Reserved, build_rail, plan_rail
from rackdesigner.model import Layout


@dataclass(frozen=True, slots=True)
class Preset:
    switch: str
    nodes_per_su: int
    reserved: Reserved
    source: str


_UFM = Reserved(slots=1, model="connectx-7-dual", appliances=2, cables=4,
                label="UFM appliances (fabric adapters)")
PRESETS: dict[str, Preset] = {
    "dgx-h100": Preset("qm9700", 32, _UFM, "DGX SuperPOD H100 reference architecture "
                       "RA-11333-001, Table 4"),
    "dgx-h200": Preset("qm9700", 32, _UFM, "DGX SuperPOD H100 reference architecture "
                       "RA-11333-001, Table 4 (same fabric for DGX H200)"),
    "dgx-b200": Preset("qm9700", 32, Reserved(), "DGX SuperPOD B200 reference architecture, "
                       "compute fabric component table"),
    "dgx-a100": Preset("qm8700", 20, Reserved(), "derived from the DGX SuperPOD sizing rules "
                       "(A100 RA table not checked)"),
}


def superpod_plan(catalog: Catalog, system: str, sus: int | None = None,
                  nodes: int | None = None):
    if system not in PRESETS or system not in catalog:
        known = ", ".join(s for s in PRESETS if s in catalog)
        raise GeneratorError(f"no DGX SuperPOD reference design for {system!r} "
                             f"(choose one of: {known})")
    if (sus is None) == (nodes is None):
        raise GeneratorError("give either --sus N or --nodes N")
    preset = PRESETS[system]
    if sus is not None:
        if sus < 1:
            raise GeneratorError("--sus must be at least 1")
        nodes = sus * preset.nodes_per_su - preset.reserved.slots
    assert nodes is not None
    if nodes < 1:
        raise GeneratorError("--nodes must be at least 1")
    return plan_rail(catalog, system, nodes, preset.switch, preset.nodes_per_su,
                     preset.reserved.slots)


def build_superpod(catalog: Catalog, system: str, sus: int | None = None,
                   nodes: int | None = None) -> Layout:
    plan = superpod_plan(catalog, system, sus, nodes)
    preset = PRESETS[system]
    spec = catalog.get(system)
    gpus = plan.nodes * _gpus(catalog, system)
    title = f"DGX SuperPOD, {plan.nodes} x {spec.model} ({plan.sus} SU, {gpus} GPUs)"
    description = (f"Compute InfiniBand fabric after the {preset.source}: rail-optimized, "
                   f"non-blocking, {plan.clos.levels} switch levels of {plan.switch}. "
                   "Storage and management fabrics are not included.")
    return build_rail(catalog, plan, title, description, preset.reserved)


def _gpus(catalog: Catalog, system: str) -> int:
    spec = catalog.get(system)
    assert spec.system is not None
    return sum(p.count for p in spec.system.parts if catalog.get(p.model).kind == "gpu")
