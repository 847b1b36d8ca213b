"""Run ASTRA-sim on RackDesigner's export and put its collective times beside `simulate`'s.

    python3 benchmarks/astrasim_vs_simulate.py --astra PATH/AstraSim_Analytical_Congestion_Unaware
    python3 benchmarks/astrasim_vs_simulate.py --json          # ASTRA_SIM=PATH in the environment

For each design (by default three generated ones: one DGX H100, a 1-SU DGX H100 SuperPOD and a
GB200 NVL72 rack; or the layout files given), it

1. exports the design for ASTRA-sim (`rackdesigner export -f astra-sim`: network.yml,
   system.json, remote_memory.json);
2. writes a Chakra execution trace per NPU holding one collective of the size asked for, with
   `involved_dim` true on every dimension of network.yml (without it ASTRA-sim runs nothing);
3. runs ASTRA-sim's analytical backend on them and reads the finishing time of the slowest NPU
   ("sys[N] finished, T cycles": one cycle is one ns in the analytical backend);
4. runs `rackdesigner simulate FILE --algorithm ring --json` (ASTRA-sim's collectives are ring
   here) and `--algorithm auto`, and prints the three times and ASTRA-sim / simulate.

ASTRA-sim is not a dependency: build it yourself (github.com/astra-sim/astra-sim,
build/astra_analytical/build.sh) and point --astra or $ASTRA_SIM at the binary. Exits 2 when it
is missing. The trace writer below encodes the few protobuf fields a collective node needs
(Chakra's et_def.proto: a length-delimited GlobalMetadata, then Node messages), so nothing of
Chakra has to be installed. tests/test_interop_astrasim_run.py runs this when $ASTRA_SIM is set.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

COLLECTIVES = {"all_reduce": 0, "all_gather": 2, "all_to_all": 6, "reduce_scatter": 7}
COMM_COLL_NODE = 7
FINISHED = re.compile(r"sys\[(\d+)\] finished, (\d+) cycles")
DEFAULT_DESIGNS = (
    ("dgx-h100", ["dgx-h100"]),
    ("superpod-1su-dgx-h100", ["superpod", "--system", "dgx-h100", "--sus", "1"]),
    ("gb200-nvl72", ["nvl72"]),
)


# ---- the protobuf wire format, for the handful of fields a trace needs --------------------------
def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return _varint(field << 3 | wire)


def _bytes_field(field: int, data: bytes) -> bytes:
    return _key(field, 2) + _varint(len(data)) + data


def _int_field(field: int, value: int) -> bytes:
    return _key(field, 0) + _varint(value & (2**64 - 1))


def _attr(name: str, kind: str, value) -> bytes:
    """Chakra's AttributeProto: name = 1; int64_val = 9; bool_val = 27; bool_list = 28."""
    body = _bytes_field(1, name.encode())
    if kind == "int64":
        body += _int_field(9, value)
    elif kind == "bool":
        body += _int_field(27, int(value))
    else:  # bool_list: BoolList { repeated bool values = 1 } (packed)
        body += _bytes_field(28, _bytes_field(1, bytes(int(v) for v in value)))
    return body


def collective_trace(collective: str, size: int, dims: int) -> bytes:
    """One NPU's trace: metadata, then a single collective node over all `dims` dimensions."""
    meta = _bytes_field(1, b"0.0.4")  # GlobalMetadata.version
    node = (_int_field(1, 1) + _bytes_field(2, collective.upper().encode())
            + _int_field(3, COMM_COLL_NODE)
            + _bytes_field(10, _attr("is_cpu_op", "bool", False))
            + _bytes_field(10, _attr("comm_type", "int64", COLLECTIVES[collective]))
            + _bytes_field(10, _attr("comm_size", "int64", size))
            + _bytes_field(10, _attr("involved_dim", "bool_list", [True] * dims)))
    return b"".join(_varint(len(m)) + m for m in (meta, node))


# ---- running ------------------------------------------------------------------------------------
def run_astra(astra: Path, folder: Path, collective: str, size: int, timeout: float) -> float:
    """ASTRA-sim's time (µs) for `collective` of `size` bytes on the export in `folder`."""
    import yaml

    network = yaml.safe_load((folder / "network.yml").read_text())
    npus = 1
    for n in network["npus_count"]:
        npus *= n
    trace = collective_trace(collective, size, len(network["npus_count"]))
    work = folder / "workload"
    work.mkdir(exist_ok=True)
    for rank in range(npus):
        (work / f"coll.{rank}.et").write_bytes(trace)
    proc = subprocess.run(
        [str(astra), f"--workload-configuration={work / 'coll'}",
         f"--system-configuration={folder / 'system.json'}",
         f"--network-configuration={folder / 'network.yml'}",
         f"--remote-memory-configuration={folder / 'remote_memory.json'}"],
        capture_output=True, text=True, timeout=timeout, cwd=folder)
    finished = [int(c) for _, c in FINISHED.findall(proc.stdout + proc.stderr)]
    if proc.returncode != 0 or len(finished) != npus:
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
        raise RuntimeError(f"ASTRA-sim exited {proc.returncode} with {len(finished)} of {npus} "
                           f"NPUs finished: {' | '.join(tail)}")
    return max(finished) / 1000.0  # ns -> µs


def simulate_us(design: Path, collective: str, size: int, algorithm: str) -> tuple[float, int]:
    """`rackdesigner simulate --json`'s time (µs) at the table size nearest `size`."""
    proc = subprocess.run([sys.executable, "-m", "rackdesigner", "simulate", str(design),
                           "--algorithm", algorithm, "--collective", collective, "--json"],
                          capture_output=True, text=True, check=True)
    points = json.loads(proc.stdout)["collectives"][collective]
    point = min(points, key=lambda p: abs(p["bytes"] - size))
    return point["time_us"], point["bytes"]


def compare(astra: Path, design: Path, name: str, collective: str, sizes: list[int],
            timeout: float) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="rd-astra-") as tmp:
        folder = Path(tmp) / "export"
        subprocess.run([sys.executable, "-m", "rackdesigner", "export", str(design), "-f",
                        "astra-sim", "-o", str(folder)], check=True, capture_output=True)
        for size in sizes:
            ring_us, table_size = simulate_us(design, collective, size, "ring")
            auto_us, _ = simulate_us(design, collective, size, "auto")
            astra_us = run_astra(astra, folder, collective, table_size, timeout)
            rows.append({"design": name, "collective": collective, "bytes": table_size,
                         "astra_us": round(astra_us, 2), "simulate_ring_us": round(ring_us, 2),
                         "simulate_auto_us": round(auto_us, 2),
                         "astra_over_ring": round(astra_us / ring_us, 3)})
    return rows


def _designs(files: list[str], scratch: Path) -> list[tuple[str, Path]]:
    if files:
        return [(Path(f).stem, Path(f)) for f in files]
    out = []
    for name, args in DEFAULT_DESIGNS:
        path = scratch / f"{name}.yaml"
        subprocess.run([sys.executable, "-m", "rackdesigner", "generate", *args, "-o",
                        str(path)], check=True, capture_output=True)
        out.append((name, path))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("designs", nargs="*", help="layout files (default: three generated)")
    parser.add_argument("--astra", default=os.environ.get("ASTRA_SIM", ""),
                        help="ASTRA-sim analytical binary (default: $ASTRA_SIM)")
    parser.add_argument("--collective", default="all_reduce", choices=sorted(COLLECTIVES))
    parser.add_argument("--sizes", default="67108864,1073741824",
                        help="message sizes in bytes, comma-separated")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args(argv)
    astra = Path(options.astra) if options.astra else None
    if astra is None or not (astra.is_file() and os.access(astra, os.X_OK)):
        print("astrasim_vs_simulate: no ASTRA-sim binary: give --astra PATH or set ASTRA_SIM "
              f"(got {options.astra or 'nothing'})", file=sys.stderr)
        return 2
    sizes = [int(s) for s in options.sizes.split(",") if s]
    scratch = Path(tempfile.mkdtemp(prefix="rd-astra-designs-"))
    try:
        rows = [row for name, path in _designs(options.designs, scratch)
                for row in compare(astra, path, name, options.collective, sizes,
                                   options.timeout)]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if options.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'design':<24}{'bytes':>12}{'ASTRA-sim µs':>14}{'simulate ring':>15}"
          f"{'simulate auto':>15}{'ASTRA/ring':>12}")
    for r in rows:
        print(f"{r['design']:<24}{r['bytes']:>12}{r['astra_us']:>14.1f}"
              f"{r['simulate_ring_us']:>15.1f}{r['simulate_auto_us']:>15.1f}"
              f"{r['astra_over_ring']:>12.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
