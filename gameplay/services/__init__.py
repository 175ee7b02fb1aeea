"""Every write in gameplay: one function per use case, keyword-only, in modules named by
use case. Callers import this package (`from gameplay import services`); `__all__` is
its API.

Exactly-once rules: each award carries an idempotency key that a unique constraint
guards, and state that advances (a match, a balance) is locked with select_for_update
and checked again after the lock.

The modules import each other one way only (none of them imports this package or
gameplay.tasks; work for a worker is announced by task name through config.jobs):

    common       <- progression, matches, matchmaking
    accounts     <- matchmaking
    progression  <- accounts, matches, finalize
    ratings      <- matchmaking, finalize
    matches      <- matchmaking
"""

from config.errors import NotAllowed
from engine import variants
from gameplay import games
from gameplay.services.accounts import (
    API_TOKENS_MAX,
    api_token_create,
    api_token_revoke,
    api_token_user,
    bot_players,
    player_for_user,
    player_next_seed_commitment,
    player_register,
    player_set_client_seed,
    player_set_language,
    player_set_time_zone,
    refuse_look_alike,
    user_set_email,
)
from gameplay.services.common import BalanceOverflow, IllegalMove, InsufficientCoins
from gameplay.services.fairplay import fair_play_record_many, login_trace_record, player_mark
from gameplay.services.finalize import (
    match_finalize,
    match_finalize_many,
    match_verify,
    pay_or_keep,
)
from gameplay.services.matches import (
    NewMatch,
    match_abort,
    match_act,
    match_create,
    match_create_many,
    match_forfeit,
    match_hand_break_end,
    match_next_hand,
    match_play_bots,
    match_play_bots_many,
    match_resign,
    match_timeout,
)
from gameplay.services.matchmaking import (
    queue_leave,
    queue_pair,
    room_check_access,
    room_play,
    room_table_full,
)
from gameplay.services.progression import (
    XpGrant,
    coins_book,
    house_book,
    levels_recompute,
    metric_set,
    metrics_add,
    metrics_of,
    metrics_of_many,
    metrics_write,
    metrics_write_many,
    progress_evaluate,
    progress_evaluate_many,
    reward_grant,
    title_display,
    title_grant,
    unless_full,
    xp_grant,
    xp_grant_many,
)
from gameplay.services.ratings import RATING_MODEL, rating_ordinal, ratings_update

# NotAllowed, games and variants are not services: callers (the tests) have reached them
# through this package since it was one module.
__all__ = [
    "API_TOKENS_MAX",
    "RATING_MODEL",
    "BalanceOverflow",
    "IllegalMove",
    "InsufficientCoins",
    "NewMatch",
    "NotAllowed",
    "XpGrant",
    "api_token_create",
    "api_token_revoke",
    "api_token_user",
    "bot_players",
    "coins_book",
    "fair_play_record_many",
    "games",
    "house_book",
    "levels_recompute",
    "login_trace_record",
    "match_abort",
    "match_act",
    "match_create",
    "match_create_many",
    "match_finalize",
    "match_finalize_many",
    "match_forfeit",
    "match_hand_break_end",
    "match_next_hand",
    "match_play_bots",
    "match_play_bots_many",
    "match_resign",
    "match_timeout",
    "match_verify",
    "metric_set",
    "metrics_add",
    "metrics_of",
    "metrics_of_many",
    "metrics_write",
    "metrics_write_many",
    "pay_or_keep",
    "player_for_user",
    "player_mark",
    "player_next_seed_commitment",
    "player_register",
    "player_set_client_seed",
    "player_set_language",
    "player_set_time_zone",
    "progress_evaluate",
    "progress_evaluate_many",
    "queue_leave",
    "queue_pair",
    "rating_ordinal",
    "ratings_update",
    "refuse_look_alike",
    "reward_grant",
    "room_check_access",
    "room_play",
    "room_table_full",
    "title_display",
    "title_grant",
    "unless_full",
    "user_set_email",
    "variants",
    "xp_grant",
    "xp_grant_many",
]
