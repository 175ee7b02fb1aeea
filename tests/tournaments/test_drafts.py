"""A draft is its organiser's and staff's only (issue 24): to anyone else every tournament
endpoint, page or API, reading or acting, answers exactly as for a tournament that does
not exist, and the organiser check comes before anything of the request is read."""

import re

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from tests.factories import PlayerFactory, UserFactory
from tests.tournaments.helpers import open_tournament, organiser
from tournaments import services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

MISSING = 987654321
BODY = {"best_of": 100, "seed": "\u00b2", "name": "\u202eevil", "client_seed": "x"}


def tournament_routes() -> list[str]:
    """Every URL route about one tournament, the site's and the API's."""

    def walk(patterns, prefix=""):
        for entry in patterns:
            route = prefix + str(entry.pattern)
            if isinstance(entry, URLResolver):
                yield from walk(entry.url_patterns, route)
            elif isinstance(entry, URLPattern) and "tournaments/<int:pk>" in route:
                yield route.lstrip("^")

    return sorted(set(walk(get_resolver().url_patterns)))


def urls_for(route: str, pk: int) -> list[str]:
    url = "/" + route.replace("<int:pk>", str(pk))
    url = re.sub(r"<int:\w+>", "1", url)
    actions = ["open-registration", "start", "cancel", "edit-nothing"]
    if "<slug:action>" in url:
        return [url.replace("<slug:action>", action) for action in actions]
    return [url]


def answers(client, url: str) -> list[int]:
    return [
        client.get(url).status_code,
        client.post(
            url, BODY, **({"format": "json"} if isinstance(client, APIClient) else {})
        ).status_code,
        client.patch(url, BODY, format="json").status_code
        if isinstance(client, APIClient)
        else client.patch(url).status_code,
    ]


def callers():
    peer = organiser("another-organiser")
    player = PlayerFactory().user
    yield "anonymous", Client(), APIClient()
    for name, user in (("another organiser", peer), ("a player", player)):
        site, api = Client(), APIClient()
        site.force_login(user)
        api.force_authenticate(user)
        yield name, site, api


def test_a_draft_is_indistinguishable_from_no_tournament_to_anyone_else():
    by = organiser()
    draft = services.tournament_create(organiser=by, name="Secret Cup", variant="gin")
    routes = tournament_routes()
    assert len(routes) >= 20, routes  # the site's and the API's
    for name, site, api in callers():
        for route in routes:
            client = api if route.startswith("api/") else site
            for draft_url, missing_url in zip(
                urls_for(route, draft.pk), urls_for(route, MISSING), strict=True
            ):
                seen, expected = answers(client, draft_url), answers(client, missing_url)
                assert seen == expected, (name, draft_url, seen, expected)
    draft.refresh_from_db()
    assert draft.status == Tournament.Status.DRAFT and draft.name == "Secret Cup"
    # Its organiser and staff see it.
    for user in (by, UserFactory(is_staff=True)):
        api = APIClient()
        api.force_authenticate(user)
        assert api.get(f"/api/tournaments/{draft.pk}/").status_code == 200


def test_patch_checks_whose_tournament_it_is_before_reading_the_body():
    tournament = open_tournament()
    api = APIClient()
    api.force_authenticate(organiser("not-the-organiser"))
    refused = api.patch(f"/api/tournaments/{tournament.pk}/", {"best_of": 100}, format="json")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_organiser"
    seed = api.post(f"/api/tournaments/{tournament.pk}/entries/1/seed/", {"seed": "x"})
    assert seed.status_code == 403


def test_the_seed_form_asks_whose_tournament_it_is_before_reading_the_seed():
    tournament = open_tournament(seeding="manual")
    entrant = PlayerFactory()
    entry = services.entry_register(tournament_id=tournament.pk, player=entrant)
    url = f"/tournaments/{tournament.pk}/entries/{entry.pk}/seed/"
    stranger = Client()
    stranger.force_login(entrant.user)
    for value in ("\u00b2", "\u0663", "9" * 5000, "7"):
        refused = stranger.post(url, {"seed": value}, follow=True)
        said = [str(message) for message in refused.context["messages"]]
        assert said == ["Only this tournament's organiser may do that."]
    owner = Client()
    owner.force_login(tournament.organiser)
    for value in ("\u00b2", "\u0663", "9" * 5000, "0", "65537"):
        answer = owner.post(url, {"seed": value}, follow=True)
        assert answer.status_code == 200
        assert "A seed is a whole number from 1" in answer.content.decode()
    entry.refresh_from_db()
    assert entry.manual_seed is None
    assert owner.post(url, {"seed": "7"}).status_code == 302
    entry.refresh_from_db()
    assert entry.manual_seed == 7
