"""The Workload tab's fields keep their height in a short dock (issue 38 item 4): with the
batch note and the wrapped status lines, the tab's minimum counted one line per note and the
option rows were squeezed: "1.000 T tokens" lost the bottom of its digits."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")


def test_the_train_field_is_never_squeezed_below_its_size_hint(qtbot):
    from PySide6.QtWidgets import QApplication

    from rackdesigner.generators import generate
    from rackdesigner.ui.panel import SimulationPanel

    panel = SimulationPanel(debounce_ms=0)
    qtbot.addWidget(panel)
    panel.set_layout(generate("superpod", system="gb200-nvl72", racks=14), "nvl72.yaml")
    panel.tabs.setCurrentWidget(panel.workload_modes)
    tab = panel.workload
    assert not tab.batch_note.isHidden()  # the note that made the tab taller than it said
    panel.resize(430, 520)  # a short, narrow dock
    panel.show()
    qtbot.waitExposed(panel)
    tab.flush()
    for _ in range(10):  # the layout requests a width change posts settle
        QApplication.processEvents()
        qtbot.wait(20)
    fields = (tab.tokens, tab.gbs, tab.mbs, tab.gpus, tab.model_combo, tab.profile_combo)
    for field in fields:
        assert field.height() >= field.minimumSizeHint().height(), field.toolTip()
        assert field.height() >= field.sizeHint().height(), field.toolTip()
    # the tab asks for the wrapped notes' full height at its width
    note = tab.batch_note
    assert tab.minimumSizeHint().height() >= note.heightForWidth(note.width())
    assert tab.height() >= tab.minimumSizeHint().height()
