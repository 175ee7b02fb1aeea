"""Swiss standings: score, then tie-breaks chosen by the organiser, in the order chosen.

Each tie-break is a key (Tabbycat's ``standings/metrics.py`` habit: a tournament stores an
ordered list of keys), computed from the list of games alone, following the definitions of
the FIDE Tie-Break Regulations (FIDE Handbook C.07):

* ``buchholz`` -- the sum of the final scores of the player's opponents.
* ``median_buchholz`` -- Buchholz without the highest and the lowest opponent score (the
  Harkness or "median" Buchholz: C.07's Median1 modifier); with fewer than three
  opponents nothing is cut.
* ``sonneborn_berger`` -- the sum, over games, of the points scored against an opponent times
  that opponent's final score: a win counts the opponent's whole score, a draw half.
* ``head_to_head`` -- among the players still tied on everything before it, the points each
  scored in the games between them (C.07's "direct encounter"). FIDE applies it only when
  every tied player met every other; we apply the points as they stand, a simplification that
  can only separate players who did meet.
* ``rating`` -- the higher rating (``ratings`` given by the caller), e.g. Knock's OpenSkill
  ordinal at registration.
* ``wins`` -- the number of games won (C.07's number of wins), byes not counted.

Byes: a bye is worth a win in the score (`swiss.BYE_POINTS`), and adds nothing to Buchholz or
Sonneborn-Berger, since no opponent was faced. (FIDE's regulations have at times scored an
unplayed round against a "virtual opponent"; we keep the simpler rule and say so here. The
bye goes to the lowest-ranked player, so it rarely touches the top of the table.)

Ties that survive every key share a rank (competition ranking: 1, 2, 2, 4); the list order
for them is the initial ranking the caller passed.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from tournaments.formats.swiss import WIN, Game, scores

E = TypeVar("E", bound=Hashable)

TIEBREAKS = (
    "buchholz",
    "median_buchholz",
    "sonneborn_berger",
    "head_to_head",
    "rating",
    "wins",
)
DEFAULT_TIEBREAKS = ("buchholz", "sonneborn_berger", "head_to_head")


@dataclass(frozen=True, slots=True)
class Standing:
    """A row of the standings: rank (shared when tied), score, and each chosen tie-break."""

    rank: int
    entry: Hashable
    score: float
    tiebreaks: tuple[tuple[str, float], ...]


def standings(
    players: Sequence[E],
    games: Sequence[Game[E]],
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
    ratings: Mapping[E, float] | None = None,
) -> list[Standing]:
    """The standings of ``players`` (initial ranking order) after ``games``."""
    unknown = [t for t in tiebreaks if t not in TIEBREAKS]
    if unknown:
        raise ValueError(f"unknown tie-break {unknown[0]!r}; choose from {', '.join(TIEBREAKS)}")
    if len(set(tiebreaks)) != len(tiebreaks):
        raise ValueError("a tie-break is listed twice")
    if "rating" in tiebreaks and ratings is None:
        raise ValueError("the rating tie-break needs ratings")
    players = list(players)
    score = scores(games)
    opponents: dict[E, list[E]] = {p: [] for p in players}
    earned: dict[E, list[tuple[E, float]]] = {p: [] for p in players}
    for g in games:
        if g.second is None:
            continue
        for me, them, pts in ((g.first, g.second, g.result), (g.second, g.first, WIN - g.result)):
            if me in opponents:
                opponents[me].append(them)
                earned[me].append((them, pts))

    def opp_scores(p: E) -> list[float]:
        return sorted(score.get(o, 0.0) for o in opponents[p])

    values: dict[str, dict[E, float]] = {}
    for key in tiebreaks:
        if key == "buchholz":
            values[key] = {p: sum(opp_scores(p)) for p in players}
        elif key == "median_buchholz":
            values[key] = {
                p: sum(s[1:-1]) if len(s := opp_scores(p)) >= 3 else sum(s) for p in players
            }
        elif key == "sonneborn_berger":
            values[key] = {p: sum(pts * score.get(o, 0.0) for o, pts in earned[p]) for p in players}
        elif key == "rating":
            values[key] = {p: float(ratings.get(p, 0.0)) for p in players}
        elif key == "wins":
            values[key] = {p: float(sum(pts == WIN for _, pts in earned[p])) for p in players}
    # Keys in order; head-to-head is computed within the group tied on the keys before it.
    keyed: dict[E, list[float]] = {p: [score.get(p, 0.0)] for p in players}
    for key in tiebreaks:
        if key != "head_to_head":
            for p in players:
                keyed[p].append(values[key][p])
            continue
        tied: dict[tuple[float, ...], set[E]] = {}
        for p in players:
            tied.setdefault(tuple(keyed[p]), set()).add(p)
        values[key] = {}
        for p in players:
            group = tied[tuple(keyed[p])]
            h2h = sum(pts for o, pts in earned[p] if o in group) if len(group) > 1 else 0.0
            values[key][p] = h2h
        for p in players:
            keyed[p].append(values[key][p])
    order = sorted(range(len(players)), key=lambda i: ([-x for x in keyed[players[i]]], i))
    rows: list[Standing] = []
    for pos, i in enumerate(order):
        p = players[i]
        same = rows and keyed[rows[-1].entry] == keyed[p]
        rows.append(
            Standing(
                rank=rows[-1].rank if same else pos + 1,
                entry=p,
                score=keyed[p][0],
                tiebreaks=tuple((k, values[k][p]) for k in tiebreaks),
            )
        )
    return rows
