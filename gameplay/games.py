"""The one adapter between stored matches and the engine.

The engine state is cached on the match as a pickle so an action costs one load, not a
replay; the move log and the seed stay the source of truth (finalize replays them).
"""

import pickle
import secrets

from engine import fair, variants


def new_seed() -> str:
    return secrets.token_hex(16)


def commitment(seed: str) -> str:
    return fair.commitment(seed)


def new_game(variant: str, players: int, seed: str, options: dict):
    return variants.get(variant).new(players=players, seed=seed, options=options)


def dump(game) -> bytes:
    return pickle.dumps(game, protocol=pickle.HIGHEST_PROTOCOL)


def load(match):
    """The match's engine state: the cached pickle, or a replay of its move log."""
    if match.state:
        return pickle.loads(bytes(match.state))
    return replay(match)


def replay(match):
    moves = [{"seat": move["seat"], "action": move["action"]} for move in match.log]
    return variants.get(match.variant).replay(
        moves, players=match.players, seed=match.seed, options=match.options
    )
