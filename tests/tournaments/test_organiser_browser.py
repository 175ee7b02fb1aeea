"""An organiser runs a tournament from its page in Chromium, through its buttons and their
confirmations: seeds entries by hand, opens check-in, cancels with refunds, and replays a
disputed match so the bracket moves on."""

import re

import pytest

from gameplay.models import Match, Player
from tests.tournaments.helpers import (
    bots,
    disputed_first_table,
    drive,
    humans,
    open_tournament,
    organiser,
    register_all,
)
from tests.tournaments.test_web_browser import confirm
from tournaments import services
from tournaments.models import Entry, Table, Tournament

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("no_broker"),
]


def notices(page) -> str:
    return page.locator(".notices").inner_text()


def test_the_organiser_seeds_an_entry_by_hand_then_opens_check_in(page, login, shoot):
    by = organiser("olga")
    tournament = open_tournament(by=by, name="Seeded Gin", seeding=Tournament.Seeding.MANUAL)
    players = bots(3)
    register_all(tournament, players)
    entry = tournament.entries.get(player=players[2])
    login("olga")
    page.goto(f"/tournaments/{tournament.pk}/")
    seed = page.locator(f"#seed-{entry.pk}")
    seed.fill("1")
    seed.locator("xpath=ancestor::form").get_by_role("button", name="Set").click()
    page.wait_for_load_state()
    assert page.locator(f"#seed-{entry.pk}").input_value() == "1"
    entry.refresh_from_db()
    assert entry.manual_seed == 1

    confirm(page, "Open check-in", "Open check-in")
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CHECK_IN
    assert page.locator("summary", has_text="Close check-in").is_visible()
    shoot("organiser-check-in-open")


def test_the_organiser_cancels_and_the_fees_go_back(page, login, shoot):
    by = organiser("olga")
    tournament = open_tournament(by=by, name="Paid Gin", entry_fee=10)
    players = humans(2, coins=50)
    register_all(tournament, players)
    login("olga")
    page.goto(f"/tournaments/{tournament.pk}/")
    page.locator("summary", has_text="Cancel tournament").click()
    question = page.locator("details[open] .confirm-panel").inner_text()
    assert "2 entries" in question and "20 coins" in question
    shoot("organiser-cancel-confirm")
    page.locator("details[open] .confirm-panel button", has_text="Cancel and refund").click()
    page.wait_for_load_state()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert "Cancelled. 20 coins refunded to 2 players." in notices(page)
    assert [p.coins for p in Player.objects.filter(pk__in=[p.pk for p in players])] == [50, 50]
    assert not page.locator("#organiser-panel summary").count()  # nothing left to run
    assert not page.locator("#entries summary", has_text="Disqualify").count()
    assert "Cancelled before the draw" in page.locator("#bracket-section").inner_text()
    shoot("organiser-cancelled")


def test_the_organiser_replays_a_disputed_match_and_the_bracket_moves_on(page, login, shoot):
    by = organiser("olga")
    tournament = open_tournament(by=by, name="Disputed Gin", show_up_seconds=0)
    register_all(tournament, bots(4))
    services.tournament_start(tournament_id=tournament.pk, by=by)
    table = disputed_first_table(tournament)
    login("olga")
    page.goto(f"/tournaments/{tournament.pk}/")
    panel = page.locator("#organiser-panel")
    disputed = panel.locator("li", has=page.locator("summary", has_text="Replay it"))
    assert disputed.count() == 1
    assert re.search(r"Round 1, table 1\b", disputed.inner_text())
    cancel = panel.locator("summary", has_text="Cancel tournament").bounding_box()
    heading = panel.get_by_role("heading", name="Disputed matches").bounding_box()
    assert heading["y"] - (cancel["y"] + cancel["height"]) >= 16  # a section, not a caption
    shoot("organiser-disputed")

    confirm(page, "Replay it", "Replay")
    assert not panel.locator("summary", has_text="Replay it").count()
    table.refresh_from_db()
    assert table.replays == 1 and table.matches.count() == 2
    replacement = table.matches.get(number=2).match
    assert replacement.status == Match.Status.ACTIVE

    drive(tournament)
    page.reload()
    table.refresh_from_db()
    assert table.status == Table.Status.DONE
    # The winner of the replayed table went through to the final, which was played.
    winner = table.seats.get(finish=1).entry
    final = tournament.tables.get(round_number=2)
    assert final.seats.filter(entry=winner).exists()
    assert tournament.entries.filter(status=Entry.Status.CHAMPION).count() == 1
    assert page.locator(".btable.final .bseat.champion").count() == 1
    set_aside = page.locator('.btable[data-table="1-0"] footer a.set-aside')
    assert set_aside.inner_text() == "Game 1 (set aside) \u203a"
    shoot("organiser-dispute-resolved")
