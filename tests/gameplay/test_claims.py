"""Dummy's cut-ins over the API: claims out of turn, the timed claim window, bots answering
each window once, and races settled by the move number (engine/README.md, "What a server
must do for the window")."""

import json
import re
import time
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from engine import variants
from gameplay import games, services
from gameplay.models import Match
from tests.concurrency import at_once
from tests.factories import BotPlayerFactory, PlayerFactory, RoomFactory
from tests.gameplay.helpers import auth

pytestmark = pytest.mark.django_db(transaction=True)

CLAIM = {"type": "claim"}
STOCK = {"type": "draw", "source": "stock"}
PILE = {"type": "draw", "source": "discard"}
CARD = re.compile(r'"((?:[2-9TJQKA][SHDC])|JK)"')


def dummy_match(*players, seed="dummy-claims-1"):
    """A match whose claim windows stay open long enough for a slow test machine; tests
    close them with `close_window`."""
    room = RoomFactory(variant="dummy", seats=len(players), options={}, claim_seconds=60)
    return services.match_create(
        variant="dummy", options={}, players=list(players), seed=seed, room=room
    )


def act(player, match, action, seq=None):
    client = auth(APIClient(), player)
    seq = Match.objects.get(pk=match.pk).seq if seq is None else seq
    return client.post(
        f"/api/matches/{match.pk}/actions/", {"seq": seq, "action": action}, format="json"
    )


def view_of(player, match) -> dict:
    return auth(APIClient(), player).get(f"/api/matches/{match.pk}/").json()


def close_window(match) -> None:
    """The window's deadline passes (as a few seconds would)."""
    Match.objects.filter(pk=match.pk).update(claim_deadline=timezone.now() - timedelta(seconds=1))


def moves(log: list[dict]) -> list[dict]:
    """The log's seats and actions, without the time each move was stored."""
    return [{"seat": move["seat"], "action": move["action"]} for move in log]


def error_code(response) -> str:
    return response.json()["error"]["code"]


@pytest.fixture
def table():
    ada, bob, cy = PlayerFactory(), PlayerFactory(), PlayerFactory()
    return dummy_match(ada, bob, cy), ada, bob, cy


def test_a_seat_that_is_not_to_move_claims_the_offered_card(table):
    match, ada, bob, _cy = table
    seen = view_of(bob, match)
    assert seen["to_move"] == 0 and not seen["your_turn"]
    assert seen["legal_actions"] == [CLAIM]
    assert seen["table"]["claim_window"]["may_claim"] == [1, 2]
    assert seen["claim_deadline"] is not None
    assert view_of(ada, match)["legal_actions"] == [STOCK, PILE]

    claimed = act(bob, match, CLAIM)

    assert claimed.status_code == 200, claimed.json()
    assert claimed.json()["table"]["claim_window"]["claims"] == [1]
    assert claimed.json()["legal_actions"] == []
    assert moves(Match.objects.get(pk=match.pk).log) == [{"seat": 1, "action": CLAIM}]


def test_the_movers_stock_draw_waits_for_the_window_and_then_pays_the_claim(table):
    match, ada, bob, _cy = table
    offered = view_of(bob, match)["table"]["claim_window"]["card"]
    assert act(bob, match, CLAIM).status_code == 200

    early = act(ada, match, STOCK)
    assert early.status_code == 409 and error_code(early) == "claim_window_open"
    close_window(match)
    drawn = act(ada, match, STOCK)

    assert drawn.status_code == 200, drawn.json()
    bob_view = view_of(bob, match)
    assert bob_view["table"]["hand_counts"] == [14, 16, 13]  # the card and two penalty cards
    assert offered in bob_view["hand"]
    assert bob_view["table"]["cut_ins"] == [0, 1, 0]


def test_out_of_turn_refusals_say_why_and_change_nothing(table):
    match, ada, bob, cy = table
    not_listed = act(bob, match, STOCK)
    assert not_listed.status_code == 403 and error_code(not_listed) == "not_your_turn"
    own_turn = act(ada, match, CLAIM)
    assert own_turn.status_code == 400 and error_code(own_turn) == "claim_on_your_turn"
    assert act(bob, match, CLAIM).status_code == 200
    again = act(bob, match, CLAIM, seq=0)  # the same claim sent twice
    assert again.status_code == 400 and error_code(again) == "already_claimed"
    assert act(ada, match, PILE, seq=0).status_code == 409  # the claim moved the match on
    assert act(ada, match, PILE).status_code == 200  # the pile goes at once: claims void
    late = act(cy, match, CLAIM, seq=1)
    assert late.status_code == 409 and error_code(late) == "stale_seq"
    closed = act(cy, match, CLAIM)
    assert closed.status_code == 400 and error_code(closed) == "no_claim_window"
    stored = Match.objects.get(pk=match.pk)
    assert moves(stored.log) == [{"seat": 1, "action": CLAIM}, {"seat": 0, "action": PILE}]
    assert stored.claim_window is None and stored.claim_deadline is None


def test_hidden_cards_never_reach_another_seat_during_the_window(table):
    match, ada, bob, cy = table
    act(bob, match, CLAIM)
    game = games.load(Match.objects.get(pk=match.pk))
    for seat, player in enumerate((ada, bob, cy)):
        view = view_of(player, match)
        visible = sorted([*game.view(seat)["hand"], *game.view(None)["discard"]])
        shown = CARD.findall(json.dumps(view))
        assert set(shown) <= set(visible), (seat, set(shown) - set(visible))
        assert "seed" not in view and "moves" not in view


def test_bots_answer_each_window_once_and_then_the_human_may_draw():
    ada = PlayerFactory()
    match = dummy_match(ada, BotPlayerFactory(), BotPlayerFactory(bot_kind="random"))
    created = Match.objects.get(pk=match.pk)
    assert created.claim_window == 0 and created.claim_deadline is not None

    services.match_play_bots(match_id=match.pk)
    first = Match.objects.get(pk=match.pk)
    services.match_play_bots(match_id=match.pk)
    second = Match.objects.get(pk=match.pk)

    assert first.bot_claims_window == 0
    assert moves(second.log) == moves(first.log) and second.seq == first.seq
    assert first.claim_deadline is None  # no human may claim: nothing to wait for
    assert act(ada, match, STOCK).status_code == 200


@pytest.mark.postgres
def test_the_same_claim_twice_at_once_is_recorded_once(table):
    match, _ada, bob, _cy = table
    responses = at_once(lambda: act(bob, match, CLAIM, 0), lambda: act(bob, match, CLAIM, 0))
    assert sorted(r.status_code for r in responses) == [200, 400]
    assert moves(Match.objects.get(pk=match.pk).log) == [{"seat": 1, "action": CLAIM}]


@pytest.mark.postgres
def test_two_seats_claiming_at_once_both_count(table):
    match, ada, bob, cy = table
    responses = at_once(lambda: act(bob, match, CLAIM, 0), lambda: act(cy, match, CLAIM, 0))
    assert [r.status_code for r in responses] == [200, 200]
    stored = Match.objects.get(pk=match.pk)
    assert sorted(move["seat"] for move in stored.log) == [1, 2]
    close_window(match)
    assert act(ada, match, STOCK).status_code == 200
    # The nearest claimant to the mover's left (seat 1) wins, whoever asked first.
    assert view_of(bob, match)["table"]["cut_ins"] == [0, 1, 0]


@pytest.mark.postgres
def test_a_claim_racing_the_movers_draw_is_settled_by_the_move_number(table):
    match, ada, bob, _cy = table
    responses = at_once(lambda: act(bob, match, CLAIM, 0), lambda: act(ada, match, PILE, 0))
    assert sorted(r.status_code for r in responses) == [200, 409]
    stored = Match.objects.get(pk=match.pk)
    assert len(stored.log) == 1
    replayed = games.replay(stored)
    assert replayed.seq == stored.seq == 1


@pytest.mark.postgres
def test_bots_asked_twice_at_once_answer_once():
    ada = PlayerFactory()
    bots = [BotPlayerFactory(bot_kind="random"), BotPlayerFactory(bot_kind="random")]
    reference = dummy_match(PlayerFactory(), *bots, seed="claims-race")
    services.match_play_bots(match_id=reference.pk)
    match = dummy_match(ada, *bots, seed="claims-race")

    at_once(*(lambda: services.match_play_bots(match_id=match.pk) for _ in range(3)))

    assert moves(Match.objects.get(pk=match.pk).log) == moves(
        Match.objects.get(pk=reference.pk).log
    )


def test_a_bot_to_move_waits_for_a_humans_claim_window():
    ada = PlayerFactory()
    match = dummy_match(BotPlayerFactory(), BotPlayerFactory(), ada, seed="claims-bot-waits")
    assert variants.get("dummy").bot_action(games.load(match), 0, bot="greedy") == STOCK

    services.match_play_bots(match_id=match.pk)
    waiting = Match.objects.get(pk=match.pk)
    assert waiting.to_move == 0 and waiting.claim_deadline > timezone.now()
    assert act(ada, match, CLAIM).status_code == 200
    close_window(match)
    services.match_play_bots(match_id=match.pk)

    moved = Match.objects.get(pk=match.pk)
    assert {"seat": 0, "action": STOCK} in moves(moved.log)
    bot_claimed = {"seat": 1, "action": CLAIM} in moves(moved.log)
    assert games.load(moved).cut_ins == [0, 1, 0] if bot_claimed else [0, 0, 1]


def test_replay_reproduces_a_match_with_claims():
    ada = PlayerFactory()
    match = dummy_match(ada, BotPlayerFactory(bot_kind="random"), BotPlayerFactory())
    for _ in range(40):
        close_window(match)  # the windows' seconds pass
        services.match_play_bots(match_id=match.pk)
        stored = Match.objects.get(pk=match.pk)
        view = view_of(ada, stored)
        if view["status"] != "active":
            break
        if view["your_turn"]:
            close_window(stored)
            action = variants.get("dummy").bot_action(games.load(stored), 0, bot="greedy")
            assert act(ada, stored, action).status_code == 200
    stored = Match.objects.get(pk=match.pk)
    assert any(move["action"] == CLAIM for move in stored.log)
    replayed = games.replay(stored)
    assert replayed.seq == stored.seq
    assert replayed.view(0) == games.load(stored).view(0)


def test_a_dummy_match_of_bots_plays_and_finalizes_on_a_real_worker(celery_worker):
    """Bots' claims and turns travel through the broker; finalize replays the log."""
    players = [BotPlayerFactory(), BotPlayerFactory(bot_kind="random"), BotPlayerFactory()]
    match = services.match_create(
        variant="dummy", options={"max_hands": 12}, players=players, seed="dummy-on-a-worker"
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        match.refresh_from_db()
        if match.finalized_at is not None:
            break
        time.sleep(0.2)
    assert match.status == "finished", match.dispute_reason
    assert match.finalized_at is not None and services.match_verify(match=match) is None
    assert any(move["action"] == CLAIM for move in match.log)
    seats = sorted(match.seats.all(), key=lambda seat: seat.index)
    assert [seat.placement for seat in seats] == match.result["placements"]


def test_a_claim_over_the_socket_is_pushed_to_every_seat_without_hidden_cards(table):
    """The claimant acts over its socket; every seat gets its own view of the new version,
    the mover with its draws, the third seat still offered the card, no frame holding a
    card that seat may not see."""
    from channels.db import database_sync_to_async

    from tests.gameplay.test_consumers import frames_until, run_async, sessions, socket

    match, ada, bob, cy = table
    players = [ada, bob, cy]
    cookies = sessions(*players)
    game = games.load(Match.objects.get(pk=match.pk))
    visible = [
        {*game.view(seat)["hand"], *game.view(None)["discard"]} for seat in range(len(players))
    ]

    async def run():
        comms = [socket(match.pk, cookies[player.pk]) for player in players]
        for comm in comms:
            assert (await comm.connect())[0]
            await frames_until(comm, "view")
        await comms[1].send_json_to({"type": "act", "seq": 0, "action": CLAIM, "ref": 1})
        pushed = {}
        for seat, comm in enumerate(comms):
            frame, frames = await frames_until(comm, "view")
            pushed[seat] = frame["view"]
            for sent in frames:
                shown = set(CARD.findall(json.dumps(sent)))
                assert shown <= visible[seat], (seat, shown - visible[seat])
        for comm in comms:
            await comm.disconnect()
        assert pushed[1]["seq"] == 1 and pushed[1]["table"]["claim_window"]["claims"] == [1]
        assert pushed[0]["legal_actions"] == [STOCK, PILE]
        assert pushed[2]["legal_actions"] == [CLAIM]
        stored = await database_sync_to_async(Match.objects.get)(pk=match.pk)
        assert moves(stored.log) == [{"seat": 1, "action": CLAIM}]

    run_async(run)


def test_bots_letting_a_window_pass_push_the_closed_window_to_the_table():
    """The bots asked in a window all pass: no move, but the window closes early (no
    deadline, the human's stock draw goes at once). That change reaches the human's socket
    as a view of the same move number, without waiting for the old deadline."""
    from channels.db import database_sync_to_async

    from tests.gameplay.test_consumers import frames_until, run_async, sessions, socket

    ada = PlayerFactory()
    match = dummy_match(ada, BotPlayerFactory(), BotPlayerFactory())
    cookies = sessions(ada)

    async def run():
        comm = socket(match.pk, cookies[ada.pk])
        assert (await comm.connect())[0]
        hello, _ = await frames_until(comm, "view")
        assert hello["seq"] == 0 and hello["view"]["claim_deadline"] is not None
        await database_sync_to_async(services.match_play_bots)(match_id=match.pk)
        stored = await database_sync_to_async(Match.objects.get)(pk=match.pk)
        assert stored.seq == 0 and stored.claim_deadline is None  # they passed: no claim
        pushed, _ = await frames_until(comm, "view", timeout=3)
        assert pushed["seq"] == 0 and pushed["view"]["claim_deadline"] is None
        assert STOCK in pushed["view"]["legal_actions"]
        await comm.disconnect()

    run_async(run)


def test_the_watchers_version_moves_when_a_window_closes_without_a_move():
    """Without Redis the watcher's poll is all there is: the closed window is a new version
    to it too (seq and status alone stay the same)."""
    from gameplay import live

    match = dummy_match(PlayerFactory(), BotPlayerFactory(), BotPlayerFactory())
    before = live._versions([match.pk])[match.pk]
    services.match_play_bots(match_id=match.pk)
    after = live._versions([match.pk])[match.pk]
    assert before[:2] == after[:2] == (0, Match.Status.ACTIVE)
    assert before < after
