"""Hypothesis properties of Dummy rummy (issue 17, "Tests that must exist"): every contract's
detector agrees with a brute force on small hands; no card is created or lost across cut-ins
and reshuffles; replay reproduces every state; every listed action is accepted and claims
that are not listed are refused unchanged; views do not depend on the cards they hide."""

import json
import pickle
import random
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import IllegalAction, cards
from engine.contracts import (
    CONTRACTS,
    NO_CONTRACT,
    can_lay_down,
    fits_contract,
    lay_down,
    lay_downs,
    meld_ok,
    shortfall,
)
from engine.variants.dummy import VARIANT as DUMMY

RANKS = "A3456789TJQK"  # twos are wild
PROPERTY = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def brute_force(hand, contract, same_suit):
    """Straight from the definition: disjoint groups, one per meld of the contract in order,
    each any subset of the cards left that is a valid meld of at least the size asked."""
    reqs = CONTRACTS[contract]

    def search(i, left):
        if i == len(reqs):
            return True
        kind, size = reqs[i]
        for n in range(size, len(left) + 1):
            for idx in combinations(range(len(left)), n):
                chosen = [left[j] for j in idx]
                if meld_ok(kind, chosen, same_suit=same_suit):
                    rest = [c for j, c in enumerate(left) if j not in idx]
                    if search(i + 1, rest):
                        return True
        return False

    return search(0, list(hand))


@st.composite
def small_hands(draw, contract):
    """Hands a few cards over the contract's size, from a narrow window of ranks and suits
    with some wilds, so that melds, near misses and competition for cards are common."""
    total = sum(k for _, k in CONTRACTS[contract])
    width = draw(st.integers(3, 11 if contract == 11 else 6))
    start = draw(st.integers(0, len(RANKS) - width))
    suits = draw(st.sampled_from(["S", "SH", "SHD"]))
    alphabet = [r + s for r in RANKS[start : start + width] for s in suits]
    alphabet += draw(st.sampled_from([[], ["2C"], ["2C", "JK"]]))
    texts = draw(st.lists(st.sampled_from(alphabet), min_size=total, max_size=total + 2))
    counts: dict[str, int] = {}
    kept = []
    for t in texts:  # two decks and four jokers: at most two of a card
        if counts.get(t, 0) < (4 if t == "JK" else 2):
            counts[t] = counts.get(t, 0) + 1
            kept.append(t)
    return cards.parse(kept, decks=2)


ALL_RANKS = "A23456789TJQK"
WILDS = ["2S", "2H", "2D", "2C", "JK"]


@st.composite
def near_contracts(draw, contract):
    """The contract's melds, built card by card (runs in one suit or mixed), some cards
    swapped for wilds, then perhaps one card dropped or replaced and a few extra cards: about
    half can lay the contract down, and the rest are near misses."""
    texts = []
    for kind, size in CONTRACTS[contract]:
        if kind == "set":
            rank = draw(st.sampled_from(RANKS))
            meld = [rank + draw(st.sampled_from("SHDC")) for _ in range(size)]
        else:
            lo = draw(st.integers(1, 15 - size))
            suit = draw(st.sampled_from(["S", "H", None]))
            meld = [
                ALL_RANKS[(p - 1) % 13] + (suit or draw(st.sampled_from("SHDC")))
                for p in range(lo, lo + size)
            ]
        for i in range(len(meld)):
            if draw(st.integers(0, 5)) == 0:
                meld[i] = draw(st.sampled_from(WILDS))
        texts += meld
    any_card = st.sampled_from([r + s for r in ALL_RANKS for s in "SHDC"] + ["JK"])
    change = draw(st.integers(0, 3))
    if change == 1:
        texts.pop(draw(st.integers(0, len(texts) - 1)))
    elif change == 2:
        texts[draw(st.integers(0, len(texts) - 1))] = draw(any_card)
    texts += draw(st.lists(any_card, max_size=2))
    counts: dict[str, int] = {}
    kept = []
    for t in draw(st.permutations(texts)):  # two decks and four jokers
        if counts.get(t, 0) < (4 if t == "JK" else 2):
            counts[t] = counts.get(t, 0) + 1
            kept.append(t)
    return cards.parse(kept, decks=2)


@pytest.mark.parametrize("same_suit", [False, True])
@pytest.mark.parametrize("contract", range(12))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_each_contract_detector_agrees_with_brute_force(contract, same_suit, data):
    hand = data.draw(st.one_of(small_hands(contract), near_contracts(contract)))
    expected = brute_force(hand, contract, same_suit)
    assert can_lay_down(hand, contract, same_suit=same_suit) == expected
    assert (shortfall(hand, contract, same_suit=same_suit) == 0) == expected
    groups = lay_down(hand, contract, same_suit=same_suit)
    assert (groups is not None) == expected
    lack = shortfall(hand, contract, same_suit=same_suit)
    if 0 < lack < NO_CONTRACT:  # the bots' distance: exactly the wilds the hand lacks
        spare = [c for c in cards.deck(decks=2, jokers=8) if c.rank in (0, 2) and c not in hand]
        assert len(spare) >= lack
        assert can_lay_down(hand + spare[:lack], contract, same_suit=same_suit)
        assert not can_lay_down(hand + spare[: lack - 1], contract, same_suit=same_suit)
    # Every grouping the planner bot chooses among lays the contract down from the hand's
    # own cards, and the first is lay_down's.
    every = list(lay_downs(hand, contract, same_suit=same_suit))
    assert (every[0] if every else None) == groups
    for option in every:
        assert fits_contract(option, contract, same_suit=same_suit) is None
        used = [c for g in option for c in g]
        assert len({id(c) for c in used}) == len(used) and all(c in hand for c in used)


# --------------------------------------------------------------------- bot-played matches


def every_card(g) -> list:
    return (
        [c for h in g.hands for c in h]
        + list(g.stock)
        + list(g.discard)
        + [c for m in g.table for c in m["cards"]]
    )


def key(c):
    return (c.code, c.copy)


def check_cards(g) -> None:
    held = every_card(g)
    assert len({id(c) for c in held}) == len(held), "a card is in two places"
    assert sorted(held, key=key) == sorted(cards.deck(decks=2, jokers=4), key=key)


def check_actions(g) -> None:
    """Listed actions are accepted (on a copy); every seat without a listed claim has its
    claim refused and nothing changes; a seat that may claim cannot play the mover's move."""
    before = g._snapshot()
    for seat in range(g.players):
        legal = g.legal_actions(seat)
        for action in legal[:: max(1, len(legal) // 4)]:
            twin = pickle.loads(pickle.dumps(g))
            twin.apply(action, seat)
            assert twin.seq == g.seq + 1
        if {"type": "claim"} not in legal:
            with pytest.raises(IllegalAction):
                g.apply({"type": "claim"}, seat)
        if seat != g.to_move:
            with pytest.raises(IllegalAction) as err:
                g.apply({"type": "draw", "source": "stock"}, seat)
            assert err.value.code in {"not_your_turn"}
        assert g._snapshot() == before
    mover = g.to_move
    hand = g.hands[mover]
    listed = {json.dumps(a, sort_keys=True) for a in g.legal_actions(mover)}
    for text in sorted({c.text for c in hand}):
        for action in [{"type": "discard", "card": text}] + [
            {"type": "layoff", "card": text, "meld": i} for i in range(len(g.table))
        ]:
            if json.dumps(action, sort_keys=True) in listed:
                continue
            with pytest.raises(IllegalAction):
                g.apply(action, mover)
            assert g._snapshot() == before


def check_views(g, shuffler) -> None:
    """A view does not change when the cards it may not see (other hands, the stock order)
    are dealt around differently: it cannot contain them."""
    for viewer in [*range(g.players), None]:
        view = g.view(viewer)
        json.dumps(view)
        twin = pickle.loads(pickle.dumps(g))
        others = [s for s in range(g.players) if s != viewer]
        hidden = [c for s in others for c in twin.hands[s]] + list(twin.stock)
        shuffler.shuffle(hidden)
        it = iter(hidden)
        for s in others:
            twin.hands[s] = [next(it) for _ in twin.hands[s]]
        twin.stock = [next(it) for _ in twin.stock]
        assert twin.view(viewer) == view


def play(players, seed, bots, options, probe, every, hands=2):
    """The first ``hands`` hands of a bot-played match (windows offered to the other seats'
    bots, as `Variant.play` does) with the checks; returns the game, the snapshot after every
    move and whether the stock was ever reshuffled."""
    g = DUMMY.new(players, seed, options)
    snapshots = [g._snapshot()]
    shuffler = random.Random(probe.draw(st.integers(0, 2**32)))
    reshuffled = False
    step = 0
    while not g.over and g.hand_number <= hands:
        check_cards(g)
        step += 1
        if step % every == 0:
            check_actions(g)
            check_views(g, shuffler)
        for other in g.out_of_turn_seats():
            action = DUMMY.bot_out_of_turn(g, other, bots[other])
            if action is not None:
                g.apply(action, other)
                snapshots.append(g._snapshot())
                check_cards(g)
        seat = g.to_move
        g.apply(DUMMY.bot_action(g, seat, bots[seat]), seat)
        reshuffled |= g.reshuffled
        snapshots.append(g._snapshot())
    check_cards(g)
    return g, snapshots, reshuffled


@PROPERTY
@given(players=st.integers(2, 4), seed=st.text(min_size=1, max_size=8), data=st.data())
def test_bot_matches_keep_every_card_and_replay_every_state(players, seed, data):
    bots = data.draw(
        st.lists(
            st.sampled_from(["random", "greedy", "planner"]), min_size=players, max_size=players
        )
    )
    options = {
        "max_hands": 12,
        "run_suits": data.draw(st.sampled_from(["any", "same"])),
        "cut_in_penalty": data.draw(st.integers(0, 3)),
        "max_cut_ins": data.draw(st.integers(0, 3)),
    }
    g, snapshots, _ = play(players, seed, bots, options, data, every=11)
    assert g.hand_number == 3 and g.last_hand["hand_number"] == 2
    moves = g.moves
    for k in {0, len(moves), data.draw(st.integers(0, len(moves)))}:
        assert DUMMY.replay(moves[:k], players, seed, options)._snapshot() == snapshots[k]
    twin = DUMMY.new(players, seed, options)
    for i, move in enumerate(moves):
        twin.apply(move["action"], move["seat"])
        assert twin._snapshot() == snapshots[i + 1]


def test_cards_are_kept_across_cut_ins_and_reshuffles():
    """Random bots take many cut-ins and often run the stock down: a few seeds cover both."""
    seen_reshuffle = seen_cut_in = False

    class Probe:
        def draw(self, _):
            return 7

    for i in range(3):
        g, _, reshuffled = play(4, f"keep{i}", ["random"] * 4, {}, Probe(), 97, hands=3)
        seen_reshuffle |= reshuffled
        seen_cut_in |= any(s["cut_ins"] for s in g.stats)
    assert seen_cut_in and seen_reshuffle
