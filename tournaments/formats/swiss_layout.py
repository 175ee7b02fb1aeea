"""A Swiss event in the knock-out's vocabulary, for the services to store.

The services store any event as tables at (round, position) refs (`tournaments.bracket`).
A Swiss event has no fixed bracket: its tables are independent (nobody is fed from one table
to another, nobody is eliminated) and each round is paired when the one before is over,
from the games played (`swiss.pair_round`). So `SwissLayout` holds only round one, paired by
seed before any game, for the draw; every later round's tables are written by the pairing
service, and any table of any round answers `table` with the same plain spec.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from tournaments import bracket as bk
from tournaments.formats import swiss, swiss_tables


@dataclass(frozen=True, slots=True)
class SwissLayout:
    n_entries: int
    n_rounds: int
    rounds: tuple[tuple[bk.Table, ...], ...]  # round one only: later rounds are paired in play
    table_size: int = 2

    advance = 1
    third_place = False

    def table(self, ref) -> bk.Table:
        ref = bk.TableRef(*ref)
        if not 1 <= ref.round <= self.n_rounds:
            raise ValueError(f"no round {ref.round} in this Swiss event")
        return bk.Table(ref, (None,) * self.table_size, self.table_size)

    def tables(self) -> list[bk.Table]:
        return [t for rnd in self.rounds for t in rnd]

    def walkover(self, ref, present: Sequence[Hashable]) -> tuple | None:
        """A table with one player present is theirs (a bye, or an absent opponent's
        loss); with nobody, nobody scores."""
        self.table(ref)
        return tuple(present) if len(present) < 2 else None

    def moves(self, ref, ranking, seated=(), gone=()) -> tuple[bk.Move, ...]:
        return ()  # nobody is seated ahead: the next round is paired from the results

    def stage(self, ref) -> int:
        return bk.TableRef(*ref).round


def round_tables(
    round_number: int, pairing: swiss.Pairing | swiss_tables.TableRound, table_size: int = 2
) -> tuple[bk.Table, ...]:
    """A paired round as tables in board order, seats in seat order (seat 0 starts); then
    each bye or sit-out alone at a table of its own, which is theirs without play."""
    if isinstance(pairing, swiss.Pairing):
        seated, alone = pairing.pairs, [] if pairing.bye is None else [pairing.bye]
    else:
        seated, alone = pairing.tables, list(pairing.sitting_out)
    rows = [*seated, *((entry,) for entry in alone)]
    return tuple(
        bk.Table(
            bk.TableRef(round_number, board),
            tuple(entries) + (None,) * (table_size - len(entries)),
            table_size,
        )
        for board, entries in enumerate(rows)
    )


def default_rounds(n_entries: int, table_size: int = 2) -> int:
    """Head-to-head: ceil(log2 n) (`swiss.default_rounds`). At tables of k: ceil(log_k n)
    rounds, plus one, at least two; a table's winner is one of k, not one of two, so fewer
    rounds separate the top, and the extra round lets the leaders meet."""
    if table_size == 2:
        return swiss.default_rounds(n_entries)
    return max(2, math.ceil(math.log(n_entries, table_size) - 1e-9) + 1)


def build_swiss_layout(
    n_entries: int,
    n_rounds: int | None = None,
    table_size: int = 2,
    points: tuple[float, ...] = (),
) -> SwissLayout:
    """Round one for seeds 1..n paired by the Swiss rules: head-to-head, top half meets
    bottom half; at tables, seeds dealt in order with the sit-outs at the bottom."""
    rounds = n_rounds or default_rounds(n_entries, table_size)
    seeds = list(range(1, n_entries + 1))
    if table_size == 2:
        first = swiss.pair_round(seeds)
    else:
        first = swiss_tables.pair_tables(
            seeds, table_size=table_size, points=points or swiss_tables.DEFAULT_POINTS
        )
    return SwissLayout(n_entries, rounds, (round_tables(1, first, table_size),), table_size)
