"""Edits as plain-Python commands (`apply`, merge keys; undo replays the recorded transaction,
`history.py`); no Qt here.

Every user edit in the designer is one of these, pushed on the one undo stack through the Qt
adapter in `rackdesigner.ui.undo`.
"""

from rackdesigner.commands.base import Command, Macro
from rackdesigner.commands.clipboard import extract, paste
from rackdesigner.commands.edits import (
    AddItems,
    ChangeItem,
    MoveDevices,
    RemoveItems,
    change_device,
    change_group,
    change_link,
    group_devices,
    ungroup,
)
from rackdesigner.commands.history import History, Step, run
from rackdesigner.commands.placing import add_model, snap
from rackdesigner.commands.settings import ChangeMeta, set_sharp
from rackdesigner.commands.wiring import Refusal, WirePlan, plan_wire, port_usage, wire

__all__ = [
    "AddItems",
    "ChangeItem",
    "ChangeMeta",
    "Command",
    "History",
    "Macro",
    "MoveDevices",
    "Refusal",
    "RemoveItems",
    "Step",
    "WirePlan",
    "add_model",
    "change_device",
    "change_group",
    "change_link",
    "extract",
    "group_devices",
    "paste",
    "plan_wire",
    "port_usage",
    "run",
    "set_sharp",
    "snap",
    "ungroup",
    "wire",
]
