"""How a message names a setting: the core speaks of the design, each surface adds its words.

A core message that names a setting the user can change (a template's number of SUs, a job's
pipeline degree, an import's port answers) writes it as a `{name}` placeholder; `SettingError`
renders it in the design's words (`str(exc)`: "give either SUs or nodes", what the designer's
fields and the Python API show) or in the command line's (`exc.for_cli()`: "give either --sus
or --nodes"). A surface with its own labels renders them with `exc.worded(its_word)`; a file
whose keys are the settings' names (a job file: `gpus`, `tp`) with `exc.worded(str)`.
`option` names the one setting at fault, if any, for the surface to point at (the CLI prefixes
`--sus: `, the template dialog its field's name).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import ClassVar

_PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")


def worded(text: str, word: Callable[[str], str]) -> str:
    """`text` with each `{name}` placeholder replaced by `word(name)`."""
    return _PLACEHOLDER.sub(lambda m: word(m.group(1)), text)


def cli_word(name: str) -> str:
    """A setting as the command line names it: its option."""
    return "--" + name.replace("_", "-")


class SettingError(ValueError):
    """A request the core cannot fulfil, whose message names settings as `{name}`.

    `DESIGN_WORDS` maps a setting to the design's word for it (a subclass lists its own);
    a setting missing there is named as it is, in quotes ("the “switch”")."""

    DESIGN_WORDS: ClassVar[Mapping[str, str]] = MappingProxyType({})

    def __init__(self, message: str, option: str | None = None) -> None:
        super().__init__(message)
        self.template = message
        self.option = option

    @classmethod
    def design_word(cls, name: str) -> str:
        return cls.DESIGN_WORDS.get(name, f"“{name}”")

    @classmethod
    def in_design_words(cls, text: str) -> str:
        """Any text of this kind's (a help line) in the design's words."""
        return worded(text, cls.design_word)

    def worded(self, word: Callable[[str], str]) -> str:
        """The message with its settings named by `word`."""
        return worded(self.template, word)

    def __str__(self) -> str:
        return self.worded(self.design_word)

    def for_cli(self) -> str:
        """The message as the command line shows it: `--sus: at least 1 ...`."""
        text = self.worded(cli_word)
        return f"{cli_word(self.option)}: {text}" if self.option else text


def counted(n: int, word: str, plural: str | None = None, *, grouped: bool = True) -> str:
    """"1 link", "2 links", "1,024 devices" ("1024 devices" not `grouped`, as a file's end
    line writes it): a count and its noun in the right number."""
    number = f"{n:,}" if grouped else str(n)
    return f"{number} {word if n == 1 else (plural or word + 's')}"
