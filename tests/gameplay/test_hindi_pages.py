"""Every page of the site in Hindi, as the server renders it (the browser test reads the
pages a new player walks through; this one reads all the others): no English left in the
text or in the labels a screen reader reads, but names and the tokens the browser test
allows."""

import html.parser
import re
from unittest import mock

import pytest
from django.core.management import call_command
from django.utils import timezone

from gameplay import services as gameplay
from gameplay import tasks as gameplay_tasks
from tests.factories import PlayerFactory, RoomFactory
from tests.gameplay.test_hindi_browser import ALLOWED, CARD_RANK, HEX, WORD
from tests.leagues.conftest import make_league, start
from tests.tournaments.helpers import bots, drive, open_tournament, organiser, register_all
from tournaments import services as tournaments

pytestmark = pytest.mark.django_db

READ_ATTRIBUTES = {"aria-label", "title", "placeholder", "alt"}
NAMES = {
    "asha",
    "Asha",
    "Diwali Cup",
    "Monsoon League",
    "Gold",
    "Silver",
    "Quick Gin",
    "organiser",
    "Greedy",
    "Bot",
}
# Latin tokens a Hindi page may keep beyond the browser test's ALLOWED, each a technical
# name Indian sites write in Latin too.
PAGE_ALLOWED = {
    "HMAC",  # the webhook signature's algorithm, HMAC-SHA256
    "xx",  # "2xx", HTTP's class of success answers, in the webhook help
    "Buchholz",
    "Sonneborn",
    "Berger",  # Swiss tie-breaks, named after their inventors
    "log",  # log2 of the field, a mathematical function's name, in the Swiss rounds' help
}
# Code a page shows as an example, read as it is written: the verify page's match document.
CODE = {'{"variant": "gin", "seed": "…", "moves": […], …}'}
# Addresses are written in Latin on Hindi sites too (the embed and webhook examples).
URL = re.compile(r"https?://\S+")
# Elements whose text is code (the embed snippet, a header's name, a shell command).
CODE_TAGS = ("code", "pre")


class Reader(html.parser.HTMLParser):
    """The text a person reads or hears: text outside scripts and styles, labels. The
    time zone chooser's options are IANA's names (Asia/Kolkata), read as they are."""

    def __init__(self):
        super().__init__()
        self.parts = []
        self.skipping = 0

    def handle_starttag(self, tag, attrs):
        if (
            tag in ("script", "style", "template", *CODE_TAGS)
            or dict(attrs).get("name") == "time_zone"
        ):
            self.skipping += 1
        self.parts.extend(value for name, value in attrs if name in READ_ATTRIBUTES and value)
        if tag == "input" and dict(attrs).get("type") in ("submit", "button"):
            self.parts.append(dict(attrs).get("value") or "")

    def handle_endtag(self, tag):
        if tag in ("script", "style", "template", "select", *CODE_TAGS) and self.skipping:
            self.skipping -= 1

    def handle_data(self, data):
        if not self.skipping:
            self.parts.append(data)


def english_left(page: str) -> list[str]:
    reader = Reader()
    reader.feed(page)
    text = "\n".join(reader.parts)
    for name in (*CODE, *NAMES):
        text = text.replace(name, " ")
    text = URL.sub(" ", text)
    text = HEX.sub(" ", text)
    return sorted(
        {
            w
            for w in WORD.findall(text)
            if w not in ALLOWED and w not in PAGE_ALLOWED and not CARD_RANK.match(w)
        }
    )


@pytest.fixture(scope="module", autouse=True)
def catalogues(django_db_blocker):
    call_command("compilemessages", verbosity=0)


@pytest.fixture
def world():
    """A player with a finished match, a room, tournaments open, running and finished,
    and a league with a season."""
    player = PlayerFactory(user__username="asha", display_name="Asha")
    room = RoomFactory(name="Quick Gin", options={"target": 10})
    host = organiser()
    open_cup = open_tournament(by=host, name="Diwali Cup", starts_at=timezone.now())
    running = open_tournament(
        by=host, name="Diwali Cup", max_entries=4, show_up_seconds=0, spectators_allowed=True
    )
    register_all(running, bots(4))
    tournaments.tournament_start(tournament_id=running.pk, by=host)
    # Its tables in play, on its page and in the lobby's live games (issue 27).
    with mock.patch.object(gameplay_tasks.play_bots, "delay"):
        for table_id in tournaments.waiting_tables(tournament_id=running.pk, limit=10):
            tournaments.table_start(table_id=table_id)
    done = open_tournament(by=host, name="Diwali Cup", max_entries=4, show_up_seconds=0)
    register_all(done, bots(4))
    tournaments.tournament_start(tournament_id=done.pk, by=host)
    drive(done)
    league = make_league(name="Monsoon League")
    start(league, gameplay.bot_players(kind="greedy", count=8))
    return {
        "player": player,
        "host": host,
        "room": room,
        "open": open_cup,
        "running": running,
        "done": done,
        "league": league,
    }


def pages(world) -> dict[str, tuple[object, str]]:
    """(who reads it, the page's path) by what it is; None: nobody signed in."""
    player, host = world["player"], world["host"]
    return {
        "home": (None, "/"),
        "sign-in": (None, "/accounts/login/"),
        "password reset": (None, "/accounts/password_reset/"),
        "home, signed in": (player.user, "/"),
        "the lobby": (player.user, "/rooms/"),
        "the profile": (player.user, f"/players/{player.pk}/"),
        "the account": (player.user, "/accounts/settings/"),
        "the notices": (player.user, "/me/notices/"),
        "verify a deal": (player.user, "/verify/"),
        "the tournaments": (player.user, "/tournaments/"),
        "a new tournament": (host, "/tournaments/new/"),
        "an open tournament, organiser": (host, f"/tournaments/{world['open'].pk}/"),
        "a running knockout": (player.user, f"/tournaments/{world['running'].pk}/"),
        "a finished knockout": (player.user, f"/tournaments/{world['done'].pk}/"),
        "the embedded bracket": (None, f"/tournaments/{world['done'].pk}/embed/"),
        "the leagues": (player.user, "/leagues/"),
        "a league": (player.user, f"/leagues/{world['league'].slug}/"),
        "the leaderboard": (player.user, "/leaderboard/"),
    }


def test_every_page_is_in_hindi(client, world):
    left = {}
    for what, (user, path) in pages(world).items():
        client.logout()
        if user is not None:
            client.force_login(user)
        response = client.get(path, HTTP_ACCEPT_LANGUAGE="hi")
        assert response.status_code == 200, f"{what}: {path} answered {response.status_code}"
        if response["Content-Type"].startswith("application/json"):
            # the notices' JSON: its keys are the API's; the words are each notice's text
            words = english_left("\n".join(n["text"] for n in response.json()["notices"]))
        else:
            words = english_left(response.content.decode())
            shown = {"the lobby": 'class="live-game"', "a running knockout": 'id="in-play"'}
            assert shown.get(what, "") in response.content.decode(), what  # watch lists
        if words:
            left[what] = words
    assert not left, f"English left: {left}"
