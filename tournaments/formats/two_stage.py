"""Two-stage events on plain data: round-robin groups, then a knock-out of the qualifiers.

The shape Challonge calls a two-stage tournament and football calls a group stage:

1. `draw_groups` deals the seeds into groups snake-wise (1, 2, .. G, then G .. 1, ...), the
   "pots" habit of seeded draws: every group gets one of the top G seeds, group 1 the best of
   them and the weakest of the next pot, and group sizes differ by at most one.
2. `group_schedule` is the league's round-robin (`competition.schedule.round_robin`, the circle
   method, byes for an odd group), reused as it stands: a group is a tiny league. A Swiss
   group stage pairs each group round by round with `tournaments.formats.swiss.pair_round`
   (`two_stage_layout` holds its round one).
3. `group_order` ranks a group with the league's standings (`competition.standings`: points, then
   the tie-breakers a league offers, head-to-head included); players still tied keep their
   seed order, so the qualifying line is always decided. A Swiss group stage ranks a group
   with `swiss_group_order` (the Swiss score and tie-breaks, then seed).
4. `seed_qualifiers` turns the groups' top ``advance`` into the seed order of the second
   stage, a `tournaments.bracket` knock-out or a `tournaments.formats.double` bracket; both
   place seed ``i`` against seed ``2^k + 1 - i`` in round one. Group winners take seeds 1..G
   (in group order), runners-up the next G, and so on, so group winners sit in different
   sub-brackets and meet only late (standard seeding keeps seeds 1..2^j apart until the last
   j rounds). Then no round-one match may pair two players of the same group (the FIFA and
   UEFA rule for a draw after a group stage: a winner meets a runner-up of *another* group):
   where the seed order would do so, the lower-placed player swaps with the nearest seed of
   the same place whose swap leaves both matches clean. So group winners meet runners-up of
   other groups first.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

from competition import standings
from competition.schedule import Round, round_robin
from tournaments.bracket import first_round
from tournaments.formats import swiss, tiebreaks

E = TypeVar("E", bound=Hashable)


def draw_groups(entries: Sequence[E], n_groups: int) -> tuple[tuple[E, ...], ...]:
    """Entries (best seed first) dealt snake-wise into ``n_groups`` groups, each in seed order."""
    entries = list(entries)
    if len(set(entries)) != len(entries):
        raise ValueError("an entry is listed twice")
    if not isinstance(n_groups, int) or n_groups < 1:
        raise ValueError(f"n_groups must be at least 1, got {n_groups!r}")
    if len(entries) < 2 * n_groups:
        raise ValueError(f"{len(entries)} entries cannot fill {n_groups} groups of at least 2")
    groups: list[list[E]] = [[] for _ in range(n_groups)]
    for i, e in enumerate(entries):
        lap, k = divmod(i, n_groups)
        groups[k if lap % 2 == 0 else n_groups - 1 - k].append(e)
    return tuple(tuple(g) for g in groups)


def group_schedule(group: Sequence[E], *, double: bool = False) -> list[Round]:
    """The group's round-robin: the league's circle-method schedule."""
    return round_robin(group, double=double)


def group_order(
    group: Sequence[E],
    results: Sequence[standings.Result],
    *,
    tiebreakers: Sequence[str] = standings.DEFAULT_TIEBREAKERS,
    points: standings.PointsRule = standings.DEFAULT_POINTS,
) -> tuple[E, ...]:
    """The group's finishing order: league standings, then seed order among exact ties."""
    rows = standings.standings(group, results, points=points)
    ranked = standings.rank_standings(rows, results, tiebreakers=tiebreakers, points=points)
    seed = {e: i for i, e in enumerate(group)}
    return tuple(r.player for r in sorted(ranked, key=lambda r: (r.rank, seed[r.player])))


def swiss_group_order(
    group: Sequence[E],
    games: Sequence[swiss.Game],
    *,
    keys: Sequence[str] = tiebreaks.DEFAULT_TIEBREAKS,
    ratings=None,
) -> tuple[E, ...]:
    """A Swiss group's finishing order: score (a bye worth a win), then the tie-breaks in
    order (`tiebreaks.standings`), then seed order among exact ties."""
    rows = tiebreaks.standings(list(group), list(games), tuple(keys), ratings)
    seed = {e: i for i, e in enumerate(group)}
    return tuple(r.entry for r in sorted(rows, key=lambda r: (r.rank, seed[r.entry])))


def seed_qualifiers(finishing: Sequence[Sequence[E]], advance: int) -> list[E]:
    """The second stage's seed order (index 0 is seed 1) from each group's finishing order.

    Seeds go by place (all winners, then all runners-up, ...), each place in group order;
    then same-group pairs in round one are broken by swaps within a place (module docstring).
    A group with fewer than ``advance`` players sends all it has.
    """
    if advance < 1:
        raise ValueError(f"advance must be at least 1, got {advance!r}")
    group_of: dict[E, int] = {}
    place_of: dict[E, int] = {}
    seeds: list[E] = []
    for place in range(advance):
        for g, order in enumerate(finishing):
            if place < len(order):
                e = order[place]
                if e in group_of:
                    raise ValueError(f"{e!r} finished in two groups")
                group_of[e], place_of[e] = g, place
                seeds.append(e)
    if len(seeds) < 2:
        raise ValueError("a second stage needs at least 2 qualifiers")
    opponent: dict[int, int | None] = {}  # seed index -> opponent's seed index in round one
    for a, b in first_round(len(seeds)):
        if b is None:
            opponent[a - 1] = None
        else:
            opponent[a - 1], opponent[b - 1] = b - 1, a - 1

    def clash(i: int, who: E) -> bool:
        """Whether ``who`` in seed slot ``i`` would meet someone of their own group."""
        j = opponent[i]
        return j is not None and group_of[seeds[j]] == group_of[who]

    for i in range(len(seeds)):
        j = opponent[i]
        if j is None or j < i or not clash(i, seeds[i]):
            continue
        # Slot j (the lower seed, so the lower-placed or same-placed player) moves.
        mover = seeds[j]
        candidates = sorted(
            (k for k in range(len(seeds)) if k != j and place_of[seeds[k]] == place_of[mover]),
            key=lambda k: abs(k - j),
        )
        for k in candidates:
            other = seeds[k]
            seeds[j], seeds[k] = other, mover
            if not clash(j, other) and not clash(k, mover):
                break
            seeds[j], seeds[k] = mover, other
    return seeds
