"""Indian 21-card Rummy's `expert` bot (issue 32): it plays only legal moves, declares as
soon as it holds a declaration, never looks at what its seat cannot see (other hands, the
stock order, the seed), and answers the same state the same way."""

import pickle
import random

import pytest

from engine import variants
from engine.variants import indian21_expert
from tests.engine.test_indian21_rules import PURE3, SHOW, new, rig

V21 = variants.get("indian21")


def test_the_expert_is_offered():
    assert V21.bots == ("random", "greedy", "expert")


def _states(seeds, bots):
    """Every state of whole two-seat matches, the expert and ``bots`` (one per match, in
    turn) taking turns."""
    for k, seed in enumerate(seeds):
        other = bots[k % len(bots)]
        seats = ["expert", other] if k % 2 == 0 else [other, "expert"]
        g = new(seed=seed)
        while not g.over:
            seat = g.to_move
            yield g, seat, seats[seat]
            g.apply(V21.bot_action(g, seat, seats[seat]), seat)


def _legal(g, seat, action) -> bool:
    if g.phase == "draw":
        return action in [
            {"type": "draw", "source": "stock"},
            {"type": "draw", "source": "discard"},
        ]
    if action["type"] == "discard":
        return action["card"] in {c.text for c in g.discard_choices(seat)}
    trial = pickle.loads(pickle.dumps(g))
    trial.apply(action, seat)
    return trial.last_hand["kind"] == "declared" and trial.last_hand["winner"] == seat


def test_only_legal_actions_and_it_declares_whenever_it_can():
    """Over whole matches against itself and random: every expert move is legal, and when
    the engine lists a declaration the expert makes one (a valid one)."""
    decisions = declarations = 0
    seeds = [f"expert-legal-{i}" for i in range(6)]
    for g, seat, bot in _states(seeds, ["expert", "random"]):
        if bot != "expert" or (g.seq % 2 and g.phase == "draw"):
            continue
        action = V21.bot_action(g, seat, "expert")
        assert _legal(g, seat, action), action
        decisions += 1
        if g.phase == "discard":
            listed = any(a["type"] == "declare" for a in g.legal_actions(seat))
            assert listed == (action["type"] == "declare"), action
            declarations += listed
    assert decisions > 20 and declarations >= 3


def test_it_declares_a_rigged_show_at_once():
    """21 grouped cards and any drawn card: the expert shows at once."""
    g = rig(new(), [SHOW, PURE3 + " 5S 6S 7D 8D 9D QH QS QC 3D 4D AD"], stock_top="8C")
    g.apply({"type": "draw", "source": "stock"}, 0)
    action = V21.bot_action(g, 0, "expert")
    assert action["type"] == "declare"
    g.apply(action, 0)
    assert g.last_hand["winner"] == 0


def _hide(g, seat, rng):
    """The same view for ``seat``, other hands and the stock shuffled among themselves, and
    another seed."""
    others = [s for s in range(g.players) if s != seat]
    pool = [c for s in others for c in g.hands[s]] + g.stock
    rng.shuffle(pool)
    for s in others:
        n = len(g.hands[s])
        g.hands[s], pool = sorted(pool[:n], key=lambda c: (c.suit or "", c.rank)), pool[n:]
    g.stock = pool
    g._seed = f"another-{rng.random()}"
    g.__dict__.pop("_searches", None)


def test_it_never_peeks_at_hidden_cards_or_the_seed():
    rng = random.Random(32)
    checked = 0
    for g, seat, bot in _states([f"expert-peek-{i}" for i in range(3)], ["greedy", "expert"]):
        if bot != "expert":
            continue
        before = g.view(seat)
        action = V21.bot_action(g, seat, "expert")
        trial = pickle.loads(pickle.dumps(g))
        _hide(trial, seat, rng)
        assert trial.view(seat) == before
        indian21_expert._HANDS.clear()
        assert V21.bot_action(trial, seat, "expert") == action
        checked += 1
    assert checked > 15


def test_it_is_deterministic():
    g = new(seed="expert-same")
    for _ in range(12):
        if g.over:
            break
        seat = g.to_move
        first = V21.bot_action(g, seat, "expert")
        indian21_expert._HANDS.clear()
        assert V21.bot_action(pickle.loads(pickle.dumps(g)), seat, "expert") == first
        g.apply(first, seat)


@pytest.mark.parametrize("players", [3, 6])
def test_it_plays_whole_matches_at_full_tables(players):
    record = V21.play(players, f"expert-table-{players}", ["expert"] * players, {})
    assert record.result["winner"] is not None or record.result["placements"]


def test_its_fast_search_reaches_the_same_shapes_as_the_exact_one():
    """The bot's search (wild cards that cannot stand for themselves read as printed jokers,
    wild cards spent in one order) finds a grouping with 0, 1, 2 or 3 pure sequences exactly
    when the engine's exact search does, on the hands of a real match."""
    compared = 0
    for g, seat, _ in _states(["expert-search"], ["expert"]):
        if g.phase != "discard" or compared >= 12:
            continue
        view = g.view(seat)
        me = indian21_expert._Seat(g, seat)
        fast = me.hand_of(view["hand"]).costs_without(None)
        exact = g._search(g.hands[seat])
        costs = exact.costs(*exact.mask_of(g.hands[seat]))
        assert [c < indian21_expert.INF for c in fast] == [c < indian21_expert.INF for c in costs]
        compared += 1
    assert compared >= 6
