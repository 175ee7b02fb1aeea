"""League standings as pure functions: rows from results, ranking by tie-breakers, zones.

The recompute task ranks a division in the database with a window function; this module is
the reference it is property-tested against, and the ranking used where SQL cannot go (the
head-to-head mini-league). Tie-breakers are small metric objects with a key, as in Tabbycat's
``standings/metrics.py``: a league stores an ordered list of keys.

A result is one fixture's table: every player's finishing place (1 is best; equal places
between the best players are a draw) and game points. Head-to-head is a table of two. At a
multi-player table the sole best place wins, a shared best place draws, everyone else loses,
and game points against are the others' points added up.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

FORM_LENGTH = 5


class PointsRule(NamedTuple):
    """League points per result; configurable per league."""

    win: int = 3
    draw: int = 1
    loss: int = 0


DEFAULT_POINTS = PointsRule()


class Result(NamedTuple):
    """One finished fixture: places (1 is best) and game points per player, and its round."""

    round: int
    places: Mapping[Hashable, int]
    points: Mapping[Hashable, int]


@dataclass(frozen=True, slots=True)
class Row:
    """One player's line in a division table. ``rank`` is set by `rank_standings`."""

    player: Hashable
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    points: int = 0
    game_for: int = 0
    game_against: int = 0
    form: str = ""
    rating: float = 0.0
    rank: int | None = None

    @property
    def game_diff(self) -> int:
        return self.game_for - self.game_against


def outcomes(result: Result) -> dict[Hashable, str]:
    """ "W", "D" or "L" for each player at a table: sole best place wins, shared best draws."""
    if set(result.places) != set(result.points):
        raise ValueError("a result needs a place and game points for the same players")
    if len(result.places) < 2:
        raise ValueError("a result needs at least two players")
    best = min(result.places.values())
    shared = sum(place == best for place in result.places.values()) > 1
    return {
        p: ("D" if shared else "W") if place == best else "L" for p, place in result.places.items()
    }


def standings(
    players: Iterable[Hashable],
    results: Iterable[Result],
    *,
    points: PointsRule = DEFAULT_POINTS,
    ratings: Mapping[Hashable, float] | None = None,
) -> list[Row]:
    """Unranked rows for every player of a division, including those yet to play.

    Results count in round order (then the order given), which is the order of ``form``:
    the last five results, oldest first.
    """
    ratings = ratings or {}
    players = list(players)
    tally = {p: {"W": 0, "D": 0, "L": 0, "for": 0, "against": 0, "form": ""} for p in players}
    for result in sorted(results, key=lambda r: r.round):
        total = sum(result.points.values())
        for p, outcome in outcomes(result).items():
            if p not in tally:
                raise ValueError(f"result of round {result.round} names {p!r}, not in the division")
            line = tally[p]
            line[outcome] += 1
            line["for"] += result.points[p]
            line["against"] += total - result.points[p]
            line["form"] = (line["form"] + outcome)[-FORM_LENGTH:]
    return [
        Row(
            player=p,
            played=t["W"] + t["D"] + t["L"],
            won=t["W"],
            drawn=t["D"],
            lost=t["L"],
            points=t["W"] * points.win + t["D"] * points.draw + t["L"] * points.loss,
            game_for=t["for"],
            game_against=t["against"],
            form=t["form"],
            rating=ratings.get(p, 0.0),
        )
        for p, t in tally.items()
    ]


# --- metrics ----------------------------------------------------------------------------------


class Metric:
    """A tie-breaker: higher is better. ``sql`` says whether a window function can order by it
    (it reads only the row's own columns)."""

    key: str = ""
    label: str = ""
    sql: bool = True


class RowMetric(Metric):
    """A tie-breaker read from one column of the row itself."""

    attribute: str = ""

    def value(self, row: Row) -> float:
        return getattr(row, self.attribute)


class LeaguePoints(RowMetric):
    key, label, attribute = "points", "League points", "points"


class Wins(RowMetric):
    key, label, attribute = "wins", "Wins", "won"


class GameDiff(RowMetric):
    key, label, attribute = "game_diff", "Game-point difference", "game_diff"


class GameFor(RowMetric):
    key, label, attribute = "game_for", "Game points for", "game_for"


class Rating(RowMetric):
    key, label, attribute = "rating", "Rating", "rating"


class HeadToHead(Metric):
    """League points in the mini-league of results among exactly the players still tied.

    Each result is cut down to the tied players who took part; with at least two of them it
    counts as a table of its own, their places deciding win, draw or loss between them.
    """

    key, label = "head_to_head", "Head-to-head"
    sql = False

    def mini_points(
        self, group: Sequence[Row], results: Iterable[Result], points: PointsRule
    ) -> dict[Hashable, int]:
        tied = {row.player for row in group}
        scored = dict.fromkeys(tied, 0)
        award = {"W": points.win, "D": points.draw, "L": points.loss}
        for result in results:
            among = [p for p in result.places if p in tied]
            if len(among) < 2:
                continue
            sub = Result(
                result.round,
                {p: result.places[p] for p in among},
                {p: result.points[p] for p in among},
            )
            for p, outcome in outcomes(sub).items():
                scored[p] += award[outcome]
        return scored


METRICS: dict[str, Metric] = {
    m.key: m for m in (LeaguePoints(), Wins(), HeadToHead(), GameDiff(), GameFor(), Rating())
}
DEFAULT_TIEBREAKERS = ("points", "wins", "head_to_head", "game_diff", "game_for", "rating")


def metrics(tiebreakers: Sequence[str]) -> list[Metric]:
    """The metric objects for a list of keys; unknown or repeated keys are refused."""
    unknown = [k for k in tiebreakers if k not in METRICS]
    if unknown:
        raise ValueError(f"unknown tie-breaker {unknown[0]!r}; choose from {sorted(METRICS)}")
    if len(set(tiebreakers)) != len(tiebreakers):
        raise ValueError(f"a tie-breaker is listed twice: {list(tiebreakers)}")
    return [METRICS[k] for k in tiebreakers]


def sql_sortable(tiebreakers: Sequence[str]) -> bool:
    """Whether a window function can rank with these keys alone (no head-to-head)."""
    return all(m.sql for m in metrics(tiebreakers))


def sort_key(row: Row, tiebreakers: Sequence[str] = DEFAULT_TIEBREAKERS) -> tuple[float, ...]:
    """The ordering of the SQL-computable metrics, ascending = better (head-to-head skipped).

    The database twin is ``RANK() OVER (ORDER BY points DESC, won DESC, ...)`` in the same key
    order, and ties in this key share a rank; display order within a tie is by player id.
    """
    return tuple(-m.value(row) for m in metrics(tiebreakers) if m.sql)


def rank_standings(
    rows: Iterable[Row],
    results: Iterable[Result] = (),
    *,
    tiebreakers: Sequence[str] = DEFAULT_TIEBREAKERS,
    points: PointsRule = DEFAULT_POINTS,
) -> list[Row]:
    """Rows in table order with ``rank`` set, applying the tie-breakers in order.

    Rows equal on every tie-breaker share a rank (competition ranking: 1, 2, 2, 4) and are
    listed by player id. Head-to-head looks only at the players tied at that point, so the
    same result can decide one tie and not another. ``points`` scores the mini-league.
    """
    chosen = metrics(tiebreakers)
    results = list(results)
    rows = list(rows)
    if len({r.player for r in rows}) != len(rows):
        raise ValueError("a player has two rows")
    groups: list[list[Row]] = [rows]
    for metric in chosen:
        refined: list[list[Row]] = []
        for group in groups:
            if len(group) == 1:
                refined.append(group)
                continue
            if isinstance(metric, HeadToHead):
                mini = metric.mini_points(group, results, points)
                value = {r.player: mini[r.player] for r in group}
            else:
                value = {r.player: metric.value(r) for r in group}
            for v in sorted({value[r.player] for r in group}, reverse=True):
                refined.append([r for r in group if value[r.player] == v])
        groups = refined
    ranked: list[Row] = []
    for group in groups:
        rank = len(ranked) + 1
        ranked.extend(
            dataclasses.replace(r, rank=rank) for r in sorted(group, key=lambda r: r.player)
        )
    return ranked


# --- movement and zones -----------------------------------------------------------------------


def movement(previous_rank: int | None, current_rank: int) -> int | None:
    """Places gained since the last round (negative: dropped); ``None`` for a new entry."""
    if previous_rank is None:
        return None
    return previous_rank - current_rank


class Zones(NamedTuple):
    """Positions promoted and relegated at the end of a season (1-based, inclusive ranges)."""

    promotion: range
    relegation: range

    def of(self, position: int) -> str | None:
        if position in self.promotion:
            return "promotion"
        if position in self.relegation:
            return "relegation"
        return None


def zones(division_size: int, promote: int, relegate: int, *, top: bool, bottom: bool) -> Zones:
    """The promotion and relegation zones of a division on the ladder.

    Nobody is promoted out of the top division or relegated out of the bottom one. Zones are
    positions in the ranked order, so a tie on the boundary goes by that order (the last
    tie-breaker, then player id).
    """
    if division_size < 1:
        raise ValueError(f"division_size must be at least 1, got {division_size}")
    if promote < 0 or relegate < 0:
        raise ValueError("promote and relegate cannot be negative")
    if promote + relegate > division_size:
        raise ValueError(
            f"promoting {promote} and relegating {relegate} exceeds the division of {division_size}"
        )
    up = 0 if top else promote
    down = 0 if bottom else relegate
    return Zones(range(1, up + 1), range(division_size - down + 1, division_size + 1))
