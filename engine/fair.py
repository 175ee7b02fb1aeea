"""Provably fair dealing: every deck order follows from the match seed, and only from it.

The algorithm is a published contract (anyone holding the revealed seed can re-deal every
hand), so it must never change silently; tests pin the first deal of a known seed.

Algorithm, for a seed (text) and a label (text, e.g. ``"hand:1"``):

1. Key = UTF-8 bytes of the seed. Block ``i`` (i = 0, 1, 2, ...) =
   HMAC-SHA256(key, UTF-8 bytes of ``f"{label}:{i}"``). The stream is block 0, block 1, ...
   concatenated.
2. The stream is read as consecutive 32-bit big-endian unsigned integers ``u``.
3. A uniform integer below ``n`` is drawn by rejection sampling: let
   ``limit = 2**32 - (2**32 % n)``; read ``u`` until ``u < limit``; the answer is ``u % n``
   (no modulo bias).
4. Fisher-Yates (Durstenfeld): for ``i`` from ``len - 1`` down to 1, draw ``j`` below
   ``i + 1`` and swap items ``i`` and ``j``.

The deck shuffled is `engine.cards.deck()` order (AS..KS, AH..KH, AD..KD, AC..KC); hand ``h``
of a match (1-based) uses label ``f"hand:{h}"``.

With client seeds (one per human seat, `deal_seed`), the seed of those streams is the deal
seed: the hex HMAC-SHA256, keyed by the server seed, of the client seeds as compact JSON
(seat order, ``null`` for a bot seat). With no client seed at all (bots only) the deal seed
is the server seed itself, as before client seeds existed.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import struct

from engine import cards

_U32 = struct.Struct(">8I")
_TWO32 = 1 << 32
# A client seed: 1-64 printable ASCII characters, no spaces (a browser's is 32 hex digits).
CLIENT_SEED = re.compile(r"[\x21-\x7e]{1,64}")


def _check_seed(seed: object) -> bytes:
    if not isinstance(seed, str) or not seed:
        raise ValueError(f"seed must be a non-empty string, got {seed!r}")
    return seed.encode("utf-8")


def commitment(seed: str) -> str:
    """Hex SHA-256 of the seed, published before play so the seed cannot be swapped later."""
    return hashlib.sha256(_check_seed(seed)).hexdigest()


def check_client_seed(client_seed: object) -> str:
    """The client seed as given; ValueError unless 1-64 printable ASCII characters."""
    if not isinstance(client_seed, str) or not CLIENT_SEED.fullmatch(client_seed):
        raise ValueError(
            f"a client seed is 1-64 printable ASCII characters without spaces, got {client_seed!r}"
        )
    return client_seed


def deal_seed(server_seed: str, client_seeds: list | tuple = ()) -> str:
    """The seed every deal (and bot) stream of a match uses.

    ``client_seeds`` has one entry per seat, ``None`` for a bot seat (or is empty): with no
    client seed the server seed is used as it is (a bots-only match, and every match from
    before client seeds). Otherwise the hex HMAC-SHA256 keyed by the server seed of
    ``json.dumps(client_seeds, separators=(",", ":"))``: changing any one seed, or which
    seat holds it, changes every deal, and nobody holding only some of the seeds can
    predict the result.
    """
    key = _check_seed(server_seed)
    if not isinstance(client_seeds, (list, tuple)):
        raise ValueError(f"client_seeds must be a list, got {client_seeds!r}")
    if all(seed is None for seed in client_seeds):
        return server_seed
    for seed in client_seeds:
        if seed is not None:
            check_client_seed(seed)
    message = json.dumps(list(client_seeds), separators=(",", ":")).encode("utf-8")
    return hmac.digest(key, message, "sha256").hex()


def server_seed_of(seat_seeds: list | tuple) -> str:
    """A match's server seed made of its people's pre-committed seeds.

    Each person holds a server seed drawn for their next match, whose commitment they are
    shown before they send a client seed (Knock's lobby and account pages). ``seat_seeds``
    has one entry per seat, ``None`` for a bot seat: one person's seed is the match's server
    seed as it is; for several, the hex SHA-256 of ``json.dumps(seat_seeds, separators=(",",
    ":"))``. So the server seed was fixed before any person's client seed was known.
    """
    if not isinstance(seat_seeds, (list, tuple)):
        raise ValueError(f"seat_seeds must be a list, got {seat_seeds!r}")
    people = [seed for seed in seat_seeds if seed is not None]
    for seed in people:
        _check_seed(seed)
    if not people:
        raise ValueError("seat_seeds holds no seed")
    if len(people) == 1:
        return people[0]
    message = json.dumps(list(seat_seeds), separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(message).hexdigest()


class Stream:
    """Uniform integers from the HMAC-SHA256 counter-mode stream of (seed, label)."""

    __slots__ = ("_block", "_buffer", "_key", "_prefix")

    def __init__(self, seed: str, label: str) -> None:
        if not isinstance(label, str):
            raise ValueError(f"label must be a string, got {label!r}")
        self._key = _check_seed(seed)
        self._prefix = label + ":"
        self._block = 0
        self._buffer: list[int] = []

    def _next_u32(self) -> int:
        if not self._buffer:
            block = hmac.digest(self._key, f"{self._prefix}{self._block}".encode(), "sha256")
            self._block += 1
            # Reversed so pop() yields the integers in stream order.
            self._buffer = list(_U32.unpack(block))[::-1]
        return self._buffer.pop()

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), by rejection sampling."""
        if not isinstance(n, int) or not 1 <= n <= _TWO32:
            raise ValueError(f"n must be an integer from 1 to 2**32, got {n!r}")
        limit = _TWO32 - _TWO32 % n
        u = self._next_u32()
        while u >= limit:
            u = self._next_u32()
        return u % n


class Indexed:
    """Random access into the stream of (seed, label): the 32-bit integer at any position.

    Bots draw one number per move at position ``seq`` (the move number), so a bot's choice
    depends only on the seed and the state, however the game object was rebuilt. One HMAC
    block (8 integers) is cached, so consecutive moves share a block.
    """

    __slots__ = ("_block", "_ints", "_key", "_label", "_prefix", "_seed")

    def __init__(self, seed: str, label: str) -> None:
        if not isinstance(label, str):
            raise ValueError(f"label must be a string, got {label!r}")
        self._key = _check_seed(seed)
        self._seed = seed
        self._label = label
        self._prefix = label + ":"
        self._block: int | None = None
        self._ints: tuple[int, ...] = ()

    def below_at(self, position: int, n: int) -> int:
        """A uniform integer in [0, n) for ``position``; a rejected draw (probability below
        n / 2**32) is redrawn from the stream labelled ``f"{label}/{position}"``."""
        if type(n) is not int or type(position) is not int or not 1 <= n <= _TWO32:
            raise ValueError(f"n must be an integer from 1 to 2**32, got {n!r}")
        block = position >> 3
        if block != self._block:
            if position < 0:
                raise ValueError(f"position must be a non-negative integer, got {position!r}")
            digest = hmac.digest(self._key, f"{self._prefix}{block}".encode(), "sha256")
            self._ints = _U32.unpack(digest)
            self._block = block
        u = self._ints[position & 7]
        if u < _TWO32 - _TWO32 % n:
            return u % n
        return Stream(self._seed, f"{self._label}/{position}").below(n)


def shuffle(items: list, seed: str, label: str) -> list:
    """A new list: ``items`` in the Fisher-Yates order fixed by (seed, label)."""
    out = list(items)
    stream = Stream(seed, label)
    for i in range(len(out) - 1, 0, -1):
        j = stream.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def shuffled_deck(seed: str, hand_number: int = 1, *, decks: int = 1, jokers: int = 0):
    """The deck for hand ``hand_number`` (1-based) of the match with this seed."""
    if not isinstance(hand_number, int) or isinstance(hand_number, bool) or hand_number < 1:
        raise ValueError(f"hand_number must be a positive integer, got {hand_number!r}")
    return shuffle(cards.deck(decks=decks, jokers=jokers), seed, f"hand:{hand_number}")
