"""How long each export (and the graphml / ibnetdiscover imports) take on large designs.

    python benchmarks/interop_exports.py [--sus 4 16 64] [--formats slurm-tree cabling ...]

For DGX H100 SuperPODs of the given scalable units (4 → 1,016 GPUs, 16 → 4,088, 64 → 16,376),
prints the wall time of each `rackdesigner.interop.export` into a temporary folder, once (the
exports run once per user action; the first run is the one a user waits for), and of reading the
GraphML back into a design.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from rackdesigner.generators import generate
    from rackdesigner.interop import EXPORTERS, export
    from rackdesigner.interop.graphml import read

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sus", type=int, nargs="+", default=[4, 16])
    parser.add_argument("--formats", nargs="+", default=list(EXPORTERS))
    args = parser.parse_args()
    suffix = {"slurm-tree": ".conf", "slurm-block": ".conf", "cabling": ".xlsx", "netbox": "",
              "graphml": ".graphml", "dot": ".dot", "astra-sim": ""}
    with tempfile.TemporaryDirectory() as tmp:
        for sus in args.sus:
            start = time.perf_counter()
            layout = generate("superpod", system="dgx-h100", sus=sus)
            gpus = sum(1 for d in layout.devices() if d.model == "h100-sxm5")
            print(f"superpod {sus} SU: {gpus} GPUs, {layout.device_count()} devices, "
                  f"{layout.link_count()} links (generated in "
                  f"{time.perf_counter() - start:.1f} s)")
            for fmt in args.formats:
                out = Path(tmp) / f"{sus}-{fmt}{suffix[fmt]}"
                start = time.perf_counter()
                report = export(layout, fmt, out)
                took = time.perf_counter() - start
                summary = report.summary.split(": ", 1)[1]
                print(f"  export {fmt:12s} {took * 1000:8.0f} ms  {summary}")
                if fmt == "graphml":
                    start = time.perf_counter()
                    read(out)
                    print(f"  import graphml      {(time.perf_counter() - start) * 1000:8.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
