"""The read a live table's move and view make (`selectors.matches_with_seats`), and that a
move stays exactly-once with it: one statement, the match locked, the log appended."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from config.errors import Conflict
from gameplay import games, selectors, services
from gameplay.models import Match
from tests.concurrency import at_once
from tests.factories import BotPlayerFactory, PlayerFactory


def human_against_bot() -> tuple[Match, object]:
    ada = PlayerFactory()
    match = services.match_create(
        variant="gin", options={}, players=[ada, BotPlayerFactory(bot_kind="greedy")]
    )
    services.match_play_bots(match_id=match.pk)  # the bot may be dealt the first turn
    return Match.objects.get(pk=match.pk), ada


def a_move(match: Match, player) -> dict:
    """A discard when there is one, else a draw from the stock, else what is offered."""
    legal = selectors.match_view(match, player)["legal_actions"]
    return next(
        (a for a in legal if a["type"] == "discard"),
        next((a for a in legal if a.get("source") == "stock"), legal[0]),
    )


@pytest.mark.django_db
def test_one_statement_reads_matches_their_seats_and_players_and_the_log_on_use():
    first, ada = human_against_bot()
    second, _ = human_against_bot()
    with CaptureQueriesContext(connection) as queries:
        read = selectors.matches_with_seats([second.pk, first.pk])
        seats = [list(match.seats.all()) for match in read]
        names = [seat.player.display_name for group in seats for seat in group]
    assert len(queries) == 1
    assert [match.pk for match in read] == sorted([first.pk, second.pk])
    assert [[seat.index for seat in group] for group in seats] == [[0, 1], [0, 1]]
    assert ada.display_name in names
    assert all(seat.match is match for match in read for seat in match.seats.all())
    assert read[0].get_deferred_fields() == {"log"}
    assert read[0].log == Match.objects.get(pk=read[0].pk).log
    assert selectors.matches_with_seats([first.pk], active_only=True) == [read[0]]
    Match.objects.filter(pk=first.pk).update(status=Match.Status.FINISHED)
    assert selectors.matches_with_seats([first.pk], active_only=True) == []


@pytest.mark.django_db
def test_moves_read_and_stored_this_way_replay_to_the_cached_state():
    match, ada = human_against_bot()
    for _ in range(8):
        match = services.match_act(
            match_id=match.pk, player=ada, seq=match.seq, action=a_move(match, ada)
        )
        services.match_play_bots(match_id=match.pk)
        match = Match.objects.get(pk=match.pk)
    assert len(match.log) == match.seq >= 16
    replayed, cached = games.replay(match), games.load(match)
    assert replayed.view(0) == cached.view(0) and replayed.view(1) == cached.view(1)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_same_move_sent_twice_at_once_is_played_once():
    match, ada = human_against_bot()
    action = a_move(match, ada)
    outcome = at_once(
        *[lambda: services.match_act(match_id=match.pk, player=ada, seq=match.seq, action=action)]
        * 2,
        refusals=(Conflict,),
    )
    assert sorted(type(result).__name__ for result in outcome) == ["Conflict", "Match"]
    stored = Match.objects.get(pk=match.pk)
    assert stored.seq == match.seq + 1
    assert [{"seat": m["seat"], "action": m["action"]} for m in stored.log] == [
        *({"seat": m["seat"], "action": m["action"]} for m in match.log),
        {"seat": 0, "action": action},
    ]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_bot_turn_run_twice_at_once_is_played_once():
    match, ada = human_against_bot()
    while True:  # play until the move hands the turn to the bot
        action = a_move(match, ada)
        match = services.match_act(match_id=match.pk, player=ada, seq=match.seq, action=action)
        if match.to_move == 1 or match.status != Match.Status.ACTIVE:
            break
    played = at_once(*[lambda: services.match_play_bots(match_id=match.pk)] * 2)
    stored = Match.objects.get(pk=match.pk)
    assert sorted(played)[0] == 0 and sum(played) == stored.seq - match.seq > 0
    assert len(stored.log) == stored.seq
