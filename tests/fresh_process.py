"""Tests of a path the CLI takes only from a single-threaded process (a fork to the second core:
`whatif --fail`, `validate`): the whole suite's process has threads left by earlier tests, so its
cases skip there and one slow test runs the file again in a fresh process, where a skip fails.

    one_thread = one_thread_fixture("test_small_files_do_not_fork")   # names exempt from it
    test_every_case_in_a_fresh_process = fresh_process_test(__file__, timeout=900)
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

#: set in the fresh process `fresh_process_test` starts
FRESH = "RACKDESIGNER_TEST_FRESH_PROCESS"
FRESH_TEST = "test_every_case_in_a_fresh_process"


def one_thread_fixture(*exempt: str) -> Any:
    """An autouse fixture: skip a case in a process with other threads (fail it in the fresh
    process, where the parallel path must be taken); `exempt` tests run anyway."""

    @pytest.fixture(autouse=True)
    def _one_thread(request: Any) -> None:
        if request.node.name in (FRESH_TEST, *exempt):
            return
        if threading.active_count() > 1:  # threads left by earlier tests: no fork
            if os.environ.get(FRESH):
                pytest.fail("a fresh process runs other threads: the parallel path is not taken")
            pytest.skip(f"this process runs other threads: {FRESH_TEST} runs the cases again "
                        "where it has none")

    return _one_thread


def set_workers(monkeypatch: Any, *, parallel: bool) -> None:
    """Force the forked path (RACKDESIGNER_WORKERS=2, any design size, whatever the machine's
    load) or the serial one (=1)."""
    from rackdesigner.simulation import two_cores

    if parallel:
        monkeypatch.setenv(two_cores.THRESHOLD_ENV, "1")
        monkeypatch.setenv(two_cores.WORKERS_ENV, "2")
    else:
        monkeypatch.setenv(two_cores.WORKERS_ENV, "1")


def fresh_process_test(test_file: str, timeout: int) -> Callable[[], None]:
    """The slow test that runs every case of `test_file` again in a process of its own."""

    @pytest.mark.slow
    def test_every_case_in_a_fresh_process() -> None:
        """The cases skip in a process that earlier tests left with threads (the whole
        suite's); here they run in a process of their own, so CI always takes the parallel
        path."""
        if os.environ.get(FRESH):
            pytest.skip("already the fresh process")
        env = {**os.environ, FRESH: "1", "QT_QPA_PLATFORM": "offscreen"}
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow",
             "-rs", str(Path(test_file))], cwd=Path(test_file).resolve().parents[1], env=env,
            capture_output=True, text=True, timeout=timeout)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert " passed" in done.stdout and "skipped" not in done.stdout, done.stdout[-3000:]

    return test_every_case_in_a_fresh_process
