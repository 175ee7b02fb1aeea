"""Dummy rummy tournaments: tables of 2-4 where the top K go through, ranked by the match's
own placements (contracts completed first, then the lowest penalty points)."""

import pytest

from gameplay.models import Match
from gameplay.services import match_verify
from tests.tournaments.helpers import bots, drive, open_tournament, register_all
from tournaments import services
from tournaments.models import Entry, Table

pytestmark = pytest.mark.django_db

SHORT_DUMMY = {"max_hands": 12}


def test_a_dummy_tournament_at_tables_of_four_runs_to_one_champion():
    tournament = open_tournament(
        variant="dummy", options=SHORT_DUMMY, table_size=4, advance=2, show_up_seconds=0
    )
    register_all(tournament, bots(8))
    services.tournament_start(tournament_id=tournament.pk)

    drive(tournament)

    assert tournament.status == "finished"
    assert Entry.objects.filter(tournament=tournament, status="champion").count() == 1
    matches = Match.objects.filter(tournament_table__table__tournament=tournament)
    assert matches.count() == 3
    for match in matches:
        assert match.status == "finished" and match_verify(match=match) is None
        placed = sorted(match.seats.all(), key=lambda seat: seat.index)
        assert [seat.placement for seat in placed] == match.result["placements"]
        assert match.result["lower_wins"] is True
    first_round = Table.objects.filter(tournament=tournament, round_number=1)
    final = Table.objects.get(tournament=tournament, round_number=2)
    advanced = set(final.seats.values_list("entry__player", flat=True))
    for table in first_round:
        seats = list(table.matches.get().match.seats.all())
        went_on = [seat.placement for seat in seats if seat.player_id in advanced]
        stayed = [seat.placement for seat in seats if seat.player_id not in advanced]
        assert len(went_on) == 2 and max(went_on) <= min(stayed)
