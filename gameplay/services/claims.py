"""Claim windows: actions out of turn (Dummy's cut-ins), as engine/README.md asks of a server.

While the seat to move has not drawn, other seats may claim the offered discard
(`game.out_of_turn_seats()`). The server gives each window a short deadline
(`Match.claim_seconds`, from the room): until it passes, the mover's draw from the stock is
refused (409 `claim_window_open`) while a draw from the pile goes at once. Bots answer a
window once (`Match.bot_claims_window`), in the play_bots task; the window closes early once
nobody is left who may still claim. The engine resolves claims by the mover's draw, so the
order in which claims arrive never matters, and they are moves in the log like any other.
"""

from datetime import timedelta

from django.utils import timezone

from engine import variants
from gameplay.models import Match

STOCK_DRAW = {"type": "draw", "source": "stock"}


def window_start(seq: int, logs: list[list[dict]]) -> int:
    """The move number at which the current window opened: claims do not move it.

    `logs` are the match's moves in order, in parts (the stored log, the moves just played).
    """
    claims = 0
    for log in reversed(logs):
        for move in reversed(log):
            if move["action"].get("type") != "claim":
                return seq - claims
            claims += 1
    return seq - claims


def refresh(match: Match, game, bot_seats: set[int], new_moves: list[dict]) -> None:
    """Set the match's window and deadline from the state reached (after moves applied).

    A new window gets a deadline; it ends early (None) once no human may claim and its bots
    have answered. `new_moves`: the moves applied since `match.log` was stored. The stored
    log is read only while a window is open (a live read defers it: it is the longest
    column of the row).
    """
    may_claim = game.out_of_turn_seats()
    if not may_claim:
        match.claim_window = match.claim_deadline = None
        return
    opened = window_start(game.seq, [match.log, new_moves])
    if match.claim_window != opened:
        match.claim_window = opened
        match.claim_deadline = timezone.now() + timedelta(seconds=match.claim_seconds)
    if not waiting(match, may_claim, bot_seats):
        match.claim_deadline = None


def waiting(match: Match, may_claim: list[int], bot_seats: set[int]) -> bool:
    """Someone may still claim in the open window: a human, or a bot not yet asked."""
    bots_unasked = match.bot_claims_window != match.claim_window
    return any(seat not in bot_seats or bots_unasked for seat in may_claim)


def bots_to_ask(match: Match, game, bot_seats: set[int]) -> list[int]:
    """The bot seats that may claim in the open window and were not asked yet."""
    if match.claim_window is None or match.bot_claims_window == match.claim_window:
        return []
    return [seat for seat in game.out_of_turn_seats() if seat in bot_seats]


def ask_bots(match: Match, game, bots: dict[int, str]) -> list[dict]:
    """Apply the bots' claims in the open window, once per window; returns the moves."""
    moves = []
    engine_variant = variants.get(match.variant)
    for seat in bots_to_ask(match, game, set(bots)):
        action = engine_variant.bot_out_of_turn(game, seat, bot=bots[seat])
        if action is not None:
            game.apply(action, seat=seat)
            moves.append({"seat": seat, "action": action})
    if match.claim_window is not None:
        match.bot_claims_window = match.claim_window
    return moves


def holds(match: Match, action: dict) -> bool:
    """The mover's stock draw waits while the window's deadline has not passed."""
    return (
        action == STOCK_DRAW
        and match.claim_deadline is not None
        and match.claim_deadline > timezone.now()
    )
