"""A finished 256-entry bracket on a 375 px phone: every table decided and scored, the
champion crowned in the final, names whole, nothing wider than the screen; photographed."""

import os
from pathlib import Path

import pytest
from django.conf import settings

from tests.tournaments.helpers import drive, open_tournament, register_all
from tests.tournaments.test_bracket_page import fits_a_phone, heads, named_bots, names_are_whole
from tournaments import services
from tournaments.models import Table

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("no_broker"),
]


def shots_folder() -> Path:
    """Where the suite's `shoot` fixture writes (tests/conftest.py)."""
    return Path(os.environ.get("KNOCK_SHOTS") or Path(settings.BASE_DIR, "var/screenshots/site"))


def test_a_finished_256_entry_bracket_reads_on_a_phone(page, shoot):
    tournament = open_tournament(name="Big Open Finished", show_up_seconds=0)
    register_all(tournament, named_bots(256))
    services.tournament_start(tournament_id=tournament.pk)
    tournament = drive(tournament)
    assert not tournament.tables.exclude(status=Table.Status.DONE).exists()

    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(f"/tournaments/{tournament.pk}/")
    expected = [f"Round {n}" for n in range(1, 6)] + ["Quarter-finals", "Semi-finals", "Final"]
    assert heads(page) == expected
    assert page.locator(".btable").count() == 255
    assert "to be decided" not in page.locator(".bracket").inner_text()
    champion = page.locator(".btable.final .bseat.champion .name")
    assert champion.inner_text() == tournament.entries.get(placement=1).player.display_name
    assert fits_a_phone(page) and names_are_whole(page)
    shoot("bracket-256-finished")  # the page as it opens: the first round, every score

    # The reader scrolls the bracket to its end and finds the champion's table there.
    page.set_viewport_size({"width": 375, "height": 800})
    page.locator(".btable.final").scroll_into_view_if_needed()
    box = page.locator(".bracket-scroll").bounding_box()
    final = page.locator(".btable.final").bounding_box()
    assert box["x"] <= final["x"] and final["x"] + final["width"] <= box["x"] + box["width"]
    assert box["y"] <= final["y"] and final["y"] + final["height"] <= box["y"] + box["height"]
    page.screenshot(path=str(shots_folder() / "bracket-256-finished-final-375.png"))
