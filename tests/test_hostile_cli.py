"""Command-line doors that are not files (issue 24): a sweep's scheduler address answers at
once — `foo://bar` waited 20 s and then printed a traceback, `tcp://127.0.0.1:1` took 10.6 s to
fail. Both are refused before dask.distributed is asked, with exit 2 and no traceback."""

from __future__ import annotations

import socket
import time

import pytest
from hostile import assert_clean_refusal, run_cli

from rackdesigner.sweep.runner import SweepRunError, check_address

SPEC = ("schema_version: 1\ngenerate: single-leaf\nfixed: {system: dgx-h100, switch: qm9700}\n"
        "grid:\n  nodes: [2]\n")


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("address", ["foo://bar", "tcp://127.0.0.1:1", "tcp://127.0.0.1:",
                                     "tcp://:8786", "tcp://127.0.0.1:99999", "127.0.0.1:x",
                                     "http://127.0.0.1:8786", "tcp://[::1"])
def test_unusable_scheduler_addresses_are_refused_at_once(address, tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    start = time.monotonic()
    result = run_cli(["sweep", str(spec), "-o", str(tmp_path / "out.csv"), "--scheduler",
                      address], timeout=60)
    elapsed = time.monotonic() - start
    assert_clean_refusal(result, address)
    assert elapsed < 20, elapsed  # process start + imports; the refusal itself is immediate
    assert not (tmp_path / "out.csv").exists()


def test_check_address_fails_fast_where_nothing_listens():
    port = _closed_port()
    start = time.monotonic()
    with pytest.raises(SweepRunError, match="cannot reach the Dask scheduler"):
        check_address(f"tcp://127.0.0.1:{port}")
    assert time.monotonic() - start < 2
    with pytest.raises(SweepRunError, match="unknown protocol 'foo'"):
        check_address("foo://bar")


def test_check_address_lets_a_listening_address_through():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        check_address(f"tcp://127.0.0.1:{server.getsockname()[1]}")
