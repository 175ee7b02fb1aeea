"""Fair-play signals for admins (issue 16), on constructed histories played through the
services: a player who copies the expert bot, a pair where one side always loses, two
accounts from one address at a table; ordinary play and bots flag nothing."""

import pytest
from django.db import transaction

from engine import variants
from gameplay import games, services
from gameplay.models import FairPlayPair, FairPlaySignal, FairPlayTally, Match
from tests.concurrency import at_once
from tests.factories import BotPlayerFactory, PlayerFactory, RoomFactory

pytestmark = pytest.mark.django_db(transaction=True)
GIN = variants.get("gin")


@pytest.fixture
def limits(settings):
    settings.KNOCK_FAIR_PLAY = {
        **settings.KNOCK_FAIR_PLAY,
        "expert_min_decisions": 30,
        "pair_min_meetings": 3,
    }
    return settings.KNOCK_FAIR_PLAY


def play_as(person, bot_kind: str, opponent) -> Match:
    """A gin match where `person` picks every move as the `bot_kind` bot would; the
    opponent bot moves on the (eager) task queue, and finalize runs when it ends."""
    match = services.match_create(variant="gin", options={"target": 30}, players=[person, opponent])
    while match.status == Match.Status.ACTIVE:
        if match.to_move == 0:
            action = GIN.bot_action(games.load(match), 0, bot=bot_kind)
            services.match_act(match_id=match.pk, player=person, seq=match.seq, action=action)
        else:
            services.match_play_bots(match_id=match.pk)
        match.refresh_from_db()
    return match


def forfeit(match: Match, seat_index: int) -> None:
    with transaction.atomic():
        locked = Match.objects.select_for_update().get(pk=match.pk)
        services.match_forfeit(match=locked, seat_index=seat_index, reason="resigned")
    services.match_finalize(match_id=match.pk)


def signals(kind: str) -> list[FairPlaySignal]:
    return list(FairPlaySignal.objects.filter(kind=kind))


def test_a_player_copying_the_expert_bot_is_flagged_and_a_greedy_one_is_not(limits, eager_tasks):
    assisted, ordinary = PlayerFactory(), PlayerFactory()
    bot = BotPlayerFactory()
    # Deals are random: each plays until the decisions the signal needs are counted.
    played = {}
    for person, kind in ((assisted, "expert"), (ordinary, "greedy")):
        played[person.pk] = []
        for _ in range(8):
            played[person.pk].append(play_as(person, kind, bot))
            tally = FairPlayTally.objects.filter(player=person).first()
            if tally and tally.decisions >= limits["expert_min_decisions"]:
                break
    assert all(m.fair_play_at is not None for m in Match.objects.all())  # counted on finalize
    (flagged,) = signals(FairPlaySignal.Kind.EXPERT_AGREEMENT)
    assert flagged.player == assisted and flagged.evidence["share"] == 1.0
    assert flagged.evidence["decisions"] >= limits["expert_min_decisions"]
    assert set(flagged.matches) == {m.pk for m in played[assisted.pk]}
    greedy = FairPlayTally.objects.get(player=ordinary)
    assert greedy.decisions >= 30 and greedy.expert_agreements / greedy.decisions < 0.95


def test_a_pair_where_one_side_always_loses_is_flagged_as_chip_dumping(limits, eager_tasks):
    room = RoomFactory(entry_fee=5)
    winner, dumper, first, second = PlayerFactory.create_batch(4)
    for player in (winner, dumper, first, second):
        services.coins_book(player_id=player.pk, amount=100, reason="test", key=f"s{player.pk}")
    for turn in range(3):
        dumped = services.match_create(
            variant="gin", options={}, players=[winner, dumper], room=room
        )
        forfeit(dumped, seat_index=1)
        even = services.match_create(variant="gin", options={}, players=[first, second], room=room)
        forfeit(even, seat_index=turn % 2)  # they take turns losing
    (flagged,) = signals(FairPlaySignal.Kind.CHIP_DUMPING)
    assert (flagged.player, flagged.other) == (winner, dumper)
    assert flagged.evidence == {
        "meetings": 3,
        "wins": 3,
        "share": 1.0,
        "threshold": limits["pair_win_share"],
        "coins_to_winner": 15,
    }
    assert len(flagged.matches) == 3


def test_two_accounts_from_one_address_at_a_table_are_flagged(client, eager_tasks):
    first, second, elsewhere = PlayerFactory.create_batch(3)
    for player, address in ((first, "10.0.0.7"), (second, "10.0.0.7"), (elsewhere, "10.9.9.9")):
        signed_in = client.post(
            "/accounts/login/",
            {"username": player.user.username, "password": "correct-horse-battery"},
            REMOTE_ADDR=address,
            HTTP_USER_AGENT=f"browser of {player.pk}",
        )
        assert signed_in.status_code == 302
        client.logout()
    shared = services.match_create(variant="gin", options={}, players=[first, second])
    forfeit(shared, seat_index=0)
    apart = services.match_create(variant="gin", options={}, players=[first, elsewhere])
    forfeit(apart, seat_index=0)
    (flagged,) = signals(FairPlaySignal.Kind.SHARED_CLIENT)
    assert {flagged.player, flagged.other} == {first, second}
    assert flagged.evidence["shared"] == ["address 10.0.0.7"]
    assert flagged.matches == [shared.pk]


def test_bots_only_histories_flag_nothing(eager_tasks):
    """Finalize does not even ask (no person at the table); asked, nothing is counted."""
    bots = BotPlayerFactory.create_batch(2)
    for _ in range(3):
        match = services.match_create(variant="gin", options={"target": 30}, players=bots)
        services.match_play_bots(match_id=match.pk)
    assert Match.objects.filter(finalized_at__isnull=False).count() == 3
    services.fair_play_record_many(match_ids=Match.objects.values_list("pk", flat=True))
    assert not FairPlaySignal.objects.exists() and not FairPlayPair.objects.exists()
    assert not FairPlayTally.objects.exists()


@pytest.mark.postgres
def test_counting_a_match_twice_or_twice_at_once_counts_it_once(limits):
    person, bot = PlayerFactory(), BotPlayerFactory()
    match = services.match_create(variant="gin", options={"target": 30}, players=[person, bot])
    forfeit(match, seat_index=1)
    results = at_once(*[lambda: services.fair_play_record_many(match_ids=[match.pk])] * 2)
    assert sorted(len(done) for done in results) == [0, 1]
    assert services.fair_play_record_many(match_ids=[match.pk]) == set()
    assert FairPlayTally.objects.get(player=person).recent_matches == [match.pk]


def test_the_admin_lists_signals_with_evidence_and_marks_players(admin_client, limits, eager_tasks):
    winner, dumper = PlayerFactory.create_batch(2)
    for _ in range(3):
        forfeit(
            services.match_create(variant="gin", options={}, players=[winner, dumper]),
            seat_index=1,
        )
    page = admin_client.get("/admin/gameplay/fairplaysignal/").content.decode()
    assert "Chip dumping" in page and "meetings 3" in page
    signal = FairPlaySignal.objects.get()
    assert f"/admin/gameplay/match/{signal.matches[0]}/change/" in page
    admin_client.post(
        "/admin/gameplay/fairplaysignal/",
        {"action": "mark_players", "_selected_action": [signal.pk]},
    )
    winner.refresh_from_db()
    assert winner.fair_play_mark.startswith("Under review")
    assert "Under review" in admin_client.get("/admin/gameplay/player/").content.decode()
