"""Client helpers for playing matches through the API in tests."""

from engine import gin
from engine.cards import parse
from gameplay import services


def auth(client, player):
    client.credentials(HTTP_AUTHORIZATION=f"Token {api_key(player)}")
    return client


def api_key(player) -> str:
    """A new API token's key for the player."""
    return services.api_token_create(user=player.user, name="tests")[1]


def choose(view: dict) -> dict:
    """A sensible human move from the legal actions: knock when allowed, else the best discard."""
    legal = view["legal_actions"]
    by_type = {}
    for action in legal:
        by_type.setdefault(action["type"], []).append(action)
    if "big_gin" in by_type:
        return by_type["big_gin"][0]
    if "knock" in by_type:
        return by_type["knock"][0]
    if "discard" in by_type:
        card, _ = gin.best_discard(parse(" ".join(view["hand"])))
        wanted = {"type": "discard", "card": str(card)}
        return wanted if wanted in legal else by_type["discard"][0]
    if "draw" in by_type:
        return next((a for a in legal if a.get("source") == "stock"), legal[0])
    return legal[0]
