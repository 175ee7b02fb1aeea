"""Tournament services: every state change, its refusals, and the bracket moving on."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from config.errors import Conflict, DomainError, NotAllowed
from gameplay.models import CoinEntry, Match, Metric, Player, PlayerMetric, Rating
from gameplay.services import InsufficientCoins
from tests.factories import PlayerFactory, RewardFactory, TitleFactory, UserFactory
from tests.tournaments.helpers import (
    admin_organiser,
    bots,
    drive,
    humans,
    lose,
    open_tournament,
    organiser,
    play_match,
    register_all,
)
from tournaments import services
from tournaments.models import Entry, Table, TableMatch, TableSeat, Tournament

pytestmark = pytest.mark.django_db

LATER = timedelta(hours=1)


def statuses(tournament) -> dict[str, int]:
    out: dict[str, int] = {}
    for status in Entry.objects.filter(tournament=tournament).values_list("status", flat=True):
        out[status] = out.get(status, 0) + 1
    return out


def table(tournament, round_number, position) -> Table:
    return Table.objects.get(tournament=tournament, round_number=round_number, position=position)


def seated(tournament, round_number, position) -> list[int]:
    return list(
        TableSeat.objects.filter(
            table__tournament=tournament, table__round_number=round_number, table__position=position
        )
        .order_by("index")
        .values_list("entry__seed", flat=True)
    )


def entry_of(tournament, player) -> Entry:
    return Entry.objects.get(tournament=tournament, player=player)


# --- creating and organising -----------------------------------------------------------


def test_creating_needs_the_organiser_permission():
    with pytest.raises(NotAllowed):
        services.tournament_create(organiser=UserFactory(), name="X", variant="gin")


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"table_size": 4, "advance": 2}, "Gin Rummy seats exactly 2 players"),
        ({"best_of": 2}, "best_of must be odd"),
        ({"table_size": 2, "advance": 2}, "advance must be between"),
        ({"options": {"target": 0}}, "target"),
        ({"starts_at": timezone.now(), "check_in_closes_at": timezone.now() + LATER}, "after"),
    ],
)
def test_settings_no_tournament_can_run_with_are_refused(values, message):
    with pytest.raises(DomainError, match=message):
        services.tournament_create(organiser=organiser(), name="X", variant="gin", **values)


def test_only_the_own_organiser_runs_a_tournament():
    tournament = open_tournament()
    other = organiser("other-organiser")
    for action in (
        services.tournament_start,
        services.tournament_cancel,
        services.tournament_open_check_in,
    ):
        with pytest.raises(NotAllowed):
            action(tournament_id=tournament.pk, by=other)
    with pytest.raises(NotAllowed):
        services.tournament_update(tournament_id=tournament.pk, by=other, name="Mine now")


def test_update_before_the_draw_only():
    tournament = open_tournament(show_up_seconds=0)
    by = tournament.organiser
    services.tournament_update(tournament_id=tournament.pk, by=by, name="Renamed", best_of=3)
    with pytest.raises(DomainError, match="cannot change"):
        services.tournament_update(tournament_id=tournament.pk, by=by, table_size=3)
    register_all(tournament, bots(2))
    services.tournament_start(tournament_id=tournament.pk, by=by)
    with pytest.raises(Conflict):
        services.tournament_update(tournament_id=tournament.pk, by=by, name="Too late")


# --- registration, fees, waiting list, check-in ---------------------------------------------


def test_fees_waiting_list_and_refunds_through_the_ledger():
    tournament = open_tournament(entry_fee=30, max_entries=2)
    a, b, c = humans(3, coins=100)
    register_all(tournament, [a, b, c])
    assert [entry_of(tournament, p).status for p in (a, b, c)] == [
        "registered",
        "registered",
        "waitlisted",
    ]
    assert Player.objects.get(pk=c.pk).coins == 70
    services.entry_withdraw(tournament_id=tournament.pk, player=a)
    assert Player.objects.get(pk=a.pk).coins == 100
    assert entry_of(tournament, c).status == "registered"  # the waiting list moved up
    # Registering again charges again, under a new ledger key; withdrawing refunds again.
    services.entry_register(tournament_id=tournament.pk, player=a)
    assert entry_of(tournament, a).status == "waitlisted"
    services.entry_withdraw(tournament_id=tournament.pk, player=a)
    assert Player.objects.get(pk=a.pk).coins == 100
    assert CoinEntry.objects.filter(player=a).count() == 5  # seed, fee, refund, fee, refund


def test_registration_refusals():
    tournament = open_tournament(entry_fee=50, min_level=1)
    poor = PlayerFactory()
    with pytest.raises(InsufficientCoins):
        services.entry_register(tournament_id=tournament.pk, player=poor)
    assert not Entry.objects.filter(player=poor).exists()
    high = open_tournament(by=tournament.organiser, min_level=5)
    with pytest.raises(NotAllowed, match="level 5"):
        services.entry_register(tournament_id=high.pk, player=poor)
    rich = humans(1, coins=100)[0]
    services.entry_register(tournament_id=tournament.pk, player=rich)
    with pytest.raises(Conflict, match="Already"):
        services.entry_register(tournament_id=tournament.pk, player=rich)
    future = open_tournament(by=tournament.organiser, registration_opens_at=timezone.now() + LATER)
    with pytest.raises(Conflict, match="not opened"):
        services.entry_register(tournament_id=future.pk, player=rich)


def test_invalid_transitions_are_refused():
    tournament = open_tournament(show_up_seconds=0)
    player = bots(3)[2]
    with pytest.raises(Conflict, match="Registration opens once"):
        services.tournament_open_registration(tournament_id=tournament.pk)
    with pytest.raises(Conflict, match="two entries"):
        services.tournament_start(tournament_id=tournament.pk)
    register_all(tournament, bots(2))
    services.tournament_start(tournament_id=tournament.pk)
    with pytest.raises(Conflict) as started_twice:
        services.tournament_start(tournament_id=tournament.pk)
    assert started_twice.value.code == "already_started"
    with pytest.raises(Conflict, match="not open"):
        services.entry_register(tournament_id=tournament.pk, player=player)
    drive(tournament)
    final = table(tournament, 1, 0)
    assert final.status == "done"
    match = TableMatch.objects.get(table=final).match
    assert services.table_match_finished(match_id=match.pk) is False  # reported once only
    with pytest.raises(Conflict, match="started or finished"):
        services.table_show_up(table_id=final.pk, player=match.seats.first().player)
    with pytest.raises(Conflict, match="over"):
        services.tournament_cancel(tournament_id=tournament.pk)


def test_closing_check_in_drops_no_shows_and_promotes_the_waiting_list():
    tournament = open_tournament(entry_fee=10, max_entries=3)
    players = humans(5, coins=10)
    register_all(tournament, players)
    services.tournament_open_check_in(tournament_id=tournament.pk)
    for player in (players[0], players[2], players[4]):
        services.entry_check_in(tournament_id=tournament.pk, player=player)
    late = humans(1, coins=10)[0]  # registration stays open during check-in
    services.entry_register(tournament_id=tournament.pk, player=late)
    outcome = services.tournament_close_check_in(tournament_id=tournament.pk)
    assert outcome == {"dropped": 1, "promoted": 1}
    assert [entry_of(tournament, p).status for p in players] == [
        "checked_in",
        "dropped",
        "checked_in",
        "waitlisted",
        "checked_in",
    ]
    assert Player.objects.get(pk=players[1].pk).coins == 10  # the no-show got the fee back
    with pytest.raises(Conflict):
        services.entry_check_in(tournament_id=tournament.pk, player=players[3])
    services.tournament_start(tournament_id=tournament.pk)
    assert statuses(tournament) == {"playing": 3, "dropped": 1, "waitlisted": 2}
    assert Player.objects.get(pk=players[3].pk).coins == 10  # never admitted: refunded


# --- the draw ---------------------------------------------------------------------------------


def test_the_draw_stores_the_bracket_with_byes_walked_through():
    tournament = open_tournament(show_up_seconds=0, seeding="manual")
    players = bots(5)
    register_all(tournament, players)
    for seed, player in enumerate(players, start=1):
        services.entry_set_seed(entry_id=entry_of(tournament, player).pk, seed=seed, by=None)
    services.tournament_start(tournament_id=tournament.pk)
    tournament.refresh_from_db()
    assert tournament.entries_count == 5
    assert [entry_of(tournament, p).seed for p in players] == [1, 2, 3, 4, 5]
    # 8 slots: (1, bye) (4, 5) (2, bye) (3, bye); byes pass at once.
    assert [table(tournament, 1, p).status for p in range(4)] == ["done", "waiting"] + ["done"] * 2
    assert seated(tournament, 2, 0) == [1]
    assert table(tournament, 2, 0).status == "pending"
    assert seated(tournament, 2, 1) == [2, 3]
    assert table(tournament, 2, 1).status == "waiting"  # fed only by byes: ready now
    drive(tournament)
    assert tournament.status == "finished"
    assert TableMatch.objects.filter(table__tournament=tournament).count() == 4


def test_seeding_by_rating_puts_the_best_rated_first():
    tournament = open_tournament(show_up_seconds=0)
    players = bots(4)
    for ordinal, player in zip([1.0, 30.0, 20.0], players, strict=False):
        Rating.objects.create(player=player, variant="gin", mu=ordinal, sigma=0, ordinal=ordinal)
    register_all(tournament, players)
    services.tournament_start(tournament_id=tournament.pk)
    assert [entry_of(tournament, p).seed for p in players] == [3, 1, 2, 4]


def test_the_draw_takes_the_same_number_of_queries_for_any_field():
    counts = []
    for n in (8, 40):
        tournament = open_tournament(show_up_seconds=0, seeding="random")
        register_all(tournament, bots(n))
        with CaptureQueriesContext(connection) as queries:
            services.tournament_start(tournament_id=tournament.pk)
        counts.append(len(queries))
        # Seeds have no unique index (it kept the draw's update from being HOT): the draw,
        # their only writer, numbers the field 1..n in one statement.
        seeds = Entry.objects.filter(tournament=tournament).values_list("seed", flat=True)
        assert sorted(seeds) == list(range(1, n + 1))
    assert counts[0] == counts[1]


# --- playing ----------------------------------------------------------------------------------


def test_a_whole_tournament_places_everybody_and_grants_prizes_once():
    by = admin_organiser()  # bots pay no fee: the prizes come from a sponsor budget
    title = TitleFactory(awardable_by_organisers=True)
    reward = RewardFactory(coins=5, awardable_by_organisers=True)
    prizes = [
        {"placement": 1, "coins": 100, "xp": 50, "title": title},
        {"placement": 2, "coins": 40, "reward": reward},
        {"placement": 3, "coins": 10},
    ]
    tournament = open_tournament(by=by, show_up_seconds=0, prizes=prizes, sponsor_coins=160)
    register_all(tournament, bots(8))
    services.tournament_start(tournament_id=tournament.pk)
    drive(tournament)
    assert tournament.status == "finished"
    assert statuses(tournament) == {"champion": 1, "eliminated": 7}
    places = sorted(Entry.objects.filter(tournament=tournament).values_list("placement", flat=True))
    assert places == [1, 2, 3, 3, 5, 5, 5, 5]
    champion = Entry.objects.get(tournament=tournament, status="champion").player
    assert champion.coins == 100
    assert champion.titles.filter(pk=title.pk).exists()
    assert PlayerMetric.objects.get(player=champion, metric=Metric.TOURNAMENTS_WON).value == 1
    third = Entry.objects.filter(tournament=tournament, placement=3)
    assert all(e.player.coins == 10 for e in third)
    booked = CoinEntry.objects.filter(key__startswith=f"tournament:{tournament.pk}:prize").count()
    assert booked == 4
    # Finishing again (a duplicate delivery of the final's result) grants nothing more.
    final_match = TableMatch.objects.get(table=table(tournament, 3, 0)).match_id
    assert services.table_match_finished(match_id=final_match) is False
    services._maybe_finish_tournament(tournament.pk, timezone.now())
    assert (
        CoinEntry.objects.filter(key__startswith=f"tournament:{tournament.pk}:prize").count() == 4
    )
    assert PlayerMetric.objects.get(player=champion, metric=Metric.TOURNAMENTS_WON).value == 1


def test_third_place_match_orders_the_semi_final_losers():
    tournament = open_tournament(show_up_seconds=0, third_place=True)
    register_all(tournament, bots(4))
    services.tournament_start(tournament_id=tournament.pk)
    drive(tournament)
    assert table(tournament, 2, 1).third_place
    places = sorted(Entry.objects.filter(tournament=tournament).values_list("placement", flat=True))
    assert places == [1, 2, 3, 4]


def test_best_of_three_plays_until_a_majority():
    tournament = open_tournament(show_up_seconds=0, best_of=3, final_best_of=1)
    register_all(tournament, bots(4))
    services.tournament_start(tournament_id=tournament.pk)
    drive(tournament)
    for position in (0, 1):
        semi = table(tournament, 1, position)
        wins = sorted(semi.seats.values_list("wins", flat=True))
        assert semi.games_played in (2, 3)
        assert wins[-1] == 2
    assert table(tournament, 2, 0).games_played == 1


def record_first_round(monkeypatch, entries: int) -> tuple[int, list[int]]:
    """Play a cup's first round, then record all its results in one call, as the
    match_finished task does for a batch. Returns tournaments' own queries (gameplay
    counts match_create_many's) and how many matches that call opened."""
    from gameplay import services as gameplay

    tournament = open_tournament(show_up_seconds=0)
    register_all(tournament, bots(entries))
    services.tournament_start(tournament_id=tournament.pk)
    services.table_start_many(
        table_ids=services.waiting_tables(tournament_id=tournament.pk, limit=entries)
    )
    first_round = list(
        TableMatch.objects.filter(table__tournament=tournament).values_list("match_id", flat=True)
    )
    gameplay.match_play_bots_many(match_ids=first_round)
    gameplay.match_finalize_many(match_ids=first_round)
    create, opened = gameplay.match_create_many, []

    def counted_create(*, specs):
        start = len(queries)
        matches = create(specs=specs)
        opened.append((len(queries) - start, len(matches)))
        return matches

    monkeypatch.setattr(gameplay, "match_create_many", counted_create)
    with CaptureQueriesContext(connection) as queries:
        assert services.table_matches_finished(match_ids=first_round) == set(first_round)
    assert all(t.status == "playing" for t in Table.objects.filter(round_number=2))
    assert statuses(tournament) == {"playing": entries // 2, "eliminated": entries // 2}
    [(creating, matches)] = opened
    return len(queries) - creating, matches


def test_recording_a_batch_of_results_takes_the_same_few_queries(monkeypatch):
    # Lock the finished tables, read their tournament and seats, read the unrecorded, lock
    # the tables they feed and read their seats, claim, read the match seats; write new
    # seats, seats, tables, out rounds, eliminations; link the new matches; look for the
    # tournament's webhooks; and the savepoint pair the durable block becomes inside the
    # test's transaction.
    two = record_first_round(monkeypatch, 4)
    eight = record_first_round(monkeypatch, 16)
    assert two == (17, 1) and eight == (17, 4)


def test_one_batch_records_results_of_two_tournaments_with_the_same_shape():
    # Both brackets have tables at the same positions; a batch tells them apart by
    # tournament, so each winner is seated in their own tournament's next table.
    from gameplay import services as gameplay

    cups = []
    for _ in range(2):
        cup = open_tournament(show_up_seconds=0)
        register_all(cup, bots(4))
        services.tournament_start(tournament_id=cup.pk)
        services.table_start_many(table_ids=services.waiting_tables(tournament_id=cup.pk, limit=4))
        cups.append(cup)
    first_round = list(
        TableMatch.objects.filter(table__tournament__in=cups).values_list("match_id", flat=True)
    )
    gameplay.match_play_bots_many(match_ids=first_round)
    gameplay.match_finalize_many(match_ids=first_round)
    assert services.table_matches_finished(match_ids=first_round) == set(first_round)
    for cup in cups:
        final = table(cup, 2, 0)
        assert final.status == "playing" and final.feeders_done == 2
        assert set(final.seats.values_list("entry__tournament", flat=True)) == {cup.pk}
        assert statuses(cup) == {"playing": 2, "eliminated": 2}


# --- walkovers, no-shows, disqualification, withdrawal ---------------------------------------


def humans_cup(n: int, **settings):
    tournament = open_tournament(seeding="manual", **settings)
    players = humans(n)
    register_all(tournament, players)
    for seed, player in enumerate(players, start=1):
        services.entry_set_seed(entry_id=entry_of(tournament, player).pk, seed=seed, by=None)
    services.tournament_start(tournament_id=tournament.pk)
    return tournament, players


def after_deadline(tournament, round_number, position) -> str:
    t = table(tournament, round_number, position)
    return services.table_deadline(table_id=t.pk, now=t.deadline + timedelta(seconds=1))


def show(tournament, round_number, position, *players):
    for player in players:
        services.table_show_up(table_id=table(tournament, round_number, position).pk, player=player)


def test_a_no_show_loses_by_walkover_and_a_full_table_starts_at_once():
    tournament, (p1, p2, p3, p4) = humans_cup(4)
    # Seeds 1 v 4 and 2 v 3. Seed 1 shows, seed 4 does not.
    show(tournament, 1, 0, p1)
    assert table(tournament, 1, 0).status == "waiting"
    assert after_deadline(tournament, 1, 0) == "walkover"
    assert entry_of(tournament, p4).status == "eliminated"
    assert seated(tournament, 2, 0) == [1]
    show(tournament, 1, 1, p2, p3)
    assert table(tournament, 1, 1).status == "playing"
    lose(tournament, p3)
    assert table(tournament, 2, 0).status == "waiting"
    assert seated(tournament, 2, 0) == [1, 2]


def test_double_no_show_sends_nobody_on_and_the_next_table_adjusts():
    tournament, (_, p2, p3, _) = humans_cup(4)
    assert after_deadline(tournament, 1, 0) == "walkover"  # neither 1 nor 4 showed
    assert seated(tournament, 2, 0) == []
    show(tournament, 1, 1, p2, p3)
    lose(tournament, p2)
    final = table(tournament, 2, 0)
    assert final.status == "done" and final.walkover  # seed 3 alone: wins it unopposed
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    assert entry_of(tournament, p3).status == "champion"
    assert entry_of(tournament, p3).placement == 1


def test_double_no_show_in_the_final_leaves_no_champion():
    tournament, (p1, p2, p3, p4) = humans_cup(
        4, by=admin_organiser(), sponsor_coins=5, prizes=[{"placement": 1, "coins": 5}]
    )
    show(tournament, 1, 0, p1, p4)
    show(tournament, 1, 1, p2, p3)
    lose(tournament, p4)
    lose(tournament, p3)
    assert after_deadline(tournament, 2, 0) == "walkover"
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    assert not Entry.objects.filter(tournament=tournament, status="champion").exists()
    assert not CoinEntry.objects.filter(key__startswith=f"tournament:{tournament.pk}:").exists()


@pytest.mark.parametrize("how", ["disqualify", "withdraw"])
@pytest.mark.parametrize("stage", ["waiting", "playing", "finished_unrecorded", "pending", "final"])
def test_leaving_at_every_stage_forfeits_and_the_opponent_goes_on(how, stage):
    tournament, (p1, p2, p3, p4) = humans_cup(4, entry_fee=0)
    victim, opponent = p1, p4

    def leave(player):
        if how == "disqualify":
            services.entry_disqualify(entry_id=entry_of(tournament, player).pk, by=None)
        else:
            services.entry_withdraw(tournament_id=tournament.pk, player=player)

    if stage == "waiting":
        leave(victim)  # the table walks over at once: the opponent goes through
        assert table(tournament, 1, 0).walkover
    elif stage == "playing":
        show(tournament, 1, 0, p1, p4)
        leave(victim)  # the match is forfeited; its result arrives after finalize
        match = TableMatch.objects.get(table=table(tournament, 1, 0)).match
        assert match.result["forfeit"]["reason"] in ("disqualified", "withdrew")
        from gameplay import services as gameplay

        gameplay.match_finalize(match_id=match.pk)
        services.table_match_finished(match_id=match.pk)
    elif stage == "finished_unrecorded":
        show(tournament, 1, 0, p1, p4)
        lose(tournament, p4)  # p1 won, but leaves before the next table
        leave(victim)
        opponent = p2
        show(tournament, 1, 1, p2, p3)
        lose(tournament, p3)
        assert table(tournament, 2, 0).walkover
    elif stage == "pending":
        show(tournament, 1, 0, p1, p4)
        lose(tournament, p4)  # p1 sits at the final, which waits for the other semi
        leave(victim)
        opponent = p2
        show(tournament, 1, 1, p2, p3)
        lose(tournament, p3)
    elif stage == "final":
        show(tournament, 1, 0, p1, p4)
        show(tournament, 1, 1, p2, p3)
        lose(tournament, p4)
        lose(tournament, p3)
        show(tournament, 2, 0, p1, p2)
        leave(victim)
        opponent = p2
        match = TableMatch.objects.get(table=table(tournament, 2, 0)).match
        from gameplay import services as gameplay

        gameplay.match_finalize(match_id=match.pk)
        services.table_match_finished(match_id=match.pk)
    expected = "disqualified" if how == "disqualify" else "withdrawn"
    assert entry_of(tournament, victim).status == expected
    assert TableSeat.objects.filter(entry__player=victim, forfeited=True).count() == 1
    assert (
        not TableSeat.objects.filter(entry__player=victim, finish__isnull=False)
        .exclude(table__round_number=1)
        .exists()
    )
    later = TableSeat.objects.filter(entry__player=opponent, table__round_number=2)
    assert later.exists()
    with pytest.raises(Conflict):
        leave(victim)


def test_disqualified_before_the_draw_loses_the_place_to_the_waiting_list():
    tournament = open_tournament(max_entries=2, entry_fee=5)
    a, b, c = humans(3, coins=5)
    register_all(tournament, [a, b, c])
    services.entry_disqualify(entry_id=entry_of(tournament, a).pk, by=tournament.organiser)
    assert entry_of(tournament, a).status == "disqualified"
    assert entry_of(tournament, c).status == "registered"
    assert Player.objects.get(pk=a.pk).coins == 0  # no refund for a disqualification


def test_cancelling_refunds_every_fee_once():
    tournament = open_tournament(entry_fee=20, show_up_seconds=0)
    players = humans(3, coins=20)
    register_all(tournament, players)
    services.entry_withdraw(tournament_id=tournament.pk, player=players[0])
    services.tournament_start(tournament_id=tournament.pk)
    services.tournament_cancel(tournament_id=tournament.pk)
    assert [Player.objects.get(pk=p.pk).coins for p in players] == [20, 20, 20]
    assert CoinEntry.objects.filter(amount__gt=0, key__contains="refund").count() == 3
    # Matches still running end as friendly games: their results move nothing.
    for match in Match.objects.filter(status="active"):
        play_match(match.pk)
    assert (
        table(tournament, 1, 0).status != "done"
        or not TableSeat.objects.filter(
            table__round_number=2, table__tournament=tournament
        ).exists()
    )


def test_scheduled_tournaments_open_check_in_start_or_cancel():
    now = timezone.now()
    tournament = open_tournament(
        show_up_seconds=0,
        check_in_opens_at=now - 2 * LATER,
        check_in_closes_at=now - LATER,
        starts_at=now + LATER,
    )
    register_all(tournament, bots(3))
    advance = services.tournament_advance
    assert advance(tournament_id=tournament.pk, now=now - 1.5 * LATER) == ["open_check_in"]
    for bot in bots(2):
        services.entry_check_in(tournament_id=tournament.pk, player=bot)
    assert advance(tournament_id=tournament.pk, now=now) == ["close_check_in"]
    assert advance(tournament_id=tournament.pk, now=now + 2 * LATER) == ["started"]
    assert statuses(tournament) == {"playing": 2, "dropped": 1}
    lonely = open_tournament(by=tournament.organiser, starts_at=now)
    register_all(lonely, bots(1))
    assert advance(tournament_id=lonely.pk, now=now + LATER) == ["cancelled"]
    lonely.refresh_from_db()
    assert lonely.status == Tournament.Status.CANCELLED


# --- disputed matches ---------------------------------------------------------------------


def test_a_disputed_match_waits_for_the_organiser_then_is_played_again():
    from gameplay import services as gameplay

    tournament = open_tournament(show_up_seconds=0)
    register_all(tournament, bots(2))
    services.tournament_start(tournament_id=tournament.pk)
    final = table(tournament, 1, 0)
    services.table_start(table_id=final.pk)
    with pytest.raises(Conflict):  # nothing is disputed yet
        services.table_replay(table_id=final.pk, by=tournament.organiser)
    disputed = TableMatch.objects.get(table=final).match
    gameplay.match_play_bots(match_id=disputed.pk)
    disputed.refresh_from_db()
    log = disputed.log
    # The first move that names a card: a discard, or a knock when a bot knocks at once
    # (one hand can end a match to 10).
    first = next(i for i, move in enumerate(log) if "card" in move["action"])
    log[first]["action"]["card"] = "XX"
    Match.objects.filter(pk=disputed.pk).update(log=log)
    assert gameplay.match_finalize(match_id=disputed.pk) is False
    assert services.table_match_finished(match_id=disputed.pk) is False  # counts for nobody

    with pytest.raises(NotAllowed):
        services.table_replay(table_id=final.pk, by=UserFactory())
    services.table_replay(table_id=final.pk, by=tournament.organiser)
    with pytest.raises(Conflict):  # set aside once
        services.table_replay(table_id=final.pk, by=tournament.organiser)
    replay = TableMatch.objects.select_related("match").get(table=final, number=2).match
    assert replay.seed != disputed.seed and replay.status == Match.Status.ACTIVE

    play_match(replay.pk)
    final.refresh_from_db()
    tournament.refresh_from_db()
    assert (final.games_played, final.replays, final.status) == (1, 1, "done")
    assert tournament.status == Tournament.Status.FINISHED


def test_bots_keep_a_human_pace_at_a_tournament_table_with_a_person(settings):
    """Bots at a table with a person wait the event pace; a table of bots plays at once."""
    settings.KNOCK_EVENT_BOT_PAUSE_MS = 1200
    tournament = open_tournament(seeding="manual")
    (person,), robots = humans(1), bots(3)
    register_all(tournament, [person, *robots])
    for seed, player in enumerate([person, *robots], start=1):
        services.entry_set_seed(entry_id=entry_of(tournament, player).pk, seed=seed, by=None)
    services.tournament_start(tournament_id=tournament.pk)
    show(tournament, 1, 0, person)
    for table_id in services.waiting_tables(tournament_id=tournament.pk, limit=10):
        services.table_start(table_id=table_id)
    pauses = {
        any(not s.player.is_bot for s in m.seats.all()): m.bot_pause_ms
        for m in Match.objects.filter(tournament_table__table__tournament=tournament)
    }
    assert pauses == {True: 1200, False: 0}
