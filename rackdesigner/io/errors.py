"""The one error type for unreadable or invalid layout files, always located."""

from __future__ import annotations


class LayoutFileError(Exception):
    """A layout file cannot be read: says where (file, line, column) and what was expected."""

    def __init__(self, path: str, message: str, line: int | None = None,
                 column: int | None = None) -> None:
        self.path = path
        self.message = message
        self.line = line
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.message}"
