"""The device catalog: every shipped product, looked up by id or alias.

`default_catalog()` loads `resources/catalog/**/*.yaml` once per process. Cross-file checks
(system parts and chassis exist, wiring names real parts and ports, aliases are unique) run here,
after each file passed its own validation.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from rackdesigner._resources import catalog_dir
from rackdesigner.catalog.filecache import ParsedFiles
from rackdesigner.catalog.loader import CatalogError, CatalogProblem, read_spec_file
from rackdesigner.catalog.spec import DeviceSpec

_SELECTOR = re.compile(r"^(?P<name>[A-Za-z_][\w-]*)(\[(?P<index>\*|\d+(-\d+)?)\])?$")


class Catalog:
    """An immutable set of `DeviceSpec`s."""

    def __init__(self, specs: Iterable[DeviceSpec]) -> None:
        self._specs: dict[str, DeviceSpec] = {}
        #: user-catalog files that define an id the shipped catalog also defines
        self.overrides: set[str] = set()
        self._aliases: dict[str, str] = {}
        problems: list[CatalogProblem] = []
        for spec in specs:
            if spec.id in self._specs:
                problems.append(CatalogProblem(spec.file, "id", f"duplicate id {spec.id!r}"))
            self._specs[spec.id] = spec
        for spec in self._specs.values():
            for alias in spec.aliases:
                if alias in self._specs or alias in self._aliases:
                    problems.append(CatalogProblem(spec.file, "aliases",
                                                   f"alias {alias!r} is already taken"))
                self._aliases[alias] = spec.id
        for spec in self._specs.values():
            problems.extend(self._check_references(spec))
        if problems:
            raise CatalogError(problems)

    # lookup
    def get(self, model: str) -> DeviceSpec:
        """The spec for a model id or alias; KeyError with suggestions when unknown."""
        spec = self._specs.get(model)
        if spec is None and model in self._aliases:
            spec = self._specs[self._aliases[model]]
        if spec is None:
            import difflib

            close = difflib.get_close_matches(model, [*self._specs, *self._aliases], n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise KeyError(f"unknown device model {model!r}{hint}")
        return spec

    def resolve(self, model: str) -> str:
        """The canonical id of a model id or alias."""
        return self.get(model).id

    def __contains__(self, model: object) -> bool:
        return model in self._specs or model in self._aliases

    def __iter__(self) -> Iterator[DeviceSpec]:
        return iter(sorted(self._specs.values(), key=lambda s: (s.kind, s.id)))

    def __len__(self) -> int:
        return len(self._specs)

    def ids(self) -> list[str]:
        return sorted(self._specs)

    def of_kind(self, *kinds: str) -> list[DeviceSpec]:
        return [spec for spec in self if spec.kind in kinds]

    def doing(self, trait: str, value: object = True) -> list[DeviceSpec]:
        """The models whose kind's traits say `trait` is `value` (`doing("fabric_switch")`,
        `doing("contains", "units")`: the racks), in catalog order: how a generator or an
        importer picks models by what they do rather than by a kind's name."""
        return [spec for spec in self if getattr(spec.traits, trait) == value]

    # cross-file validation
    def _check_references(self, spec: DeviceSpec) -> list[CatalogProblem]:
        problems: list[CatalogProblem] = []

        def bad(path: str, message: str) -> None:
            problems.append(CatalogProblem(spec.file, path, message))

        if spec.cable and spec.cable.transceiver and spec.cable.transceiver not in self:
            bad("cable.transceiver", f"unknown transceiver model {spec.cable.transceiver!r}")
        system = spec.system
        if system is None:
            return problems
        if system.chassis is not None:
            if system.chassis not in self:
                bad("system.chassis", f"unknown chassis model {system.chassis!r}")
            elif self.get(system.chassis).traits.contains != "frame":
                bad("system.chassis", f"{system.chassis!r} is not a chassis (a kind that is "
                    f"a system's frame)")
        parts: dict[str, DeviceSpec] = {}
        for i, part in enumerate(system.parts):
            if part.model not in self:
                bad(f"system.parts[{i}].model", f"unknown model {part.model!r}")
            elif part.model == spec.id:
                bad(f"system.parts[{i}].model", "a system cannot contain itself")
            else:
                parts[part.name] = self.get(part.model)
        for i, rule in enumerate(system.wiring):
            for side in ("a", "b"):
                selector = getattr(rule, side)
                port = getattr(rule, f"{side}_port")
                target = self._selector_target(selector, parts)
                if isinstance(target, str):
                    bad(f"system.wiring[{i}].{side}", target)
                elif not target.has_port(port):
                    bad(f"system.wiring[{i}].{side}_port",
                        f"{target.id} has no port group {port!r}")
        return problems

    def _selector_target(self, selector: str, parts: dict[str, DeviceSpec]) -> DeviceSpec | str:
        current = parts
        target: DeviceSpec | None = None
        for step in selector.split("/"):
            m = _SELECTOR.match(step)
            if m is None:
                return f"bad selector {selector!r} (expected part, part[i], part[i-j] or part[*])"
            if m["name"] not in current:
                return f"{selector!r}: no part named {m['name']!r}"
            target = current[m["name"]]
            current = (
                {p.name: self.get(p.model) for p in target.system.parts if p.model in self}
                if target.system
                else {}
            )
        assert target is not None
        return target


def load_catalog(paths: Iterable[Path] | None = None) -> Catalog:
    """Load and validate catalog files (default: the shipped catalog); raises CatalogError."""
    cache = None
    if paths is None:  # the shipped files: their parsed data is kept between runs
        folder = catalog_dir()
        paths = sorted(folder.rglob("*.yaml"))
        cache = ParsedFiles(folder, "catalog")
    specs: list[DeviceSpec] = []
    problems: list[CatalogProblem] = []
    for path in paths:
        spec, file_problems = read_spec_file(Path(path), cache)
        problems.extend(file_problems)
        if spec is not None:
            specs.append(spec)
    if cache is not None:
        cache.save()
    if problems:
        raise CatalogError(problems)
    return Catalog(specs)


#: (plugin, folder) of the catalog packs installed packages add (`rackdesigner.plugins`)
_PLUGIN_FOLDERS: list[tuple[str, Path]] = []


def register_catalog_folder(folder: str | os.PathLike[str], source: str) -> None:
    """Add the device files under `folder` (a catalog pack of plugin `source`) to the shipped
    catalog: `bundled_catalog` reads them with it, each file labelled with the plugin; an id
    the catalog has already is refused there, naming the plugin."""
    path = Path(folder)
    if not path.is_dir():
        raise CatalogError([CatalogProblem(f"plugin {source}", "", f"catalog folder {path} is "
                                           "not a folder")])
    _PLUGIN_FOLDERS.append((source, path))
    bundled_catalog.cache_clear()
    default_catalog.cache_clear()


@functools.cache
def bundled_catalog() -> Catalog:
    """The shipped catalog with the plugins' catalog packs, loaded once per process."""
    shipped = load_catalog()
    if not _PLUGIN_FOLDERS:
        return shipped
    import dataclasses

    specs = list(shipped)
    problems: list[CatalogProblem] = []
    for source, folder in _PLUGIN_FOLDERS:
        for path in sorted(folder.rglob("*.yaml")):
            spec, file_problems = read_spec_file(path)
            label = f"{path} (plugin {source})"
            problems.extend(dataclasses.replace(p, file=label) for p in file_problems)
            if spec is not None:
                specs.append(dataclasses.replace(spec, file=label))
    if problems:
        raise CatalogError(problems)
    return Catalog(specs)


@functools.cache
def default_catalog() -> Catalog:
    """The catalog every verb and the designer use: the shipped one, extended or overridden by
    the user's catalog folders when there are any (catalog/user.py); loaded once per process.
    A broken user folder raises CatalogError naming each file and key."""
    from rackdesigner.catalog.user import catalog_with_user, user_catalog_dirs

    dirs = user_catalog_dirs()
    return catalog_with_user(dirs) if dirs else bundled_catalog()


def reset_default_catalog() -> None:
    """Forget the loaded catalog (after the user catalog folders changed)."""
    default_catalog.cache_clear()
