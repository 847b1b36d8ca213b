"""One system as its vendor publishes it: a DGX node, a GB200 NVL72 rack, nodes on one leaf.

The systems' insides (GPU–NVSwitch link counts, PCIe paths from each GPU to its NIC, CPUs,
storage NICs) come from the catalog's system files through `instantiate`; these templates only
put them in racks, group them and arrange the canvas.
"""

from __future__ import annotations

import dataclasses

from rackdesigner.catalog import Catalog
from rackdesigner.generators.design import (
    Block,
    DesignBuilder,
    GeneratorError,
    RackPlace,
    compute_nic_part,
    fabric_port,
    system_power_w,
)
from rackdesigner.model import Layout, Parts, PortRef, instantiate
from rackdesigner.model.rules import check_layout

NODE_RACK = "rack-42u"
NVL72_RACK = "rack-48u"
NVL72 = "gb200-nvl72"
#: The NVL72 rack systems the `nvl72` template and `superpod --racks` build (same rack, NVLink
#: switch trays and tray layout; the compute trays differ).
NVL72_SYSTEMS = ("gb200-nvl72", "gb300-nvl72")


def nvl72_compute_nic(catalog: Catalog, system: str) -> str:
    """The model of a compute tray's per-GPU NIC in the rack `system` (its system file)."""
    spec = catalog.get(system)
    assert spec.system is not None
    tray = catalog.get(spec.system.parts[0].model)
    assert tray.system is not None
    return next(p.model for p in tray.system.parts if p.name == "nic")


def node_prefix(model: str) -> str:
    return "dgx" if model.startswith("dgx") else "node"


#: Nodes per compute rack where a reference architecture fixes it below four: the DGX SuperPOD
#: B200 RA (RA-11334-001, section 2.5.1) puts two DGX B200 in each rack (28.6 kW). The rack
#: budget used to imply this (two 14.3 kW systems in 40.8 kW); budgets are now site figures.
RA_NODES_PER_RACK = {"dgx-b200": 2}


def pick_rack(catalog: Catalog, model: str, preferred: str = NODE_RACK) -> tuple[str, int]:
    """A rack model holding at least one `model`, and how many fit (height, power; at most 4).

    Four nodes per rack is the DGX SuperPOD H100 layout; a system whose reference architecture
    puts fewer in a rack keeps that density (`RA_NODES_PER_RACK`), and the rack's default power
    budget can lower it further.
    """
    spec = catalog.get(model)
    height = max(1, round(spec.u_height or 1))
    power = system_power_w(catalog, model)
    racks = [catalog.get(preferred)] + [r for r in catalog.doing("contains", "units")
                                       if r.id != preferred]
    for rack in racks:
        assert rack.rack is not None
        fit = min(RA_NODES_PER_RACK.get(model, 4), rack.rack.height_u // height)
        if power > 0:
            fit = min(fit, int(rack.rack.power_budget_w // power))
        if fit >= 1:
            return rack.id, fit
    raise GeneratorError(f"no rack in the catalog holds a {model} ({power / 1000:.1f} kW, "
                         f"{height}U)")


def build_system(catalog: Catalog, model: str) -> Layout:
    """One system (a DGX node) alone in a rack."""
    spec = catalog.get(model)
    if spec.system is None:
        raise GeneratorError(f"{model} is not a system")
    rack_model, _ = pick_rack(catalog, model)
    b = DesignBuilder(catalog, spec.model, f"One {spec.model}: {spec.description}")
    rack = b.rack(rack_model, 0, 0, None)
    b.system(model, f"{node_prefix(model)}-1", rack, spec.model)
    return b.build()


def build_nvl72(catalog: Catalog, system: str = NVL72, fabrics: str | None = None) -> Layout:
    """An NVL72 rack (GB200 or GB300): 18 compute trays and 9 NVLink switch trays in a 48U
    rack; `fabrics` ("compute,oob") adds the out-of-band network (`sidefabrics`)."""
    from rackdesigner.generators.nvl72pod import side_note
    from rackdesigner.generators.sidefabrics import add_oob_fabric, parse_fabrics

    if system not in NVL72_SYSTEMS:
        raise GeneratorError(f"no NVL72 rack {system!r} (choose one of: "
                             f"{', '.join(NVL72_SYSTEMS)})", "system")
    drawn = parse_fabrics(fabrics)
    if "storage" in drawn:  # its compute NICs are not cabled: nothing tells the storage ports
        raise GeneratorError("a lone NVL72 rack has no compute fabric, so its storage ports "
                             "cannot be told from its compute NICs: the storage fabric of "
                             "NVL72 racks is drawn by superpod --system "
                             f"{system} --racks N --fabrics compute,storage", "fabrics")
    spec = catalog.get(system)
    description = f"One {spec.model}: {spec.description}"
    if drawn != {"compute"}:
        description += " " + side_note("storage" in drawn, "oob" in drawn)
    b = DesignBuilder(catalog, spec.model, description)
    root = "nvl72-1"
    rack = b.rack(NVL72_RACK, 0, 0, None, "NVL72 rack 1", rack_group=root)
    parts = instantiate(catalog, system, root, rack=rack.id, u=1,
                        name=f"{rack_name(system)} 1")
    add_nvl72_parts(b, parts, rack)
    if "oob" in drawn:
        add_oob_fabric(b)
    return b.build()


def rack_name(system: str) -> str:
    return system.split("-")[0].upper() + " NVL72"


def add_nvl72_parts(b: DesignBuilder, parts: Parts, rack: RackPlace) -> None:
    """Put an instantiated NVL72 into `rack` the way the rack is built: compute trays above
    and below the nine switch trays (10 above, 8 below), each tray a block on the canvas.

    The power shelves are not catalog items; U1-U3 and the top of the rack stay free for them.
    """
    trays = [g for g in parts.groups if g.kind == "tray"]
    compute = [g for g in trays if g.template != "nvlink-switch-tray"]
    switches = [g for g in trays if g.template == "nvlink-switch-tray"]
    order = compute[10:] + switches + compute[:10]  # bottom-up
    u_of = {g.id: 4 + k for k, g in enumerate(order)}
    if order and 4 + len(order) - 1 > rack.height_u:
        raise GeneratorError(f"{rack.spec.id} is too short for {len(order)} trays")
    rack.next_u = 4 + len(order)
    members: dict[str, list] = {g.id: [] for g in trays}
    loose = []
    devices = []
    for d in parts.devices:
        group = d.group
        if group is not None and group in u_of:
            d = dataclasses.replace(d, u=u_of[group])
            members[group].append(d)
        else:
            loose.append(d)
        devices.append(d)
    parts = dataclasses.replace(parts, devices=devices)
    b.groups.extend(parts.groups)
    for d in devices:
        b.devices[d.id] = d
    b.links.extend(parts.links)
    top = rack.height_u
    if loose:
        rack.blocks.append(Block(top, [d.id for d in loose], *Parts(devices=loose).size()))
    for g in trays:
        ds = members[g.id]
        if ds:
            rack.blocks.append(Block(u_of[g.id], [d.id for d in ds], *Parts(devices=ds).size()))


def build_single_leaf(catalog: Catalog, system: str, nodes: int, switch: str) -> Layout:
    """`nodes` systems and one leaf switch; every compute NIC on the leaf.

    The leaf shares the nodes' rack when that rack's power budget still holds it (and its
    cables); otherwise it gets a network rack of its own beside them, as the SuperPOD RAs do.
    """
    layout = _single_leaf(catalog, system, nodes, switch, leaf_rack_of_its_own=False)
    if any(f.code == "rack-power" for f in check_layout(layout)):
        layout = _single_leaf(catalog, system, nodes, switch, leaf_rack_of_its_own=True)
    return layout


def _single_leaf(catalog: Catalog, system: str, nodes: int, switch: str,
                 leaf_rack_of_its_own: bool) -> Layout:
    sys_spec = catalog.get(system)
    sw_spec = catalog.get(switch)
    if not sw_spec.traits.fabric_switch:
        raise GeneratorError(f"{switch} is not a switch")
    part, rails, nic_spec = compute_nic_part(catalog, system)
    nic_port = fabric_port(nic_spec)
    sw_port = fabric_port(sw_spec)
    check_protocols(nic_spec, nic_port, sw_spec, sw_port)
    radix = sw_spec.port(sw_port).count
    if nodes < 1:
        raise GeneratorError("at least 1 node is needed", "nodes")
    if nodes * rails > radix:
        raise GeneratorError(f"{nodes} x {system} need {nodes * rails} leaf ports; {switch} has "
                             f"{radix} (at most {radix // rails} nodes on one leaf)")
    rack_model, per_rack = pick_rack(catalog, system)
    if nodes > per_rack:
        raise GeneratorError(f"one {rack_model} holds at most {per_rack} x {system} (height and "
                             f"power budget); asked for {nodes}")
    title = f"{nodes} x {sys_spec.model} on one {sw_spec.model}"
    where = "with the leaf in a network rack" if leaf_rack_of_its_own else "in one rack"
    b = DesignBuilder(catalog, title, f"{title}, all compute NICs on the leaf, {where}.")
    pod = b.group("cluster", title, "pod")
    rack = b.rack(rack_model, 0, 0, pod)
    leaf_rack = b.rack(rack_model, 1, 0, pod, "Network rack") if leaf_rack_of_its_own else rack
    prefix = node_prefix(system)
    node_ids = []
    for n in range(nodes):
        node_ids.append(f"{prefix}-{n + 1}")
        b.system(system, node_ids[-1], rack, f"{sys_spec.model} {n + 1}")
    b.device("leaf-1", sw_spec.id, leaf_rack, "Leaf 1")
    single = nic_spec.port(nic_port).count == 1
    for n, node in enumerate(node_ids):
        for r in range(rails):
            nic = f"{node}.{part}{r}"
            b.connect(PortRef(nic, nic_port, None if single else 0),
                      PortRef("leaf-1", sw_port, n * rails + r))
    return b.build()


def check_protocols(nic_spec, nic_port: str, sw_spec, sw_port: str) -> None:
    a = nic_spec.port(nic_port).protocol
    c = sw_spec.port(sw_port).protocol
    if a != c:
        raise GeneratorError(f"{nic_spec.id} speaks {a} but {sw_spec.id} is a {c} switch")
