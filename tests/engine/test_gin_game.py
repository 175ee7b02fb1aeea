"""A Gin Rummy match through the variant interface: turns, knocking, scoring, options."""

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import IllegalAction, cards, variants

GIN = variants.get("gin")


def bits(text: str) -> list[int]:
    return [1 << c.code for c in cards.parse(text)]


def rig(g, hand0: str, hand1: str, upcard: str, stock_top: str = ""):
    """Put chosen cards in the hands, on the pile and on top of the stock; the rest of the deck
    stays in the stock, so all 52 cards remain accounted for."""
    h0, h1, up, top = bits(hand0), bits(hand1), bits(upcard), bits(stock_top)
    used = set(h0 + h1 + up + top)
    rest = [1 << c.code for c in cards.deck() if 1 << c.code not in used]
    g.hands = [sum(h0), sum(h1)]
    g.discard = up
    g.stock = rest + top[::-1]
    return g


def new(options=None, seed="abc"):
    return GIN.new(players=2, seed=seed, options=options or {})


def both_pass(g):
    g.apply({"type": "pass"}, 0)
    g.apply({"type": "pass"}, 1)


# ------------------------------------------------------------------------------- dealing


def test_deal_gives_ten_each_an_upcard_and_a_stock_of_31():
    """Seed: "The dealer deals 10 cards to both players, and then places the next card in the
    deck face up. This begins the discard pile. The face down pile is known as the stock"."""
    view = new().view(None)
    assert view["hand_counts"] == [10, 10] and len(view["discard"]) == 1
    assert view["stock_count"] == 31 and view["hand"] == []


def test_dealer_alternates_from_hand_to_hand():
    """Seed: "Dealership alternates from round to round."."""
    g = new()
    dealers = [g.dealer]
    while not g.over:
        hand_number = g.hand_number
        g.apply(GIN.bot_action(g, g.to_move, "greedy"), g.to_move)
        if g.hand_number != hand_number and not g.over:
            dealers.append(g.dealer)
    assert len(dealers) >= 2
    assert all(a != b for a, b in itertools.pairwise(dealers))


# ----------------------------------------------------------------------------- first turn


def test_non_dealer_then_dealer_may_take_or_pass_then_non_dealer_draws_from_stock():
    """Seed: "On the first turn, the non-dealing player has first option of taking the upcard
    on the discard pile or passing. If the non-dealing player passes the upcard, the dealer is
    then given the opportunity to take the upcard or pass. If the dealer also passes, the
    non-dealing player must draw from the stock pile."."""
    g = new()
    assert g.dealer == 1 and g.to_move == 0 and g.phase == "upcard"
    assert g.legal_actions(0) == [{"type": "draw", "source": "discard"}, {"type": "pass"}]
    assert g.legal_actions(1) == []
    g.apply({"type": "pass"}, 0)
    assert g.to_move == 1 and g.legal_actions(1)[1] == {"type": "pass"}
    g.apply({"type": "pass"}, 1)
    assert g.to_move == 0 and g.legal_actions(0) == [{"type": "draw", "source": "stock"}]
    with pytest.raises(IllegalAction) as err:
        g.apply({"type": "draw", "source": "discard"}, 0)
    assert err.value.code == "must_draw_stock"
    g.apply({"type": "draw", "source": "stock"}, 0)
    assert g.phase == "discard" and g.view(0)["hand_counts"] == [11, 10]


def test_dealer_may_take_the_upcard_after_the_non_dealer_passes():
    g = new()
    upcard = g.view(None)["discard"][-1]
    g.apply({"type": "pass"}, 0)
    g.apply({"type": "draw", "source": "discard"}, 1)
    assert upcard in g.view(1)["hand"] and g.view(0)["known"][1] == [upcard]
    discard = next(a for a in g.legal_actions(1) if a["type"] == "discard")
    g.apply(discard, 1)
    assert g.to_move == 0 and g.legal_actions(0) == [
        {"type": "draw", "source": "stock"},
        {"type": "draw", "source": "discard"},
    ]


def test_a_card_taken_from_the_pile_cannot_be_discarded_or_knocked_with_that_turn():
    """Issue: "A card just taken from the discard pile may not be discarded in the same turn,
    and so may not be the knocking discard either"."""
    g = rig(new(), "AS 2S 3S 4H 5H 6H 7D 8D 9D KC", "2C 4C 6C 8C TC QD KD 3H 9S JH", "2D")
    g.apply({"type": "draw", "source": "discard"}, 0)
    legal = g.legal_actions(0)
    assert {"type": "discard", "card": "2D"} not in legal
    assert {"type": "knock", "card": "2D"} not in legal
    assert {"type": "knock", "card": "KC"} in legal
    for kind in ("discard", "knock"):
        before = g._snapshot()
        with pytest.raises(IllegalAction) as err:
            g.apply({"type": kind, "card": "2D"}, 0)
        assert err.value.code == "cannot_discard_drawn_upcard" and g._snapshot() == before


# ------------------------------------------------------------------------------ knocking

FILLERS = {1: "AC", 2: "2C", 3: "3C", 4: "4C", 5: "5C", 6: "6C", 7: "7C", 8: "8C", 9: "9C"}


@pytest.mark.parametrize("limit", range(11))
@pytest.mark.parametrize("over", [0, 1])
def test_knock_limit_is_honoured_exactly(limit, over):
    """Issue: "knock limit (any value from 0, gin only, to 10, honoured exactly)"; seed: "A
    player may only knock if he has 10 or fewer points of deadwood"."""
    deadwood = limit + over
    if deadwood > 10:
        return
    last = "TD" if deadwood == 0 else FILLERS.get(deadwood, "KC")
    g = new({"knock_limit": limit})
    rig(g, f"AS 2S 3S 4H 5H 6H 7D 8D 9D {last}", "2H 4D 6D JC QC QD KD 3H 9S JH", "QS", "KH")
    both_pass(g)
    g.apply({"type": "draw", "source": "stock"}, 0)
    knock = {"type": "knock", "card": "KH"}
    if over:
        assert knock not in g.legal_actions(0)
        before = g._snapshot()
        with pytest.raises(IllegalAction) as err:
            g.apply(knock, 0)
        assert err.value.code == "knock_too_high" and g._snapshot() == before
    else:
        assert knock in g.legal_actions(0)
        g.apply(knock, 0)
        assert g.last_hand["kind"] == ("gin" if deadwood == 0 else "knock")
        assert g.last_hand["deadwood_points"][0] == deadwood


def test_gin_and_the_showdown_summary_show_both_hands():
    """Seed: "Knocking with 0 points of deadwood is known as going Gin"."""
    g = rig(new(), "AS 2S 3S 4H 5H 6H 7D 8D 9D TD", "2H 4D 6D JC QC QD KD 3H 9S JH", "QS", "KH")
    both_pass(g)
    g.apply({"type": "draw", "source": "stock"}, 0)
    g.apply({"type": "knock", "card": "KH"}, 0)
    last = g.view(1)["last_hand"]
    assert (last["kind"], last["winner"], last["knocker"]) == ("gin", 0, 0)
    defender_deadwood = last["deadwood_points"][1]
    assert last["points"] == 25 + defender_deadwood and g.scores == [last["points"], 0]
    assert last["hands"][1] == ["9S", "2H", "3H", "JH", "4D", "6D", "QD", "KD", "JC", "QC"]
    assert g.hand_number == 2 and g.stats[0]["gins"] == 1


def test_big_gin_is_declared_with_eleven_melded_cards_and_no_discard():
    """Issue: "Big gin: all 11 cards melded, no discard"; seed 000: "If all 10 or 11 cards
    in a player's hand fit into melds ... player receives a Gin bonus of 25 points plus any
    deadwood points in the opponent's hand"."""
    g = rig(new(), "AS 2S 3S 4H 5H 6H 7D 8D 9D TD", "2H 4D 6D JC QC QD KD 3H 9S JH", "QS", "JD")
    both_pass(g)
    g.apply({"type": "draw", "source": "stock"}, 0)
    assert {"type": "big_gin"} in g.legal_actions(0)
    g.apply({"type": "big_gin"}, 0)
    assert g.last_hand["kind"] == "big_gin" and g.last_hand["discard"] is None
    assert g.scores[0] == 25 + g.last_hand["deadwood_points"][1]


def test_big_gin_bonus_of_31_is_an_option():
    """Issue 17: the seed's 25 is the default; "31 stays an option"."""
    g = rig(
        new({"big_gin_bonus": 31}),
        "AS 2S 3S 4H 5H 6H 7D 8D 9D TD",
        "2H 4D 6D JC QC QD KD 3H 9S JH",
        "QS",
        "JD",
    )
    both_pass(g)
    g.apply({"type": "draw", "source": "stock"}, 0)
    g.apply({"type": "big_gin"}, 0)
    assert g.scores[0] == 31 + g.last_hand["deadwood_points"][1]


def test_big_gin_is_refused_when_a_card_is_unmelded():
    g = rig(new(), "AS 2S 3S 4H 5H 6H 7D 8D 9D TD", "2H 4D 6D JC QC QD KD 3H 9S JH", "QS", "KH")
    both_pass(g)
    g.apply({"type": "draw", "source": "stock"}, 0)
    assert {"type": "big_gin"} not in g.legal_actions(0)
    before = g._snapshot()
    with pytest.raises(IllegalAction) as err:
        g.apply({"type": "big_gin"}, 0)
    assert err.value.code == "not_big_gin" and g._snapshot() == before


def test_undercut_scores_for_the_defender():
    g = rig(new(), "AS 2S 3S 4H 5H 6H 7D 8D 9D 8C", "KS KH KC QS QH QC JS JH JC 3D", "QD", "KD")
    both_pass(g)
    g.apply({"type": "draw", "source": "stock"}, 0)
    g.apply({"type": "knock", "card": "KD"}, 0)
    assert (g.last_hand["kind"], g.last_hand["winner"], g.scores) == ("undercut", 1, [0, 30])
    assert g.stats[1]["undercuts"] == 1 and g.stats[0]["knocks"] == 1


def test_hand_is_a_draw_when_two_cards_remain_in_the_stock():
    """Seed: "until only two cards remain in the stock pile, in which case the round ends in a
    draw and no points are awarded"."""
    g = new()
    both_pass(g)
    g.discard = g.stock[:-3] + g.discard  # keep 3 in the stock, the rest face up
    g.stock = g.stock[-3:]
    g.apply({"type": "draw", "source": "stock"}, 0)
    assert g.view(None)["stock_count"] == 2
    discard = next(a for a in g.legal_actions(0) if a["type"] == "discard")
    g.apply(discard, 0)
    assert (g.last_hand["kind"], g.last_hand["reason"]) == ("draw", "wall")
    assert g.scores == [0, 0] and g.hand_number == 2


def test_the_player_who_leaves_two_in_the_stock_may_still_knock():
    g = rig(new(), "AS 2S 3S 4H 5H 6H 7D 8D 9D 2C", "2H 4D 6D JC QC QD KD 3H 9S JH", "QS", "KH")
    both_pass(g)
    g.discard = g.stock[:-3] + g.discard
    g.stock = g.stock[-3:]
    g.apply({"type": "draw", "source": "stock"}, 0)
    g.apply({"type": "knock", "card": "KH"}, 0)
    assert g.last_hand["kind"] == "knock"


# ------------------------------------------------------------------------- endless hands

PILE = {"type": "draw", "source": "discard"}


def keep_taking_the_discard(g, moves=1000):
    """Issue 13's loop: whoever is to move takes the discard-pile top (the first upcard
    included) and throws another card back, so nobody ever draws from the stock. Returns the
    number of takes asked for; stops when the hand ends or after ``moves`` moves."""
    hand, takes = g.hand_number, 0
    for _ in range(moves):
        if g.hand_number != hand:
            break
        seat = g.to_move
        if g.phase in ("upcard", "draw"):
            g.apply(PILE, seat)
            takes += 1
        else:
            g.apply(next(a for a in g.legal_actions(seat) if a["type"] == "discard"), seat)
    return takes


def test_a_hand_of_endless_discard_pile_takes_ends_as_a_draw_at_the_bound():
    """Issue 13: two players who keep taking the discard never touch the stock, so the
    seed's two-card wall never comes. OpenSpiel's gin_rummy (gin_rummy.h) caps it: "There are
    no explicit game rules that prevent infinite action sequences. Both players can keep
    drawing the upcard and discarding indefinitely ... we set an upper bound well above what
    would ever occur in actual play", and its test: "cap the number of times the upcard can
    be drawn at 50 ... 51st time an upcard is drawn ends the game in a draw". Here: 50 takes
    per hand (option ``max_pile_draws``), the first upcard included; the 51st ends the hand as
    a draw, no score, and the deal alternates as after any drawn hand."""
    g = new()
    dealer = g.dealer
    assert keep_taking_the_discard(g) == 51
    assert g.hand_number == 2 and g.dealer == 1 - dealer
    assert g.last_hand == {
        "hand_number": 1,
        "dealer": dealer,
        "kind": "draw",
        "reason": "pile_limit",
        "winner": None,
        "knocker": None,
        "points": 0,
    }
    assert g.scores == [0, 0] and not any(any(s.values()) for s in g.stats)
    assert g.view(0)["pile_draws"] == 0 and g.view(None)["options"]["max_pile_draws"] == 50
    assert GIN.replay(g.moves, 2, "abc", {})._snapshot() == g._snapshot()


def test_the_pile_draw_bound_is_an_option_and_counts_takes_not_turns():
    """OpenSpiel ends the hand only when the upcard is drawn once too often: after the last
    allowed take the hand goes on from the stock, and the player who took it may knock."""
    g = new({"max_pile_draws": 2})
    assert keep_taking_the_discard(g, moves=4) == 2
    assert g.view(None)["pile_draws"] == 2 and g.phase == "draw"
    seat = g.to_move
    g.apply({"type": "draw", "source": "stock"}, seat)
    g.apply(next(a for a in g.legal_actions(seat) if a["type"] == "discard"), seat)
    assert g.hand_number == 1
    g.apply(PILE, g.to_move)
    assert g.hand_number == 2 and g.last_hand["reason"] == "pile_limit"

    hands = ("AS 2S 3S 4H 5H 6H 7D 8D 9D 2C", "2H 4D 6D JC QC QD KD 3H 9S JH")
    g = rig(new({"max_pile_draws": 1}), *hands, "9C")
    g.apply(PILE, 0)
    g.apply({"type": "knock", "card": "2C"}, 0)
    assert g.last_hand["kind"] == "knock" and g.last_hand["winner"] == 0


# ---------------------------------------------------------------------------- the match


def test_match_ends_when_a_player_reaches_the_target():
    """Seed: "The game ends when a player reaches 100 or more points."."""
    rec = GIN.play(players=2, seed="abc", bots=["greedy", "greedy"], options={})
    res = rec.result
    winner = res["winner"]
    assert res["hand_points"][winner] >= 100 > res["hand_points"][1 - winner]
    assert res["placements"][winner] == 1 and res["placements"][1 - winner] == 2
    assert res["scores"] == res["hand_points"]
    assert sum(s["hands_won"] for s in res["stats"]) <= res["hands"]
    json.dumps(res)


def test_optional_bonuses_are_added_at_the_end():
    """Issue: "the common optional bonuses (line/box bonus per hand won, game bonus, shutout
    doubling), off by default as in the seed"."""
    options = {"target": 30, "line_bonus": 25, "game_bonus": 100, "shutout_double": True}
    for seed in ("a", "b", "c", "d", "e", "f"):
        res = GIN.play(2, seed, ["greedy", "random"], options).result
        w = res["winner"]
        expected = [
            res["hand_points"][s] + 25 * res["stats"][s]["hands_won"] + (100 if s == w else 0)
            for s in range(2)
        ]
        if res["hand_points"][1 - w] == 0:
            expected[w] *= 2
        assert res["scores"] == expected


def _seed_with_upcard(test):
    for i in range(500):
        g = new({"oklahoma": True, "oklahoma_spades_double": True}, seed=f"s{i}")
        if test(g.view(None)["discard"][0]):
            return g
    raise AssertionError("no seed found")


def test_oklahoma_upcard_sets_the_knock_limit_and_an_ace_means_gin_only():
    """Issue: "Oklahoma (the first upcard sets the knock limit; an ace means gin only)"."""
    assert _seed_with_upcard(lambda c: c[0] == "A").knock_limit == 0
    assert _seed_with_upcard(lambda c: c[0] == "7").knock_limit == 7
    assert _seed_with_upcard(lambda c: c[0] == "Q").knock_limit == 10
    assert new({"oklahoma": False}).knock_limit == 10


def test_oklahoma_spade_upcard_doubles_the_hand_when_chosen():
    g = _seed_with_upcard(lambda c: c == "9S")
    rig(g, "AS 2S 3S 4H 5H 6H 7D 8D 9D 2C", "KS KH KC QS QH QC JS JH JC TD", "9S", "KD")
    both_pass(g)
    g.apply({"type": "draw", "source": "stock"}, 0)
    g.apply({"type": "knock", "card": "KD"}, 0)
    assert g.last_hand["doubled"] and g.last_hand["points"] == 2 * (25 + 2 - 0)


# ---------------------------------------------------------------------- illegal actions


def _after_draw(g):
    both_pass(g)
    g.apply({"type": "draw", "source": "stock"}, 0)
    return g


ILLEGAL = [
    (lambda g: g, {"type": "pass"}, 1, "not_your_turn"),
    (lambda g: g, {"type": "draw", "source": "stock"}, 0, "wrong_phase"),
    (lambda g: g, {"type": "discard", "card": "7S"}, 0, "wrong_phase"),
    (lambda g: g, {"type": "knock", "card": "7S"}, 0, "wrong_phase"),
    (lambda g: g, {"type": "big_gin"}, 0, "wrong_phase"),
    (lambda g: g, {"type": "fold"}, 0, "unknown_action"),
    (lambda g: g, {"card": "7S"}, 0, "unknown_action"),
    (lambda g: g, "pass", 0, "bad_action"),
    (lambda g: g, {"type": "pass", "extra": 1}, 0, "bad_action"),
    (lambda g: g, {"type": "draw"}, 0, "bad_action"),
    (lambda g: g, {"type": "draw", "source": "deck"}, 0, "bad_action"),
    (_after_draw, {"type": "pass"}, 0, "wrong_phase"),
    (_after_draw, {"type": "draw", "source": "stock"}, 0, "wrong_phase"),
    (_after_draw, {"type": "discard", "card": "AS"}, 0, "card_not_in_hand"),
    (_after_draw, {"type": "discard", "card": "ZZ"}, 0, "bad_action"),
    (_after_draw, {"type": "discard", "card": 7}, 0, "bad_action"),
    (_after_draw, {"type": "knock", "card": "7S"}, 0, "knock_too_high"),
    (_after_draw, {"type": "discard", "card": "7S"}, 1, "not_your_turn"),
]


@pytest.mark.parametrize(("setup", "action", "seat", "code"), ILLEGAL)
def test_every_illegal_action_is_refused_with_its_code_and_changes_nothing(
    setup, action, seat, code
):
    g = setup(new())
    before, view = g._snapshot(), g.view(seat)
    with pytest.raises(IllegalAction) as err:
        g.apply(action, seat)
    assert err.value.code == code and err.value.message
    assert g._snapshot() == before and g.view(seat) == view


def test_no_action_is_accepted_once_the_match_is_over():
    g = GIN.replay(GIN.play(2, "abc", ["greedy", "greedy"], {}).moves, 2, "abc", {})
    assert g.over and g.to_move is None and g.legal_actions(0) == []
    before = g._snapshot()
    with pytest.raises(IllegalAction) as err:
        g.apply({"type": "pass"})
    assert err.value.code == "match_over" and g._snapshot() == before


# --------------------------------------------------------------------------------- views


def test_view_shows_own_hand_public_picks_and_never_hidden_cards():
    g = new()
    g.apply({"type": "draw", "source": "discard"}, 0)
    upcard = g.view(0)["known"][0][0]
    for seat in (0, 1, None):
        view = g.view(seat)
        json.dumps(view)
        for key in ("variant", "seat", "players", "to_move", "phase", "hand", "hand_counts"):
            assert key in view
        for key in ("discard", "stock_count", "scores", "hand_number", "dealer", "known"):
            assert key in view
        assert "last_hand" in view and "over" in view and "result" in view
        assert "stock" not in view and "abc" not in json.dumps(view)
        assert view["known"] == [[upcard], []]
    assert g.view(None)["hand"] == []
    hidden = set(g.view(1)["hand"])
    assert not hidden & set(json.dumps(g.view(0)).replace('"', " ").split())


# ------------------------------------------------------------------------------- options


def test_options_get_every_default_filled_in():
    assert GIN.validate_options({}) == {
        "knock_limit": 10,
        "oklahoma": False,
        "oklahoma_spades_double": False,
        "gin_bonus": 25,
        "big_gin_bonus": 25,
        "undercut_bonus": 25,
        "target": 100,
        "line_bonus": 0,
        "game_bonus": 0,
        "shutout_double": False,
        "max_pile_draws": 50,
    }
    assert GIN.validate_options(None)["target"] == 100
    assert GIN.validate_options({"knock_limit": 0})["knock_limit"] == 0


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"knock_limit": 11}, "'knock_limit' must be at most 10"),
        ({"knock_limit": -1}, "'knock_limit' must be at least 0"),
        ({"knock_limit": "5"}, "'knock_limit' must be an integer"),
        ({"knock_limit": True}, "'knock_limit' must be an integer"),
        ({"oklahoma": 1}, "'oklahoma' must be true or false"),
        ({"target": 0}, "'target' must be at least 1"),
        ({"gin_bonus": -5}, "'gin_bonus'"),
        ({"big_gin_bonus": 1.5}, "'big_gin_bonus'"),
        ({"undercut_bonus": None}, "'undercut_bonus'"),
        ({"line_bonus": -1}, "'line_bonus'"),
        ({"game_bonus": -1}, "'game_bonus'"),
        ({"shutout_double": "yes"}, "'shutout_double'"),
        ({"oklahoma_spades_double": True}, "needs 'oklahoma'"),
        ({"max_pile_draws": 0}, "'max_pile_draws' must be at least 1"),
        ({"max_pile_draws": 1001}, "'max_pile_draws' must be at most 1000"),
        ({"knock_limt": 5}, "unknown option 'knock_limt'"),
        ([("target", 5)], "options must be a dict"),
    ],
)
def test_bad_options_name_the_option(options, message):
    with pytest.raises(ValueError, match=message):
        GIN.validate_options(options)
    with pytest.raises(ValueError, match=message):
        GIN.new(players=2, seed="abc", options=options)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: GIN.new(players=3, seed="abc"), "2 to 2 players, got 3"),
        (lambda: GIN.new(players="2", seed="abc"), "players must be an integer"),
        (lambda: GIN.new(players=2, seed=""), "seed"),
        (lambda: new().legal_actions(2), "seat must be 0 or 1"),
        (lambda: new().view(-1), "seat must be 0 or 1 or None"),
        (lambda: new().apply({"type": "pass"}, seat="0"), "seat must be 0 or 1"),
        (lambda: GIN.replay("moves", 2, "abc", {}), "moves must be a list"),
        (lambda: GIN.replay([{"seat": 0}], 2, "abc", {}), "move 0 must be"),
        (lambda: GIN.play(2, "abc", ["greedy"], {}), "one bot per seat"),
        (lambda: GIN.play(2, "abc", ["greedy", "genius"], {}), "unknown bot 'genius'"),
        (lambda: GIN.bot_action(new(), 1, "greedy"), "not seat 1's turn"),
        (lambda: GIN.bot_action(new(), 0, "genius"), "unknown bot"),
        (lambda: GIN.bot_action(object(), 0, "greedy"), "gin game"),
    ],
)
def test_bad_input_to_every_variant_function(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_replay_raises_on_an_illegal_move():
    moves = GIN.play(2, "abc", ["greedy", "greedy"], {}).moves
    moves[3] = {"seat": moves[3]["seat"], "action": {"type": "discard", "card": "ZZ"}}
    with pytest.raises(IllegalAction):
        GIN.replay(moves, 2, "abc", {})


# ---------------------------------------------------------------------------- properties

_JUNK = [
    {"type": "pass"},
    {"type": "draw", "source": "stock"},
    {"type": "draw", "source": "discard"},
    {"type": "discard", "card": "AS"},
    {"type": "knock", "card": "KD"},
    {"type": "big_gin"},
    {"type": "meld"},
    {},
]


@settings(max_examples=20, deadline=None)
@given(st.data(), st.sampled_from(["abc", "x", "seed-3"]), st.sampled_from([0, 5, 10]))
def test_random_play_keeps_every_invariant(data, seed, limit):
    """52 cards accounted for in every state; views hide the opponent's cards; an illegal
    action changes nothing; replaying the log reproduces every state."""
    options = {"knock_limit": limit, "target": 40}
    g = GIN.new(2, seed, options)
    snapshots = [g._snapshot()]
    for _ in range(400):
        if g.over:
            break
        total = g.hands[0] + g.hands[1] + sum(g.discard) + sum(g.stock)
        assert total == sum(1 << c.code for c in cards.deck())
        assert g.hands[0] & g.hands[1] == 0
        views = [json.loads(json.dumps(g.view(seat))) for seat in (0, 1)]
        for seat, view in enumerate(views):
            other = views[1 - seat]["hand"]
            shown = set(view["hand"]) | set(view["discard"])
            for k in view["known"]:
                shown |= set(k)
            hidden = set(other) - set(view["known"][1 - seat])
            assert not hidden & set(view["hand"])
            assert not hidden & set(view["discard"])
            assert view["hand_counts"][1 - seat] == len(other)
        junk = data.draw(st.sampled_from(_JUNK))
        if junk not in g.legal_actions(g.to_move):
            before = g._snapshot()
            with pytest.raises(IllegalAction):
                g.apply(junk, g.to_move)
            assert g._snapshot() == before
        actions = g.legal_actions(g.to_move)
        g.apply(data.draw(st.sampled_from(actions)), g.to_move)
        snapshots.append(g._snapshot())
    moves = g.moves
    again = GIN.new(2, seed, options)
    for move, expected in zip(moves, snapshots[1:], strict=True):
        again.apply(move["action"], move["seat"])
        assert again._snapshot() == expected
    cut = data.draw(st.integers(0, len(moves)))
    assert GIN.replay(moves[:cut], 2, seed, options)._snapshot() == snapshots[cut]
