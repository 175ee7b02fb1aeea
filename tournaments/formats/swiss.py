"""Swiss pairing for head-to-head matches, on plain data.

A Swiss event plays a fixed number of rounds; nobody is eliminated. Each round pairs players
with equal or close scores who have not met yet. The service passes the active players in
their initial ranking (seed or rating order, best first) and every game played so far; this
module says who plays whom next, who has the bye and who sits first (the rummy analogue of
chess's white: the first seat deals or starts).

Rules followed
--------------
The shape is the FIDE Dutch system (FIDE Handbook C.04.3) stripped to what rummy events need:

* Players are ranked by score, then initial ranking. A *score group* holds the players on one
  score; groups are paired from the top. Within a group (plus anyone who floated down from
  above, at its top) the upper half S1 meets the lower half S2 in order: 1 v m/2+1,
  2 v m/2+2, ... When that would repeat a pairing, the next player of S2 is tried, then the
  ones above (the Dutch system's transpositions); a player who still cannot be paired inside
  the group floats down to the next one. Once everyone is paired, two pairs up to
  `SETTLE_WINDOW` boards apart swap partners while that lowers the number of pairs across
  score groups (then the squared score differences) without a repeat (`_settle`, a 2-opt
  pass): "score groups respected as far as possible" as a local optimum that the tests
  check, where the strict top-down Dutch order would sometimes float three players to
  avoid one repeat.
* Two players never meet twice while any complete pairing of the round without a repeat
  exists (C.04.1 b, "two players shall not play each other more than once"). The greedy pass
  above can strand a few players at the bottom who have all met; we then repair the round with
  Edmonds' blossom algorithm (maximum-cardinality matching in a general graph), warm-started
  from the greedy pairs, on the graph "has not met yet". By Berge's lemma the result is a
  maximum matching, so it is complete whenever a complete repeat-free pairing exists; when
  none exists the leftovers are paired in rank order and the number of repeats is the least
  possible (any pairing's repeat-free pairs form a matching, no larger than ours). The search
  from a stranded player tries neighbours nearest in rank first, so the repair is a short
  alternating path near the bottom and the score groups above stay as the greedy made them.
* An odd field gives one bye (C.04.1 c-d: the unpaired player scores as for a win, and nobody
  receives the bye twice): to the lowest-ranked player without one for whom everyone else can
  be paired without a repeat (tried from the bottom up; the first try succeeds unless the
  bottom is crowded with past meetings). If no such player exists, the bye becomes a vertex
  of the matching graph, adjacent only to players without a bye, so the same repair keeps
  "at most one bye per player" whenever any complete pairing allows it. A bye is worth a
  win (`BYE_POINTS`).
* Seats: the player who has sat first less often (first minus second) sits first; then the
  one who sat second last time; then, like the Dutch system's colour alternation down the
  boards, the higher-ranked player sits first on odd boards and second on even ones.

Complexity: reading the history is O(games); the greedy pass is O(n * r) for n players in
round r (a rank-ordered scan per player that stops at the first opponent not yet met). The
repair first tries the shortest augmenting paths (stranded x takes a, a's partner b takes
stranded y), O(n) per stranded player, which fixes what the greedy leaves in practice; the
full blossom search, O(n) per edge scan plus O(n) per blossom contraction (O(n^3) for a
whole matching at worst, on the implicit dense graph "not met yet"), runs only for what is
left, and only once per vertex (a vertex with no augmenting path keeps none). At 4,096
players a late round pairs in about 0.2 s on the shared 2-core machine
(`benchmarks/formats_bench.py`, against its 2 s bound).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

E = TypeVar("E", bound=Hashable)

BYE_POINTS = 1.0
SETTLE_WINDOW = 8  # boards either side within which two pairs may swap partners
WIN, DRAW, LOSS = 1.0, 0.5, 0.0


@dataclass(frozen=True, slots=True)
class Game(Generic[E]):
    """A played game. ``second is None`` is a bye. ``result`` is the first seat's points
    (1, 0.5 or 0; the second seat gets the rest); a bye's holder gets `BYE_POINTS`."""

    round: int
    first: E
    second: E | None
    result: float = WIN


@dataclass(frozen=True, slots=True)
class Pairing(Generic[E]):
    """One round: ``pairs`` in board order (first seat, second seat), the bye, and the pairs
    that repeat an earlier meeting (empty unless no complete repeat-free pairing exists)."""

    pairs: tuple[tuple[E, E], ...]
    bye: E | None
    repeats: tuple[tuple[E, E], ...] = ()


def default_rounds(n_players: int) -> int:
    """ceil(log2 n): with 2^r players, r rounds leave at most one perfect score.

    Never more than a round robin would need (n - 1 rounds, n for an odd field).
    """
    if n_players < 2:
        raise ValueError(f"a Swiss needs at least 2 players, got {n_players}")
    return min(math.ceil(math.log2(n_players)), n_players - 1 + n_players % 2)


def scores(games: Sequence[Game[E]]) -> dict[E, float]:
    """Points per player from the games so far (players with no game are absent)."""
    out: dict[E, float] = {}
    for g in games:
        if g.second is None:
            out[g.first] = out.get(g.first, 0.0) + BYE_POINTS
        else:
            out[g.first] = out.get(g.first, 0.0) + g.result
            out[g.second] = out.get(g.second, 0.0) + (WIN - g.result)
    return out


def pair_round(players: Sequence[E], games: Sequence[Game[E]] = ()) -> Pairing[E]:
    """Pair the next round for ``players`` (best initial rank first) after ``games``.

    Players absent from ``players`` (withdrawn) are not paired; their past games still count
    for who met whom.
    """
    players = list(players)
    if len(players) < 2:
        raise ValueError(f"a Swiss round needs at least 2 players, got {len(players)}")
    if len(set(players)) != len(players):
        raise ValueError("a player is listed twice")
    index = {p: i for i, p in enumerate(players)}
    points = scores(games)
    ranked = sorted(range(len(players)), key=lambda i: (-points.get(players[i], 0.0), i))
    n = len(ranked)
    pos = [0] * n  # pos[player index] = rank
    for r, i in enumerate(ranked):
        pos[i] = r
    # Everything below works on ranks 0..n-1; rank n is the bye when the field is odd.
    met: list[set[int]] = [set() for _ in range(n)]
    had_bye = [False] * n
    firsts = [0] * n  # times first minus times second
    last_first: list[bool | None] = [None] * n
    for g in sorted(games, key=lambda g: g.round):
        a = index.get(g.first)
        b = index.get(g.second) if g.second is not None else None
        if g.second is None:
            if a is not None:
                had_bye[pos[a]] = True
            continue
        if a is not None and b is not None:
            met[pos[a]].add(pos[b])
            met[pos[b]].add(pos[a])
        if a is not None:
            firsts[pos[a]] += 1
            last_first[pos[a]] = True
        if b is not None:
            firsts[pos[b]] -= 1
            last_first[pos[b]] = False
    bye = n if n % 2 else None
    total = n + (1 if bye is not None else 0)
    group = [points.get(players[ranked[r]], 0.0) for r in range(n)]

    def allowed(a: int, b: int) -> bool:
        if a == b:
            return False
        if a == bye:
            return not had_bye[b]
        if b == bye:
            return not had_bye[a]
        return b not in met[a]

    def fixed_bye(a: int, b: int) -> bool:
        return a != bye and b != bye and allowed(a, b)

    def attempt(taker: int | None) -> list[int]:
        mate = [-1] * total
        if taker is not None:
            mate[bye], mate[taker] = taker, bye
        _greedy(n, group, mate, allowed)
        _repair(total, mate, fixed_bye if taker is not None else allowed)
        return mate

    # The bye to the lowest-ranked player without one for whom the others can all be paired
    # without a repeat (C.04.1 c-d); failing that, the matching places the bye as well.
    mate: list[int] = []
    if bye is not None:
        for taker in range(n - 1, -1, -1):
            if not had_bye[taker]:
                mate = attempt(taker)
                if -1 not in mate:
                    break
    if not mate or -1 in mate:
        mate = attempt(None)
    # Leftovers (no complete repeat-free pairing exists): pair them in rank order.
    left = [r for r in range(total) if mate[r] == -1]
    repeats = []
    for a, b in zip(left[::2], left[1::2], strict=True):
        mate[a], mate[b] = b, a
        if b != bye:
            repeats.append((a, b))
    pairs = sorted((a, mate[a]) for a in range(n) if a < mate[a] and mate[a] != bye)
    pairs = _settle(pairs, group, allowed, set(repeats))
    seated = []
    for board, (a, b) in enumerate(pairs):
        seated.append(_seats(a, b, board, firsts, last_first))
    name = [players[ranked[r]] for r in range(n)]
    return Pairing(
        pairs=tuple((name[a], name[b]) for a, b in seated),
        bye=name[mate[bye]] if bye is not None else None,
        repeats=tuple((name[a], name[b]) for a, b in repeats),
    )


def _greedy(n: int, group: list[float], mate: list[int], allowed) -> None:
    """Dutch-style pass over the score groups, top down; unpaired players float down."""
    floaters: list[int] = []
    r = 0
    while r < n:
        end = r
        while end < n and group[end] == group[r]:
            end += 1
        bracket = floaters + [x for x in range(r, end) if mate[x] == -1]
        floaters = _pair_bracket(bracket, mate, allowed)
        r = end


def _pair_bracket(bracket: list[int], mate: list[int], allowed) -> list[int]:
    """S1 v S2 with transpositions; returns the players left over, in rank order."""
    half = len(bracket) // 2
    s1, s2 = bracket[:half], bracket[half:]
    for i, p in enumerate(s1):
        if mate[p] != -1:
            continue
        for q in _candidates(s1, s2, i):
            if mate[q] == -1 and allowed(p, q):
                mate[p], mate[q] = q, p
                break
    left = [p for p in bracket if mate[p] == -1]
    for i, p in enumerate(left):
        if mate[p] != -1:
            continue
        for q in left[i + 1 :]:
            if mate[q] == -1 and allowed(p, q):
                mate[p], mate[q] = q, p
                break
    return [p for p in left if mate[p] == -1]


def _candidates(s1: list[int], s2: list[int], i: int) -> Iterator[int]:
    yield from s2[i:]
    yield from reversed(s2[:i])
    yield from s1[i + 1 :]


def _repair(total: int, mate: list[int], allowed) -> None:
    """Edmonds' blossom algorithm: augment from every unpaired vertex (maximum matching).

    Most stranded pairs are fixed by the shortest augmenting path, x - a = b - y (x takes a,
    b takes y), found in O(n) by `_short_paths`; the full search runs for what is left.
    """
    _short_paths(total, mate, allowed)
    _blossom(total, mate, allowed)


def _blossom(total: int, mate: list[int], allowed) -> None:
    """Augment from each unpaired vertex once: afterwards ``mate`` is a maximum matching
    (a vertex with no augmenting path keeps none after later augmentations)."""
    for root in range(total - 1, -1, -1):
        if mate[root] == -1:
            end, parent = _find_augmenting(root, total, mate, allowed)
            while end != -1:  # flip the path root .. end found by the search
                prev = parent[end]
                nxt = mate[prev]
                mate[end], mate[prev] = prev, end
                end = nxt


def _short_paths(total: int, mate: list[int], allowed) -> None:
    """Augment along paths of length three, nearest partners first, while any exists."""
    exposed = [v for v in range(total) if mate[v] == -1]
    progress = True
    while progress and len(exposed) > 1:
        progress = False
        for x in exposed:
            if mate[x] != -1:
                continue
            for a in _near(x, total):
                b = mate[a]
                if not allowed(x, a):
                    continue
                if b == -1:  # two stranded players who may meet after all
                    mate[x], mate[a] = a, x
                    progress = True
                    break
                y = next((y for y in exposed if y != x and mate[y] == -1 and allowed(b, y)), -1)
                if y != -1:
                    mate[x], mate[a], mate[b], mate[y] = a, x, y, b
                    progress = True
                    break
        exposed = [v for v in exposed if mate[v] == -1]


def _near(v: int, total: int) -> Iterator[int]:
    """Every other vertex, nearest in rank first."""
    for d in range(1, total):
        if v - d >= 0:
            yield v - d
        if v + d < total:
            yield v + d
        if v - d < 0 and v + d >= total:
            return


def _find_augmenting(root: int, total: int, mate: list[int], allowed) -> tuple[int, list[int]]:
    """One BFS of the blossom algorithm from ``root``: the free vertex reached (or -1) and the
    alternating tree's parent links, along which the caller flips the path. Blossoms are
    contracted by relabelling their vertices with the blossom's base.
    """
    parent = [-1] * total
    base = list(range(total))
    used = [False] * total
    used[root] = True
    queue = deque([root])

    def lca(a: int, b: int) -> int:
        seen = set()
        while True:
            a = base[a]
            seen.add(a)
            if mate[a] == -1:
                break
            a = parent[mate[a]]
        while True:
            b = base[b]
            if b in seen:
                return b
            b = parent[mate[b]]

    def mark(v: int, b: int, child: int, blossom: set[int]) -> None:
        while base[v] != b:
            blossom.add(base[v])
            blossom.add(base[mate[v]])
            parent[v] = child
            child = mate[v]
            v = parent[mate[v]]

    while queue:
        v = queue.popleft()
        for to in _near(v, total):
            if base[v] == base[to] or mate[v] == to or not allowed(v, to):
                continue
            if to == root or (mate[to] != -1 and parent[mate[to]] != -1):
                b = lca(v, to)
                blossom: set[int] = set()
                mark(v, b, to, blossom)
                mark(to, b, v, blossom)
                for i in range(total):
                    if base[i] in blossom:
                        base[i] = b
                        if not used[i]:
                            used[i] = True
                            queue.append(i)
            elif parent[to] == -1:
                parent[to] = v
                if mate[to] == -1:
                    return to, parent
                used[mate[to]] = True
                queue.append(mate[to])
    return -1, parent


def _settle(pairs: list[tuple[int, int]], group: list[float], allowed, fixed: set) -> list:
    """Re-pair two pairs at a time (2-opt) while it brings scores closer, never into a repeat.

    The cost of a pair is (whether the two scores differ, the squared difference); two pairs
    up to `SETTLE_WINDOW` boards apart swap partners when that lowers their summed cost, so a
    player floated by the greedy pass or the repair returns to their score group when a
    repeat-free way exists nearby. Pairs on equal scores cost nothing and are never touched,
    so the S1 v S2 order within a score group stands. Each swap lowers the total, so it ends.
    """

    def cost(a: int, b: int) -> tuple[int, float]:
        d = group[a] - group[b]
        return (d != 0, d * d)

    def both(p: tuple[int, int], q: tuple[int, int]) -> tuple[int, float]:
        x, y = cost(*p), cost(*q)
        return (x[0] + y[0], x[1] + y[1])

    pairs = sorted(pairs)
    improved = True
    while improved:
        improved = False
        pairs.sort()  # board order, so the last, unchanged pass saw the final boards
        for i in range(len(pairs)):
            if pairs[i] in fixed or cost(*pairs[i])[0] == 0:
                continue
            for j in range(max(0, i - SETTLE_WINDOW), min(len(pairs), i + SETTLE_WINDOW + 1)):
                if j == i or pairs[j] in fixed:
                    continue
                (a, b), (c, d) = pairs[i], pairs[j]
                now = both(pairs[i], pairs[j])
                for p, q in (((a, c), (b, d)), ((a, d), (b, c))):
                    if allowed(*p) and allowed(*q) and both(p, q) < now:
                        pairs[i], pairs[j] = tuple(sorted(p)), tuple(sorted(q))
                        improved = True
                        break
                if cost(*pairs[i])[0] == 0:
                    break
    return pairs


def _seats(
    a: int, b: int, board: int, firsts: list[int], last_first: list[bool | None]
) -> tuple[int, int]:
    """Who sits first: the fewer firsts, then the one second last time, then by board."""
    if firsts[a] != firsts[b]:
        return (a, b) if firsts[a] < firsts[b] else (b, a)
    if last_first[a] is not None and last_first[b] is not None and last_first[a] != last_first[b]:
        return (b, a) if last_first[a] else (a, b)
    return (a, b) if board % 2 == 0 else (b, a)
