"""Tournaments in Chromium, as people do it: a player registers, checks in and takes their
seat; an organiser creates, opens and starts a tournament; nobody else sees their controls
or their drafts."""

import re

import pytest

from tests.factories import PlayerFactory
from tests.tournaments.helpers import (
    bots,
    drive,
    humans,
    open_tournament,
    organiser,
    register_all,
)
from tournaments import services
from tournaments.models import Entry, Tournament

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("no_broker"),
]


def confirm(page, label: str, yes: str) -> None:
    """Press a button that asks first, then say yes in its panel."""
    page.locator("summary", has_text=label).first.click()
    page.locator("details[open] .confirm-panel button", has_text=yes).click()
    page.wait_for_load_state()


def test_register_check_in_and_take_your_seat(page, login, shoot):
    tournament = open_tournament(name="Evening Gin", entry_fee=10, show_up_seconds=600)
    [player] = humans(1, coins=50)
    login(player.user.username)
    page.goto("/tournaments/")
    page.get_by_role("link", name="Evening Gin").click()
    assert "The entry fee is" not in page.content()
    page.locator("summary", has_text="Register").click()
    assert "Register for 10 coins?" in page.locator("details[open]").inner_text()
    shoot("tournament-register")
    page.locator("details[open] button", has_text="Pay and register").click()
    page.wait_for_selector("text=You are in. 10 coins entry fee paid.")
    assert page.locator(".entry-status").get_attribute("data-status") == "registered"

    [bot] = bots(1)
    services.entry_register(tournament_id=tournament.pk, player=bot)
    # Elsewhere on the site, a notice says when check-in opens.
    page.goto("/leaderboard/")
    services.tournament_open_check_in(tournament_id=tournament.pk, by=tournament.organiser)
    services.entry_check_in(tournament_id=tournament.pk, player=bot)
    notice = page.locator(".live-notice", has_text="Check-in is open for Evening Gin")
    notice.wait_for(timeout=15_000)
    shoot("notice-check-in")
    notice.locator("a").click()
    page.wait_for_url(f"**/tournaments/{tournament.pk}/")
    assert "Check in now" in page.locator("#player-panel").inner_text()
    page.click("#check-in")
    page.wait_for_selector("text=Checked in: you will be seated when the tournament starts.")

    services.tournament_start(tournament_id=tournament.pk, by=tournament.organiser)
    # The page refreshes itself while the tournament runs: the button appears unasked.
    page.wait_for_selector("#take-seat", timeout=10_000)
    shoot("tournament-take-seat")
    page.click("#take-seat")
    page.wait_for_url(re.compile(r"/matches/\d+/$"))
    match_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
    assert tournament.tables.get().matches.get().match_id == match_id
    page.wait_for_selector("#knock-table")


def test_organiser_creates_opens_and_starts_a_tournament(page, login, browser, live_server, shoot):
    by = organiser("olga")
    login("olga")
    page.goto("/tournaments/")
    page.click("#new-tournament")
    page.fill("#id_name", "Friday Basic")
    assert page.locator("fieldset[data-variant=gin]").is_visible()
    assert not page.locator("fieldset[data-variant=basic]").is_visible()
    # Only the chosen format's settings show: none for single elimination.
    assert not page.locator("[data-field=swiss_rounds]").is_visible()
    assert not page.locator("[data-field=grand_final]").is_visible()
    page.select_option("#id_format", "swiss")
    assert page.locator("[data-field=swiss_rounds]").is_visible()
    assert page.locator("[data-field=place_points]").is_visible()
    assert not page.locator("[data-field=groups]").is_visible()
    page.select_option("#id_format", "single")
    page.select_option("#id_table_size", "4")
    page.select_option("#id_advance", "2")
    page.click("form.tournament-form button[type=submit]")
    # Gin seats two: the form says so by the table size and keeps what was typed.
    refusal = page.locator("[data-field=table_size]").inner_text()
    assert "Gin Rummy seats exactly 2 players a table" in refusal
    assert page.locator("#id_name").input_value() == "Friday Basic"
    shoot("tournament-form-error")
    page.select_option("#id_variant", "basic")
    assert page.locator("fieldset[data-variant=basic]").is_visible()
    assert "0 to 10000" in page.locator("[data-field=opt_basic_target]").inner_text()
    page.fill("#id_opt_basic_target", "20")
    page.fill("#id_show_up_seconds", "0")
    page.fill("#id_prize_0_placement", "1")
    page.fill("#id_prize_0_xp", "100")  # no fees, no pool: coins would be refused
    page.click("form.tournament-form button[type=submit]")
    page.wait_for_selector("text=Draft saved.")
    tournament = Tournament.objects.get(name="Friday Basic")
    assert (tournament.variant, tournament.table_size, tournament.options["target"]) == (
        "basic",
        4,
        20,
    )
    assert page.locator("#status").inner_text() == "Draft"
    shoot("tournament-draft")

    # Somebody else: no draft in the list, none at its address.
    other = browser.new_context(base_url=live_server.url)
    stranger = other.new_page()
    PlayerFactory(user__username="sam")
    stranger.goto("/accounts/login/")
    stranger.fill("#id_username", "sam")
    stranger.fill("#id_password", "correct-horse-battery")
    stranger.click("form.card button[type=submit]")
    stranger.goto("/tournaments/")
    assert "Friday Basic" not in stranger.content()
    assert stranger.goto(f"/tournaments/{tournament.pk}/").status == 404

    confirm(page, "Open registration", "Open registration")
    page.wait_for_selector("text=Registration is open.")
    for bot in bots(6):
        services.entry_register(tournament_id=tournament.pk, player=bot)
    page.reload()
    assert page.locator("tr.entry").count() == 6
    shoot("tournament-organiser")

    stranger.goto(f"/tournaments/{tournament.pk}/")
    assert stranger.locator("#organiser-panel").count() == 0
    assert stranger.locator("summary", has_text="Disqualify").count() == 0
    assert stranger.locator("text=Start now").count() == 0
    assert stranger.get_by_role("button", name="Register").count() == 1

    confirm(page, "Disqualify", "Yes, disqualify")
    page.wait_for_selector("text=is disqualified.")
    assert Entry.objects.filter(status=Entry.Status.DISQUALIFIED).count() == 1
    confirm(page, "Start now", "Draw and start")
    page.wait_for_selector("text=The tournament has started")
    assert page.locator("#status").inner_text() == "Running"
    assert page.locator(".round-head").count() == 2
    shoot("tournament-running")
    stranger.goto(f"/tournaments/{tournament.pk}/")
    assert stranger.locator("#organiser-panel").count() == 0
    other.close()
    # The bots play it out (as the workers would); the page reloads itself when it ends.
    drive(tournament)
    page.wait_for_selector("#placements", timeout=15_000)
    assert page.locator("#status").inner_text() == "Finished"
    first = page.locator("#placements tr.placement").first.inner_text()
    assert "Champion" in first
    assert page.locator("#organiser-panel").count() == 0  # nothing left to run
    assert "3rd in the Final" in page.locator("#placements").inner_text()
    shoot("tournament-finished-by-organiser")
    assert by.pk == Tournament.objects.get(pk=tournament.pk).organiser_id


def test_the_entries_refresh_while_registration_is_open(page):
    tournament = open_tournament(name="Filling Cup")
    page.goto(f"/tournaments/{tournament.pk}/")
    assert "Nobody has registered yet." in page.locator("#entries").inner_text()
    assert page.locator("#live").count() == 0  # not started: nothing is live yet
    register_all(tournament, bots(2))
    page.wait_for_selector("#entries tr.entry >> nth=1", timeout=10_000)
    assert page.locator("#entries tr.entry").count() == 2
