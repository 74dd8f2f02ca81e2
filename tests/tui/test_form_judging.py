"""Forms judge a field once it has been edited, or every field on submit: the create form
opens without "'' is not a valid topic name" (issue 53.2)."""

from __future__ import annotations

from textual.widgets import Button, Label, Static

from kafka_tui.tui.screens.create import CreateTopicScreen

from .conftest import still
from .test_tui_snapshots import Harness, create_form


def _errors(screen: CreateTopicScreen) -> dict[str, str]:
    return {
        str(label.id).removesuffix("-error"): str(label.render())
        for label in screen.query(Label).filter(".field-error")
        if label.display
    }


async def test_an_untouched_form_shows_no_error_until_submitted() -> None:
    form = create_form()
    app = Harness(screen=form)
    async with app.run_test(size=(80, 44)) as pilot:
        await still(pilot)
        assert _errors(form) == {}
        assert form.hidden_errors.keys() == {"name"}  # judged, not shown
        assert form.query_one("#apply", Button).disabled

        # An edited field is judged; the others still are not.
        await pilot.press("tab", "0")  # partitions: 0
        await still(pilot)
        assert form.edited == {"partitions"}
        assert list(_errors(form)) == ["partitions"]
        summary = str(form.query_one("#preview-summary", Static).render())
        assert summary == "Nothing to send yet: see the errors above."

        # A submit judges every field.
        await pilot.press("f2")
        await app.workers.wait_for_complete()
        await still(pilot)
        assert _errors(form)["name"].startswith("'' is not a valid topic name.")
        assert "partitions" in _errors(form)


async def test_a_name_typed_then_erased_is_judged() -> None:
    form = create_form()
    app = Harness(screen=form)
    async with app.run_test(size=(80, 44)) as pilot:
        await pilot.press("a", "backspace")
        await still(pilot)
        assert list(_errors(form)) == ["name"]
