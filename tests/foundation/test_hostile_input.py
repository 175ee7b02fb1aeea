"""Zero 500s (issue 24): every site form and every query parameter a view reads, sent
hostile values (numbers past every column, other scripts' digits, control characters, NUL
bytes, 10,000-character strings, deeply nested JSON), answers with a refusal, never a
server error, and changes nothing it should not.

The parameters are found in the source (every `GET.get("...")` and `query_params.get`,
the API's filters and its pagination), the forms on the pages themselves (every
`<form method="post">` a signed-in organiser sees, with its fields), so a new parameter
or form is swept without being listed here.
"""

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from config.security import RateLimit
from gameplay import services as gameplay
from tests.factories import PlayerFactory, RoomFactory
from tests.leagues.conftest import make_league, start
from tests.tournaments.helpers import bots, humans, open_tournament, organiser, register_all
from tournaments import services as tournaments
from tournaments.models import Entry, Table

pytestmark = pytest.mark.django_db

HOSTILE = [
    "9" * 5000,
    str(2**63),
    str(2**31),
    str(-(2**63) - 1),
    "-1",
    "\u00b2",  # superscript two: str.isdigit() says yes, int() says no
    "\u0663\u0664",  # Arabic-Indic 34
    "\uff11\uff12",  # fullwidth 12
    "1e308",
    "NaN",
    "a\x00b",
    "\x1b[2J\x07",
    "\u202eevil\u2066",
    "x" * 10_000,
    "[" * 5000 + "]" * 5000,
    "",
]
# The ones that broke something once, for sweeps that send one field at a time.
WORST = [str(2**63), "\u00b2", "a\x00b", str(2**31)]  # 2**31: past an integer column
ROOT = Path(settings.BASE_DIR)
APPS = ("gameplay", "tournaments", "leagues", "config")
READ = re.compile(r"""(?:GET|query_params)\.get\(\s*["'](\w+)["']""")


def query_parameters() -> set[str]:
    """Every query parameter a view reads, from the source, with the API's filters and its
    pagination's."""
    names = {"page", "page_size", "next", "status", "variant", "table_size", "name"}
    names |= {"organiser", "starts_after", "starts_before"}  # the tournament API's filters
    for app in APPS:
        for source in (ROOT / app).rglob("*.py"):
            names |= set(READ.findall(source.read_text()))
    return names


def site_routes() -> list[str]:
    def walk(patterns, prefix=""):
        for entry in patterns:
            route = prefix + str(entry.pattern)
            if isinstance(entry, URLResolver):
                yield from walk(entry.url_patterns, route)
            elif isinstance(entry, URLPattern) and not route.startswith(("admin/", "^")):
                yield route

    return sorted(set(walk(get_resolver().url_patterns)))


class Forms(HTMLParser):
    """The POST forms of a page: their action and their fields with the values the page
    gives them (checked boxes, selected options, text areas' text), i.e. a submission a
    browser would send as it is."""

    def __init__(self):
        super().__init__()
        self.forms: list[tuple[str, dict]] = []
        self._select = self._textarea = None
        self._chosen = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        fields = self.forms[-1][1] if self.forms else None
        name = attrs.get("name")
        if tag == "form" and (attrs.get("method") or "").lower() == "post":
            self.forms.append((attrs.get("action") or "", {}))
        elif fields is None or (not name and tag != "option"):
            return
        elif tag == "input" and attrs.get("type") in ("checkbox", "radio"):
            if "checked" in attrs:
                fields[name] = attrs.get("value") or "on"
        elif tag == "input" and attrs.get("type") not in ("submit", "button"):
            # A required field the page leaves empty gets what a person would type first.
            fields[name] = attrs.get("value") or ("1" if "required" in attrs else "")
        elif tag == "select":
            self._select, self._chosen = name, False
            fields[name] = ""
        elif tag == "option" and self._select:
            if "selected" in attrs or not self._chosen:  # as shown: the selected, or the first
                fields[self._select] = attrs.get("value") or ""
                self._chosen = "selected" in attrs
        elif tag == "textarea":
            self._textarea = name
            fields[name] = ""

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data):
        if self._textarea and self.forms:
            self.forms[-1][1][self._textarea] += data


@pytest.fixture
def world():
    """Rows behind every page: rooms, a finished match, a league season, a tournament open
    for registration with manual seeding, one running with a waiting table."""
    room = RoomFactory()
    match = gameplay.match_create(
        variant="gin", options={"target": 10}, players=gameplay.bot_players(kind="greedy", count=2)
    )
    gameplay.match_play_bots(match_id=match.pk)
    league = make_league(slug="test-league")
    start(league, gameplay.bot_players(kind="greedy", count=4))
    by = organiser()
    open_one = open_tournament(by=by, seeding="manual", name="Open Cup")
    register_all(open_one, humans(2))
    running = open_tournament(by=by, show_up_seconds=600, name="Running Cup")
    people = humans(2)
    register_all(running, [*people, *bots(2)])
    tournaments.tournament_start(tournament_id=running.pk)
    for table_id in tournaments.waiting_tables(tournament_id=running.pk, limit=100):
        tournaments.table_start(table_id=table_id)
    return {
        "pk": open_one.pk,
        "running": running.pk,
        "table_id": Table.objects.filter(tournament=running).first().pk,
        "entry_id": Entry.objects.filter(tournament=open_one).first().pk,
        "room_id": room.pk,
        "match_id": match.pk,
        "player_id": PlayerFactory().pk,
        "slug": league.slug,
        "action": "open-check-in",
        "organiser": by,
        "player": people[0].user,
    }


def no_server_error(url: str, answer) -> bool:
    """/healthz answers 503 when a worker is missing: its message, not an error."""
    return answer.status_code < 500 or (url == "/healthz" and answer.status_code == 503)


def fill(route: str, world: dict) -> str:
    def value(found):
        return str(world.get(found.group(2), 1))

    return "/" + re.sub(r"<(\w+):(\w+)>", value, route)


def clients(world):
    anonymous, player, boss = Client(), Client(), Client()
    player.force_login(world["player"])
    boss.force_login(world["organiser"])
    return {"anonymous": anonymous, "player": player, "organiser": boss}


@pytest.fixture(autouse=True)
def unthrottled(monkeypatch):
    """Every request is read to the end: no rate limit answers 429 first."""
    for scope in list(RateLimit.THROTTLE_RATES):
        monkeypatch.setitem(RateLimit.THROTTLE_RATES, scope, None)


def test_no_query_parameter_of_any_page_or_api_list_is_a_500(world):
    names = query_parameters()
    assert {"match", "part", "season", "division", "page", "only"} <= names
    urls = [fill(route, world) for route in site_routes() if "logout" not in route]
    assert len(urls) > 30
    who_is = clients(world)
    sent = 0
    for url in urls:
        for client, values in ((who_is["organiser"], HOSTILE), (who_is["anonymous"], WORST)):
            for value in values:
                answer = client.get(url, {name: value for name in names})
                assert no_server_error(url, answer), (url, value[:20])
                sent += 1
        for name in names:  # one at a time: no other parameter is refused first
            for value in WORST[:2]:
                answer = who_is["player"].get(url, {name: value})
                assert no_server_error(url, answer), (url, name, value[:20])
                sent += 1
    assert sent > 1500


def test_no_form_on_any_page_is_a_500_whatever_one_field_holds(world):
    """Every POST form with fields that the organiser, a player or a stranger sees, sent as
    the page fills it with one field at a time set to each hostile value (buttons without
    fields send nothing to be hostile about)."""
    pages = [fill(route, world) for route in site_routes() if "logout" not in route]
    pages += [f"/tournaments/{world['running']}/", f"/tournaments/{world['pk']}/edit/"]
    forms = {}
    for client in clients(world).values():
        for page in pages:
            answer = client.get(page)
            if answer.status_code != 200 or "html" not in answer.get("Content-Type", ""):
                continue
            parser = Forms()
            parser.feed(answer.content.decode())
            for action, fields in parser.forms:
                fields.pop("csrfmiddlewaretoken", None)
                if fields and "logout" not in action:
                    forms.setdefault(action or page, (client, fields))
    actions = set(forms)
    for expected in ("/seed/", "/tournaments/new/", "/accounts/signup/", "/verify/", "/edit/"):
        assert any(expected in action for action in actions), (expected, actions)
    sent = 0
    for action, (client, fields) in sorted(forms.items()):
        # The options of the games not chosen are fields the form never reads: the chosen
        # game's, built by the same code, stand for them.
        chosen = f"opt_{fields.get('variant')}_"
        for name in [n for n in fields if not n.startswith("opt_") or n.startswith(chosen)]:
            for value in WORST:
                sent += 1
                answer = client.post(action, {**fields, name: value})
                assert answer.status_code < 500, (action, name, value[:20])
    assert sent > 200


def test_page_numbers_in_other_scripts_are_no_page_numbers(api_client):
    """DRF's paginator read "٣" as 3 with int(): a number is ASCII digits."""
    by = organiser()
    for number in range(4):
        open_tournament(by=by, name=f"Cup {number}")
    api_client.force_authenticate(PlayerFactory().user)
    listed = api_client.get("/api/tournaments/", {"page": "3", "page_size": "1"})
    assert listed.status_code == 200 and len(listed.json()["results"]) == 1
    for digits in ("\u0663", "\uff13", "\u00b3"):
        paged = api_client.get("/api/tournaments/", {"page": digits, "page_size": "1"})
        assert paged.status_code == 404
        sized = api_client.get("/api/tournaments/", {"page_size": digits})
        assert len(sized.json()["results"]) == 4  # the default size, not 3


def test_no_admin_changelist_parameter_is_a_500(admin_client, world):
    """Staff type into the admin's search, pages, ordering and date drill-down too."""
    from django.contrib import admin
    from django.urls import reverse

    for model, model_admin in admin.site._registry.items():
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        names = ["q", "o", "p", "id", "id__gt"]
        if model_admin.date_hierarchy:
            names += [f"{model_admin.date_hierarchy}__{part}" for part in ("year", "month")]
        for name in names:
            for value in [*WORST, "9" * 30, "9" * 5000]:
                query = {name: value}
                if name.endswith("__month"):
                    query[name.replace("__month", "__year")] = "2026"
                answer = admin_client.get(url, query)
                assert answer.status_code < 500, (url, name, value[:20])
