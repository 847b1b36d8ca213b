"""Reference designs and topology generators: `generate(template, **options) -> Layout`.

`TEMPLATES` maps a template name to its description, its options and the function that builds
it; the CLI (`rackdesigner generate`) and the GUI read the same table. Every generated layout
has each device in a rack at a U position, is grouped node → rack → SU/pod, has its canvas laid
out like the floor, and passes the design rules with no errors.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rackdesigner.catalog import Catalog, default_catalog
from rackdesigner.generators.design import GeneratorError
from rackdesigner.model import Layout
from rackdesigner.vocabulary.wording import cli_word, worded

__all__ = ["TEMPLATES", "GeneratorError", "Option", "Template", "describe_templates", "generate"]


@dataclass(frozen=True, slots=True)
class Option:
    name: str
    type: type
    help: str
    required: bool = False
    default: Any = None
    choices: tuple[Any, ...] = ()
    #: the catalog models a model-naming option is built for (the New-from-template dialog
    #: lists exactly these; the generator still resolves aliases and checks what it is given)
    offers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Template:
    name: str
    summary: str
    options: tuple[Option, ...]
    build: Callable[..., Layout]


def _system(model: str) -> Callable[..., Layout]:
    def build(catalog: Catalog) -> Layout:
        from rackdesigner.generators.systems import build_system

        return build_system(catalog, model)

    return build


def _nvl72(catalog: Catalog, system: str = "gb200-nvl72", cdus: int = 0,
           cdu: str | None = None, fabrics: str | None = None) -> Layout:
    from rackdesigner.generators.systems import build_nvl72

    return _with_cdus(build_nvl72(catalog, system, fabrics), cdus, cdu)


def _with_cdus(layout: Layout, cdus: int, cdu: str | None = None) -> Layout:
    """The `cdus` option: every liquid rack given its CDU (model/cdus.py); `cdu` names the
    CDU model (an in-row one serves several racks of a row), else the largest in-rack one."""
    if cdu is not None and not cdus:
        raise GeneratorError("{cdu} applies with {cdus} 1", "cdu")
    if cdus:
        from rackdesigner.model.cdus import cdu_models, missing_cdus

        if cdu is not None and cdu not in {s.id for s in cdu_models(layout)}:
            known = ", ".join(s.id for s in cdu_models(layout))
            raise GeneratorError(f"{cdu!r} is not a CDU model with a stated capacity "
                                 f"(one of: {known})", "cdu")
        with layout.transaction():
            for device in missing_cdus(layout, cdu)[0]:
                layout.add_device(device)
    return layout


def _superpod(catalog: Catalog, system: str, sus: int | None = None,
              nodes: int | None = None, racks: int | None = None,
              switch: str | None = None, fabrics: str | None = None) -> Layout:
    from rackdesigner.generators.superpod import build_superpod

    return build_superpod(catalog, system, sus, nodes, racks, switch, fabrics)


def _mixed(catalog: Catalog, systems: str, switch: str | None = None,
           oversubscription: float = 1.0, cdus: int = 0, cdu: str | None = None) -> Layout:
    from rackdesigner.generators.mixed import build_mixed

    return _with_cdus(build_mixed(catalog, systems, switch, oversubscription), cdus, cdu)


def _pods(catalog: Catalog, pods: str, switch: str | None = None,
          oversubscription: float = 1.0, core: float = 1.0, cdus: int = 0,
          cdu: str | None = None) -> Layout:
    from rackdesigner.generators.pods import build_pods

    return _with_cdus(build_pods(catalog, pods, switch, oversubscription, core), cdus, cdu)


def _fat_tree(catalog: Catalog, switch: str, levels: int, endpoints: int | None = None,
              oversubscription: float = 1.0, endpoint: str | None = None) -> Layout:
    from rackdesigner.generators.fattree import build_fat_tree

    return build_fat_tree(catalog, switch, levels, endpoints, oversubscription, endpoint)


def _rail(catalog: Catalog, system: str, nodes: int, switch: str,
          oversubscription: float = 1.0, nics: int | None = None) -> Layout:
    from rackdesigner.generators.rail import build_rail, plan_rail

    plan = plan_rail(catalog, system, nodes, switch, oversubscription=oversubscription,
                     nics=nics)
    spec = catalog.get(system)
    ratio = f", {oversubscription:g}:1 oversubscribed" if oversubscription != 1 else ""
    title = f"Rail-optimized fabric, {nodes} x {spec.model} on {plan.switch}{ratio}"
    taper = f" ({plan.clos.down} ports down, {plan.clos.up} up)" if ratio else ""
    return build_rail(catalog, plan, title,
                      f"{title}: {plan.sus} SU of {plan.nodes_per_su} nodes, one leaf per rail"
                      f"{taper}, {plan.clos.levels} switch levels.")


def _single_leaf(catalog: Catalog, system: str, nodes: int, switch: str) -> Layout:
    from rackdesigner.generators.systems import build_single_leaf

    return build_single_leaf(catalog, system, nodes, switch)


_SYSTEM_DOC = {
    "dgx-a100": "one DGX A100: 8 A100 on 6 NVSwitch gen2, 8 ConnectX-6 HDR compute NICs",
    "dgx-h100": "one DGX H100: 8 H100 on 4 NVSwitch gen3 (5+5+4+4 links), 8 ConnectX-7",
    "dgx-h200": "one DGX H200: 8 H200 on 4 NVSwitch gen3, 8 ConnectX-7",
    "dgx-b200": "one DGX B200: 8 B200 on 2 NVLink 5 switch chips, 8 ConnectX-7",
    "hgx-h800": "one HGX H800 server: 8 H800 (NVLink 400 GB/s) on 4 NVSwitch gen3, 8 ConnectX-7",
    "hgx-h20": "one HGX H20 server: 8 H20 on 4 NVSwitch gen3, 8 ConnectX-7",
}

#: The systems `superpod` builds: the DGX reference architectures (`superpod.PRESETS`) and the
#: GB200 NVL72 SuperPOD (a test holds this to the generator's tables)
SUPERPOD_SYSTEMS = ("dgx-a100", "dgx-b200", "dgx-h100", "dgx-h200", "gb200-nvl72", "gb300-nvl72")

#: Every liquid rack given its CDU (commands/cooling.py), 1 yes, 0 no.
OVERSUBSCRIPTION = Option("oversubscription", float, "leaf down:up ratio R (R:1, default 1)",
                          default=1.0)
CDUS = Option("cdus", int, "1: give every liquid rack its CDU (sized to its liquid heat)",
              default=0, choices=(0, 1))
#: The CDU model of `cdus` (an in-row model shares one CDU among racks of a row).
CDU = Option("cdu", str, "CDU model for {cdus} 1 (default the largest in-rack one; "
             "vertiv-xdu1350: in-row, one CDU for several racks of a row)")
TEMPLATES: dict[str, Template] = {}
for _model, _doc in _SYSTEM_DOC.items():
    TEMPLATES[_model] = Template(_model, _doc + ", in a rack", (), _system(_model))
TEMPLATES["nvl72"] = Template(
    "nvl72", "a GB200 NVL72 rack: 18 compute trays, 9 NVLink switch trays, every GPU on each "
    "of the 18 switch chips, 4 ConnectX-7 per compute tray (GB300: 4 ConnectX-8)",
    (Option("system", str, "gb200-nvl72 (default) or gb300-nvl72", default="gb200-nvl72"),
     CDUS, CDU,
     Option("fabrics", str, "fabrics to draw, comma-separated: compute (default, always) "
            "and oob (two SN2201 in the rack, every tray BMC and switch-tray COM Express "
            "port cabled); the storage fabric is superpod's")),
    _nvl72)
TEMPLATES["superpod"] = Template(
    "superpod", "a DGX SuperPOD compute fabric as its reference architecture publishes it "
    "(rail-optimized, non-blocking; leaf/spine, plus a core tier at 16+ SUs)",
    (Option("system", str, "dgx-h100, dgx-h200, dgx-b200, dgx-a100, gb200-nvl72 or gb300-nvl72",
            required=True, offers=SUPERPOD_SYSTEMS),
     Option("sus", int, "number of scalable units (give this, {nodes} or, for gb200-nvl72, "
            "{racks})"),
     Option("nodes", int, "number of nodes (the fabric is built for whole SUs)"),
     Option("racks", int, "gb200-nvl72, gb300-nvl72: number of NVL72 racks (8 per SU)"),
     Option("switch", str, "fabric switch instead of the RA's (q3400: XDR, beyond 65,536 "
            "endpoints; sn5600: Spectrum-X Ethernet)"),
     Option("fabrics", str, "fabrics to draw, comma-separated: compute (default, always), "
            "storage (storage leaves, spines and appliances: InfiniBand on DGX A100/H100/H200/"
            "B200, Ethernet on NVL72 racks) and oob (an SN2201 per rack, every BMC cabled; "
            "NVL72: two, the switch trays' COM Express ports too)")),
    _superpod)
TEMPLATES["mixed"] = Template(
    "mixed", "several system types on one compute fabric (NVL72 racks and DGX nodes under one "
    "spine layer)",
    (Option("systems", str, "system:count pairs, e.g. gb200-nvl72:8,dgx-b200:32 (NVL72 in "
            "racks, DGX systems in nodes)", required=True),
     Option("switch", str, "fabric switch (default qm9700)"),
     OVERSUBSCRIPTION,
     CDUS, CDU),
    _mixed)
TEMPLATES["pods"] = Template(
    "pods", "two or more pods, each on its own leaf/spine layer (a mixed pod allowed), joined "
    "by a core switch tier",
    (Option("pods", str, "pods separated by '/', each system:count pairs, e.g. "
            "gb200-nvl72:8/dgx-b200:32", required=True),
     Option("switch", str, "fabric switch of every tier (default qm9700)"),
     OVERSUBSCRIPTION,
     Option("core", float, "pods: spine down:up ratio R toward the core (R:1, default 1)",
            default=1.0),
     CDUS, CDU),
    _pods)
TEMPLATES["fat-tree"] = Template(
    "fat-tree", "a generic fat tree of one switch model with NIC endpoints, top-of-rack leaves",
    (Option("switch", str, "switch model, e.g. qm9700", required=True),
     Option("levels", int, "switch levels", required=True, choices=(2, 3)),
     Option("endpoints", int, "endpoints (default: the full capacity, k²/2 or k³/4)"),
     OVERSUBSCRIPTION,
     Option("endpoint", str, "endpoint NIC model (default: the adapter matching the switch)")),
    _fat_tree)
TEMPLATES["rail-optimized"] = Template(
    "rail-optimized", "nodes of one system on a rail-optimized fabric: SUs of half-radix nodes, "
    "one leaf per rail, spines (and cores when needed)",
    (Option("system", str, "system model, e.g. dgx-h100", required=True),
     Option("nodes", int, "number of nodes", required=True),
     Option("switch", str, "switch model, e.g. qm9700", required=True),
     Option("oversubscription", float, "leaf down:up ratio R (R:1, default 1): SUs keep "
            "half-radix nodes, each leaf keeps 1/R as many uplinks", default=1.0),
     Option("nics", int, "compute NICs per node (default: all the system's, one per GPU); "
            "half of them, e.g. 4 on an 8-GPU board, is the HGX built with 4 NICs: one per "
            "PCIe switch, shared by its two GPUs")),
    _rail)
TEMPLATES["single-leaf"] = Template(
    "single-leaf", "a few nodes and one leaf switch in one rack, every compute NIC on the leaf",
    (Option("system", str, "system model, e.g. dgx-h100", required=True),
     Option("nodes", int, "number of nodes", required=True),
     Option("switch", str, "switch model, e.g. qm9700", required=True)),
    _single_leaf)


def generate(template: str, catalog: Catalog | None = None, **options: Any) -> Layout:
    """Build a layout from a template; `GeneratorError` for unknown templates or bad options."""
    spec = TEMPLATES.get(template)
    if spec is None:
        import difflib

        close = difflib.get_close_matches(template, list(TEMPLATES), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise GeneratorError(f"unknown template {template!r}{hint}; known: "
                             f"{', '.join(TEMPLATES)}")
    known = {o.name: o for o in spec.options}
    values: dict[str, Any] = {}
    for key, value in options.items():
        if value is None:
            continue
        if key not in known:
            takes = ", ".join("{" + o + "}" for o in known) or "no options"
            raise GeneratorError(f"template {template!r} has no option {key!r} (it takes "
                                 f"{takes})")
        option = known[key]
        try:
            value = option.type(value)
        except (TypeError, ValueError):
            raise GeneratorError(f"expects {option.type.__name__}, got {value!r}", key) from None
        if option.choices and value not in option.choices:
            raise GeneratorError(f"must be one of "
                                 f"{', '.join(map(str, option.choices))}, got {value!r}", key)
        values[key] = value
    missing = [o.name for o in spec.options if o.required and o.name not in values]
    if missing:
        raise GeneratorError(f"template {template!r} needs "
                             f"{', '.join('{' + m + '}' for m in missing)}")
    catalog = catalog if catalog is not None else default_catalog()
    for key in ("system", "switch", "endpoint"):
        if key in values:
            try:
                values[key] = catalog.resolve(values[key])
            except KeyError as exc:
                raise GeneratorError(str(exc.args[0]), key) from None
    return spec.build(catalog, **values)


def describe_templates() -> str:
    """Human-readable list of templates and their options (for `generate --list`)."""
    lines = []
    for t in TEMPLATES.values():
        lines.append(f"{t.name}\n    {t.summary}")
        for o in t.options:
            need = " (required)" if o.required else ""
            kind = "|".join(map(str, o.choices)) if o.choices else o.type.__name__.upper()
            lines.append(f"    {cli_word(o.name)} {kind}: {worded(o.help, cli_word)}{need}")
    return "\n".join(lines) + "\n"
