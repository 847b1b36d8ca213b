"""New from template: pick a generator template, fill in its options, get a layout.

The form is built from the generators' own table (`rackdesigner.generators.TEMPLATES`), so a new
template or option appears here without GUI changes. Options naming a model (`system`, `switch`,
`endpoint`) and options with fixed choices are drop-downs of what the catalog has, so a typo
cannot happen. Errors (`GeneratorError`) show in the dialog; nothing happens to the open
document until a layout is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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

from rackdesigner import vocabulary
from rackdesigner.catalog import Catalog
from rackdesigner.model import Layout
from rackdesigner.ui import style
from rackdesigner.ui.plain_text import plain

if TYPE_CHECKING:
    from rackdesigner.ui.settings import Settings

#: Options that name a catalog model, and the trait (with its value) of the models they offer.
MODEL_OPTIONS: dict[str, tuple[str, object]] = {
    "system": ("contains", "parts"), "switch": ("fabric_switch", True),
    "endpoint": ("endpoint", True)}



def _field_word(name: str) -> str:
    """A template option as this dialog names it: its field's label, quoted."""
    return f"“{name}”"

class TemplateDialog(QDialog):
    def __init__(self, catalog: Catalog, parent: QWidget | None = None,
                 settings: Settings | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
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
        self.fields: dict[str, QLineEdit | QComboBox] = {}
        self.template.currentIndexChanged.connect(self._on_template_changed)
        self._on_template_changed()
        self._restore_last()

    def _restore_last(self) -> None:
        """Open on the template built last, with its fields as they were (a value the catalog
        no longer offers is passed over)."""
        if self.settings is None:
            return
        name, values = self.settings.last_template()
        if name not in self.templates:
            return
        self.template.setCurrentIndex(self.template.findData(name))
        for option, value in values.items():
            if option in self.fields:
                try:
                    self.set_values(name, **{option: value})
                except ValueError:
                    continue

    def _on_template_changed(self, *args) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)
        self.fields = {}
        template = self.templates[self.template.currentData()]
        self.summary.setText(plain(template.summary))
        for option in template.options:
            hint = vocabulary.worded(option.help, _field_word)
            choices = self._choices(option)
            edit: QLineEdit | QComboBox
            if choices is not None:
                edit = QComboBox(self.form_host)
                if not option.required:
                    edit.addItem("(default)", None)
                for text, value in choices:
                    edit.addItem(text, value)
                if option.default is not None:
                    edit.setCurrentIndex(max(edit.findData(str(option.default)), 0))
            else:
                edit = QLineEdit(self.form_host)
                if option.default is not None:
                    edit.setText(str(option.default))
                edit.setPlaceholderText(hint)
            edit.setToolTip(plain(hint))
            label = option.name + (" *" if option.required else "")
            self.form.addRow(label, edit)
            self.fields[option.name] = edit
        self.error.clear()

    def _choices(self, option) -> list[tuple[str, str]] | None:
        """(text, value) entries for a drop-down, or None for a free field."""
        if getattr(option, "choices", None):
            return [(str(c), str(c)) for c in option.choices]
        wanted = MODEL_OPTIONS.get(option.name)
        if wanted is None:
            return None
        specs = self.catalog.doing(*wanted)
        if option.offers:  # what the generator builds, as it declares it
            specs = [s for s in specs if s.id in option.offers]
        elif option.name == "system":  # systems with compute NICs to wire: DGX/HGX nodes
            specs = [s for s in specs if s.system is not None
                     and s.id.startswith(("dgx-", "hgx-"))] or specs
        return [(f"{s.id} — {s.model}", s.id) for s in sorted(specs, key=lambda s: s.id)]

    def set_values(self, template: str, **values: object) -> None:
        self.template.setCurrentIndex(self.template.findData(template))
        for name, value in values.items():
            field = self.fields[name]
            if isinstance(field, QComboBox):
                index = field.findData(str(value))
                if index < 0:
                    raise ValueError(f"{value!r} is not a choice of {name}")
                field.setCurrentIndex(index)
            else:
                field.setText(str(value))

    def value_of(self, name: str) -> str | None:
        field = self.fields[name]
        if isinstance(field, QComboBox):
            return field.currentData()
        return field.text().strip() or None

    def build(self) -> None:
        from rackdesigner.generators import GeneratorError, generate
        from rackdesigner.model.gcpause import gc_paused

        values = {name: self.value_of(name) for name in self.fields}
        try:
            with gc_paused():  # a whole design built at once: no heap walks meanwhile
                self.result_layout = generate(self.template.currentData(),
                                              catalog=self.catalog, **values)
        except GeneratorError as exc:  # the dialog names the field at fault its own way
            text = exc.worded(_field_word)
            self.error.setText(plain(f"{exc.option.capitalize()}: {text}" if exc.option else text))
            return
        except (ValueError, KeyError) as exc:
            self.error.setText(plain(str(exc)))
            return
        if self.settings is not None:
            self.settings.save_last_template(self.template.currentData(), values)
        self.accept()
