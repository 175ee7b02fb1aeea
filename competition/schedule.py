"""Season fixtures on plain data: round-robin pairings and multi-player table rotations.

The season service loads a division's players, calls one of these and bulk-creates the
fixtures it returns; keeping the schedule pure lets its fairness be property-tested without a
database. Both functions are deterministic for a given input, so a season can be rebuilt.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from itertools import combinations
from typing import NamedTuple


class Pairing(NamedTuple):
    home: Hashable
    away: Hashable


class Round(NamedTuple):
    """One round of a round-robin: its 1-based number, its matches and who has the bye."""

    number: int
    pairings: tuple[Pairing, ...]
    bye: Hashable | None


class RotationRound(NamedTuple):
    """One round of a multi-player rotation: its tables and who sits it out."""

    number: int
    tables: tuple[tuple[Hashable, ...], ...]
    sitting_out: tuple[Hashable, ...]


def _check_players(players: Sequence[Hashable], least: int) -> list[Hashable]:
    players = list(players)
    if len(players) < least:
        raise ValueError(f"a schedule needs at least {least} players, got {len(players)}")
    if len(set(players)) != len(players):
        raise ValueError("a player is listed twice")
    if None in players:
        raise ValueError("None cannot be a player: it marks the bye")
    return players


def round_robin(players: Sequence[Hashable], *, double: bool = False) -> list[Round]:
    """Every player meets every other once (twice with ``double``, home and away swapped).

    The circle method (Berger tables): the first player stays put while the others rotate one
    place a round. With an odd count a phantom joins, and whoever meets it has the bye, so each
    player has exactly one bye per cycle. The first player alternates home and away; the
    others are home while on the top row, which keeps everyone's home and away counts within
    one of each other over a cycle.
    """
    circle: list[Hashable | None] = _check_players(players, 2)
    if len(circle) % 2:
        circle.append(None)
    n = len(circle)
    cycle: list[Round] = []
    for r in range(n - 1):
        pairings, bye = [], None
        for i in range(n // 2):
            top, bottom = circle[i], circle[n - 1 - i]
            if top is None or bottom is None:
                bye = bottom if top is None else top
                continue
            if i == 0 and r % 2:
                top, bottom = bottom, top
            pairings.append(Pairing(top, bottom))
        cycle.append(Round(r + 1, tuple(pairings), bye))
        circle = [circle[0], circle[-1], *circle[1:-1]]
    if not double:
        return cycle
    return_legs = [
        Round(
            len(cycle) + rnd.number, tuple(Pairing(p.away, p.home) for p in rnd.pairings), rnd.bye
        )
        for rnd in cycle
    ]
    return cycle + return_legs


def table_sizes(n_players: int, table_size: int) -> tuple[list[int], int]:
    """Balanced table sizes for a round and how many must sit out.

    Tables seat ``table_size`` or, when the count does not divide, one fewer (never under 2);
    players sit out only when no such split exists (5 players at 4-seat tables: 4 play).
    """
    smallest = max(2, table_size - 1)
    for sit_out in range(n_players):
        playing = n_players - sit_out
        count = -(-playing // table_size)
        if playing >= count * smallest:
            q, r = divmod(playing, count)
            return [q + 1] * r + [q] * (count - r), sit_out
    raise ValueError(f"{n_players} players cannot fill a table of {table_size}")


# Seatings tried per round; the swap search alone can stall with a pair never meeting.
RESTARTS = 6


def multi_table_rotation(
    players: Sequence[Hashable], table_size: int, rounds: int, seed: int | str = 0
) -> list[RotationRound]:
    """Rounds of 3-6 seat tables that spread opponents evenly, deterministic for ``seed``.

    Each round, those who have sat out least sit out (when the count forces it), then players
    are seated one by one at the open table where they have met the others least, and finally
    pairs of players swap tables while that lowers the sum of squared meeting counts. Squares
    make a third meeting cost more than two first meetings, which evens the counts out. Swaps
    stop at a local optimum, so each round keeps the best of a few seatings from different
    orders.
    """
    if not 3 <= table_size <= 6:
        raise ValueError(f"table_size must be between 3 and 6, got {table_size!r}")
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds!r}")
    players = _check_players(players, table_size)
    n = len(players)
    rng = random.Random(f"{seed}:{n}:{table_size}")
    met = [[0] * n for _ in range(n)]
    sat_out = [0] * n
    sizes, n_out = table_sizes(n, table_size)
    schedule = []
    for number in range(1, rounds + 1):
        order = list(range(n))
        rng.shuffle(order)
        order.sort(key=lambda p: sat_out[p])  # stable: ties stay shuffled
        out = sorted(order[:n_out]) if n_out else []
        for p in out:
            sat_out[p] += 1
        seated = order[n_out:]
        candidates = []
        for _ in range(RESTARTS):
            tables = _seat(seated, sizes, met)
            _improve(tables, met)
            candidates.append((_round_cost(tables, met), tables))
            rng.shuffle(seated)
        tables = min(candidates, key=lambda c: c[0])[1]
        for table in tables:
            for a, b in combinations(table, 2):
                met[a][b] += 1
                met[b][a] += 1
        schedule.append(
            RotationRound(
                number,
                tuple(tuple(players[p] for p in sorted(t)) for t in tables),
                tuple(players[p] for p in out),
            )
        )
    return schedule


def _round_cost(tables: list[list[int]], met: list[list[int]]) -> int:
    return sum((met[a][b] + 1) ** 2 for table in tables for a, b in combinations(table, 2))


def _seat(order: list[int], sizes: list[int], met: list[list[int]]) -> list[list[int]]:
    """Greedy: each player joins the open table where they have met its players least."""
    tables: list[list[int]] = [[] for _ in sizes]
    for p in order:
        open_tables = [i for i, t in enumerate(tables) if len(t) < sizes[i]]
        best = min(open_tables, key=lambda i: (sum(met[p][q] ** 2 for q in tables[i]), i))
        tables[best].append(p)
    return tables


def _improve(tables: list[list[int]], met: list[list[int]]) -> None:
    """Swap players between tables while a swap lowers the total of squared meetings."""

    def cost(p: int, table: list[int], without: int) -> int:
        return sum((met[p][q] + 1) ** 2 for q in table if q != p and q != without)

    improved = True
    while improved:
        improved = False
        for i, j in combinations(range(len(tables)), 2):
            for a_idx, a in enumerate(tables[i]):
                for b_idx, b in enumerate(tables[j]):
                    now = cost(a, tables[i], a) + cost(b, tables[j], b)
                    swapped = cost(a, tables[j], b) + cost(b, tables[i], a)
                    if swapped < now:
                        tables[i][a_idx], tables[j][b_idx] = b, a
                        a = b
                        improved = True
