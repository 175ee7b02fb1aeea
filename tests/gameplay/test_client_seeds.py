"""Client seeds at the table (issue 16): every person's seed goes into the match's deals;
the finished match downloads as one document that `engine.verify` and /verify/ accept."""

import json
import re

import pytest

from engine import fair, variants
from engine.verify import check
from gameplay import games, services
from gameplay.models import Match, Player
from tests.factories import BotPlayerFactory, PlayerFactory, RoomFactory
from tests.gameplay.helpers import auth
from tests.gameplay.test_match_api import play_to_the_end

pytestmark = pytest.mark.django_db(transaction=True)

HEX = re.compile(r"[0-9a-f]+")


def play(client, room, **body) -> Match:
    started = client.post(f"/api/rooms/{room.pk}/play/", {"opponent": "bot", **body}, format="json")
    assert started.status_code == 201, started.json()
    return Match.objects.get(pk=started.json()["match"])


def first_hand(match: Match, seat: int) -> list[str]:
    return games.load(match).view(seat)["hand"]


def test_the_play_requests_client_seed_goes_into_every_deal(api_client):
    player, room = PlayerFactory(), RoomFactory()
    match = play(auth(api_client, player), room, client_seed="my-own-seed")
    assert match.client_seeds == ["my-own-seed", None]  # the bot brings none
    assert len(match.seed) == 64 and HEX.fullmatch(match.seed)  # secrets.token_hex(32)
    dealt = variants.get("gin").new(2, fair.deal_seed(match.seed, match.client_seeds), {})
    assert first_hand(match, 0) == dealt.view(0)["hand"]
    server_only = variants.get("gin").new(2, match.seed, {})
    assert first_hand(match, 0) != server_only.view(0)["hand"]


def test_a_profile_seed_is_used_else_the_server_draws_one(api_client):
    room = RoomFactory()
    chooser = PlayerFactory()
    services.player_set_client_seed(player=chooser, client_seed="profile-seed")
    assert play(auth(api_client, chooser), room).client_seeds == ["profile-seed", None]
    drawn = play(auth(api_client, PlayerFactory()), room).client_seeds[0]
    assert len(drawn) == 32 and HEX.fullmatch(drawn)
    seeds = {play(auth(api_client, PlayerFactory()), room).seed for _ in range(3)}
    assert len(seeds) == 3  # a server seed of its own for every match


def test_a_bad_client_seed_is_refused_before_any_match(api_client):
    client = auth(api_client, PlayerFactory())
    room = RoomFactory()
    refused = client.post(
        f"/api/rooms/{room.pk}/play/",
        {"opponent": "bot", "client_seed": "has space"},
        format="json",
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "invalid_client_seed"
    assert not Match.objects.exists()


def test_queued_people_keep_their_client_seeds_until_paired(api_client):
    room = RoomFactory(bots_allowed=False)
    first, second = PlayerFactory(), PlayerFactory()
    queued = auth(api_client, first).post(
        f"/api/rooms/{room.pk}/play/", {"opponent": "human", "client_seed": "first"}, format="json"
    )
    assert queued.status_code == 202
    paired = auth(api_client, second).post(
        f"/api/rooms/{room.pk}/play/", {"opponent": "human", "client_seed": "second"}, format="json"
    )
    assert paired.status_code == 201
    match = Match.objects.get(pk=paired.json()["match"])
    seated = match.seats.order_by("index").values_list("player_id", flat=True)
    by_player = dict(zip(seated, match.client_seeds, strict=True))
    assert by_player == {first.pk: "first", second.pk: "second"}


def test_the_account_page_sets_and_clears_the_client_seed(client):
    player = PlayerFactory()
    client.force_login(player.user)
    page = client.get("/accounts/settings/").content.decode()
    assert 'name="client_seed"' in page
    refused = client.post("/accounts/settings/", {"form": "client_seed", "client_seed": "a b"})
    assert "printable ASCII" in refused.content.decode()
    saved = client.post("/accounts/settings/", {"form": "client_seed", "client_seed": "mine-42"})
    assert saved.status_code == 302
    player.refresh_from_db()
    assert player.client_seed == "mine-42"
    client.post("/accounts/settings/", {"form": "client_seed", "client_seed": ""})
    player.refresh_from_db()
    assert player.client_seed == ""


def test_the_lobby_form_carries_a_field_for_the_browsers_seed(client):
    player = PlayerFactory()
    RoomFactory()
    client.force_login(player.user)
    assert 'name="client_seed"' in client.get("/rooms/").content.decode()
    services.player_set_client_seed(player=player, client_seed="mine")
    assert 'name="client_seed"' not in client.get("/rooms/").content.decode()
    room = RoomFactory(name="Another")
    played = client.post(f"/rooms/{room.pk}/play/", {"opponent": "bot", "client_seed": "abc"})
    assert played.status_code == 302
    assert Match.objects.get().client_seeds == ["abc", None]  # the browser's, when it sent one


def test_a_finished_match_downloads_as_one_document_that_verifies(api_client, client, eager_tasks):
    player = PlayerFactory()
    room = RoomFactory(options={"target": 10})
    match = play(auth(api_client, player), room, client_seed="document-seed")
    anonymous = client
    assert anonymous.get(f"/api/matches/{match.pk}/document/").status_code == 404  # still on
    play_to_the_end(api_client, match.pk)
    answer = anonymous.get(f"/api/matches/{match.pk}/document/?download=1")
    assert answer.status_code == 200
    assert f'filename="knock-match-{match.pk}.json"' in answer["Content-Disposition"]
    document = answer.json()
    assert document["client_seeds"] == ["document-seed", None]
    assert document["deal_seed"] == fair.deal_seed(document["seed"], ["document-seed", None])
    assert document["seats"][0]["player"] == player.display_name
    assert all(move["at"] for move in document["moves"])
    assert [m["number"] for m in document["moves"]] == list(range(1, len(document["moves"]) + 1))
    assert check(document).verified, check(document).problem
    for changed in (
        {"client_seeds": ["other-seed", None]},
        {"seed": "0" * 64, "commitment": fair.commitment("0" * 64)},
        {"result": {**document["result"], "winner": 1 - document["result"]["winner"]}},
    ):
        assert not check({**document, **changed}).verified, changed


def test_the_verify_page_checks_a_match_by_number_or_a_pasted_document(
    api_client, client, eager_tasks
):
    player = PlayerFactory()
    match = play(auth(api_client, player), RoomFactory(options={"target": 10}))
    early = client.get(f"/verify/?match={match.pk}").content.decode()
    assert "No finished match" in early and match.seed not in early
    play_to_the_end(api_client, match.pk)
    page = client.get(f"/verify/?match={match.pk}").content.decode()
    assert "✓ Verified" in page
    assert "hand 1 dealt from the seed:" in page and "upcard:" in page
    assert page.count('class="move"') == Match.objects.get(pk=match.pk).seq
    assert f"/api/matches/{match.pk}/document/?download=1" in page
    document = client.get(f"/api/matches/{match.pk}/document/").json()
    document["moves"][0]["action"] = {"type": "discard", "card": "JK"}
    pasted = client.post("/verify/", {"document": json.dumps(document)}).content.decode()
    assert "✗ Not verified: move 1 by seat" in pasted
    garbage = client.post("/verify/", {"document": "{not json"}).content.decode()
    assert "This is not JSON" in garbage
    client.force_login(player.user)
    table = client.get(f"/matches/{match.pk}/").content.decode()
    assert f"/verify/?match={match.pk}" in table  # the finished table links to both
    assert f"/api/matches/{match.pk}/document/" in table


def test_the_server_seed_was_committed_to_the_player_before_they_sent_a_client_seed(
    api_client, client, eager_tasks
):
    """Issue 16: "The server commits to its seed before any client seed is known"."""
    player = PlayerFactory()
    api = auth(api_client, player)
    shown = api.get("/api/me/").json()["next_seed_commitment"]  # before the play request
    client.force_login(player.user)
    assert shown in client.get("/rooms/").content.decode()  # the lobby shows the same
    assert shown in client.get("/accounts/settings/").content.decode()
    match = play(api, RoomFactory(options={"target": 10}), client_seed="sent-after")
    assert match.commitment == shown  # one person seated: their seed is the server seed
    assert api.get("/api/me/").json()["next_seed_commitment"] != shown  # a new one is drawn
    assert "seat_seeds" not in api.get(f"/api/matches/{match.pk}/").json()  # secret till the end
    play_to_the_end(api_client, match.pk)
    document = client.get(f"/api/matches/{match.pk}/document/").json()
    assert document["seat_seeds"] == [document["seed"], None]
    assert fair.commitment(document["seat_seeds"][0]) == shown
    assert check(document).verified, check(document).problem
    forged = {**document, "seat_seeds": ["f" * 64, None]}
    assert not check(forged).verified


def test_two_people_make_the_server_seed_from_both_their_committed_seeds(api_client):
    room = RoomFactory(bots_allowed=False)
    first, second = PlayerFactory(), PlayerFactory()
    shown = {}
    for person, seed in ((first, "first"), (second, "second")):
        api = auth(api_client, person)
        shown[person.pk] = api.get("/api/me/").json()["next_seed_commitment"]
        body = {"opponent": "human", "client_seed": seed}
        answer = api.post(f"/api/rooms/{room.pk}/play/", body, format="json")
    match = Match.objects.get(pk=answer.json()["match"])
    seated = list(match.seats.order_by("index").values_list("player_id", flat=True))
    assert [fair.commitment(seed) for seed in match.seat_seeds] == [shown[p] for p in seated]
    assert match.seed == fair.server_seed_of(match.seat_seeds)
    assert match.seed not in match.seat_seeds  # made of both, equal to neither


def test_a_next_seed_is_used_once_even_for_two_matches_created_together():
    people = [PlayerFactory(), PlayerFactory()]
    services.player_next_seed_commitment(player=people[0])
    matches = services.match_create_many(
        specs=[
            services.NewMatch(variant="gin", options={}, players=[people[0], BotPlayerFactory()]),
            services.NewMatch(variant="gin", options={}, players=[people[0], people[1]]),
        ]
    )
    first, second = (m.seat_seeds for m in matches)
    assert first[0] != second[0] and len({first[0], *second}) == 3
    for person in people:
        person.refresh_from_db()
        assert person.next_seed and person.next_seed not in (*first, *second)


@pytest.mark.postgres
def test_two_matches_created_at_once_for_one_person_never_share_a_seed():
    """Two processes seat one person at the same moment (a room's table and a tournament's):
    the person's row lock gives each match its own committed seed, and a new one after."""
    from tests.concurrency import at_once

    person = PlayerFactory()
    held = Player.objects.get(pk=person.pk).next_seed

    def create():
        return services.match_create(
            variant="gin", options={}, players=[person, BotPlayerFactory()]
        ).pk

    first, second = (Match.objects.get(pk=pk) for pk in at_once(create, create))
    seeds = {first.seat_seeds[0], second.seat_seeds[0]}
    assert len(seeds) == 2 and held in seeds  # one match took the committed seed
    assert Player.objects.get(pk=person.pk).next_seed not in seeds | {held}
