"""New from template: pick a generator template, fill in its options, get a layout.

The form is built from the generators' own table (`rackdesigner.generators.TEMPLATES`), so a new
template or option appears here without GUI changes. Errors (`GeneratorError`) show in the
dialog; nothing happens to the open document until a layout is built.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from rackdesigner.catalog import Catalog
from rackdesigner.model import Layout
from rackdesigner.ui import style


class TemplateDialog(QDialog):
    def __init__(self, catalog: Catalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        from rackdesigner.generators import TEMPLATES

        self.templates = TEMPLATES
        self.catalog = catalog
        self.result_layout: Layout | None = None
        self.setWindowTitle("New from template")
        self.setMinimumWidth(520)
        self.template = QComboBox(self)
        for name in TEMPLATES:
            self.template.addItem(name, name)
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.summary.setStyleSheet(f"color: {style.TEXT_DIM.name()}")
        self.form_host = QWidget(self)
        self.form = QFormLayout(self.form_host)
        self.error = QLabel(self)
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {style.WIRE_BAD.name()}")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.build)
        buttons.rejected.connect(self.reject)
        box = QVBoxLayout(self)
        top = QFormLayout()
        top.addRow("Template", self.template)
        box.addLayout(top)
        box.addWidget(self.summary)
        box.addWidget(self.form_host)
        box.addWidget(self.error)
        box.addWidget(buttons)
        self.fields: dict[str, QLineEdit] = {}
        self.template.currentIndexChanged.connect(self._on_template_changed)
        self._on_template_changed()

    def _on_template_changed(self, *args) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)
        self.fields = {}
        template = self.templates[self.template.currentData()]
        self.summary.setText(template.summary)
        for option in template.options:
            edit = QLineEdit(self.form_host)
            hint = option.help
            if option.default is not None:
                edit.setText(str(option.default))
            edit.setPlaceholderText(hint)
            edit.setToolTip(hint)
            label = option.name + (" *" if option.required else "")
            self.form.addRow(label, edit)
            self.fields[option.name] = edit
        self.error.clear()

    def set_values(self, template: str, **values: object) -> None:
        self.template.setCurrentIndex(self.template.findData(template))
        for name, value in values.items():
            self.fields[name].setText(str(value))

    def build(self) -> None:
        from rackdesigner.generators import GeneratorError, generate

        values = {name: edit.text().strip() or None for name, edit in self.fields.items()}
        try:
            self.result_layout = generate(self.template.currentData(), catalog=self.catalog,
                                          **values)
        except (GeneratorError, ValueError, KeyError) as exc:
            self.error.setText(str(exc))
            return
        self.accept()
