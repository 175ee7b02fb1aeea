"""Gameplay's part of the demo data (`python manage.py load_demo`, run by `make run`).

Idempotent: catalogue rows are looked up by their natural key and left alone when they
exist (an admin's edits survive the next `make run`), and demo matches are keyed by their
seed, so a second run adds nothing.

Matches are real: created, played and finalized by the gameplay services. Their Celery
hooks run in this process (eager mode) while the demo builds, because `make run` loads the
demo before any worker is up and the demo must not leave a backlog on the broker.
"""

from itertools import combinations

from django.contrib.auth import get_user_model
from django.db import transaction

from config.celery import tasks_in_process
from engine import variants
from gameplay import games, services
from gameplay.models import Achievement, Level, Match, Player, Reward, Room, Seat, Title

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "knock-demo-player"
LEVELS = 20
# Short matches keep `make run` quick (for variants played to a target score); the demo
# player's are shorter still, since each of their turns is a request-sized transaction.
BOT_MATCH_TARGET = 10
DEMO_PLAYER_TARGET = 10
BOTS = [("greedy", 2), ("expert", 1), ("random", 1)]
BOT_MATCHES_PER_VARIANT = 4
# Room names start with the variant's name in title case ("Gin Quick Play"), or this.
ROOM_LABELS = {"indian21": "Indian 21-card"}
DEMO_PLAYER_MATCHES = 2

# (code, name, description, granted by level, rule metric, rule threshold)
TITLES = [
    ("apprentice", "Apprentice", "Reached level 3.", 3, "", None),
    ("card-sharp", "Card Sharp", "Reached level 5.", 5, "", None),
    ("knock-master", "Knock Master", "Reached level 10.", 10, "", None),
    ("gin-virtuoso", "Gin Virtuoso", "Reached level 15.", 15, "", None),
    ("legend", "Legend", "Reached level 20.", 20, "", None),
    ("gin-hunter", "Gin Hunter", "Went gin five times.", None, "gins", 5),
    ("hot-streak", "Hot Streak", "Won three matches in a row.", None, "best_win_streak", 3),
    (
        "undercut-artist",
        "Undercut Artist",
        "Granted with the Undercut Artist reward.",
        None,
        "",
        None,
    ),
    ("founder", "Founder", "Played in the first season.", None, "", None),
]

# (code, name, xp, coins, title code)
REWARDS = [
    ("coins-25", "25 coins", 0, 25, None),
    ("coins-100", "100 coins", 0, 100, None),
    ("xp-50", "50 XP", 50, 0, None),
    ("xp-200-coins-200", "200 XP and 200 coins", 200, 200, None),
    ("undercut-artist", "Undercut Artist", 50, 50, "undercut-artist"),
    ("welcome-pack", "Welcome pack", 50, 100, "founder"),
]

# (code, name, description, tier, metric, threshold, hidden, reward code)
ACHIEVEMENTS = [
    (
        "first-match",
        "First Deal",
        "Finish a match.",
        "bronze",
        "matches_played",
        1,
        False,
        "coins-25",
    ),
    (
        "regular",
        "Regular",
        "Finish 10 matches.",
        "silver",
        "matches_played",
        10,
        False,
        "coins-100",
    ),
    (
        "veteran",
        "Veteran",
        "Finish 100 matches.",
        "gold",
        "matches_played",
        100,
        False,
        "xp-200-coins-200",
    ),
    ("first-win", "First Win", "Win a match.", "bronze", "matches_won", 1, False, "coins-25"),
    ("winner", "Winner", "Win 10 matches.", "silver", "matches_won", 10, False, "xp-50"),
    ("first-gin", "Gin!", "Go gin.", "bronze", "gins", 1, False, "xp-50"),
    (
        "big-gin",
        "Big Gin",
        "Go big gin: all eleven cards melded.",
        "gold",
        "big_gins",
        1,
        True,
        "coins-100",
    ),
    ("undercut", "Undercut", "Undercut a knocker.", "bronze", "undercuts", 1, False, None),
    (
        "undercut-artist",
        "Undercut Artist",
        "Undercut five knockers.",
        "platinum",
        "undercuts",
        5,
        True,
        "undercut-artist",
    ),
    (
        "streak-3",
        "On a Roll",
        "Win three matches in a row.",
        "silver",
        "best_win_streak",
        3,
        False,
        "xp-50",
    ),
    (
        "streak-7",
        "Unstoppable",
        "Win seven matches in a row.",
        "platinum",
        "best_win_streak",
        7,
        True,
        "xp-200-coins-200",
    ),
    ("level-5", "Rising Star", "Reach level 5.", "silver", "level", 5, False, "coins-100"),
    (
        "tournament-winner",
        "Champion",
        "Win a tournament.",
        "gold",
        "tournaments_won",
        1,
        False,
        "xp-200-coins-200",
    ),
    (
        "promoted",
        "Climber",
        "Win promotion in a league.",
        "silver",
        "league_promotions",
        1,
        False,
        "coins-100",
    ),
]

# (name suffix, min level, entry fee, turn seconds, bots allowed)
ROOM_TIERS = [
    ("Quick Play", 1, 0, 30, True),
    ("Classic", 1, 10, 60, True),
    ("Club", 3, 25, 60, True),
    ("High Stakes", 8, 100, 45, False),
    ("Masters", 15, 250, 45, False),
]


def build(log) -> None:
    with transaction.atomic():  # one commit for the whole catalogue: all of it or none
        levels = _levels()
        titles = _titles()
        rewards = _rewards(titles)
        _achievements(rewards)
        rooms = _rooms()
    log(f"Gameplay: {levels} levels, {len(titles)} titles, {len(rewards)} rewards.")
    log(f"Gameplay: {len(rooms)} rooms for {', '.join(variants.names())}.")
    with tasks_in_process():
        played = _bot_history()
        played_by_demo = _demo_player(rewards["welcome-pack"])
    log(f"Gameplay: {played + played_by_demo} new demo matches played and finalized.")


def xp_for_level(number: int) -> int:
    """A rising curve: each level asks for a little more XP than the one before."""
    return round(50 * (number - 1) ** 1.6 / 10) * 10


def _levels() -> int:
    for number in range(1, LEVELS + 1):
        Level.objects.get_or_create(number=number, defaults={"xp_required": xp_for_level(number)})
    return LEVELS


def _titles() -> dict[str, Title]:
    titles = {}
    for code, name, description, level, metric, threshold in TITLES:
        titles[code], _ = Title.objects.get_or_create(
            code=code,
            defaults={
                "name": name,
                "description": description,
                "metric": metric,
                "threshold": threshold,
                # The demo's tournament champion wins it: the admin made it awardable.
                "awardable_by_organisers": code == "founder",
            },
        )
        if level is not None:
            Level.objects.filter(number=level, title__isnull=True).update(title=titles[code])
    return titles


def _rewards(titles: dict[str, Title]) -> dict[str, Reward]:
    rewards = {}
    for code, name, xp, coins, title in REWARDS:
        rewards[code], _ = Reward.objects.get_or_create(
            code=code,
            defaults={"name": name, "xp": xp, "coins": coins, "title": titles.get(title)},
        )
    return rewards


def _achievements(rewards: dict[str, Reward]) -> None:
    for code, name, description, tier, metric, threshold, hidden, reward in ACHIEVEMENTS:
        Achievement.objects.get_or_create(
            code=code,
            defaults={
                "name": name,
                "description": description,
                "tier": tier,
                "metric": metric,
                "threshold": threshold,
                "hidden": hidden,
                "reward": rewards.get(reward),
            },
        )


def _rooms() -> list[Room]:
    """Rooms for every registered variant: open at level 1, locked ones further up."""
    rooms = []
    for name in variants.names():
        variant = variants.get(name)
        label = ROOM_LABELS.get(name, name.title())
        option_names = _option_names(variant)
        for suffix, min_level, fee, turn_seconds, bots_allowed in ROOM_TIERS:
            options = {"target": 50} if suffix == "Quick Play" and "target" in option_names else {}
            if suffix == "Club" and "oklahoma" in option_names:
                options = {"oklahoma": True}
            room, _ = Room.objects.get_or_create(
                name=f"{label} {suffix}",
                defaults={
                    "variant": name,
                    "options": options,
                    "seats": variant.min_players,
                    "min_level": min_level,
                    "entry_fee": fee,
                    "turn_seconds": turn_seconds,
                    "bots_allowed": bots_allowed,
                },
            )
            rooms.append(room)
        if variant.max_players > 2:
            room, _ = Room.objects.get_or_create(
                name=f"{label} Table for {min(4, variant.max_players)}",
                defaults={"variant": name, "seats": min(4, variant.max_players), "min_level": 2},
            )
            rooms.append(room)
    return rooms


def _bot_history() -> int:
    """Round-robin matches between the demo bots, so they have ratings, XP, achievements."""
    bots = [bot for kind, count in BOTS for bot in services.bot_players(kind=kind, count=count)]
    played = 0
    for name in variants.names():
        variant = variants.get(name)
        eligible = [bot for bot in bots if bot.bot_kind in variant.bots]
        pairings = list(combinations(eligible, variant.min_players))
        # Cycling through every pairing spreads the matches over all the bots.
        tables = [pairings[n % len(pairings)] for n in range(BOT_MATCHES_PER_VARIANT)]
        for number, table in enumerate(tables):
            played += _play(
                name, list(table), seed=f"demo:{name}:bots:{number}", target=BOT_MATCH_TARGET
            )
    return played


def _demo_player(welcome: Reward) -> int:
    """The human to log in as: a welcome reward and a few finished matches against bots."""
    user = get_user_model().objects.filter(username=DEMO_USERNAME).first()
    if user is None:
        player = services.player_register(username=DEMO_USERNAME, password=DEMO_PASSWORD)
    else:
        player = services.player_for_user(user)
    services.reward_grant(player_id=player.pk, reward=welcome, reason="Welcome", key="demo:welcome")
    played = 0
    if "gin" in variants.names():
        opponents = services.bot_players(kind="greedy", count=DEMO_PLAYER_MATCHES)
        for number, bot in enumerate(opponents):
            seed = f"demo:gin:{DEMO_USERNAME}:{number}"
            played += _play("gin", [player, bot], seed=seed, target=DEMO_PLAYER_TARGET)
    return played


def _play(variant: str, players: list[Player], *, seed: str, target: int) -> int:
    """Play one match to the end through the services; 0 when the demo already has it.

    Bot turns and finalizing run through the match's own task hooks (eager here); the
    human seats move through match_act, choosing as the engine's expert bot would.
    """
    if Match.objects.filter(seed=seed).exists():
        return 0
    room = (
        Room.objects.filter(variant=variant, min_level=1, entry_fee=0, seats=len(players))
        .order_by("pk")
        .first()
    )
    engine_variant = variants.get(variant)
    options = {"target": target} if "target" in _option_names(engine_variant) else {}
    match = services.match_create(
        variant=variant, options=options, players=players, room=room, seed=seed
    )
    humans = {player.pk: player for player in players if not player.is_bot}
    stand_in = "expert" if "expert" in engine_variant.bots else engine_variant.bots[0]
    while True:
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE:
            break
        seat = Seat.objects.get(match=match, index=match.to_move)
        action = engine_variant.bot_action(games.load(match), seat.index, bot=stand_in)
        services.match_act(
            match_id=match.pk, player=humans[seat.player_id], seq=match.seq, action=action
        )
    if match.finalized_at is None:
        raise RuntimeError(f"demo match {match.pk} ended {match.status} without being finalized")
    return 1


def _option_names(variant) -> set[str]:
    return {option.name for option in variant.options}
