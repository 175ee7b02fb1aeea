"""The one adapter between stored matches and the engine.

The engine state is cached on the match as a pickle so an action costs one load, not a
replay; the move log and the seed stay the source of truth (finalize replays them).

A pickle is only good for the engine code that wrote it (a new field, such as a hand's
count of pile draws, would be missing from an old one), so each is stamped with a
fingerprint of the engine's source; after a deploy that changes the engine, a match's
first load replays its log and the next save stores the new form.
"""

import hashlib
import pickle
import secrets
from pathlib import Path

import engine
from engine import fair, variants
from gameplay import models


def _engine_fingerprint() -> bytes:
    digest = hashlib.sha256()
    for path in sorted(Path(engine.__file__).parent.rglob("*.py")):
        digest.update(path.read_bytes())
    return b"knock-engine:" + digest.hexdigest()[:16].encode() + b":"


ENGINE_FINGERPRINT = _engine_fingerprint()


new_seed = models.new_seed  # a server seed: 256 bits from the operating system


def new_client_seed() -> str:
    """The client seed the server draws for a seat that brought none of its own."""
    return secrets.token_hex(16)


def deal_seed(match) -> str:
    """The seed the match's deals come from: its server seed and its seats' client seeds."""
    return fair.deal_seed(match.seed, match.client_seeds)


def commitment(seed: str) -> str:
    return fair.commitment(seed)


def new_game(variant: str, players: int, seed: str, options: dict):
    return variants.get(variant).new(players=players, seed=seed, options=options)


def dump(game) -> bytes:
    return ENGINE_FINGERPRINT + pickle.dumps(game, protocol=pickle.HIGHEST_PROTOCOL)


def load(match):
    """The match's engine state: the cached pickle if this engine wrote it, else a replay
    of its move log (a new match stores none: its deal is dealt again)."""
    state = bytes(match.state) if match.state else b""
    if state.startswith(ENGINE_FINGERPRINT):
        return pickle.loads(state[len(ENGINE_FINGERPRINT) :])
    if match.seq == 0:  # nothing played yet: the deal alone, without reading the log
        return new_game(match.variant, match.players, deal_seed(match), match.options)
    return replay(match)


def replay(match):
    """The match rebuilt from its stored log (the engine reads past each move's `at`)."""
    return variants.get(match.variant).replay(
        match.log, players=match.players, seed=deal_seed(match), options=match.options
    )
