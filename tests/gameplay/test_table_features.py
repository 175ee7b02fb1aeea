"""What the table page shows beyond the moves (issue 14), read without a browser: the
deadwood each knock would leave, the result panel's rewards read back from finalize's
rows, and tournament tables open to spectators."""

from unittest import mock

import pytest

from engine import gin, variants
from engine.cards import parse
from gameplay import games, selectors, services, tasks
from gameplay.models import Match
from tests.factories import (
    AchievementFactory,
    LevelFactory,
    PlayerFactory,
    RewardFactory,
    RoomFactory,
    TitleFactory,
)
from tests.gameplay.test_table_views import table_data

pytestmark = pytest.mark.django_db


def play_until(match: Match, players, stop) -> dict:
    """Both seats play the greedy bot's moves through the service until `stop(view)` says
    so for the seat to move; returns that seat's view."""
    greedy = variants.get(match.variant)
    for _ in range(400):
        match = selectors.match_watchable(match.pk, players[0])
        seat = match.to_move
        view = selectors.match_view(match, players[seat])
        if stop(view):
            return view
        action = greedy.bot_action(games.load(match), seat, bot="greedy")
        services.match_act(match_id=match.pk, player=players[seat], seq=match.seq, action=action)
    raise AssertionError("the stop condition never came")


def test_a_seat_that_may_knock_sees_the_deadwood_each_knock_leaves():
    ada, bob = PlayerFactory(), PlayerFactory()
    with mock.patch.object(tasks.play_bots, "delay"):
        match = services.match_create(
            variant="gin", options={}, players=[ada, bob], room=RoomFactory(), seed="knock-1"
        )
    view = play_until(
        match, [ada, bob], lambda v: any(a["type"] == "knock" for a in v["legal_actions"])
    )
    knocks = {a["card"] for a in view["legal_actions"] if a["type"] == "knock"}
    options = view["knock_options"]
    assert {o["card"] for o in options if o["type"] == "knock"} == knocks
    for option in options:
        kept = [c for c in view["hand"] if c != option["card"]]
        arrangement = gin.best_arrangement(parse(" ".join(kept)))
        assert option["deadwood_points"] == arrangement.deadwood_points <= 10
        assert sorted(
            [*option["deadwood"], *(c for meld in option["melds"] for c in meld)]
        ) == sorted(kept)
    assert options == sorted(options, key=lambda o: (o["deadwood_points"], o["card"]))
    # The other seat and a spectator hear nothing about it.
    match.refresh_from_db()
    other = [ada, bob][1 - match.to_move]
    assert "knock_options" not in selectors.match_view(match, other)
    assert "knock_options" not in selectors.match_view(match, None)


def test_the_result_lists_what_finalize_gave_this_seat_and_nothing_older():
    LevelFactory(number=1, xp_required=0)
    LevelFactory(number=2, xp_required=15, title=TitleFactory(code="novice", name="Novice"))
    LevelFactory(number=3, xp_required=10_000)
    reward = RewardFactory(code="first", xp=5, coins=50)
    AchievementFactory(
        code="first-match", name="First match", metric="matches_played", threshold=1, reward=reward
    )
    bots = services.bot_players(kind="greedy", count=2)

    def finished(seed: str) -> Match:
        with (
            mock.patch.object(tasks.play_bots, "delay"),
            mock.patch.object(tasks.finalize_match, "delay"),
        ):
            match = services.match_create(
                variant="gin", options={"target": 10}, players=bots, seed=seed
            )
            services.match_play_bots(match_id=match.pk)
        match.refresh_from_db()
        assert selectors.match_view(match, bots[0])["rewards"] is None  # not finalized yet
        assert services.match_finalize(match_id=match.pk)
        match.refresh_from_db()
        return match

    first = finished("rewards-1")
    rewards = selectors.match_view(first, bots[0])["rewards"]
    assert rewards["xp"] == sum(line["amount"] for line in rewards["xp_lines"]) >= 10 + 5
    assert [line["reason"] for line in rewards["xp_lines"]][-1] == "Achievement: First match"
    assert rewards["coins"] == 50
    assert rewards["levels"] == [{"level": 2, "title": "Novice"}]
    assert [a["name"] for a in rewards["achievements"]] == ["First match"]
    assert "Novice" in [t["name"] for t in rewards["titles"]]
    assert "rewards" not in selectors.match_view(first, None)  # a spectator's view

    second = finished("rewards-2")
    again = selectors.match_view(second, bots[0])["rewards"]
    assert again["achievements"] == [] and again["levels"] == [] and again["titles"] == []
    assert again["coins"] == 0 and [line["amount"] for line in again["xp_lines"]] == [again["xp"]]
    # The first match still shows its own, afterwards.
    assert selectors.match_view(first, bots[0])["rewards"] == rewards


def test_a_match_created_open_to_spectators_is_watchable_whatever_its_room():
    ada, bob, eve = PlayerFactory(), PlayerFactory(), PlayerFactory()
    closed_room = RoomFactory(spectators_allowed=False)
    match = services.match_create(
        variant="gin", options={}, players=[ada, bob], room=closed_room, spectators_allowed=True
    )
    assert selectors.match_watchable(match.pk, eve) is not None
    assert selectors.match_watchable(match.pk, None) is not None
    closed = services.match_create(variant="gin", options={}, players=[ada, bob])
    assert selectors.match_watchable(closed.pk, eve) is None


def test_a_tournament_open_to_spectators_opens_its_tables_and_links_them(client):
    from tests.tournaments.helpers import bots, open_tournament, register_all
    from tournaments import selectors as tournament_selectors
    from tournaments import services as tournament_services

    with mock.patch.object(tasks.play_bots, "delay"):
        shut = open_tournament(name="Shut Cup", show_up_seconds=0)
        register_all(shut, bots(2))
        cup = open_tournament(name="Open Cup", show_up_seconds=0, spectators_allowed=True)
        register_all(cup, bots(2))
        for tournament in (shut, cup):
            tournament_services.tournament_start(tournament_id=tournament.pk)
            for table_id in tournament_services.waiting_tables(
                tournament_id=tournament.pk, limit=10
            ):
                tournament_services.table_start(table_id=table_id)
    eve = PlayerFactory()
    client.force_login(eve.user)
    [shut_match] = tournament_selectors.bracket(shut)["rounds"][0]["tables"][0]["matches"]
    [open_match] = tournament_selectors.bracket(cup)["rounds"][0]["tables"][0]["matches"]
    assert (shut_match["watchable"], open_match["watchable"]) == (False, True)
    assert client.get(f"/matches/{shut_match['id']}/").status_code == 404
    data = table_data(client.get(f"/matches/{open_match['id']}/"))
    assert data["view"]["seat"] is None and data["view"]["hand"] == []
    page = client.get(f"/tournaments/{cup.pk}/").content.decode()
    assert f'href="/matches/{open_match["id"]}/"' in page and "Watch game" in page
    page = client.get(f"/tournaments/{shut.pk}/").content.decode()
    assert f'href="/matches/{shut_match["id"]}/"' not in page


def test_organisers_set_spectators_through_the_api_and_the_admin(client, api_client):
    from tests.tournaments.helpers import organiser

    by = organiser()
    api_client.force_authenticate(user=by)
    body = {"name": "Open Gin", "variant": "gin", "options": {"target": 10}}
    created = api_client.post(
        "/api/tournaments/", {**body, "spectators_allowed": True}, format="json"
    )
    assert created.status_code == 201, created.json()
    assert created.json()["spectators_allowed"] is True
    default = api_client.post("/api/tournaments/", body, format="json").json()
    assert default["spectators_allowed"] is False
    changed = api_client.patch(
        f"/api/tournaments/{default['id']}/", {"spectators_allowed": True}, format="json"
    )
    assert changed.status_code == 200 and changed.json()["spectators_allowed"] is True
    admin = PlayerFactory().user
    admin.is_staff = admin.is_superuser = True
    admin.save()
    client.force_login(admin)
    form = client.get(f"/admin/tournaments/tournament/{default['id']}/change/").content.decode()
    assert 'name="spectators_allowed"' in form
