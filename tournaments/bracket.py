"""Knock-out brackets on plain data: seeding, the shape of every round, and advancement.

Nothing here touches the database. The tournament services load rows, call these functions
and write what they return, so every bye, walkover and no-show path is proven by property
tests without a database (the habit of Tabbycat's ``draw/generator``).

Shape of a bracket
------------------
A bracket is a list of rounds; each round is a tuple of `Table` in bracket order. A table is
known by its `TableRef` (round, position), lists its ``feeders`` (the earlier tables whose
players it receives) and its ``feeds_into``: ``feeds_into[i]`` is the `Slot` (next table and
seat) of the player who finishes ``i + 1``-th. The final has no ``feeds_into``.

* Head-to-head (``table_size=2, advance=1``): a classic bracket of 2^k slots. Round-one pairs
  sum to 2^k + 1, byes (a table with one seed and ``None``) go to the top seeds, and seeds
  1..2^j sit in distinct sub-brackets, so they can meet only in the last j rounds: 1 and 2
  only in the final, 1-4 from the semi-finals on. There are ceil(log2(n)) rounds. With
  ``third_place=True`` the semi-final losers meet in an extra table of the last round.

* Multi-player (``table_size`` 3-6, top ``advance`` go through). Round one has
  ceil(n / table_size) tables whose sizes differ by at most one seat; the smaller tables (the
  empty seats) belong to the top seeds, and seeds are dealt snake-wise (1, 2, .. t, then t ..
  1, ...) so every table gets a fair mix.

  - When ``2 * advance <= table_size`` the bracket is a tree: every table sends its ``advance``
    players to one next table, and each next table is fed by whole tables, between 2 and
    ``table_size // advance`` of them (group sizes differ by at most one, smaller groups first),
    so it seats between ``advance + 1`` and ``table_size`` players. An odd count with two
    feeders per table leaves a group of one, a bye table whose players go through unopposed.
    Round-one tables are placed in the tree by distributing them snake-wise down from the final
    (which reproduces standard seeding for head-to-head), so the best tables meet as late as
    possible and byes fall on the top seed's path. Rounds: 1 + ceil(log_g(tables in round one))
    with g = table_size // advance; for ``advance=1`` that is ceil(log_{table_size}(n)).

  - When ``2 * advance > table_size`` no two whole tables fit one next table, so each round's
    advancers (in table order, then finishing order) are dealt in order into the next round's
    tables; a table may then feed two next tables. Table sizes are balanced when that
    eliminates anyone; when balanced tables would all be at most ``advance`` seats (everyone
    would go through and the round would be wasted), tables are filled to ``table_size`` with
    the remainder as the top seeds' table. Every round but the final eliminates somebody.

Advancement
-----------
`walkover` says whether a table is decided without play (at most ``advance`` players present,
at most one at the final): byes at the draw, walkovers at the deadline, tables emptied by
withdrawals and disqualifications. `advance` turns a table's finishing order into the seats
its players take next. A table with nobody passes nobody, and the next table simply seats
fewer players. `play_out` chains both through a whole bracket, for simulations and tests.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, TypeVar

from engine import fair

MIN_TABLE_SIZE = 2
MAX_TABLE_SIZE = 6

E = TypeVar("E", bound=Hashable)


class TableRef(NamedTuple):
    """A table's stable address: 1-based round, 0-based position in bracket order."""

    round: int
    position: int


class Slot(NamedTuple):
    """A seat at a later table, filled by a player who advanced."""

    table: TableRef
    seat: int


class Move(NamedTuple):
    """An entry taking a seat at a later table."""

    entry: Hashable
    slot: Slot


@dataclass(frozen=True, slots=True)
class Table:
    """One table of a bracket.

    ``seats`` always has ``table_size`` items: seed numbers in round one (``None`` for an empty
    seat), all ``None`` later, since later seats are filled by play. ``capacity`` is how many
    seats can ever be filled.
    """

    ref: TableRef
    seats: tuple[int | None, ...]
    capacity: int
    feeders: tuple[TableRef, ...] = ()
    feeds_into: tuple[Slot, ...] = ()
    third_place: bool = False

    @property
    def seeds(self) -> tuple[int, ...]:
        return tuple(s for s in self.seats if s is not None)


@dataclass(frozen=True, slots=True)
class Bracket:
    n_entries: int
    table_size: int
    advance: int
    third_place: bool
    rounds: tuple[tuple[Table, ...], ...]
    _index: dict[TableRef, Table] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        self._index.update({t.ref: t for rnd in self.rounds for t in rnd})

    @property
    def n_rounds(self) -> int:
        return len(self.rounds)

    @property
    def final(self) -> Table:
        return self.rounds[-1][0]

    def table(self, ref: TableRef) -> Table:
        try:
            return self._index[TableRef(*ref)]
        except KeyError:
            raise ValueError(f"no table {tuple(ref)} in this bracket") from None

    def tables(self) -> list[Table]:
        """Every table, round by round; each table comes after all of its feeders."""
        return [t for rnd in self.rounds for t in rnd]


def validate(n_entries: int, table_size: int, advance: int) -> None:
    """Refuse shapes no bracket can have, with a message an organiser can act on."""
    if not isinstance(n_entries, int) or n_entries < 2:
        raise ValueError(f"a bracket needs at least 2 entries, got {n_entries!r}")
    if not isinstance(table_size, int) or not MIN_TABLE_SIZE <= table_size <= MAX_TABLE_SIZE:
        raise ValueError(
            f"table_size must be between {MIN_TABLE_SIZE} and {MAX_TABLE_SIZE}, got {table_size!r}"
        )
    if not isinstance(advance, int) or not 1 <= advance < table_size:
        raise ValueError(
            f"advance must be between 1 and table_size - 1 ({table_size - 1}), got {advance!r}"
        )


def first_round(
    n_entries: int, table_size: int = 2, advance: int = 1
) -> tuple[tuple[int | None, ...], ...]:
    """Round one in bracket order: per table, its seeds (1 is the best) and ``None`` seats."""
    return tuple(t.seats for t in build_bracket(n_entries, table_size, advance).rounds[0])


def build_bracket(
    n_entries: int, table_size: int = 2, advance: int = 1, *, third_place: bool = False
) -> Bracket:
    """The whole bracket: every table of every round and where its players go next."""
    validate(n_entries, table_size, advance)
    if third_place and table_size != 2:
        raise ValueError("a third-place match exists only for head-to-head brackets")
    if table_size == 2:
        by_rank = _head_to_head_tables(n_entries)
    else:
        by_rank = _snake_tables(n_entries, _sizes(n_entries, table_size, advance))
    if 2 * advance <= table_size:
        shape = _tree_shape(len(by_rank), table_size // advance)
        rank_at = _place_ranks(shape)
        first = [by_rank[r] for r in rank_at]
        rounds = _tree_rounds(first, shape, table_size, advance)
    else:
        rounds = _dealt_rounds(by_rank, table_size, advance)
    if third_place and len(rounds) >= 2:
        rounds = _with_third_place(rounds)
    return Bracket(
        n_entries=n_entries,
        table_size=table_size,
        advance=advance,
        third_place=third_place and len(rounds) >= 2,
        rounds=tuple(tuple(r) for r in rounds),
    )


def _head_to_head_tables(n: int) -> list[tuple[int | None, ...]]:
    """Pairs by rank in a 2^k bracket: rank i holds seeds i+1 and 2^k-i; seeds past n are byes."""
    slots = 1 << (n - 1).bit_length()
    return [(i + 1, slots - i if slots - i <= n else None) for i in range(slots // 2)]


def _balanced(total: int, parts: int) -> list[int]:
    """``parts`` sizes summing to ``total`` that differ by at most one, smallest first."""
    q, r = divmod(total, parts)
    return [q] * (parts - r) + [q + 1] * r


def _sizes(players: int, table_size: int, advance: int) -> list[int]:
    """Table sizes for a round, smallest first: balanced unless that would eliminate nobody."""
    count = math.ceil(players / table_size)
    sizes = _balanced(players, count)
    if count > 1 and sizes[-1] <= advance:
        sizes = [players - (count - 1) * table_size] + [table_size] * (count - 1)
    return sizes


def _snake_tables(n: int, sizes: list[int]) -> list[tuple[int | None, ...]]:
    """Deal seeds 1..n snake-wise over tables ranked by top seed; a full table is skipped."""
    tables = _snake(list(range(1, n + 1)), sizes)
    width = max(sizes)
    return [tuple(t) + (None,) * (width - len(t)) for t in tables]


def _tree_shape(n_tables: int, fan_in: int) -> list[list[int]]:
    """Per later round, how many consecutive tables of the round before feed each table."""
    shape: list[list[int]] = []
    count = n_tables
    while count > 1:
        groups = _balanced(count, math.ceil(count / fan_in))
        shape.append(groups)
        count = len(groups)
    return shape


def _place_ranks(shape: list[list[int]]) -> list[int]:
    """Rank of the round-one table at each position.

    Ranks are dealt snake-wise from the final down to the feeders of each table (skipping a
    subtree once full), which for a perfect binary tree is exactly standard seeding.
    """
    # children[r][p]: positions in round r (0-based rounds, round 0 = round one) feeding
    # table p of round r + 1.
    children: list[list[range]] = []
    for groups in shape:
        start, kids = 0, []
        for g in groups:
            kids.append(range(start, start + g))
            start += g
        children.append(kids)
    leaves: list[list[int]] = [[1] * (sum(shape[0]) if shape else 1)]
    for kids in children:
        below = leaves[-1]
        leaves.append([sum(below[c] for c in k) for k in kids])
    n_first = len(leaves[0])
    rank_at = [0] * n_first
    stack = [(len(shape), 0, list(range(n_first)))]
    while stack:
        level, pos, ranks = stack.pop()
        if level == 0:
            rank_at[pos] = ranks[0]
            continue
        kids = list(children[level - 1][pos])
        caps = [leaves[level - 1][c] for c in kids]
        stack.extend((level - 1, c, b) for c, b in zip(kids, _snake(ranks, caps), strict=True))
    return rank_at


def _snake(items: list[int], caps: list[int]) -> list[list[int]]:
    """Deal ascending ``items`` to buckets 0..m-1, m-1..0, ...; a full bucket is skipped."""
    m = len(caps)
    if min(caps) == max(caps):
        # The common case, with slices: bucket i takes every 2m-th item from i and 2m-1-i.
        return [sorted(items[i :: 2 * m] + items[2 * m - 1 - i :: 2 * m]) for i in range(m)]
    buckets: list[list[int]] = [[] for _ in caps]
    it = iter(items)
    remaining, forward = len(items), True
    while remaining:
        for i in range(m) if forward else range(m - 1, -1, -1):
            if remaining and len(buckets[i]) < caps[i]:
                buckets[i].append(next(it))
                remaining -= 1
        forward = not forward
    return buckets


def _tree_rounds(
    first: list[tuple[int | None, ...]], shape: list[list[int]], table_size: int, advance: int
) -> list[list[Table]]:
    """Tables of a tree bracket; each table's players go to one next table, seats in order.

    Written for 65,536-entry draws: one TableRef per table, built once, and no generator
    per table.
    """
    blank = (None,) * table_size
    seats = [s + (None,) * (table_size - len(s)) for s in first]
    capacities = [table_size - s.count(None) for s in seats]
    rounds: list[list[Table]] = []
    feeds: list[tuple[Slot, ...]] = [() for _ in seats]
    prev_refs = [TableRef(1, p) for p in range(len(seats))]
    prev_feeders: list[tuple[TableRef, ...]] = [() for _ in seats]
    prev_seats = seats
    for r, groups in enumerate(shape, start=2):
        refs = [TableRef(r, p) for p in range(len(groups))]
        start = 0
        next_caps, next_feeders = [], []
        for ref, g in zip(refs, groups, strict=True):
            seat = 0
            for child in range(start, start + g):
                sends = min(advance, capacities[child])
                if sends == 1:
                    feeds[child] = (Slot(ref, seat),)
                else:
                    feeds[child] = tuple([Slot(ref, seat + k) for k in range(sends)])
                seat += sends
            next_caps.append(seat)
            next_feeders.append(tuple(prev_refs[start : start + g]))
            start += g
        rounds.append(list(map(Table, prev_refs, prev_seats, capacities, prev_feeders, feeds)))
        prev_refs, prev_seats = refs, [blank] * len(groups)
        capacities, prev_feeders = next_caps, next_feeders
        feeds = [() for _ in groups]
    rounds.append(list(map(Table, prev_refs, prev_seats, capacities, prev_feeders, feeds)))
    return rounds


def _dealt_rounds(
    by_rank: list[tuple[int | None, ...]], table_size: int, advance: int
) -> list[list[Table]]:
    """Tables when ``2 * advance > table_size``: each round's advancers dealt in order."""
    blank = (None,) * table_size
    cur = [
        {
            "seats": s + (None,) * (table_size - len(s)),
            "cap": sum(x is not None for x in s),
            "feeders": (),
        }
        for s in by_rank
    ]
    rounds: list[list[Table]] = []
    r = 1
    while True:
        refs = [TableRef(r, p) for p in range(len(cur))]
        if len(cur) == 1:
            rounds.append([Table(refs[0], cur[0]["seats"], cur[0]["cap"], cur[0]["feeders"])])
            return rounds
        outgoing = [(p, k) for p, t in enumerate(cur) for k in range(min(advance, t["cap"]))]
        sizes = _sizes(len(outgoing), table_size, advance)
        feeds: list[list[Slot]] = [[] for _ in cur]
        nxt, i = [], 0
        for pos, size in enumerate(sizes):
            ref = TableRef(r + 1, pos)
            fed: list[TableRef] = []
            for seat in range(size):
                p, _ = outgoing[i]
                i += 1
                feeds[p].append(Slot(ref, seat))
                if refs[p] not in fed:
                    fed.append(refs[p])
            nxt.append({"seats": blank, "cap": size, "feeders": tuple(fed)})
        rounds.append(
            [
                Table(ref, t["seats"], t["cap"], t["feeders"], tuple(f))
                for ref, t, f in zip(refs, cur, feeds, strict=True)
            ]
        )
        cur, r = nxt, r + 1


def _with_third_place(rounds: list[list[Table]]) -> list[list[Table]]:
    """Add the semi-final losers' table to the last round and route the losers to it."""
    final = rounds[-1][0]
    third = Table(
        TableRef(final.ref.round, 1),
        final.seats,
        final.capacity,
        final.feeders,
        (),
        third_place=True,
    )
    semis = [
        Table(
            t.ref,
            t.seats,
            t.capacity,
            t.feeders,
            (*t.feeds_into, Slot(third.ref, t.feeds_into[0].seat)),
        )
        for t in rounds[-2]
    ]
    return [*rounds[:-2], semis, [final, third]]


def walkover(bracket: Bracket, ref: TableRef, present: Sequence[E]) -> tuple[E, ...] | None:
    """The finishing order of a table decided without play, or ``None`` when it must be played.

    Call it once every feeder of the table is done (and again at its deadline with only the
    players who showed up). A table with no more players than go through passes them all on in
    seat order: byes at the draw, walkovers, tables thinned by withdrawals or disqualifications.
    A final or third-place table needs two players to be played; with one, that player wins it.
    An empty table yields ``()``: nobody advances, and the next table seats fewer.
    """
    table = bracket.table(ref)
    _check_players(table, present)
    goes_through = bracket.advance if table.feeds_into else 1
    if len(present) <= goes_through:
        return tuple(present)
    return None


def advance(bracket: Bracket, ref: TableRef, ranking: Sequence[E]) -> tuple[Move, ...]:
    """Where the players of a finished table sit next.

    ``ranking`` is the table's finishing order, best first, of the players who completed it;
    leave out anyone who forfeited (no-show, disqualified, withdrew), they go nowhere. The
    first ``advance`` players take their fixed seats at the next table; a semi-final's loser
    goes to the third-place table when there is one. Fewer players leave seats empty.
    """
    table = bracket.table(ref)
    _check_players(table, ranking)
    # zip stops at the last seat going on: everyone ranked below it is out here.
    return tuple(Move(e, slot) for e, slot in zip(ranking, table.feeds_into, strict=False))


def _check_players(table: Table, players: Sequence[Hashable]) -> None:
    if len(set(players)) != len(players):
        raise ValueError(f"table {tuple(table.ref)}: a player is listed twice: {list(players)}")
    if len(players) > table.capacity:
        raise ValueError(
            f"table {tuple(table.ref)} seats {table.capacity} players, got {len(players)}"
        )


@dataclass(frozen=True, slots=True)
class Outcome:
    """Everything a played-out bracket decided.

    ``rankings`` holds each table's finishing order (forfeits left out); ``reached`` the last
    round each entry sat at in the main bracket; ``places`` the final placings, where entries
    who went out in the same round share a place (competition ranking).
    """

    champion: Hashable | None
    rankings: dict[TableRef, tuple[Hashable, ...]]
    seated: dict[TableRef, tuple[Hashable, ...]]
    reached: dict[Hashable, int]
    places: dict[Hashable, int]


Play = Callable[[Table, tuple[E, ...]], Sequence[E]]
Shows = Callable[[Table, E], bool]


def play_out(
    bracket: Bracket,
    entries: Sequence[E],
    play: Play,
    shows: Shows = lambda table, entry: True,
) -> Outcome:
    """Run a whole bracket: ``entries[i]`` has seed ``i + 1``.

    At every table the players who ``shows`` says turned up are considered; if `walkover`
    decides the table, ``play`` is not called; otherwise ``play(table, present)`` returns the
    finishing order, leaving out anyone who forfeited mid-table. The simulator and the tests
    use this; the services take the same steps one table at a time.
    """
    if len(entries) != bracket.n_entries:
        raise ValueError(f"the bracket has {bracket.n_entries} entries, got {len(entries)}")
    if len(set(entries)) != len(entries):
        raise ValueError("an entry is listed twice")
    seats: dict[TableRef, dict[int, E]] = {}
    for table in bracket.rounds[0]:
        seats[table.ref] = {i: entries[s - 1] for i, s in enumerate(table.seats) if s is not None}
    rankings: dict[TableRef, tuple[E, ...]] = {}
    seated: dict[TableRef, tuple[E, ...]] = {}
    reached: dict[E, int] = {}
    for table in bracket.tables():
        at_table = tuple(e for _, e in sorted(seats.get(table.ref, {}).items()))
        seated[table.ref] = at_table
        if not table.third_place:
            reached.update((e, table.ref.round) for e in at_table)
        present = tuple(e for e in at_table if shows(table, e))
        ranking = walkover(bracket, table.ref, present)
        if ranking is None:
            ranking = tuple(play(table, present))
            if not set(ranking) <= set(present):
                raise ValueError(f"table {tuple(table.ref)}: ranked players who did not play")
        rankings[table.ref] = ranking
        for entry, slot in advance(bracket, table.ref, ranking):
            seats.setdefault(slot.table, {})[slot.seat] = entry
    final = rankings[bracket.final.ref]
    champion = final[0] if final else None
    return Outcome(
        champion=champion,
        rankings=rankings,
        seated=seated,
        reached=reached,
        places=_places(bracket, rankings, reached),
    )


def _places(
    bracket: Bracket, rankings: dict[TableRef, tuple[E, ...]], reached: dict[E, int]
) -> dict[E, int]:
    """Placings: by the final's order, then the third-place table's, then the round reached."""
    last = bracket.n_rounds
    within: dict[E, int] = {}
    for i, e in enumerate(rankings[bracket.final.ref]):
        within[e] = i
    if bracket.third_place:
        for i, e in enumerate(rankings[TableRef(last, 1)]):
            within[e] = i
    unranked = bracket.table_size + 1

    def key(e: E) -> tuple[int, int]:
        return (-reached[e], within.get(e, unranked))

    ordered = sorted(reached, key=key)
    places: dict[E, int] = {}
    for i, e in enumerate(ordered):
        places[e] = places[ordered[i - 1]] if i and key(ordered[i - 1]) == key(e) else i + 1
    return places


def random_seeding(draw_seed: str, registration_order: list) -> list:
    """Random seeding: the entries (in registration order) shuffled by the revealed draw
    seed, best seed first. `engine.fair.shuffle` with label ``"draw"``, the dealing
    algorithm of engine/README.md, so anyone can recompute the draw from the seed."""
    return fair.shuffle(registration_order, draw_seed, "draw")
