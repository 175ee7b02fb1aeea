"""Bots (issue 3, "Bots"): legal, deterministic, and each behaving as described."""

import pytest

from engine import cards, fair, variants
from engine.variants import gin_bots
from tests.engine.test_gin_game import both_pass, new, rig

GIN = variants.get("gin")


@pytest.mark.parametrize("bots", [["random", "expert"], ["expert", "greedy"]])
def test_bots_only_choose_legal_actions_and_matches_reproduce(bots):
    options = {"target": 60}
    g = GIN.new(2, "bots", options)
    while not g.over:
        seat = g.to_move
        action = GIN.bot_action(g, seat, bots[seat])
        assert action in g.legal_actions(seat)
        g.apply(action, seat)
    again = GIN.play(2, "bots", bots, options)
    assert again.moves == g.moves and again.result == g.result


def test_random_bot_draws_its_index_at_the_move_number():
    """Deterministic given (seed, state): index = position seq of the "bot:random" stream."""
    g = new()
    for _ in range(40):
        seat = g.to_move
        legal = g.legal_actions(seat)
        index = fair.Indexed("abc", "bot:random").below_at(g.seq, len(legal))
        action = GIN.bot_action(g, seat, "random")
        assert action == legal[index]
        g.apply(action, seat)


def test_greedy_knocks_as_soon_as_it_may():
    g = rig(new(), "AS 2S 3S 4H 5H 6H 7D 8D 9D 9C", "2H 4D 6D JC QC QD KD 3H 9S JH", "QS", "KH")
    both_pass(g)
    g.apply({"type": "draw", "source": "stock"}, 0)
    assert GIN.bot_action(g, 0, "greedy") == {"type": "knock", "card": "KH"}


def test_greedy_takes_the_upcard_only_when_it_lowers_deadwood():
    g = rig(new(), "AS 2S 4H 5H 7D 8D 9C JC QH KD", "2H 4D 6D JS QC QD KS 3H 9S JH", "3S")
    assert GIN.bot_action(g, 0, "greedy") == {"type": "draw", "source": "discard"}
    g = rig(new(), "AS 2S 4H 5H 7D 8D 9C JC QH KD", "2H 4D 6D JS QC QD TS 3H 9S JH", "KS")
    assert GIN.bot_action(g, 0, "greedy") == {"type": "pass"}


@pytest.mark.parametrize("bot", ["greedy", "expert"])
def test_bots_go_gin_and_big_gin(bot):
    g = rig(new(), "AS 2S 3S 4H 5H 6H 7D 8D 9D TD", "2H 4D 6D JC QC QD KD 3H 9S JH", "QS", "KH")
    both_pass(g)
    g.apply({"type": "draw", "source": "stock"}, 0)
    assert GIN.bot_action(g, 0, bot) == {"type": "knock", "card": "KH"}
    g = rig(new(), "AS 2S 3S 4H 5H 6H 7D 8D 9D TD", "2H 4D 6D JC QC QD KD 3H 9S JH", "QS", "JD")
    both_pass(g)
    g.apply({"type": "draw", "source": "stock"}, 0)
    assert GIN.bot_action(g, 0, bot) == {"type": "big_gin"}


def test_expert_weighs_undercut_risk_where_greedy_knocks():
    """The opponent visibly picked up three melds; knocking with 9 would likely be undercut."""
    g = rig(new(), "AS 2S 3S 4H 5H 6H 7D 8D 9D 9C", "5C 6C 7C 8S 8H 8C JC QC KC 2D", "QS", "KH")
    g.known[1] = sum(1 << c.code for c in cards.parse("5C 6C 7C 8S 8H 8C JC QC KC"))
    both_pass(g)
    g.apply({"type": "draw", "source": "stock"}, 0)
    assert GIN.bot_action(g, 0, "greedy")["type"] == "knock"
    assert GIN.bot_action(g, 0, "expert") == {"type": "discard", "card": "KH"}


def test_expert_avoids_feeding_the_opponents_known_picks():
    """Danger counts cards the opponent picked up that a discard would meld with."""
    kd = 1 << cards.parse("KD")[0].code
    picked = sum(1 << c.code for c in cards.parse("KS KH"))
    thrown = sum(1 << c.code for c in cards.parse("QD"))
    assert gin_bots._danger(kd, picked, 0) == 4
    assert gin_bots._danger(kd, picked, thrown) == 3
    assert gin_bots._danger(kd, 0, thrown) == 0
