"""The tournaments pages: in Chromium, and with their query counts pinned."""

import itertools

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from gameplay.models import Match
from tests.tournaments.helpers import bots, drive, open_tournament, play_match, register_all
from tournaments import services

FAST_BASIC = {"target": 20}


def finished_cup(n: int, **settings):
    tournament = open_tournament(name=f"Cup of {n}", show_up_seconds=0, **settings)
    register_all(tournament, bots(n))
    services.tournament_start(tournament_id=tournament.pk)
    return drive(tournament)


# --- in the browser --------------------------------------------------------------------


def boxes_do_not_overlap(page, round_number: int) -> bool:
    boxes = page.locator(f'.btable[data-round="{round_number}"]')
    rects = [boxes.nth(i).bounding_box() for i in range(boxes.count())]
    return all(a["y"] + a["height"] <= b["y"] + 0.5 for a, b in itertools.pairwise(rects))


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("no_broker")
def test_a_finished_64_player_bracket_is_drawn_whole_and_readable(page):
    tournament = finished_cup(64, third_place=True)
    page.goto("/tournaments/")
    page.get_by_role("link", name="Cup of 64").click()
    page.wait_for_selector(".bracket")
    rounds = page.locator(".round-head")
    assert rounds.count() == 6
    assert page.locator(".btable").count() == 32 + 16 + 8 + 4 + 2 + 2
    assert page.locator('.btable[data-round="1"]').count() == 32
    for number in range(1, 7):
        assert boxes_do_not_overlap(page, number)
    # Every name fits its box at a readable size.
    name = page.locator(".bseat .name").first
    assert float(name.evaluate("e => getComputedStyle(e).fontSize").rstrip("px")) >= 12
    assert page.locator(".btable.done").count() == 64
    placements = page.locator("#placements tr.placement")
    assert placements.count() == 64
    assert placements.first.locator("svg.trophy").count() == 1
    assert page.locator(".btable.third").count() == 1
    assert tournament.status == "finished"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("no_broker")
def test_multi_player_tables_show_every_seat_and_who_went_through(page):
    tournament = open_tournament(
        name="Basic Four",
        variant="basic",
        options=FAST_BASIC,
        table_size=4,
        advance=2,
        show_up_seconds=0,
    )
    register_all(tournament, bots(16))
    services.tournament_start(tournament_id=tournament.pk)
    drive(tournament)
    page.goto(f"/tournaments/{tournament.pk}/")
    first_round = page.locator('.btable[data-round="1"]')
    assert first_round.count() == 4
    assert first_round.first.locator(".bseat").count() == 4
    assert first_round.first.locator(".bseat.advanced").count() == 2
    assert page.locator('.btable[data-round="3"] .bseat').count() == 4


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("no_broker")
def test_the_bracket_updates_live_while_matches_finish(page):
    tournament = open_tournament(name="Live Cup", show_up_seconds=0)
    register_all(tournament, bots(4))
    services.tournament_start(tournament_id=tournament.pk)
    for table_id in services.waiting_tables(tournament_id=tournament.pk, limit=10):
        services.table_start(table_id=table_id)
    page.goto(f"/tournaments/{tournament.pk}/")
    assert page.locator("#live").is_visible()
    assert page.locator('[data-table="1-0"]').get_attribute("data-status") == "playing"
    first = Match.objects.filter(tournament_table__table__position=0).get()
    play_match(first.pk)
    page.wait_for_selector('[data-table="1-0"][data-status="done"]', timeout=10_000)
    assert page.locator('[data-table="2-0"] .bseat:not(.empty)').count() == 1
    drive(tournament)
    page.wait_for_selector("#placements", timeout=15_000)
    assert page.locator("#status").inner_text() == "Finished"


# --- without a browser -----------------------------------------------------------------


@pytest.mark.django_db
def test_pages_take_the_same_queries_at_any_size(client):
    counts = []
    for n in (4, 16):
        tournament = finished_cup(n)
        with CaptureQueriesContext(connection) as detail:
            assert client.get(f"/tournaments/{tournament.pk}/").status_code == 200
        with CaptureQueriesContext(connection) as listing:
            assert client.get("/tournaments/").status_code == 200
        counts.append((len(detail), len(listing)))
    assert counts[0] == counts[1]


@pytest.mark.django_db
def test_a_tournament_taking_registrations_lists_its_entries(client):
    tournament = open_tournament(name="Open Cup", max_entries=2)
    register_all(tournament, bots(3))
    listing = client.get("/tournaments/").content.decode()
    assert "Taking registrations" in listing and "(+1 waiting)" in listing
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert page.count('class="entry"') == 3
    assert "drawn when the tournament starts" in page
    assert client.get("/tournaments/999999/").status_code == 404


@pytest.mark.django_db
def test_a_running_or_finished_tournament_says_so_to_who_is_not_in_it(client):
    running = open_tournament(name="Running Cup", show_up_seconds=0)
    register_all(running, bots(4))
    services.tournament_start(tournament_id=running.pk)
    page = client.get(f"/tournaments/{running.pk}/").content.decode()
    assert 'live</span>\n      <span class="muted">· Gin Rummy' in page
    assert "It has started</h2>" in page and "Entries closed when the bracket was drawn" in page
    assert "Registration is not open" not in page and "Enter this tournament" not in page
    finished = client.get(f"/tournaments/{finished_cup(4).pk}/").content.decode()
    assert "It has finished</h2>" in finished and "This tournament is over." in finished
