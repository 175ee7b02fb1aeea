"""Tables of 3-6 players where the top K go through, on Basic Rummy."""

from datetime import timedelta

import pytest

from engine import variants
from tests.tournaments.helpers import bots, drive, humans, lose, open_tournament, register_all
from tournaments import services
from tournaments.models import Entry, Table, TableMatch, TableSeat

pytestmark = pytest.mark.django_db

FAST_BASIC = {"target": 20}


def test_basic_rummy_is_available():
    assert "basic" in variants.names()


def basic_cup(players, **settings):
    tournament = open_tournament(
        variant="basic", options=FAST_BASIC, table_size=4, advance=2, **settings
    )
    register_all(tournament, players)
    services.tournament_start(tournament_id=tournament.pk)
    return tournament


def test_four_seat_tables_send_the_top_two_on_to_one_champion():
    tournament = basic_cup(bots(16), show_up_seconds=0)
    tables = Table.objects.filter(tournament=tournament)
    assert [tables.filter(round_number=r).count() for r in (1, 2, 3)] == [4, 2, 1]
    drive(tournament)
    assert tournament.status == "finished"
    assert Entry.objects.filter(tournament=tournament, status="champion").count() == 1
    for table in tables.filter(round_number__in=(2, 3)):
        assert table.seats.count() == 4
    places = sorted(Entry.objects.filter(tournament=tournament).values_list("placement", flat=True))
    assert places[:4] == [1, 2, 3, 4]
    assert places[4:] == [5] * 4 + [9] * 8


def test_best_of_three_at_a_four_seat_table_plays_three_matches():
    tournament = basic_cup(bots(4), show_up_seconds=0, best_of=3)
    drive(tournament)
    final = Table.objects.get(tournament=tournament)
    assert TableMatch.objects.filter(table=final).count() == 3
    assert sum(final.seats.values_list("wins", flat=True)) <= 3


def test_no_shows_at_a_four_seat_table():
    players = humans(8)
    tournament = basic_cup(players)
    first = Table.objects.get(tournament=tournament, round_number=1, position=0)
    here = [s.entry.player for s in first.seats.select_related("entry__player")]
    services.table_show_up(table_id=first.pk, player=here[0])
    services.table_show_up(table_id=first.pk, player=here[1])
    # Only two of four showed and two go through: both advance without playing.
    services.table_deadline(table_id=first.pk, now=first.deadline + timedelta(seconds=1))
    first.refresh_from_db()
    assert (first.status, first.walkover) == ("done", True)
    final = Table.objects.get(tournament=tournament, round_number=2)
    assert sorted(final.seats.values_list("entry__player", flat=True)) == sorted(
        p.pk for p in here[:2]
    )
    other = Table.objects.get(tournament=tournament, round_number=1, position=1)
    seated = [s.entry.player for s in other.seats.select_related("entry__player")]
    for player in seated[:3]:
        services.table_show_up(table_id=other.pk, player=player)
    services.table_deadline(table_id=other.pk, now=other.deadline + timedelta(seconds=1))
    other.refresh_from_db()
    assert other.status == "playing"  # three showed: they play for the two places
    assert TableMatch.objects.get(table=other).match.players == 3
    lose(tournament, seated[0])  # a forfeit mid-table: the other two go through
    assert final.seats.count() == 4
    assert not TableSeat.objects.filter(table=final, entry__player=seated[0]).exists()
