"""Provably fair dealing (issue 3): the deck comes from the seed by a documented algorithm."""

import hashlib
import hmac
import struct

import pytest

from engine import cards, fair, variants


def test_commitment_is_sha256_of_the_seed():
    assert fair.commitment("abc") == hashlib.sha256(b"abc").hexdigest()
    assert fair.commitment("ünïcode") == hashlib.sha256("ünïcode".encode()).hexdigest()


def test_first_deal_of_a_known_seed_is_pinned():
    """If this fails the dealing algorithm drifted: every published replay would break."""
    deck = fair.shuffled_deck("abc", 1)
    assert cards.text(deck) == (
        "8S 6H 9D 6C TC AD KC AS QD AH TH 5D 8H 4C JD 6S 7S 5C 4H 5S JS AC 7C QC JC 5H 2H QS "
        "9H 7H 7D TD 2S 8D 3D 9C 8C 2C JH 4S TS 9S KS 3C 3S 3H 2D QH KD 6D KH 4D"
    )
    g = variants.get("gin").new(players=2, seed="abc", options={})
    assert g.view(0)["hand"] == ["7S", "8S", "4H", "8H", "TH", "9D", "JD", "QD", "TC", "KC"]
    assert g.view(1)["hand"] == ["AS", "5S", "6S", "AH", "6H", "AD", "5D", "4C", "5C", "6C"]
    assert g.view(None)["discard"] == ["JS"]
    assert cards.text(fair.shuffled_deck("knock", 2)[:6]) == "QC 8C AS KC 5C 8S"


def _documented_shuffle(seed: str, label: str, items: list) -> list:
    """The algorithm exactly as fair.py's docstring states it, written independently."""
    ints: list[int] = []
    block = 0

    def u32() -> int:
        nonlocal block
        if not ints:
            mac = hmac.new(seed.encode(), f"{label}:{block}".encode(), hashlib.sha256).digest()
            ints.extend(struct.unpack(">8I", mac))
            block += 1
        return ints.pop(0)

    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        n = i + 1
        limit = 2**32 - 2**32 % n
        u = u32()
        while u >= limit:
            u = u32()
        j = u % n
        out[i], out[j] = out[j], out[i]
    return out


@pytest.mark.parametrize("seed", ["abc", "7", "a much longer seed with spaces ✓"])
@pytest.mark.parametrize("hand_number", [1, 2, 17])
def test_shuffle_matches_the_documented_algorithm(seed, hand_number):
    expected = _documented_shuffle(seed, f"hand:{hand_number}", cards.deck())
    assert fair.shuffled_deck(seed, hand_number) == expected


def test_indexed_reads_the_same_stream_at_any_position():
    """Bots draw the integer at position = move number, so a rebuilt game draws the same."""
    stream = fair.Stream("abc", "bot:random")
    expected = [stream.below(2**32) for _ in range(20)]
    indexed = fair.Indexed("abc", "bot:random")
    assert [indexed.below_at(p, 2**32) for p in reversed(range(20))] == expected[::-1]
    assert fair.Indexed("abc", "bot:random").below_at(13, 7) == expected[13] % 7


def test_stream_below_is_uniform_over_the_range():
    stream = fair.Stream("abc", "test")
    counts = [0] * 5
    for _ in range(5000):
        counts[stream.below(5)] += 1
    assert all(900 < c < 1100 for c in counts)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: fair.commitment(""), "seed must be a non-empty string"),
        (lambda: fair.commitment(b"abc"), "seed must be a non-empty string"),
        (lambda: fair.shuffled_deck("abc", 0), "hand_number"),
        (lambda: fair.shuffled_deck("abc", True), "hand_number"),
        (lambda: fair.Stream("abc", 5), "label"),
        (lambda: fair.Stream("abc", "x").below(0), "n must be"),
        (lambda: fair.shuffle([1, 2], None, "x"), "seed"),
        (lambda: fair.Indexed("abc", None), "label"),
        (lambda: fair.Indexed("", "x"), "seed"),
        (lambda: fair.Indexed("abc", "x").below_at(0, 0), "n must be"),
        (lambda: fair.Indexed("abc", "x").below_at("0", 5), "n must be"),
        (lambda: fair.Indexed("abc", "x").below_at(-1, 5), "position"),
    ],
)
def test_bad_input_to_every_fair_function(call, message):
    with pytest.raises(ValueError, match=message):
        call()
