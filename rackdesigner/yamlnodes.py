"""Reading a composed YAML tree (`yamlfile.compose_yaml`) with every refusal located: the
checks the price book, the failure library and other node readers share, in one wording.

The loader has already refused aliases, tags, duplicate keys and runaway sizes; what is left is
the shape a reader expects: a mapping where one is needed, keys that are names and among those
the reader knows (with a "did you mean"), single values where a value is needed. A reader
subclasses `NodeReader` and adds its own fields; its error type is whatever it raises today.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any


def node_kind(node: Any) -> str:
    """What a node is, for a message: 'a mapping', 'a list', or the value as written."""
    import yaml

    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    return f"{node.value!r}"


class NodeReader:
    """`fail(node, message)` is `error("label:line: message")`, the line shifted by `offset`
    (a block read out of a larger file, such as a price book embedded in a layout)."""

    def __init__(self, label: str, error: Callable[[str], Exception], offset: int = 0) -> None:
        self.label = label
        self.error = error
        self.offset = offset

    def line(self, node: Any) -> int:
        return node.start_mark.line + 1 + self.offset

    def fail(self, node: Any | None, message: str) -> Exception:
        where = f":{self.line(node)}" if node is not None else ""
        return self.error(f"{self.label}{where}: {message}")

    def mapping(self, node: Any, what: str, keys: tuple[str, ...] | None = None
                ) -> dict[str, tuple[Any, Any]]:
        """{name: (key node, value node)} of a mapping whose keys are names (among `keys`
        when given)."""
        import yaml

        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, f"{what}: expected a mapping, got {node_kind(node)}")
        out: dict[str, tuple[Any, Any]] = {}
        for key, value in node.value:
            name = self.value(key, what) if isinstance(key, yaml.ScalarNode) else None
            if not isinstance(name, str) or not name:  # 1: or a date: not a name
                raise self.fail(key, f"{what}: keys must be names, got {node_kind(key)}")
            if keys is not None and name not in keys:
                close = difflib.get_close_matches(name, keys, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise self.fail(key, f"{what}: unknown key {name!r}{hint}; expected one of "
                                f"{', '.join(keys)}")
            out[name] = (key, value)  # a key given twice: refused by the loader
        return out

    def value(self, node: Any, what: str) -> Any:
        """The plain value of a single-value node (int, float, bool, None, str, date)."""
        from rackdesigner.yamlfile import scalar_value

        try:
            return scalar_value(node)
        except ValueError:
            raise self.fail(node, f"{what}: expected a single value, got "
                            f"{node_kind(node)}") from None
