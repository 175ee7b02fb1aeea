"""Exactly-once under real concurrency: threads on PostgreSQL, each with its own connection."""

import pytest

from config.errors import Conflict
from gameplay import services as gameplay
from gameplay.models import CoinEntry, Metric, PlayerMetric
from tests.concurrency import at_once
from tests.tournaments.helpers import admin_organiser, bots, humans, open_tournament, register_all
from tournaments import services
from tournaments.models import Entry, Table, TableMatch, TableSeat, Tournament

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("no_broker"),
]


def started(n: int, **settings) -> Tournament:
    tournament = open_tournament(show_up_seconds=0, **settings)
    register_all(tournament, bots(n))
    services.tournament_start(tournament_id=tournament.pk)
    for table_id in services.waiting_tables(tournament_id=tournament.pk, limit=100):
        services.table_start(table_id=table_id)
    return tournament


def finalized_matches(tournament: Tournament, round_number: int) -> list[int]:
    ids = list(
        TableMatch.objects.filter(
            table__tournament=tournament, table__round_number=round_number
        ).values_list("match_id", flat=True)
    )
    for match_id in ids:
        gameplay.match_play_bots(match_id=match_id)
        gameplay.match_finalize(match_id=match_id)
    return ids


def test_two_feeders_finishing_at_the_same_instant_open_the_next_table_once():
    tournament = started(4)
    first, second = finalized_matches(tournament, 1)
    assert at_once(
        lambda: services.table_match_finished(match_id=first),
        lambda: services.table_match_finished(match_id=second),
    ) == [True, True]
    final = Table.objects.get(tournament=tournament, round_number=2)
    assert (final.feeders_done, final.status) == (2, "playing")
    assert final.seats.count() == 2
    assert TableMatch.objects.filter(table=final).count() == 1


def test_duplicate_deliveries_at_once_record_a_match_once():
    tournament = started(4)
    first, _ = finalized_matches(tournament, 1)
    results = at_once(*[lambda: services.table_match_finished(match_id=first)] * 4)
    assert sorted(results) == [False, False, False, True]
    final = Table.objects.get(tournament=tournament, round_number=2)
    assert (final.feeders_done, final.seats.count()) == (1, 1)


def test_final_and_third_place_ending_together_finish_the_tournament_once():
    tournament = started(
        4,
        by=admin_organiser(),
        third_place=True,
        sponsor_coins=7,
        prizes=[{"placement": 1, "coins": 7}],
    )
    for match_id in finalized_matches(tournament, 1):
        services.table_match_finished(match_id=match_id)
    final, third = finalized_matches(tournament, 2)
    at_once(
        lambda: services.table_match_finished(match_id=final),
        lambda: services.table_match_finished(match_id=third),
    )
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert Entry.objects.filter(tournament=tournament, status="champion").count() == 1
    assert CoinEntry.objects.filter(key=f"tournament:{tournament.pk}:prize:1").count() == 1


def test_racing_for_the_last_place_admits_exactly_one():
    tournament = open_tournament(max_entries=2)
    register_all(tournament, humans(1))
    racers = humans(4)
    at_once(
        *[
            lambda p=p: services.entry_register(tournament_id=tournament.pk, player=p)
            for p in racers
        ]
    )
    statuses = sorted(Entry.objects.filter(player__in=racers).values_list("status", flat=True))
    assert statuses == ["registered", "waitlisted", "waitlisted", "waitlisted"]


def test_disqualifying_while_the_result_arrives_is_consistent():
    tournament = started(2)
    (match_id,) = finalized_matches(tournament, 1)
    loser = TableSeat.objects.filter(table__tournament=tournament).order_by("seed").last()
    recorded, disqualified = at_once(
        lambda: services.table_match_finished(match_id=match_id),
        lambda: services.entry_disqualify(entry_id=loser.entry_id, by=None),
        refusals=(Conflict,),
    )
    tournament.refresh_from_db()
    assert recorded is True
    assert tournament.status == Tournament.Status.FINISHED
    status = Entry.objects.get(pk=loser.entry_id).status
    # Either the disqualification came first (and the final had its match already over,
    # so the result stands with the seat forfeited), or the final was over and it is refused.
    if isinstance(disqualified, Conflict):
        assert status in ("eliminated", "champion")
    else:
        assert status == "disqualified"


def test_overlapping_batches_at_once_record_each_match_once_and_never_deadlock():
    tournament = started(16)
    round_one = finalized_matches(tournament, 1)  # eight matches feeding four tables
    # Two deliveries sharing matches, in different orders, plus one of a single match.
    batches = [round_one[:6], round_one[:1:-1], round_one[3:4]]
    recorded = at_once(
        *[lambda batch=batch: services.table_matches_finished(match_ids=batch) for batch in batches]
    )
    assert sum(len(ids) for ids in recorded) == len(round_one)
    assert set().union(*recorded) == set(round_one)
    quarter_finals = Table.objects.filter(tournament=tournament, round_number=2)
    assert {(t.feeders_done, t.status) for t in quarter_finals} == {(2, "playing")}
    assert TableSeat.objects.filter(table__in=quarter_finals).count() == 8
    assert TableMatch.objects.filter(table__in=quarter_finals).count() == 4


def test_overlapping_finalize_batches_at_once_award_each_match_once():
    tournament = started(8)
    round_one = list(
        TableMatch.objects.filter(table__tournament=tournament).values_list("match_id", flat=True)
    )
    gameplay.match_play_bots_many(match_ids=round_one)
    finalized = at_once(
        lambda: gameplay.match_finalize_many(match_ids=round_one),
        lambda: gameplay.match_finalize_many(match_ids=round_one[::-1]),
        lambda: gameplay.match_finalize_many(match_ids=round_one[1:3]),
    )
    assert sum(len(ids) for ids in finalized) == len(round_one)
    assert set().union(*finalized) == set(round_one)
    played = PlayerMetric.objects.filter(metric=Metric.MATCHES_PLAYED, value__gt=0)
    assert sorted(played.values_list("value", flat=True)) == [1] * 8
