"""Client seeds (issue 16): every human seat's seed goes into every deal, so no single party,
the server included, can choose a deal; the derivation is the one documented in fair.py."""

import hashlib
import hmac
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import cards, fair, variants

client_seed = st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=64)
client_seed = client_seed.filter(bool)
server_seed = st.text(min_size=1, max_size=40)


def deal(server: str, clients: list) -> list:
    return cards.text(fair.shuffled_deck(fair.deal_seed(server, clients), 1)).split()


def test_the_deal_seed_is_the_documented_hmac():
    clients = ["browser-a", None]
    expected = hmac.new(b"server", b'["browser-a",null]', hashlib.sha256).hexdigest()
    assert fair.deal_seed("server", clients) == expected
    assert json.dumps(clients, separators=(",", ":")) == '["browser-a",null]'


def test_bots_only_keep_the_server_seed():
    """A bots-only match (and every match from before client seeds) deals as it always did."""
    assert fair.deal_seed("abc", [None, None]) == "abc"
    assert fair.deal_seed("abc", []) == "abc"
    assert deal("abc", [None, None])[:3] == ["8S", "6H", "9D"]  # test_fair's pinned deck


@settings(max_examples=60, deadline=None)
@given(server_seed, client_seed, client_seed)
def test_the_same_server_seed_with_other_client_seeds_deals_other_cards(server, mine, other):
    if mine == other:
        return
    assert deal(server, [mine, None]) != deal(server, [other, None])
    assert deal(server, [mine, other]) != deal(server, [other, mine])  # seats matter too


@settings(max_examples=25, deadline=None)
@given(server_seed, client_seed, client_seed, st.lists(client_seed, min_size=20, max_size=20))
def test_no_single_party_reproduces_a_chosen_deal_by_changing_its_own_seed(
    server, first, second, attempts
):
    """The deal the other parties' seeds lead to is out of reach of every party alone: the
    first player, the second, or the server trying twenty seeds of its own each."""
    chosen = deal(server, [first, second])
    for attempt in attempts:
        if attempt != first:
            assert deal(server, [attempt, second]) != chosen
        if attempt != second:
            assert deal(server, [first, attempt]) != chosen
        if attempt != server:
            assert deal(attempt, [first, second]) != chosen


@pytest.mark.parametrize("bad", ["", "with space", "é", "x" * 65, 7, b"bytes"])
def test_a_bad_client_seed_is_refused(bad):
    with pytest.raises(ValueError, match="client seed"):
        fair.deal_seed("server", [bad, None])
    with pytest.raises(ValueError, match="client seed"):
        fair.check_client_seed(bad)


def test_a_match_with_client_seeds_replays_from_its_deal_seed():
    seed = fair.deal_seed("server", ["browser-a", "browser-b"])
    record = variants.get("gin").play(2, seed, ["greedy", "greedy"], {"target": 30})
    assert variants.get("gin").replay(record.moves, 2, seed, {"target": 30}).result == (
        record.result
    )


def test_the_server_seed_of_the_seats_is_the_documented_one():
    """engine/README.md: one person's committed seed is the server seed as it is; for
    several, the hex SHA-256 of the seat seeds as compact JSON."""
    assert fair.server_seed_of(["mine", None]) == "mine"
    both = ["a" * 64, None, "b" * 64]
    expected = hashlib.sha256(json.dumps(both, separators=(",", ":")).encode()).hexdigest()
    assert fair.server_seed_of(both) == expected
    assert fair.server_seed_of(both) != fair.server_seed_of(list(reversed(both)))
    for bad in ([None, None], "mine", [""]):
        with pytest.raises(ValueError):
            fair.server_seed_of(bad)
