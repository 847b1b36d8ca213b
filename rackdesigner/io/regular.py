"""Reading input files safely: only regular files, and never more than a stated size.

Opening a FIFO for reading blocks until a writer appears (`validate`, `simulate` and File ▸ Open
hung forever on one), and a character device such as /dev/zero never ends. The file is opened
without blocking, checked with `fstat` on the open descriptor (so it cannot be swapped between
the check and the read), and only then read, at most `limit + 1` bytes.
"""

from __future__ import annotations

import os
import stat

from rackdesigner.io.atomic import NotRegularFileError, file_kind


class FileTooLargeError(OSError):
    """The file is larger than the reader accepts."""

    def __init__(self, path: str | os.PathLike, size: int, limit: int) -> None:
        super().__init__(f"is {_mib(size)}; at most {_mib(limit)} is read")
        self.filename = os.fspath(path)
        self.strerror = f"is {_mib(size)}; at most {_mib(limit)} is read"
        self.size = size
        self.limit = limit


def _mib(n: int) -> str:
    return f"{n / 2**20:.0f} MiB" if n >= 2**20 else f"{n:,} bytes"


def read_regular(path: str | os.PathLike, limit: int | None = None) -> bytes:
    """The bytes of the regular file `path`, at most `limit + 1` of them when `limit` is given.

    Raises `NotRegularFileError` for a folder, FIFO, socket or device, `FileTooLargeError` when
    the file is larger than `limit`, and `OSError` for anything else the system refuses.
    """
    fd = os.open(os.fspath(path), os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFileError(path, file_kind(info.st_mode))
        if limit is not None and info.st_size > limit:
            raise FileTooLargeError(path, info.st_size, limit)
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read() if limit is None else handle.read(limit + 1)
    finally:
        os.close(fd)
    if limit is not None and len(data) > limit:  # grew while being read
        raise FileTooLargeError(path, len(data), limit)
    return data
