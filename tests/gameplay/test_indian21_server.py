"""Indian 21-card Rummy everywhere the server plays (issue 32): a room of it validates, a
bad option is refused with a stable code, a match is played by a person and the greedy bot,
finalized, rated and verified, the tournaments API takes it (and refuses a bad option), a
whole tournament and a league season of it play out with bots, and the demo has its rooms."""

import pytest
from django.contrib.auth.models import Permission
from rest_framework.test import APIClient

from config.errors import DomainError
from engine import variants
from gameplay import demo
from gameplay import services as gameplay
from gameplay.models import Match, Rating, Room
from leagues.models import Fixture, Season
from tests.factories import BotPlayerFactory, PlayerFactory, UserFactory
from tests.leagues.conftest import make_league, start
from tests.leagues.test_season_flow import play_season
from tests.tournaments.helpers import drive, open_tournament, register_all
from tournaments import services as tournaments
from tournaments.models import Entry

pytestmark = pytest.mark.django_db(transaction=True)
V21 = variants.get("indian21")
OPTIONS = {"format": "points", "tunnela_show": 0}


def test_a_room_validates_its_options_and_its_match_is_played_rated_and_verified():
    room = Room(name="Marriage room", variant="indian21", options=OPTIONS)
    room.full_clean()
    room.save()
    assert room.get_variant_display() == "Indian 21-card Rummy"
    players = [PlayerFactory(), BotPlayerFactory()]
    with pytest.raises(DomainError) as refused:
        gameplay.match_create(variant="indian21", options={"joker_show": 2}, players=players)
    assert refused.value.code == "invalid_options"
    assert not Match.objects.exists()
    match = gameplay.match_create(variant="indian21", options=OPTIONS, players=players, room=room)
    while match.status == Match.Status.ACTIVE:
        if match.to_move == 0:
            action = V21.bot_action(gameplay.games.load(match), 0, "greedy")
            gameplay.match_act(match_id=match.pk, player=players[0], seq=match.seq, action=action)
        else:
            gameplay.match_play_bots(match_id=match.pk)
        match.refresh_from_db()
    gameplay.match_finalize(match_id=match.pk)
    match.refresh_from_db()
    assert match.finalized_at and gameplay.match_verify(match=match) is None
    assert Rating.objects.filter(player=players[0], variant="indian21").exists()


def test_an_expert_bot_plays_a_room_match_to_the_end_through_the_services():
    """The expert is one of the engine's bots for the game, so a bot player of that kind
    (the kind rooms, tournaments and the demo seat) plays an indian21 room's match through
    `gameplay.services` to a finished, verified match."""
    assert "expert" in V21.bots
    room = Room.objects.create(name="Marriage experts", variant="indian21", options=OPTIONS)
    players = [BotPlayerFactory(bot_kind="expert"), BotPlayerFactory(bot_kind="greedy")]
    match = gameplay.match_create(variant="indian21", options=OPTIONS, players=players, room=room)
    gameplay.match_play_bots(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert any(m["seat"] == 0 and m["action"]["type"] != "draw" for m in match.log)
    gameplay.match_finalize(match_id=match.pk)
    match.refresh_from_db()
    assert match.finalized_at and gameplay.match_verify(match=match) is None


def test_the_tournaments_api_accepts_it_and_refuses_a_bad_option():
    user = UserFactory()
    user.user_permissions.add(Permission.objects.get(codename="organise_tournament"))
    client = APIClient()
    client.force_authenticate(user=type(user).objects.get(pk=user.pk))
    body = {"name": "Marriage Cup", "variant": "indian21", "options": OPTIONS}
    created = client.post("/api/tournaments/", body, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["variant"] == "indian21"
    bad = client.post("/api/tournaments/", {**body, "options": {"max_points": 9999}}, format="json")
    assert bad.status_code == 400
    assert bad.json()["error"]["code"]


def test_a_tournament_crowns_one_champion():
    tournament = open_tournament(variant="indian21", options=OPTIONS, show_up_seconds=0)
    register_all(tournament, BotPlayerFactory.create_batch(4))
    tournaments.tournament_start(tournament_id=tournament.pk)
    drive(tournament)
    assert tournament.status == "finished"
    assert Entry.objects.filter(tournament=tournament, status="champion").count() == 1


def test_a_league_season_plays_out(eager_tasks):
    league = make_league(variant="indian21", options=OPTIONS, divisions=(("Only", 4, 0, 0),))
    season = start(league, BotPlayerFactory.create_batch(4))
    play_season(season)
    season.refresh_from_db()
    assert season.status == Season.Status.CLOSED
    fixtures = Fixture.objects.filter(round__season=season)
    assert set(fixtures.values_list("status", flat=True)) == {Fixture.Status.DONE}


def test_the_demo_has_21_card_rooms():
    rooms = demo._rooms()
    names = {r.name for r in rooms if r.variant == "indian21"}
    assert "Indian 21-card Quick Play" in names
    assert "Indian 21-card Table for 4" in names
