"""Playing cards shared by every variant.

Card text is rank ``A23456789TJQK`` then suit ``SHDC`` ("TS" is the ten of spades); a
printed joker is ``JK``. Two-deck games repeat the same text for the second copy, so a
card also carries a ``copy`` number that never shows in its text.

Cards are interned: there is exactly one object per (rank, suit, copy), so equality and
hashing are identity-based and run at C speed, which the meld search relies on.
"""

from __future__ import annotations

RANKS = "A23456789TJQK"
SUITS = "SHDC"
JOKER_TEXT = "JK"

#: Bits reserved per suit in a hand mask; 13 used, 3 spare keep suits from touching.
SUIT_SHIFT = 16
#: Suit index given to printed jokers in a card's ``code``.
JOKER_SUIT = len(SUITS)
#: Codes per deck copy: four suits plus a joker row, 16 codes each.
COPY_STRIDE = 80


class Card:
    """One physical card; get instances from `card`, `parse` or `deck`, never construct them."""

    __slots__ = ("code", "copy", "rank", "suit", "text")

    code: int
    copy: int
    rank: int
    suit: str | None
    text: str

    def __init__(self) -> None:
        raise TypeError("cards are interned; use cards.card(), cards.parse() or cards.deck()")

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card({self.text!r})" if not self.copy else f"Card({self.text!r}, copy={self.copy})"

    def __lt__(self, other: Card) -> bool:
        return self.code < other.code

    def __reduce__(self):
        # Unpickling and deepcopy must return the interned object, or identity equality breaks.
        return (_by_code, (self.code,))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: dict) -> Card:
        return self

    @property
    def is_joker(self) -> bool:
        return self.rank == 0

    @property
    def rank_index(self) -> int:
        """0 for an ace up to 12 for a king (-1 for a joker)."""
        return self.rank - 1

    @property
    def suit_index(self) -> int:
        return self.code % COPY_STRIDE // SUIT_SHIFT


_BY_CODE: dict[int, Card] = {}
_BY_KEY: dict[tuple[str, int], Card] = {}


def _make(rank: int, suit: str | None, copy: int, code: int, text: str) -> Card:
    obj = object.__new__(Card)
    for name, value in (("rank", rank), ("suit", suit), ("copy", copy), ("code", code)):
        object.__setattr__(obj, name, value)
    object.__setattr__(obj, "text", text)
    _BY_CODE[code] = obj
    _BY_KEY[(text, copy)] = obj
    return obj


def _by_code(code: int) -> Card:
    return _BY_CODE[code]


MAX_COPIES = 4
MAX_JOKERS = 4
for _copy in range(MAX_COPIES):
    for _s, _suit in enumerate(SUITS):
        for _r, _rank in enumerate(RANKS):
            _make(_r + 1, _suit, _copy, _copy * COPY_STRIDE + _s * SUIT_SHIFT + _r, _rank + _suit)
for _j in range(MAX_COPIES * MAX_JOKERS):
    _make(0, None, _j, JOKER_SUIT * SUIT_SHIFT + _j, JOKER_TEXT)


def card(text: str, copy: int = 0) -> Card:
    """The card with this text (and deck copy); ValueError names unknown text."""
    try:
        return _BY_KEY[(text, copy)]
    except (KeyError, TypeError):
        raise ValueError(f"unknown card {text!r} (copy {copy})") from None


def parse(text: str | list | tuple, *, decks: int = 1) -> list[Card]:
    """Cards from space-separated text (or a list of texts/cards).

    With ``decks=1`` a repeated card is an error; with more decks the n-th repeat of a text
    is copy n, so "AS AS" is both aces of spades of a two-deck game.
    """
    if isinstance(text, str):
        tokens: list = text.split()
    elif isinstance(text, (list, tuple)):
        tokens = list(text)
    else:
        raise ValueError(f"expected card text or a list of cards, got {type(text).__name__}")
    if not isinstance(decks, int) or not 1 <= decks <= MAX_COPIES:
        raise ValueError(f"decks must be an integer from 1 to {MAX_COPIES}, got {decks!r}")
    seen: dict[str, int] = {}
    out = []
    for token in tokens:
        if isinstance(token, Card):
            token = token.text
        if not isinstance(token, str):
            raise ValueError(f"bad card token {token!r}: expected text like 'AS'")
        copy = seen.get(token, 0)
        limit = MAX_JOKERS * decks if token == JOKER_TEXT else decks
        if copy >= limit:
            raise ValueError(f"duplicate card {token!r}")
        if (token, 0) not in _BY_KEY:
            raise ValueError(f"unknown card {token!r}: rank is one of {RANKS}, suit one of {SUITS}")
        seen[token] = copy + 1
        out.append(_BY_KEY[(token, copy)])
    return out


def deck(*, decks: int = 1, jokers: int = 0) -> list[Card]:
    """Canonical unshuffled deck: per copy AS..KS AH..KH AD..KD AC..KC, then printed jokers."""
    if not isinstance(decks, int) or not 1 <= decks <= MAX_COPIES:
        raise ValueError(f"decks must be an integer from 1 to {MAX_COPIES}, got {decks!r}")
    if not isinstance(jokers, int) or not 0 <= jokers <= MAX_JOKERS * decks:
        raise ValueError(
            f"jokers must be an integer from 0 to {MAX_JOKERS * decks}, got {jokers!r}"
        )
    out = [_BY_KEY[(r + s, c)] for c in range(decks) for s in SUITS for r in RANKS]
    out.extend(_BY_KEY[(JOKER_TEXT, j)] for j in range(jokers))
    return out


def text(hand) -> str:
    """Space-separated card text, the inverse of `parse`."""
    if not isinstance(hand, (list, tuple)):
        raise ValueError(f"expected a list of cards, got {type(hand).__name__}")
    bad = [c for c in hand if not isinstance(c, Card)]
    if bad:
        raise ValueError(f"not a card: {bad[0]!r}")
    return " ".join(c.text for c in hand)


STANDARD_DECK: tuple[Card, ...] = tuple(deck())
