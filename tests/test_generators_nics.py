"""HGX boards built with 4 NICs (issue 33, item 5): the rail-optimized generator keeps one
compute NIC per PCIe switch, shared by the switch's two GPUs, on half as many rails."""

from __future__ import annotations

import pytest

from rackdesigner.cli import main
from rackdesigner.generators import GeneratorError, generate
from rackdesigner.simulation import simulate

GiB = 2**30


def _compute_nics(layout) -> list[str]:
    return sorted(d.id for d in layout.devices() if d.model == "connectx-7"
                  and ".nic" in d.id)


def test_four_nics_per_node_one_per_pcie_switch_on_four_rails():
    full = generate("rail-optimized", system="dgx-h100", nodes=4, switch="qm9700")
    half = generate("rail-optimized", system="dgx-h100", nodes=4, switch="qm9700", nics=4)
    assert len(_compute_nics(full)) == 32 and len(_compute_nics(half)) == 16
    # the kept NICs are 0, 2, 4, 6: one on each of the four PCIe switches
    assert {n.rsplit(".", 1)[1] for n in _compute_nics(half)} == {"nic0", "nic2", "nic4",
                                                                   "nic6"}
    leaves = [d for d in half.devices() if d.id.startswith("leaf-")]
    assert len(leaves) == 4  # one leaf per rail
    from rackdesigner.model.rules import check_layout

    assert not [f for f in check_layout(half) if f.severity == "error"]


def test_four_nics_halve_what_a_gpu_and_a_ring_get_across_nodes():
    full = simulate(generate("rail-optimized", system="dgx-h100", nodes=4, switch="qm9700"),
                    algorithm="ring", loads_for=None)
    half = simulate(generate("rail-optimized", system="dgx-h100", nodes=4, switch="qm9700",
                             nics=4), algorithm="ring", loads_for=None)
    assert half.bandwidth.per_gpu_scale_out_GBps == pytest.approx(
        full.bandwidth.per_gpu_scale_out_GBps / 2)
    ratio = (half.point_at("all_reduce", 8 * GiB).busbw_GBps
             / full.point_at("all_reduce", 8 * GiB).busbw_GBps)
    assert 0.45 < ratio < 0.55
    # inside one node nothing changes: NVLink carries it
    one_full = simulate(generate("rail-optimized", system="dgx-h100", nodes=1,
                                 switch="qm9700"), loads_for=None)
    one_half = simulate(generate("rail-optimized", system="dgx-h100", nodes=1,
                                 switch="qm9700", nics=4), loads_for=None)
    assert one_half.point_at("all_reduce", 8 * GiB).busbw_GBps == pytest.approx(
        one_full.point_at("all_reduce", 8 * GiB).busbw_GBps)


def test_a_nic_count_the_board_cannot_have_is_refused(capsys):
    with pytest.raises(GeneratorError, match="nics can be 8 or 4"):
        generate("rail-optimized", system="dgx-h100", nodes=2, switch="qm9700", nics=3)
    assert main(["generate", "rail-optimized", "--system", "dgx-h100", "--nodes", "2",
                 "--switch", "qm9700", "--nics", "3", "-o", "-"]) == 2
    err = capsys.readouterr().err
    assert "nics" in err and "Traceback" not in err
