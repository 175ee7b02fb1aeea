"""Knock-out brackets: seeding, shape and advancement, on plain data (no database)."""

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.bracket import (
    Move,
    Slot,
    TableRef,
    advance,
    build_bracket,
    first_round,
    play_out,
    walkover,
)

FAST = settings(max_examples=60, deadline=None)

entries_counts = st.integers(min_value=2, max_value=1024)
seeds = st.integers(min_value=0, max_value=2**32).map(random.Random)


@st.composite
def multi_shapes(draw):
    table_size = draw(st.integers(min_value=3, max_value=6))
    adv = draw(st.integers(min_value=1, max_value=table_size - 1))
    return draw(entries_counts), table_size, adv


@st.composite
def any_shapes(draw):
    table_size = draw(st.integers(min_value=2, max_value=6))
    adv = draw(st.integers(min_value=1, max_value=table_size - 1))
    return draw(entries_counts), table_size, adv


def ceil_log(n: int, base: int) -> int:
    """Smallest j with base**j >= n, in integers (floats round badly at exact powers)."""
    j = 0
    while base**j < n:
        j += 1
    return j


def random_play(rng: random.Random):
    def play(table, present):
        order = list(present)
        rng.shuffle(order)
        return order

    return play


def path(bracket, ref: TableRef) -> list[TableRef]:
    """The tables a tree bracket's winners from ``ref`` pass through, ``ref`` first."""
    out = [ref]
    while bracket.table(out[-1]).feeds_into:
        out.append(bracket.table(out[-1]).feeds_into[0].table)
    return out


def meeting_round(bracket, a: int, b: int) -> int:
    """The first round in which seeds a and b can sit at the same table."""
    where = {s: t.ref for t in bracket.rounds[0] for s in t.seeds}
    pa, pb = path(bracket, where[a]), path(bracket, where[b])
    return next(x.round for x, y in zip(pa, pb, strict=True) if x == y)


# --- validation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((1, 2, 1), "at least 2 entries"),
        ((0, 2, 1), "at least 2 entries"),
        ((8, 1, 1), "table_size must be between 2 and 6"),
        ((8, 7, 1), "table_size must be between 2 and 6"),
        ((8, 4, 0), "advance must be between 1 and table_size - 1"),
        ((8, 4, 4), "advance must be between 1 and table_size - 1"),
        ((8, 2, 2), "advance must be between 1 and table_size - 1"),
    ],
)
def test_invalid_shapes_are_refused(args, message):
    with pytest.raises(ValueError, match=message):
        first_round(*args)
    with pytest.raises(ValueError, match=message):
        build_bracket(*args)


def test_third_place_only_for_head_to_head():
    with pytest.raises(ValueError, match="only for head-to-head"):
        build_bracket(16, 4, 1, third_place=True)


def test_unknown_table_is_refused():
    bracket = build_bracket(4)
    with pytest.raises(ValueError, match=r"no table \(5, 0\)"):
        advance(bracket, TableRef(5, 0), ["a"])


def test_a_player_listed_twice_or_too_many_players_is_refused():
    bracket = build_bracket(8)
    with pytest.raises(ValueError, match="listed twice"):
        advance(bracket, TableRef(1, 0), ["a", "a"])
    with pytest.raises(ValueError, match="seats 2 players, got 3"):
        walkover(bracket, TableRef(1, 0), ["a", "b", "c"])


def test_play_must_rank_only_players_at_the_table():
    bracket = build_bracket(4)
    with pytest.raises(ValueError, match="did not play"):
        play_out(bracket, list("abcd"), lambda table, present: ["z"])


# --- head-to-head seeding -------------------------------------------------------------------


def test_standard_seeding_examples():
    assert first_round(2) == ((1, 2),)
    assert first_round(4) == ((1, 4), (2, 3))
    assert first_round(8) == ((1, 8), (4, 5), (2, 7), (3, 6))
    assert first_round(16) == (
        (1, 16), (8, 9), (4, 13), (5, 12), (2, 15), (7, 10), (3, 14), (6, 11),
    )  # fmt: skip


def test_byes_fall_to_the_top_seeds():
    assert first_round(3) == ((1, None), (2, 3))
    assert first_round(5) == ((1, None), (4, 5), (2, None), (3, None))
    assert first_round(6) == ((1, None), (4, 5), (2, None), (3, 6))


@FAST
@given(entries_counts)
def test_head_to_head_first_round(n):
    tables = first_round(n)
    size = 1 << (n - 1).bit_length()
    assert len(tables) == size // 2
    seeds = [s for t in tables for s in t if s is not None]
    assert sorted(seeds) == list(range(1, n + 1))
    byes = sorted(t[0] for t in tables if t[1] is None)
    assert byes == list(range(1, size - n + 1))
    for top, other in tables:
        partner = size + 1 - top
        assert other == (partner if partner <= n else None)


@FAST
@given(st.integers(min_value=1, max_value=10))
def test_power_of_two_pairs_sum_to_size_plus_one(k):
    assert all(a + b == 2**k + 1 for a, b in first_round(2**k))


@FAST
@given(entries_counts)
def test_head_to_head_rounds_and_meetings(n):
    bracket = build_bracket(n)
    k = ceil_log(n, 2)
    assert bracket.n_rounds == k
    assert [len(r) for r in bracket.rounds] == [2 ** (k - r) for r in range(1, k + 1)]
    assert meeting_round(bracket, 1, 2) == k
    rng = random.Random(n)
    for _ in range(30):
        a, b = sorted(rng.sample(range(1, n + 1), 2))
        # seeds 1..2^j sit in distinct sub-brackets, so they meet in the last j rounds at most
        assert meeting_round(bracket, a, b) >= k - ceil_log(b, 2) + 1


def test_top_four_meet_from_the_semi_finals_on():
    bracket = build_bracket(64)
    for a in range(1, 5):
        for b in range(a + 1, 5):
            assert meeting_round(bracket, a, b) >= bracket.n_rounds - 1


# --- multi-player seeding and shape ---------------------------------------------------------


def test_multi_player_examples():
    assert first_round(11, 4, 1) == ((1, 6, 7, None), (2, 5, 8, 11), (3, 4, 9, 10))
    assert first_round(9, 3, 1) == ((1, 6, 7), (2, 5, 8), (3, 4, 9))
    assert first_round(4, 6, 3) == ((1, 2, 3, 4, None, None),)


def test_a_round_that_would_pass_everyone_fills_tables_instead():
    # Balanced 2 + 2 with top 2 of 3 going through would eliminate nobody.
    assert first_round(4, 3, 2) == ((1, None, None), (2, 3, 4))
    bracket = build_bracket(4, 3, 2)
    assert bracket.n_rounds == 2


@FAST
@given(multi_shapes())
def test_multi_player_first_round(shape):
    n, size, adv = shape
    tables = first_round(n, size, adv)
    assert all(len(t) == size for t in tables)
    seeds = [s for t in tables for s in t if s is not None]
    assert sorted(seeds) == list(range(1, n + 1))
    counts = [sum(s is not None for s in t) for t in tables]
    assert len(tables) == math.ceil(n / size)
    assert all(1 <= c <= size for c in counts)
    balanced = max(counts) - min(counts) <= 1
    if 2 * adv <= size:
        assert balanced
    else:  # balanced, unless that passes everyone: then full tables and one remainder
        assert balanced or sorted(counts)[1:] == [size] * (len(counts) - 1)
    # tops of the tables are seeds 1..t, each table's seeds ascending, empty seats last
    assert sorted(t[0] for t in tables) == list(range(1, len(tables) + 1))
    for t in tables:
        filled = [s for s in t if s is not None]
        assert list(t) == filled + [None] * (size - len(filled))
        assert filled == sorted(filled)
    # empty seats belong to the top seeds' tables
    by_top = sorted(zip((t[0] for t in tables), counts, strict=True))
    assert [c for _, c in by_top] == sorted(counts)
    if len(tables) > 1:
        assert any(c > adv for c in counts), "round one must eliminate somebody"


@FAST
@given(any_shapes(), st.booleans())
def test_every_bracket_is_well_formed(shape, third):
    n, size, adv = shape
    bracket = build_bracket(n, size, adv, third_place=third and size == 2)
    assert len(bracket.rounds[-1]) == (2 if bracket.third_place else 1)
    final = bracket.final
    assert final.feeds_into == () and not final.third_place
    for rnd in bracket.rounds:
        for table in rnd:
            assert 1 <= table.capacity <= size
            assert len(table.seats) == size
            if table.ref.round > 1:
                assert table.seats == (None,) * size
                incoming = [
                    s.seat
                    for ref in table.feeders
                    for s in bracket.table(ref).feeds_into
                    if s.table == table.ref
                ]
                assert sorted(incoming) == list(range(table.capacity))
            else:
                assert table.capacity == len(table.seeds)
            if table.ref != final.ref and not table.third_place:
                main = [s for s in table.feeds_into if not bracket.table(s.table).third_place]
                assert len(main) == min(adv, table.capacity)
                assert all(s.table.round == table.ref.round + 1 for s in table.feeds_into)
                assert {s.table for s in main} <= {t.ref for t in bracket.rounds[table.ref.round]}
    # every round but the last eliminates somebody
    for rnd in bracket.rounds[:-1]:
        assert any(t.capacity > adv for t in rnd)


@FAST
@given(multi_shapes())
def test_multi_player_round_count(shape):
    n, size, adv = shape
    bracket = build_bracket(n, size, adv)
    if 2 * adv <= size:
        first = math.ceil(n / size)
        assert bracket.n_rounds == 1 + ceil_log(first, size // adv)
        if adv == 1:
            assert bracket.n_rounds == ceil_log(n, size)
        if first > 1:
            assert meeting_round(bracket, 1, 2) == bracket.n_rounds
        # a tree: every table's players go on to one table
        for table in bracket.tables():
            assert len({s.table for s in table.feeds_into}) <= 1


def test_tree_groups_whole_tables_between_advance_plus_one_and_table_size():
    bracket = build_bracket(1024, 4, 2)
    for rnd in bracket.rounds[1:]:
        for table in rnd:
            assert len(table.feeders) in (1, 2)
            assert table.capacity == 2 * len(table.feeders)


# --- playing it out -------------------------------------------------------------------------


@FAST
@given(any_shapes(), seeds)
def test_random_results_always_yield_one_champion(shape, rng):
    n, size, adv = shape
    bracket = build_bracket(n, size, adv)
    entries = [f"p{i}" for i in range(1, n + 1)]
    outcome = play_out(bracket, entries, random_play(rng))
    assert outcome.champion in entries
    assert [e for e, p in outcome.places.items() if p == 1] == [outcome.champion]
    assert set(outcome.places) == set(entries)
    for rnd in bracket.rounds:
        at_round = [e for t in rnd for e in outcome.seated[t.ref]]
        assert len(at_round) == len(set(at_round)), "nobody sits at two tables of a round"
    for table in bracket.tables():
        seated, ranking = outcome.seated[table.ref], outcome.rankings[table.ref]
        assert len(seated) <= table.capacity
        assert sorted(ranking) == sorted(seated), "everyone showed, everyone is ranked"
    assert outcome.reached[outcome.champion] == bracket.n_rounds


@FAST
@given(entries_counts, seeds)
def test_head_to_head_seats_fill_exactly(n, rng):
    bracket = build_bracket(n)
    outcome = play_out(bracket, list(range(n)), random_play(rng))
    for table in bracket.tables():
        assert len(outcome.seated[table.ref]) == table.capacity
    played = [t for t in bracket.tables() if len(outcome.seated[t.ref]) == 2]
    assert len(played) == n - 1, "a knock-out of n players has n - 1 matches"


@FAST
@given(any_shapes(), seeds, st.floats(0.0, 0.6))
def test_no_shows_never_advance_and_at_most_one_champion(shape, rng, absence):
    n, size, adv = shape
    bracket = build_bracket(n, size, adv)
    entries = list(range(1, n + 1))
    absent = set()

    def shows(table, entry):
        if rng.random() < absence:
            absent.add((table.ref, entry))
        return (table.ref, entry) not in absent

    outcome = play_out(bracket, entries, random_play(rng), shows=shows)
    for table in bracket.tables():
        ranking = outcome.rankings[table.ref]
        assert not any((table.ref, e) in absent for e in ranking)
        if len(ranking) <= (adv if table.feeds_into else 1):
            continue
        assert len(ranking) == len(
            [e for e in outcome.seated[table.ref] if (table.ref, e) not in absent]
        )
    if outcome.champion is not None:
        assert outcome.places[outcome.champion] == 1
        assert (bracket.final.ref, outcome.champion) not in absent


def test_byes_pass_without_play():
    calls = []

    def play(table, present):
        calls.append(present)
        return sorted(present)

    outcome = play_out(build_bracket(5), [1, 2, 3, 4, 5], play)
    assert calls[0] == (4, 5)
    assert all(len(p) == 2 for p in calls)
    assert len(calls) == 4
    assert outcome.champion == 1


# --- walkovers, no-shows, withdrawals and disqualifications at every stage -----------------


def lower_seed_wins(table, present):
    return sorted(present)


@pytest.mark.parametrize("stage", [1, 2, 3, 4])
def test_walkover_at_every_stage(stage):
    """Seed 1 does not show up at round ``stage``: the opponent goes through unplayed."""
    bracket = build_bracket(16)
    played = []

    def play(table, present):
        played.append((table.ref.round, present))
        return sorted(present)

    outcome = play_out(
        bracket, list(range(1, 17)), play, shows=lambda t, e: not (e == 1 and t.ref.round == stage)
    )
    assert not any(1 in p for r, p in played if r >= stage)
    assert outcome.reached[1] == stage
    assert outcome.champion == 2
    opponent = next(e for e in outcome.seated[path(bracket, TableRef(1, 0))[stage - 1]] if e != 1)
    assert outcome.rankings[path(bracket, TableRef(1, 0))[stage - 1]] == (opponent,)


@pytest.mark.parametrize("stage", [1, 2, 3])
def test_double_no_show_at_every_stage(stage):
    """Nobody at seed 1's table shows up: nobody advances and the next table seats one."""
    bracket = build_bracket(16)
    tables = path(bracket, TableRef(1, 0))
    gone = tables[stage - 1]
    outcome = play_out(
        bracket, list(range(1, 17)), lower_seed_wins, shows=lambda t, e: t.ref != gone
    )
    assert outcome.rankings[gone] == ()
    after = tables[stage]
    assert len(outcome.seated[after]) == 1
    assert outcome.rankings[after] == outcome.seated[after]  # a walkover, not a match
    assert outcome.champion == 2


def test_double_no_show_in_the_final_leaves_no_champion():
    bracket = build_bracket(8)
    outcome = play_out(
        bracket, list(range(1, 9)), lower_seed_wins, shows=lambda t, e: t.ref != bracket.final.ref
    )
    assert outcome.champion is None
    assert outcome.rankings[bracket.final.ref] == ()
    assert outcome.places[1] == outcome.places[2] == 1


@pytest.mark.parametrize("stage", [1, 2, 3, 4])
def test_withdrawal_at_every_stage(stage):
    """Seed 3 withdraws before round ``stage``: absent from then on, never advancing."""
    bracket = build_bracket(16)
    outcome = play_out(
        bracket,
        list(range(1, 17)),
        lambda t, p: sorted(p, key=lambda e: (e != 3, e)),  # 3 would win every match
        shows=lambda t, e: not (e == 3 and t.ref.round >= stage),
    )
    assert outcome.reached[3] == stage
    assert outcome.champion != 3


@pytest.mark.parametrize("stage", [1, 2, 3, 4])
def test_disqualification_forfeits_the_current_match(stage):
    bracket = build_bracket(16)

    def play(table, present):
        ranked = sorted(present)
        if table.ref.round == stage and 1 in ranked:
            ranked.remove(1)  # disqualified mid-match
        return ranked

    outcome = play_out(bracket, list(range(1, 17)), play)
    assert outcome.reached[1] == stage
    assert 1 not in outcome.rankings[path(bracket, TableRef(1, 0))[stage - 1]]
    assert outcome.champion == 2


def test_only_one_player_shows_and_walks_through_every_round():
    bracket = build_bracket(16)

    def play(table, present):
        raise AssertionError("no table should be played")

    outcome = play_out(bracket, list(range(1, 17)), play, shows=lambda t, e: e == 7)
    assert outcome.champion == 7
    assert all(len(r) <= 1 for r in outcome.rankings.values())


@pytest.mark.parametrize("stage", [1, 2, 3, 4])
def test_multi_player_no_shows_at_every_stage(stage):
    """Top 2 of 4 advance; at round ``stage`` a table is thinned to one, then emptied."""
    bracket = build_bracket(64, 4, 2)
    assert bracket.n_rounds == 5
    target = path(bracket, TableRef(1, 0))[stage - 1]
    for keep in (1, 0):

        def shows(t, e, keep=keep):
            return t.ref != target or (e == 1 and keep == 1)

        outcome = play_out(bracket, list(range(1, 65)), lower_seed_wins, shows=shows)
        assert outcome.rankings[target] == ((1,) if keep else ())
        nxt = path(bracket, target)[1]
        assert len(outcome.seated[nxt]) == 2 + keep
        assert outcome.champion == (1 if keep else 2)


def test_multi_player_final_ranks_everybody_in_placings():
    bracket = build_bracket(16, 4, 1)
    outcome = play_out(bracket, list(range(1, 17)), lower_seed_wins)
    assert outcome.rankings[bracket.final.ref] == (1, 2, 3, 4)
    assert [outcome.places[e] for e in (1, 2, 3, 4)] == [1, 2, 3, 4]
    assert {outcome.places[e] for e in range(5, 17)} == {5}


# --- third-place match ----------------------------------------------------------------------


def test_third_place_match_takes_the_semi_final_losers():
    bracket = build_bracket(8, third_place=True)
    third = bracket.table(TableRef(3, 1))
    assert third.third_place
    assert third.feeders == bracket.final.feeders
    semi = bracket.rounds[1][0]
    assert advance(bracket, semi.ref, ["a", "b"]) == (
        Move("a", Slot(bracket.final.ref, 0)),
        Move("b", Slot(third.ref, 0)),
    )
    outcome = play_out(bracket, list(range(1, 9)), lower_seed_wins)
    assert outcome.rankings[third.ref] == (3, 4)
    assert [outcome.places[e] for e in (1, 2, 3, 4)] == [1, 2, 3, 4]
    assert {outcome.places[e] for e in range(5, 9)} == {5}


def test_third_place_with_a_semi_final_walkover():
    bracket = build_bracket(8, third_place=True)
    semi = bracket.rounds[1][1]  # seeds 2 and 3 meet here
    outcome = play_out(
        bracket,
        list(range(1, 9)),
        lower_seed_wins,
        shows=lambda t, e: not (t.ref == semi.ref and e == 3),
    )
    third = TableRef(3, 1)
    assert outcome.rankings[third] == (4,)  # alone, wins the third place unplayed
    assert outcome.places[4] == 3
    assert outcome.places[3] == 4  # forfeited the semi-final, so no third-place match


def test_without_third_place_semi_final_losers_share_third():
    outcome = play_out(build_bracket(8), list(range(1, 9)), lower_seed_wins)
    assert outcome.places[3] == outcome.places[4] == 3


def test_two_entries_have_no_third_place_table():
    bracket = build_bracket(2, third_place=True)
    assert not bracket.third_place
    assert bracket.n_rounds == 1


# --- the per-table helpers the services call ------------------------------------------------


def test_walkover_thresholds():
    bracket = build_bracket(16, 4, 2)
    table = bracket.rounds[0][0].ref
    assert walkover(bracket, table, []) == ()
    assert walkover(bracket, table, ["a"]) == ("a",)
    assert walkover(bracket, table, ["a", "b"]) == ("a", "b")
    assert walkover(bracket, table, ["a", "b", "c"]) is None
    final = bracket.final.ref
    assert walkover(bracket, final, ["a"]) == ("a",)
    assert walkover(bracket, final, ["a", "b"]) is None


def test_advance_sends_the_top_k_to_fixed_seats():
    bracket = build_bracket(16, 4, 2)
    first, second = bracket.rounds[0][0], bracket.rounds[0][1]
    nxt = first.feeds_into[0].table
    assert advance(bracket, first.ref, ["d", "c", "b", "a"]) == (
        Move("d", Slot(nxt, 0)),
        Move("c", Slot(nxt, 1)),
    )
    assert advance(bracket, second.ref, ["x"]) == (Move("x", Slot(nxt, 2)),)
    assert advance(bracket, second.ref, []) == ()
    assert advance(bracket, bracket.final.ref, ["a", "b", "c", "d"]) == ()
