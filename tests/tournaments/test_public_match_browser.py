"""A bracket's game links work for anyone: logged out, a visitor follows a "Game 1" link to the
match's page and reads its result; a running table closed to spectators shows them nothing."""

import pytest

from gameplay.models import Match
from tests.gameplay.test_table_page import hidden_cards
from tests.tournaments.helpers import bots, drive, open_tournament, register_all
from tournaments import services

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("no_broker"),
]


def started(players, **settings):
    tournament = open_tournament(show_up_seconds=0, **settings)
    register_all(tournament, players)
    services.tournament_start(tournament_id=tournament.pk)
    return tournament


def test_a_visitor_logged_out_follows_a_bracket_link_to_a_finished_match(page, shoot):
    tournament = drive(started(bots(4), name="Public Final"))
    final = Match.objects.get(
        tournament_table__table__tournament=tournament, tournament_table__table__round_number=2
    )
    page.goto(f"/tournaments/{tournament.pk}/")
    page.locator(".btable.final footer a", has_text="Game 1").click()
    page.wait_for_url(f"**/matches/{final.pk}/")
    result = page.locator("#result")
    result.wait_for(state="visible")
    assert page.locator("#conn").inner_text() == "Finished"
    champion = tournament.entries.get(placement=1).player
    assert champion.display_name in result.inner_text()
    assert page.get_by_role("heading", name="Match over").is_visible()
    assert page.locator("#claim-window").is_hidden()  # no discard on offer: no empty pill
    shoot("public-finished-match")


def test_a_visitor_logged_out_gets_no_hidden_card_of_a_running_closed_table(page):
    tournament = started(bots(2), name="Closed Table")
    for table_id in services.waiting_tables(tournament_id=tournament.pk, limit=10):
        services.table_start(table_id=table_id)
    match = Match.objects.get(tournament_table__table__tournament=tournament)
    assert match.status == Match.Status.ACTIVE and not match.spectators_allowed
    page.goto(f"/tournaments/{tournament.pk}/")
    assert page.locator(".btable footer a").count() == 0  # a plain label, no link
    page.goto(f"/matches/{match.pk}/")
    assert page.url.endswith(f"/accounts/login/?next=/matches/{match.pk}/")
    text = page.content()
    for seat in range(match.players):
        hand = hidden_cards(match, seat, match.seq)
        assert hand and not [card for card in hand if f'"{card}"' in text], seat
