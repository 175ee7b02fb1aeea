"""Card text is a contract (DESIGN.md): rank A23456789TJQK then suit SHDC, joker JK."""

import copy
import pickle

import pytest

from engine import cards


def test_card_text_round_trips():
    hand = cards.parse("AS 2S TD KC QH JK")
    assert [str(c) for c in hand] == ["AS", "2S", "TD", "KC", "QH", "JK"]
    assert cards.text(hand) == "AS 2S TD KC QH JK"


def test_rank_and_suit_of_a_card():
    ts = cards.card("TS")
    assert (ts.rank, ts.suit, ts.rank_index, ts.suit_index, ts.is_joker) == (10, "S", 9, 0, False)
    joker = cards.card("JK")
    assert joker.is_joker and joker.suit is None


def test_cards_are_interned_so_equality_survives_copies_and_pickling():
    ace = cards.card("AS")
    assert cards.parse("AS")[0] is ace
    assert copy.copy(ace) is ace and copy.deepcopy([ace])[0] is ace
    assert pickle.loads(pickle.dumps(ace)) is ace
    with pytest.raises(TypeError):
        cards.Card()


def test_standard_deck_has_52_distinct_cards_in_canonical_order():
    deck = cards.deck()
    assert len(set(deck)) == 52
    assert cards.text(deck[:3]) == "AS 2S 3S" and str(deck[13]) == "AH" and str(deck[-1]) == "KC"
    assert sorted(reversed(deck)) == deck


def test_two_deck_games_repeat_the_text_for_the_second_copy():
    first, second = cards.parse("AS AS", decks=2)
    assert str(first) == str(second) == "AS"
    assert first is not second and (first.copy, second.copy) == (0, 1)
    assert "copy=1" in repr(second)
    assert len(cards.deck(decks=2, jokers=4)) == 108


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("AS ZZ", "'ZZ'"),
        ("AS 1S", "'1S'"),
        ("as", "'as'"),
        ("AS 2S AS", "duplicate card 'AS'"),
        ("AS AS AS", "duplicate card 'AS'"),
    ],
)
def test_bad_card_text_names_the_token(text, message):
    with pytest.raises(ValueError, match=message):
        cards.parse(text, decks=2 if text == "AS AS AS" else 1)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: cards.parse(42), "expected card text"),
        (lambda: cards.parse(["AS", 3]), "bad card token 3"),
        (lambda: cards.parse("AS", decks=0), "decks"),
        (lambda: cards.deck(decks=9), "decks"),
        (lambda: cards.deck(jokers=-1), "jokers"),
        (lambda: cards.card("XX"), "unknown card 'XX'"),
        (lambda: cards.card("AS", copy=7), "unknown card 'AS'"),
        (lambda: cards.text("AS"), "expected a list of cards"),
        (lambda: cards.text(["AS"]), "not a card: 'AS'"),
    ],
)
def test_bad_input_to_every_cards_function(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_parse_accepts_a_list_of_texts_or_cards():
    assert cards.parse(["AS", cards.card("2S")]) == cards.parse("AS 2S")
