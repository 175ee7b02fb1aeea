"""Two-stage events run by the services: round-robin groups played round by round, then
the qualifiers' knock-out, group winners meeting other groups' runners-up first; each
step taken once when results race (PostgreSQL)."""

import pytest

from config.errors import Conflict
from gameplay import services as gameplay
from tests.concurrency import at_once
from tests.tournaments.helpers import bots, drive, open_tournament, organiser, register_all
from tournaments import selectors, services
from tournaments.models import Entry, Table, TableMatch, TableSeat, Tournament

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("no_broker"),
]


def two_stage(n: int, by=None, **settings) -> Tournament:
    values = {"show_up_seconds": 0, "format": "two_stage", "groups": 2, "group_advance": 2}
    tournament = open_tournament(by=by, **{**values, **settings})
    register_all(tournament, bots(n))
    services.tournament_start(tournament_id=tournament.pk)
    return tournament


def test_groups_then_a_knock_out_of_their_top_two_to_a_champion():
    tournament = drive(two_stage(8))
    assert tournament.status == Tournament.Status.FINISHED
    tables = Table.objects.filter(tournament=tournament)
    # Two groups of four: three rounds of two tables each; then semi-finals and a final.
    assert [tables.filter(round_number=r).count() for r in range(1, 6)] == [4, 4, 4, 2, 1]
    body = selectors.bracket(tournament)
    groups = body["groups"]
    assert [len(g["entries"]) for g in groups] == [4, 4]
    assert all(row["played"] == 3 for g in groups for row in g["entries"])
    group_of = {row["entry"]: g for g, group in enumerate(groups) for row in group["entries"]}
    winners = {group["entries"][0]["entry"] for group in groups}
    qualifiers = {row["entry"] for g in groups for row in g["entries"][:2]}
    semis = TableSeat.objects.filter(table__tournament=tournament, table__round_number=4)
    assert set(semis.values_list("entry_id", flat=True)) == qualifiers
    for table in tables.filter(round_number=4):
        a, b = table.seats.values_list("entry_id", flat=True)
        assert group_of[a] != group_of[b]  # a winner meets the other group's runner-up
        assert len({a, b} & winners) == 1
    entries = Entry.objects.filter(tournament=tournament)
    assert entries.get(status="champion").pk in qualifiers
    assert not entries.filter(placement__isnull=True).exists()
    out = entries.exclude(pk__in=qualifiers)
    assert set(out.values_list("placement", flat=True)) == {5}  # all out in the groups


def test_the_last_group_results_arriving_at_once_draw_the_knock_out_once():
    tournament = two_stage(4, groups=1, group_advance=2)
    for number in (1, 2, 3):
        for table_id in services.waiting_tables(tournament_id=tournament.pk, limit=10):
            services.table_start(table_id=table_id)
        match_ids = list(
            TableMatch.objects.filter(
                table__tournament=tournament, table__round_number=number
            ).values_list("match_id", flat=True)
        )
        for match_id in match_ids:
            gameplay.match_play_bots(match_id=match_id)
            gameplay.match_finalize(match_id=match_id)
        calls = [lambda m=m: services.table_match_finished(match_id=m) for m in match_ids]
        assert sorted(at_once(*calls, *calls)) == [False, False, True, True]
        following = Table.objects.filter(tournament=tournament, round_number=number + 1)
        assert following.count() == (2 if number < 3 else 1)
    final = Table.objects.get(tournament=tournament, round_number=4)
    assert (final.status, final.seats.count()) == ("waiting", 2)  # start_tables starts it
    assert services.waiting_tables(tournament_id=tournament.pk, limit=10) == [final.pk]


def test_a_disqualified_group_player_leaves_their_tables_to_the_opponent_and_cannot_qualify():
    by = organiser()
    tournament = two_stage(4, by=by, groups=1, group_advance=2)
    out = Entry.objects.filter(tournament=tournament).order_by("seed").first()
    services.entry_disqualify(entry_id=out.pk, by=by)
    tournament = drive(tournament)
    assert tournament.status == Tournament.Status.FINISHED
    final = TableSeat.objects.filter(table__tournament=tournament, table__round_number=4)
    assert out.pk not in set(final.values_list("entry_id", flat=True))
    assert final.count() == 2


def test_too_few_entries_for_the_groups_is_refused():
    tournament = open_tournament(format="two_stage", groups=3)
    register_all(tournament, bots(5))
    with pytest.raises(Conflict, match="3 groups need 6 entries"):
        services.tournament_start(tournament_id=tournament.pk)


def test_the_page_and_the_api_show_groups_then_the_knock_out(client, api_client):
    tournament = drive(two_stage(4))
    api_client.force_authenticate(user=organiser("reader"))
    body = api_client.get(f"/api/tournaments/{tournament.pk}/bracket/").json()
    assert [stage["name"] for stage in body["stages"]] == ["Group stage", "Knock-out"]
    assert [g["name"] for g in body["groups"]] == ["Group A", "Group B"]
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    for text in ("Group A", "Group B", "Group stage", "Knock-out", "Group round 1", "Final"):
        assert text in page
