"""The bracket drawn the way people expect from Challonge, in Chromium at 1280 px and on a
375 px phone: connector lines, whole names, scores, the champion, round names, headers that
stay in view, every seat of a multi-player table; photographed for people to look at."""

import pytest

from gameplay.models import Player
from tests.tournaments.helpers import bots, drive, open_tournament, register_all
from tournaments import services

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("no_broker"),
]

LONG_NAMES = [
    "Alexandra Konstantinopoulou-Whitfield",
    "Bo",
    "Maximilian von Habsburg-Lothringen",
    "Siobhán Ní Mhaolchatha",
    "Oluwaseun Adebayo-Okonkwo",
    "Jean-Baptiste Delacroix-Montmorency",
]


def named_bots(count: int) -> list[Player]:
    """Bots, the first few renamed to the long names real people have."""
    players = bots(count)
    for player, name in zip(players, LONG_NAMES, strict=False):
        Player.objects.filter(pk=player.pk).update(display_name=name)
    return players


def started(players, **settings):
    tournament = open_tournament(show_up_seconds=0, **settings)
    register_all(tournament, players)
    services.tournament_start(tournament_id=tournament.pk)
    return tournament


def names_are_whole(page) -> bool:
    """No name is cut off or broken inside a word: every one fits its box, none is drawn
    with an ellipsis, and a name on two lines breaks only at a space or after a hyphen
    (each character's line is read from its own box: a new line must start a word)."""
    return page.evaluate(
        """() => [...document.querySelectorAll('.bseat .name')].every(e => {
            if (e.scrollWidth > e.clientWidth + 1
                || getComputedStyle(e).textOverflow === 'ellipsis') return false;
            const text = e.firstChild;
            if (!text || text.nodeType !== Node.TEXT_NODE) return true;
            const chars = text.data, range = document.createRange();
            let lineTop = null;
            for (let i = 0; i < chars.length; i++) {
                if (/\\s/.test(chars[i])) continue;
                range.setStart(text, i);
                range.setEnd(text, i + 1);
                const top = range.getBoundingClientRect().top;
                if (lineTop !== null && top > lineTop + 2 && !/[\\s-]/.test(chars[i - 1])) {
                    return false;
                }
                lineTop = top;
            }
            return true;
        })"""
    )


def shoot_whole_bracket(page, shoot, name: str) -> None:
    """Photograph the page with the bracket's box at its full height: its own scrolling
    box would cut the full-page shot at 82% of the window."""
    box = page.locator(".bracket-scroll").first
    box.evaluate("e => { e.style.maxHeight = 'none'; }")
    shoot(name)
    box.evaluate("e => { e.style.maxHeight = ''; }")


def fits_a_phone(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth") <= 375


def heads(page) -> list[str]:
    return [h.strip() for h in page.locator(".round-head").all_inner_texts()]


def test_a_finished_bracket_reads_like_challonge(page, shoot):
    tournament = drive(started(named_bots(8), name="Eight Classic"))
    page.goto(f"/tournaments/{tournament.pk}/")
    assert heads(page) == ["Quarter-finals", "Semi-finals", "Final"]
    # Connector lines: every table after the first round is drawn fed by its two tables.
    assert page.locator(".slot.fed").count() == 3
    assert page.locator(".feeders > .node").count() == 6
    champion = page.locator(".btable.final .bseat.champion")
    assert champion.count() == 1
    winner = tournament.entries.get(placement=1).player
    assert champion.locator(".name").inner_text() == winner.display_name
    assert "Alexandra Konstantinopoulou-Whitfield" in page.locator(".bracket").inner_text()
    assert names_are_whole(page)
    scores = page.locator('.btable[data-round="1"] .bseat .score').all_inner_texts()
    assert all(s.strip().isdigit() for s in scores) and len(scores) == 8
    # A finished table's games link to the table page, never to API JSON.
    assert page.locator(".btable footer a").first.get_attribute("href").startswith("/matches/")
    assert not page.locator("#live").count()
    shoot_whole_bracket(page, shoot, "bracket-8")
    page.set_viewport_size({"width": 375, "height": 800})
    assert fits_a_phone(page) and names_are_whole(page)


def test_tables_of_four_show_every_seat_their_places_and_who_went_through(page, shoot):
    tournament = drive(
        started(
            named_bots(16),
            name="Four Seat Basic",
            variant="basic",
            options={"target": 20},
            table_size=4,
            advance=2,
        )
    )
    page.goto(f"/tournaments/{tournament.pk}/")
    first = page.locator('.btable[data-round="1"]').first
    assert first.locator(".bseat").count() == 4
    assert sorted(first.locator(".bseat.advanced .mark").all_inner_texts()) == ["✓ 1st", "✓ 2nd"]
    assert sorted(first.locator(".bseat.out .mark").all_inner_texts()) == ["3rd", "4th"]
    assert page.locator(".btable.final .bseat").count() == 4
    assert page.locator(".btable.final .bseat.champion").count() == 1
    assert names_are_whole(page)
    shoot_whole_bracket(page, shoot, "bracket-tables-of-4")
    page.set_viewport_size({"width": 375, "height": 800})
    assert names_are_whole(page)


def test_a_256_entry_bracket_scrolls_under_headers_that_stay_in_view(page, shoot):
    tournament = started(named_bots(256), name="Big Open")
    page.goto(f"/tournaments/{tournament.pk}/")
    expected = [f"Round {n}" for n in range(1, 6)] + ["Quarter-finals", "Semi-finals", "Final"]
    assert heads(page) == expected
    assert page.locator('.btable[data-round="1"]').count() == 128
    assert page.locator(".btable").count() == 255
    assert names_are_whole(page)
    scroller = page.locator(".bracket-scroll")
    head = page.locator(".round-head").first
    top = head.bounding_box()["y"]
    scroller.evaluate("e => { e.scrollTop = 3000; e.scrollLeft = 400; }")
    assert abs(head.bounding_box()["y"] - top) < 1, "the round headers scrolled away"
    assert page.locator(".round-head").last.is_visible()
    # The page redraws the running bracket every 3 s: the reader stays where they were.
    with page.expect_response(lambda r: "part=bracket" in r.url, timeout=10_000):
        pass
    page.wait_for_timeout(300)  # the response is in; the script has swapped the bracket
    assert scroller.evaluate("e => [e.scrollLeft, e.scrollTop]") == [400, 3000]
    shoot("bracket-256-scrolled")  # the round headers over the tables, opaque
    scroller.evaluate("e => { e.scrollTop = 0; e.scrollLeft = 0; }")
    shoot("bracket-256")  # the start of the bracket
    page.set_viewport_size({"width": 375, "height": 800})
    assert fits_a_phone(page) and names_are_whole(page)


def test_the_entries_refresh_with_the_bracket_and_nothing_is_live_before_the_start(page):
    tournament = open_tournament(name="Sunday Cup")
    register_all(tournament, bots(2))
    page.goto(f"/tournaments/{tournament.pk}/")
    assert not page.locator("#live").count()
    assert page.locator("tr.entry").count() == 2
    [late] = bots(3)[2:]
    services.entry_register(tournament_id=tournament.pk, player=late)
    page.locator("tr.entry").nth(2).wait_for(timeout=10_000)
    assert late.display_name in page.locator("#entries").inner_text()
    assert not page.locator("#live").count()
