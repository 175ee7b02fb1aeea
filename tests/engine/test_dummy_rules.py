"""Dummy (contract) rummy through the variant interface: every rule of seed 003 and issue 17,
quoted, the engine's choices where the seed is silent (engine/README.md), cut-ins and bad
input."""

import json

import pytest

from engine import IllegalAction, cards, fair
from engine.contracts import CONTRACTS, POINTS, describe, meld_ok
from engine.variants.dummy import VARIANT as DUMMY
from engine.variants.dummy import meld_order

STOCK = {"type": "draw", "source": "stock"}
PILE = {"type": "draw", "source": "discard"}
CLAIM = {"type": "claim"}


def new(players=3, seed="abc", options=None):
    return DUMMY.new(players=players, seed=seed, options=options or {})


def rig(g, hands, discard="", stock_top="", table=(), contracts=None, down=None):
    """Chosen hands, discard pile (bottom first), stock top (drawn first), table melds as
    (owner, kind, text); every other card of the 108 goes under the stock."""
    pool = cards.deck(decks=2, jokers=4)

    def take(text):
        out = []
        for t in text.split():
            c = next(c for c in pool if c.text == t)
            pool.remove(c)
            out.append(c)
        return out

    g.hands = [take(h) for h in hands] + [[] for _ in range(g.players - len(hands))]
    g.discard = take(discard)
    g.table = []
    for owner, kind, text in table:
        group = take(text)
        assert meld_ok(kind, group)
        g.table.append({"owner": owner, "kind": kind, "cards": meld_order(kind, group)})
    top = take(stock_top)
    g.stock = pool + top[::-1]
    if contracts is not None:
        g.contract = list(contracts)
    if down is not None:
        g.down = list(down)
    return g


def illegal(g, action, seat=None):
    """Apply ``action`` expecting IllegalAction; check nothing changed; return the code."""
    before = g._snapshot()
    with pytest.raises(IllegalAction) as err:
        g.apply(action, seat)
    assert g._snapshot() == before
    assert err.value.message
    return err.value.code


def discard(text):
    return {"type": "discard", "card": text}


def meld(*groups):
    return {"type": "meld", "groups": [g.split() for g in groups]}


def layoff(text, index):
    return {"type": "layoff", "card": text, "meld": index}


def group(text):
    return cards.parse(text, decks=2)


# ------------------------------------------------------------------------ cards and deal


@pytest.mark.parametrize("players", [2, 3, 4])
def test_two_to_four_players_108_cards_thirteen_each(players):
    """Seed 003: "Dummy rummy is a variation of rummy for two to four players. It is played
    with two standard decks of cards, including four jokers, for a total of 108 cards." and
    "Each player is dealt thirteen cards."."""
    g = new(players)
    view = g.view(0)
    assert view["hand_counts"] == [13] * players and len(view["discard"]) == 1
    assert view["stock_count"] == 108 - 13 * players - 1
    every = [c for h in g.hands for c in h] + g.stock + g.discard
    assert sorted(every, key=lambda c: c.code) == sorted(
        cards.deck(decks=2, jokers=4), key=lambda c: c.code
    )


@pytest.mark.parametrize("players", [1, 5])
def test_other_table_sizes_are_refused(players):
    with pytest.raises(ValueError, match="2 to 4 players"):
        new(players)


def test_deal_is_one_at_a_time_from_the_dealers_left_and_passes_clockwise():
    """Issue 17: "13 cards each, dealt one at a time from the dealer's left; the deal passes
    clockwise"; seed 003: "The player to the left of the dealer begins, and the turn to play
    continues clockwise."."""
    g = new(3, seed="pinned")
    deck = fair.shuffled_deck("pinned", 1, decks=2, jokers=4)
    assert (g.dealer, g.to_move) == (2, 0)
    assert sorted(g.hands[1], key=lambda c: c.code) == sorted(deck[1:39:3], key=lambda c: c.code)
    assert g.discard == [deck[39]] and g.stock[-1] == deck[40]
    g.apply(STOCK, 0)
    g.apply(discard(g.legal_actions(0)[-1]["card"]), 0)
    assert g.to_move == 1
    g._end_hand(None, "stock_exhausted")
    assert g.hand_number == 2 and (g.dealer, g.to_move) == (0, 1)


# ------------------------------------------------------------------------------- melds


def test_twos_and_jokers_are_wild_in_any_number():
    """Seed 003: "Twos and jokers are wild and can be used to represent any desired card."
    and "Wild cards may be substituted for any number of cards in a set or run."."""
    assert meld_ok("set", group("7H 2S JK"))
    assert meld_ok("set", group("7H 2S 2D JK JK"))
    assert meld_ok("run", group("5H JK 2C 8D"))
    assert meld_ok("run", group("KH 2S 2D 2C JK JK"))  # K then five wilds below it
    # Engine choice (README): a meld holds at least one natural card.
    assert not meld_ok("set", group("2S 2D JK"))
    assert not meld_ok("run", group("2S 2D JK JK"))


def test_sets_are_of_equal_rank_and_may_repeat_a_suit():
    """Seed 003: "A set consists of cards of equal rank - for example three threes or five
    queens. In this variation, sets may contain two cards of the same suit; i.e., two 9 of
    hearts."."""
    assert meld_ok("set", group("9H 9H 9S"))
    assert meld_ok("set", group("QS QH QD QC QS"))
    assert meld_ok("set", group("3S 3H 3D 3C 3S 3H 3D 3C"))
    assert not meld_ok("set", group("9H 9S TS"))
    assert not meld_ok("set", group("9H 9S"))


def test_runs_may_mix_suits_by_default_and_one_suit_is_an_option():
    """Seed 003: "A run consists of cards in sequence, the cards do not have to be in the
    same suit, such as 2-3-4-5 of hearts." The sentence allows mixed suits; its example is one
    suit, which mixed-suit runs include. Option ``run_suits: same`` asks for one suit."""
    assert meld_ok("run", group("3H 4S 5D 6C"))
    assert meld_ok("run", group("2H 3H 4H 5H"))
    assert not meld_ok("run", group("3H 4S 5D 6C"), same_suit=True)
    assert meld_ok("run", group("3H 4H 2S 6H"), same_suit=True)
    assert not meld_ok("run", group("3H 3S 4D 5C")), "a rank twice is no run"
    assert new(options={"run_suits": "same"}).same_suit
    with pytest.raises(ValueError, match="run_suits"):
        new(options={"run_suits": "mixed"})


def test_aces_are_high_or_low_but_never_both():
    """Seed 003: "Aces can be high (J-Q-K-A) or low (A-2-3-4) but not both (K-A-2-3)."."""
    assert meld_ok("run", group("JH QS KD AC"))
    assert meld_ok("run", group("AH 2S 3D 4C"))
    assert not meld_ok("run", group("KH AS 3D 4C"))  # the two wild would have to be K-A-2-3
    assert not meld_ok("run", group("QH KS AD 3C"))
    # At most 13 places: a run from ace to ace would use the ace twice.
    assert not meld_ok("run", group("AH 3S 4D 5C 6H 7S 8D 9C TH JS QD KC AD"))
    assert meld_ok("run", group("AH 3S 4D 5C 6H 7S 8D 9C TH JS QD KC 2D"))


def test_the_twelve_contracts_in_order():
    """Seed 003: "There are twelve meld sets each player must complete as follows: 1. 2- 3 of
    a kind 2. 3 a kind, and 1- run of four 3. 2-4 of a kind 4. 2- runs of 4 5. 1- 4 of a
    kind, and 1- run of 4 6. 2- 3 of a kind, and 1- run of 4 7. 1- 3 of a kind, and 1- run
    of 7 8. 3- 3 of a kind 9. 2- 5 of a kind 10. 2- runs of 5 11. 8 of a kind 12. run of
    10"."""
    assert [describe(i) for i in range(12)] == [
        "two sets of 3",
        "a set of 3 and a run of 4",
        "two sets of 4",
        "two runs of 4",
        "a set of 4 and a run of 4",
        "two sets of 3 and a run of 4",
        "a set of 3 and a run of 7",
        "three sets of 3",
        "two sets of 5",
        "two runs of 5",
        "a set of 8",
        "a run of 10",
    ]
    assert len(CONTRACTS) == 12
    assert new(4).view(None)["contracts"] == [1, 1, 1, 1]


# ------------------------------------------------------------------------------ a turn


def test_a_turn_is_draw_then_the_contract_then_a_discard():
    """Seed 003: "A turn consists of drawing, melding and discarding." and "Once the player
    has drawn, he may place his meld set down if he is able."."""
    g = rig(new(3), ["7H 7S 7D 9C 9D 2S KH 5C 4D 6S 8H TC QD", "", ""], "3C", "JD 3D")
    assert g.legal_actions(0) == [STOCK, PILE]
    assert illegal(g, meld("7H 7S 7D", "9C 9D 2S"), 0) == "wrong_phase"
    assert illegal(g, discard("KH"), 0) == "wrong_phase"
    g.apply(STOCK, 0)
    assert illegal(g, STOCK, 0) == "wrong_phase"
    assert [a["type"] for a in g.legal_actions(0)].count("meld") == 1
    g.apply(meld("7H 7S 7D", "9C 9D 2S"), 0)
    assert g.down[0] and [m["kind"] for m in g.view(1)["melds"]] == ["set", "set"]
    g.apply(discard("KH"), 0)
    assert g.to_move == 1 and g.discard[-1].text == "KH"


def test_a_contract_laid_down_must_be_the_seats_own_in_the_contract_order():
    """Seed 003: "There are twelve meld sets each player must complete" in turn: a seat on
    contract 2 (a set of 3 and a run of 4) may not lay down two sets; groups come in the
    contract's order, sets first; a bigger meld than asked is fine."""
    g = rig(
        new(3),
        ["7H 7S 7D 9C 9D 9S 3H 4S 5D KH QD 8C TC", "", ""],
        "3C",
        "6H",
        contracts=[1, 0, 0],
    )
    g.apply(STOCK, 0)
    assert illegal(g, meld("7H 7S 7D", "9C 9D 9S"), 0) == "not_the_contract"
    assert illegal(g, meld("3H 4S 5D 6H", "7H 7S 7D"), 0) == "not_the_contract"
    assert illegal(g, meld("7H 7S 7D"), 0) == "not_the_contract"
    assert illegal(g, meld("7H 7S 7D", "3H 4S 5D"), 0) == "not_the_contract"
    g.apply(meld("7H 7S 7D", "3H 4S 5D 6H"), 0)
    assert g.view(0)["melds"][1] == {"owner": 0, "kind": "run", "cards": ["3H", "4S", "5D", "6H"]}


def test_after_the_contract_only_stock_draws_and_additions_to_any_meld():
    """Seed 003: "If the player has already played their meld set, he must draw from the
    undealt stock cards." and "On subsequent turns, players may only add to existing melds,
    as melds outside of the prescribed meld sets are not allowed. He can, however, add to
    another players' melds." Additions need the seat's own contract down (README)."""
    g = rig(
        new(3),
        ["8S 5C KD QD", "8H 9D", "JC JH 2C"],
        "4H",
        "KS",
        table=[(1, "set", "8C 8D 8H"), (1, "run", "3S 4D 5H 6C")],
        contracts=[0, 0, 0],
        down=[True, True, False],
    )
    assert g.legal_actions(0) == [STOCK]
    assert illegal(g, PILE, 0) == "must_draw_stock"
    g.apply(STOCK, 0)
    assert illegal(g, meld("KD KS QD"), 0) == "contract_down"
    assert layoff("8S", 0) in g.legal_actions(0) and layoff("5C", 1) not in g.legal_actions(0)
    assert illegal(g, layoff("KD", 0), 0) == "cannot_lay_off"
    g.apply(layoff("8S", 0), 0)
    assert [c.text for c in g.table[0]["cards"]] == ["8S", "8H", "8D", "8C"]
    assert g.table[0]["owner"] == 1
    g.apply(discard("KD"), 0)
    g.apply(STOCK, 1)
    g.apply(discard("9D"), 1)
    g.apply(STOCK, 2)
    assert illegal(g, layoff("2C", 1), 2) == "contract_not_down"


def test_every_turn_ends_with_a_discard_also_going_out():
    """Seed 003: "The objective is to meld or discard all of one's cards, and the play
    continues until one player manages to go out by getting rid of all the cards from their
    hand. He must always end his turn by discarding."."""
    g = rig(
        new(3),
        ["9S", "KD 5C", "JC AH 2C"],
        "4H",
        "9H",
        table=[(1, "set", "9C 9D 9H")],
        down=[True, True, False],
    )
    g.apply(STOCK, 0)
    g.apply(layoff("9H", 0), 0)
    assert illegal(g, layoff("9S", 0), 0) == "must_keep_a_discard"
    assert g.legal_actions(0) == [discard("9S")]
    g.apply(discard("9S"), 0)  # every card held fits a meld, so it may go (README)
    assert g.last_hand["kind"] == "out" and g.last_hand["winner"] == 0


def test_a_contract_that_would_use_every_card_is_refused():
    """Seed 003: "He must always end his turn by discarding."."""
    g = rig(new(2), ["7H 7S 7D 9C 9D 9S", ""], "3C", "9H", contracts=[0, 0])
    g.apply(STOCK, 0)
    assert illegal(g, meld("7H 7S 7D", "9C 9D 9S 9H"), 0) == "must_keep_a_discard"
    assert not [a for a in g.legal_actions(0) if a["type"] == "meld"] or all(
        sum(map(len, a["groups"])) < 7 for a in g.legal_actions(0) if a["type"] == "meld"
    )


def test_a_discard_that_would_make_a_meld_is_refused():
    """Seed 003: "When discarding, a player may not discard a card if it creates a meld,
    (run or a set). If an opponent notices the error prior to the next player picking up,
    that player is permitted to remove the set from the pile and place it with their other
    melds." The engine refuses such a discard (a card that could be added to a meld on the
    table) instead of letting an opponent take it (issue 17)."""
    g = rig(
        new(3),
        ["8S 7C KD QD JK", "", ""],
        "4H",
        "KS",
        table=[(1, "set", "8C 8D 8H"), (1, "run", "3S 4D 5H 6C")],
    )
    g.apply(STOCK, 0)
    legal = [a["card"] for a in g.legal_actions(0) if a["type"] == "discard"]
    assert legal == ["KD", "KS", "QD"]
    for text in ("8S", "7C", "JK"):
        assert illegal(g, discard(text), 0) == "discard_makes_meld"
    g.apply(discard("QD"), 0)


# ------------------------------------------------------------------------------ scoring


def test_going_out_scores_nothing_and_the_others_their_cards():
    """Seed 003: "As soon as a player goes out, the hand is scored. The player who went out
    counts nothing for this hand. The opponents count the total value of the cards remaining
    in their hand ... The value of their hand is added to their running total." The seed's
    table is missing; Bicycle's Contract Rummy values: "Ace, joker, and other wild cards, if
    any, count as 15 points; each face card counts 10; each other card counts its pip
    value."."""
    assert [POINTS[c.rank] for c in group("AS 2S JK 3S 9S TS JS QS KS")] == [
        15,
        15,
        15,
        3,
        9,
        10,
        10,
        10,
        10,
    ]
    g = rig(
        new(3),
        ["9S", "KD 5C", "AH 2C JK 3D"],
        "4H",
        "9H",
        table=[(1, "set", "9C 9D 9H")],
        down=[True, True, False],
    )
    g.scores = [4, 10, 20]
    g.apply(STOCK, 0)
    g.apply(layoff("9H", 0), 0)
    g.apply(discard("9S"), 0)
    assert g.last_hand["kind"] == "out" and g.last_hand["winner"] == 0
    assert g.last_hand["points"] == [0, 10 + 5, 15 + 15 + 15 + 3]
    assert g.scores == [4, 25, 68] and g.stats[0]["hands_won"] == 1


def test_a_failed_contract_is_tried_again_next_hand():
    """Seed 003: "If a player is unable to complete the appointed hand, he must try again on
    the next hand." Each seat moves through the contracts on its own (issue 17)."""
    g = rig(new(3), ["9S", "KD 5C", "AH 2C"], "4H", "TS", contracts=[3, 3, 5])
    g.down = [True, False, True]
    g.apply(STOCK, 0)
    g.hands[0] = cards.parse("9S")
    g.apply(discard("9S"), 0)
    assert g.last_hand["completed"] == [4, None, 6]
    assert g.contract == [4, 3, 6] and g.view(None)["contracts"] == [5, 4, 7]
    assert g.down == [False, False, False] and g.hand_number == 2


def test_the_match_ends_after_a_twelfth_contract_and_the_lowest_total_wins():
    """Seed 003: "The player who completes all twelve hands with the fewest points wins."
    Engine choice (README): the match ends after the hand in which a seat completes its
    twelfth contract; seats that completed all twelve rank first, then by contracts
    completed, then by the lower total; equal keys share the place."""
    g = rig(
        new(3),
        ["3H 4S 5D 6C 7H 8S 9D TC JH 2S KS", "KD 5C", "AH 2C"],
        "4H",
        "QD",
        contracts=[11, 11, 10],
    )
    g.scores = [300, 100, 50]
    g.apply(STOCK, 0)
    g.apply(meld("3H 4S 5D 6C 7H 8S 9D TC JH 2S"), 0)
    g.apply(discard("KS"), 0)
    g.apply(STOCK, 1)
    g.hands[1] = cards.parse("KD")
    g.apply(discard("KD"), 1)  # seat 1 goes out but is still on contract 12
    assert g.over and g.result["contracts"] == [12, 11, 10]
    assert g.result["placements"] == [1, 2, 3] and g.result["winner"] == 0
    assert g.result["lower_wins"] and g.to_move is None and g.legal_actions(0) == []
    assert illegal(g, STOCK, 0) == "match_over"


def test_equal_contracts_and_totals_share_the_place():
    g = new(2)
    g.contract, g.scores = [12, 12], [40, 40]
    g._finish()
    assert g.result["placements"] == [1, 1] and g.result["winner"] is None


def test_the_match_ends_after_max_hands():
    """Engine choice (README): a match that never sees a twelfth contract ends after option
    ``max_hands`` (48) hands, ranked the same way."""
    g = new(2, options={"max_hands": 12})
    g.hand_number = 12
    g.contract = [5, 7]
    g._end_hand(None, "stock_exhausted")
    assert g.over and g.result["placements"] == [2, 1] and g.result["hands"] == 12


# ---------------------------------------------------------------------------- the stock


def test_the_stock_is_reshuffled_once_then_the_hand_is_a_stalemate():
    """Issue 17: "what happens when the stock runs out (Basic's reshuffle-once-then-stalemate
    is a natural fit)"; seed 002: "If the deck is depleted for a second time then the hand is
    considered a stalemate and finishes with no one getting any points."."""
    g = rig(new(2, options={"cut_ins": False}), ["KC 9D", "8H 5D"])
    rest = list(g.stock)
    g.discard, g.stock = rest[:-1], rest[-1:]
    pile = list(g.discard)
    top = g.stock[-1]
    g.down[1] = True
    g.apply(STOCK, 0)
    g.apply(discard(top.text if top.text not in ("2S", "2H", "2D", "2C", "JK") else "KC"), 0)
    assert g.reshuffled and len(g.discard) == 1
    assert g.stock == fair.shuffle(pile, "abc", "hand:1:reshuffle")
    while g.hand_number == 1:
        seat = g.to_move
        g.apply(STOCK, seat)
        g.apply(discard(g.legal_actions(seat)[-1]["card"]), seat)
    assert g.last_hand["kind"] == "stock_exhausted" and g.last_hand["points"] == [0, 0]
    assert g.last_hand["completed"] == [None, 1] and g.scores == [0, 0]


def test_endless_pile_takes_end_the_hand_at_the_bound():
    """Issue 13's bound, as in Basic and Indian: one take per card in play (108); one more
    ends the hand as a stalemate."""
    g = new(2, options={"max_pile_draws": 3})
    for _ in range(3):
        g.apply(PILE, g.to_move)
        seat = g.to_move
        g.apply(next(a for a in g.legal_actions(seat) if a["type"] == "discard"), seat)
    g.apply(PILE, g.to_move)
    assert g.last_hand["kind"] == "pile_limit" and g.hand_number == 2


# ------------------------------------------------------------------------------ cut-ins


def cut_in_table(**options):
    """Four seats; seat 0 has just discarded 7H, seat 1 is to move."""
    g = new(4, options=options)
    rig(
        g,
        ["KC 9D 4S", "8H 5D 3C", "7S 7D QH", "7C 7S JD"],
        "TS 7H",
        "AS KH QC JC",
    )
    g.to_move, g.discarder = 1, 0
    return g


def test_cut_ins_are_on_by_default_and_open_a_window_out_of_turn():
    """Seed 003: "Cut-ins ... This is an optional rule. When a player sees a card he or she
    likes then they can ask to cut in and take the card"; issue 17: "an option on by
    default". Seats other than the mover may claim while the mover has not drawn."""
    g = cut_in_table()
    assert DUMMY.validate_options({})["cut_ins"] is True
    assert g.out_of_turn_seats() == [2, 3]
    assert g.legal_actions(2) == [CLAIM] and g.legal_actions(3) == [CLAIM]
    assert g.legal_actions(0) == [], "the discarder may not buy back its own card"
    assert g.view(0)["claim_window"] == {
        "card": "7H",
        "claims": [],
        "may_claim": [2, 3],
        "order": [2, 3, 0],
    }
    g.apply(CLAIM, 3)
    assert g.view(2)["claim_window"]["claims"] == [3] and g.to_move == 1
    assert g.moves == [{"seat": 3, "action": CLAIM}]


def test_the_nearest_claimant_to_the_movers_left_gets_it_with_two_penalty_cards():
    """Issue 17: "otherwise the nearest asking seat to their left gets the discard plus
    penalty cards from the stock". The seed's counts ("none=11 cards; one=14 cards; and 2 cut
    ins=17 cards") grow by three a cut-in: the discard and two cards from the stock, as in
    the published "May I" rule (toroidalsnark.net/ctrummy.html): "If there is a tie, the next
    person in rotation gets the card. This player adds the card to hir hand ... and picks up
    two additional cards from the stockpile"."""
    g = cut_in_table()
    g.apply(CLAIM, 3)
    g.apply(CLAIM, 2)
    g.apply(STOCK, 1)  # the mover "allows" it by drawing from the stock
    assert sorted(c.text for c in g.hands[2]) == ["7D", "7H", "7S", "AS", "KH", "QH"]
    assert "QC" in {c.text for c in g.hands[1]}, "the mover draws after the penalty cards"
    assert len(g.hands[3]) == 3 and g.cut_ins == [0, 0, 1, 0]
    assert g.discard[-1].text == "TS" and g.claims == []
    assert g.view(0)["claim_window"] is None


def test_the_mover_may_take_the_card_instead():
    """Seed 003: "It is up to the player whose turn it is, to allow this or to take the card
    themselves."."""
    g = cut_in_table()
    g.apply(CLAIM, 2)
    g.apply(PILE, 1)
    assert "7H" in {c.text for c in g.hands[1]} and len(g.hands[2]) == 3
    assert g.cut_ins == [0, 0, 0, 0] and g.claims == []


def test_a_claim_by_the_seat_to_move_is_refused():
    """The mover takes the card with a draw from the discard pile, not a claim."""
    g = cut_in_table()
    assert illegal(g, CLAIM, 1) == "claim_on_your_turn"
    assert illegal(g, CLAIM) == "claim_on_your_turn"


def test_claims_outside_the_window_are_refused():
    """Seed 003: "Any player may cut in at any time between a meld and the next players
    draw": once the mover has drawn there is nothing to claim."""
    g = cut_in_table()
    g.apply(STOCK, 1)
    assert g.legal_actions(2) == []
    assert illegal(g, CLAIM, 2) == "no_claim_window"
    assert illegal(g, CLAIM, 0) == "no_claim_window"


def test_other_refused_claims():
    g = cut_in_table()
    assert illegal(g, CLAIM, 0) == "own_discard"
    g.apply(CLAIM, 2)
    assert illegal(g, CLAIM, 2) == "already_claimed"
    g.down[3] = True
    assert illegal(g, CLAIM, 3) == "contract_down"
    g.down[3] = False
    g.stock = g.stock[-2:]
    assert illegal(g, CLAIM, 3) == "stock_too_small"
    off = cut_in_table(cut_ins=False)
    assert off.out_of_turn_seats() == [] and off.view(0)["claim_window"] is None
    assert illegal(off, CLAIM, 2) == "cut_ins_off"
    for bad in (7, -1, "2", 1.0):
        with pytest.raises(ValueError):
            g.apply(CLAIM, bad)


def test_at_most_two_cut_ins_per_hand():
    """Seed 003: "Any player may cut in at any time between a meld and the next players draw
    up to two times."; option ``max_cut_ins``."""
    g = cut_in_table()
    g.cut_ins[2] = 2
    assert illegal(g, CLAIM, 2) == "no_cut_ins_left"
    assert g.out_of_turn_seats() == [3]
    h = cut_in_table(max_cut_ins=3, cut_in_penalty=1)
    h.cut_ins[2] = 2
    h.apply(CLAIM, 2)
    h.apply(STOCK, 1)
    assert len(h.hands[2]) == 5 and h.cut_ins[2] == 3


def test_the_first_upcard_may_be_claimed_by_anyone_but_the_first_player():
    g = new(3)
    assert g.discarder is None and g.out_of_turn_seats() == [1, 2]


def test_a_bot_match_with_cut_ins_replays_exactly():
    """Issue 17: "keep replay exact": claims are moves in the log."""
    rec = DUMMY.play(4, "cuts", ["random", "greedy", "random", "greedy"], {"max_hands": 12})
    assert any(m["action"] == CLAIM for m in rec.moves)
    assert sum(s["cut_ins"] for s in rec.result["stats"]) > 0
    json.dumps(rec.moves)
    json.dumps(rec.result)
    replayed = DUMMY.replay(rec.moves, 4, "cuts", {"max_hands": 12})
    assert replayed.result == rec.result
    assert DUMMY.replay(rec.moves[:-3], 4, "cuts", {"max_hands": 12}).seq == len(rec.moves) - 3


# ---------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"type": "bogus"}, "unknown_action"),
        ("draw", "bad_action"),
        ({"type": "draw"}, "bad_action"),
        ({"type": "draw", "source": "deck"}, "bad_action"),
        ({"type": "claim", "card": "7H"}, "bad_action"),
        ({"type": "meld", "groups": "7H 7S 7D"}, "wrong_phase"),
        ({"type": "discard", "card": "7H"}, "wrong_phase"),
    ],
)
def test_bad_actions_before_drawing_change_nothing(action, code):
    g = cut_in_table()
    assert illegal(g, action, 1) == code


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"type": "meld", "groups": "7H 7S 7D"}, "bad_groups"),
        ({"type": "meld", "groups": [[]]}, "bad_groups"),
        ({"type": "meld", "groups": [["ZZ"]]}, "bad_card"),
        ({"type": "meld", "groups": [["AD", "KD", "QD"], ["3C"]]}, "card_not_in_hand"),
        ({"type": "layoff", "card": "8H", "meld": 0}, "contract_not_down"),
        ({"type": "discard", "card": "KS"}, "card_not_in_hand"),
        ({"type": "discard", "card": ["8H"]}, "bad_card"),
        ({"type": "draw", "source": "stock"}, "wrong_phase"),
    ],
)
def test_bad_actions_after_drawing_change_nothing(action, code):
    g = cut_in_table()
    g.apply(STOCK, 1)
    assert illegal(g, action, 1) == code


def test_another_seats_turn_is_not_yours():
    g = cut_in_table()
    assert illegal(g, STOCK, 2) == "not_your_turn"
    assert illegal(g, discard("7S"), 2) == "not_your_turn"


def test_options_are_validated_with_defaults():
    assert DUMMY.validate_options({}) == {
        "cut_ins": True,
        "cut_in_penalty": 2,
        "max_cut_ins": 2,
        "run_suits": "any",
        "max_hands": 48,
        "max_pile_draws": 108,
    }
    for bad in ({"cut_in_penalty": 4}, {"max_hands": 5}, {"cut_ins": 1}, {"jokers": 2}):
        with pytest.raises(ValueError):
            DUMMY.validate_options(bad)


def test_views_hide_other_hands_and_the_stock():
    g = cut_in_table()
    g.apply(CLAIM, 2)
    view = g.view(3)
    json.dumps(view)
    assert sorted(view["hand"]) == ["7C", "7S", "JD"]
    assert view["hand_counts"] == [3, 3, 3, 3] and "stock" not in view
    assert g.view(None)["hand"] == []
    shown = set(json.dumps(view).replace('"', " ").split())
    assert not {"KC", "9D", "4S", "8H", "5D", "3C", "7D", "QH", "AS", "KH", "QC"} & shown
