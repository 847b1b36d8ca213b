"""A site's power hierarchy: what is bad input (exit 2, located at the file and key) and what
is a design finding (exit 1, in validate, Problems and the Racks view).

Input errors are what the site text gets wrong by itself, whatever the design: a node whose
`parent` names no node (a feed that does not exist), a switchboard or PDU without a parent, a
node that feeds itself, a rack on two PDUs. Findings relate the site to the design, which is
edited: a design rack no PDU lists (`rack-no-feed`) and a PDU listing an id that is no rack of
the design (`feed-missing-rack`) — a rack added after the site was written must not make the
file refuse to open."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from rackdesigner.generators import generate
from rackdesigner.io import save_layout
from rackdesigner.model import Site
from rackdesigner.model.items import PowerNode

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rackdesigner", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


def _line(path: Path, text: str) -> int:
    return next(i for i, t in enumerate(path.read_text().splitlines(), 1) if text in t)


MISSING_FEED = """\
schema_version: 1
site:
  power:
  - id: feed-a
    level: feed
    capacity_kw: 100
  - id: pdu-1
    level: pdu
    capacity_kw: 10
    parent: feed-x
    racks: [r]
devices:
- {id: r, model: rack-42u}
"""


def test_a_design_whose_site_names_a_feed_that_does_not_exist_is_exit_2_at_the_key(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text(MISSING_FEED)
    run = _run("validate", str(path))
    out = run.stdout + run.stderr
    assert run.returncode == 2 and "Traceback" not in out
    assert f"{path}:{_line(path, 'parent: feed-x')}:" in out
    assert "'parent' 'feed-x' is not a power node of the site" in out
    assert "rack r would be on no feed" in out  # the rack the site names, said by name
    assert "feeds: feed-a" in out


def test_a_site_file_whose_pdu_hangs_from_no_feed_is_exit_2_for_fit(tmp_path):
    site = tmp_path / "SITE.yaml"
    site.write_text("facility_power_kw: 2000\npower:\n"
                    "- {id: feed-a, level: feed, capacity_kw: 2500}\n"
                    "- {id: pdu-1, level: pdu, capacity_kw: 10}\n")
    run = _run("fit", "--site", str(site), "--job", "docs/jobs/dense-llama3-70b.yaml")
    out = run.stdout + run.stderr
    assert run.returncode == 2 and "Traceback" not in out
    assert f"{site}:4:" in out and "its racks would be on no feed" in out


def test_a_rack_a_site_file_names_below_a_node_on_no_feed_is_exit_2_naming_it(tmp_path):
    """A rack the site file itself places in its hierarchy, under a switchboard that hangs from
    nothing: bad input, refused at the switchboard's line with the racks it leaves unfed —
    unlike a design rack no PDU lists (a finding, exit 1, below)."""
    site = tmp_path / "SITE.yaml"
    site.write_text("facility_power_kw: 2000\npower:\n"
                    "- {id: feed-a, level: feed, capacity_kw: 2500}\n"
                    "- {id: sb-1, level: switchboard, capacity_kw: 800}\n"
                    "- {id: pdu-1, level: pdu, capacity_kw: 50, parent: sb-1, racks: [r1, r2]}\n")
    run = _run("fit", "--site", str(site), "--job", "docs/jobs/dense-llama3-70b.yaml")
    out = run.stdout + run.stderr
    assert run.returncode == 2 and "Traceback" not in out
    assert f"{site}:4:" in out
    assert "power node sb-1 (switchboard) has no parent: racks r1, r2 would be on no feed" in out


def _tree(racks):
    return (PowerNode("feed-a", "feed", 10_000),
            PowerNode("pdu-1", "pdu", 5_000, parent="feed-a", racks=tuple(racks)))


def test_a_design_rack_on_no_pdu_is_a_finding_exit_1_at_the_rack(tmp_path):
    layout = generate("superpod", system="gb200-nvl72", racks=2)
    racks = [d.id for d in layout.devices() if layout.catalog.get(d.model).rack is not None]
    assert len(racks) > 2
    layout.set_meta(site=Site(power=_tree(racks[1:])))
    path = tmp_path / "d.yaml"
    save_layout(layout, path)  # a file the designer saves must open again: not an input error
    run = _run("validate", "-q", str(path))
    assert run.returncode == 1 and "Traceback" not in run.stdout + run.stderr
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1)
                if re.match(rf"- {{?id: {re.escape(racks[0])}, model:", t))
    assert f"{path}:{line}: error: rack {racks[0]} is on no floor PDU" in run.stdout
    assert "more like it" not in run.stdout  # only the rack the site leaves out


def test_a_pdu_listing_a_rack_the_design_lacks_is_a_finding_exit_1(tmp_path):
    layout = generate("nvl72")
    racks = [d.id for d in layout.devices() if layout.catalog.get(d.model).rack is not None]
    layout.set_meta(site=Site(power=_tree([*racks, "rack-gone"])))
    path = tmp_path / "d.yaml"
    save_layout(layout, path)
    run = _run("validate", "-q", str(path))
    assert run.returncode == 1
    assert "PDU pdu-1 lists 'rack-gone', which is not a rack of the design" in run.stdout
    assert f"{path}:{_line(path, 'site:')}:" in run.stdout
