"""The leagues API and pages: shapes, filters, pagination and query counts that stay flat."""

from datetime import timedelta

import pytest
from django.utils import timezone

from gameplay import services as gameplay
from gameplay.models import Rating
from leagues import services
from leagues.models import Standing
from tests.factories import PlayerFactory
from tests.gameplay.helpers import auth
from tests.leagues.conftest import make_league, start

pytestmark = pytest.mark.django_db


def a_season(players=8):
    league = make_league(divisions=[("Gold", 4, 1, 1), ("Silver", 4, 1, 1)])
    season = start(league, gameplay.bot_players(kind="greedy", count=players))
    for won, row in enumerate(Standing.objects.filter(season=season).order_by("player_id")):
        Standing.objects.filter(pk=row.pk).update(played=won, won=won, points=3 * won, form="W")
    services.standings_rank(season=season)
    return league, season


def rated(count, matches=5, days_ago=1):
    players = PlayerFactory.create_batch(count)
    for number, player in enumerate(players):
        Rating.objects.create(
            player=player,
            variant="gin",
            mu=25 + number,
            sigma=3,
            ordinal=16 + number,
            rated_matches=matches,
            last_rated_at=timezone.now() - timedelta(days=days_ago),
        )
    return players


def test_leagues_seasons_divisions(api_client):
    league, season = a_season()
    leagues = api_client.get("/api/leagues/").json()
    assert leagues["count"] == 1 and leagues["results"][0]["member_count"] == 8
    detail = api_client.get(f"/api/leagues/{league.pk}/").json()
    assert [d["name"] for d in detail["divisions"]] == ["Gold", "Silver"]
    assert detail["points"] == {"win": 3, "draw": 1, "loss": 0}
    seasons = api_client.get(f"/api/leagues/{league.pk}/seasons/").json()
    assert seasons["results"][0]["status"] == "running"
    assert api_client.get(f"/api/seasons/{season.pk}/").json()["rounds"] == 3
    divisions = api_client.get(f"/api/leagues/{league.pk}/divisions/").json()
    assert [d["tier"] for d in divisions] == [1, 2]


def test_standings_are_paginated_filterable_and_flat_in_queries(
    api_client, django_assert_max_num_queries
):
    league, season = a_season()
    gold = league.divisions.get(tier=1)
    with django_assert_max_num_queries(3):
        page = api_client.get(f"/api/standings/?season={season.pk}&page_size=5").json()
    assert page["count"] == 8 and len(page["results"]) == 5 and page["next"]
    table = api_client.get(f"/api/standings/?division={gold.pk}").json()["results"]
    assert [row["rank"] for row in table] == [1, 2, 3, 4]
    assert {"movement", "form", "game_diff", "player_name", "points"} <= set(table[0])
    top = api_client.get(f"/api/standings/?league={league.pk}&rank_max=1").json()
    assert top["count"] == 2
    mine = api_client.get(f"/api/standings/?player={table[0]['player']}").json()
    assert mine["count"] == 1


def test_fixtures_and_a_players_history(api_client, django_assert_max_num_queries):
    league, season = a_season()
    player_id = Standing.objects.filter(season=season).first().player_id
    with django_assert_max_num_queries(3):
        fixtures = api_client.get(f"/api/fixtures/?season={season.pk}&page_size=200").json()
    assert fixtures["count"] == 12
    assert len(fixtures["results"][0]["seats"]) == 2
    mine = api_client.get(f"/api/fixtures/?player={player_id}").json()
    assert mine["count"] == 3
    history = api_client.get(f"/api/players/{player_id}/leagues/").json()["results"]
    assert history[0]["league_name"] == league.name and history[0]["season_number"] == 1
    assert api_client.get("/api/players/999999/leagues/").status_code == 404


def test_join_needs_a_player_and_lands_in_the_bottom_division(api_client):
    league, _ = a_season()
    assert api_client.post(f"/api/leagues/{league.pk}/join/").status_code == 401
    player = PlayerFactory()
    joined = auth(api_client, player).post(f"/api/leagues/{league.pk}/join/")
    assert joined.status_code == 201
    assert joined.json()["division"] == league.divisions.get(tier=2).pk


def test_leaderboard_gates_and_pages(api_client, django_assert_max_num_queries):
    shown = rated(3)
    rated(1, matches=1)  # too few rated matches
    rated(1, days_ago=90)  # inactive
    with django_assert_max_num_queries(2):
        board = api_client.get("/api/leaderboard/?variant=gin&page_size=2").json()
    assert board["count"] == 3
    assert [row["player"] for row in board["results"]] == [shown[2].pk, shown[1].pk]
    bad = api_client.get("/api/leaderboard/?variant=poker")
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_variant"


def test_pages_render_with_flat_query_counts(client, django_assert_max_num_queries):
    league, season = a_season()
    rated(2)
    with django_assert_max_num_queries(4):
        listing = client.get("/leagues/")
    assert league.name in listing.content.decode()
    with django_assert_max_num_queries(5):
        table = client.get(f"/leagues/{league.slug}/").content.decode()
    assert table.count('class="zone-relegation"') == 1 and 'class="zone-promotion"' not in table
    silver = client.get(f"/leagues/{league.slug}/?season=1&division=2").content.decode()
    assert silver.count('class="zone-promotion"') == 1
    assert client.get(f"/leagues/{league.slug}/?season=9").status_code == 404
    player_id = Standing.objects.filter(season=season).first().player_id
    with django_assert_max_num_queries(3):
        history = client.get(f"/leagues/players/{player_id}/").content.decode()
    assert league.name in history
    with django_assert_max_num_queries(4):
        board = client.get("/leaderboard/").content.decode()
    assert board.count("<tr><td>") == 2


def test_profile_shows_the_league_history(client):
    league, season = a_season()
    player_id = Standing.objects.filter(season=season).first().player_id
    page = client.get(f"/players/{player_id}/").content.decode()
    assert "Leagues" in page and league.name in page


def test_the_league_page_names_its_points_and_shows_moves_once_there_are_any(client):
    league = make_league(name="Fresh League", divisions=[("Gold", 4, 1, 1)])
    start(league, gameplay.bot_players(kind="greedy", count=4))
    fresh = client.get(f"/leagues/{league.slug}/").content.decode()
    assert (
        f"league points: {league.points_win} for a win, {league.points_draw} for a draw, "
        f"{league.points_loss} for a loss" in fresh
    )
    # Nothing to compare yet: no column of blank marks, nothing in the key about it.
    assert 'class="move"' not in fresh and "places since the last round" not in fresh
    ranked, _ = a_season()
    moved = client.get(f"/leagues/{ranked.slug}/").content.decode()
    assert 'title="Places since the last round"' in moved and 'class="move"' in moved


def test_the_leaderboard_marks_the_chosen_game(client):
    board = client.get("/leaderboard/?variant=basic").content.decode()
    assert '<a href="?variant=basic" aria-current="page">Basic Rummy</a>' in board
    assert '<a href="?variant=gin">Gin Rummy</a>' in board


def test_no_leagues_explains_them_and_points_staff_to_the_admin(client, admin_client):
    player = client.get("/leagues/").content.decode()
    assert "A league is a ladder of divisions" in player and "/admin/" not in player
    staff = admin_client.get("/leagues/").content.decode()
    assert 'href="/admin/leagues/league/add/"' in staff


def test_the_leaderboard_hides_bots_unless_asked_and_marks_your_row(client, api_client):
    people = rated(2)
    bot = gameplay.bot_players(kind="greedy", count=1)[0]
    Rating.objects.create(
        player=bot,
        variant="gin",
        mu=40,
        sigma=3,
        ordinal=31,
        rated_matches=50,
        last_rated_at=timezone.now(),
    )
    board = client.get("/leaderboard/").content.decode()
    assert bot.display_name not in board and board.count("<tr") == 3  # the head, 2 people
    assert 'href="?variant=gin&amp;bots=1"' in board
    shown = client.get("/leaderboard/?bots=1").content.decode()
    assert bot.display_name in shown and shown.count("<tr") == 4
    client.force_login(people[0].user)
    mine = client.get("/leaderboard/").content.decode()
    assert mine.count('class="you"') == 1 and "(you)" in mine
    api = api_client.get("/api/leaderboard/?variant=gin").json()
    assert api["count"] == 3  # the API lists every rating unless asked
    assert api_client.get("/api/leaderboard/?variant=gin&bots=0").json()["count"] == 2
    refused = api_client.get("/api/leaderboard/?variant=gin&bots=yes")
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "invalid_bots"
