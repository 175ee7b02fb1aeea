"""A two-stage event in the knock-out's vocabulary, for the services to store.

Stage one is round-robin groups (`two_stage.draw_groups`, `two_stage.group_schedule`),
rounds ``1 .. R`` where ``R`` is the longest group's schedule; stage two is a single-
elimination bracket of the qualifiers (`tournaments.bracket`) or a double-elimination one
(`double_layout.DoubleLayout`: winners', losers' rounds, grand final), its rounds numbered
on from ``R + 1``. Group tables feed nothing and eliminate nobody, like Swiss tables: each group
round is stored when the one before is over, and the bracket once the last group round is
over, seeded by `two_stage.seed_qualifiers` so group winners meet runners-up of other
groups first. `TwoStageLayout` holds group round one (by seed) for the draw, every group
round's pairings by seed, and the bracket, and answers for any table of either stage.

A Swiss group stage (``group_stage="swiss"``) holds only round one, each group paired by
seed with `swiss.pair_round` (a bye alone at its table, which is theirs without play), and
the number of Swiss rounds: every later round is paired within each group from its games,
when the round before is over, as a Swiss event's rounds are.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass

from tournaments import bracket as bk
from tournaments.formats import swiss, two_stage
from tournaments.formats.double_layout import DoubleLayout, build_layout


@dataclass(frozen=True, slots=True)
class TwoStageLayout:
    n_entries: int
    groups: tuple[tuple[int, ...], ...]  # seeds, each group in seed order
    group_rounds: tuple[tuple[tuple[int, tuple[int, ...]], ...], ...]  # (group, seats) a table
    knockout: bk.Bracket | DoubleLayout
    swiss_rounds: int = 0  # a Swiss group stage's rounds; 0: round robins, every round known

    table_size = 2
    advance = 1
    third_place = False

    @property
    def n_group_rounds(self) -> int:
        return self.swiss_rounds or len(self.group_rounds)

    @property
    def swiss_groups(self) -> bool:
        """Whether the group stage is Swiss (rounds paired in play), not round robins."""
        return bool(self.swiss_rounds)

    def group_of_seed(self) -> dict[int, int]:
        """Each seed's group (0-based)."""
        return {seed: g for g, group in enumerate(self.groups) for seed in group}

    @property
    def n_rounds(self) -> int:
        return self.n_group_rounds + self.knockout.n_rounds

    @property
    def double(self) -> bool:
        """Whether stage two is a double-elimination bracket."""
        return isinstance(self.knockout, DoubleLayout)

    @property
    def final_rounds(self) -> tuple[int, ...]:
        """The rounds whose finishing order places the top entries: the final, or both
        grand finals of a double-elimination stage two."""
        if self.double:
            return tuple(self.n_group_rounds + r for r in self.knockout.final_rounds)
        return (self.n_rounds,)

    @property
    def rounds(self) -> tuple[tuple[bk.Table, ...], ...]:
        """What the draw stores: group round one, by seed."""
        return (self.group_tables(1),)

    def tables(self) -> list[bk.Table]:
        return list(self.group_tables(1))

    def in_groups(self, ref) -> bool:
        return ref[0] <= self.n_group_rounds

    def group_tables(self, number: int) -> tuple[bk.Table, ...]:
        """Group round ``number``'s tables by seed (a Swiss group stage knows round one
        only); a Swiss bye sits alone, seats ``(seed, None)``."""
        return tuple(
            bk.Table(bk.TableRef(number, position), seats, 2)
            for position, (_, seats) in enumerate(self.group_rounds[number - 1])
        )

    def group_of(self, ref) -> int | None:
        """The group a stage-one table belongs to (0-based), None in the bracket."""
        if not self.in_groups(ref):
            return None
        if self.swiss_groups and ref[0] > 1:
            raise ValueError("a Swiss group round's tables are paired in play")
        return self.group_rounds[ref[0] - 1][ref[1]][0]

    def _inner(self, ref) -> bk.TableRef:
        return bk.TableRef(ref[0] - self.n_group_rounds, ref[1])

    def _outer(self, ref) -> bk.TableRef:
        return bk.TableRef(ref[0] + self.n_group_rounds, ref[1])

    def _shift(self, table: bk.Table) -> bk.Table:
        return bk.Table(
            self._outer(table.ref),
            table.seats,
            table.capacity,
            tuple(self._outer(f) for f in table.feeders),
            tuple(bk.Slot(self._outer(s.table), s.seat) for s in table.feeds_into),
            table.third_place,
        )

    def knockout_tables(self) -> list[bk.Table]:
        """Stage two's tables, by qualifier seed, in rounds numbered after the groups."""
        return [self._shift(t) for t in self.knockout.tables()]

    def table(self, ref) -> bk.Table:
        ref = bk.TableRef(*ref)
        if ref.round < 1 or ref.round > self.n_rounds:
            raise ValueError(f"no table {tuple(ref)} in this event")
        if self.in_groups(ref):
            return bk.Table(ref, (None, None), 2)
        return self._shift(self.knockout.table(self._inner(ref)))

    def walkover(self, ref, present: Sequence[Hashable]) -> tuple | None:
        if self.in_groups(ref):
            return tuple(present) if len(present) < 2 else None
        if self.double:
            return self.knockout.walkover(self._inner(ref), present)
        return bk.walkover(self.knockout, self._inner(ref), present)

    def moves(
        self,
        ref,
        ranking: Sequence[Hashable],
        seated: Sequence[Hashable | None] = (),
        gone: Collection[Hashable] = (),
    ) -> tuple[bk.Move, ...]:
        if self.in_groups(ref):
            return ()
        if self.double:
            inner = self.knockout.moves(self._inner(ref), ranking, seated, gone)
        else:
            inner = bk.advance(self.knockout, self._inner(ref), ranking)
        return tuple(
            bk.Move(m.entry, bk.Slot(self._outer(m.slot.table), m.slot.seat)) for m in inner
        )

    def stage(self, ref) -> int:
        """What `Entry.out_round` records for an entry whose last table is this one: the
        round in a group or a single-elimination stage two; in a double-elimination stage
        two, the group rounds plus the double bracket's stage (at least 1, so a knock-out
        entry always ranks above those out in the groups)."""
        if self.double and not self.in_groups(ref):
            return self.n_group_rounds + max(1, self.knockout.stage(self._inner(ref)))
        return ref[0]


def build_two_stage(
    n_entries: int,
    n_groups: int,
    advance: int,
    *,
    second_stage: str = "single",
    grand_final: str = "reset",
    group_stage: str = "round_robin",
    swiss_rounds: int | None = None,
) -> TwoStageLayout:
    """Groups dealt snake-wise from seeds 1..n, their round robins, then the bracket of
    the top ``advance`` of each group (fewer from a group too small to send them): a
    single-elimination bracket, or with ``second_stage="double"`` a double-elimination
    one with this ``grand_final``. With ``group_stage="swiss"`` each group plays
    ``swiss_rounds`` Swiss rounds (default: `swiss.default_rounds` of the largest group)."""
    if group_stage not in ("round_robin", "swiss"):
        raise ValueError(f"group_stage must be 'round_robin' or 'swiss', got {group_stage!r}")
    if second_stage not in ("single", "double"):
        raise ValueError(f"second_stage must be 'single' or 'double', got {second_stage!r}")
    groups = two_stage.draw_groups(list(range(1, n_entries + 1)), n_groups)
    qualifiers = sum(min(advance, len(group)) for group in groups)
    if second_stage == "double":
        knockout = build_layout(qualifiers, grand_final=grand_final)
    else:
        knockout = bk.build_bracket(qualifiers)
    if group_stage == "swiss":
        n_rounds = swiss_rounds or max(swiss.default_rounds(len(group)) for group in groups)
        first = []
        for g, group in enumerate(groups):
            pairing = swiss.pair_round(group)
            first.extend((g, pair) for pair in pairing.pairs)
            if pairing.bye is not None:
                first.append((g, (pairing.bye, None)))
        return TwoStageLayout(n_entries, groups, (tuple(first),), knockout, n_rounds)
    schedules = [two_stage.group_schedule(group) for group in groups]
    rounds = []
    for r in range(max(len(s) for s in schedules)):
        rounds.append(
            tuple(
                (g, (p.home, p.away))
                for g, schedule in enumerate(schedules)
                if r < len(schedule)
                for p in schedule[r].pairings
            )
        )
    return TwoStageLayout(n_entries, groups, tuple(rounds), knockout)
