"""Indian 21-card Rummy (`indian21`): every rule of the chosen rule set (ClassicRummy's
"21 Cards Rummy", engine/README.md), quoted, the options that vary it, and property tests
over whole bot matches."""

import pickle
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import IllegalAction, cards, variants
from engine.variants import indian21

V21 = variants.get("indian21")
STOCK = {"type": "draw", "source": "stock"}
DROP = {"type": "drop"}
PROPERTY = settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def new(players=2, seed="abc", options=None):
    return V21.new(players=players, seed=seed, options=options or {})


def rig(g, hands, discard="2D", stock_top="", cut="5C"):
    """Chosen hands, open pile, stock top and cut joker; every other card of the three decks
    and their jokers goes under the stock, so all stay accounted."""
    pool = cards.deck(decks=3, jokers=g.options["jokers"])

    def take(text):
        out = []
        for t in text.split():
            c = next(c for c in pool if c.text == t)
            pool.remove(c)
            out.append(c)
        return out

    g.hands = [take(h) for h in hands] + [[] for _ in range(g.players - len(hands))]
    (cut_card,) = take(cut)
    g._set_cut(cut_card)
    g.discard = take(discard)
    top = take(stock_top)
    g.stock = [cut_card, *pool, *top[::-1]]
    g.to_move, g.phase = 0, "draw"
    g.__dict__.pop("_searches", None)
    return g


def texts(group):
    return group.split()


# Three pure sequences and two more groups: 21 cards, plus a card to discard.
PURE3 = "AH 2H 3H 7S 8S 9S TD JD QD KD"
# 21 cards (cut 5C: 4C is the lower joker): three pure sequences, a set, a run, a set.
SHOW = "AH 2H 3H 4H 7S 8S 9S TD JD QD KD 9C 9H 9D 2C 3C 4C JK KS KH KC"
SHOWN = [
    ["AH", "2H", "3H", "4H"],
    ["7S", "8S", "9S"],
    ["TD", "JD", "QD", "KD"],
    ["9C", "9H", "9D"],
    ["2C", "3C", "4C", "JK"],
    ["KS", "KH", "KC"],
]


def declare(g, card, groups):
    g.apply({"type": "declare", "card": card, "groups": groups}, 0)


def test_three_decks_with_their_printed_jokers_and_21_cards_each():
    """ "21-Cards Rummy is played by 2 to 6 players with 3 standard decks of 53 cards each,
    including one printed Joker per deck" and "21 cards are dealt to each player"."""
    g = new(players=6)
    assert [len(h) for h in g.hands] == [21] * 6
    held = [c for h in g.hands for c in h] + g.stock + g.discard
    assert sorted(held) == sorted(cards.deck(decks=3, jokers=3))
    with pytest.raises(ValueError):
        V21.new(players=7)


def test_the_cut_joker_stays_in_play_at_the_bottom_of_the_stock():
    """ "The first card from the remaining deck is placed face up on the table to form the
    open deck": the cut joker goes under the closed deck, so its third copy is playable."""
    g = new()
    assert g.stock[0] is g.cut and len(g.discard) == 1


@pytest.mark.parametrize(
    ("cut", "joker", "upper", "lower"),
    [
        ("5C", "5C", "6C", "4C"),
        ("AH", "AH", "2H", "KH"),
        ("KD", "KD", "AD", "QD"),
        ("JK", "AS", "2S", "KS"),
    ],
)
def test_value_cards(cut, joker, upper, lower):
    """ "Upper Joker: The card that is one rank above the Cut Joker and is of the same suit";
    "Lower Joker: ... one rank below"; "If a Printed Joker is selected as the Wild Joker,
    then Ace of Spades becomes the Cut Joker"; with an ace, the 2 and the king."""
    values = indian21.value_cards(cards.card(cut))
    assert {k: indian21.value_text(v) for k, v in values.items()} == {
        "joker": joker,
        "upper": upper,
        "lower": lower,
    }


def test_value_cards_are_wild_unless_the_room_says_otherwise():
    """ "Value Cards are used in addition to Jokers in the game. They can replace any cards
    in sequences and sets"; option value_cards_wild off, only the cut rank is wild."""
    g = rig(new(), [SHOW])
    assert g._classify(cards.parse("7H 8H 6C", decks=3)).kind == "run"  # 6C: upper joker
    assert g._classify(cards.parse("QS QH 4C", decks=3)).kind == "set"  # 4C: lower joker
    plain = rig(new(options={"value_cards_wild": False}), [SHOW])
    assert plain._classify(cards.parse("7H 8H 6C", decks=3)) is None


def test_a_declaration_needs_three_pure_sequences_and_the_rest_grouped():
    """ "Melding of three pure sequences along with the remaining cards melded into valid
    sequences and/or sets"."""
    g = rig(new(), [SHOW], stock_top="6H")
    g.apply(STOCK, 0)
    assert any(a["type"] == "declare" and a["card"] == "6H" for a in g.legal_actions(0))
    declare(g, "6H", SHOWN)
    assert g.last_hand["kind"] == "declared" and g.last_hand["winner"] == 0


def test_two_pure_sequences_are_a_wrong_show_costing_120():
    """ "In case a player makes a wrong show, then the player will lose 120 points for that
    round and the game will keep moving until another player makes a correct
    declaration"."""
    hand = "AH 2H 3H 4H 7S 8S 9S TD JD JK KD 9C 9H 9D 2C 3C 4C JK KS KH KC"
    g = rig(new(players=3), [hand, PURE3, PURE3], stock_top="6D")
    g.apply(STOCK, 0)
    groups = [list(x) for x in SHOWN]
    groups[2] = ["TD", "JD", "JK", "KD"]
    assert "three pure" in g._check([cards.parse(x, decks=3) for x in groups])
    declare(g, "6D", groups)
    assert g.status[0] == "wrong" and g.deal_points[0] == 120 and not g.over
    assert g.to_move == 1


def test_a_tunnela_counts_as_a_pure_sequence():
    """ "A Tunnela is a pure sequence in 21 card rummy"; "A joker beside two identical
    cards, such as 6 ♦ 6 ♦ Q ♦ (Where Q ♦ is a joker) cannot be regarded as a valid
    combination"."""
    g = rig(new(), [SHOW])
    two_pure_and_a_tunnela = [
        cards.parse(x, decks=3)
        for x in (
            "AH 2H 3H",
            "7S 8S 9S",
            "6D 6D 6D",
            "TD JD QD KD",
            "9C 9H 9D",
            "3C 4C JK",
            "KS KH KC",
        )
    ]
    assert g._check(two_pure_and_a_tunnela) is None
    assert (
        g._check(
            [cards.parse(x, decks=3) for x in ("AH 2H 3H", "7S 8S 9S", "6D 6D JK", "TD JD QD KD")]
        )
        is not None
    )


@pytest.mark.parametrize(
    ("hand", "groups"),
    [
        # "Melding a minimum of three Tunnelas. In this case, players do not need to arrange
        # the remaining cards"
        (
            "6D 6D 6D QS QS QS 2H 2H 2H 7C 8D 9S TH JS 3D 4S 5H KC KD AC 8H",
            ["6D 6D 6D", "QS QS QS", "2H 2H 2H", "7C 8D 9S TH JS 3D 4S 5H KC KD AC 8H"],
        ),
        # "Melding a minimum of eight Dublees. In this case, players do not need to arrange
        # the remaining cards"
        (
            "6D 6D QS QS 2H 2H 7C 7C 8D 8D 9S 9S TH TH JK JK 3D 4S KC AC 8H",
            [
                "6D 6D",
                "QS QS",
                "2H 2H",
                "7C 7C",
                "8D 8D",
                "9S 9S",
                "TH TH",
                "JK JK",
                "3D 4S KC AC 8H",
            ],
        ),
        # "Melding eight jokers in a single group" (printed jokers and wild cards: 5s here)
        (
            "JK JK JK 5S 5H 5D 5D 5H 2C 3D 7S 8D 9S TH JS 3D 4S KC KD AC 8H",
            ["JK JK JK 5S 5H 5D 5D 5H", "2C 3D 7S 8D 9S TH JS 3D 4S KC KD AC 8H"],
        ),
    ],
)
def test_the_published_alternative_declarations(hand, groups):
    g = rig(new(), [hand], stock_top="9D")
    g.apply(STOCK, 0)
    shown = [texts(x) for x in groups]
    listed = [a for a in g.legal_actions(0) if a["type"] == "declare"]
    assert listed, "the engine offers the alternative declaration"
    declare(g, "9D", shown)
    assert g.last_hand["winner"] == 0


def test_alternatives_are_options():
    """A room may turn each alternative off (0); then the same groups are a wrong show."""
    hand = "6D 6D QS QS 2H 2H 7C 7C 8D 8D 9S 9S TH TH JK JK 3D 4S KC AC 8H"
    g = rig(new(options={"dublee_show": 0}), [hand], stock_top="9D")
    g.apply(STOCK, 0)
    groups = [
        ["6D", "6D"],
        ["QS", "QS"],
        ["2H", "2H"],
        ["7C", "7C"],
        ["8D", "8D"],
        ["9S", "9S"],
        ["TH", "TH"],
        ["JK", "JK"],
        ["3D", "4S", "KC", "AC", "8H"],
    ]
    declare(g, "9D", groups)
    assert g.status[0] == "wrong"


def test_a_losers_count_ungrouped_all_cards_the_cap_and_six_dublees():
    """ "If 3 sequences are not made then the entire hand is counted as points" (jokers
    count nothing), else only the ungrouped cards; at most 120; "A player having six Dublees
    in hand ... when another player declares, will lose only 2 points"."""
    three_pure_and_loose = f"{PURE3} 9C 9H 9D 2C 7D 8C KS KH QC JC 3S"  # 2+7+8+10+10+3
    no_pure = "AH 3H 5H 7S 9S JD KD 2C 4C 6C 8C TC QC AS 3S 7H 9H JH KH 2D 4D"
    six_dublees = "AD AD 3D 3D 7D 7D 8D 8D JH JH QH QH 2S 4C 6C 8C TC QC AS 3S 7H"
    g = rig(
        new(players=4, options={"value_cards": False}),
        [SHOW, three_pure_and_loose, no_pure, six_dublees],
        stock_top="6H",
    )
    g.apply(STOCK, 0)
    declare(g, "6H", SHOWN)
    assert g.deal_points == [0, 40, 120, 2]
    codes = [(line["seat"], line["code"]) for line in g.last_hand["breakdown"]]
    assert (2, "cap") in codes and (3, "dublees") in codes


@pytest.mark.parametrize(
    ("held", "points"),
    [
        ("6C 6C", 30),  # "Two Up Jokers 30 points"
        ("6C 4C", 20),  # "One Up Joker and One Down Joker 20 points"
        ("6C 6C 4C", 40),  # "Two Up Jokers and One Down Joker 40 points"
        ("5C 5C 4C 4C", 60),  # "Two Jokers (same suit) and Two Down Jokers 60 points"
        ("5C 6C 4C", 100),  # "One same suit Joker, One Down Joker and One Up Joker 100"
        ("5C 5C 6C 6C 4C 4C", 300),  # "two or three Marriages ... 300 and 500 points"
        ("5C 5C 5C 6C 6C 6C 4C 4C 4C", 500),
        ("5C 6C 6C 4C", 110),  # a marriage and one more upper joker
        ("5H 6D 4S", 0),  # other suits are plain wild cards, not value cards
    ],
)
def test_value_card_points(held, points):
    """The value card table: "Same suit joker 10 30 50 / Up joker 10 30 50 / Down joker 10
    30 50" and "a Jackpot or Marriage ... will get 100 points from each of the players"."""
    values = indian21.value_cards(cards.card("5C"))
    assert indian21.hand_value(cards.parse(held, decks=3), values, marriage=True) == points


def test_value_cards_are_exchanged_with_every_seat_that_did_not_drop():
    """ "each player who has not dropped from the game also gets positive points for having
    value cards and negative points for value cards that are held by other players who have
    not dropped from the game"; scores are penalty points, so receiving lowers them."""
    loser = "AH 3H 5H 7S 9S JD KD 2C 4S 6C 6C TC QC AS 3S 7H 9H JH KH 2D 4D"  # two up: 30
    dropper = "AD 3D 5D 7D 9D JS KS 2S 4S 6S 8S TS QS AC 3C 7C 9C 4C 5C 6H 8H"
    g = rig(new(players=3), [SHOW, loser, dropper], stock_top="6H 6D 8D")
    g.apply(STOCK, 0)
    g.apply({"type": "discard", "card": "6H"}, 0)
    g.apply(STOCK, 1)
    g.apply({"type": "discard", "card": "6D"}, 1)
    g.apply(DROP, 2)
    g.apply(STOCK, 0)
    declare(g, "8D", SHOWN)  # the declarer holds one lower joker (4C): 10
    lines = {(x["seat"], x["code"]): x["points"] for x in g.last_hand["breakdown"]}
    assert lines[(1, "value_cards")] == -20 and lines[(0, "value_cards")] == 20
    assert (2, "value_cards") not in lines  # the dropped seat neither gives nor receives
    assert g.deal_points[2] == 30  # a first drop


def test_drops_cost_30_and_70_and_are_options():
    """ "a middle drop score of 70 points"; a first drop costs 30 (engine/README.md)."""
    g = new(players=3)
    g.apply(DROP, g.to_move)
    assert 30 in g.deal_points
    g = new(players=3, options={"first_drop": 25, "middle_drop": 60})
    g.apply(DROP, g.to_move)
    assert 25 in g.deal_points
    with pytest.raises(ValueError):
        new(options={"first_drop": 80, "middle_drop": 70})


def test_formats_and_bad_options():
    """Points, Pool 101/201 and Deals as in 13 cards; options are checked."""
    for fmt in ("points", "pool101", "pool201", "deals"):
        assert new(options={"format": fmt}).options["format"] == fmt
    for bad in ({"joker_show": 2}, {"max_points": 500}, {"dublee_show": -1}):
        with pytest.raises(ValueError):
            new(options=bad)


def test_illegal_actions_change_nothing():
    g = new()
    before = g._snapshot()
    for action in (
        {"type": "discard", "card": "AS"},
        {"type": "declare", "card": "AS", "groups": []},
    ):
        with pytest.raises(IllegalAction):
            g.apply(action, g.to_move)
    assert g._snapshot() == before


def test_a_pickled_game_leaves_the_kept_searches_out():
    """A server pickles the game after every move: the searches' memos stay out of it."""
    g = new()
    g.apply(STOCK, g.to_move)
    g.legal_actions(g.to_move)
    assert g.__dict__["_searches"]
    again = pickle.loads(pickle.dumps(g))
    assert "_searches" not in again.__dict__ and again._snapshot() == g._snapshot()
    assert again.legal_actions(again.to_move) == g.legal_actions(g.to_move)


# ------------------------------------------------------------------ properties

seeds = st.text(alphabet="abcdef0123456789", min_size=1, max_size=8)


def _play(players, seed, bots, options=None):
    g = new(players=players, seed=seed, options=options)
    while not g.over:
        seat = g.to_move
        g.apply(V21.bot_action(g, seat, bots[seat]), seat)
        held = [c for h in g.hands for c in h] + g.stock + g.discard
        if not g.over:
            assert Counter(held) == Counter(cards.deck(decks=3, jokers=g.options["jokers"]))
    return g


@PROPERTY
@given(players=st.integers(2, 4), seed=seeds)
def test_no_card_is_created_or_lost_and_replay_reproduces_the_state(players, seed):
    bots = ["random"] * players
    g = _play(players, seed, bots, {"format": "points"})
    again = V21.replay([m for m in g.moves], players, seed, {"format": "points"})
    assert again._snapshot() == g._snapshot()


@PROPERTY
@given(seed=seeds)
def test_every_legal_declaration_scores_as_the_rule_says(seed):
    """Greedy bots play until one declares: the declaration the engine listed is valid, the
    winner counts 0 before value cards, every loser what `_score_loser` says, and the value
    exchange is zero-sum."""
    g = _play(2, seed, ["greedy", "greedy"])
    last = g.last_hand
    if last["kind"] != "declared":
        return
    w = last["winner"]
    lines = last["breakdown"]
    by_seat = {s: sum(x["points"] for x in lines if x["seat"] == s) for s in range(2)}
    assert by_seat == dict(enumerate(last["points"]))
    assert sum(x["points"] for x in lines if x["code"] == "value_cards") == 0
    assert sum(x["points"] for x in lines if x["seat"] == w and x["code"] != "value_cards") == 0
    groups = [cards.parse(gr, decks=3) for gr in last["groups"][w]["groups"]]
    assert g._check(groups) is None
    for s in range(2):
        if s != w:
            cards_line = next(x for x in lines if x["seat"] == s and x["code"] == "cards")
            assert cards_line["points"] >= 0
            capped = sum(
                x["points"] for x in lines if x["seat"] == s and x["code"] != "value_cards"
            )
            assert capped <= g.options["max_points"]
