"""Nobody learns or sets a seed before its reveal (issue 16): every page, admin screen and
form, API answer and log line of a live tournament is searched for its draw seed and its
matches' server seeds; then the draw is recomputed from the revealed draw seed."""

import logging

import pytest

from engine import fair
from gameplay import services as gameplay
from gameplay.models import Match, Player
from tests.tournaments.helpers import bots, humans, open_tournament, organiser, register_all
from tournaments import bracket as bk
from tournaments import services
from tournaments.models import Entry, Table, Tournament

pytestmark = pytest.mark.django_db


def pages(tournament: Tournament, match: Match, player) -> list[str]:
    """Every page and API answer a player can reach about this tournament and its match."""
    return [
        "/",
        "/rooms/",
        "/me/notices/",
        f"/players/{player.pk}/",
        "/tournaments/",
        f"/tournaments/{tournament.pk}/",
        f"/tournaments/{tournament.pk}/?part=bracket",
        f"/tournaments/{tournament.pk}/?part=entries",
        f"/matches/{match.pk}/",
        f"/verify/?match={match.pk}",
        "/api/me/matches/",
        f"/api/matches/{match.pk}/",
        f"/api/matches/{match.pk}/document/",
        "/api/tournaments/",
        f"/api/tournaments/{tournament.pk}/",
        f"/api/tournaments/{tournament.pk}/entries/",
        f"/api/tournaments/{tournament.pk}/bracket/",
    ]


def admin_pages(tournament: Tournament, match: Match, player) -> list[str]:
    table = Table.objects.filter(tournament=tournament).first()
    return [
        "/admin/gameplay/match/",
        f"/admin/gameplay/match/{match.pk}/change/",
        f"/admin/gameplay/player/{player.pk}/change/",
        "/admin/tournaments/tournament/",
        f"/admin/tournaments/tournament/{tournament.pk}/change/",
        "/admin/tournaments/table/",
        f"/admin/tournaments/table/{table.pk}/change/",
        f"/admin/gameplay/match/{match.pk}/history/",
        f"/admin/gameplay/player/{player.pk}/history/",
        f"/admin/tournaments/tournament/{tournament.pk}/history/",
    ]


def admin_oracles(tournament: Tournament, match: Match, player) -> list[str]:
    """Changelist filters that would answer yes or no about a secret (issue 24)."""
    return [
        f"/admin/gameplay/match/?id={match.pk}&seed__startswith={match.seed[:1]}",
        f"/admin/gameplay/match/?id={match.pk}&seat_seeds__contains={match.seat_seeds}",
        f"/admin/gameplay/match/?id={match.pk}&log__contains=discard",
        f"/admin/gameplay/player/?id={player.pk}&next_seed__lt={player.next_seed}",
        f"/admin/gameplay/player/?seats__match__seed__gte={match.seed}",
        f"/admin/tournaments/tournament/?id={tournament.pk}&seed__startswith={tournament.seed[:1]}",
        f"/admin/tournaments/table/?matches__match__seed__lt={match.seed}",
        f"/admin/leagues/fixture/?match__seed__lt={match.seed}",
        "/admin/gameplay/match/?_to_field=seed",
    ]


def read_all(client, urls: list[str]) -> str:
    seen = []
    for url in urls:
        answer = client.get(url)
        assert answer.status_code in (200, 404), (url, answer.status_code)
        seen.append(answer.content.decode())
    return "\n".join(seen)


def test_no_page_api_admin_or_log_shows_a_seed_before_its_reveal(client, admin_client, caplog):
    caplog.set_level(logging.DEBUG)
    by = organiser()
    tournament = open_tournament(by=by, show_up_seconds=0, seeding="random")
    people = humans(2)
    register_all(tournament, [*people, *bots(2)])
    draw_seed = Tournament.objects.get(pk=tournament.pk).seed
    client.force_login(people[0].user)
    before_draw = read_all(client, [f"/tournaments/{tournament.pk}/", "/api/tournaments/"])
    change_page = f"/admin/tournaments/tournament/{tournament.pk}/change/"
    before_draw += read_all(admin_client, [change_page])
    assert draw_seed not in before_draw

    services.tournament_start(tournament_id=tournament.pk)
    for table_id in services.waiting_tables(tournament_id=tournament.pk, limit=100):
        services.table_start(table_id=table_id)
    match = Match.objects.get(seats__player=people[0], status=Match.Status.ACTIVE)
    server_seeds = list(
        Match.objects.filter(tournament_table__table__tournament=tournament).values_list(
            "seed", flat=True
        )
    )
    assert len(server_seeds) == 2 and all(len(seed) == 64 for seed in server_seeds)
    # The people's seats' pre-committed seeds, and the next ones already drawn for them.
    seat_seeds = [
        seed
        for seat_seeds in Match.objects.filter(
            tournament_table__table__tournament=tournament
        ).values_list("seat_seeds", flat=True)
        for seed in seat_seeds
        if seed
    ]
    next_seeds = [Player.objects.get(pk=person.pk).next_seed for person in people]
    assert len(seat_seeds) == 2 and all(next_seeds)
    server_seeds += seat_seeds + next_seeds

    seen = read_all(client, pages(tournament, match, people[0]))
    seen += read_all(client, ["/api/me/", "/accounts/settings/"])
    seen += read_all(admin_client, admin_pages(tournament, match, people[0]))
    seen += read_all(admin_client, pages(tournament, match, people[0]))  # staff see no more
    for url in admin_oracles(tournament, match, Player.objects.get(pk=people[0].pk)):
        assert admin_client.get(url).status_code == 400, url
    seen += "\n".join(record.getMessage() for record in caplog.records)
    for seed in server_seeds:
        assert seed not in seen
    assert draw_seed in read_all(client, [f"/api/tournaments/{tournament.pk}/"])  # revealed

    # Setting one: the read-only match admin refuses any change, and the play and tournament
    # APIs have no seed to take.
    posted = admin_client.post(f"/admin/gameplay/match/{match.pk}/change/", {"seed": "chosen"})
    assert posted.status_code == 403
    client.force_login(by)
    created = client.post(
        "/api/tournaments/",
        {"name": "Chosen", "variant": "gin", "seed": "chosen", "draw_commitment": "x"},
        content_type="application/json",
    )
    assert created.status_code == 201, created.json()
    chosen = Tournament.objects.get(pk=created.json()["id"])
    assert chosen.seed != "chosen" and chosen.draw_commitment == ""
    match.refresh_from_db()
    assert match.seed in server_seeds

    # The search finds a seed where one is shown: once the match is over.
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    assert match.seed in read_all(client, [f"/api/matches/{match.pk}/document/"])


def test_a_random_draw_is_committed_at_registrations_close_and_recomputed_when_revealed(
    api_client,
):
    by = organiser()
    tournament = open_tournament(by=by, show_up_seconds=0, seeding="random")
    register_all(tournament, bots(7))
    api_client.force_authenticate(by)
    listed = api_client.get(f"/api/tournaments/{tournament.pk}/").json()
    assert listed["draw_commitment"] == "" and listed["draw_seed"] is None
    services.tournament_open_check_in(tournament_id=tournament.pk, by=by)
    committed = api_client.get(f"/api/tournaments/{tournament.pk}/").json()
    assert committed["draw_seed"] is None
    for entry in Entry.objects.filter(tournament=tournament):
        services.entry_check_in(tournament_id=tournament.pk, player=entry.player)
    services.tournament_start(tournament_id=tournament.pk, by=by)
    revealed = api_client.get(f"/api/tournaments/{tournament.pk}/").json()
    assert revealed["draw_commitment"] == committed["draw_commitment"]  # fixed once made
    assert fair.commitment(revealed["draw_seed"]) == committed["draw_commitment"]

    # Recomputed as a third party would: the entries in registration order, shuffled by
    # the revealed seed with the documented algorithm, give each entry's seed in the draw.
    entries = api_client.get(f"/api/tournaments/{tournament.pk}/entries/").json()
    entries = entries["results"] if isinstance(entries, dict) else entries
    in_registration_order = [
        e["id"] for e in sorted(entries, key=lambda e: (e["registered_at"], e["id"]))
    ]
    drawn = bk.random_seeding(revealed["draw_seed"], in_registration_order)
    assert {e["id"]: e["seed"] for e in entries} == {pk: n for n, pk in enumerate(drawn, 1)}
    page = api_client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert revealed["draw_seed"] in page and committed["draw_commitment"] in page


def test_client_seeds_of_tournament_seats_are_drawn_for_people_and_none_for_bots():
    tournament = open_tournament(show_up_seconds=0)
    people = humans(1)
    gameplay.player_set_client_seed(player=people[0], client_seed="brought-my-own")
    register_all(tournament, [*people, *bots(1)])
    services.tournament_start(tournament_id=tournament.pk)
    for table_id in services.waiting_tables(tournament_id=tournament.pk, limit=100):
        services.table_start(table_id=table_id)
    match = Match.objects.get(seats__player=people[0])
    own = match.seats.get(player=people[0]).index
    assert match.client_seeds[own] == "brought-my-own" and match.client_seeds[1 - own] is None


def test_taking_a_seat_sends_the_browsers_client_seed_for_the_tables_deals(client, api_client):
    """Issue 16: "the browser generates a random one when the player sits down"."""
    tournament = open_tournament(show_up_seconds=600)
    first, second = humans(2)
    register_all(tournament, [first, second])
    services.tournament_start(tournament_id=tournament.pk)
    for table_id in services.waiting_tables(tournament_id=tournament.pk, limit=100):
        services.table_start(table_id=table_id)
    table_id = Table.objects.get(tournament=tournament).pk
    client.force_login(first.user)
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert 'name="client_seed"' in page and "site/client-seed.js" in page
    url = f"/tournaments/{tournament.pk}/tables/{table_id}/take-seat/"
    assert client.post(url, {"client_seed": "drawn-by-a-browser"}).status_code == 302
    api_client.force_authenticate(second.user)
    show_up = f"/api/tournaments/{tournament.pk}/tables/{table_id}/show-up/"
    refused = api_client.post(show_up, {"client_seed": "has space"}, format="json")
    assert refused.status_code == 400 and Match.objects.count() == 0
    assert (
        api_client.post(show_up, {"client_seed": "sent-by-api"}, format="json").status_code == 200
    )
    match = Match.objects.get()
    seated = match.seats.order_by("index").values_list("player_id", flat=True)
    seeds = dict(zip(seated, match.client_seeds, strict=True))
    assert seeds == {first.pk: "drawn-by-a-browser", second.pk: "sent-by-api"}
