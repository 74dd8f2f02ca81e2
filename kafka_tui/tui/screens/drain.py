"""The brokers screen's drain (`d`): the confirmation showing what a drain would do (the
leadership reorders, the moves and bytes, the replicas per broker before -> after, what
cannot move, the cordon), with the batch size and an optional throttle; and the words of a
drain's progress and end."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label

from ...services import draining as service
from ...services.reassigning import human_bytes


@dataclass(frozen=True)
class DrainChoice:
    batch: int
    throttle: int | None


def preview_words(preview: service.Preview) -> str:
    p = preview.planned
    before, after = preview.replicas_per_broker()
    lines = [
        f"Leadership first: {len(p.reorders)} partition(s) get another preferred leader, "
        f"{len(p.elect)} elected.",
        f"Then {len(p.moves)} partition move(s) (one new replica each), "
        f"{human_bytes(preview.bytes_to_move)} to copy.",
        "Replicas per broker: "
        + ", ".join(f"{b}: {before.get(b, 0)} -> {after.get(b, 0)}" for b in sorted(after)),
    ]
    if p.unmovable:
        first = p.unmovable[0]
        lines.append(
            f"{len(p.unmovable)} partition(s) cannot move, e.g. {first.topic}-{first.partition}: "
            f"{first.reason}."
        )
    if note := preview.cordon_note():
        lines.append(note)
    elif preview.kind == "drain":
        lines.append("The broker's log directories are cordoned first (KIP-1066).")
    return "\n".join(lines)


def progress_words(brokers: list[int], p: service.DrainProgress) -> str:
    who = ",".join(map(str, brokers))
    if p.step != "moving":
        return f"Draining broker {who}: {p.step}…"
    left = "?" if p.eta_s is None else f"{p.eta_s:.0f} s"
    stall = f" {words[0].upper()}{words[1:]}." if (words := p.stall_words()) else ""
    return (
        f"Draining broker {who}: {p.done}/{p.of} partitions moved, {p.copying} copying; "
        f"{human_bytes(p.copied)} of {human_bytes(p.total)} copied, "
        f"{human_bytes(int(p.rate))}/s, {left} left.{stall} esc stops (finished moves stay)."
    )


class DrainConfirm(ModalScreen[DrainChoice | None]):
    """Drain these brokers? The preview, then the batch size and throttle."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, preview: service.Preview) -> None:
        super().__init__()
        self.preview = preview

    def compose(self) -> ComposeResult:
        who = ", ".join(map(str, self.preview.brokers))
        with VerticalScroll(id="drain-dialog", classes="dialog"):
            yield Label(f"Drain broker {who}?", classes="dialog-title", markup=False)
            yield Label(preview_words(self.preview), markup=False)
            with Vertical(classes="dialog-foot"):
                with Horizontal(id="drain-inputs"):
                    yield Input(
                        str(service.DEFAULT_BATCH),
                        placeholder="partitions copying at once",
                        id="drain-batch",
                        type="integer",
                    )
                    yield Input(
                        placeholder="throttle bytes/s (optional)",
                        id="drain-throttle",
                        type="integer",
                    )
                with Horizontal(classes="buttons"):
                    yield Button("Drain", variant="warning", id="drain-yes")
                    yield Button("Cancel", id="drain-no")

    def on_mount(self) -> None:
        self.query_one("#drain-yes", Button).focus()

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        if event.button.id != "drain-yes":
            self.dismiss(None)
            return
        batch = self.query_one("#drain-batch", Input).value.strip()
        throttle = self.query_one("#drain-throttle", Input).value.strip()
        self.dismiss(
            DrainChoice(
                int(batch) if batch.isdigit() and int(batch) > 0 else service.DEFAULT_BATCH,
                int(throttle) if throttle.isdigit() and int(throttle) > 0 else None,
            )
        )

    def action_cancel(self) -> None:
        self.dismiss(None)
