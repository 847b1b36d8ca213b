"""Spectrum-X Ethernet variants of the generated fabrics (SN5600 switches).

NVIDIA's Spectrum-X reference architectures (Enterprise RA for HGX H100/H200/B200 and for
NVL72) connect every GPU through its own BlueField-3 SuperNIC (B3140H, 400GbE) to a
rail-optimized, non-blocking fabric of Spectrum-4 SN5600 switches. A DGX system or GB200 tray
in the catalog carries InfiniBand ConnectX-7 compute NICs, so when a fabric's switch speaks
Ethernet the generators put a SuperNIC in each compute NIC's place (same PCIe attachment, same
rail) — a deviation from the DGX product, stated in the design's description.

The catalog models the SN5600 as its 64 x 800GbE ports. The RAs split each 800G cage into two
400G SuperNIC ports; that breakout is not modelled, so each SuperNIC takes a whole 800G port:
the link runs at 400 Gb/s (the design rules note the rate mismatch) and a leaf serves 32 GPUs
where the RA's serves 64. Bandwidth per GPU and non-blocking-ness are the RA's; switch and port
counts are about double.
"""

from __future__ import annotations

from rackdesigner.catalog import Catalog, DeviceSpec

SUPERNIC = "bluefield-3-supernic"


def is_ethernet_switch(spec: DeviceSpec) -> bool:
    return bool(spec.ports_of("ethernet")) and not spec.ports_of("infiniband")


def compute_nic_for(catalog: Catalog, nic_model: str, switch: DeviceSpec) -> str:
    """The compute NIC model to use with `switch`: the system's own, or a SuperNIC for an
    Ethernet (Spectrum-X) fabric when the system's NIC has no Ethernet port."""
    nic = catalog.get(nic_model)
    if is_ethernet_switch(switch) and not nic.ports_of("ethernet") and SUPERNIC in catalog:
        return SUPERNIC
    return nic_model
