"""How the TUI tells the operator what happened: one policy for every notice.

Screens and their workers say *what* happened — a `Notice` of a kind (done, note, hint,
warning, failed) with its text and title — and post it (`KafkaScreen.tell`) as a `Told`
message; the app shows it (`KafkaTuiApp.on_told`) with the kind's severity and time on
screen. A failure stays longest, so an operator who looked away still reads it. The
functions below turn the services' results into notices without touching a screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from textual.message import Message
from textual.notifications import SeverityLevel

if TYPE_CHECKING:  # the services load with the screens that use them, not with the app
    from ..admin import TopicResult
    from ..services.filling import FillResult
    from ..services.leader_elections import ElectionOutcome


class Kind(Enum):
    DONE = "done"  # a change went through
    NOTE = "note"  # nothing happened, nothing is wrong ("Nothing deleted.")
    HINT = "hint"  # the operator asked for something that needs a step first
    WARNING = "warning"  # it went through, with something to look at
    FAILED = "failed"  # it did not go through


# Severity and seconds on screen, per kind.
POLICY: dict[Kind, tuple[SeverityLevel, float]] = {
    Kind.DONE: ("information", 6.0),
    Kind.NOTE: ("information", 5.0),
    Kind.HINT: ("warning", 5.0),
    Kind.WARNING: ("warning", 12.0),
    Kind.FAILED: ("error", 12.0),
}


@dataclass(frozen=True)
class Notice:
    kind: Kind
    text: str
    title: str = ""

    @property
    def severity(self) -> SeverityLevel:
        return POLICY[self.kind][0]

    @property
    def timeout(self) -> float:
        return POLICY[self.kind][1]


class Told(Message):
    """A notice posted by a screen or its worker; the app shows it."""

    def __init__(self, notice: Notice) -> None:
        super().__init__()
        self.notice = notice


def done(text: str, title: str = "") -> Notice:
    return Notice(Kind.DONE, text, title)


def note(text: str, title: str = "") -> Notice:
    return Notice(Kind.NOTE, text, title)


def hint(text: str, title: str = "") -> Notice:
    return Notice(Kind.HINT, text, title)


def warning(text: str, title: str = "") -> Notice:
    return Notice(Kind.WARNING, text, title)


def failed(text: str, title: str = "") -> Notice:
    return Notice(Kind.FAILED, text, title)


def for_topic_results(results: Sequence[TopicResult]) -> list[Notice]:
    """A KIP-409 creation under-replicated, or a grow that moves keys, is one warning (its
    message says why); a name that collides with another ('.' vs '_') is a success plus a
    warning."""
    from ..services.keys import KEY_MAPPING_WARNING
    from ..services.placing import UNDER_REPLICATED_WARNING

    notices: list[Notice] = []
    for r in results:
        if r.ok and r.warning in (UNDER_REPLICATED_WARNING, KEY_MAPPING_WARNING):
            warnings = ", ".join(r.warnings or (r.warning or "",))
            notices.append(warning(r.message, f"{r.topic}: {warnings}"))
        elif r.ok and r.warning:
            notices += [done(r.message, r.topic), warning(r.warning, r.topic)]
        elif r.ok:
            notices.append(done(r.message, r.topic))
        else:
            notices.append(failed(r.message, f"{r.topic}: {r.error}"))
    return notices


def for_fills(results: Sequence[FillResult]) -> list[Notice]:
    from ..services.filling import NO_BROKER_AVAILABLE

    if not results:
        return [note("No open placeholders.", "Fill placeholders")]
    notices: list[Notice] = []
    for r in results:
        title = f"{r.topic}-{r.partition}" + (f": {r.error}" if r.error else "")
        if r.ok:
            notices.append(done(r.message, title))
        elif r.error == NO_BROKER_AVAILABLE:
            notices.append(warning(r.message, title))
        else:
            notices.append(failed(r.message, title))
    return notices


def for_election(outcome: ElectionOutcome) -> Notice:
    elected, not_needed, failures = outcome.counts()
    text = (
        f"{elected} partition(s) got their preferred leader back, {not_needed} had it "
        f"already, {failures} failed."
    )
    first = next((r for r in outcome.results if not r.ok), None)
    if first is not None:
        text += f" First failure: {first.message}"
    title = "Preferred leader election"
    return warning(text, title) if failures else done(text, title)
