"""The one YAML loader: every reader of YAML text (layouts, site files, price books, failure
libraries, model, job and serving files, sweep specs, device types, the bundled tables) parses
through the functions here, so each refusal has one wording wherever it happens.
`tests/test_yaml_loader.py` fails on a PyYAML load, compose, parse or loader outside this module.

What is refused, and how it is said (the `M_*` texts below, each located `file:line:column`):

* anchors and aliases — a billion-laughs file expands in whatever walks it;
* nesting past `MAX_DEPTH`, more than `max_nodes` values, a plain number of more than
  `MAX_DIGITS` digits (Python refuses to convert 4,300+ digits with a ValueError);
* tags beyond plain data (`!!python/...`, `!!binary`, `!custom`), duplicate keys;
* a control character, and text that is not YAML (with a hint for a tab, or for a bracket
  or quote opened lines earlier).

The event stream is checked first (`check_yaml`: one pass, no recursion, nothing kept) and
only then is the text loaded or composed. The layout reader keeps its own line-recording
loader, built on `strict_loader()`, and its size-dependent checks (`exact_depth_exceeds`,
`node_count_exceeds`) for files of millions of values. `inputs.py` re-exports the reader-facing
functions (`load_yaml`, `compose_yaml`, `scalar_value`, `check_yaml`, `yaml_error`).

PyYAML is imported on first use: 10 ms that a command reading only layouts in the canonical
form and the cached catalog, such as `rackdesigner simulate`, never spends.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml

    from rackdesigner.inputs import InputError

#: A plain YAML number with more digits than this is refused (no figure any reader takes has
#: more than a dozen; Python refuses to convert more than 4,300 with a ValueError).
MAX_DIGITS = 64
#: The values a small input file (a model, a job, a device type, a sweep spec) may hold.
MAX_NODES = 200_000
#: Deeper nesting only comes from broken or hostile files (the layout reader's limit too).
MAX_DEPTH = 32
#: Explicit tags a plain-data file may carry (`!` is YAML's "non-specific" tag of a quoted
#: scalar); anything else (!!python/..., !!binary, !custom) is refused.
PLAIN_TAGS = frozenset({"!", *(f"tag:yaml.org,2002:{t}" for t in (
    "str", "int", "float", "bool", "null", "map", "seq", "timestamp"))})
_NUMBERISH = re.compile(r"[-+]?[0-9][0-9_.,:eE+\-]*")

# ---- the one wording of each refusal -------------------------------------------------------
M_ALIASES = "anchors and aliases (&, *) are not allowed (write the values out)"
M_NESTED = f"structure nested more than {MAX_DEPTH} levels deep"
M_INVALID = "invalid YAML"


def m_tag(tag: str) -> str:
    short = str(tag).replace("tag:yaml.org,2002:", "!!")
    return f"unsupported YAML tag ({short}); only plain mappings, lists, strings and numbers " \
           "are read"


def m_duplicate(key: object, first_line: int) -> str:
    return (f"key {key!r} appears twice in one mapping (first on line {first_line}); each key "
            "may appear once")


def m_digits(digits: int) -> str:
    return f"number with {digits} digits is too large (expected a number of a sensible size)"


def m_too_many(limit: int) -> str:
    return f"more than {limit:,} values; far larger than any such file"


def m_control(char: str) -> str:
    return (f"a control character (U+{ord(char):04X}) in the text; only printable text is read "
            "(inside double quotes, write it as an escape such as \\t or \\x07)")


_OWN = ("unsupported", "key ", "anchors", "structure", "number", "more than", "a control")


# ---- loaders -------------------------------------------------------------------------------
def safe_loader() -> Any:
    """PyYAML's safe loader class (the C one where built), for the event scans."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@functools.cache
def strict_loader() -> Any:
    """The safe loader that refuses aliases, duplicate keys, non-plain tags and numbers
    Python cannot convert; the layout reader's line-recording loader subclasses it."""
    import yaml

    class _StrictLoader(safe_loader()):  # type: ignore[misc]
        def construct_object(self, node: Any, deep: bool = False) -> Any:
            if node in self.constructed_objects or node in self.recursive_objects:
                raise yaml.constructor.ConstructorError(None, None, M_ALIASES, node.start_mark)
            return super().construct_object(node, deep)

        def construct_mapping(self, node: Any, deep: bool = False) -> dict:
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    key = (key_node.tag, key_node.value)
                    if key in seen:
                        raise yaml.constructor.ConstructorError(
                            None, None, m_duplicate(key_node.value, seen[key]),
                            key_node.start_mark)
                    seen[key] = key_node.start_mark.line + 1
            return super().construct_mapping(node, deep)

        def construct_yaml_int(self, node: Any) -> int:
            try:
                return super().construct_yaml_int(node)
            except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
                raise yaml.constructor.ConstructorError(
                    None, None, m_digits(sum(c.isdigit() for c in node.value)),
                    node.start_mark) from None

    _StrictLoader.add_constructor("tag:yaml.org,2002:int", _StrictLoader.construct_yaml_int)
    for tag in ("binary", "set", "omap", "pairs"):
        _StrictLoader.add_constructor(f"tag:yaml.org,2002:{tag}", _refuse_tag)
    _StrictLoader.add_constructor(None, _refuse_tag)  # any other tag (!!python/..., !custom)
    return _StrictLoader


def _refuse_tag(loader: Any, node: yaml.Node) -> Any:
    import yaml

    raise yaml.constructor.ConstructorError(None, None, m_tag(node.tag), node.start_mark)


# ---- checks --------------------------------------------------------------------------------
def check_yaml(text: str, path: str | os.PathLike, *, max_nodes: int = MAX_NODES) -> None:
    """One pass over the parser's events: InputError at the first alias, the first nesting
    past `MAX_DEPTH`, value number `max_nodes + 1`, a plain number of more than MAX_DIGITS
    digits, or a key given twice in one mapping. Syntax errors are reported located too."""
    import yaml

    resolver = yaml.resolver.Resolver()
    nodes = 0
    #: per open collection: None for a list; for a mapping, [events so far, {key: line}]
    open_: list[list[Any] | None] = []
    try:
        for event in yaml.parse(text, Loader=safe_loader()):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                raise _at(path, event, M_ALIASES)
            if isinstance(event, yaml.CollectionEndEvent):
                open_.pop()
                continue
            if not isinstance(event, yaml.NodeEvent):
                continue
            tag = getattr(event, "tag", None)
            if tag is not None and tag not in PLAIN_TAGS:
                raise _at(path, event, m_tag(tag))
            parent = open_[-1] if open_ else None
            if parent is not None:
                if parent[0] % 2 == 0 and isinstance(event, yaml.ScalarEvent):
                    _check_key(path, event, parent[1], resolver)
                parent[0] += 1
            if isinstance(event, yaml.CollectionStartEvent):
                if len(open_) >= MAX_DEPTH:
                    raise _at(path, event, M_NESTED)
                open_.append([0, {}] if isinstance(event, yaml.MappingStartEvent) else None)
            elif isinstance(event, yaml.ScalarEvent):
                value = event.value
                if (not event.style and len(value) > MAX_DIGITS
                        and _NUMBERISH.fullmatch(value)
                        and sum(c.isdigit() for c in value) > MAX_DIGITS):
                    raise _at(path, event, m_digits(sum(c.isdigit() for c in value)))
            nodes += 1
            if nodes > max_nodes:
                raise _at(path, event, m_too_many(max_nodes))
    except yaml.YAMLError as exc:
        raise yaml_error(path, exc, text) from None


def _check_key(path: str | os.PathLike, event: Any, seen: dict, resolver: Any) -> None:
    """A mapping's key event against the keys before it, compared as the loader would (the
    resolved tag and the text: `1` and `"1"` differ, `a` and `"a"` do not)."""
    import yaml

    tag = event.tag or resolver.resolve(yaml.ScalarNode, event.value, event.implicit)
    key = (tag, event.value)
    if key in seen:
        raise _at(path, event, m_duplicate(event.value, seen[key]))
    seen[key] = _line(event)


def exact_depth_exceeds(text: str, path: str | os.PathLike, limit: int = MAX_DEPTH
                        ) -> tuple[bool, int | None]:
    """Walk the parser's events; (True, line) as soon as nesting passes `limit` (text that is
    not YAML: InputError)."""
    import yaml

    depth = 0
    try:
        for event in yaml.parse(text, Loader=safe_loader()):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > limit:
                    return True, _line(event)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.MarkedYAMLError as exc:
        # libyaml >= 0.2.5 (PyYAML 6.0.4 wheels) stops at its own nesting limit while scanning
        # ahead, before the parser hands us the event past `limit`.
        if "nesting depth" in str(exc.problem):
            mark = exc.problem_mark
            return True, (mark.line + 1) if mark is not None else None
        raise yaml_error(path, exc, text) from None
    except yaml.YAMLError as exc:
        raise yaml_error(path, exc, text) from None
    return False, None


def node_count_exceeds(text: str, path: str | os.PathLike, limit: int
                       ) -> tuple[bool, int | None]:
    """Count nodes from the parser's events (none are kept); (True, line) past `limit` (text
    that is not YAML: InputError)."""
    import yaml

    nodes = 0
    node_events = (yaml.ScalarEvent, yaml.CollectionStartEvent, yaml.AliasEvent)
    try:
        for event in yaml.parse(text, Loader=safe_loader()):
            if isinstance(event, node_events):
                nodes += 1
                if nodes > limit:
                    return True, _line(event)
    except yaml.YAMLError as exc:
        raise yaml_error(path, exc, text) from None
    return False, None


# ---- loading -------------------------------------------------------------------------------
def load_yaml(text: str, path: str | os.PathLike, *, max_nodes: int = MAX_NODES) -> Any:
    """Plain data of a YAML text, checked by `check_yaml` first; InputError when refused."""
    check_yaml(text, path, max_nodes=max_nodes)
    return load_checked(text, path, strict_loader())


def load_checked(text: str, path: str | os.PathLike, loader: Any) -> Any:
    """Plain data of a text the caller has checked (`check_yaml`, or the layout reader's
    size-dependent checks), through `loader`: `strict_loader()` or a subclass of it."""
    import yaml

    from rackdesigner.inputs import InputError

    if not (isinstance(loader, type) and issubclass(loader, strict_loader())):
        raise TypeError("the loader must be strict_loader() or a subclass of it")
    try:
        return yaml.load(text, Loader=loader)  # a SafeLoader subclass (checked above)
    except yaml.YAMLError as exc:
        raise yaml_error(path, exc, text) from None
    except InputError:
        raise
    except (ValueError, OverflowError) as exc:
        raise InputError(path, f"invalid value: {exc}") from None
    except RecursionError:
        raise InputError(path, M_NESTED) from None


def load_resource(text: str, path: str | os.PathLike) -> Any:
    """A table bundled with RackDesigner (resources/): read as strictly as a user's file, so a
    bad edit to one is a located error, not a traceback."""
    return load_yaml(text, path, max_nodes=4_000_000)


def resource_parser(path: str | os.PathLike) -> Callable[[str], Any]:
    """`load_resource` of the text of `path`, for `catalog.filecache.parsed_file`."""
    return functools.partial(load_resource, path=path)


def read_resource(path: str | os.PathLike) -> Any:
    """The data of a bundled YAML table (`load_resource` of its UTF-8 text)."""
    with open(path, encoding="utf-8") as handle:
        return load_resource(handle.read(), path)


def compose_yaml(text: str, path: str | os.PathLike, *, max_nodes: int = MAX_NODES) -> Any:
    """The composed node tree (lines kept) of a checked YAML text; InputError when refused."""
    import yaml

    check_yaml(text, path, max_nodes=max_nodes)
    try:
        return yaml.compose(text, Loader=safe_loader())
    except yaml.YAMLError as exc:
        raise yaml_error(path, exc, text) from None


def scalar_value(node: Any) -> Any:
    """The plain value of a composed scalar node (int, float, bool, None, str, date); a
    non-plain tag or a value Python cannot convert raises ValueError."""
    import yaml

    if not isinstance(node, yaml.ScalarNode):
        raise ValueError("not a single value")
    try:
        return strict_loader()("").construct_object(node, deep=True)
    except yaml.YAMLError as exc:
        raise ValueError(getattr(exc, "problem", None) or str(exc)) from None
    except (OverflowError, RecursionError) as exc:
        raise ValueError(str(exc)) from None


# ---- messages ------------------------------------------------------------------------------
def yaml_error(path: str | os.PathLike, exc: yaml.YAMLError, text: str | None = None
               ) -> InputError:
    """A PyYAML error as a located InputError in this module's words; `text` (when given)
    locates a control character and adds a hint for a tab."""
    import yaml

    from rackdesigner.inputs import InputError

    if isinstance(exc, yaml.reader.ReaderError):
        char = exc.character if isinstance(exc.character, str) else chr(exc.character)
        index = text.find(char) if text is not None else -1
        if index < 0:
            return InputError(path, m_control(char))
        line = text.count("\n", 0, index) + 1 if text is not None else None
        column = index - (text.rfind("\n", 0, index) + 1) + 1 if text is not None else None
        return InputError(path, m_control(char), line, column)
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    if context:
        problem = f"{context}: {problem}"
    if "nesting depth" in problem:  # libyaml >= 0.2.5 stops at its own limit while scanning
        problem = M_NESTED
    elif "could not determine a constructor" in problem:
        problem = m_tag(problem.split("tag ")[-1])
    elif not problem.startswith(_OWN):
        if mark is not None and text is not None and _char_at(text, mark.line,
                                                               mark.column) == "\t":
            problem += " (a tab: YAML is indented with spaces, never tabs)"
        else:
            start, end = getattr(exc, "context_mark", None), getattr(exc, "problem_mark", None)
            if start is not None and end is not None and start.line != end.line:
                problem += f" (it started on line {start.line + 1})"
        problem = f"{M_INVALID}: {problem}"
    return InputError(path, problem, mark.line + 1 if mark else None,
                      mark.column + 1 if mark else None)


def _char_at(text: str, line: int, column: int) -> str:
    start = 0
    for _ in range(line):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    return text[start + column: start + column + 1]


def _at(path: str | os.PathLike, event: Any, message: str) -> InputError:
    from rackdesigner.inputs import InputError

    mark = event.start_mark
    return InputError(path, message, mark.line + 1 if mark else None,
                      mark.column + 1 if mark else None)


def _line(event: Any) -> int | None:
    """The 1-based line an event starts on (None when the parser gave no mark)."""
    mark = event.start_mark
    return mark.line + 1 if mark is not None else None
