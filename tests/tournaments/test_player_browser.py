"""A player's own tournament buttons in Chromium: withdrawing from a paid tournament gives
the fee back and says so; a full tournament takes them on its waiting list."""

import pytest

from gameplay.models import Player
from tests.tournaments.helpers import bots, humans, open_tournament, register_all
from tournaments import services
from tournaments.models import Entry

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("no_broker"),
]


def entry_status(page) -> str:
    return page.locator("#player-panel .entry-status").get_attribute("data-status")


def test_a_player_withdraws_and_sees_the_fee_refunded(page, login, shoot):
    tournament = open_tournament(name="Paid Gin", entry_fee=10)
    [player] = humans(1, coins=50)
    services.entry_register(tournament_id=tournament.pk, player=player)
    login(player.user.username)
    page.goto(f"/tournaments/{tournament.pk}/")
    page.locator("summary", has_text="Withdraw").click()
    assert "10 coins" in page.locator("details[open] .confirm-panel").inner_text()
    shoot("tournament-withdraw-confirm")
    page.locator("details[open] .confirm-panel button", has_text="refund").click()
    page.wait_for_load_state()
    assert "10 coins refunded" in page.locator(".notices").inner_text()
    assert entry_status(page) == Entry.Status.WITHDRAWN
    assert Player.objects.get(pk=player.pk).coins == 50
    # The balance beside the Register button counts the refund.
    assert "50 coins" in page.locator("#player-panel").inner_text()
    shoot("tournament-withdrawn")


def test_a_player_joins_the_waiting_list_of_a_full_tournament(page, login, shoot):
    tournament = open_tournament(name="Small Gin", entry_fee=10, max_entries=2)
    register_all(tournament, bots(2))
    [player] = humans(1, coins=50)
    login(player.user.username)
    page.goto(f"/tournaments/{tournament.pk}/")
    page.locator("summary", has_text="Join the waiting list").click()
    assert "10 coins" in page.locator("details[open] .confirm-panel").inner_text()
    shoot("tournament-waiting-list-confirm")
    page.locator("details[open] .confirm-panel button", has_text="Pay and join").click()
    page.wait_for_load_state()
    assert entry_status(page) == Entry.Status.WAITLISTED
    assert "waiting list" in page.locator(".notices").inner_text()
    entry = tournament.entries.get(player=player)
    assert entry.status == Entry.Status.WAITLISTED and entry.fee_paid == 10
    assert Player.objects.get(pk=player.pk).coins == 40
    shoot("tournament-waiting-list")
