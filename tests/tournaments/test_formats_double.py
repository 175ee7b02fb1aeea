"""Double elimination on plain data (no database): shape, advancement, placings, rematches."""

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats.double import (
    MatchRef,
    Move,
    Slot,
    advance,
    build_double,
    ordering,
    play_out,
    walkover,
)

FAST = settings(max_examples=40, deadline=None)

entries_counts = st.integers(min_value=2, max_value=300)
rngs = st.integers(min_value=0, max_value=2**32).map(random.Random)
finals = st.sampled_from(["simple", "reset"])


def random_play(rng):
    return lambda match, pair: rng.choice(pair)


def lower_seed_wins(match, pair):
    return min(pair)


def recorder(rng, log):
    def play(match, pair):
        log.append((match.ref, frozenset(pair)))
        return rng.choice(pair)

    return play


# --- shape ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "w_rounds", "l_rounds", "matches"),
    [(2, 1, 0, 2), (4, 2, 2, 6), (8, 3, 4, 14), (16, 4, 6, 30), (5, 3, 4, 14)],
)
def test_shape_of_full_brackets(n, w_rounds, l_rounds, matches):
    """A bracket of S = 2^k slots: S - 1 winners' matches, S - 2 losers' matches, the final."""
    bracket = build_double(n, grand_final="simple")
    assert len(bracket.winners) == w_rounds
    assert len(bracket.losers) == l_rounds
    assert len(bracket.matches()) == matches


def test_winners_bracket_reuses_the_knock_out_seeding():
    bracket = build_double(8)
    assert [m.seeds for m in bracket.winners[0]] == [(1, 8), (4, 5), (2, 7), (3, 6)]


def test_orderings_match_their_names():
    assert ordering("natural", 4) == [0, 1, 2, 3]
    assert ordering("reverse", 4) == [3, 2, 1, 0]
    assert ordering("half_shift", 4) == [2, 3, 0, 1]
    assert ordering("reverse_half_shift", 4) == [1, 0, 3, 2]


def test_eight_entries_worked_example():
    """Winners' round 1 losers pair in natural order; round 2 losers are half-shifted."""
    b = build_double(8)
    assert [m.loser_to for m in b.winners[0]] == [
        Slot(MatchRef("L", 1, 0), 0),
        Slot(MatchRef("L", 1, 0), 1),
        Slot(MatchRef("L", 1, 1), 0),
        Slot(MatchRef("L", 1, 1), 1),
    ]
    # Loser of W2 match 0 (from the 1/8/4/5 quarter) meets the survivor of the other quarter.
    assert [m.loser_to for m in b.winners[1]] == [
        Slot(MatchRef("L", 2, 1), 1),
        Slot(MatchRef("L", 2, 0), 1),
    ]
    assert b.winners[2][0].loser_to == Slot(MatchRef("L", 4, 0), 1)
    assert b.losers[-1][0].winner_to == Slot(MatchRef("F", 1, 0), 1)
    assert b.winners[-1][0].winner_to == Slot(MatchRef("F", 1, 0), 0)


@given(entries_counts, finals)
@FAST
def test_every_seat_is_fed_exactly_once(n, grand_final):
    """Every later seat has exactly one source; every match's feeders send to it."""
    bracket = build_double(n, grand_final=grand_final)
    sources = Counter()
    for m in bracket.matches():
        for slot in (m.winner_to, m.loser_to):
            if slot is not None:
                sources[slot] += 1
                assert m.ref in bracket.match(slot.match).feeders
    assert all(c == 1 for c in sources.values())
    round_one = {(m.ref, seat) for m in bracket.winners[0] for seat in (0, 1)}
    everything = {(m.ref, seat) for m in bracket.matches() for seat in (0, 1) if not m.reset}
    assert {tuple(s) for s in sources} == everything - round_one
    seeds = [s for m in bracket.winners[0] for s in m.seeds if s is not None]
    assert sorted(seeds) == list(range(1, n + 1))


# --- playing it out ---------------------------------------------------------------------------


@given(entries_counts, finals, rngs)
@FAST
def test_played_out_properties(n, grand_final, rng):
    """2n - 2 matches (2n - 1 when the reset is played); nobody out before two losses; every
    entry placed once in each bracket it reaches; placings are a competition ranking."""
    bracket = build_double(n, grand_final=grand_final)
    log = []
    outcome = play_out(bracket, list(range(1, n + 1)), recorder(rng, log))
    reset_played = any(p.ref.side == "F" and p.ref.round == 2 for p in outcome.played)
    assert outcome.match_count == 2 * n - 2 + reset_played
    champion = outcome.champion
    assert outcome.losses[champion] <= 1
    runner_up = next(e for e, p in outcome.places.items() if p == 2)
    for e in range(1, n + 1):
        if e == runner_up and grand_final == "simple" and outcome.losses[champion] == 1:
            # The one exception a simple grand final makes: the winners' champion, beaten once.
            assert outcome.losses[e] == 1
        elif e != champion:
            assert outcome.losses[e] == 2
    if grand_final == "simple" or not reset_played:
        assert outcome.match_count == 2 * n - 2
    # Once per bracket: at most one match per round and side for everybody.
    seen = Counter()
    for p in outcome.played:
        for e in p.seats:
            if e is not None:
                seen[(e, p.ref.side, p.ref.round)] += 1
    assert max(seen.values()) == 1
    losers_side = Counter(e for (e, side, _r) in seen if side == "L")
    entered_losers = {e for p in outcome.played if p.ref.side == "L" for e in p.seats if e}
    assert all(losers_side[e] >= 1 for e in entered_losers)
    places = outcome.places
    assert sorted(places) == list(range(1, n + 1))
    assert places[champion] == 1
    ranked = sorted(places.values())
    assert all(ranked[i] in (ranked[i - 1], i + 1) for i in range(1, n))


def test_placings_of_a_full_bracket_of_sixteen():
    """1, 2, 3, 4, then 5-6, 7-8, 9-12, 13-16 share a place (the usual double-elim table)."""
    outcome = play_out(build_double(16), list(range(1, 17)), lower_seed_wins)
    assert outcome.champion == 1
    assert sorted(Counter(outcome.places.values()).items()) == [
        (1, 1),
        (2, 1),
        (3, 1),
        (4, 1),
        (5, 2),
        (7, 2),
        (9, 4),
        (13, 4),
    ]


@given(st.integers(min_value=3, max_value=8), finals, rngs)
@FAST
def test_no_rematch_in_the_first_losers_rounds(k, grand_final, rng):
    """Losers' rounds 1-2 never hold a rematch (from 8 slots), nor round 3 from 16 slots, nor
    round 4 from 32."""
    n = 1 << k
    bracket = build_double(n, grand_final=grand_final)
    log = []
    play_out(bracket, list(range(1, n + 1)), recorder(rng, log))
    met = set()
    for ref, pair in log:
        if ref.side == "L" and ref.round <= min(k - 1, 4):
            assert pair not in met, f"rematch at {ref}"
        met.add(pair)


def test_grand_final_reset_is_played_only_when_the_losers_champion_wins():
    bracket = build_double(4)
    f1 = MatchRef("F", 1, 0)
    assert advance(bracket, f1, ("w", "l"), "w") == ()
    f2 = MatchRef("F", 2, 0)
    assert advance(bracket, f1, ("w", "l"), "l") == (
        Move("w", Slot(f2, 0)),
        Move("l", Slot(f2, 1)),
    )
    simple = build_double(4, grand_final="simple")
    assert advance(simple, f1, ("w", "l"), "l") == ()
    # Losers' champion wins the reset too.
    outcome = play_out(
        bracket, [1, 2, 3, 4], lambda m, pair: max(pair) if m.ref.side == "F" else min(pair)
    )
    assert outcome.champion == 2  # beat seed 1 in the winners' final's rematch, twice
    assert outcome.places[1] == 2
    assert outcome.match_count == 2 * 4 - 1


# --- byes, no-shows, disqualifications ------------------------------------------------------


def test_byes_are_not_matches_and_pass_through_both_brackets():
    """Five entries: three byes in winners' round 1, so the losers' bracket has empty seats."""
    bracket = build_double(5)
    outcome = play_out(bracket, list(range(1, 6)), lower_seed_wins)
    assert outcome.champion == 1
    assert outcome.match_count == 2 * 5 - 2
    assert [p.contested for p in outcome.played if p.ref.side == "W" and p.ref.round == 1] == [
        False,
        True,
        False,
        False,
    ]


def test_walkover_helper():
    bracket = build_double(8)
    ref = bracket.winners[0][0].ref
    assert walkover(bracket, ref, []) == ()
    assert walkover(bracket, ref, ["a"]) == ("a",)
    assert walkover(bracket, ref, ["a", "b"]) is None
    with pytest.raises(ValueError, match="two different players"):
        walkover(bracket, ref, ["a", "a"])


def test_a_no_show_takes_a_loss_and_drops_to_the_losers_bracket():
    bracket = build_double(8)
    first = bracket.winners[0][0]  # seeds 1 and 8
    outcome = play_out(
        bracket,
        list(range(1, 9)),
        lower_seed_wins,
        shows=lambda m, e: not (m.ref == first.ref and e == 1),
    )
    assert outcome.losses[1] == 2 or outcome.champion == 1
    assert any(p.ref.side == "L" and 1 in p.seats for p in outcome.played)


def test_disqualified_player_leaves_both_brackets():
    bracket = build_double(8)
    outcome = play_out(
        bracket,
        list(range(1, 9)),
        lower_seed_wins,
        disqualified=lambda m, e: e == 8,
    )
    assert not any(p.ref.side == "L" and 8 in p.seats for p in outcome.played)
    # Seed 8's losers' opponent goes through unopposed: one match fewer than 2n - 2.
    assert outcome.match_count == 2 * 8 - 3
    assert outcome.places[8] == 7  # placed with the losers of losers' round 1 (7-8)
    assert outcome.champion == 1


def test_advance_refuses_a_stranger():
    bracket = build_double(4)
    with pytest.raises(ValueError, match="not seated"):
        advance(bracket, bracket.winners[0][0].ref, ("a", "b"), "c")


@pytest.mark.parametrize("bad", [0, 1, "8"])
def test_validation(bad):
    with pytest.raises(ValueError, match="at least 2 entries"):
        build_double(bad)
    with pytest.raises(ValueError, match="grand_final"):
        build_double(4, grand_final="twice")


@given(entries_counts, finals, rngs)
@FAST
def test_no_shows_and_disqualifications_keep_the_bracket_whole(n, grand_final, rng):
    """Random no-shows and disqualifications: everyone is still placed exactly once, nobody
    plays twice in a round, a disqualified player never plays again, and nobody is out
    before two losses unless disqualified, absent with their opponent, or beaten once in a
    simple grand final."""
    bracket = build_double(n, grand_final=grand_final)
    absent = {(e, r) for e in range(1, n + 1) for r in range(1, 20) if rng.random() < 0.05}
    banned = {e for e in range(1, n + 1) if rng.random() < 0.05}
    out_at = {}

    def shows(match, e):
        return (e, match.ref.round) not in absent

    def disqualified(match, e):
        if e in banned:
            out_at.setdefault(e, match.ref)
            return True
        return False

    outcome = play_out(bracket, list(range(1, n + 1)), random_play(rng), shows, disqualified)
    assert sorted(outcome.places) == list(range(1, n + 1))
    seen = Counter(
        (e, p.ref.side, p.ref.round) for p in outcome.played for e in p.seats if e is not None
    )
    assert max(seen.values()) == 1
    order = {m.ref: i for i, m in enumerate(bracket.matches())}
    for e, ref in out_at.items():
        assert not any(e in p.seats and order[p.ref] > order[ref] for p in outcome.played)
    champion = outcome.champion
    # A match neither player turned up for sends nobody on: both leave the event there.
    both_absent = {e for p in outcome.played if p.winner is None for e in p.seats if e}
    for e in range(1, n + 1):
        if e not in (champion, *banned, *both_absent) and outcome.places[e] != 2:
            assert outcome.losses[e] >= 2
