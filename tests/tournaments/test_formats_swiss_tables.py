"""Swiss at multi-player tables on plain data (no database)."""

import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from competition.schedule import table_sizes
from tournaments.formats.swiss_tables import (
    TableGame,
    pair_tables,
    table_points,
    table_standings,
)

FAST = settings(max_examples=30, deadline=None)


def play(rnd, seating, rng):
    games = []
    for table in seating.tables:
        order = list(table)
        rng.shuffle(order)
        games.append(TableGame(rnd, table, tuple(order)))
    games += [TableGame(rnd, (e,), (e,)) for e in seating.sitting_out]
    return games


def meetings(games):
    met = Counter()
    for g in games:
        for a, b in combinations(g.seats, 2):
            met[frozenset((a, b))] += 1
    return met


def cost(tables, met):
    return sum(met[frozenset((a, b))] for t in tables for a, b in combinations(t, 2))


def test_points_by_place_and_for_sitting_out():
    """3-1-0-0 by default; a three-seat table pays 3-1-0; a sit-out earns the mean, 1."""
    games = [
        TableGame(1, ("a", "b", "c", "d"), ("c", "a", "b", "d")),
        TableGame(1, ("e", "f", "g"), ("g", "e", "f")),
        TableGame(1, ("h",), ("h",)),
    ]
    assert table_points(games) == {
        "c": 3,
        "a": 1,
        "b": 0,
        "d": 0,
        "g": 3,
        "e": 1,
        "f": 0,
        "h": 1.0,
    }
    assert table_points(games, (4, 2, 1, 0), bye_points=2)["h"] == 2


def test_sixteen_players_meet_nobody_twice_in_round_two():
    """Round one 1-4, 5-8, 9-12, 13-16, each won in seat order: by points the second round's
    tables would be 1 5 9 13 / 2 6 10 14 / 3 4 7 8 / 11 12 15 16, with four repeats; swaps
    between the last two tables remove them all."""
    players = list(range(1, 17))
    first = pair_tables(players)
    assert first.tables == ((1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 12), (13, 14, 15, 16))
    games = [TableGame(1, t, t) for t in first.tables]
    second = pair_tables(players, games)
    assert second.repeat_cost == 0
    assert {frozenset(t) for t in second.tables[:2]} == {
        frozenset((1, 5, 9, 13)),
        frozenset((2, 6, 10, 14)),
    }
    assert cost(second.tables, meetings(games)) == 0


def test_seats_rotate_so_nobody_always_starts():
    """Four players at one table for four rounds: each starts exactly once."""
    players = ["a", "b", "c", "d"]
    games = []
    starters = []
    for rnd in range(1, 5):
        seating = pair_tables(players, games)
        starters.append(seating.tables[0][0])
        games.append(TableGame(rnd, seating.tables[0], seating.tables[0]))
    assert sorted(starters) == players


@given(
    st.integers(min_value=0, max_value=115),
    st.integers(min_value=3, max_value=6),
    st.randoms(use_true_random=False),
)
@FAST
def test_round_properties(extra, table_size, rng):
    """Everyone seated once or sitting out; table sizes from the league's splitter; every
    score at a table is one the rank-order seating has there or next door; the repeat cost
    no higher than rank order's and no allowed swap lowers it; the first seat has started no
    more than a table-mate; sit-out counts within one of each other."""
    n = max(3, table_size - 1) + extra
    players = list(range(n))
    games = []
    for rnd in range(1, 6):
        seating = pair_tables(players, games, table_size=table_size)
        seated = [p for t in seating.tables for p in t]
        assert sorted(seated + list(seating.sitting_out)) == players
        sizes, n_out = table_sizes(n, table_size)
        assert [len(t) for t in seating.tables] == sizes
        assert len(seating.sitting_out) == n_out
        met = meetings(games)
        pts = table_points(games)
        ranked = sorted(seated, key=lambda p: (-pts.get(p, 0.0), p))
        rank_tables, start = [], 0
        for size in sizes:
            rank_tables.append(ranked[start : start + size])
            start += size
        near = [
            {pts.get(p, 0.0) for t in rank_tables[max(0, i - 1) : i + 2] for p in t}
            for i in range(len(rank_tables))
        ]
        assert all(pts.get(p, 0.0) in near[i] for i, t in enumerate(seating.tables) for p in t)
        assert seating.repeat_cost == cost(seating.tables, met)
        assert seating.repeat_cost <= cost(rank_tables, met)
        tables = [list(t) for t in seating.tables]
        for i, j in ((x, x + d) for x in range(len(tables)) for d in (1, 2)):
            for a in tables[i]:
                for b in tables[j] if j < len(tables) else ():
                    if pts.get(a, 0.0) not in near[j] or pts.get(b, 0.0) not in near[i]:
                        continue
                    swapped = [list(t) for t in tables]
                    swapped[i][swapped[i].index(a)] = b
                    swapped[j][swapped[j].index(b)] = a
                    assert cost(swapped, met) >= seating.repeat_cost
        starts = Counter(g.seats[0] for g in games if len(g.seats) > 1)
        for t in seating.tables:
            assert starts[t[0]] == min(starts[p] for p in t)
        games += play(rnd, seating, rng)
        outs = Counter(g.seats[0] for g in games if len(g.seats) == 1)
        assert max(outs.get(p, 0) for p in players) - min(outs.get(p, 0) for p in players) <= 1


def test_standings_points_then_firsts_then_opposition():
    games = [
        TableGame(1, ("a", "b", "c"), ("a", "b", "c")),
        TableGame(2, ("a", "b", "c"), ("b", "a", "c")),
    ]
    rows = table_standings(["a", "b", "c"], games)
    assert [(r.entry, r.points, r.firsts) for r in rows] == [("a", 4, 1), ("b", 4, 1), ("c", 0, 0)]
    assert rows[0].rank == rows[1].rank == 1
    assert rows[2].rank == 3


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"table_size": 7}, "between 3 and 6"),
        ({"points": (0, 1, 3)}, "must not increase"),
        ({"table_size": 6, "n": 4}, "cannot fill tables of 6 or 5"),
    ],
)
def test_validation(kwargs, message):
    n = kwargs.pop("n", 8)
    with pytest.raises(ValueError, match=message):
        pair_tables(range(n), **kwargs)


def test_large_field_round_is_fast_and_clean():
    rng = random.Random(5)
    players = list(range(1024))
    games = []
    for rnd in range(1, 4):
        seating = pair_tables(players, games)
        assert seating.repeat_cost == 0
        games += play(rnd, seating, rng)
