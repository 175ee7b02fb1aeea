"""What every variant offers, so the server treats Gin, Basic and Indian Rummy alike.

A `Variant` is a stateless rule book: it validates options, starts a `Game` from a seed,
picks bot moves, replays a move log and plays whole bot matches. A `Game` is one match in
progress; actions and views are plain JSON so an API can pass them through untouched.
"""

from __future__ import annotations

import abc
import copy
from dataclasses import dataclass
from typing import Any

from engine.errors import IllegalAction

# Keys a published move may carry besides seat and action; replay ignores them.
MOVE_EXTRAS = {"number", "at", "auto"}

# Any seat may play it at any moment of a match that is not over, in every variant: the
# seat forfeits. It is never in `legal_actions` (no bot resigns, and a table offers it
# behind a confirmation of its own).
RESIGN = {"type": "resign"}


@dataclass(frozen=True)
class Option:
    """One match option: its type, default and allowed range."""

    name: str
    kind: type  # int or bool
    default: Any
    minimum: int | None = None
    maximum: int | None = None
    help: str = ""  # marked with `gettext_noop`, as is `label`
    label: str = ""  # how people read the name ("Big gin bonus"); the server translates it

    def check(self, value: Any) -> Any:
        if self.kind is bool:
            if not isinstance(value, bool):
                raise ValueError(f"option {self.name!r} must be true or false, got {value!r}")
            return value
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"option {self.name!r} must be an integer, got {value!r}")
        if self.minimum is not None and value < self.minimum:
            raise ValueError(f"option {self.name!r} must be at least {self.minimum}, got {value}")
        if self.maximum is not None and value > self.maximum:
            raise ValueError(f"option {self.name!r} must be at most {self.maximum}, got {value}")
        return value


@dataclass(frozen=True)
class Record:
    """A finished bot match: its JSON move log and result."""

    moves: list[dict]
    result: dict


class Game(abc.ABC):
    """One match in progress. Illegal actions raise `IllegalAction` and change nothing."""

    seq: int
    to_move: int | None
    over: bool
    result: dict | None

    @property
    @abc.abstractmethod
    def moves(self) -> list[dict]:
        """JSON move log: ``{"seat": s, "action": {...}}`` per accepted action."""

    @abc.abstractmethod
    def legal_actions(self, seat: int) -> list[dict]:
        """Every action ``seat`` may take now; [] when it has none. Only the seat to move has
        any, except while a claim window is open (see `out_of_turn_seats`)."""

    def out_of_turn_seats(self) -> list[int]:
        """Seats other than ``to_move`` that may act now (Dummy's cut-ins: a claim on the
        offered discard), in the order the rules resolve their claims. Such actions go through
        `apply` with their seat and into the move log like any other, so replay is exact. The
        window closes with the next action of the seat to move; [] for variants without one."""
        return []

    @abc.abstractmethod
    def apply(self, action: dict, seat: int | None = None) -> None:
        """Play ``action`` for ``seat`` (default: the seat to move)."""

    def last_move(self) -> dict | None:
        """The latest move of the hand in play as the log holds it (``{"seat", "action"}``),
        or None before its first: every action is public once played (a table shows it as
        it happens). The move that ended the last hand is that hand's showdown's, not this
        one's (its card may have been dealt again). Variants set ``hand_start`` (the move
        number where the current hand began) as they deal during a move."""
        if not self._moves or self.seq == getattr(self, "hand_start", 0):
            return None
        seat, action = self._moves[-1]
        return {"seat": seat, "action": copy.deepcopy(action)}

    def _resigned(self, action, seat: int | None) -> bool:
        """Play ``action`` if it is a resign (True), from any seat, in turn or not.

        The resigning seat places last and the others rank by their totals so far, as the
        variant ranks a forfeit (`Variant.forfeit_placements`); the result names it under
        ``forfeit`` with reason ``resigned`` and the move number it ended the match at, so
        everything that reads a forfeit reads a resign alike, and a replay of the log
        reproduces the result. Subclasses call this first in `apply` and hold ``variant``,
        ``players``, ``options``, ``scores``, ``phase``, ``seq`` and ``_moves``.
        """
        if type(action) is not dict or action.get("type") != "resign":
            return False
        if action != RESIGN:
            raise IllegalAction("bad_action", "a 'resign' action has exactly the keys ['type']")
        if self.over:
            raise IllegalAction("match_over", "the match is over")
        seat = self.to_move if seat is None else seat
        if type(seat) is not int or not 0 <= seat < self.players:
            raise ValueError(f"seat must be an integer from 0 to {self.players - 1}, got {seat!r}")
        scores = list(self.scores)
        places = self.variant.forfeit_placements(scores, seat, self.options)
        self.over, self.to_move, self.phase = True, None, "over"
        self.seq += 1
        self._moves.append((seat, dict(RESIGN)))
        self.result = {
            "winner": places.index(1) if places.count(1) == 1 else None,
            "scores": scores,
            "placements": places,
            "forfeit": {"seat": seat, "reason": "resigned", "seq": self.seq},
        }
        return True

    @abc.abstractmethod
    def view(self, seat: int | None) -> dict:
        """What ``seat`` may see (None: a spectator), JSON-safe."""


def gettext_noop(text: str) -> str:
    """Marks an English label for the server's translation catalogue (makemessages finds
    this name) without the engine depending on Django; the server translates at display."""
    return text


def placements(scores: list[int], *, lower_wins: bool) -> list[int]:
    """1-based rank per seat; equal scores share the better rank (1, 1, 3)."""
    sign = 1 if lower_wins else -1
    return [1 + sum(1 for o in scores if sign * o < sign * s) for s in scores]


class Variant(abc.ABC):
    """A rule book; subclasses set the class attributes and implement `new`, `bot_action`."""

    name: str
    title: str  # the game's name as people read it, marked with `gettext_noop`
    min_players: int
    max_players: int
    options: tuple[Option, ...] = ()
    bots: tuple[str, ...] = ()

    def validate_options(self, options: dict | None) -> dict:
        """Options with every default filled in; ValueError names the bad option."""
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise ValueError(f"options must be a dict, got {type(options).__name__}")
        known = {o.name: o for o in self.options}
        unknown = sorted(str(k) for k in options if k not in known)
        if unknown:
            raise ValueError(
                f"unknown option {unknown[0]!r} for {self.name}; known: {', '.join(known)}"
            )
        out = {
            name: o.check(options[name]) if name in options else o.default
            for name, o in known.items()
        }
        self.check_option_combination(out)
        return out

    def check_option_combination(self, options: dict) -> None:  # noqa: B027 - optional hook
        """Hook for rules between options; raise ValueError naming the conflict."""

    def lower_score_wins(self, options: dict | None) -> bool:
        """Whether the lowest total wins a match with ``options`` (penalty scoring)."""
        return False

    def forfeit_placements(self, scores: list[int], seat: int, options: dict | None) -> list[int]:
        """Places when ``seat`` forfeits: it comes last, the others rank by their totals so
        far the way the game itself ranks them."""
        others = [score for i, score in enumerate(scores) if i != seat]
        ranks = iter(placements(others, lower_wins=self.lower_score_wins(options)))
        return [len(scores) if i == seat else next(ranks) for i in range(len(scores))]

    def validate_players(self, players: int) -> int:
        if not isinstance(players, int) or isinstance(players, bool):
            raise ValueError(f"players must be an integer, got {players!r}")
        if not self.min_players <= players <= self.max_players:
            raise ValueError(
                f"{self.name} needs {self.min_players} to {self.max_players} players, got {players}"
            )
        return players

    def validate_bot(self, bot: str) -> str:
        if bot not in self.bots:
            raise ValueError(f"unknown bot {bot!r} for {self.name}; known: {', '.join(self.bots)}")
        return bot

    @abc.abstractmethod
    def new(self, players: int, seed: str, options: dict | None = None) -> Game:
        """A match dealt from ``seed``."""

    @abc.abstractmethod
    def bot_action(self, game: Game, seat: int, bot: str = "greedy") -> dict:
        """The move bot ``bot`` makes for ``seat``; deterministic given the seed and state."""

    def bot_out_of_turn(self, game: Game, seat: int, bot: str = "greedy") -> dict | None:
        """The action bot ``bot`` takes for ``seat`` while it is not that seat's turn (one of
        ``game.legal_actions(seat)``), or None to let the window pass; deterministic given the
        seed and state. Variants without out-of-turn actions never act."""
        return None

    def replay(
        self, moves: list[dict], players: int, seed: str, options: dict | None = None
    ) -> Game:
        """Rebuild a match from its move log; IllegalAction if any move is illegal.

        A move may carry its 1-based ``number``, its time ``at`` and ``auto`` (a timed-out
        seat's automatic move), as the API's move log does, so a log can be replayed as
        published; a number out of order is refused.
        """
        if not isinstance(moves, list):
            raise ValueError(f"moves must be a list, got {type(moves).__name__}")
        game = self.new(players, seed, options)
        for i, move in enumerate(moves):
            if not isinstance(move, dict) or set(move) - MOVE_EXTRAS != {"seat", "action"}:
                raise ValueError(f"move {i} must be {{'seat': int, 'action': dict}}, got {move!r}")
            if move.get("number", i + 1) != i + 1:
                raise ValueError(f"move {i} is numbered {move['number']!r}, expected {i + 1}")
            game.apply(move["action"], move["seat"])
        return game

    def play(self, players: int, seed: str, bots: list[str], options: dict | None = None) -> Record:
        """A whole match between bots, one bot name per seat."""
        if not isinstance(bots, (list, tuple)) or len(bots) != players:
            raise ValueError(f"bots must list one bot per seat ({players}), got {bots!r}")
        for bot in bots:
            self.validate_bot(bot)
        game = self.new(players, seed, options)
        while not game.over:
            # Each window is offered once, in resolution order, before the seat to move acts
            # (its next action closes the window).
            for other in game.out_of_turn_seats():
                action = self.bot_out_of_turn(game, other, bots[other])
                if action is not None:
                    game.apply(action, other)
            seat = game.to_move
            game.apply(self.bot_action(game, seat, bots[seat]), seat)
        return Record(moves=game.moves, result=game.result)
