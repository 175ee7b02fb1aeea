"""The tournaments API: organisers create and run, players enter, everybody reads brackets."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import PlayerFactory
from tests.gameplay.helpers import auth
from tests.tournaments.helpers import (
    FAST_GIN,
    bots,
    drive,
    humans,
    open_tournament,
    organiser,
    register_all,
)
from tournaments import services
from tournaments.models import Entry, Tournament

pytestmark = pytest.mark.django_db


def as_user(client, user):
    client.force_authenticate(user=user)
    return client


def test_reading_needs_a_login(api_client):
    assert api_client.get("/api/tournaments/").status_code == 401


def test_create_is_for_organisers_only(api_client):
    body = {
        "name": "Sunday Gin",
        "variant": "gin",
        "options": FAST_GIN,
        "best_of": 3,
        "max_entries": 16,
        "entry_fee": 5,
        "prizes": [{"placement": 1, "coins": 50}],
    }
    player = PlayerFactory()
    denied = auth(api_client, player).post("/api/tournaments/", body, format="json")
    assert denied.status_code == 403
    assert denied.json()["error"]["code"] == "not_organiser"
    created = as_user(api_client, organiser()).post("/api/tournaments/", body, format="json")
    assert created.status_code == 201, created.json()
    data = created.json()
    assert (data["status"], data["best_of"], data["prizes"][0]["coins"]) == ("draft", 3, 50)
    assert data["links"]["bracket"] == f"/api/tournaments/{data['id']}/bracket/"
    invalid = api_client.post(
        "/api/tournaments/", {**body, "table_size": 4, "advance": 2}, format="json"
    )
    assert invalid.status_code == 400
    assert invalid.json()["error"]["code"] == "invalid_settings"


def test_managing_is_for_the_tournaments_own_organiser(api_client):
    tournament = open_tournament(show_up_seconds=0)
    register_all(tournament, bots(4))
    other = organiser("someone-else")
    for action in ("start", "cancel", "open-check-in"):
        response = as_user(api_client, other).post(f"/api/tournaments/{tournament.pk}/{action}/")
        assert response.status_code == 403, action
    patch = api_client.patch(f"/api/tournaments/{tournament.pk}/", {"name": "x"}, format="json")
    assert patch.status_code == 403
    own = as_user(api_client, tournament.organiser)
    renamed = own.patch(f"/api/tournaments/{tournament.pk}/", {"name": "Renamed"}, format="json")
    assert renamed.json()["name"] == "Renamed"
    started = own.post(f"/api/tournaments/{tournament.pk}/start/")
    assert started.status_code == 200
    assert started.json()["status"] == "running"
    again = own.post(f"/api/tournaments/{tournament.pk}/start/")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "already_started"
    assert own.post(f"/api/tournaments/{tournament.pk}/bogus/").status_code == 404
    table_id = tournament.tables.order_by("pk").values_list("pk", flat=True).first()
    replay = f"/api/tournaments/{tournament.pk}/tables/{table_id}/replay/"
    assert as_user(api_client, other).post(replay).status_code == 403
    nothing_disputed = as_user(api_client, tournament.organiser).post(replay)
    assert nothing_disputed.status_code == 409
    assert nothing_disputed.json()["error"]["code"] == "not_disputed"


def test_players_register_check_in_and_withdraw(api_client):
    tournament = open_tournament(entry_fee=10, max_entries=2)
    a, b, c = humans(3, coins=10)
    for player, expected in ((a, "registered"), (b, "registered"), (c, "waitlisted")):
        response = auth(api_client, player).post(f"/api/tournaments/{tournament.pk}/register/")
        assert response.status_code == 201
        assert response.json()["status"] == expected
    assert (
        auth(api_client, a).post(f"/api/tournaments/{tournament.pk}/register/").status_code == 409
    )
    services.tournament_open_check_in(tournament_id=tournament.pk)
    checked = auth(api_client, a).post(f"/api/tournaments/{tournament.pk}/check-in/")
    assert checked.json()["status"] == "checked_in"
    left = auth(api_client, b).post(f"/api/tournaments/{tournament.pk}/withdraw/")
    assert left.json()["status"] == "withdrawn"
    entries = auth(api_client, c).get(f"/api/tournaments/{tournament.pk}/entries/").json()
    assert {e["player_id"]: e["status"] for e in entries["results"]} == {
        a.pk: "checked_in",
        b.pk: "withdrawn",
        c.pk: "registered",
    }
    broke = PlayerFactory()
    poor = auth(api_client, broke).post(f"/api/tournaments/{tournament.pk}/register/")
    assert poor.status_code == 402


def test_list_filters(api_client):
    by = organiser()
    open_tournament(by=by, name="Alpha")
    draft = services.tournament_create(organiser=by, name="Beta", variant="gin")
    client = as_user(api_client, by)
    names = [t["name"] for t in client.get("/api/tournaments/?status=draft").json()["results"]]
    assert names == [draft.name]
    found = client.get("/api/tournaments/?name=alp").json()["results"]
    assert [t["name"] for t in found] == ["Alpha"]
    assert client.get("/api/tournaments/?variant=gin").json()["count"] == 2


def test_organiser_disqualifies_and_seeds_through_the_api(api_client):
    tournament = open_tournament(seeding="manual")
    players = humans(3)
    register_all(tournament, players)
    entry = Entry.objects.get(player=players[2])
    own = as_user(api_client, tournament.organiser)
    seeded = own.post(
        f"/api/tournaments/{tournament.pk}/entries/{entry.pk}/seed/", {"seed": 1}, format="json"
    )
    assert seeded.json()["manual_seed"] == 1
    out = own.post(f"/api/tournaments/{tournament.pk}/entries/{entry.pk}/disqualify/")
    assert out.json()["status"] == "disqualified"
    api_client.force_authenticate(user=None)
    player_client = auth(api_client, players[0])
    denied = player_client.post(f"/api/tournaments/{tournament.pk}/entries/{entry.pk}/disqualify/")
    assert denied.status_code == 403


def test_bracket_json_has_rounds_tables_seats_scores_and_match_links(api_client):
    tournament = open_tournament(show_up_seconds=0)
    register_all(tournament, bots(5))
    services.tournament_start(tournament_id=tournament.pk)
    drive(tournament)
    client = as_user(api_client, tournament.organiser)
    data = client.get(f"/api/tournaments/{tournament.pk}/bracket/").json()
    assert data["status"] == "finished"
    assert [r["name"] for r in data["rounds"]] == ["Quarter-finals", "Semi-finals", "Final"]
    first = data["rounds"][0]["tables"]
    assert [t["status"] for t in first] == ["done"] * 4
    # Seeds 1 to 3 have byes: tables of one, decided at once, which are no walkovers.
    assert [t["result"] for t in first] == ["bye", "played", "bye", "bye"]
    assert [t["bye"] for t in first] == [True, False, True, True]
    assert not any(t["walkover"] for t in first)
    played = first[1]
    assert [s["seed"] for s in played["seats"]] == [4, 5]
    assert played["matches"][0]["url"] == f"/api/matches/{played['matches'][0]['id']}/"
    assert len(played["matches"][0]["scores"]) == 2
    assert sorted(s["finish"] for s in played["seats"]) == [1, 2]
    assert sum(s["advanced"] for s in played["seats"]) == 1
    assert data["rounds"][1]["tables"][0]["feeders"] == [[1, 0], [1, 1]]
    final = data["rounds"][2]["tables"][0]
    assert final["seats"] and final["matches"]


def test_bracket_and_list_take_the_same_queries_at_any_size(api_client):
    counts = []
    by = organiser()
    client = as_user(api_client, by)
    for n in (4, 32):
        tournament = open_tournament(by=by, show_up_seconds=0)
        register_all(tournament, bots(n))
        services.tournament_start(tournament_id=tournament.pk)
        with CaptureQueriesContext(connection) as bracket_queries:
            client.get(f"/api/tournaments/{tournament.pk}/bracket/")
        with CaptureQueriesContext(connection) as list_queries:
            client.get("/api/tournaments/")
        counts.append((len(bracket_queries), len(list_queries)))
    assert counts[0] == counts[1]


def test_players_show_up_at_their_table(api_client):
    tournament = open_tournament()
    a, b = humans(2)
    register_all(tournament, [a, b])
    services.tournament_start(tournament_id=tournament.pk)
    table = tournament.tables.get()
    url = f"/api/tournaments/{tournament.pk}/tables/{table.pk}/show-up/"
    first = auth(api_client, a).post(url)
    assert first.json()["rounds"][0]["tables"][0]["status"] == "waiting"
    second = auth(api_client, b).post(url).json()
    assert second["rounds"][0]["tables"][0]["status"] == "playing"
    assert auth(api_client, PlayerFactory()).post(url).status_code == 404
    assert Tournament.objects.get(pk=tournament.pk).status == "running"


def test_organisers_choose_a_two_stage_events_second_stage(api_client):
    body = {
        "name": "Groups then double",
        "variant": "gin",
        "options": FAST_GIN,
        "format": "two_stage",
        "groups": 2,
        "group_advance": 2,
        "second_stage": "double",
        "group_stage": "swiss",
        "swiss_rounds": 3,
        "grand_final": "simple",
    }
    client = as_user(api_client, organiser())
    created = client.post("/api/tournaments/", body, format="json")
    assert created.status_code == 201, created.json()
    assert (created.json()["second_stage"], created.json()["grand_final"]) == ("double", "simple")
    tournament = Tournament.objects.get(pk=created.json()["id"])
    assert (tournament.second_stage, tournament.group_stage) == ("double", "swiss")
    changed = client.patch(
        f"/api/tournaments/{tournament.pk}/", {"second_stage": "single"}, format="json"
    )
    assert changed.status_code == 200, changed.json()
    assert changed.json()["second_stage"] == "single"
    wrong = client.post(
        "/api/tournaments/", {**body, "format": "single", "name": "Bad"}, format="json"
    )
    assert wrong.status_code == 400
    assert wrong.json()["error"]["code"] == "invalid_settings"
    unknown = client.post("/api/tournaments/", {**body, "second_stage": "triple"}, format="json")
    assert unknown.status_code == 400
