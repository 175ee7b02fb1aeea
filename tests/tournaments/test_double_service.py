"""Double elimination stored and run by the services: both brackets, the grand final and
its reset, no-shows, forfeits and disqualification through both brackets, placements for
every entry, and each step taken once when deliveries race (PostgreSQL)."""

from collections import Counter
from datetime import timedelta

import pytest

from config.errors import DomainError
from gameplay import services as gameplay
from gameplay.models import CoinEntry
from tests.concurrency import at_once
from tests.tournaments.helpers import (
    admin_organiser,
    bots,
    drive,
    humans,
    lose,
    open_tournament,
    organiser,
    register_all,
)
from tournaments import services
from tournaments.models import Entry, Round, Table, TableMatch, TableSeat, Tournament

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("no_broker"),
]


def double(n: int, players=None, by=None, **settings) -> Tournament:
    values = {"show_up_seconds": 0, "format": "double", **settings}
    tournament = open_tournament(by=by, **values)
    register_all(tournament, players if players is not None else bots(n))
    services.tournament_start(tournament_id=tournament.pk)
    return tournament


def start_waiting(tournament: Tournament) -> None:
    for table_id in services.waiting_tables(tournament_id=tournament.pk, limit=100):
        services.table_start(table_id=table_id)


def table(tournament: Tournament, side: str, side_round: int, position: int = 0) -> Table:
    return Table.objects.get(
        tournament=tournament, round__side=side, round__side_round=side_round, position=position
    )


def seated(t: Table) -> set[int]:
    return set(TableSeat.objects.filter(table=t).values_list("entry_id", flat=True))


def contested_losses(tournament: Tournament) -> Counter:
    """Losses in matches two players sat down to (a bye or an empty seat is none)."""
    seats = TableSeat.objects.filter(table__tournament=tournament)
    per_table = Counter(seats.values_list("table_id", flat=True))
    return Counter(s.entry_id for s in seats if per_table[s.table_id] == 2 and s.finish != 1)


@pytest.mark.parametrize(("n", "grand_final"), [(5, "reset"), (4, "simple"), (2, "reset")])
def test_a_double_elimination_plays_out_to_a_champion_and_places_everyone(n, grand_final):
    tournament = drive(double(n, grand_final=grand_final))
    assert tournament.status == Tournament.Status.FINISHED
    entries = {e.pk: e for e in Entry.objects.filter(tournament=tournament)}
    [champion] = [e for e in entries.values() if e.status == "champion"]
    assert champion.placement == 1
    assert sorted(e.placement for e in entries.values())[:3] == [1, 2, 3][: min(n, 3)]
    assert not Table.objects.filter(tournament=tournament).exclude(status="done").exists()
    sides = set(Round.objects.filter(tournament=tournament).values_list("side", flat=True))
    assert sides == ({"W", "F"} if n == 2 else {"W", "L", "F"})
    losses = contested_losses(tournament)
    # Nobody is out before two losses, the champion has at most one; a simple grand
    # final's one exception is the winners' champion beaten once in it.
    assert losses[champion.pk] <= 1
    once = [pk for pk in entries if pk != champion.pk and losses[pk] != 2]
    assert len(once) <= (1 if grand_final == "simple" else 0)
    played = sum(losses.values())
    assert played in (2 * n - 2, 2 * n - 1)


def test_a_winners_loser_drops_into_the_losers_bracket_and_a_forfeit_is_a_loss():
    tournament = double(4)
    start_waiting(tournament)
    first = table(tournament, "W", 1, 0)
    resigning = TableSeat.objects.filter(table=first).select_related("entry__player").first()
    lose(tournament, resigning.entry.player)
    assert resigning.entry_id in seated(table(tournament, "L", 1, 0))
    assert Entry.objects.get(pk=resigning.entry_id).status == Entry.Status.PLAYING
    tournament = drive(tournament)
    assert tournament.status == Tournament.Status.FINISHED


def test_a_disqualified_player_leaves_both_brackets_and_their_opponent_walks_on():
    by = organiser()
    tournament = double(4, by=by)
    start_waiting(tournament)
    first = table(tournament, "W", 1, 0)
    out = TableSeat.objects.filter(table=first).first()
    services.entry_disqualify(entry_id=out.entry_id, by=by)
    [link] = TableMatch.objects.filter(table=first)
    gameplay.match_finalize(match_id=link.match_id)
    services.table_match_finished(match_id=link.match_id)
    losers_first = table(tournament, "L", 1, 0)
    assert out.entry_id not in seated(losers_first)
    assert out.entry_id not in set(
        TableSeat.objects.filter(
            table__tournament=tournament, table__round__side="W", table__round__side_round=2
        ).values_list("entry_id", flat=True)
    )
    tournament = drive(tournament)
    assert tournament.status == Tournament.Status.FINISHED
    disqualified = Entry.objects.get(pk=out.entry_id)
    assert disqualified.status == Entry.Status.DISQUALIFIED
    assert disqualified.placement == 4  # out at the losers' first stage, last here
    assert Table.objects.get(pk=losers_first.pk).walkover


def test_no_shows_drop_into_the_losers_bracket_where_an_empty_match_sends_nobody_on():
    by = organiser()
    late = humans(2)
    tournament = open_tournament(by=by, format="double", show_up_seconds=60, seeding="manual")
    register_all(tournament, [*late, *bots(2)])
    for seed, entry in enumerate(Entry.objects.filter(tournament=tournament).order_by("pk"), 1):
        services.entry_set_seed(entry_id=entry.pk, seed=seed, by=by)
    services.tournament_start(tournament_id=tournament.pk)
    for position in (0, 1):  # seeds 1 v 4 and 2 v 3: each human meets a bot
        t = table(tournament, "W", 1, position)
        services.table_deadline(table_id=t.pk, now=t.deadline + timedelta(seconds=1))
    late_entries = set(Entry.objects.filter(player__in=late).values_list("pk", flat=True))
    losers_first = table(tournament, "L", 1, 0)
    assert seated(losers_first) == late_entries
    services.table_deadline(
        table_id=losers_first.pk, now=losers_first.deadline + timedelta(seconds=1)
    )
    losers_first.refresh_from_db()
    assert (losers_first.status, losers_first.walkover) == ("done", True)
    assert not seated(table(tournament, "L", 2, 0)) & late_entries
    tournament = drive(tournament)
    assert tournament.status == Tournament.Status.FINISHED
    # Out together in losers' round 1, behind the champion and the runner-up.
    assert {e.placement for e in Entry.objects.filter(pk__in=late_entries)} == {3}


def test_double_elimination_is_head_to_head_only():
    with pytest.raises(DomainError):
        open_tournament(format="double", table_size=4, advance=1, variant="rummy")


def finalize(tournament: Tournament, t: Table) -> int:
    [link] = TableMatch.objects.filter(table=t)
    gameplay.match_play_bots(match_id=link.match_id)
    gameplay.match_finalize(match_id=link.match_id)
    return link.match_id


def test_two_winners_matches_finishing_at_once_open_both_next_matches_once():
    tournament = double(4)
    start_waiting(tournament)
    first = finalize(tournament, table(tournament, "W", 1, 0))
    second = finalize(tournament, table(tournament, "W", 1, 1))
    results = at_once(
        lambda: services.table_match_finished(match_id=first),
        lambda: services.table_match_finished(match_id=second),
        lambda: services.table_match_finished(match_id=first),
        lambda: services.table_match_finished(match_id=second),
    )
    assert sorted(results) == [False, False, True, True]
    for side, side_round in (("W", 2), ("L", 1)):
        t = table(tournament, side, side_round)
        assert (t.feeders_done, t.status, len(seated(t))) == (2, "playing", 2)
        assert TableMatch.objects.filter(table=t).count() == 1


def test_the_grand_final_and_a_duplicate_delivery_finish_the_tournament_once():
    tournament = double(
        2,
        by=admin_organiser(),
        grand_final="simple",
        sponsor_coins=5,
        prizes=[{"placement": 1, "coins": 5}],
    )
    start_waiting(tournament)
    match_id = finalize(tournament, table(tournament, "W", 1))
    services.table_match_finished(match_id=match_id)
    final = finalize(tournament, table(tournament, "F", 1))
    results = at_once(*[lambda: services.table_match_finished(match_id=final)] * 3)
    assert sorted(results) == [False, False, True]
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert Entry.objects.filter(tournament=tournament, status="champion").count() == 1
    assert CoinEntry.objects.filter(key=f"tournament:{tournament.pk}:prize:1").count() == 1


def test_the_api_and_the_page_give_both_brackets_and_the_grand_final(api_client, client):
    tournament = drive(double(3))
    api_client.force_authenticate(user=organiser("reader"))
    body = api_client.get(f"/api/tournaments/{tournament.pk}/bracket/").json()
    assert (body["format"], body["grand_final"]) == ("double", "reset")
    assert [side["side"] for side in body["sides"]] == ["W", "L", "F"]
    names = [r["name"] for side in body["sides"] for r in side["rounds"]]
    assert names == [
        "Winners' round 1",
        "Winners' final",
        "Losers' round 1",
        "Losers' final",
        "Grand final",
        "Grand final reset",
    ]
    listed = api_client.get(f"/api/tournaments/{tournament.pk}/").json()
    assert listed["format"] == "double"
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    for heading in ("Winners&#x27;", "Losers&#x27;", "Grand final", "Double elimination"):
        assert heading in page
