"""Tournament formats in Chromium: a double elimination drawn as two brackets and the
grand final, refreshing live while it runs, and the organiser choosing the format."""

import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.tournaments.helpers import bots, drive, open_tournament, organiser, register_all
from tournaments import services
from tournaments.models import Tournament

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("no_broker"),
]


def test_a_double_elimination_page_draws_both_brackets_and_follows_play(page, shoot):
    tournament = open_tournament(name="Double Gin", format="double", show_up_seconds=0)
    register_all(tournament, bots(4))
    services.tournament_start(tournament_id=tournament.pk)
    page.goto(f"/tournaments/{tournament.pk}/")
    sides = page.locator(".bracket-side h2")
    assert sides.all_inner_texts() == ["Winners' bracket", "Losers' bracket", "Grand final"]
    losers = page.locator(".bracket-side[data-side=L] .btable")
    assert losers.count() == 2
    assert "to be decided" in losers.first.inner_text()
    drive(tournament)  # the workers' part, here; the page re-fetches its bracket live
    page.wait_for_selector(".double-bracket[data-status=finished]", timeout=15_000)
    dropped = page.locator(".bracket-side[data-side=L] .btable").first
    assert dropped.locator(".bseat").count() == 2  # winners' round-one losers met here
    shoot("double-elimination")
    page.reload()
    assert page.locator("#status").inner_text() == "Finished"
    assert "Champion" in page.locator("body").inner_text()


def test_the_organiser_form_offers_the_format_and_its_grand_final(page, login):
    by = organiser("formats-organiser")
    login(by.username)
    page.goto("/tournaments/new/")
    page.fill("#id_name", "Losers Get Another Go")
    page.select_option("#id_format", "double")
    page.select_option("#id_grand_final", "simple")
    page.locator("form button[type=submit]").last.click()
    page.wait_for_load_state()
    tournament = Tournament.objects.get(name="Losers Get Another Go")
    assert (tournament.format, tournament.grand_final) == ("double", "simple")
    assert "Double elimination, grand final of one match" in page.locator("body").inner_text()


def test_a_swiss_page_shows_standings_with_tie_breaks_and_each_rounds_pairings(page, shoot):
    tournament = open_tournament(
        name="Swiss Gin", format="swiss", show_up_seconds=0, tiebreaks=["sonneborn_berger"]
    )
    register_all(tournament, bots(5))
    services.tournament_start(tournament_id=tournament.pk)
    page.goto(f"/tournaments/{tournament.pk}/")
    headers = page.locator("table.standings thead th").all_text_contents()
    assert headers == ["#", "Player", "Seed", "Score", "Sonneborn-Berger"]
    assert page.locator("table.standings tbody tr").count() == 5
    assert page.locator(".swiss-rounds .bcolumn").count() == 3  # rounds, paired as they come
    assert page.locator(".swiss-rounds .bcolumn[data-round='1'] .btable").count() == 3
    drive(tournament)
    page.wait_for_selector(".swiss[data-status=finished]", timeout=15_000)
    assert page.locator(".swiss-rounds .bcolumn[data-round='3'] .btable").count() == 3
    assert page.locator("table.standings tr.champion").count() == 1
    shoot("swiss-standings")
    page.reload()
    assert "in the standings" in page.locator("body").inner_text()  # the placements' words


def test_a_two_stage_page_draws_swiss_groups_then_a_double_elimination_bracket(page, shoot):
    tournament = open_tournament(
        name="Groups Gin",
        format="two_stage",
        show_up_seconds=0,
        groups=2,
        group_advance=2,
        group_stage="swiss",
        swiss_rounds=3,
        second_stage="double",
    )
    register_all(tournament, bots(6))
    services.tournament_start(tournament_id=tournament.pk)
    page.goto(f"/tournaments/{tournament.pk}/")
    assert page.locator("table.group").count() == 2
    # Groups of three: a bye a round in each, read as a bye (worth a win).
    bye = page.locator(".btable", has=page.locator(".state", has_text="bye")).first
    assert bye.locator(".mark").inner_text() == "bye"
    drive(tournament)
    page.wait_for_selector(".two-stage[data-status=finished]", timeout=15_000)
    reload_beside_the_pages_own(page)
    page.wait_for_selector(".two-stage[data-status=finished]")
    sides = page.locator(".two-stage .double-bracket .bracket-side h2")
    assert sides.all_inner_texts() == ["Winners' bracket", "Losers' bracket", "Grand final"]
    assert "walkover" not in page.locator(".two-stage").inner_text().lower()
    # Only the grand final crowns: the sides' finals are no "Final" and show no trophy.
    for side in ("W", "L"):
        last = page.locator(f".bracket-side[data-side={side}] .btable.final")
        assert last.count() == 0
    assert page.locator(".two-stage .bseat.champion").count() == 1
    shoot("two-stage-swiss-groups-double")
    assert "Champion" in page.locator("body").inner_text()
    assert "2 Swiss groups, then a double-elimination bracket" in page.locator("body").inner_text()


def reload_beside_the_pages_own(page) -> None:
    """Reload, to settle: the page reloads itself once the tournament is over, and when its
    own reload lands during ours, ours is aborted (seen on a loaded machine); then again."""
    for attempt in range(3):
        try:
            page.reload()
            return
        except PlaywrightError as error:
            if "ERR_ABORTED" not in str(error) or attempt == 2:
                raise
