"""A DGX SuperPOD of GB200 NVL72 racks: `superpod --system gb200-nvl72 --racks N`.

What follows NVIDIA's DGX SuperPOD GB200 reference architecture (docs.nvidia.com/dgx-superpod/
reference-architecture-scalable-infrastructure-gb200): a scalable unit is 8 DGX GB200 racks
(576 GPUs, 1.2 MW); each rack is 18 compute trays and 9 NVLink switch trays (the catalog's
`gb200-nvl72`); every compute tray's 4 ConnectX-7 NICs (one per GPU) join an NDR 400 Gb/s
InfiniBand compute fabric, rail-optimized and non-blocking; a partial SU gets its full leaves
and leaf–spine cables, as the RA asks.

Where this deviates or derives (the RA's per-SU switch table was not readable to check):

- rails: NIC *i* of every tray is rail *i* (4 rails). A rail's leaves take `radix / 2` trays
  each (32 on a QM9700), so an SU's 144 trays need ceil(144 / 32) = 5 leaves per rail, 20 per
  SU, the last of each rail half used — the same sizing rule as the DGX SuperPODs, not a
  published count;
- above the leaves the fabric is the Clos of `clos.py`: two levels while the leaves fit one
  spine layer (3 SUs of QM9700), then pods of whole SUs under a core tier;
- `--switch q3400` (XDR, 144 ports) builds the same fabric on Quantum-X800 switches: 8 leaves per
  SU; the trays' NDR NICs run at 400 Gb/s on 800 Gb/s ports (a rate warning per link, as the
  design rules report any rate mismatch); `--switch sn5600` is the Spectrum-X Ethernet variant
  (`ethernet.py`);
- the storage fabric (`storage`) and the out-of-band network (`oob`: two SN2201 per rack
  for the trays' BMC and the switch trays' COM Express ports) are drawn only when asked
  (`sidefabrics`); the in-band management network, the UFM appliances and the power shelves
  are left out.
"""

from __future__ import annotations

import dataclasses
import math

from rackdesigner.catalog import Catalog
from rackdesigner.generators.clos import plan_three_level, plan_two_level
from rackdesigner.generators.design import DesignBuilder, GeneratorError, check_size, fabric_port
from rackdesigner.generators.ethernet import compute_nic_for
from rackdesigner.generators.fabric import (
    SwitchRacks,
    build_upper_tiers,
    racks_needed,
    su_group,
    su_origin,
)
from rackdesigner.generators.systems import (
    NVL72,
    NVL72_RACK,
    add_nvl72_parts,
    check_protocols,
    nvl72_compute_nic,
    rack_name,
)
from rackdesigner.model import Layout, PortRef, instantiate

RACKS_PER_SU = 8
TRAYS_PER_RACK = 18
RAILS = 4  # compute NICs per tray, one per GPU
DEFAULT_SWITCH = "qm9700"
#: The compute fabric's switch by the trays' NIC: GB300's ConnectX-8 (800 Gb/s XDR) go on
#: Quantum-X800 Q3400 leaves (NVIDIA DGX SuperPOD GB300 reference architecture: Quantum-X800
#: InfiniBand or Spectrum-X Ethernet compute fabric), GB200's ConnectX-7 on QM9700.
DEFAULT_SWITCHES = {"connectx-7": "qm9700", "connectx-8": "q3400"}
SOURCE = ("DGX SuperPOD GB200 reference architecture (SU = 8 DGX GB200 racks, NDR InfiniBand "
          "compute fabric)")


def build_nvl72_superpod(catalog: Catalog, racks: int, switch: str | None = None,
                         system: str = NVL72, storage: bool = False,
                         oob: bool = False) -> Layout:
    """`racks` NVL72 racks (GB200 or GB300) on a rail-optimized, non-blocking compute
    fabric: NDR InfiniBand for GB200's ConnectX-7, XDR (Quantum-X800) for GB300's ConnectX-8
    (DGX SuperPOD GB300 reference architecture). `storage`: the storage fabric too, on the
    trays' BlueField-3 ports (`sidefabrics.add_storage_fabric`: Ethernet, as the GB200 RA's
    "Storage and In-band Ethernet Fabric"). `oob`: the out-of-band network's access layer
    (`sidefabrics.add_oob_fabric`)."""
    if racks < 1:
        raise GeneratorError("at least 1 rack is needed", "racks")
    own_nic = nvl72_compute_nic(catalog, system)
    switch = switch or DEFAULT_SWITCHES.get(own_nic, DEFAULT_SWITCH)
    sw_spec = catalog.get(switch)
    if not sw_spec.traits.fabric_switch:
        raise GeneratorError(f"{switch} is not a switch (try qm9700, q3400 or sn5600)")
    trays = racks * TRAYS_PER_RACK
    check_size(trays * RAILS, "fabric endpoints")
    nic_model = compute_nic_for(catalog, own_nic, sw_spec)
    nic_spec = catalog.get(nic_model)
    nic_port = fabric_port(nic_spec)
    sw_port = fabric_port(sw_spec)
    check_protocols(nic_spec, nic_port, sw_spec, sw_port)
    radix = sw_spec.port(sw_port).count
    down = radix // 2
    sus = math.ceil(racks / RACKS_PER_SU)
    groups_per_su = math.ceil(RACKS_PER_SU * TRAYS_PER_RACK / down)
    leaves_per_su = groups_per_su * RAILS
    leaves = sus * leaves_per_su
    if leaves <= radix:
        clos = plan_two_level(leaves, radix, down, radix - down)
    else:
        sus_per_pod = down // leaves_per_su
        if sus_per_pod < 1:
            raise GeneratorError(f"an SU of {leaves_per_su} {switch} leaves does not fit a "
                                 f"three-level pod ({down} leaves at most)")
        clos = plan_three_level(leaves, radix, down, radix - down,
                                sus_per_pod * leaves_per_su)

    gpus = racks * TRAYS_PER_RACK * RAILS
    ethernet = nic_model != own_nic
    fabric = "Spectrum-X Ethernet" if ethernet else "InfiniBand"
    title = (f"DGX SuperPOD {system.split('-')[0].upper()}, {racks} NVL72 racks ({sus} SU, "
             f"{gpus} GPUs)")
    description = (f"Compute {fabric} fabric after the {SOURCE}: rail-optimized, non-blocking, "
                   f"4 rails, {clos.levels} switch levels of {sw_spec.id}"
                   + (f", compute NICs {nic_model} (Spectrum-X)" if ethernet else "")
                   + ". " + side_note(storage, oob))
    b = DesignBuilder(catalog, title, description)
    top = b.group("fabric", title, "pod")
    net_racks = racks_needed(b, switch, leaves_per_su)
    su_cols = RACKS_PER_SU + net_racks
    per_row = max(1, min(sus, round(math.sqrt(sus))))
    su_rows = math.ceil(sus / per_row)
    spine_row = su_rows // 2 if su_rows > 1 else 1
    all_leaves: list[str] = []
    rack_no = 0
    for s in range(sus):
        su = su_group(b, clos, top, s, leaves_per_su)
        row, col0 = su_origin(s, per_row, spine_row, su_cols)
        half = RACKS_PER_SU // 2
        net = SwitchRacks(b, row, col0 + half, su, f"SU{s + 1} network rack")
        su_leaves = []
        for g in range(groups_per_su):
            for r in range(RAILS):
                leaf = f"leaf-{s * leaves_per_su + g * RAILS + r + 1}"
                net.place(leaf, sw_spec.id, f"SU{s + 1} rail {r} leaf {g + 1}")
                su_leaves.append(leaf)
        all_leaves.extend(su_leaves)
        slot = 0
        for k in range(RACKS_PER_SU):
            if rack_no >= racks:
                break
            rack_no += 1
            col = col0 + k + (net.count if k >= half else 0)
            root = f"nvl72-{rack_no}"
            place = b.rack(NVL72_RACK, row, col, None, f"NVL72 rack {rack_no}", rack_group=root)
            parts = instantiate(catalog, system, root, rack=place.id, u=1,
                                group=su, name=f"{rack_name(system)} {rack_no}")
            parts.groups[0] = dataclasses.replace(parts.groups[0], collapsed=True)
            add_nvl72_parts(b, parts, place)
            for t in range(TRAYS_PER_RACK):
                group, port = divmod(slot, down)
                for r in range(RAILS):
                    nic = f"{root}.tray{t}.nic{r}"
                    if ethernet:
                        b.devices[nic] = dataclasses.replace(b.devices[nic], model=nic_model)
                    b.connect(PortRef(nic, nic_port), PortRef(su_leaves[group * RAILS + r],
                                                              sw_port, port))
                slot += 1
    if clos.spines:
        tier = b.group("spine-tier", "Spine and core switches", "fabric", top)
        n_racks = racks_needed(b, switch, clos.spines + clos.cores)
        first = max(0, (per_row * (su_cols + 1) - n_racks) // 2)
        build_upper_tiers(b, clos, all_leaves, switch, SwitchRacks(b, spine_row, first, tier,
                                                                    "Spine rack"))
    if storage:
        from rackdesigner.generators.sidefabrics import add_storage_fabric

        # appliances at the DGX SuperPODs' per-GPU ratio: systems counted as 8-GPU equivalents
        add_storage_fabric(b, max(1, gpus // 8))
    if oob:
        from rackdesigner.generators.sidefabrics import add_oob_fabric

        add_oob_fabric(b)
    return b.build()


def side_note(storage: bool, oob: bool) -> str:
    """What an NVL72 design's description says of the fabrics beside the compute fabric."""
    if not storage and not oob:
        return "Storage and management fabrics are not included."
    parts = []
    if storage:
        parts.append("an Ethernet storage fabric on the trays' BlueField-3 ports (storage "
                     "leaves, spines and appliances; counts a model assumption)")
    if oob:
        parts.append("the out-of-band network's access layer (two SN2201 per rack: the trays' "
                     "BMCs on one, the switch trays' COM Express ports on the other)")
    left = ("the in-band management network is" if oob else
            "the in-band and out-of-band management networks are")
    return "With " + " and ".join(parts) + f" (generators/sidefabrics.py); {left} not included."
