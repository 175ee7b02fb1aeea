"""Basic Rummy through the variant interface: every rule of issue 4, quoted, and bad input."""

import json

import pytest

from engine import IllegalAction, cards, fair, variants
from engine.melds import classify
from engine.variants import basic
from engine.variants.basic import meld_order

BASIC = variants.get("basic")


def new(players=2, seed="abc", options=None):
    return BASIC.new(players=players, seed=seed, options=options or {})


def rig(g, hands, discard, stock_top="", table=()):
    """Chosen hands, discard pile (bottom first), stock top (first card drawn first) and
    table melds; every other card of the deck goes under the stock, so 52 stay accounted."""
    parsed = [cards.parse(h) for h in hands]
    pile, top = cards.parse(discard), cards.parse(stock_top)
    melds = [cards.parse(m) for m in table]
    used = {c for group in [*parsed, pile, top, *melds] for c in group}
    rest = [c for c in cards.deck() if c not in used]
    g.hands = parsed
    g.discard = pile
    g.stock = rest + top[::-1]
    g.table = [{"kind": classify(m).kind, "cards": meld_order(m)} for m in melds]
    return g


def illegal(g, action, seat=None):
    """Apply ``action`` expecting IllegalAction; check nothing changed; return the code."""
    before = g._snapshot()
    with pytest.raises(IllegalAction) as err:
        g.apply(action, seat)
    assert g._snapshot() == before
    return err.value.code


STOCK = {"type": "draw", "source": "stock"}
PILE = {"type": "draw", "source": "discard"}


def discard(text):
    return {"type": "discard", "card": text}


def meld(text):
    return {"type": "meld", "cards": text.split()}


def layoff(text, index):
    return {"type": "layoff", "card": text, "meld": index}


# ------------------------------------------------------------------------------- dealing


@pytest.mark.parametrize(("players", "size"), [(2, 10), (3, 7), (4, 7), (5, 6), (6, 6)])
def test_deal_sizes_by_table_size(players, size):
    """Issue 4: "2 players get 10 cards, 3-4 players 7, 5-6 players 6; one 52-card deck"."""
    view = new(players).view(0)
    assert view["hand_counts"] == [size] * players and len(view["hand"]) == size
    assert len(view["discard"]) == 1
    assert view["stock_count"] == 52 - size * players - 1


def test_deal_follows_the_fair_deck_of_the_seed():
    """Issue 4: "Use engine.fair for provably fair dealing": hand 1 is the seed's deck."""
    g = new(3, seed="pinned")
    deck = fair.shuffled_deck("pinned", 1)
    assert sorted(g.hands[0], key=lambda c: c.code) == sorted(deck[0:21:3], key=lambda c: c.code)
    assert g.discard == [deck[21]] and g.stock[-1] == deck[22]


def test_aces_are_low_and_runs_do_not_wrap():
    """Issue 4: "aces low, no wrap"."""
    assert classify(cards.parse("AH 2H 3H")).kind == "run"
    assert classify(cards.parse("QH KH AH")) is None
    assert classify(cards.parse("KH AH 2H")) is None


def test_the_player_left_of_the_dealer_starts_and_the_deal_rotates():
    """Seed 002: "The player to the left of the dealer starts the hand"."""
    g = new(3)
    assert (g.dealer, g.to_move) == (2, 0)
    rig(g, ["5C 6C 7C 9D", "KH KD", "KS QD"], "2D", "8C")
    g.played_before[0] = True
    g.apply(STOCK, 0)
    g.apply(meld("5C 6C 7C 8C"), 0)
    g.apply(discard("9D"), 0)  # seat 0 goes out; seat 0 deals hand 2
    assert g.hand_number == 2 and (g.dealer, g.to_move) == (0, 1)


# ----------------------------------------------------------------------------- a turn


def test_a_turn_is_draw_then_melds_and_layoffs_then_one_discard():
    """Issue 4: "A turn: draw from stock or discard pile; lay down any number of melds; lay
    off any number of cards on any meld on the table (melds belong to nobody); discard one
    card."."""
    g = rig(new(2), ["3H 4H 5H 7S 7D 7C 9C 2D", "KS KD KC 4C"], "JD", "6H 8S 8D")
    assert g.legal_actions(0) == [STOCK, PILE] and g.legal_actions(1) == []
    assert illegal(g, meld("3H 4H 5H")) == "wrong_phase"
    g.apply(STOCK, 0)  # 6H
    assert illegal(g, STOCK) == "wrong_phase"
    g.apply(meld("3H 4H 5H 6H"), 0)
    g.apply(meld("7S 7D 7C"), 0)
    assert {"type": "layoff", "card": "2D", "meld": 0} not in g.legal_actions(0)
    g.apply(discard("9C"), 0)
    assert g.to_move == 1 and g.view(1)["melds"][1] == {"kind": "set", "cards": ["7S", "7D", "7C"]}
    g.apply(STOCK, 1)  # 8S
    g.apply(meld("KS KD KC"), 1)
    assert layoff("4C", 0) not in g.legal_actions(1)
    assert {"type": "layoff", "card": "8S", "meld": 0} not in g.legal_actions(1)
    g.apply(discard("8S"), 1)
    g.apply(STOCK, 0)  # 8D
    assert illegal(g, layoff("8D", 0)) == "cannot_lay_off"
    g.apply(discard("8D"), 0)
    assert g.hands[0] == cards.parse("2D") and g.scores == [0, 0]


def test_melds_belong_to_nobody_anyone_lays_off_on_them():
    """Seed 002: "as soon as a meld is on the table it doesn't belong to anyone anymore,
    anyone can use it. ... you may always lay off, also when you haven't put down a meld"."""
    g = rig(new(2), ["2C 9D", "8H 5S JC"], "3D", "KC", table=["5H 6H 7H"])
    g.apply(STOCK, 0)
    g.apply(discard("KC"), 0)
    g.apply(STOCK, 1)
    assert layoff("8H", 0) in g.legal_actions(1)
    g.apply(layoff("8H", 0), 1)
    assert g.view(0)["melds"] == [{"kind": "run", "cards": ["5H", "6H", "7H", "8H"]}]


def test_laying_off_extends_a_run_at_either_end_and_a_set_with_the_fourth_suit():
    """Seed 002: "if there's H5 H6 H7 on the table, and you have the H8 you may lay it off"."""
    g = rig(new(2), ["4H 8H 9S 2C KD", "QC"], "3D", "TD", table=["5H 6H 7H", "9H 9D 9C"])
    g.apply(STOCK, 0)
    legal = g.legal_actions(0)
    assert all(a in legal for a in [layoff("4H", 0), layoff("8H", 0), layoff("9S", 1)])
    g.apply(layoff("4H", 0), 0)
    g.apply(layoff("8H", 0), 0)
    g.apply(layoff("9S", 1), 0)
    assert g.view(0)["melds"][0]["cards"] == ["4H", "5H", "6H", "7H", "8H"]
    assert illegal(g, layoff("2C", 0)) == "cannot_lay_off"
    assert illegal(g, layoff("KD", 1)) == "cannot_lay_off"


def test_a_card_drawn_from_the_discard_pile_may_not_be_discarded_that_turn():
    """Issue 4: "A card drawn from the discard pile may not be discarded that turn."."""
    g = rig(new(2), ["2C 9D 5S", "8H 5D JC"], "KC", "QH")
    g.apply(PILE, 0)
    assert discard("KC") not in g.legal_actions(0)
    assert illegal(g, discard("KC")) == "cannot_discard_drawn_discard"
    g.apply(discard("9D"), 0)
    assert g.discard[-1] == cards.card("9D")


def test_a_meld_that_would_leave_only_the_taken_card_is_refused():
    """Engine choice (README): the taken card could then neither be discarded nor played."""
    g = rig(new(2), ["4S 5S 6S", "8H 5D JC"], "KC", "QH")
    g.apply(PILE, 0)
    assert meld("4S 5S 6S") not in g.legal_actions(0)
    assert illegal(g, meld("4S 5S 6S")) == "strands_taken_card"


# ------------------------------------------------------------------------- going out


def test_going_out_by_discarding_the_last_card():
    """Issue 4: "Going out: discarding the last card"; seed 002: "Face cards are worth 10
    points each, aces are 1 point, and other cards are worth their rank"."""
    g = rig(new(3), ["5C 6C 7C", "KH AD 9S", "QS 3D"], "JC", "2D")
    g.played_before[0] = True
    g.apply(STOCK, 0)
    g.apply(meld("5C 6C 7C"), 0)
    assert g.legal_actions(0) == [discard("2D")]
    g.apply(discard("2D"), 0)
    assert g.last_hand["kind"] == "out" and g.last_hand["winner"] == 0
    assert g.last_hand["points"] == (10 + 1 + 9) + (10 + 3)
    assert g.scores == [33, 0, 0] and g.stats[0]["hands_won"] == 1
    assert [s["hands_lost"] for s in g.stats] == [0, 1, 1]


def test_going_out_by_melding_every_card_needs_no_discard():
    """Issue 4: "or melding/laying off every card (no discard needed)"."""
    g = rig(new(2), ["9C 9D 9H 2S 2D", "KH 5D"], "JC", "2H", table=["3C 4C 5C"])
    g.played_before[0] = True
    g.apply(STOCK, 0)
    g.apply(meld("9C 9D 9H"), 0)
    g.apply(meld("2S 2D 2H"), 0)
    assert g.last_hand["kind"] == "out" and g.scores == [15, 0]


def test_going_out_by_laying_off_the_last_card():
    """Issue 4: "or melding/laying off every card (no discard needed)"."""
    g = rig(new(2), ["6C", "KH 5D"], "JC", "7C", table=["3C 4C 5C"])
    g.played_before[0] = True
    g.apply(STOCK, 0)
    g.apply(layoff("6C", 0), 0)
    g.apply(layoff("7C", 0), 0)
    assert g.last_hand["winner"] == 0 and g.scores == [15, 0]


def test_going_rummy_doubles_the_points():
    """Issue 4: "going rummy (no meld or lay-off before, out in one turn) doubles it"."""
    g = rig(new(2), ["9C 9D 9H 2S 2D 5H 6H 7H 8H TS", "KH 5D"], "JC", "2H")
    g.apply(STOCK, 0)
    g.apply(meld("9C 9D 9H"), 0)
    g.apply(meld("2S 2D 2H"), 0)
    g.apply(meld("5H 6H 7H 8H"), 0)
    g.apply(discard("TS"), 0)
    assert g.last_hand["kind"] == "rummy" and g.scores == [30, 0]
    assert g.stats[0]["rummies"] == 1


def test_no_rummy_bonus_after_melding_in_an_earlier_turn():
    """Issue 4: going rummy needs "no meld or lay-off before"."""
    g = rig(new(2), ["9C 9D 9H 2S 2D", "KH 5D 6S"], "JC", "8C 4S 2H")
    g.apply(STOCK, 0)
    g.apply(meld("9C 9D 9H"), 0)
    g.apply(discard("8C"), 0)
    g.apply(STOCK, 1)
    g.apply(discard("4S"), 1)
    g.apply(STOCK, 0)
    g.apply(meld("2S 2D 2H"), 0)
    assert g.last_hand["kind"] == "out" and g.scores == [21, 0]


# --------------------------------------------------------------------- stock and stalemate


def test_stock_runs_out_discard_pile_reshuffled_from_the_seed_once_then_stalemate():
    """Issue 4: "Stock runs out: the discard pile (all but its top card) is shuffled, from the
    seed, into a new stock, once. Runs out again: stalemate, nobody scores."."""
    g = rig(new(2), ["2C 9D", "8H 5D"], "", "")
    rest = list(g.stock)
    g.discard, g.stock = rest[:-1], rest[-1:]
    pile = list(g.discard)
    top_before = g.stock[-1]
    g.apply(STOCK, 0)
    g.apply(discard(top_before.text), 0)
    assert g.reshuffled and g.discard == [top_before]
    assert g.stock == fair.shuffle(pile, "abc", "hand:1:reshuffle")
    while g.hand_number == 1:
        seat = g.to_move
        before = list(g.hands[seat])
        g.apply(STOCK, seat)
        (drawn,) = [c for c in g.hands[seat] if c not in before]
        g.apply(discard(drawn.text), seat)
    assert g.last_hand["kind"] == "stock_exhausted" and g.last_hand["winner"] is None
    assert g.scores == [0, 0] and g.hand_number == 2


def keep_taking_the_discard(g, moves=1000):
    """Issue 13's loop: whoever is to move takes the discard-pile top and discards another
    card, so the stock is never drawn. Returns the takes asked for; stops when the hand ends
    or after ``moves`` moves."""
    hand, takes = g.hand_number, 0
    for _ in range(moves):
        if g.hand_number != hand:
            break
        seat = g.to_move
        if g.phase == "draw":
            g.apply(PILE, seat)
            takes += 1
        else:
            g.apply(next(a for a in g.legal_actions(seat) if a["type"] == "discard"), seat)
    return takes


def test_a_hand_of_endless_discard_pile_takes_is_a_stalemate_at_the_bound():
    """Issue 13: the seed's stalemate needs the stock "depleted for a second time", which
    players who keep taking the discard never do. No published Basic Rummy rule bounds that
    loop; Knock takes OpenSpiel's Gin Rummy bound ("cap the number of times the upcard can be
    drawn at 50 ... well above anything observed in actual play, and corresponds nicely to
    the 50 cards in play each hand"), one take per card in play: 52 per hand (option
    ``max_pile_draws``). The 53rd ends the hand as a stalemate ("finishes with no one getting
    any points", seed 002) and the deal passes to the left as after any stalemate."""
    g = new(3)
    dealer = g.dealer
    assert keep_taking_the_discard(g) == 53
    assert g.hand_number == 2 and g.dealer == (dealer + 1) % 3
    assert (g.last_hand["kind"], g.last_hand["winner"], g.last_hand["points"]) == (
        "pile_limit",
        None,
        0,
    )
    assert g.scores == [0, 0, 0]
    # Seed 002: "the game is considered a loss for all of them in the statistics".
    assert (
        g.stats
        == [{"hands_won": 0, "rummies": 0, "cards_melded": 0, "hands_lost": 1, "stalemates": 1}] * 3
    )
    assert g.view(0)["pile_draws"] == 0 and g.view(None)["options"]["max_pile_draws"] == 52
    assert BASIC.replay(g.moves, 3, "abc", {})._snapshot() == g._snapshot()


def test_after_the_last_allowed_take_the_hand_goes_on_from_the_stock():
    """As in OpenSpiel, only taking the pile once too often ends the hand; the player who
    made the last allowed take may still go out with it."""
    g = new(2, options={"max_pile_draws": 2})
    assert keep_taking_the_discard(g, moves=4) == 2 and g.view(None)["pile_draws"] == 2
    g.apply(STOCK, g.to_move)
    g.apply(next(a for a in g.legal_actions(g.to_move) if a["type"] == "discard"), g.to_move)
    assert g.hand_number == 1
    g.apply(PILE, g.to_move)
    assert g.hand_number == 2 and g.last_hand["kind"] == "pile_limit"

    g = rig(new(2, options={"max_pile_draws": 1}), ["5C 6C 9D", "KH AD 9S"], "7C")
    g.apply(PILE, 0)
    g.apply(meld("5C 6C 7C"), 0)
    g.apply(discard("9D"), 0)
    assert g.last_hand["kind"] == "rummy" and g.last_hand["winner"] == 0


FULL_RUNS = ["AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS", "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"]


def test_stalemate_when_nobody_can_ever_finish():
    """Issue 4: "Also stalemate when no player can ever finish (the seed's example: everyone
    holds one card and no lay-off is possible)."."""
    g = rig(new(2), ["7D", "KC"], "JC", "4D", table=FULL_RUNS)
    g.apply(STOCK, 0)
    g.apply(discard("4D"), 0)
    assert g.last_hand["kind"] == "no_finish_possible" and g.last_hand["winner"] is None
    assert g.scores == [0, 0] and g.hand_number == 2
    assert [(s["hands_lost"], s["stalemates"]) for s in g.stats] == [(1, 1), (1, 1)]


def test_no_stalemate_while_a_lay_off_is_still_possible():
    """Issue 4: the stalemate needs "no lay-off is possible"; 4S and 8S could still come."""
    g = rig(new(2), ["7D", "KC"], "JC", "4D", table=["5S 6S 7S"])
    g.apply(STOCK, 0)
    g.apply(discard("4D"), 0)
    assert g.last_hand is None and g.to_move == 1


def test_no_stalemate_while_someone_holds_two_cards():
    """Two cards plus a draw can still make a meld, so the hand goes on."""
    g = rig(new(2), ["7D 7H", "KC"], "JC", "4D", table=FULL_RUNS[:1])
    g.apply(STOCK, 0)
    g.apply(discard("4D"), 0)
    assert g.last_hand is None


# ---------------------------------------------------------------------------- scoring


@pytest.mark.parametrize(("players", "target"), [(2, 100), (3, 150), (4, 200), (5, 200), (6, 200)])
def test_game_target_by_table_size(players, target):
    """Issue 4: "Game target 100 for 2 players, 150 for 3, 200 for 4 (and an option for 5-6,
    documented)": 5-6 default to 200; the ``target`` option overrides any size."""
    assert new(players).target == target
    assert new(players, options={"target": 50}).target == 50


def test_match_ends_when_a_player_reaches_the_target():
    """Seed 002: "When a player reaches the target score he has won the entire game."."""
    g = rig(new(3, options={"target": 20}), ["5C 6C 7C", "KH AD 9S", "QS 3D 4D"], "JC", "8D")
    g.played_before[0] = True
    g.scores = [0, 3, 0]
    g.apply(STOCK, 0)
    g.apply(meld("5C 6C 7C"), 0)
    g.apply(discard("8D"), 0)
    assert g.over and g.result["winner"] == 0
    assert g.result["scores"] == [37, 3, 0] and g.result["placements"] == [1, 2, 3]
    assert g.result["hands"] == 1 and g.result["stats"][0]["hands_won"] == 1
    assert g.legal_actions(0) == [] and g.to_move is None
    assert illegal(g, STOCK, 0) == "match_over"
    json.dumps(g.view(None))


# ------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "bad",
    ["2C 9D", "2C 9D 5S", "3H 4H 6H", "QH KH AH", "KH AH 2H", "3H 4H 5D", "2C 2D 2D", "XX YY ZZ"],
)
def test_melds_of_the_wrong_shape_are_refused(bad):
    """Issue 4 bad input: "melds of the wrong shape" (two cards, gaps, wrap, mixed suits)."""
    hand = "2C 9D 5S 3H 4H 6H QH KH AH 2H 5D 2D"
    g = rig(new(2), [hand, "8S"], "JC", "TC")
    g.apply(STOCK, 0)
    assert illegal(g, meld(bad)) in {"not_a_meld", "bad_card", "bad_action", "card_not_in_hand"}


def test_laying_off_on_a_meld_that_cannot_take_the_card():
    """Issue 4 bad input: "laying off on a meld that cannot take the card"."""
    g = rig(new(2), ["9H 5C 2D", "8S"], "JC", "TC", table=["5H 6H 7H", "KS KD KC"])
    g.apply(STOCK, 0)
    assert illegal(g, layoff("9H", 0)) == "cannot_lay_off"  # a gap
    assert illegal(g, layoff("5C", 1)) == "cannot_lay_off"
    assert illegal(g, layoff("5C", 2)) == "bad_meld_index"
    assert illegal(g, layoff("5C", True)) == "bad_meld_index"
    assert illegal(g, layoff("KH", 1)) == "card_not_in_hand"


def test_discarding_the_just_drawn_discard():
    """Issue 4 bad input: "discarding the just-drawn discard"."""
    g = rig(new(2), ["2C 9D", "8S"], "JC", "TC")
    g.apply(PILE, 0)
    assert illegal(g, discard("JC")) == "cannot_discard_drawn_discard"


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ([], "bad_action"),
        ({"type": "knock", "card": "2C"}, "unknown_action"),
        ({"type": "draw"}, "bad_action"),
        ({"type": "draw", "source": "deck"}, "bad_action"),
        ({"type": "discard", "card": "2C", "extra": 1}, "bad_action"),
        ({"type": 5}, "unknown_action"),
    ],
)
def test_malformed_actions(action, code):
    """Every malformed action is refused with a stable code and changes nothing."""
    assert illegal(new(), action) == code


def test_discard_before_drawing_and_unknown_cards():
    g = new()
    held = g.hands[0][0].text
    assert illegal(g, discard(held)) == "wrong_phase"
    g.apply(STOCK, 0)
    assert illegal(g, discard("1X")) == "bad_card"
    assert illegal(g, discard(7)) == "bad_card"
    assert illegal(g, {"type": "meld", "cards": "2C 3C 4C"}) == "bad_action"
    assert illegal(g, {"type": "meld", "cards": []}) == "bad_action"


def test_seats_out_of_turn_and_out_of_range():
    g = new(3)
    assert illegal(g, STOCK, 1) == "not_your_turn"
    with pytest.raises(ValueError, match="seat"):
        g.apply(STOCK, 3)
    with pytest.raises(ValueError, match="seat"):
        g.legal_actions(-1)
    with pytest.raises(ValueError, match="seat"):
        g.view("0")
    assert g.legal_actions(1) == []


@pytest.mark.parametrize(
    ("players", "options", "message"),
    [
        (1, {}, "2 to 6 players"),
        (7, {}, "2 to 6 players"),
        (2, {"target": -1}, "at least 0"),
        (2, {"target": True}, "integer"),
        (2, {"taget": 100}, "unknown option 'taget'"),
        (2, {"max_pile_draws": 0}, "'max_pile_draws' must be at least 1"),
        (2, {"max_pile_draws": 1001}, "'max_pile_draws' must be at most 1000"),
        (2, [], "must be a dict"),
    ],
)
def test_bad_players_and_options(players, options, message):
    with pytest.raises(ValueError, match=message):
        BASIC.new(players=players, seed="abc", options=options)


def test_bad_seed_and_bad_bot():
    with pytest.raises(ValueError, match="seed"):
        new(seed="")
    with pytest.raises(ValueError, match="unknown bot"):
        BASIC.play(2, "abc", ["greedy", "expert"])
    g = new()
    with pytest.raises(ValueError, match="not seat 1's turn"):
        BASIC.bot_action(g, 1, "greedy")


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_bots_play_whole_matches_at_every_table_size_and_replay(players, bot):
    """Issue 4: "random and greedy bots for both variants, at every table size 2-6"."""
    rec = BASIC.play(players, f"s{players}", [bot] * players, {"target": 30})
    assert rec.result["scores"][rec.result["winner"]] >= 30
    assert sorted(rec.result["placements"])[0] == 1
    json.dumps(rec.moves)
    assert BASIC.replay(rec.moves, players, f"s{players}", {"target": 30}).result == rec.result


# ------------------------------------------------------------- options the seed names


def test_one_meld_per_turn_is_an_option():
    """Seed 002: "You are allowed to put down many melds in each round (in some versions only
    one meld per turn is allowed)." Option ``one_meld_per_turn`` (off by default); lay-offs
    stay free."""
    hands = ["3H 4H 5H 7S 7D 7C 9C KD", "KS QD JC 4C"]
    g = rig(new(2, options={"one_meld_per_turn": True}), hands, "JD", "6D 8S 8D", ["9H 9S 9D"])
    g.apply(STOCK, 0)
    g.apply(meld("3H 4H 5H"), 0)
    assert not [a for a in g.legal_actions(0) if a["type"] == "meld"]
    assert illegal(g, meld("7S 7D 7C")) == "one_meld_per_turn"
    g.apply(layoff("9C", 0), 0)  # lay-offs are not melds
    g.apply(discard("KD"), 0)
    g.apply(STOCK, 1)
    g.apply(discard("8S"), 1)
    g.apply(STOCK, 0)
    g.apply(meld("7S 7D 7C"), 0)  # a new turn, a new meld
    free = rig(new(2), hands, "JD", "6D")
    free.apply(STOCK, 0)
    free.apply(meld("3H 4H 5H"), 0)
    free.apply(meld("7S 7D 7C"), 0)
    assert BASIC.validate_options({})["one_meld_per_turn"] is False


def test_penalty_scoring_is_an_option_and_the_first_to_100_loses():
    """Seed 002: "Hands will continue to be dealt until one of the players reaches 100
    points. The first player to reach 100 points loses the rummy game." and "(In some
    variations each player gets his points as penalty points, but not in this version)".
    Option ``scoring: penalty``: each loser adds its own cards, the winner nothing; the
    target defaults to 100; the lowest total wins."""
    g = rig(new(3, options={"scoring": "penalty"}), ["5C 6C 7C", "KH AD 9S", "QS 3D"], "JC", "2D")
    assert g.target == 100
    g.scores = [50, 80, 10]
    g.played_before[0] = True
    g.apply(STOCK, 0)
    g.apply(meld("5C 6C 7C"), 0)
    g.apply(discard("2D"), 0)
    assert g.last_hand["penalties"] == [0, 10 + 1 + 9, 10 + 3]
    assert g.scores == [50, 100, 23] and g.over
    assert g.result["placements"] == [2, 3, 1] and g.result["winner"] == 2
    assert g.result["lower_wins"] is True


def test_penalty_scoring_goes_on_below_100_and_rummy_doubles_the_penalties():
    """Seed 002's going rummy ("his points are doubled!") doubles every loser's penalty."""
    g = rig(new(2, options={"scoring": "penalty"}), ["9C 9D 9H 5S 6S", "KH 5D"], "JC", "7S")
    g.apply(STOCK, 0)
    g.apply(meld("9C 9D 9H"), 0)
    g.apply(meld("5S 6S 7S"), 0)
    assert g.last_hand["kind"] == "rummy" and g.last_hand["penalties"] == [0, 2 * 15]
    assert g.scores == [0, 30] and not g.over and g.hand_number == 2


def test_wild_jokers_are_an_option():
    """Seed 002: "For 2 or 4 players, two 52-card decks (104 cards) and 4 jokers (wild cards)
    are used." Option ``jokers`` (0-4, default 0) adds printed jokers to Basic's one deck;
    they stand for any card in a meld or a lay-off, and count 15 left in hand (README)."""
    g = new(2, options={"jokers": 2})
    assert g.view(0)["stock_count"] == 54 - 2 * 10 - 1
    rig(g, ["4H 6H 8C 9C KD", "KS QD JC"], "JD", "2D", ["5S 6S 7S"])
    g.hands[0] += cards.parse("JK JK")
    g.apply(STOCK, 0)
    legal = g.legal_actions(0)
    assert meld("4H 6H JK") in legal and meld("8C 9C JK") in legal
    assert meld("KD JK JK") in legal and meld("2D JK JK") in legal
    g.apply(meld("4H 6H JK"), 0)
    assert g.view(1)["melds"][1] == {"kind": "run", "cards": ["4H", "6H", "JK"]}
    g.apply(layoff("JK", 0), 0)
    assert g.view(1)["melds"][0]["cards"] == ["5S", "6S", "7S", "JK"]
    assert basic.hand_value(cards.parse("JK KD 2D")) == 15 + 10 + 2
    assert BASIC.validate_options({})["jokers"] == 0
