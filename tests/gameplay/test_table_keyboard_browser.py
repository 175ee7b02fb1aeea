"""Two whole Gin hands at the table by keyboard alone (issue 29): after every move the focus
lands on the next sensible control, never on <body>, so a draw takes one key and a discard
at most three (the card's rank, its suit, Enter); the opponent's turn is announced as one
line. The key presses per move are printed."""

import pytest

from gameplay import games, services
from tests.factories import PlayerFactory, RoomFactory
from tests.gameplay import test_table_page as table_page
from tests.gameplay.test_table_pace_browser import card_words
from tests.gameplay.test_table_page import seq_of, wait_seq
from tests.gameplay.test_table_showdown_page import SEED, sensible

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
asgi_server = table_page.asgi_server
open_page = table_page.open_page

FOCUSED = """() => {
  const a = document.activeElement;
  if (!a || a === document.body) return "body";
  return a.dataset.card || a.id || a.textContent.trim();
}"""


class Keys:
    """The page's keyboard, counting presses."""

    def __init__(self, page):
        self.page = page
        self.count = 0

    def press(self, key: str) -> None:
        self.page.keyboard.press(key)
        self.count += 1

    def focused(self) -> str:
        return self.page.evaluate(FOCUSED)

    def tab_to(self, label: str, most: int = 30) -> None:
        while self.focused() != label:
            assert most > 0, f"Tab never reached {label!r}"
            self.press("Tab")
            most -= 1


def play_by_keys(keys: Keys, action: dict, card_to_shed: str | None) -> None:
    """Ada's move as a keyboard player makes it; Ada discards rather than knocks (the
    knock chooser is its own dialog), so `card_to_shed` is the card to throw."""
    if action["type"] == "pass":
        keys.tab_to("Pass", most=3)
    elif action["type"] == "draw":
        keys.tab_to("stock", most=0)  # the turn began on the stock
    else:
        if keys.focused() != card_to_shed:
            keys.press(card_to_shed[0])
        if keys.focused() != card_to_shed:
            keys.press(card_to_shed[1].lower())
        assert keys.focused() == card_to_shed
    keys.press("Enter")


def test_whole_gin_hands_by_keyboard_with_three_keys_a_move_at_most(open_page, capsys):
    ada, bob = PlayerFactory(display_name="Ada"), PlayerFactory(display_name="Bob")
    room = RoomFactory(options={"target": 100}, turn_seconds=60)
    match = services.match_create(
        variant="gin", options=room.options, players=[ada, bob], room=room, seed=SEED
    )
    page = open_page(ada)
    page.goto(f"/matches/{match.pk}/")
    wait_seq(page, match.seq)
    keys = Keys(page)
    keys.tab_to("Pass" if match.to_move == 0 else "Sort by suit")  # into the table, once
    entry = keys.count
    presses = []  # (action type, keys)
    hands = 2  # the next deal arrive while the focus is in the hand, too
    while True:
        match.refresh_from_db()
        game = games.load(match)
        if match.status != "active" or game.view(0)["hand_number"] > hands:
            break
        seat = match.to_move
        action = sensible(game, seat)
        if seat == 0:
            wait_seq(page, match.seq)
            if action["type"] == "knock":
                action = {"type": "discard", "card": action["card"]}
            before, keys.count = seq_of(page), 0
            play_by_keys(keys, action, action.get("card"))
            wait_seq(page, before + 1)
            presses.append((action["type"], keys.count))
            assert keys.focused() != "body", f"the focus fell to <body> after a {action['type']}"
        else:
            services.match_act(match_id=match.pk, player=bob, seq=match.seq, action=action)
            wait_seq(page, match.seq + 1)
            if action["type"] == "discard":
                assert page.inner_text("#last-move") == (
                    f"Bob drew from the stock and discarded the {card_words(action['card'])}."
                )
                assert keys.focused() == "stock", "Ada's turn begins on the stock"
    with capsys.disabled():
        per_kind = {}
        for kind, count in presses:
            per_kind.setdefault(kind, []).append(count)
        print(
            f"\nkeyboard Gin, {hands} hands: {entry} Tabs into the table, then per move "
            + ", ".join(
                f"{kind} {sum(c) / len(c):.2f} mean / {max(c)} most over {len(c)}"
                for kind, c in per_kind.items()
            )
        )
    assert {kind for kind, _ in presses} >= {"draw", "discard"}
    assert all(count <= 3 for _, count in presses), presses
