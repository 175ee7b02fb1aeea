"""A tournament's or a league's table says which event it belongs to (issue 27): the
event linked, its round (and game of a best-of), and the result leads back there; a
room's table says nothing of the kind and leads to the lobby."""

import json
import re

import pytest

from gameplay import services as gameplay
from gameplay.models import Match
from leagues import services as leagues
from leagues.models import Fixture
from tests.factories import PlayerFactory, RoomFactory
from tests.leagues.conftest import make_league, start
from tests.tournaments.helpers import bots, open_tournament, register_all
from tournaments import services as tournaments
from tournaments.models import TableMatch

pytestmark = pytest.mark.django_db


def table_page(client, match: Match) -> tuple[str, dict]:
    page = client.get(f"/matches/{match.pk}/").content.decode()
    data = re.search(r'<script id="table-data" type="application/json">(.*?)</script>', page, re.S)
    return page, json.loads(data.group(1))


def test_a_tournament_table_names_its_event_round_and_game_and_leads_back(client):
    cup = open_tournament(name="Diwali Cup", show_up_seconds=0, best_of=3, spectators_allowed=True)
    register_all(cup, bots(2))
    tournaments.tournament_start(tournament_id=cup.pk, by=cup.organiser)
    table = cup.tables.get()
    tournaments.table_start(table_id=table.pk)
    match = TableMatch.objects.get(table=table).match
    client.force_login(PlayerFactory().user)  # a spectator
    page, data = table_page(client, match)
    event = re.search(r'<p class="table-event">(.*?)</p>', page, re.S).group(1)
    assert f'<a href="/tournaments/{cup.pk}/">Diwali Cup</a>' in event
    assert "Final · game 1 of 3" in event
    assert data["back"] == {"url": f"/tournaments/{cup.pk}/", "label": "Back to the tournament"}


def test_a_league_table_names_its_season_division_and_round(client):
    league = make_league(name="Monsoon League")
    asha = PlayerFactory()
    season = start(league, [asha, *gameplay.bot_players(kind="greedy", count=3)])
    fixture = Fixture.objects.filter(round__season=season, seats__player=asha).first()
    leagues.round_open(round_id=fixture.round_id)
    fixture.refresh_from_db()
    client.force_login(asha.user)
    page, data = table_page(client, fixture.match)
    event = re.search(r'<p class="table-event">(.*?)</p>', page, re.S).group(1)
    assert f'<a href="/leagues/{league.slug}/">Monsoon League</a>' in event
    assert f"Season 1 · Gold · round {fixture.round.number}" in event
    assert data["back"]["label"] == "Back to the league"


def test_a_rooms_table_leads_to_the_lobby(client):
    player = PlayerFactory()
    match = gameplay.match_create(
        variant="gin", options={}, players=[player, PlayerFactory()], room=RoomFactory()
    )
    client.force_login(player.user)
    page, data = table_page(client, match)
    assert 'class="table-event"' not in page and data["back"] is None
