"""Two-stage events run by the services: round-robin groups played round by round, then
the qualifiers' knock-out, group winners meeting other groups' runners-up first; each
step taken once when results race (PostgreSQL)."""

import pytest

from config.errors import Conflict, DomainError
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
    tournament.refresh_from_db()
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
    play_group_stage(tournament, race=True)  # each round's results twice, all at once
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


def play_group_stage(tournament: Tournament, *, race: bool = False) -> None:
    """Play every group round through the services; with ``race``, each round's results
    are delivered twice, all at once, as duplicate deliveries from several workers."""
    shape = services.bracket_of(tournament)
    for number in range(1, shape.n_group_rounds + 1):
        for table_id in services.waiting_tables(tournament_id=tournament.pk, limit=100):
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
        if race:
            assert sorted(at_once(*calls, *calls)) == [False] * len(calls) + [True] * len(calls)
        else:
            for call in calls:
                call()


def test_groups_then_a_double_elimination_bracket_to_a_champion():
    tournament = two_stage(8, second_stage="double")
    shape = services.bracket_of(tournament)
    assert (shape.n_group_rounds, shape.double) == (3, True)
    tournament = drive(tournament)
    assert tournament.status == Tournament.Status.FINISHED
    rounds = list(tournament.rounds.filter(number__gt=3).values_list("name", "side"))
    assert rounds == [
        ("Winners' round 1", "W"),
        ("Winners' final", "W"),
        ("Losers' round 1", "L"),
        ("Losers' final", "L"),
        ("Grand final", "F"),
        ("Grand final reset", "F"),
    ]
    body = selectors.bracket(tournament)
    groups = body["groups"]
    group_of = {row["entry"]: g for g, group in enumerate(groups) for row in group["entries"]}
    winners = {group["entries"][0]["entry"] for group in groups}
    qualifiers = {row["entry"] for g in groups for row in g["entries"][:2]}
    first = Table.objects.filter(tournament=tournament, round_number=4)
    assert first.count() == 2
    for table in first:
        a, b = table.seats.values_list("entry_id", flat=True)
        assert group_of[a] != group_of[b]  # a winner meets the other group's runner-up
        assert len({a, b} & winners) == 1
    knockout = TableSeat.objects.filter(table__tournament=tournament, table__round_number__gt=3)
    assert set(knockout.values_list("entry_id", flat=True)) == qualifiers
    # Double elimination of 4: 2n - 2 matches, 2n - 1 when the reset is played.
    played = Table.objects.filter(
        tournament=tournament, round_number__gt=3, walkover=False, status="done"
    )
    assert played.count() in (6, 7)
    entries = Entry.objects.filter(tournament=tournament)
    champion = entries.get(status="champion")
    assert champion.pk in qualifiers and champion.placement == 1
    assert not entries.filter(placement__isnull=True).exists()
    # Everybody in the bracket but the champion lost twice there (or once, the
    # winners' champion beaten in a grand final without a reset: not with a reset).
    for entry in entries.filter(pk__in=qualifiers).exclude(pk=champion.pk):
        lost = [
            s
            for s in knockout.filter(entry=entry, table__walkover=False)
            if s.finish == 2 or s.forfeited
        ]
        assert len(lost) == 2
    places = sorted(entries.filter(pk__in=qualifiers).values_list("placement", flat=True))
    assert places == [1, 2, 3, 4]
    out = entries.exclude(pk__in=qualifiers)
    assert set(out.values_list("placement", flat=True)) == {5}


def test_a_double_elimination_second_stage_with_byes_and_a_simple_grand_final():
    # Three groups of two send one each: three qualifiers, a bye in the winners' round one.
    tournament = drive(
        two_stage(6, groups=3, group_advance=1, second_stage="double", grand_final="simple")
    )
    assert tournament.status == Tournament.Status.FINISHED
    entries = Entry.objects.filter(tournament=tournament)
    assert not entries.filter(placement__isnull=True).exists()
    assert entries.get(status="champion").placement == 1
    placements = sorted(entries.values_list("placement", flat=True))
    assert placements[:3] == [1, 2, 3] and set(placements[3:]) == {4}
    final = Table.objects.get(tournament=tournament, round__side="F")
    assert final.seats.count() == 2 and final.walkover is False


def test_the_last_group_results_at_once_draw_the_double_elimination_bracket_once():
    tournament = two_stage(4, groups=1, group_advance=4, second_stage="double")
    play_group_stage(tournament, race=True)
    # Four qualifiers: winners' round 1 (2 tables) and final, losers' round 1 and final,
    # the grand final and its reset -- each stored once, seeded 1v4 and 2v3.
    knockout = Table.objects.filter(tournament=tournament, round_number__gt=3)
    assert knockout.count() == 7
    first = knockout.filter(round_number=4).order_by("position")
    assert [t.seats.count() for t in first] == [2, 2]
    assert TableSeat.objects.filter(table__in=knockout).count() == 4
    assert {t.status for t in first} == {"waiting"}


def test_winners_round_one_results_at_once_drop_each_loser_once():
    tournament = two_stage(4, groups=1, group_advance=4, second_stage="double")
    play_group_stage(tournament)
    for table_id in services.waiting_tables(tournament_id=tournament.pk, limit=10):
        services.table_start(table_id=table_id)
    match_ids = list(
        TableMatch.objects.filter(table__tournament=tournament, table__round_number=4)
        .order_by("table__position")
        .values_list("match_id", flat=True)
    )
    assert len(match_ids) == 2
    for match_id in match_ids:
        gameplay.match_play_bots(match_id=match_id)
        gameplay.match_finalize(match_id=match_id)
    calls = [lambda m=m: services.table_match_finished(match_id=m) for m in match_ids]
    assert sorted(at_once(*calls, *calls)) == [False, False, True, True]
    winners_final = Table.objects.get(tournament=tournament, round_number=5)
    losers_first = Table.objects.get(tournament=tournament, round_number=6)
    for table in (winners_final, losers_first):
        assert (table.feeders_done, table.seats.count()) == (2, 2)
        assert table.status in ("waiting", "playing")
    assert TableMatch.objects.filter(table__in=[winners_final, losers_first]).count() <= 2
    tournament = drive(tournament)
    assert tournament.status == Tournament.Status.FINISHED
    assert Entry.objects.filter(tournament=tournament, status="champion").count() == 1


def test_a_second_stage_is_for_two_stage_events_only():
    with pytest.raises(DomainError, match="two-stage events only"):
        open_tournament(format="single", second_stage="double")


def test_the_page_and_the_api_show_groups_then_the_double_elimination_brackets(client, api_client):
    tournament = drive(two_stage(4, second_stage="double"))
    api_client.force_authenticate(user=organiser("reader"))
    body = api_client.get(f"/api/tournaments/{tournament.pk}/bracket/").json()
    assert body["second_stage"] == "double"
    assert [stage["name"] for stage in body["stages"]] == ["Group stage", "Double elimination"]
    assert [side["side"] for side in body["stages"][1]["sides"]] == ["W", "L", "F"]
    settings = api_client.get(f"/api/tournaments/{tournament.pk}/").json()
    assert settings["second_stage"] == "double"
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    for text in (
        "Group A",
        "Double elimination",
        "Winners&#x27; bracket",
        "Losers&#x27; bracket",
        "Grand final",
        "double-elimination bracket of the top 2",
        "Runner-up",
        "Out in the Losers&#x27; final",
        "Out in Losers&#x27; round 1",
    ):
        assert text in page, text


def test_swiss_groups_pair_within_each_group_then_a_knock_out_to_a_champion():
    # Two groups of five: three Swiss rounds each, a bye a round in each group.
    tournament = two_stage(10, group_stage="swiss", swiss_rounds=3)
    shape = services.bracket_of(tournament)
    assert (shape.n_group_rounds, shape.swiss_groups) == (3, True)
    tournament = drive(tournament)
    assert tournament.status == Tournament.Status.FINISHED
    entries = Entry.objects.filter(tournament=tournament)
    group_of = {e.pk: g for g, group in enumerate(shape.groups) for e in entries if e.seed in group}
    met, byes = set(), []
    for number in (1, 2, 3):
        tables = Table.objects.filter(tournament=tournament, round_number=number)
        assert tables.count() == 6  # two pairs and a bye in each group
        for table in tables:
            seated = list(table.seats.values_list("entry_id", flat=True))
            assert len({group_of[e] for e in seated}) == 1  # never across groups
            if len(seated) == 1:
                byes.append(seated[0])
                assert table.walkover and table.seats.get().finish == 1
            else:
                pair = frozenset(seated)
                assert pair not in met  # no repeat while another pairing exists
                met.add(pair)
    assert len(byes) == len(set(byes)) == 6  # at most one bye each
    body = selectors.bracket(tournament)
    groups = body["groups"]
    assert [len(g["entries"]) for g in groups] == [5, 5]
    winners = {group["entries"][0]["entry"] for group in groups}
    qualifiers = {row["entry"] for g in groups for row in g["entries"][:2]}
    for table in Table.objects.filter(tournament=tournament, round_number=4):
        a, b = table.seats.values_list("entry_id", flat=True)
        assert group_of[a] != group_of[b] and len({a, b} & winners) == 1
    # The group order is the Swiss standings': a bye counts as a win.
    for g, group in enumerate(groups):
        scores = {}
        for seat in TableSeat.objects.filter(
            table__tournament=tournament, table__round_number__lte=3, entry__in=list(group_of)
        ).select_related("table"):
            if group_of[seat.entry_id] == g:
                scores[seat.entry_id] = scores.get(seat.entry_id, 0) + (seat.finish == 1)
        order = [row["entry"] for row in group["entries"]]
        assert [scores[e] for e in order] == sorted(scores.values(), reverse=True)
    assert entries.get(status="champion").pk in qualifiers
    assert not entries.filter(placement__isnull=True).exists()


def test_swiss_group_rounds_and_the_knock_out_are_each_paired_once_when_results_race():
    tournament = two_stage(
        4, groups=1, group_advance=2, group_stage="swiss", swiss_rounds=2, second_stage="double"
    )
    assert services.bracket_of(tournament).n_group_rounds == 2
    play_group_stage(tournament, race=True)
    # Round 2 was paired once (two tables, four seats), the bracket drawn once: a double
    # bracket of two qualifiers has the final and the grand final and its reset.
    second = Table.objects.filter(tournament=tournament, round_number=2)
    assert second.count() == 2 and TableSeat.objects.filter(table__in=second).count() == 4
    round_one = {
        frozenset(t.seats.values_list("entry_id", flat=True))
        for t in Table.objects.filter(tournament=tournament, round_number=1)
    }
    assert not round_one & {frozenset(t.seats.values_list("entry_id", flat=True)) for t in second}
    knockout = Table.objects.filter(tournament=tournament, round_number__gt=2)
    assert knockout.count() == 3
    assert TableSeat.objects.filter(table__in=knockout).count() == 2
    tournament = drive(tournament)
    assert tournament.status == Tournament.Status.FINISHED
    assert Entry.objects.filter(tournament=tournament, status="champion").count() == 1


def test_a_disqualified_swiss_group_player_is_paired_no_more():
    by = organiser()
    tournament = two_stage(5, by=by, groups=1, group_advance=2, group_stage="swiss", swiss_rounds=3)
    out = Entry.objects.filter(tournament=tournament).order_by("seed").first()
    services.entry_disqualify(entry_id=out.pk, by=by)
    tournament = drive(tournament)
    assert tournament.status == Tournament.Status.FINISHED
    later = TableSeat.objects.filter(
        table__tournament=tournament, table__round_number__gt=1, entry=out
    )
    assert not later.exists()
    final = TableSeat.objects.filter(table__tournament=tournament, table__round_number=4)
    assert out.pk not in set(final.values_list("entry_id", flat=True))


def test_a_group_stage_is_for_two_stage_events_only():
    with pytest.raises(DomainError, match="two-stage events only"):
        open_tournament(format="swiss", group_stage="swiss")


def test_a_swiss_group_bye_is_shown_as_a_bye_worth_a_win(client, api_client):
    tournament = drive(two_stage(6, group_stage="swiss", swiss_rounds=3))  # groups of 3
    api_client.force_authenticate(user=organiser("reader"))
    body = api_client.get(f"/api/tournaments/{tournament.pk}/bracket/").json()
    assert body["group_stage"] == "swiss"
    group_rounds = body["stages"][0]["rounds"]
    alone = [t for r in group_rounds for t in r["tables"] if len(t["seats"]) == 1]
    assert len(alone) == 6  # a bye a round in each group of three
    assert all(t["bye"] and t["result"] == "bye" and not t["walkover"] for t in alone)
    for group in body["groups"]:
        assert sum(row["won"] for row in group["entries"]) == 3 + 3  # games and byes
        assert all(row["played"] == 3 for row in group["entries"])  # a bye is a round
        assert [row["won"] for row in group["entries"]] == sorted(
            (row["won"] for row in group["entries"]), reverse=True
        )
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert page.count('title="A bye: worth a win">bye') == 6
    assert "2 Swiss groups, then a knock-out" in page
