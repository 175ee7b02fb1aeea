"""Dummy's planner bot: buys only near its contract, lays the contract down the way that
leaves the fewest cards to shed, keeps the discard that leaves the most outs, bridges runs
with its wilds once down and sheds the card least likely to fit; plays legal moves only and
replays exactly (issue 17: "a stronger one that plans contracts and buys sensibly")."""

from engine.variants import dummy_bots, get
from tests.engine.test_dummy_rules import new, rig

DUMMY = get("dummy")


def test_the_planner_is_a_dummy_bot_and_its_matches_replay_exactly():
    assert "planner" in DUMMY.bots
    bots = ["planner", "greedy", "planner"]
    record = DUMMY.play(3, "planner-1", bots, {"max_hands": 12})
    assert DUMMY.replay(record.moves, 3, "planner-1", {"max_hands": 12}).result == record.result
    assert DUMMY.play(3, "planner-1", bots, {"max_hands": 12}).moves == record.moves


def test_the_planner_buys_only_a_card_that_brings_its_contract_within_two():
    """Two sets of 3. 7C 7S + 9D 9H: 2 away; a third 7 makes it 1 away: a buy. With one 7
    and nothing else paired the 7 still helps (4 away to 3) but the planner lets it go."""
    near = new(3)
    rig(near, ["KC 5D 4S", "7C 7S 9D 9H KD QS JC"], "7D")
    near.to_move, near.discarder = 0, 2
    assert dummy_bots.planner_claims(near, 1) and dummy_bots.greedy_claims(near, 1)
    far = new(3)
    rig(far, ["KC 5D 4S", "7C 3S 9D 5H KD QS JC"], "7D")
    far.to_move, far.discarder = 0, 2
    assert dummy_bots.greedy_claims(far, 1) and not dummy_bots.planner_claims(far, 1)


def test_where_the_planner_discards_otherwise_than_greedy_it_keeps_more_outs():
    """Greedy throws the highest of the cards that keep the contract closest; the planner
    throws the one leaving the most unseen cards that would bring it closer. Over greedy
    matches, at every turn before its contract is down where both discard but choose
    differently, the planner's choice keeps as close a contract and strictly more outs."""
    differ = 0
    for n in range(3):
        g = DUMMY.new(3, f"outs-{n}", {"max_hands": 12})
        g.contract = [7, 7, 7]  # three sets of 3: a contract that takes some building
        while g.hand_number == 1 and not g.over:
            seat = g.to_move
            greedy = DUMMY.bot_action(g, seat, "greedy")
            planner = DUMMY.bot_action(g, seat, "planner")
            both_discard = greedy["type"] == planner["type"] == "discard"
            if greedy != planner and both_discard and not g.down[seat]:
                kept = {}
                for choice in (greedy, planner):
                    rest = list(g.hands[seat])
                    rest.remove(next(c for c in rest if c.text == choice["card"]))
                    lack = dummy_bots._lack(g, seat, rest)
                    kept[choice["card"]] = (lack, dummy_bots._outs(g, seat, rest, lack))
                (g_lack, g_outs), (p_lack, p_outs) = kept[greedy["card"]], kept[planner["card"]]
                assert p_lack == g_lack and p_outs > g_outs
                differ += 1
            g.apply(greedy, seat)
    assert differ >= 3


def test_the_planner_lays_down_the_grouping_that_leaves_the_fewest_cards_to_shed():
    """Two sets of 3 from three triples (5s, 7s, four 9s): the engine's first grouping
    (5s and 7s) leaves the four 9s and 3 K Q J to shed; the planner lays the 7s and 9s
    down, lays the fourth 9 off, and keeps 3 5 5 5 K Q J: one card fewer, and fewer points
    than keeping the 7s."""
    g = new(2)
    rig(g, ["5H 5S 5D 7C 7S 7D 9D 9H 9S 9C KD QS JC 3H", "4C 4D"], "8H")
    g.to_move, g.phase = 0, "play"
    greedy = DUMMY.bot_action(g, 0, "greedy")
    planner = DUMMY.bot_action(g, 0, "planner")
    assert sorted(map(sorted, greedy["groups"])) == [["5D", "5H", "5S"], ["7C", "7D", "7S"]]
    assert sorted({card[0] for card in group} for group in planner["groups"]) == [{"7"}, {"9"}]
    g.apply(planner, 0)
    while (action := DUMMY.bot_action(g, 0, "planner"))["type"] == "layoff":
        g.apply(action, 0)
    assert sorted(c.text for c in g.hands[0]) == ["3H", "5D", "5H", "5S", "JC", "KD", "QS"]


def test_once_down_the_planner_lays_a_wild_where_it_lets_a_dead_card_fit():
    """Set of 4s (meld 0) and run 5-8 (meld 1) on the table: greedy puts the wild on the
    first meld; the planner stretches the run with it, so the TD fits next."""
    g = new(2)
    rig(g, ["2C TD KS", "4C 4D"], table=[(0, "set", "4H 4S 4D"), (0, "run", "5H 6S 7D 8C")])
    g.to_move, g.phase, g.down = 0, "play", [True, False]
    assert DUMMY.bot_action(g, 0, "greedy") == {"type": "layoff", "card": "2C", "meld": 0}
    planner = DUMMY.bot_action(g, 0, "planner")
    assert planner == {"type": "layoff", "card": "2C", "meld": 1}
    g.apply(planner, 0)
    assert DUMMY.bot_action(g, 0, "planner") == {"type": "layoff", "card": "TD", "meld": 1}


def test_once_down_the_planner_sheds_the_card_least_likely_to_fit():
    """Run 5-8 on the table; TD would fit once a 9 joins it, QS never: both count 10, the
    planner throws the QS (greedy, by value then text, the TD)."""
    g = new(2)
    rig(g, ["TD QS", "4C 4D"], table=[(0, "run", "5H 6S 7D 8C")])
    g.to_move, g.phase, g.down = 0, "play", [True, False]
    assert DUMMY.bot_action(g, 0, "greedy") == {"type": "discard", "card": "TD"}
    assert DUMMY.bot_action(g, 0, "planner") == {"type": "discard", "card": "QS"}


def test_the_planner_beats_greedy_over_two_player_matches():
    """A small, fixed sample of what benchmarks/bots_bench.py measures (seats swapped each
    match): the planner wins clearly more matches than greedy."""
    wins = [0, 0]
    for i in range(40):
        bots = ["planner", "greedy"] if i % 2 == 0 else ["greedy", "planner"]
        result = DUMMY.play(2, f"planner-vs-greedy-{i // 2}", bots, {"max_hands": 12}).result
        if result["winner"] is not None:
            wins[bots[result["winner"]] == "greedy"] += 1
    assert wins[0] >= 24, wins
