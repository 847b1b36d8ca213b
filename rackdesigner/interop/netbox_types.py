"""NetBox interface types and device-type YAML, both ways.

NetBox names an interface's kind with a slug from `InterfaceTypeChoices` (netbox
`dcim/choices.py`): `infiniband-ndr`, `400gbase-x-osfp`, `1000base-t`... The table below maps
the fabric ones to RackDesigner's port facts (protocol, generation, rate per direction, lanes,
connector) and back. The InfiniBand data rates are the IBTA 4x link rates (SDR 10 ... XDR 800
Gb/s); Ethernet rates are in the slug.

`device_type_yaml` writes a device type in the community device-type library's format
(netbox-community/devicetype-library: manufacturer, model, slug, u_height, interfaces...);
`spec_from_device_type` reads one into a RackDesigner catalog file (`catalog import-netbox`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rackdesigner.catalog import DeviceSpec, PortGroup

#: NetBox's DeviceAirflowChoices; other values would be refused by the import.
AIRFLOWS = ("front-to-rear", "rear-to-front", "left-to-right", "right-to-left", "side-to-rear",
            "passive", "mixed")
IB_RATES = {"sdr": 10, "ddr": 20, "qdr": 40, "fdr10": 40, "fdr": 56, "edr": 100, "hdr": 200,
            "ndr": 400, "xdr": 800}
IB_CONNECTORS = {"sdr": "cx4", "ddr": "cx4", "qdr": "qsfp", "fdr10": "qsfp", "fdr": "qsfp",
                 "edr": "qsfp28", "hdr": "qsfp56", "ndr": "osfp", "xdr": "osfp"}
_ETH = re.compile(r"^(?P<rate>\d+)g?base-(?P<media>[a-z0-9]+)(?:-(?P<ff>[a-z0-9]+))?$")
_FF_LANES = {"sfp": 1, "sfpp": 1, "sfp28": 1, "sfp56": 1, "sfp112": 1, "qsfpp": 4,
             "qsfp28": 4, "qsfp56": 4, "qsfp112": 4, "qsfpdd": 8, "osfp": 8, "osfp-rhs": 8,
             "t": 1}


@dataclass(frozen=True)
class PortFacts:
    protocol: str
    generation: str
    rate_gbps: float
    lanes: int
    connector: str


def port_facts(interface_type: str) -> PortFacts | None:
    """RackDesigner port facts for a NetBox interface type; None when the type does not say
    (virtual, other, a proprietary slug)."""
    t = interface_type.lower()
    if t.startswith("infiniband-"):
        gen = t.split("-", 1)[1]
        if gen in IB_RATES:
            return PortFacts("infiniband", gen.upper(), IB_RATES[gen], 4, IB_CONNECTORS[gen])
        return None
    if t == "1000base-t":
        return PortFacts("ethernet", "1GbE", 1, 1, "rj45")
    m = _ETH.match(t)
    if m is None:
        return None
    rate = int(m["rate"])
    if rate == 1000:  # "1000base-x-sfp"
        rate = 1
    ff = m["ff"] or m["media"]
    lanes = _FF_LANES.get(ff, 1 if ff == "t" else 4)
    return PortFacts("ethernet", f"{rate}GbE", rate, lanes, ff)


def interface_type(group: PortGroup) -> str:
    """The NetBox interface type for a port group (`other` when NetBox has none)."""
    if group.protocol == "infiniband":
        gen = group.generation.lower()
        return f"infiniband-{gen}" if gen in IB_RATES else "other"
    if group.protocol == "ethernet":
        rate = int(group.rate_gbps)
        if rate == 1:
            return "1000base-t"
        ff = group.connector.lower().replace("-", "").replace("+", "p")
        if ff in ("qsfp", "qsfp+"):
            ff = "qsfpp"
        return f"{rate}gbase-x-{ff}"
    return "other"


def device_type_yaml(spec: DeviceSpec, interfaces: list[tuple[str, str]], u_height: float,
                     power_w: float | None) -> dict[str, Any]:
    """A device type in the devicetype-library format, with the given interfaces."""
    doc: dict[str, Any] = {
        "manufacturer": spec.manufacturer,
        "model": spec.model,
        "slug": spec.id,
        "u_height": u_height,
        "is_full_depth": True,
    }
    if spec.description:
        doc["comments"] = spec.description
    if spec.weight_kg:
        doc["weight"] = spec.weight_kg
        doc["weight_unit"] = "kg"
    if spec.airflow in AIRFLOWS:
        doc["airflow"] = spec.airflow
    if interfaces:
        doc["interfaces"] = [{"name": n, "type": t} for n, t in interfaces]
    if power_w:
        inlets = POWER_INLETS.get(spec.id)
        if inlets is not None:  # a rack-scale system: its draw spread over its real inlets
            share = round(power_w / inlets.count)
            typed = {"type": inlets.type} if inlets.type else {}
            doc["power-ports"] = [{"name": inlets.name.format(n=n), **typed,
                                   "maximum_draw": share}
                                  for n in range(1, inlets.count + 1)]
        else:
            doc["power-ports"] = [{"name": "PSU", "type": "iec-60320-c20",
                                   "maximum_draw": round(power_w)}]
    return doc


@dataclass(frozen=True)
class PowerInlets:
    count: int
    name: str  # format with n = 1..count
    rated_w: float | None  # one inlet's rating (None: not published)
    source: str
    #: NetBox's power-port type of each inlet, where a source gives it (None: left blank)
    type: str | None = None


#: Systems fed through more than one inlet, so that NetBox gets the draw spread over them (a
#: 120 kW NVL72 on one C20 is no plan a site team can use; nor is a DGX H100's 10 kW). Each
#: inlet gets an equal share of the design's maximum draw (model assumption: the supplies
#: share the load evenly; NetBox's import sums the ports back to the device's draw).
POWER_INLETS = {
    "gb200-nvl72": PowerInlets(
        8, "power-shelf-{n}", 33000.0,
        "NVIDIA Base Command Manager manual, 'BCM Power Shelf Integration' "
        "(docs.nvidia.com/base-command-manager/product-manuals/nvidia-mission-control/"
        "powershelf): the GB200 reference rack has 8 power shelves of 6 PSUs rated 5.5 kW, "
        "33 kW per shelf"),
    "dgx-h100": PowerInlets(
        6, "PSU{n}", 3300.0,
        "NVIDIA DGX H100/H200 User Guide, 'Introduction to the NVIDIA DGX H100/H200 System', "
        "power specifications (docs.nvidia.com/dgx/dgxh100-user-guide): six power supplies, "
        "3,300 W each at 200-240 V and 16 A, 4+2 redundant; a 16 A IEC inlet is a C20 (a C14 "
        "is rated 10 A)", type="iec-60320-c20"),
    "qm9700": PowerInlets(
        2, "PSU{n}", None,
        "NVIDIA QM9700/QM9790 1U NDR 400Gb/s InfiniBand Switch Systems User Manual "
        "(docs.nvidia.com/networking/display/qm97x0pub): two hot-swappable power supplies, "
        "1+1 redundant; the inlet type is not stated there, so it is left blank"),
}
