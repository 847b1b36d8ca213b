"""The fabrics of a DGX SuperPOD beside the compute fabric (`superpod --fabrics ...`).

NVIDIA's DGX SuperPOD reference architectures (H100: RA-11333-001, "Network Fabrics"; the B200
and GB200 RAs the same) name four fabrics: compute, storage, in-band management and out-of-band
management, and give each DGX a pair of storage ports and a pair of in-band ports ("each pair of
in-band management and storage ports provide parallel pathways into the system"). The compute
fabric is drawn by `rail` / `nvl72pod`; this module adds, when asked:

- `storage`: port 0 of each of a system's storage cards (the DGX H100/H200's two dual-port
  ConnectX-7, the DGX B200's two BlueField-3 run as its SuperPOD RA runs them, `bluefield-3-vpi`:
  an NDR InfiniBand storage port, the RA's "InfiniBand Storage Fabric"; the other port is the
  in-band one) to storage leaves, the leaves to storage spines,
  the spines to the storage appliances. The switch is the QM9700 under the storage-switch kind
  (`qm9700-storage`: the simulation and reachability keep it apart from the compute fabric), the
  appliance the DDN AI400X2 (8 HDR ports).

Sizing (the RA's storage switch table was not readable here, so these are model assumptions,
stated in docs/generators.md):
- a storage leaf takes half its ports from systems (32 on a QM9700) and sends the other half up
  (non-blocking to the spines);
- one appliance per `NODES_PER_APPLIANCE` systems (at least one);
- spines: as many as the leaves' uplinks and the appliances' ports need (at least one), each
  leaf's uplinks dealt evenly over them (a bundle per leaf-spine pair: every leaf reaches every
  spine), each appliance port to the spine with the most ports free. Two levels only: beyond
  the leaves' uplink count of spines (about 28 SUs of DGX H100) the generator refuses.

- `oob`: the out-of-band management network's access layer: an SN2201 in every rack that holds
  systems, each system's BMC port (its chassis entry's `bmc`: the RA's "OOB port ... used for
  BMC access") to it over a Cat6 patch cord. An NVL72 rack's frames are its trays'
  (`chassis-nvl72-compute-tray`, `chassis-nvlink-switch-tray`): NVIDIA's DGX GB200 user guide
  gives each rack "2x TOR switches for management", its GB200 north-south guide cables an
  NVLink Switch tray's BMC to the SN2201 at RU 44 and its two COM Express ports to the one at
  RU 45, so each rack gets one SN2201 for the 27 tray BMCs and one for the 18 ComE ports.
  The SN2201s' uplinks to the management core, the power shelves (not catalog items) and the
  management ports of switches, appliances and PDUs are not drawn (the catalog gives those
  devices no management port).

Storage ports that run Ethernet (the BlueField-3 of GB200 trays: the GB200 RA's "Storage and
In-band Ethernet Fabric") get the same fabric in Ethernet: `sn5600-storage` leaves and spines
(the SN5600, the in-band Ethernet switch of NVIDIA's GB200 north-south network guide, split
to 128 x 400GbE as its manual allows; the counts are model assumptions) and the appliance with
its ports as 200GbE (`ai400x2-eth`). A protocol without a storage switch in `BY_PROTOCOL` is
refused with the reason. In-band management (the other port of each storage card, SN4600C
switches in the H100 RA) is not drawn: the catalog has no SN4600C.
"""

from __future__ import annotations

import math

from rackdesigner import vocabulary
from rackdesigner.generators.design import DesignBuilder, GeneratorError
from rackdesigner.generators.fabric import SwitchRacks
from rackdesigner.model import PortRef

#: The fabrics `--fabrics` accepts; `compute` is always drawn.
FABRICS = ("compute", "storage", "oob")
OOB_SWITCH = "sn2201"
#: The port of a system's frame (its chassis entry) that the out-of-band network cables.
BMC_PORT = "bmc"
#: The management ports of frames the out-of-band network cables, each name on its own
#: SN2201s per rack: the BMC, and an NVLink Switch tray's COM Express host ports (NVIDIA's GB200
#: north-south guide: switch-tray BMC to the SN2201 at RU 44, ComE1/ComE2 to the one at RU 45).
MGMT_PORTS = (BMC_PORT, "come")
STORAGE_SWITCH = "qm9700-storage"
STORAGE_APPLIANCE = "ai400x2"
#: The storage switch and appliance for storage ports of each protocol.
BY_PROTOCOL = {"infiniband": (STORAGE_SWITCH, STORAGE_APPLIANCE),
               "ethernet": ("sn5600-storage", "ai400x2-eth")}
#: Model assumption: one storage appliance per this many systems (docs/generators.md).
NODES_PER_APPLIANCE = 16
#: Cabled network protocols (InfiniBand, Ethernet...), from the vocabulary.
NETWORK = vocabulary.protocols_of("network")
SOURCE = ("NVIDIA DGX SuperPOD reference architecture (H100: RA-11333-001, Network Fabrics: "
          "compute, storage, in-band and out-of-band management fabrics)")


def parse_fabrics(value: str | None) -> frozenset[str]:
    """The fabrics of a `--fabrics` value ("compute,storage"); compute is always among them."""
    if not value:
        return frozenset({"compute"})
    names = {v.strip() for v in value.split(",") if v.strip()}
    unknown = sorted(names - set(FABRICS))
    if unknown:
        raise GeneratorError(f"unknown fabric {', '.join(unknown)} (choose from "
                             f"{', '.join(FABRICS)}; in-band management is not generated "
                             "yet)", "fabrics")
    return frozenset(names | {"compute"})


def storage_ports(b: DesignBuilder) -> list[PortRef]:
    """Port 0 of every system part that is a network card and has no link yet (the storage
    cards: the compute NICs are already on the compute fabric), in device order."""
    linked = {ref.device for link in b.links for ref in (link.a, link.b)
              if b.catalog.get(b.devices[ref.device].model).port(ref.group).protocol
              in NETWORK}
    out = []
    for dev in b.devices.values():
        if "." not in dev.id or dev.id in linked:
            continue
        spec = b.catalog.get(dev.model)
        if not spec.traits.terminates:
            continue
        for port in spec.ports:
            if port.protocol in NETWORK:
                out.append(PortRef(dev.id, port.name, 0 if port.count > 1 else None))
                break
    return out


def add_storage_fabric(b: DesignBuilder, systems: int) -> int:
    """Draw the storage fabric of `systems` systems into `b` (module docstring); the number of
    storage appliances drawn."""
    ports = storage_ports(b)
    if not ports:
        raise GeneratorError("the systems have no storage ports to cable", "fabrics")
    protocols = {b.catalog.get(b.devices[ref.device].model).port(ref.group).protocol
                 for ref in ports}
    protocol = min(protocols)
    if len(protocols) > 1 or protocol not in BY_PROTOCOL:
        raise GeneratorError(f"the storage ports run {', '.join(sorted(protocols))}; a storage "
                             f"fabric is generated for {' or '.join(BY_PROTOCOL)} ports, one "
                             "protocol at a time", "fabrics")
    switch_id, appliance_id = BY_PROTOCOL[protocol]
    sw = b.catalog.get(switch_id)
    sw_port = sw.ports[0]
    radix = sw_port.count
    down = radix // 2
    leaves = math.ceil(len(ports) / down)
    appliance = b.catalog.get(appliance_id)
    app_port = appliance.ports[0]
    appliances = max(1, math.ceil(systems / NODES_PER_APPLIANCE))
    app_links = appliances * app_port.count
    spines = max(1, math.ceil((leaves * (radix - down) + app_links) / radix))
    if spines > radix - down:  # every leaf reaches every spine only while this holds
        raise GeneratorError(f"{len(ports)} storage ports need {leaves} storage leaves and "
                             f"{spines} spines, more than two levels of {sw.id} join (every "
                             f"leaf has {radix - down} uplinks): a larger storage fabric is not "
                             "generated", "fabrics")
    top = b.group("storage-fabric", "Storage fabric", "fabric")
    row = max((r.row for r in b.racks.values()), default=0) + 1
    racks = SwitchRacks(b, row, 0, top, "Storage rack")
    leaf_ids = [f"storage-leaf-{i + 1}" for i in range(leaves)]
    spine_ids = [f"storage-spine-{i + 1}" for i in range(spines)]
    for i, leaf in enumerate(leaf_ids):
        racks.place(leaf, sw.id, f"Storage leaf {i + 1}")
    for i, spine in enumerate(spine_ids):
        racks.place(spine, sw.id, f"Storage spine {i + 1}")
    for i, ref in enumerate(ports):
        n, port = divmod(i, down)
        b.connect(ref, PortRef(leaf_ids[n], sw_port.name, port))
    # leaf uplinks (ports down..) dealt over the spines, each leaf starting where the last one
    # stopped so the spines fill evenly; one bundle per leaf-spine pair
    up = radix - down
    spine_next = [0] * spines
    dealt = 0
    for leaf in leaf_ids:
        counts = [0] * spines
        for _ in range(up):
            counts[dealt % spines] += 1
            dealt += 1
        first = down
        for s, count in enumerate(counts):
            if not count:
                continue
            if spine_next[s] + count > radix:
                raise GeneratorError(f"{leaves} storage leaves do not fit two levels of "
                                     f"{sw.id}: a larger storage fabric is not generated",
                                     "fabrics")
            b.connect(PortRef(leaf, sw_port.name, first),
                      PortRef(spine_ids[s], sw_port.name, spine_next[s]), count)
            spine_next[s] += count
            first += count
    store = SwitchRacks(b, row, racks.col, top, "Storage appliance rack")
    k = 0
    for a in range(appliances):
        dev = f"storage-{a + 1}"
        store.place(dev, appliance.id, f"{appliance.model} {a + 1}")
        for p in range(app_port.count):
            s = min(range(spines), key=lambda i: (spine_next[i], (i - k) % spines))
            k += 1
            if spine_next[s] >= radix:
                raise GeneratorError("the storage spines have no port left for the "
                                     "appliances", "fabrics")
            b.connect(PortRef(dev, app_port.name, p),
                      PortRef(spine_ids[s], sw_port.name, spine_next[s]))
            spine_next[s] += 1
    return appliances


def add_oob_fabric(b: DesignBuilder) -> int:
    """SN2201s in every rack holding a frame with a management port (`MGMT_PORTS`), each such
    port cabled to one of them (module docstring): per rack and port name its own switches, 48
    ports each (a DGX rack: one for the BMCs; an NVL72 rack: one for the 27 tray BMCs, one for
    the switch trays' 18 COM Express ports, as NVIDIA's GB200 guide cables them); the number
    of management switches drawn."""
    spec = b.catalog.get(OOB_SWITCH)
    port = next(p for p in spec.ports if p.rate_gbps == min(q.rate_gbps for q in spec.ports))
    ends: dict[str, dict[str, list[PortRef]]] = {}
    for dev in b.devices.values():
        if dev.rack is None:
            continue
        frame = b.catalog.get(dev.model)
        if frame.traits.contains != "frame":
            continue
        for p in frame.ports:
            if p.name in MGMT_PORTS:
                refs = ends.setdefault(dev.rack, {}).setdefault(p.name, [])
                refs.extend(PortRef(dev.id, p.name, None if p.count == 1 else i)
                            for i in range(p.count))
    if not ends:
        raise GeneratorError("the systems have no BMC port in the catalog (their chassis "
                             "entry's `bmc`): no out-of-band network to draw", "fabrics")
    systems = {g.id for g in b.groups
               if g.template and b.catalog.get(g.template).system is not None}
    own: str | None = None  # a group of their own when the rack's group is a system's
    switches = 0
    for rack_id, by_name in ends.items():
        rack = b.racks[rack_id]
        group = rack.group
        if group in systems:  # an NVL72 rack is its system: a switch in it is not its part
            own = own or b.group("oob-fabric", "Out-of-band network", "fabric")
            group = own
        for name in MGMT_PORTS:
            refs = by_name.get(name, [])
            for first in range(0, len(refs), port.count):
                switches += 1
                sw = f"oob-{switches}"
                b.device(sw, spec.id, rack, f"OOB switch {switches}", group)
                for i, ref in enumerate(refs[first:first + port.count]):
                    b.connect(ref, PortRef(sw, port.name, i))
    return switches


__all__ = ["BMC_PORT", "BY_PROTOCOL", "FABRICS", "MGMT_PORTS", "NODES_PER_APPLIANCE",
           "OOB_SWITCH", "STORAGE_APPLIANCE", "STORAGE_SWITCH", "add_oob_fabric",
           "add_storage_fabric", "parse_fabrics", "storage_ports"]
