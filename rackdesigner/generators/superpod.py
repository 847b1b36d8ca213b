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

- GB200 NVL72 (`--racks N`): see `nvl72pod`.
- `--switch` replaces the RA's switch: `q3400` (XDR, 144 ports) for fabrics beyond the 65,536
  endpoints a three-level QM9700 fat tree can take (the RAs stop at 64 SUs), `sn5600` for the
  Spectrum-X Ethernet variant (`ethernet`: a SuperNIC per GPU, no UFM slot). `--sus` still
  counts the RA's SUs (32 DGX B200 each: `--sus 400` is 102,400 GPUs), but the leaves group as
  many nodes as the new switch has endpoint ports (72 on a Q3400, as in the DGX SuperPOD
  B300-XDR RA; 32 on an SN5600), so no leaf port is left idle.

By default only the compute (east-west) fabric is generated; `fabrics="compute,storage,oob"`
adds the storage fabric (`sidefabrics`: the storage NICs' cabling, storage leaves and spines,
storage appliances) and the out-of-band network's access layer (an SN2201 per rack, every BMC
cabled). The in-band management fabric and management servers are left out.
"""

from __future__ import annotations

from dataclasses import dataclass

from rackdesigner.catalog import Catalog
from rackdesigner.generators.design import GeneratorError
from rackdesigner.generators.ethernet import is_ethernet_switch
from rackdesigner.generators.nvl72pod import build_nvl72_superpod
from rackdesigner.generators.rail import Reserved, build_rail, plan_rail
from rackdesigner.generators.systems import NVL72_SYSTEMS
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
                  nodes: int | None = None, switch: str | None = None):
    if system not in PRESETS or system not in catalog:
        known = ", ".join(s for s in (*PRESETS, *NVL72_SYSTEMS) if s in catalog)
        raise GeneratorError(f"no DGX SuperPOD reference design for {system!r} "
                             f"(choose one of: {known})")
    if (sus is None) == (nodes is None):
        raise GeneratorError("give either {sus} or {nodes}")
    preset = PRESETS[system]
    reserved = _reserved(catalog, preset, switch)
    # another switch: SUs of as many nodes as its leaves have endpoint ports (the B300-XDR RA's
    # 72 per Q3400 leaf), so no leaf port is left idle
    own = switch is None or catalog.resolve(switch) == preset.switch
    per_su = preset.nodes_per_su if own else _endpoint_ports(catalog, switch)
    if sus is not None:  # the RA's SUs, whatever the switch: --sus 400 is 400 x 32 DGX B200
        if sus < 1:
            raise GeneratorError("at least 1 scalable unit is needed", "sus")
        nodes = sus * preset.nodes_per_su - reserved.slots
    assert nodes is not None
    if nodes < 1:
        raise GeneratorError("at least 1 node is needed", "nodes")
    try:
        return plan_rail(catalog, system, nodes, switch or preset.switch, per_su,
                         reserved.slots)
    except GeneratorError as exc:
        if switch is None and "three-level" in str(exc):
            raise GeneratorError(f"{exc.template}; beyond that the reference architecture's "
                                 f"{preset.switch} cannot go: set {{switch}} to q3400 (144-port "
                                 "XDR switches)") from None
        raise


def _endpoint_ports(catalog: Catalog, switch: str | None) -> int:
    from rackdesigner.generators.design import fabric_port

    spec = catalog.get(switch or "")
    if not spec.traits.fabric_switch:
        raise GeneratorError(f"{switch} is not a switch (try q3400 or sn5600)", "switch")
    return spec.port(fabric_port(spec)).count // 2


def _reserved(catalog: Catalog, preset: Preset, switch: str | None) -> Reserved:
    """The UFM slot is InfiniBand's: an Ethernet (Spectrum-X) fabric has none."""
    if switch is not None and is_ethernet_switch(catalog.get(switch)):
        return Reserved()
    return preset.reserved


def build_superpod(catalog: Catalog, system: str, sus: int | None = None,
                   nodes: int | None = None, racks: int | None = None,
                   switch: str | None = None, fabrics: str | None = None) -> Layout:
    """A DGX SuperPOD of `system`: its compute fabric, plus the fabrics `fabrics` names
    ("compute,storage": `sidefabrics`)."""
    from rackdesigner.generators.sidefabrics import parse_fabrics

    drawn = parse_fabrics(fabrics)
    if system in NVL72_SYSTEMS:
        if nodes is not None:
            raise GeneratorError("a GB200 NVL72 SuperPOD is sized in racks: give {racks} "
                                 "(or {sus}, 8 racks each)")
        if (sus is None) == (racks is None):
            raise GeneratorError("give either {racks} or {sus}")
        if sus is not None and sus < 1:
            raise GeneratorError("at least 1 scalable unit is needed", "sus")
        return build_nvl72_superpod(catalog, racks if racks is not None else 8 * (sus or 0),
                                    switch, system, storage="storage" in drawn,
                                    oob="oob" in drawn)
    if racks is not None:
        raise GeneratorError("{racks} is for the gb200-nvl72 system; DGX SuperPODs take {sus} "
                             "or {nodes}")
    plan = superpod_plan(catalog, system, sus, nodes, switch)
    preset = PRESETS[system]
    spec = catalog.get(system)
    gpus = plan.nodes * _gpus(catalog, system)
    fabric = "Spectrum-X Ethernet" if plan.nic else "InfiniBand"
    title = f"DGX SuperPOD, {plan.nodes} x {spec.model} ({plan.sus} SU, {gpus} GPUs)"
    deviation = ""
    if switch is not None and switch != preset.switch:
        deviation = f" (the RA's {preset.switch} replaced by {plan.switch}"
        deviation += f", compute NICs by {plan.nic})" if plan.nic else ")"
    description = (f"Compute {fabric} fabric after the {preset.source}{deviation}: "
                   f"rail-optimized, non-blocking, {plan.clos.levels} switch levels of "
                   f"{plan.switch}. " + _side_note(drawn))
    return build_rail(catalog, plan, title, description, _reserved(catalog, preset, switch),
                      drawn)


def _side_note(drawn: frozenset[str]) -> str:
    """What the description says of the fabrics beside the compute fabric."""
    if drawn == {"compute"}:
        return "Storage and management fabrics are not included."
    parts = []
    if "storage" in drawn:
        parts.append("an InfiniBand storage fabric (storage leaves, spines and appliances; "
                     "counts a model assumption)")
    if "oob" in drawn:
        parts.append("the out-of-band network's access layer (an SN2201 per rack, every BMC "
                     "cabled)")
    return ("With " + " and ".join(parts) + " (generators/sidefabrics.py); the in-band "
            "management network is not included.")


def _gpus(catalog: Catalog, system: str) -> int:
    spec = catalog.get(system)
    assert spec.system is not None
    return sum(p.count for p in spec.system.parts if catalog.get(p.model).traits.computes)
