"""A variant registered with the engine plays everywhere with no server change (issue 26):
rooms, matches, finalize and ratings, the tournaments API, a whole tournament and a league
season. The fifth game is Gin under another name, registered for these tests only."""

import pytest
from django.contrib.auth.models import Permission
from rest_framework.test import APIClient

from engine import variants
from engine.variants.base import gettext_noop
from engine.variants.gin import GinVariant
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

SHORT = {"target": 10}


class FifthVariant(GinVariant):
    name = "fifth"
    title = gettext_noop("Fifth Rummy")


@pytest.fixture
def fifth():
    variant = variants.register(FifthVariant())
    yield variant
    variants._REGISTRY.pop(variant.name)


def test_a_room_of_the_fifth_game_validates_and_its_match_is_rated(fifth):
    room = Room(name="Fifth room", variant="fifth", options=SHORT)
    room.full_clean()
    room.save()
    assert room.get_variant_display() == "Fifth Rummy"
    players = [PlayerFactory(), BotPlayerFactory()]
    match = gameplay.match_create(variant="fifth", options=SHORT, players=players, room=room)
    while match.status == Match.Status.ACTIVE:
        if match.to_move == 0:
            action = fifth.bot_action(gameplay.games.load(match), 0, "greedy")
            gameplay.match_act(match_id=match.pk, player=players[0], seq=match.seq, action=action)
        else:
            gameplay.match_play_bots(match_id=match.pk)
        match.refresh_from_db()
    gameplay.match_finalize(match_id=match.pk)
    match.refresh_from_db()
    assert match.finalized_at and gameplay.match_verify(match=match) is None
    assert Rating.objects.filter(player=players[0], variant="fifth").exists()


def test_the_tournaments_api_accepts_the_fifth_game(fifth):
    user = UserFactory()
    user.user_permissions.add(Permission.objects.get(codename="organise_tournament"))
    client = APIClient()
    client.force_authenticate(user=type(user).objects.get(pk=user.pk))
    body = {"name": "Fifth Cup", "variant": "fifth", "options": SHORT}
    created = client.post("/api/tournaments/", body, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["variant"] == "fifth"
    unknown = client.post("/api/tournaments/", {**body, "variant": "sixth"}, format="json")
    assert unknown.status_code == 400


def test_a_tournament_of_the_fifth_game_crowns_one_champion(fifth):
    tournament = open_tournament(variant="fifth", options=SHORT, show_up_seconds=0)
    register_all(tournament, BotPlayerFactory.create_batch(4))
    tournaments.tournament_start(tournament_id=tournament.pk)
    drive(tournament)
    assert tournament.status == "finished"
    assert Entry.objects.filter(tournament=tournament, status="champion").count() == 1


def test_a_league_season_of_the_fifth_game_plays_out(fifth, eager_tasks):
    league = make_league(variant="fifth", options=SHORT, divisions=(("Only", 4, 0, 0),))
    season = start(league, BotPlayerFactory.create_batch(4))
    play_season(season)
    season.refresh_from_db()
    assert season.status == Season.Status.CLOSED
    fixtures = Fixture.objects.filter(round__season=season)
    assert set(fixtures.values_list("status", flat=True)) == {Fixture.Status.DONE}
