"""Swiss at multi-player tables (3-6 seats), on plain data.

Head-to-head Swiss pairs two players of equal score; card rooms and mind-sport events run the
same idea at four-player tables (the Swiss seating of riichi mahjong leagues; Tabbycat seats
four teams a room in British Parliamentary debating, by points, and rotates their positions).
No bracket tool offers it; this module is Knock's version for Basic, Indian or Dummy tables.

Rules
-----
* Points by finishing place from a table the organiser chooses (``points``, default 3-1-0-0;
  match points such as 4-2-1-0 work the same). A smaller table uses the first entries (a
  three-seat table at 3-1-0-0 pays 3-1-0). A player who sits out scores ``bye_points``
  (default: the mean of the points table, 1 at 3-1-0-0, what an average finish earns).
* Tables from similar scores: players are ranked by points, then initial ranking, and dealt
  to tables in that order, best table first (the Swiss score group, table-sized). Table sizes
  come from `competition.schedule.table_sizes`: ``table_size`` seats or one fewer, and players sit
  out only when no such split exists (5 players at 4 seats: 4 play). Those who sit out are
  the lowest-ranked among those who have sat out least, so sit-out counts never differ by
  more than one.
* Repeat meetings minimised: the *repeat cost* of a seating is the sum, over every two
  players at the same table, of the number of earlier rounds they shared a table. From the
  rank-order seating we swap players between tables up to two apart while a swap lowers the
  cost, as long as each player's score is one that the rank-order seating has at the new
  table or a neighbour of it, so that scores stay together. The result never costs more than
  the rank-order seating, and no allowed swap lowers it further (a local optimum,
  property-tested). With 16 players at 4 seats the
  second round has no repeat at all (worked example in the tests).
* Seat order rotated: at each table the first seat (who starts) goes to whoever has started
  least, then to whoever sat furthest from the start on average; so the first seat of a table
  never goes to someone who has started more often than a table-mate.

Complexity: O(n) to deal the tables, then passes over neighbouring table pairs, each trying
``table_size^2`` swaps whose cost change is O(table_size); a handful of passes at 4,096
players (`benchmarks/formats_bench.py`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import combinations, pairwise
from typing import Generic, TypeVar

from competition.schedule import table_sizes

E = TypeVar("E", bound=Hashable)

DEFAULT_POINTS = (3, 1, 0, 0)


@dataclass(frozen=True, slots=True)
class TableGame(Generic[E]):
    """One table of a past round: ``seats`` in seat order (seat 0 started) and ``order``, the
    finishing order (best first; players who forfeited last). One seat alone is a sit-out."""

    round: int
    seats: tuple[E, ...]
    order: tuple[E, ...]

    @property
    def sit_out(self) -> bool:
        return len(self.seats) == 1


@dataclass(frozen=True, slots=True)
class TableRound(Generic[E]):
    """A round: each table in seat order, best table first; who sits out; the repeat cost."""

    tables: tuple[tuple[E, ...], ...]
    sitting_out: tuple[E, ...]
    repeat_cost: int


def _check_points(points: Sequence[float], table_size: int) -> None:
    if not 3 <= table_size <= 6:
        raise ValueError(f"table_size must be between 3 and 6, got {table_size!r}")
    if not points or any(a < b for a, b in pairwise(points)):
        raise ValueError(f"points must not increase down the places, got {tuple(points)}")


def table_points(
    games: Sequence[TableGame[E]],
    points: Sequence[float] = DEFAULT_POINTS,
    bye_points: float | None = None,
) -> dict[E, float]:
    """Points per player after ``games``."""
    bye = sum(points) / len(points) if bye_points is None else bye_points
    out: dict[E, float] = {}
    for g in games:
        if g.sit_out:
            out[g.seats[0]] = out.get(g.seats[0], 0.0) + bye
            continue
        for place, e in enumerate(g.order):
            out[e] = out.get(e, 0.0) + (points[place] if place < len(points) else 0.0)
    return out


def pair_tables(
    players: Sequence[E],
    games: Sequence[TableGame[E]] = (),
    *,
    table_size: int = 4,
    points: Sequence[float] = DEFAULT_POINTS,
    bye_points: float | None = None,
) -> TableRound[E]:
    """Seat the next round for ``players`` (initial ranking order) after ``games``."""
    _check_points(points, table_size)
    players = list(players)
    if len(set(players)) != len(players):
        raise ValueError("a player is listed twice")
    if len(players) < max(3, table_size - 1):
        raise ValueError(
            f"{len(players)} players cannot fill tables of {table_size} or {table_size - 1}"
        )
    index = {p: i for i, p in enumerate(players)}
    score = table_points(games, points, bye_points)
    ranked = sorted(range(len(players)), key=lambda i: (-score.get(players[i], 0.0), i))
    n = len(players)
    rank = [0] * n
    for r, i in enumerate(ranked):
        rank[i] = r
    met: list[dict[int, int]] = [{} for _ in range(n)]
    starts = [0] * n
    seat_sum = [0.0] * n
    sat_out = [0] * n
    for g in games:
        ids = [index[e] for e in g.seats if e in index]
        if g.sit_out:
            for i in ids:
                sat_out[i] += 1
            continue
        for a, b in combinations(ids, 2):
            met[a][b] = met[a].get(b, 0) + 1
            met[b][a] = met[b].get(a, 0) + 1
        for pos, e in enumerate(g.seats):
            if e in index:
                seat_sum[index[e]] += pos / (len(g.seats) - 1)
                if pos == 0:
                    starts[index[e]] += 1
    sizes, n_out = table_sizes(n, table_size)
    # Sit-outs: the fewest sit-outs so far, then the lowest-ranked.
    out = sorted(ranked, key=lambda i: (sat_out[i], -rank[i]))[:n_out] if n_out else []
    out_set = set(out)
    seated = [i for i in ranked if i not in out_set]
    tables: list[list[int]] = []
    start = 0
    for size in sizes:
        tables.append(seated[start : start + size])
        start += size
    pts = [score.get(players[i], 0.0) for i in range(n)]
    near = [{pts[p] for t in tables[max(0, i - 1) : i + 2] for p in t} for i in range(len(tables))]
    _improve(tables, met, lambda p, t: pts[p] in near[t])
    cost = sum(repeat_cost(t, met) for t in tables)
    ordered = [sorted(t, key=lambda p: (starts[p], -seat_sum[p], rank[p])) for t in tables]
    return TableRound(
        tables=tuple(tuple(players[p] for p in t) for t in ordered),
        sitting_out=tuple(players[p] for p in sorted(out, key=rank.__getitem__)),
        repeat_cost=cost,
    )


def repeat_cost(table: Sequence[int], met: list[dict[int, int]]) -> int:
    """Earlier meetings of every two players at ``table`` (0: nobody has met)."""
    return sum(met[a].get(b, 0) for a, b in combinations(table, 2))


def _improve(tables: list[list[int]], met: list[dict[int, int]], fits) -> None:
    """Swap players between tables up to two apart while a swap lowers the repeat cost.

    ``fits(p, t)``: player ``p``'s score is one the rank-order seating has at table ``t`` or
    a neighbour of it, so that swaps never pull scores apart.
    """

    def cost_with(p: int, table: list[int], without: int) -> int:
        m = met[p]
        return sum(m.get(q, 0) for q in table if q != p and q != without)

    improved = True
    while improved:
        improved = False
        for i in range(len(tables) - 1):
            for j in range(i + 1, min(i + 3, len(tables))):
                improved |= _best_swap(tables, i, j, met, fits, cost_with)


def _best_swap(tables, i, j, met, fits, cost_with) -> bool:
    """Make the best cost-lowering swap between tables i and j, if there is one."""
    a_table, b_table = tables[i], tables[j]
    if repeat_cost(a_table, met) == 0 and repeat_cost(b_table, met) == 0:
        return False
    best = (0, -1, -1)
    for ai, a in enumerate(a_table):
        if not fits(a, j):
            continue
        for bi, b in enumerate(b_table):
            if not fits(b, i):
                continue
            now = cost_with(a, a_table, a) + cost_with(b, b_table, b)
            then = cost_with(a, b_table, b) + cost_with(b, a_table, a)
            if then - now < best[0]:
                best = (then - now, ai, bi)
    if best[0] < 0:
        _, ai, bi = best
        a_table[ai], b_table[bi] = b_table[bi], a_table[ai]
        return True
    return False


@dataclass(frozen=True, slots=True)
class TableStanding:
    rank: int
    entry: Hashable
    points: float
    firsts: int
    opposition: float


def table_standings(
    players: Sequence[E],
    games: Sequence[TableGame[E]],
    points: Sequence[float] = DEFAULT_POINTS,
    bye_points: float | None = None,
) -> list[TableStanding]:
    """Points, then first places, then opposition (the sum of table-mates' final points,
    once per table shared: the multi-player Buchholz). Ties share a rank."""
    score = table_points(games, points, bye_points)
    firsts = dict.fromkeys(players, 0)
    opposition = dict.fromkeys(players, 0.0)
    for g in games:
        if g.sit_out:
            continue
        if g.order and g.order[0] in firsts:
            firsts[g.order[0]] += 1
        for e in g.seats:
            if e in opposition:
                opposition[e] += sum(score.get(o, 0.0) for o in g.seats if o != e)

    def key(i: int) -> tuple[float, int, float]:
        p = players[i]
        return (-score.get(p, 0.0), -firsts[p], -opposition[p])

    order = sorted(range(len(players)), key=lambda i: (key(i), i))
    rows: list[TableStanding] = []
    for pos, i in enumerate(order):
        p = players[i]
        same = rows and key(order[pos - 1]) == key(i)
        rows.append(
            TableStanding(
                rank=rows[-1].rank if same else pos + 1,
                entry=p,
                points=score.get(p, 0.0),
                firsts=firsts[p],
                opposition=opposition[p],
            )
        )
    return rows
