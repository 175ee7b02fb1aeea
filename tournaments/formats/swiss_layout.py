"""A Swiss event in the knock-out's vocabulary, for the services to store.

The services store any event as tables at (round, position) refs (`tournaments.bracket`).
A Swiss event has no fixed bracket: its tables are independent (nobody is fed from one table
to another, nobody is eliminated) and each round is paired when the one before is over,
from the games played (`swiss.pair_round`). So `SwissLayout` holds only round one, paired by
seed before any game, for the draw; every later round's tables are written by the pairing
service, and any table of any round answers `table` with the same plain spec.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from tournaments import bracket as bk
from tournaments.formats import swiss


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


def round_tables(round_number: int, pairing: swiss.Pairing) -> tuple[bk.Table, ...]:
    """A paired round as tables: the pairs in board order, then the bye alone at a table."""
    tables = [
        bk.Table(bk.TableRef(round_number, board), (first, second), 2)
        for board, (first, second) in enumerate(pairing.pairs)
    ]
    if pairing.bye is not None:
        tables.append(bk.Table(bk.TableRef(round_number, len(tables)), (pairing.bye, None), 2))
    return tuple(tables)


def build_swiss_layout(n_entries: int, n_rounds: int | None = None) -> SwissLayout:
    """Round one for seeds 1..n paired by the Swiss rules (top half meets bottom half)."""
    rounds = n_rounds or swiss.default_rounds(n_entries)
    first = swiss.pair_round(list(range(1, n_entries + 1)))
    return SwissLayout(n_entries, rounds, (round_tables(1, first),))
