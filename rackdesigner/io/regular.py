"""Reading input files safely: only regular files, and never more than a stated size.

Opening a FIFO for reading blocks until a writer appears (`validate`, `simulate` and File ▸ Open
hung forever on one), and a character device such as /dev/zero never ends. The file is opened
without blocking, checked with `fstat` on the open descriptor (so it cannot be swapped between
the check and the read), and only then read, at most `limit + 1` bytes.
"""

from __future__ import annotations

from rackdesigner.inputs import FileTooLargeError, read_regular

__all__ = ["FileTooLargeError", "read_regular"]
