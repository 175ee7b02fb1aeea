"""Swiss at four-seat Basic Rummy tables, run by the services: tables formed from similar
scores, points by place, seats rotated, everyone placed; each round paired once."""

from collections import Counter

import pytest

from config.errors import Conflict, DomainError
from gameplay import services as gameplay
from tests.concurrency import at_once
from tests.tournaments.helpers import bots, drive, open_tournament, register_all
from tournaments import selectors, services
from tournaments.models import Entry, Table, TableMatch, TableSeat, Tournament

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("no_broker"),
]

FAST_BASIC = {"target": 20}


def swiss_tables(n: int, **settings) -> Tournament:
    values = {"variant": "basic", "options": FAST_BASIC, "table_size": 4, "advance": 1}
    tournament = open_tournament(show_up_seconds=0, format="swiss", **values, **settings)
    register_all(tournament, bots(n))
    services.tournament_start(tournament_id=tournament.pk)
    return tournament


def test_a_swiss_at_four_seat_tables_scores_places_and_rotates_the_first_seat():
    tournament = drive(swiss_tables(8, swiss_rounds=2, place_points=[4, 2, 1, 0]))
    assert tournament.status == Tournament.Status.FINISHED
    seats = TableSeat.objects.filter(table__tournament=tournament)
    assert Counter(seats.values_list("table__round_number", flat=True)) == {1: 8, 2: 8}
    firsts = Counter(seats.filter(index=0).values_list("entry_id", flat=True))
    assert max(firsts.values()) == 1  # nobody starts twice while others never have
    body = selectors.bracket(tournament)
    assert body["place_points"] == [4, 2, 1, 0]
    assert [t["key"] for t in body["tiebreaks"]] == ["firsts", "opposition"]
    assert sum(row["score"] for row in body["standings"]) == 2 * 2 * (4 + 2 + 1 + 0)
    entries = Entry.objects.filter(tournament=tournament)
    assert not entries.filter(placement__isnull=True).exists()
    assert entries.get(status="champion").placement == 1
    # Round two seats the round-one winners together: similar scores share a table.
    winners = set(seats.filter(table__round_number=1, finish=1).values_list("entry_id", flat=True))
    second = Counter(
        seats.filter(table__round_number=2, entry_id__in=winners).values_list(
            "table__position", flat=True
        )
    )
    assert second == {0: 2}


def test_the_last_tables_of_a_round_ending_at_once_seat_the_next_round_once():
    tournament = swiss_tables(8)
    for table_id in services.waiting_tables(tournament_id=tournament.pk, limit=10):
        services.table_start(table_id=table_id)
    match_ids = list(
        TableMatch.objects.filter(table__tournament=tournament).values_list("match_id", flat=True)
    )
    for match_id in match_ids:
        gameplay.match_play_bots(match_id=match_id)
        gameplay.match_finalize(match_id=match_id)
    calls = [lambda m=m: services.table_match_finished(match_id=m) for m in match_ids]
    assert sorted(at_once(*calls, *calls)) == [False, False, True, True]
    second = Table.objects.filter(tournament=tournament, round_number=2)
    assert second.count() == 2
    assert TableSeat.objects.filter(table__in=second).count() == 8


def test_too_few_for_a_table_or_rising_points_are_refused():
    with pytest.raises(DomainError, match="Points by place"):
        open_tournament(
            format="swiss", variant="basic", table_size=4, advance=1, place_points=[1, 3]
        )
    tournament = open_tournament(format="swiss", variant="basic", table_size=6, advance=1)
    register_all(tournament, bots(4))
    with pytest.raises(Conflict, match="need 5 entries"):
        services.tournament_start(tournament_id=tournament.pk)
