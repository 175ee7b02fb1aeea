"""Swiss events stored and run by the services: each round paired once the one before is
over (once, when deliveries race), no repeated pairing, one bye per player at most, the
disqualified no longer paired, standings with tie-breaks and placements for everyone."""

from collections import Counter

import pytest

from config.errors import DomainError
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


def swiss(n: int, by=None, **settings) -> Tournament:
    tournament = open_tournament(by=by, show_up_seconds=0, format="swiss", **settings)
    register_all(tournament, bots(n))
    services.tournament_start(tournament_id=tournament.pk)
    return tournament


def pairings(tournament: Tournament) -> dict[int, list[tuple[int, ...]]]:
    """Each round's tables as the entries seated there."""
    seats: dict[int, list[int]] = {}
    rounds: dict[int, int] = {}
    for table_id, round_number, entry_id in TableSeat.objects.filter(
        table__tournament=tournament
    ).values_list("table_id", "table__round_number", "entry_id"):
        seats.setdefault(table_id, []).append(entry_id)
        rounds[table_id] = round_number
    out: dict[int, list[tuple[int, ...]]] = {}
    for table_id, entries in seats.items():
        out.setdefault(rounds[table_id], []).append(tuple(sorted(entries)))
    return out


def test_a_swiss_event_plays_its_rounds_without_repeats_to_final_standings():
    tournament = drive(swiss(5, tiebreaks=["buchholz", "rating", "wins"]))
    assert tournament.status == Tournament.Status.FINISHED
    played = pairings(tournament)
    assert sorted(played) == [1, 2, 3]  # ceil(log2 5) rounds
    pairs = [p for tables in played.values() for p in tables if len(p) == 2]
    assert len(pairs) == len(set(pairs)) == 6  # two games a round, none repeated
    byes = [p[0] for tables in played.values() for p in tables if len(p) == 1]
    assert len(byes) == len(set(byes)) == 3  # one a round, never twice to one player
    entries = Entry.objects.filter(tournament=tournament)
    assert not entries.filter(placement__isnull=True).exists()
    assert entries.get(status="champion").placement == 1
    standings = selectors.bracket(tournament)["standings"]
    assert [row["rank"] for row in standings] == sorted(row["rank"] for row in standings)
    assert sum(row["score"] for row in standings) == 9  # a point a game and a bye
    assert list(standings[0]["tiebreaks"]) == ["buchholz", "rating", "wins"]
    placement = {e.pk: e.placement for e in entries}
    assert all(placement[row["entry"]] == row["rank"] for row in standings)


def test_the_last_two_results_arriving_at_once_pair_the_next_round_once():
    tournament = swiss(4)
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
    assert TableSeat.objects.filter(table__in=second).count() == 4
    # Winners meet winners: each round-two table holds one score group.
    winners = set(
        TableSeat.objects.filter(
            table__tournament=tournament, table__round_number=1, finish=1
        ).values_list("entry_id", flat=True)
    )
    for tables in pairings(tournament)[2]:
        assert len(set(tables) & winners) in (0, 2)


def test_a_disqualified_entry_is_paired_no_more_and_keeps_its_score():
    by = organiser()
    tournament = swiss(4, by=by)
    out = Entry.objects.filter(tournament=tournament).order_by("seed").last()
    services.entry_disqualify(entry_id=out.pk, by=by)  # before round one's table starts
    tournament = drive(tournament)
    assert tournament.status == Tournament.Status.FINISHED
    later = TableSeat.objects.filter(table__tournament=tournament, table__round_number__gt=1)
    assert not later.filter(entry=out).exists()
    assert Counter(later.values_list("table__round_number", flat=True)) == {2: 3}
    out.refresh_from_db()
    assert (out.status, out.placement is not None) == ("disqualified", True)


def test_swiss_settings_are_checked():
    with pytest.raises(DomainError, match="1 to 30 rounds"):
        open_tournament(format="swiss", swiss_rounds=0)
    with pytest.raises(DomainError, match="Tie-breaks"):
        open_tournament(format="swiss", tiebreaks=["buchholz", "buchholz"])


def test_the_page_and_the_api_show_standings_and_pairings(client, api_client):
    tournament = drive(swiss(3))
    api_client.force_authenticate(user=organiser("reader"))
    body = api_client.get(f"/api/tournaments/{tournament.pk}/bracket/").json()
    assert body["format"] == "swiss" and body["swiss_rounds"] == 2
    assert [t["key"] for t in body["tiebreaks"]] == ["buchholz", "sonneborn_berger", "head_to_head"]
    assert len(body["standings"]) == 3 and [r["name"] for r in body["rounds"]] == [
        "Round 1",
        "Round 2",
    ]
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    for text in ("Standings", "Buchholz", "Sonneborn-Berger", "Pairings", "Round 2"):
        assert text in page


def test_an_organiser_creates_a_swiss_event_through_the_api(api_client):
    api_client.force_authenticate(user=organiser("api-organiser"))
    body = {
        "name": "API Swiss",
        "variant": "gin",
        "format": "swiss",
        "swiss_rounds": 4,
        "tiebreaks": ["median_buchholz", "rating"],
    }
    created = api_client.post("/api/tournaments/", body, format="json")
    assert created.status_code == 201, created.json()
    data = created.json()
    assert (data["format"], data["swiss_rounds"], data["tiebreaks"]) == (
        "swiss",
        4,
        ["median_buchholz", "rating"],
    )
    refused = api_client.patch(f"/api/tournaments/{data['id']}/", {"format": "double"})
    assert refused.status_code in (400, 409)


def test_a_bye_reads_bye_worth_a_win_on_the_page_and_in_the_api(client, api_client):
    tournament = drive(swiss(3, swiss_rounds=3))  # a round robin: a bye each
    byes = Table.objects.filter(tournament=tournament, walkover=True)
    assert byes.count() == 3  # one a round, each a table of one
    api_client.force_authenticate(user=organiser("reader"))
    body = api_client.get(f"/api/tournaments/{tournament.pk}/bracket/").json()
    tables = [t for r in body["rounds"] for t in r["tables"]]
    alone = [t for t in tables if len(t["seats"]) == 1]
    assert len(alone) == 3
    for table in alone:
        assert table["bye"] is True and table["walkover"] is False
        assert table["result"] == "bye"
        [seat] = table["seats"]
        assert seat["finish"] == 1 and seat["bye"] is True
    for table in tables:
        if len(table["seats"]) == 2:
            assert table["bye"] is False and table["result"] == "played"
    standings = {row["entry"]: row["score"] for row in body["standings"]}
    wins = Counter(
        s.entry_id for s in TableSeat.objects.filter(table__tournament=tournament, finish=1)
    )
    assert standings == {e: float(wins[e]) for e in standings}  # a bye counts a win
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "walkover" not in page.lower()
    assert page.count('<span class="state">bye</span>') == 3
    assert page.count('title="A bye: worth a win">bye') == 3
