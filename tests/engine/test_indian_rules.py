"""Indian 13-card Rummy through the variant interface: every rule of issue 4, quoted, and
bad input."""

import json

import pytest

from engine import IllegalAction, cards, fair, variants
from engine.melds import classify
from engine.variants import indian

INDIAN = variants.get("indian")
STOCK = {"type": "draw", "source": "stock"}
PILE = {"type": "draw", "source": "discard"}
DROP = {"type": "drop"}


def new(players=2, seed="abc", options=None):
    return INDIAN.new(players=players, seed=seed, options=options or {})


def rig(g, hands, discard="", stock_top="", cut="5C"):
    """Chosen hands, open pile (bottom first), stock top (drawn first) and cut joker; every
    other card of the two decks and jokers goes under the stock, so all stay accounted."""
    pool = cards.deck(decks=2, jokers=g.options["jokers"])

    def take(text):
        out = []
        for t in text.split():
            c = next(c for c in pool if c.text == t)
            pool.remove(c)
            out.append(c)
        return out

    g.hands = [take(h) for h in hands] + [[] for _ in range(g.players - len(hands))]
    (g.cut,) = take(cut)
    g.wild_rank = g.cut.rank or 1
    g.discard = take(discard)
    top = take(stock_top)
    g.stock = pool + top[::-1]
    return g


def illegal(g, action, seat=None):
    before = g._snapshot()
    with pytest.raises(IllegalAction) as err:
        g.apply(action, seat)
    assert g._snapshot() == before
    return err.value.code


def group(text, wild="5"):
    return classify(
        cards.parse(text, decks=2), wild_rank=cards.RANKS.index(wild) + 1, ace_high=True
    )


def declare(card, groups):
    return {"type": "declare", "card": card, "groups": [g.split() for g in groups]}


# Thirteen cards that, with the 4S drawn and the 9C as finishing card, make a valid
# declaration with fives wild: a pure run, an impure run (5D as the 5S), two sets.
WINNING = "AH 2H 3H 2S 3S 5D 7C 7D 7S KH KS KC 9C"
WINNING_GROUPS = ["AH 2H 3H", "2S 3S 4S 5D", "7C 7D 7S", "KH KS KC"]


# ------------------------------------------------------------------------------- dealing


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_thirteen_cards_each_from_two_decks_plus_jokers(players):
    """Issue 4: "2-6 players, 13 cards each, two 52-card decks plus printed jokers (`JK`)";
    seed 002: "two 52-card decks (104 cards) and 4 jokers (wild cards) are used" (issue 17:
    four is the default)."""
    g = new(players)
    view = g.view(0)
    assert view["hand_counts"] == [13] * players and len(view["discard"]) == 1
    assert view["stock_count"] == 108 - 13 * players - 2  # the cut joker and the open card
    everything = [c for h in g.hands for c in h] + g.stock + g.discard + [g.cut]
    assert sorted(everything, key=lambda c: (c.code, c.copy)) == sorted(
        cards.deck(decks=2, jokers=4), key=lambda c: (c.code, c.copy)
    )
    two = new(players, options={"jokers": 2})
    assert two.view(0)["stock_count"] == 106 - 13 * players - 2


def test_the_cut_joker_comes_from_the_seed_after_the_deal_and_sets_the_wild_rank():
    """Issue 4: "after the deal a wild-joker rank is drawn from the stock (the cut joker)"."""
    g = new(3, seed="pinned")
    deck = fair.shuffled_deck("pinned", 1, decks=2, jokers=4)
    assert g.cut is deck[39] and g.discard == [deck[40]] and g.stock[-1] is deck[41]
    assert g.view(1)["cut_joker"] == deck[39].text
    assert g.wild_rank == (deck[39].rank or 1)


def test_a_printed_joker_cut_makes_aces_wild():
    """Engine choice (README): a printed joker as the cut joker makes aces the wild rank."""
    seed = next(
        f"s{i}"
        for i in range(2000)
        if fair.shuffled_deck(f"s{i}", 1, decks=2, jokers=4)[26].is_joker
    )
    g = new(2, seed=seed)
    assert g.cut.is_joker and g.view(0)["wild_rank"] == "A"


# ------------------------------------------------------------------------------ melds


def test_printed_jokers_and_the_wild_rank_substitute_for_any_card():
    """Issue 4: "Printed jokers and all cards of the wild rank substitute for any card."."""
    assert group("4H JK 6H").kind == "run" and not group("4H JK 6H").pure
    assert group("4H 5S 6H").kind == "run" and not group("4H 5S 6H").pure
    assert group("9H 9S JK").kind == "set" and group("9H 9S 5C").kind == "set"
    assert group("9H JK JK 5D").kind == "run"  # one natural, three wild: 9-T-J-Q or lower
    assert group("4H 5H 6H").pure  # a wild-rank card standing for itself keeps a run pure


def test_runs_are_three_or_more_of_one_suit_ace_low_or_high_no_wrap():
    """Issue 4: "Runs are 3+ cards of one suit in sequence (ace low or high, no wrap)"."""
    assert group("AH 2H 3H").pure and group("QH KH AH").pure
    assert group("TH JH QH KH AH").pure
    assert group("KH AH 2H") is None
    assert group("2H 3H") is None and group("2H 3H 4D") is None


def test_sets_are_three_or_four_of_a_rank_in_different_suits():
    """Issue 4: "sets are 3-4 cards of one rank in different suits"."""
    assert group("9H 9S 9D").kind == "set" and group("9H 9S 9D 9C").kind == "set"
    assert group("9H 9H 9S") is None  # both decks' nine of hearts
    assert group("9H 9S 9D 9C JK") is None


def test_a_joker_only_run_is_not_a_meld():
    """Issue 4 bad input: "a joker-only 'run'"."""
    assert group("JK JK JK") is None
    assert group("5H 5S 5D").kind == "set"  # wild-rank cards standing for themselves


# Issue 32: groupings common on the sites that the engine's own model must read alike for
# printed jokers and wild-rank cards (a wild-rank card may stand for itself).
@pytest.mark.parametrize(
    ("text", "wild", "kind"),
    [
        ("5H 5D JK", "5", "run"),  # the 5H, then 6H 7H filled; a set of fives as well
        ("5H JK JK", "5", "run"),
        ("JK JK 5S", "5", "run"),
        ("5H 5H 5D", "5", "run"),  # both decks' 5H: no set, but one stands for itself
    ],
)
def test_a_wild_rank_card_stands_for_itself_beside_jokers(text, wild, kind):
    meld = group(text, wild)
    assert meld is not None and meld.kind == kind and not meld.pure


@pytest.mark.parametrize(
    ("text", "option"), [("9C 9D 9H 9S JK", "five_card_sets"), ("JK JK JK", "joker_groups")]
)
def test_readings_that_differ_between_sites_are_room_options(text, option):
    hand = cards.parse(text, decks=2)
    kings = cards.RANKS.index("K") + 1
    assert classify(hand, wild_rank=kings, ace_high=True) is None
    read = classify(hand, wild_rank=kings, ace_high=True, **{option: True})
    assert read is not None and read.kind == "set"
    assert INDIAN.validate_options({option: True})[option] is True


def test_a_declaration_with_a_run_of_wild_cards_is_right_and_with_a_room_reading_too():
    """Fives wild: 5H JK JK is the second run; JK JK JK a group only where the room says."""
    shown = [cards.parse(g, decks=2) for g in ("2C 3C 4C", "5H JK JK", "9D 9S 9H", "KS KD KC KH")]
    assert indian.check_declaration(shown, 5) is None
    with_jokers = [cards.parse(g, decks=2) for g in ("2C 3C 4C", "6D 7D JK", "JK JK JK")]
    assert indian.check_declaration(with_jokers, 5) is not None
    assert indian.check_declaration(with_jokers, 5, {"joker_groups": True}) is None


# ------------------------------------------------------------------------- declarations


def test_a_valid_declaration_scores_zero_and_others_score_ungrouped_cards():
    """Issue 4: "A declaration is valid only with at least two runs, at least one of them
    pure (no joker), all 13 cards grouped. The declaring player scores 0; others score their
    ungrouped cards' value". Issue 4's rule (a pure run lets the groups count) is option
    ``loser_grouping: pure_run``; by default (issue 17) this loser, with no second sequence,
    counts every card up to 80."""
    loser = "4C 5C 6C 9D 9H 9S 2D 3D 8H JD QC TS TC"
    g = rig(new(2, options={"loser_grouping": "pure_run"}), [WINNING, loser], "TH", "4S")
    g.apply(STOCK, 0)
    assert any(a["type"] == "declare" and a["card"] == "9C" for a in g.legal_actions(0))
    g.apply(declare("9C", WINNING_GROUPS), 0)
    # Seat 1: 4C 5C 6C is its pure run (the wild 5C stands for itself) and 9D 9H 9S a set;
    # with the 5C in the run no joker is left, so 2D 3D 8H JD QC TS TC stay loose.
    assert g.last_hand["kind"] == "declared" and g.last_hand["winner"] == 0
    assert g.last_hand["points"] == [0, 2 + 3 + 8 + 10 + 10 + 10 + 10]
    assert g.over and g.result["winner"] == 0 and g.result["scores"] == [0, 53]
    assert g.result["placements"] == [1, 2]
    h = rig(new(2), [WINNING, loser], "TH", "4S")
    h.apply(STOCK, 0)
    h.apply(declare("9C", WINNING_GROUPS), 0)
    assert h.last_hand["points"] == [0, 80] and h.result["scores"] == [0, 80]


def test_the_engine_groups_the_losers_hands_itself():
    """Issue 4: "The engine validates a declaration itself: the server never trusts a
    client's grouping"; losers are scored by the engine's best grouping."""
    hand = cards.parse("4C 6C JK 9D 9H 9S 2D 3D 4D 8H JD QC TS", decks=2)
    assert indian.penalty(hand, 5) == 8 + 10 + 10 + 10
    groups = indian.declaration(cards.parse("AH 2H 3H 2S 3S 4S 5D 7C 7D 7S KH KS KC"), 5)
    assert groups is not None and indian.check_declaration(groups, 5) is None


def test_penalties_are_capped_at_80():
    """Issue 4: "others score their ungrouped cards' value, capped at 80"."""
    hand = cards.parse("AH 2H 3H KS QD JC TS 9D 8C KD QH JS TD", decks=2)
    assert indian.penalty(hand, 5) == 80


def test_no_pure_run_scores_every_card_up_to_80():
    """Issue 4: "a player with no pure run scores all cards up to 80"."""
    hand = cards.parse("2H JK 4H 7S 7D 7C 2C 2D 2S 3C 3D 3S 6H", decks=2)
    assert indian.penalty(hand, 5) == 2 + 4 + 7 * 3 + 2 * 3 + 3 * 3 + 6  # 48: nothing counts
    hand = cards.parse("2H JK 4H 7S 7D 7C KC KD KS QC QD QS 6H", decks=2)
    assert indian.penalty(hand, 5) == 80


def test_a_loser_without_two_sequences_counts_every_card():
    """Issue 17: "published points tables count every card (capped at 80) when a hand lacks
    two sequences including a pure one"; nexgenplaytech.com/home/faq: "Even if a player has
    valid groups but does not meet the basic requirement of two sequences (First Life and
    Second Life), all the 13 cards are counted as unmatched." Kings wild: a pure run and two
    sets, but no second sequence."""
    king = cards.RANKS.index("K") + 1
    hand = cards.parse("2D 3D 4D 3C 3H 3S 6C 6H 6D 8C 8H 9S TD", decks=2)
    assert indian.penalty(hand, king) == 2 + 3 + 4 + 3 * 3 + 6 * 3 + 8 + 8 + 9 + 10 == 71
    assert indian.penalty(hand, king, indian.PURE_RUN) == 8 + 8 + 9 + 10
    # The issue's own example does hold a second sequence, 6H JK 8H, so the published rule
    # credits its groups: 2D 3D 4D, 3C 3H 3S, 6H JK 8H leave 6C 6D 8C TD (30, not 62).
    hand = cards.parse("2D 3D 4D 3C 3H 3S 6C 6H 6D 8C 8H JK TD", decks=2)
    assert indian.penalty(hand, king) == 6 + 6 + 8 + 10
    assert indian.penalty(hand, king, indian.PURE_RUN) == 10  # issue 4's rule, an option
    assert INDIAN.validate_options({})["loser_grouping"] == "two_sequences"


def test_the_losers_penalty_follows_the_option_in_play():
    g = rig(
        new(2, options={"loser_grouping": "pure_run"}),
        ["AH 2H 3H 4S 5S 6S 7C 8C 9C TD JD QD KC", "2D 3D 4D 3C 3H 3S 6C 6H 6D 8C 8H 9S TD"],
        "9H",
        "KH",
        cut="KS",
    )
    g.apply(STOCK, 0)
    g.apply(declare("KC", ["AH 2H 3H", "4S 5S 6S", "7C 8C 9C", "TD JD QD KH"]), 0)
    assert g.last_hand["points"] == [0, 35]
    h = rig(
        new(2),
        ["AH 2H 3H 4S 5S 6S 7C 8C 9C TD JD QD KC", "2D 3D 4D 3C 3H 3S 6C 6H 6D 8C 8H 9S TD"],
        "9H",
        "KH",
        cut="KS",
    )
    h.apply(STOCK, 0)
    h.apply(declare("KC", ["AH 2H 3H", "4S 5S 6S", "7C 8C 9C", "TD JD QD KH"]), 0)
    assert h.last_hand["points"] == [0, 71]


def test_declaring_without_a_pure_run_is_a_wrong_declaration_costing_80():
    """Issue 4: "A wrong declaration costs the declarer 80." and bad input "declaring
    without a pure run"."""
    g = rig(new(3), ["AH 2H JK 2S 3S 5D 7C 7D 7S KH KS KC 9C", "2C 8D", "3C 8S"], "TH", "JK")
    g.apply(STOCK, 0)
    action = declare("9C", ["AH 2H JK", "2S 3S 5D", "7C 7D 7S", "KH KS KC JK"])
    assert action not in g.legal_actions(0)
    g.apply(action, 0)
    assert g.status == ["wrong", "playing", "playing"] and g.deal_points == [80, 0, 0]
    assert g.to_move == 1 and g.stats[0]["wrong_declarations"] == 1


def test_one_run_is_not_enough_to_declare():
    """Issue 4: "at least two runs"."""
    g = rig(new(2), ["AH 2H 3H 2S 2C 2D 7C 7D 7S KH KS KC 9C", "2C 8D"], "TH", "KD")
    g.apply(STOCK, 0)
    g.apply(declare("9C", ["AH 2H 3H", "2S 2C 2D", "7C 7D 7S", "KH KS KC KD"]), 0)
    assert g.last_hand["kind"] == "last_left" and g.last_hand["winner"] == 1
    assert g.result["scores"] == [80, 0]


@pytest.mark.parametrize(
    "groups",
    [
        ["AH 2H 3H", "2S 3S 4S 5D", "7C 7D 7S"],  # leaves cards out
        ["AH 2H 3H", "2S 3S 4S 5D", "7C 7D 7S", "KH KS KC 9C"],  # the finishing card again
        ["AH 2H 3H", "2S 3S 4S 5D", "7C 7D 7S", "KH KS KD"],  # a card not held
        ["AH 2H 3H", "2S 3S 4S 5D", "7C 7D 7S", "KH KS KC", "KH"],  # a card twice
        ["AH 2H 3H", "2S 3S 4S 5D", "7C 7D 7S", []],
        "AH 2H 3H",
    ],
)
def test_declaration_groups_must_hold_exactly_the_other_13_cards(groups):
    """The engine never trusts a client's grouping: malformed groups change nothing."""
    g = rig(new(2), [WINNING, "2C 8D"], "TH", "4S")
    g.apply(STOCK, 0)
    action = {"type": "declare", "card": "9C", "groups": groups}
    if isinstance(groups, list):
        action["groups"] = [x.split() if isinstance(x, str) else x for x in groups]
    assert illegal(g, action) == "bad_groups"


def test_declaring_with_the_just_taken_discard_is_refused():
    """Issue 4 bad input: "discarding the just-drawn discard" also covers the finishing card."""
    g = rig(new(2), [WINNING, "2C 8D"], "4S")
    g.apply(PILE, 0)
    groups = ["AH 2H 3H", "2S 3S 5D 9C", "7C 7D 7S", "KH KS KC"]
    assert illegal(g, declare("4S", groups)) == "cannot_discard_drawn_discard"
    assert illegal(g, {"type": "discard", "card": "4S"}) == "cannot_discard_drawn_discard"


def test_the_other_copy_of_a_taken_card_may_be_discarded():
    """Two decks: a hand may hold both copies; only the one just taken is barred."""
    g = rig(new(2), ["4D " + WINNING[3:], "2C 8D"], "4D")
    g.apply(PILE, 0)
    taken = g.taken
    g.apply({"type": "discard", "card": "4D"}, 0)
    assert g.discard[-1].text == "4D" and g.discard[-1] is not taken and taken in g.hands[0]
    assert [c.text for c in g.hands[0]].count("4D") == 1


# ---------------------------------------------------------------------------- dropping


def test_first_drop_costs_20_and_middle_drop_40():
    """Issue 4: "Dropping: first drop 20, middle drop 40."."""
    g = rig(new(3), ["2C 8D", "3C 8S", "4C 8H"], "TH", "4D 5D 6D")
    g.apply(DROP, 0)
    assert g.status[0] == "dropped" and g.deal_points[0] == 20 and g.to_move == 1
    g.apply(STOCK, 1)
    assert illegal(g, DROP) == "wrong_phase"
    g.apply({"type": "discard", "card": "4D"}, 1)
    g.apply(STOCK, 2)
    g.apply({"type": "discard", "card": "5D"}, 2)
    g.apply(DROP, 1)  # seat 1 has drawn before: a middle drop
    assert g.last_hand["kind"] == "last_left" and g.last_hand["winner"] == 2
    assert g.result["scores"] == [20, 40, 0] and g.result["placements"] == [2, 3, 1]


def drop_twice(options):
    """Seat 0 drops before drawing, seat 1 after: the deal points of both."""
    g = rig(new(3, options=options), ["2C 8D", "3C 8S", "4C 8H"], "TH", "4D 5D 6D")
    g.apply(DROP, 0)
    g.apply(STOCK, 1)
    g.apply({"type": "discard", "card": "4D"}, 1)
    g.apply(STOCK, 2)
    g.apply({"type": "discard", "card": "5D"}, 2)
    g.apply(DROP, 1)
    lines = {line["seat"]: line["label"] for line in g.last_hand["breakdown"] if line["seat"] < 2}
    return g.last_hand["points"][:2], lines


@pytest.mark.parametrize(
    ("fmt", "costs"),
    [("points", [20, 40]), ("pool101", [20, 40]), ("pool201", [25, 50]), ("deals", [20, 40])],
)
def test_drops_cost_what_each_format_publishes(fmt, costs):
    """GoRummy: "Pool Rummy 201: First drop player scores 25 points, Middle drop player
    scores 50"; JungleeRummy's table gives Pool 101 20/40 and Pool 201 25/50."""
    assert drop_twice({"format": fmt})[0] == costs


def test_a_room_may_set_its_own_drop_counts():
    points, lines = drop_twice({"format": "pool201", "first_drop": 30, "middle_drop": 30})
    assert points == [30, 30]
    assert lines == {0: "dropped before drawing", 1: "dropped after drawing"}
    with pytest.raises(ValueError, match="first_drop"):
        variants.get("indian").validate_options({"first_drop": 60, "middle_drop": 50})


# ----------------------------------------------------------------------------- formats


def test_points_is_one_deal():
    """Issue 4: "Formats (options): Points (one deal)"."""
    rec = INDIAN.play(4, "abc", ["greedy"] * 4, {"format": "points"})
    assert rec.result["hands"] == 1 and rec.result["format"] == "points"


@pytest.mark.parametrize(("fmt", "limit"), [("pool101", 101), ("pool201", 201)])
def test_pool_players_are_out_at_the_limit_and_the_last_one_left_wins(fmt, limit):
    """Issue 4: "Pool 101 and Pool 201 (players are out when they reach the limit; the last
    one left wins)"."""
    g = new(3, options={"format": fmt})
    g.scores = [limit - 20, limit - 41, 0]
    rig(g, ["2C 8D", "3C 8S", "4C 8H"], "TH", "4D 5D 6D")
    g.apply(DROP, 0)  # reaches the limit exactly: out
    g.apply(DROP, 1)  # limit - 1: still in
    assert g.eliminated == [1, None, None] and not g.over
    assert g.hand_number == 2 and g.status == ["out", "playing", "playing"]
    assert g.view(0)["hand_counts"] == [0, 13, 13]
    assert g.to_move == 2 and g.legal_actions(0) == []
    g.scores[1] = limit - 20
    g.apply(STOCK, 2)
    g.apply({"type": "discard", "card": g.hands[2][0].text}, 2)
    g.apply(DROP, 1)
    assert g.over and g.eliminated == [1, 2, None]
    assert g.result["winner"] == 2 and g.result["placements"] == [3, 2, 1]


def test_deals_format_plays_a_fixed_number_of_deals_and_lowest_total_wins():
    """Issue 4: "Deals (a fixed number of deals, lowest total wins)"."""
    rec = INDIAN.play(3, "abc", ["greedy"] * 3, {"format": "deals", "deals": 3})
    assert rec.result["hands"] == 3
    best = min(rec.result["scores"])
    assert [p == 1 for p in rec.result["placements"]] == [s == best for s in rec.result["scores"]]


# ------------------------------------------------------------------------ stock running out


def test_stock_reshuffles_from_the_seed_then_the_deal_is_a_stalemate():
    """Engine choice (README): the open pile but its top card becomes a new stock, shuffled
    from the seed, up to 3 times; the next time the stock runs out nobody wins the deal."""
    g = rig(new(2), ["2C 8D", "3C 8S"], "TH 9H", "4D")
    extra = list(g.stock[:-1])
    g.stock = g.stock[-1:]
    g.discard = extra + g.discard
    pile = list(g.discard)
    g.apply(STOCK, 0)
    g.apply({"type": "discard", "card": "4D"}, 0)
    assert g.reshuffles == 1 and g.stock == fair.shuffle(pile, "abc", "hand:1:reshuffle:1")
    while not g.over:
        seat = g.to_move
        g.apply(STOCK, seat)
        g.apply({"type": "discard", "card": g.hands[seat][-1].text}, seat)
    assert g.reshuffles == indian.MAX_RESHUFFLES and g.last_hand["kind"] == "stalemate"
    assert g.result["scores"] == [0, 0] and g.result["winner"] is None


def keep_taking_the_open_card(g, moves=1000):
    """Issue 13's loop: whoever is to move takes the open pile's top and discards another
    card, so the closed stock is never drawn. Returns the takes asked for; stops when the deal
    ends or after ``moves`` moves."""
    deal, takes = g.hand_number, 0
    for _ in range(moves):
        if g.hand_number != deal or g.over:
            break
        seat = g.to_move
        if g.phase == "draw":
            g.apply(PILE, seat)
            takes += 1
        else:
            g.apply(next(a for a in g.legal_actions(seat) if a["type"] == "discard"), seat)
    return takes


def test_a_deal_of_endless_open_pile_takes_is_a_stalemate_at_the_bound():
    """Issue 13: the reshuffle limit ends a deal only when the stock runs out, which players
    who keep taking the open card never make it do. No published Indian Rummy rule bounds
    that loop; Knock takes OpenSpiel's Gin Rummy bound ("cap the number of times the upcard
    can be drawn at 50 ... well above anything observed in actual play, and corresponds
    nicely to the 50 cards in play each hand"), one take per card of the two decks: 104 per
    deal (option ``max_pile_draws``). The 105th ends the deal as a stalemate, like the
    stock's: nobody wins it, seats still playing score 0, a dropped seat keeps its penalty;
    the next deal is dealt by the next seat."""
    options = {"format": "deals", "deals": 2}
    g = new(3, options=options)
    dealer = g.dealer
    g.apply(DROP, g.to_move)  # seat 0: a first drop, 20
    assert keep_taking_the_open_card(g) == 105
    assert g.hand_number == 2 and g.dealer == (dealer + 1) % 3
    assert g.last_hand["kind"] == "pile_limit" and g.last_hand["winner"] is None
    assert g.last_hand["points"] == [20, 0, 0] and g.scores == [20, 0, 0]
    assert g.view(0)["pile_draws"] == 0 and g.view(None)["options"]["max_pile_draws"] == 104
    assert INDIAN.replay(g.moves, 3, "abc", options)._snapshot() == g._snapshot()


def test_after_the_last_allowed_take_the_deal_goes_on_from_the_stock():
    """As in OpenSpiel, only taking the open card once too often ends the deal; the seat
    that made the last allowed take may still declare with it."""
    g = new(2, options={"max_pile_draws": 2})
    assert keep_taking_the_open_card(g, moves=4) == 2 and g.view(None)["pile_draws"] == 2
    g.apply(STOCK, g.to_move)
    g.apply(next(a for a in g.legal_actions(g.to_move) if a["type"] == "discard"), g.to_move)
    assert not g.over
    g.apply(PILE, g.to_move)
    assert g.over and g.last_hand["kind"] == "pile_limit" and g.result["scores"] == [0, 0]

    hand = "AH 2H 3H 4S 5S 6S 7D 8D 9D TD JC KC 2D"
    g = rig(new(2, options={"max_pile_draws": 1}), [hand, "2C 3D"], "QC")
    g.apply(PILE, 0)
    g.apply(declare("2D", ["AH 2H 3H", "4S 5S 6S", "7D 8D 9D TD", "JC QC KC"]), 0)
    assert g.last_hand["kind"] == "declared" and g.last_hand["winner"] == 0


# ------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"type": "meld", "cards": ["2C"]}, "unknown_action"),
        ({"type": "drop", "card": "2C"}, "bad_action"),
        ({"type": "draw", "source": 1}, "bad_action"),
        ({"type": "discard", "card": "2C"}, "wrong_phase"),
        ({"type": "declare", "card": "2C", "groups": []}, "wrong_phase"),
        ("draw", "bad_action"),
    ],
)
def test_malformed_actions(action, code):
    assert illegal(new(), action) == code


def test_out_of_turn_and_bad_cards():
    g = new(3)
    assert illegal(g, STOCK, 2) == "not_your_turn"
    g.apply(STOCK, 0)
    assert illegal(g, {"type": "discard", "card": "ZZ"}) == "bad_card"
    assert illegal(g, {"type": "discard", "card": ["2C"]}) == "bad_card"
    assert (
        illegal(g, {"type": "declare", "card": g.hands[0][0].text, "groups": "x"}) == "bad_groups"
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"format": "pool"}, "must be one of points, pool101, pool201, deals"),
        ({"format": 101}, "must be one of"),
        ({"deals": 3}, "applies only to format 'deals'"),
        ({"format": "deals", "deals": 0}, "at least 1"),
        ({"jokers": 5}, "at most 4"),
        ({"target": 100}, "unknown option 'target'"),
        ({"max_pile_draws": 0}, "'max_pile_draws' must be at least 1"),
        ({"max_pile_draws": 1001}, "'max_pile_draws' must be at most 1000"),
    ],
)
def test_bad_options(options, message):
    with pytest.raises(ValueError, match=message):
        new(options=options)


def test_option_defaults_are_a_short_points_match():
    assert INDIAN.validate_options({}) == {
        "format": "points",
        "deals": 2,
        "jokers": 4,
        "loser_grouping": "two_sequences",
        "five_card_sets": False,
        "joker_groups": False,
        "first_drop": 0,
        "middle_drop": 0,
        "max_pile_draws": 104,
    }


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_bots_play_whole_matches_at_every_table_size_and_replay(players, bot):
    """Issue 4: "random and greedy bots for both variants, at every table size 2-6"."""
    options = {"format": "deals", "deals": 2}
    rec = INDIAN.play(players, f"s{players}", [bot] * players, options)
    assert rec.result["hands"] == 2 and 1 in rec.result["placements"]
    json.dumps(rec.moves)
    json.dumps(rec.result)
    assert INDIAN.replay(rec.moves, players, f"s{players}", options).result == rec.result


def test_greedy_declarations_are_valid():
    """Greedy bots declare with the engine's grouping, which the engine accepts."""
    for seed in ("a", "b", "c"):
        rec = INDIAN.play(2, seed, ["greedy", "greedy"])
        kinds = [m["action"]["type"] for m in rec.moves]
        assert kinds[-1] == "declare" and rec.result["stats"][rec.result["winner"]]["declarations"]
