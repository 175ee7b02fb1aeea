"""Players, progression, rooms and matches.

Tables and their constraints only; every write goes through gameplay.services.
"""

import hashlib
import secrets

import orjson
from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from config.text import visible_name
from engine import variants

# The largest balance of coins or XP any account may hold (gameplay.services.coins_book
# refuses a booking past it): far above any honest total, far below the 64-bit columns.
BALANCE_MAX = 10**15


def new_seed() -> str:
    """A server seed: 256 bits from the operating system, chosen by nobody."""
    return secrets.token_hex(32)


def variant_choices() -> list[tuple[str, str]]:
    """Every registered game as (name, title), read from the engine's registry when asked,
    so registering a variant needs no migration; Gin first, the rest by name."""
    found = [variants.get(name) for name in variants.names()]
    found.sort(key=lambda variant: (variant.name != "gin", gettext(variant.title)))
    return [(variant.name, gettext(variant.title)) for variant in found]


class Metric(models.TextChoices):
    """Counters kept per player; achievement and title rules compare one to a threshold."""

    MATCHES_PLAYED = "matches_played", _("Matches played")
    MATCHES_WON = "matches_won", _("Matches won")
    HANDS_WON = "hands_won", _("Hands won")
    HANDS_LOST = "hands_lost", _("Hands lost (stalemates count for everyone)")
    GINS = "gins", _("Gins")
    BIG_GINS = "big_gins", _("Big gins")
    UNDERCUTS = "undercuts", _("Undercuts")
    WIN_STREAK = "win_streak", _("Current win streak")
    BEST_WIN_STREAK = "best_win_streak", _("Best win streak")
    TOURNAMENTS_WON = "tournaments_won", _("Tournaments won")
    LEAGUE_PROMOTIONS = "league_promotions", _("League promotions")
    LEAGUE_TITLES = "league_titles", _("League division titles")
    LEVEL = "level", _("Level reached")


class Title(models.Model):
    """A displayable honour; granted by levels, rewards or its own rule."""

    code = models.SlugField(unique=True)
    name = models.CharField(max_length=80, validators=[visible_name])
    description = models.TextField(blank=True)
    metric = models.CharField(max_length=32, choices=Metric.choices, blank=True)
    threshold = models.PositiveIntegerField(null=True, blank=True)
    awardable_by_organisers = models.BooleanField(
        default=False,
        db_default=False,
        help_text=_("Organisers may offer it as a tournament prize (never a level's)."),
    )

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(metric="", threshold__isnull=True)
                | (~Q(metric="") & Q(threshold__isnull=False)),
                name="title_rule_complete_or_absent",
            )
        ]

    def __str__(self) -> str:
        return self.name


class Reward(models.Model):
    """A bundle of XP, coins and an optional title, granted at most once per reason."""

    code = models.SlugField(unique=True)
    name = models.CharField(max_length=80, validators=[visible_name])
    xp = models.PositiveIntegerField(default=0)
    coins = models.PositiveIntegerField(default=0)
    title = models.ForeignKey(Title, null=True, blank=True, on_delete=models.SET_NULL)
    awardable_by_organisers = models.BooleanField(
        default=False,
        db_default=False,
        help_text=_("Organisers may offer it as a tournament prize."),
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Level(models.Model):
    number = models.PositiveIntegerField(unique=True)
    xp_required = models.PositiveIntegerField(unique=True)
    title = models.ForeignKey(Title, null=True, blank=True, on_delete=models.SET_NULL)

    class Meta:
        ordering = ["number"]
        constraints = [models.CheckConstraint(condition=Q(number__gte=1), name="level_from_one")]

    def __str__(self) -> str:
        return f"Level {self.number} ({self.xp_required} XP)"


class Achievement(models.Model):
    class Tier(models.TextChoices):
        BRONZE = "bronze", _("Bronze")
        SILVER = "silver", _("Silver")
        GOLD = "gold", _("Gold")
        PLATINUM = "platinum", _("Platinum")

    code = models.SlugField(unique=True)
    name = models.CharField(max_length=80, validators=[visible_name])
    description = models.TextField(blank=True)
    hidden = models.BooleanField(
        default=False, help_text="Name and rule stay secret until unlocked."
    )
    tier = models.CharField(max_length=16, choices=Tier.choices, default=Tier.BRONZE)
    metric = models.CharField(max_length=32, choices=Metric.choices)
    threshold = models.PositiveIntegerField()
    reward = models.ForeignKey(Reward, null=True, blank=True, on_delete=models.SET_NULL)

    class Meta:
        ordering = ["metric", "threshold"]
        constraints = [
            models.CheckConstraint(condition=Q(threshold__gte=1), name="achievement_threshold_pos")
        ]

    def __str__(self) -> str:
        return self.name


class Player(models.Model):
    SECRET_FIELDS = ("next_seed",)  # see Match.SECRET_FIELDS

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    display_name = models.CharField(max_length=40)
    is_bot = models.BooleanField(default=False)
    bot_kind = models.CharField(max_length=16, blank=True, help_text="Engine bot for bot players.")
    xp = models.PositiveBigIntegerField(default=0)
    level = models.PositiveIntegerField(default=1)
    coins = models.BigIntegerField(default=0)
    displayed_title = models.ForeignKey(
        Title, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    titles = models.ManyToManyField(Title, through="PlayerTitle", related_name="holders")
    achievements = models.ManyToManyField(
        Achievement, through="PlayerAchievement", related_name="holders"
    )
    client_seed = models.CharField(
        max_length=64,
        blank=True,
        db_default="",
        help_text="Their own client seed; empty: a random one per match.",
    )
    # The server seed of this person's next match, secret; its commitment is shown to them
    # before they send a client seed (engine/README.md). Players from before it draw theirs
    # when first needed (gameplay.services.player_next_seed_commitment).
    next_seed = models.CharField(
        max_length=64, blank=True, editable=False, default=new_seed, db_default=""
    )
    fair_play_mark = models.CharField(
        max_length=200,
        blank=True,
        db_default="",
        help_text="An admin's fair-play mark; nothing automatic.",
    )
    # The language the player chose (a code of settings.LANGUAGES); empty: their
    # browser's. Applied at each login (gameplay.signals.apply_preferences).
    language = models.CharField(max_length=16, blank=True, db_default="", default="")
    # The player's IANA time zone ("Asia/Kolkata"), first from their browser; empty: not
    # known yet. Times on pages read in it (config.preferences.PreferencesMiddleware).
    time_zone = models.CharField(max_length=64, blank=True, db_default="", default="")
    # What the username looks like (gameplay.usernames.skeleton): a new name with a skeleton
    # a player already has is refused as confusable. Empty: not computed (an old row).
    name_skeleton = models.CharField(max_length=600, blank=True, db_default="", default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["display_name"]
        indexes = [models.Index(fields=["name_skeleton"], name="player_name_skeleton")]
        constraints = [
            # The ledger's last line of defence: no write path can overdraw a balance.
            models.CheckConstraint(condition=Q(coins__gte=0), name="player_coins_not_negative"),
            models.CheckConstraint(
                condition=Q(is_bot=False, bot_kind="") | Q(is_bot=True) & ~Q(bot_kind=""),
                name="player_bot_kind_iff_bot",
            ),
        ]

    def __str__(self) -> str:
        return self.display_name


class ApiToken(models.Model):
    """A key for the API and the sockets (apps, bots): a person may hold several, each
    named, listed and revocable, each expiring. Only the key's SHA-256 is stored (the key
    is shown once, when made); it lives as long as the password it was made under
    (`password_stamp`), as Django's sessions do, so a password change or reset revokes it."""

    # The key's hash and the password's stamp: no admin lookup may test guesses on them.
    SECRET_FIELDS = ("digest", "password_stamp")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    digest = models.CharField(max_length=64, unique=True, editable=False)
    prefix = models.CharField(max_length=8, editable=False, help_text="The key's first characters.")
    name = models.CharField(max_length=60, blank=True)
    password_stamp = models.CharField(max_length=64, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True, help_text="Empty: never.")

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.name})" if self.name else f"{self.prefix}…"

    @staticmethod
    def digest_of(key: str) -> str:
        # The key is 32 random bytes: a plain hash is enough, no slow password hash needed.
        return hashlib.sha256(key.encode()).hexdigest()

    @staticmethod
    def stamp_of(user) -> str:
        """What a token remembers of the password it was made under."""
        return hashlib.sha256(user.password.encode()).hexdigest()


class CoinEntry(models.Model):
    """One credit or debit; balances change only by appending a row (refunds too)."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="coin_entries")
    amount = models.BigIntegerField()
    balance_after = models.BigIntegerField()
    reason = models.CharField(max_length=120)
    key = models.CharField(
        max_length=120, help_text="Idempotency key: the same key is never booked twice."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "coin entries"
        constraints = [
            models.UniqueConstraint(fields=["player", "key"], name="coin_entry_once_per_key"),
            models.CheckConstraint(condition=~Q(amount=0), name="coin_entry_nonzero"),
            models.CheckConstraint(
                condition=Q(balance_after__gte=0), name="coin_balance_after_pos"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.amount:+} coins: {self.reason}"


class XpEntry(models.Model):
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="xp_entries")
    amount = models.PositiveBigIntegerField()
    reason = models.CharField(max_length=120)
    key = models.CharField(max_length=120)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "XP entries"
        constraints = [
            models.UniqueConstraint(fields=["player", "key"], name="xp_entry_once_per_key")
        ]

    def __str__(self) -> str:
        return f"+{self.amount} XP: {self.reason}"


class HouseAccount(models.Model):
    """A balance of coins the house holds: each tournament's prize pool, its entry fees
    held until the prizes are paid (code `tournament-<id>-pool`), and the house's own
    (`house`): the rake and what no winner could take. Sponsor budgets are coins the
    house issues into a pool, so `house` can go below zero.

    Locks: players' rows first, then a pool, then `house`, in every transaction."""

    HOUSE = "house"

    code = models.SlugField(unique=True)
    coins = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.code}: {self.coins} coins"


class HouseEntry(models.Model):
    """One booking on a house account, like `CoinEntry` for a player."""

    account = models.ForeignKey(HouseAccount, on_delete=models.PROTECT, related_name="entries")
    amount = models.BigIntegerField()
    balance_after = models.BigIntegerField()
    reason = models.CharField(max_length=120)
    key = models.CharField(max_length=120)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "house entries"
        constraints = [
            models.UniqueConstraint(fields=["account", "key"], name="house_entry_once_per_key"),
            models.CheckConstraint(condition=~Q(amount=0), name="house_entry_nonzero"),
        ]

    def __str__(self) -> str:
        return f"{self.amount:+} coins: {self.reason}"


class PlayerTitle(models.Model):
    player = models.ForeignKey(Player, on_delete=models.CASCADE)
    title = models.ForeignKey(Title, on_delete=models.CASCADE)
    reason = models.CharField(max_length=120, blank=True)
    granted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "title"], name="player_title_once")
        ]

    def __str__(self) -> str:
        return f"{self.player_id} holds {self.title_id}"


class PlayerAchievement(models.Model):
    player = models.ForeignKey(Player, on_delete=models.CASCADE)
    achievement = models.ForeignKey(Achievement, on_delete=models.CASCADE)
    unlocked_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["player", "achievement"], name="player_achievement_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.player_id} unlocked {self.achievement_id}"


class RewardGrant(models.Model):
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="reward_grants")
    reward = models.ForeignKey(Reward, on_delete=models.PROTECT)
    reason = models.CharField(max_length=120)
    key = models.CharField(max_length=120)
    granted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["player", "key"], name="reward_grant_once_per_key")
        ]

    def __str__(self) -> str:
        return f"{self.reward_id} for {self.player_id}: {self.reason}"


class PlayerMetric(models.Model):
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="metrics")
    metric = models.CharField(max_length=32, choices=Metric.choices)
    value = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "metric"], name="player_metric_once")
        ]

    def __str__(self) -> str:
        return f"{self.metric} = {self.value}"


class Rating(models.Model):
    """OpenSkill (Plackett-Luce) rating of one player in one variant."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="ratings")
    variant = models.CharField(max_length=16, choices=variant_choices)
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField(db_index=True, help_text="mu - 3 sigma: the displayed rating.")
    rated_matches = models.PositiveIntegerField(default=0)
    last_rated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "variant"], name="rating_per_variant")
        ]
        indexes = [models.Index(fields=["variant", "-ordinal"], name="rating_leaderboard")]

    def __str__(self) -> str:
        return f"{self.variant} {self.ordinal:.1f}"

    @property
    def provisional(self) -> bool:
        return self.sigma > settings.KNOCK_RATING_PROVISIONAL_SIGMA


class RatingChange(models.Model):
    """History of a rating, one row per rated match, for the profile chart."""

    rating = models.ForeignKey(Rating, on_delete=models.CASCADE, related_name="history")
    match = models.ForeignKey("Match", on_delete=models.CASCADE, related_name="rating_changes")
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["rating", "match"], name="rating_change_once")
        ]

    def __str__(self) -> str:
        return f"{self.ordinal:.1f} after match {self.match_id}"


class Room(models.Model):
    name = models.CharField(max_length=80, unique=True, validators=[visible_name])
    variant = models.CharField(max_length=16, choices=variant_choices)
    options = models.JSONField(default=dict, blank=True)
    seats = models.PositiveSmallIntegerField(default=2)
    min_level = models.PositiveIntegerField(default=1)
    entry_fee = models.PositiveIntegerField(default=0)
    turn_seconds = models.PositiveIntegerField(default=60)
    max_timeouts = models.PositiveSmallIntegerField(
        default=3, help_text="Timeouts after which a player forfeits the match."
    )
    bots_allowed = models.BooleanField(default=True)
    bot_pause_ms = models.PositiveIntegerField(
        default=1000,
        db_default=1000,
        help_text="Milliseconds a bot waits before each turn, so people see it play.",
    )
    spectators_allowed = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Anyone signed in may watch this room's tables (no hands).",
    )
    claim_seconds = models.PositiveSmallIntegerField(
        default=3,
        db_default=3,
        help_text="Seconds a discard stays open to claims (Dummy's cut-ins).",
    )
    max_tables_per_player = models.PositiveSmallIntegerField(
        default=1, db_default=1, help_text=_("Tables one player may sit at in this room at once.")
    )
    active = models.BooleanField(default=True)

    class Meta:
        ordering = ["min_level", "name"]
        constraints = [
            models.CheckConstraint(condition=Q(seats__gte=2, seats__lte=6), name="room_seats_2_6"),
            models.CheckConstraint(condition=Q(turn_seconds__gte=5), name="room_turn_seconds_min"),
            models.CheckConstraint(condition=Q(max_timeouts__gte=1), name="room_max_timeouts_min"),
            models.CheckConstraint(
                condition=Q(max_tables_per_player__gte=1), name="room_max_tables_min"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class JSONTextField(models.TextField):
    """JSON kept as compact text, for a value only ever written and read whole.

    PostgreSQL's jsonb parses every write and renders every read; a bot-played gin
    match's 15 kB move log cost about 1 ms more per match that way than as text. orjson,
    not json: encoding and decoding the logs took a tenth of a tournament worker's CPU.
    """

    def from_db_value(self, value, expression, connection):
        return value if value is None else orjson.loads(value)

    def to_python(self, value):
        return orjson.loads(value) if isinstance(value, str) else value

    def get_prep_value(self, value):
        return value if value is None else orjson.dumps(value).decode()

    def value_to_string(self, obj) -> str:
        return self.get_prep_value(self.value_from_object(obj))


class Match(models.Model):
    """One match: its seed, its move log and a cached engine state.

    The log is one JSON column, not a row per move: a bot run appends hundreds of moves
    in one write, and finalize reads the whole log back in one read to replay it.
    """

    # Secret until the match ends (docs/architecture.md section 9); the admin's guard
    # (config/admin_guard.py) answers no question about them, after the end either.
    SECRET_FIELDS = ("seed", "seat_seeds", "state", "log")

    class Status(models.TextChoices):
        ACTIVE = "active", _("Active")
        FINISHED = "finished", _("Finished")
        DISPUTED = "disputed", _("Disputed")
        # Called off before its first move (`gameplay.services.match_abort`): no result,
        # no rating, no XP, the entry fees refunded.
        ABORTED = "aborted", _("Aborted")

    room = models.ForeignKey(Room, null=True, blank=True, on_delete=models.SET_NULL)
    variant = models.CharField(max_length=16, choices=variant_choices)
    options = models.JSONField(default=dict)
    players = models.PositiveSmallIntegerField()
    seed = models.CharField(max_length=128, help_text="Server seed, secret until the match ends.")
    commitment = models.CharField(max_length=64, help_text="SHA-256 of the seed, public.")
    seat_seeds = models.JSONField(
        default=list,
        db_default=[],
        blank=True,
        editable=False,
        help_text="The people's seeds the server seed is made of; secret until the end.",
    )
    client_seeds = models.JSONField(
        default=list,
        db_default=[],
        blank=True,
        # Every deal comes from engine.fair.deal_seed(seed, client_seeds).
        help_text="One client seed per seat (null for a bot), fixed at creation.",
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    seq = models.PositiveIntegerField(default=0, help_text="Number of accepted actions.")
    to_move = models.PositiveSmallIntegerField(null=True, blank=True)
    turn_deadline = models.DateTimeField(null=True, blank=True)
    state = models.BinaryField(help_text="Engine state after the last action (a cache).")
    result = models.JSONField(null=True, blank=True)
    log = JSONTextField(
        default=list,
        db_default=[],
        blank=True,
        help_text=(
            "The append-only move log: one {seat, action} per accepted action, in order "
            '(an automatic move for a timed-out player also has "auto": true). Replaying '
            "it from the seed reproduces the match."
        ),
    )
    entry_fee = models.PositiveIntegerField(default=0)
    turn_seconds = models.PositiveIntegerField(default=60)
    max_timeouts = models.PositiveSmallIntegerField(default=3)
    bot_pause_ms = models.PositiveIntegerField(
        default=0, db_default=0, help_text="Copied from the room."
    )
    spectators_allowed = models.BooleanField(
        default=False,
        db_default=False,
        help_text=(
            "Anyone signed in may watch this table (no hands), whatever its room says; set by "
            "whoever creates the match (a tournament that allows spectators)."
        ),
    )
    claim_seconds = models.PositiveSmallIntegerField(
        default=3, db_default=3, help_text="Copied from the room."
    )
    claim_window = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Move number at which the open claim window (cut-ins) opened.",
    )
    claim_deadline = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Until then the mover may not draw from the stock: others may claim.",
    )
    bot_claims_window = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="The last claim window whose bots were asked (each window once).",
    )
    hand_break_until = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Resting between hands: when the next hand starts at the latest.",
    )
    hand_break_ready = models.JSONField(
        default=list,
        db_default=[],
        blank=True,
        help_text="The seats that pressed Next hand during the current rest.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    finalized_at = models.DateTimeField(null=True, blank=True)
    fair_play_at = models.DateTimeField(
        null=True, blank=True, help_text="When its fair-play tallies were counted (once)."
    )
    dispute_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "matches"
        indexes = [models.Index(fields=["status", "turn_deadline"], name="match_deadline")]

    def __str__(self) -> str:
        return f"Match {self.pk} ({self.variant})"


class Seat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats")
    timeouts = models.PositiveSmallIntegerField(default=0)
    last_timeout = models.JSONField(
        default=dict,
        db_default={},
        blank=True,
        help_text="What the table played when the time last ran out: {seq, action}.",
    )
    score = models.IntegerField(null=True, blank=True)
    placement = models.PositiveSmallIntegerField(null=True, blank=True)
    forfeited = models.BooleanField(default=False)

    class Meta:
        ordering = ["match", "index"]
        constraints = [
            models.UniqueConstraint(fields=["match", "index"], name="seat_index_once"),
            models.UniqueConstraint(fields=["match", "player"], name="seat_player_once"),
        ]

    def __str__(self) -> str:
        return f"seat {self.index} of match {self.match_id}"


class QueueEntry(models.Model):
    """A player waiting in a room for human opponents of similar rating."""

    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="queue_entry")
    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="queue")
    ordinal = models.FloatField()
    client_seed = models.CharField(
        max_length=64, blank=True, db_default="", help_text="Sent with the play request."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]
        verbose_name_plural = "queue entries"

    def __str__(self) -> str:
        return f"{self.player_id} waiting in room {self.room_id}"


class LoginTrace(models.Model):
    """Where a player signs in from: the address and a fingerprint of the client (a hash
    of its user agent). The fair-play signal looks for accounts sharing one at a table."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="login_traces")
    address = models.GenericIPAddressField(null=True, blank=True)
    fingerprint = models.CharField(max_length=64, blank=True)
    last_seen = models.DateTimeField()

    class Meta:
        ordering = ["-last_seen"]
        constraints = [
            models.UniqueConstraint(
                fields=["player", "address", "fingerprint"],
                name="login_trace_once",
                nulls_distinct=False,
            )
        ]

    def __str__(self) -> str:
        return f"{self.player_id} from {self.address}"


class FairPlayTally(models.Model):
    """One player's running count of decisions that matched the expert bot's choice
    (decisions with more than one legal action, in variants with an expert bot)."""

    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="fair_play")
    decisions = models.PositiveIntegerField(default=0)
    expert_agreements = models.PositiveIntegerField(default=0)
    recent_matches = models.JSONField(default=list, blank=True)

    def __str__(self) -> str:
        return f"{self.expert_agreements}/{self.decisions} for {self.player_id}"


class FairPlayPair(models.Model):
    """Two people who met at tables: how often, who won, which way coins went, and at how
    many of those tables they shared an address or client fingerprint."""

    low = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    high = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    meetings = models.PositiveIntegerField(default=0)
    low_wins = models.PositiveIntegerField(default=0)
    high_wins = models.PositiveIntegerField(default=0)
    coins_to_low = models.PositiveIntegerField(default=0)
    coins_to_high = models.PositiveIntegerField(default=0)
    shared_tables = models.PositiveIntegerField(default=0)
    recent_matches = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["low", "high"], name="fair_play_pair_once"),
            models.CheckConstraint(condition=Q(low__lt=F("high")), name="fair_play_pair_order"),
        ]

    def __str__(self) -> str:
        return f"{self.low_id} and {self.high_id}"


class FairPlaySignal(models.Model):
    """A player (or pair) worth a look, with the evidence; nothing acts on it by itself."""

    class Kind(models.TextChoices):
        EXPERT_AGREEMENT = "expert_agreement", _("Agrees with the expert bot")
        CHIP_DUMPING = "chip_dumping", _("Chip dumping")
        SHARED_CLIENT = "shared_client", _("Shared address or client at a table")

    kind = models.CharField(max_length=20, choices=Kind.choices)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    other = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    evidence = models.JSONField(default=dict)
    matches = models.JSONField(default=list, help_text="The latest matches behind it.")
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["-updated_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "player", "other"],
                name="fair_play_signal_once",
                nulls_distinct=False,
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.player_id}"
