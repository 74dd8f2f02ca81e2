"""Produce one record to a topic (`P` on the records screen): key, value, headers, partition
and the key's and value's formats (avro, protobuf and jsonschema too when the profile has a
schema registry, each with a subject or schema id), each field judged once edited (every
field on send), the record built by services/messages.py's `record_from_values` exactly as
`messages produce` builds it (through the registry: in a thread, when sent), sent in a worker
through its `produce`; the dialog closes with where it landed.

The title (naming the topic) and the buttons stay on screen at 80x24; the fields scroll.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static, TextArea

from ...admin import AdminError
from ...admin.records import OutgoingRecord
from ...fields import FieldError
from ...services.codecs import FORMATS, SCHEMA_FORMATS, SchemaSource
from ...services.messages import Produced, produce, record_from_values
from ...services.ports import AdminPort
from ...services.registry_access import parse_choice
from ..words import field_error_words

# The schema formats need a registry: offered when the profile has one.
FORM_FORMATS = tuple(f for f in FORMATS if f not in SCHEMA_FORMATS)
FIELDS = ("key", "value", "headers", "partition")


def header_texts(text: str) -> list[str]:
    """`NAME=VALUE` entries, one per line or comma-separated (blank ones skipped)."""
    return [part.strip() for line in text.splitlines() for part in line.split(",") if part.strip()]


class ProduceDialog(ModalScreen[Produced | None]):
    """One record to `topic` (of `partitions` partitions); dismissed with its outcome."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="produce.cancel"),
        Binding("ctrl+s", "send", "Send", id="produce.send"),
    ]

    def __init__(
        self,
        admin: AdminPort,
        topic: str,
        partitions: int,
        schemas: SchemaSource | None = None,
    ) -> None:
        super().__init__()
        self.admin = admin
        self.topic = topic
        self.partitions = partitions
        self.schemas = schemas  # the profile's registry: avro, protobuf, jsonschema offered
        self.record: OutgoingRecord | None = None
        # what record_from_values is given once every field is valid: the record is built
        # from it in the send worker when a side goes through the registry (HTTP)
        self.request: dict[str, Any] | None = None
        self.errors: dict[str, str] = {}
        self.edited: set[str] = set()
        self.submitted = False
        self.proto_message: str | None = None  # the Protobuf message written (None: first)

    def compose(self) -> ComposeResult:
        formats = [(f, f) for f in (FORMATS if self.schemas is not None else FORM_FORMATS)]
        last = self.partitions - 1
        with Vertical(id="produce-dialog", classes="dialog"):
            yield Label(f"Produce a record to '{self.topic}'", classes="dialog-title", markup=False)
            with VerticalScroll(classes="dialog-body"):
                with Horizontal(classes="produce-row"):
                    yield Input(placeholder="key (empty: no key)", id="key")
                    yield Select(formats, value="auto", allow_blank=False, id="key-format")
                yield self._schema_input("key")
                yield Label("", id="key-error", classes="field-error", markup=False)
                with Horizontal(classes="produce-row produce-value-row"):
                    yield TextArea(id="value", placeholder="value (empty: a tombstone)")
                    yield Select(formats, value="auto", allow_blank=False, id="value-format")
                yield self._schema_input("value")
                yield Label("", id="value-error", classes="field-error", markup=False)
                message = Input(
                    placeholder="Protobuf message, e.g. shop.Order (empty: the schema's first)",
                    id="proto-message",
                    classes="produce-schema",
                )
                message.display = False  # shown when a side is protobuf
                yield message
                yield TextArea(
                    id="headers",
                    placeholder="headers NAME=VALUE, one per line or comma-separated",
                )
                yield Label("", id="headers-error", classes="field-error", markup=False)
                yield Input(
                    placeholder=f"partition 0-{last} (empty: Kafka's partitioner)"
                    if last >= 0
                    else "partition (empty: Kafka's partitioner)",
                    id="partition",
                )
                yield Label("", id="partition-error", classes="field-error", markup=False)
                yield Static("", id="produce-verdict", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Send (Ctrl+S)", variant="primary", id="produce-send")
                yield Button("Cancel (Esc)", id="produce-cancel")

    def _schema_input(self, which: str) -> Input:
        """The subject or schema id a side is written with; shown for avro, protobuf and
        jsonschema."""
        field = Input(
            placeholder=f"{which} schema: subject or id (empty: {self.topic}-{which})",
            id=f"{which}-schema",
            classes="produce-schema",
        )
        field.display = False
        return field

    def on_mount(self) -> None:
        self.query_one("#key", Input).focus()
        self.revalidate()

    # -- the form --------------------------------------------------------------------------

    def _values(self) -> dict[str, str]:
        return {
            "key": self.query_one("#key", Input).value,
            "value": self.query_one("#value", TextArea).text,
            "headers": self.query_one("#headers", TextArea).text,
            "partition": self.query_one("#partition", Input).value,
            "key-format": str(self.query_one("#key-format", Select).value),
            "value-format": str(self.query_one("#value-format", Select).value),
            "key-schema": self.query_one("#key-schema", Input).value,
            "value-schema": self.query_one("#value-schema", Input).value,
            "proto-message": self.query_one("#proto-message", Input).value.strip(),
        }

    @on(Input.Changed)
    @on(TextArea.Changed)
    @on(Select.Changed)
    def changed(self, event: Input.Changed | TextArea.Changed | Select.Changed) -> None:
        widget = event.control
        if widget is not None and widget.id:
            # a format judges its side: json chosen for a value that is not JSON says so
            self.edited.add(widget.id.removesuffix("-format").removesuffix("-schema"))
        self.revalidate()

    def revalidate(self) -> None:
        """Every field checked as `messages produce` checks its flags; an error shown next to
        its field once that field was edited (or the form sent)."""
        v = self._values()
        errors: dict[str, str] = {}
        key = v["key"] or None
        value = v["value"] or None
        headers = header_texts(v["headers"])
        partition: int | None = None
        if v["partition"].strip():
            text = v["partition"].strip()
            if not text.isdigit():
                errors["partition"] = f"'{text}' is not a partition number."
            elif int(text) >= self.partitions > 0:
                errors["partition"] = (
                    f"The topic has {self.partitions} partitions (0-{self.partitions - 1})."
                )
            else:
                partition = int(text)
        # each side on its own, so each field shows its own error; a side written through
        # the registry is checked here as JSON text, and encoded when sent (it asks the
        # registry, off the UI thread)
        formats = {}
        for which in ("key", "value"):
            fmt = formats[which] = v[f"{which}-format"]
            self.query_one(f"#{which}-schema", Input).display = fmt in SCHEMA_FORMATS
        through_registry = any(f in SCHEMA_FORMATS for f in formats.values())
        protobuf = "protobuf" in formats.values()
        self.query_one("#proto-message", Input).display = protobuf
        self.proto_message = (v["proto-message"] or None) if protobuf else None
        checked = {w: "json" if f in SCHEMA_FORMATS else f for w, f in formats.items()}
        try:
            record_from_values(key, None, key_format=checked["key"], topic=self.topic)
        except FieldError as exc:
            errors["key"] = field_error_words(exc)
        try:
            record_from_values(None, value, value_format=checked["value"], topic=self.topic)
        except FieldError as exc:
            errors["value"] = field_error_words(exc)
        try:
            record_from_values(None, None, headers=headers)
        except FieldError as exc:
            errors["headers"] = field_error_words(exc)
        self.record = self.request = None
        if not errors:
            key_choice = parse_choice(v["key-schema"])
            value_choice = parse_choice(v["value-schema"])
            self.request = {
                "key": key,
                "value": value,
                "headers": headers,
                "partition": partition,
                "key_format": v["key-format"],
                "value_format": v["value-format"],
                "topic": self.topic,
                "key_subject": key_choice.subject,
                "value_subject": value_choice.subject,
                "key_schema_id": key_choice.schema_id,
                "value_schema_id": value_choice.schema_id,
            }
            if not through_registry:
                self.record = record_from_values(**self.request)
        self.errors = errors
        for field in FIELDS:
            label = self.query_one(f"#{field}-error", Label)
            shown = field in errors and (self.submitted or field in self.edited)
            label.update(errors[field] if shown else "")
            label.display = shown
        self.query_one("#produce-send", Button).disabled = bool(errors)

    # -- sending ---------------------------------------------------------------------------

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "produce-send":
            self.action_send()
        elif event.button.id == "produce-cancel":
            self.action_cancel()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_send(self) -> None:
        self.submitted = True
        self.revalidate()
        if self.request is not None:
            self.send(self.record, self.request)

    def _verdict(self, text: str) -> None:
        verdict = self.query_one("#produce-verdict", Static)
        verdict.update(text)
        verdict.set_class(bool(text), "error")

    @work(exclusive=True, group="produce", exit_on_error=False)
    async def send(self, record: OutgoingRecord | None, request: dict[str, Any]) -> None:
        self._verdict("")
        self.query_one("#produce-send", Button).disabled = True
        if record is None:  # through the registry: encoded in a thread
            try:
                schemas = self.schemas
                if schemas is not None and self.proto_message is not None:
                    schemas = schemas.with_proto_message(self.proto_message)
                record = await asyncio.to_thread(
                    partial(record_from_values, **request, schemas=schemas)
                )
            except FieldError as exc:
                said = field_error_words(exc)
                side = exc.field.value  # the key or the value: what went through the registry
                if side in ("key", "value"):
                    label = self.query_one(f"#{side}-error", Label)
                    label.update(said)
                    label.display = True
                else:
                    self._verdict(said)
                self.query_one("#produce-send", Button).disabled = bool(self.errors)
                return
        try:
            outcomes = [p async for p in produce(self.admin, self.topic, [record])]
        except AdminError as exc:
            self._verdict(exc.message)
            return
        finally:
            self.query_one("#produce-send", Button).disabled = bool(self.errors)
        outcome = outcomes[0]
        if outcome.error is not None:
            self._verdict(outcome.message or outcome.error)
            return
        self.dismiss(outcome)
