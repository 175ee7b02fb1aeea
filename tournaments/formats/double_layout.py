"""A double-elimination bracket in the knock-out's vocabulary, for the services to store.

The services store and advance any bracket as tables at (round, position) refs, fed by
earlier tables (`tournaments.bracket`). `DoubleLayout` lays `double.build_double` out that
way, still on plain data:

* rounds are numbered once across the event, every winners' round first, then every
  losers' round, then the grand final (and its reset): each table comes after all of its
  feeders, so the table rows' primary keys follow the bracket and locks taken in key order
  go forward through it, as they do in a knock-out;
* a winners' table feeds two tables (its winner's and its loser's), a losers' table one,
  the first grand final always the reset, which is decided empty when it is not needed;
* `advance` needs the seated players and who left the event (disqualified or withdrew):
  a winners' loser drops to the losers' bracket unless they left.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass, field

from tournaments import bracket as bk
from tournaments.formats import double

SIDE_NAMES = {"W": "Winners' round", "L": "Losers' round", "F": "Grand final"}


def side_round_name(side: str, number: int, side_rounds: int) -> str:
    """A round's name on the page: the finals of each side by name, others by number."""
    if side == "F":
        return "Grand final" if number == 1 else "Grand final reset"
    if number == side_rounds:
        return "Winners' final" if side == "W" else "Losers' final"
    return f"{SIDE_NAMES[side]} {number}"


@dataclass(frozen=True, slots=True)
class DoubleLayout:
    bracket: double.DoubleBracket
    rounds: tuple[tuple[bk.Table, ...], ...]
    sides: tuple[tuple[str, int], ...]  # (side, round within the side) per global round
    _to_ref: dict[double.MatchRef, bk.TableRef] = field(repr=False, compare=False)
    _index: dict[bk.TableRef, bk.Table] = field(repr=False, compare=False)

    # What the knock-out's Bracket also answers, so the services treat both alike.
    table_size = 2
    advance = 1
    third_place = False

    @property
    def n_entries(self) -> int:
        return self.bracket.n_entries

    @property
    def n_rounds(self) -> int:
        return len(self.rounds)

    @property
    def final(self) -> bk.Table:
        return self.rounds[-1][0]

    def table(self, ref) -> bk.Table:
        try:
            return self._index[bk.TableRef(*ref)]
        except KeyError:
            raise ValueError(f"no table {tuple(ref)} in this bracket") from None

    def tables(self) -> list[bk.Table]:
        return [t for rnd in self.rounds for t in rnd]

    def match_ref(self, ref) -> double.MatchRef:
        side, side_round = self.sides[ref[0] - 1]
        return double.MatchRef(side, side_round, ref[1])

    def side_rounds(self, side: str) -> int:
        return sum(1 for s, _ in self.sides if s == side)

    def round_name(self, number: int) -> str:
        side, side_round = self.sides[number - 1]
        return side_round_name(side, side_round, self.side_rounds(side))

    def stage(self, ref) -> int:
        """Where an entry knocked out at this table is placed (higher is better)."""
        return self.bracket.match(self.match_ref(ref)).stage

    @property
    def final_rounds(self) -> tuple[int, ...]:
        """The grand final's round numbers, first match first."""
        return tuple(i for i, (side, _) in enumerate(self.sides, start=1) if side == "F")

    def walkover(self, ref, present: Sequence[Hashable]) -> tuple | None:
        return double.walkover(self.bracket, self.match_ref(ref), present)

    def moves(
        self,
        ref,
        ranking: Sequence[Hashable],
        seated: Sequence[Hashable | None],
        gone: Collection[Hashable] = (),
    ) -> tuple[bk.Move, ...]:
        """Where the players of a decided table sit next.

        ``ranking`` is the table's result (its winner first; empty when nobody played),
        ``seated`` the two seats' entries, ``gone`` the entries that left the event.
        """
        seats = [*seated, None, None][:2]
        winner = ranking[0] if ranking else None
        loser = next((e for e in seats if e is not None and e != winner), None)
        moves = double.advance(
            self.bracket,
            self.match_ref(ref),
            seats,
            winner,
            loser_out=winner is not None and loser in gone,
        )
        return tuple(
            bk.Move(m.entry, bk.Slot(self._to_ref[m.slot.match], m.slot.seat)) for m in moves
        )


def build_layout(n_entries: int, *, grand_final: double.GrandFinal = "reset") -> DoubleLayout:
    """The double bracket for seeds 1..n, as tables in rounds numbered across the event."""
    bracket = double.build_double(n_entries, grand_final=grand_final)
    side_rounds = [*bracket.winners, *bracket.losers, *([m] for m in bracket.finals)]
    sides = tuple((rnd[0].ref.side, rnd[0].ref.round) for rnd in side_rounds)
    to_ref = {
        m.ref: bk.TableRef(number, m.ref.position)
        for number, rnd in enumerate(side_rounds, start=1)
        for m in rnd
    }
    # One Slot per (match, seat), shared by the table feeding it: 4,096 entries lay out
    # 8,191 tables, and the draw builds this inside its transaction.
    slot_of = {
        (match, seat): bk.Slot(ref, seat) for match, ref in to_ref.items() for seat in (0, 1)
    }
    first_final = double.MatchRef("F", 1, 0)
    reset = double.MatchRef("F", 2, 0)
    rounds = []
    for rnd in side_rounds:
        tables = []
        for m in rnd:
            slots = [s for s in (m.winner_to, m.loser_to) if s is not None]
            if grand_final == "reset" and m.ref == first_final:
                slots = [double.Slot(reset, 0), double.Slot(reset, 1)]
            tables.append(
                bk.Table(
                    to_ref[m.ref],
                    m.seeds,
                    2,
                    tuple([to_ref[f] for f in m.feeders]),
                    tuple([slot_of[s] for s in slots]),
                )
            )
        rounds.append(tuple(tables))
    index = {t.ref: t for rnd in rounds for t in rnd}
    return DoubleLayout(bracket, tuple(rounds), sides, to_ref, index)
