"""Double elimination on plain data: winners' bracket, losers' bracket, grand final.

Shape
-----
With ``n`` entries the winners' bracket (side ``"W"``) is the single-elimination bracket of
`tournaments.bracket` for ``S = 2^k >= n`` slots: round-one pairs in standard seeding order
(seeds 1 and 2 can meet only in its final) with byes to the top seeds. Everyone who loses in
it drops into the losers' bracket (side ``"L"``); losing there eliminates. The two champions
meet in the grand final (side ``"F"``).

The losers' bracket has ``2(k - 1)`` rounds, the common layout of Challonge, start.gg and
brackets-manager.js:

* round 1 pairs the losers of winners' round 1 (losers of matches ``2p`` and ``2p + 1``);
* round ``2j - 2`` (``j = 2 .. k``) is a *drop-in* round: the survivor of the round before
  (seat 0) meets a loser of winners' round ``j`` (seat 1);
* round ``2j - 1`` (``j = 2 .. k - 1``) is a *minor* round: survivors meet each other.

Its last round is the losers' final, against the loser of the winners' final. The grand final
is one match (``grand_final="simple"``) or, with ``"reset"``, a second match that is played
only when the losers' champion wins the first, so that nobody is eliminated before two
losses. A full bracket of ``S`` entries has ``S - 1`` winners' matches, ``S - 2`` losers'
matches and the grand final: ``2S - 2`` matches, ``2S - 1`` with a reset. With byes, matches
with fewer than two players are not played, and every played match gives exactly one loss.
With a reset, everyone but the champion leaves with two losses and the champion has at most
one; a simple grand final makes one exception, the winners' champion beaten once in it. So a
played-out bracket of ``n`` entries has exactly ``2n - 2`` matches, or ``2n - 1`` when the
reset is played (counted with `Outcome.match_count`).

Losers' seeding (avoiding rematches)
------------------------------------
Where a winners' loser drops decides whether they meet again someone they already played.
A loser of winners' round ``j`` has met only players of their own round-``j`` sub-bracket,
so a drop-in should face a survivor whose path started elsewhere, and the players they beat
(who dropped earlier) should be on the other side of the losers' bracket. We use the four
orderings of brackets-manager.js (after the "superior double elimination losers bracket
seeding" note on tl.net): ``natural``, ``reverse``, ``half_shift`` (swap the halves) and
``reverse_half_shift`` (reverse each half in place). Losers of winners' round 1 drop in
natural order (they have met nobody but their winner); the drops from round ``j >= 2`` cycle
through ``half_shift``, ``reverse``, ``reverse_half_shift`` (`drop_ordering`).

We chose the cycle by measurement: for every assignment of the four orderings to the drop-in
rounds of 16-, 32- and 64-slot brackets we played random results and recorded the earliest
losers' round with a rematch. This cycle matches the best assignment found at 16 and 32
slots (first rematch in losers' round 4 of 6 and 5 of 8), and in 40-100 random events per
size its first rematch came in round 7 of 10 at 64 slots and round 8 at 128 and 256 slots,
where plain reverse / half-shift alternation already had one in round 6. Some rematches
cannot be avoided at all: with four entries the losers' final may bring back the player the
winners' finalist beat in round one. What the property tests check under random
results: the losers' first two rounds never hold a rematch from 8 slots on (by construction:
a round-2 loser from sub-bracket ``m`` meets a survivor from sub-bracket ``m + c/2``), nor
does round 3 from 16 slots on, nor round 4 from 32 slots on.

Advancement
-----------
`walkover` decides a match with fewer than two players present (a bye at the draw, a no-show,
a match whose feeder sent nobody). `advance` turns a result into the seats its two players
take next. A no-show forfeits the match and takes the loss as if beaten (in the winners'
bracket they drop into the losers' bracket); ``loser_out=True`` is for a disqualification or
withdrawal: the loser goes nowhere, in either bracket. A match neither player turns up for
sends nobody on (both leave the event there, one loss each) and the next seats stay empty.
`play_out` chains both through a whole bracket and computes the placings: champion 1,
runner-up 2, losers' final loser 3, then the losers of each earlier losers' round share a
place (4, 5, 7, 9, 13, ... in a full bracket), the usual competition ranking.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Literal, NamedTuple, TypeVar

from tournaments.bracket import first_round

E = TypeVar("E", bound=Hashable)

GrandFinal = Literal["simple", "reset"]
Ordering = Literal["natural", "reverse", "half_shift", "reverse_half_shift"]


class MatchRef(NamedTuple):
    """A match's stable address: side ``W``/``L``/``F``, 1-based round, 0-based position."""

    side: str
    round: int
    position: int


class Slot(NamedTuple):
    """A seat (0 or 1) at a later match."""

    match: MatchRef
    seat: int


class Move(NamedTuple):
    """An entry taking a seat at a later match."""

    entry: Hashable
    slot: Slot


@dataclass(frozen=True, slots=True)
class Match:
    """One match. ``seeds`` is filled in winners' round one only (``None`` for a bye).

    ``winner_to``/``loser_to`` say where its winner and loser go (``None``: champion, or out).
    ``stage`` orders eliminations for placings: a player knocked out here is placed by it
    (losers' round ``r`` is stage ``r``, the grand final ``2k - 1``; a winners' match carries
    the stage of the losers' round its loser drops into, for a loser who leaves at once).
    ``reset`` marks the second grand final, played only if the losers' champion wins the first.
    """

    ref: MatchRef
    seeds: tuple[int | None, int | None]
    winner_to: Slot | None
    loser_to: Slot | None
    feeders: tuple[MatchRef, ...]
    stage: int
    reset: bool = False


@dataclass(frozen=True, slots=True)
class DoubleBracket:
    n_entries: int
    grand_final: GrandFinal
    winners: tuple[tuple[Match, ...], ...]
    losers: tuple[tuple[Match, ...], ...]
    finals: tuple[Match, ...]
    _index: dict[MatchRef, Match] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        self._index.update({m.ref: m for m in self.matches()})

    def match(self, ref: MatchRef) -> Match:
        try:
            return self._index[MatchRef(*ref)]
        except KeyError:
            raise ValueError(f"no match {tuple(ref)} in this bracket") from None

    def matches(self) -> list[Match]:
        """Every match in an order where each comes after its feeders."""
        return [
            *(m for rnd in self.winners for m in rnd),
            *(m for rnd in self.losers for m in rnd),
            *self.finals,
        ]


def ordering(kind: Ordering, count: int) -> list[int]:
    """``result[m]`` is the position match ``m``'s loser takes among ``count`` drop-in slots.

    ``natural`` keeps the order, ``reverse`` turns it upside down, ``half_shift`` swaps the
    two halves and ``reverse_half_shift`` reverses each half in place: the names and meanings
    of brackets-manager.js's seed orderings.
    """
    half = count // 2
    if kind == "natural" or count == 1:
        return list(range(count))
    if kind == "reverse":
        return [count - 1 - m for m in range(count)]
    if kind == "half_shift":
        return [(m + half) % count for m in range(count)]
    if kind == "reverse_half_shift":
        return [(half - 1 - m) % count for m in range(count)]
    raise ValueError(f"unknown ordering {kind!r}")


DROP_CYCLE: tuple[Ordering, ...] = ("half_shift", "reverse", "reverse_half_shift")


def drop_ordering(winners_round: int) -> Ordering:
    """Where losers of a winners' round drop: see the module docstring."""
    if winners_round == 1:
        return "natural"
    return DROP_CYCLE[(winners_round - 2) % len(DROP_CYCLE)]


def build_double(n_entries: int, *, grand_final: GrandFinal = "reset") -> DoubleBracket:
    """The whole double-elimination bracket for seeds 1..n (1 is the best)."""
    if not isinstance(n_entries, int) or n_entries < 2:
        raise ValueError(f"a bracket needs at least 2 entries, got {n_entries!r}")
    if grand_final not in ("simple", "reset"):
        raise ValueError(f"grand_final must be 'simple' or 'reset', got {grand_final!r}")
    first = first_round(n_entries)
    k = len(first).bit_length()  # len(first) == 2^(k-1)
    lb_rounds = 2 * (k - 1)
    final_stage = lb_rounds + 1
    f1 = MatchRef("F", 1, 0)

    def lb_count(r: int) -> int:
        # Rounds 2j-3 and 2j-2 both have S / 2^j matches.
        j = (r + 3) // 2
        return 1 << (k - j)

    winners: list[tuple[Match, ...]] = []
    for j in range(1, k + 1):
        count = 1 << (k - j)
        order = ordering(drop_ordering(j), lb_count(max(2 * j - 2, 1))) if k > 1 else [0]
        rnd = []
        for m in range(count):
            ref = MatchRef("W", j, m)
            to = Slot(MatchRef("W", j + 1, m // 2), m % 2) if j < k else Slot(f1, 0)
            if k == 1:
                drop = Slot(f1, 1)
            elif j == 1:
                drop = Slot(MatchRef("L", 1, m // 2), m % 2)
            else:
                drop = Slot(MatchRef("L", 2 * j - 2, order[m]), 1)
            feeders = (
                () if j == 1 else (MatchRef("W", j - 1, 2 * m), MatchRef("W", j - 1, 2 * m + 1))
            )
            seeds = first[m] if j == 1 else (None, None)
            # A winners' loser who leaves at once (disqualified) is placed with the losers of
            # the losers' round they would have dropped into.
            stage = 0 if k == 1 else (1 if j == 1 else 2 * j - 2)
            rnd.append(Match(ref, seeds, to, drop, feeders, stage))
        winners.append(tuple(rnd))

    # Feeders of each losers' match from the winners' side: the inverse of loser_to.
    dropped_in: dict[MatchRef, list[MatchRef]] = {}
    for rnd in winners:
        for m in rnd:
            if m.loser_to is not None:
                dropped_in.setdefault(m.loser_to.match, []).append(m.ref)
    losers: list[tuple[Match, ...]] = []
    for r in range(1, lb_rounds + 1):
        rnd = []
        count = lb_count(r)
        for p in range(count):
            ref = MatchRef("L", r, p)
            if r == lb_rounds:
                to = Slot(f1, 1)
            elif r % 2 == 1:  # round 1 or a minor round: the survivor meets a drop-in next
                to = Slot(MatchRef("L", r + 1, p), 0)
            else:  # a drop-in round: survivors meet each other next
                to = Slot(MatchRef("L", r + 1, p // 2), p % 2)
            if r == 1:
                feeders = tuple(dropped_in.get(ref, ()))
            elif r % 2 == 0:
                feeders = (MatchRef("L", r - 1, p), *dropped_in.get(ref, ()))
            else:
                feeders = (MatchRef("L", r - 1, 2 * p), MatchRef("L", r - 1, 2 * p + 1))
            rnd.append(Match(ref, (None, None), to, None, feeders, stage=r))
        losers.append(tuple(rnd))

    # With two entries there is no losers' bracket: the final's loser meets the winner again.
    f1_feeders = (
        (MatchRef("W", k, 0), MatchRef("L", lb_rounds, 0)) if lb_rounds else (MatchRef("W", 1, 0),)
    )
    if grand_final == "reset":
        f2 = MatchRef("F", 2, 0)
        finals = (
            Match(f1, (None, None), None, None, f1_feeders, stage=final_stage),
            Match(f2, (None, None), None, None, (f1,), stage=final_stage, reset=True),
        )
    else:
        finals = (Match(f1, (None, None), None, None, f1_feeders, stage=final_stage),)
    return DoubleBracket(n_entries, grand_final, tuple(winners), tuple(losers), finals)


def walkover(bracket: DoubleBracket, ref: MatchRef, present: Sequence[E]) -> tuple[E, ...] | None:
    """The match decided without play, or ``None`` when it must be played.

    Call it when both feeders are done (and at the deadline with whoever showed up). With one
    player present that player wins; with nobody, ``()``: nobody goes on and the next match
    has an empty seat. A second grand final is never played without two players.
    """
    bracket.match(ref)
    if len(set(present)) != len(present) or len(present) > 2:
        raise ValueError(f"match {tuple(ref)} takes two different players, got {list(present)}")
    return tuple(present) if len(present) < 2 else None


def advance(
    bracket: DoubleBracket,
    ref: MatchRef,
    seats: Sequence[E | None],
    winner: E | None,
    *,
    loser_out: bool = False,
) -> tuple[Move, ...]:
    """Where the players of a decided match sit next.

    ``seats`` are the two players seated at the match (``None`` for an empty seat), ``winner``
    the one who won (by play, walkover or forfeit; ``None`` when neither showed up: then
    nobody goes on). The loser drops from the winners' to the losers' bracket, unless
    ``loser_out`` (disqualified, withdrew): then they go nowhere. In the grand final with a
    reset, a win by the losers' champion (seat 1) sends both players to the second final.
    """
    match = bracket.match(ref)
    if len(seats) != 2:
        raise ValueError(f"match {tuple(ref)} has two seats, got {list(seats)}")
    if winner is None:
        return ()
    if winner not in seats:
        raise ValueError(f"match {tuple(ref)}: {winner!r} is not seated here")
    loser = seats[1] if seats[0] == winner else seats[0]
    if match.ref == MatchRef("F", 1, 0):
        if bracket.grand_final == "reset" and winner == seats[1] and loser is not None:
            if loser_out:
                return ()
            f2 = MatchRef("F", 2, 0)
            return (Move(seats[0], Slot(f2, 0)), Move(winner, Slot(f2, 1)))
        return ()
    moves = []
    if match.winner_to is not None:
        moves.append(Move(winner, match.winner_to))
    if loser is not None and match.loser_to is not None and not loser_out:
        moves.append(Move(loser, match.loser_to))
    return tuple(moves)


@dataclass(frozen=True, slots=True)
class Played:
    """A decided match: who sat, who won, and whether two players actually met."""

    ref: MatchRef
    seats: tuple[Hashable | None, Hashable | None]
    winner: Hashable | None
    contested: bool


@dataclass(frozen=True, slots=True)
class Outcome:
    champion: Hashable | None
    played: tuple[Played, ...]
    losses: dict[Hashable, int]
    places: dict[Hashable, int]

    @property
    def match_count(self) -> int:
        """Matches decided between two seated players (a forfeit counts, a bye does not)."""
        return sum(p.contested for p in self.played)


Play = Callable[[Match, tuple[E, E]], E]
Shows = Callable[[Match, E], bool]


def play_out(
    bracket: DoubleBracket,
    entries: Sequence[E],
    play: Play,
    shows: Shows = lambda match, entry: True,
    disqualified: Callable[[Match, E], bool] = lambda match, entry: False,
) -> Outcome:
    """Run a whole bracket: ``entries[i]`` has seed ``i + 1``.

    ``play(match, (a, b))`` returns the winner of a match both players turned up for. A
    player ``shows`` says is absent forfeits (a loss); one ``disqualified`` says is out after
    losing leaves both brackets. Placings follow the module docstring.
    """
    if len(entries) != bracket.n_entries:
        raise ValueError(f"the bracket has {bracket.n_entries} entries, got {len(entries)}")
    if len(set(entries)) != len(entries):
        raise ValueError("an entry is listed twice")
    seats: dict[MatchRef, list[E | None]] = {}
    for m in bracket.winners[0]:
        seats[m.ref] = [entries[s - 1] if s is not None else None for s in m.seeds]
    losses = {e: 0 for e in entries}
    stage_out: dict[E, int] = {}
    played: list[Played] = []
    champion = None
    for match in bracket.matches():
        at = seats.get(match.ref, [None, None])
        if match.reset and at == [None, None]:
            continue  # no reset: the first grand final decided it
        present = [e for e in at if e is not None and shows(match, e)]
        decided = walkover(bracket, match.ref, present)
        winner = decided[0] if decided else (None if decided == () else play(match, tuple(at)))
        seated = [e for e in at if e is not None]
        loser = next((e for e in seated if e != winner), None) if winner is not None else None
        contested = len(seated) == 2 and winner is not None
        played.append(Played(match.ref, (at[0], at[1]), winner, contested))
        out = loser is not None and disqualified(match, loser)
        if winner is None:
            for e in seated:  # neither turned up: both leave here
                stage_out[e] = match.stage
                losses[e] += 1
        if loser is not None:
            losses[loser] += 1
        moves = advance(bracket, match.ref, (at[0], at[1]), winner, loser_out=out)
        for entry, slot in moves:
            seats.setdefault(slot.match, [None, None])[slot.seat] = entry
        moved = {e for e, _ in moves}
        if loser is not None and loser not in moved:
            stage_out[loser] = match.stage
        if match.ref.side == "F" and winner is not None and not moved:
            champion = winner
    top = bracket.finals[0].stage + 1
    if champion is not None:
        stage_out[champion] = top
    places = _places(stage_out)
    return Outcome(champion, tuple(played), losses, places)


def _places(stage_out: dict[E, int]) -> dict[E, int]:
    """Competition ranking: 1 + the number of entries who went out at a later stage."""
    stages = sorted(stage_out.values(), reverse=True)
    first_at: dict[int, int] = {}
    for i, s in enumerate(stages):
        first_at.setdefault(s, i + 1)
    return {e: first_at[s] for e, s in stage_out.items()}
