"""Knock-out tournaments: entries, the drawn bracket (rounds, tables, seats), matches, prizes.

Tables and constraints only; every write goes through tournaments.services. The shape of
the bracket (who feeds whom) is recomputed from tournaments.bracket, a pure function of
(entries, table size, advance, third place); the rows store what play decided.
"""

import secrets

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from config.text import visible_name
from gameplay.models import Match, Player, Reward, Title, variant_choices

# Swiss tie-breaks as organisers read them (keys of tournaments.formats.tiebreaks).
TIEBREAK_CHOICES = [
    ("buchholz", _("Buchholz")),
    ("median_buchholz", _("Median Buchholz")),
    ("sonneborn_berger", _("Sonneborn-Berger")),
    ("head_to_head", _("Head-to-head")),
    ("rating", _("Rating")),
    ("wins", _("Wins")),
]


class Tournament(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        REGISTRATION = "registration", _("Registration open")
        CHECK_IN = "check_in", _("Check-in open")
        READY = "ready", _("Check-in closed")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")
        CANCELLED = "cancelled", _("Cancelled")

    class Format(models.TextChoices):
        SINGLE = "single", _("Single elimination")
        DOUBLE = "double", _("Double elimination")
        SWISS = "swiss", _("Swiss")
        TWO_STAGE = "two_stage", _("Two-stage (groups, then a bracket)")

    class GrandFinal(models.TextChoices):
        RESET = "reset", _("With a reset (a second match if the losers' champion wins)")
        SIMPLE = "simple", _("One match")

    class SecondStage(models.TextChoices):
        SINGLE = "single", _("Single elimination")
        DOUBLE = "double", _("Double elimination")

    class GroupStage(models.TextChoices):
        ROUND_ROBIN = "round_robin", _("Round-robin groups")
        SWISS = "swiss", _("Swiss groups")

    class Seeding(models.TextChoices):
        RATING = "rating", _("By rating")
        RANDOM = "random", _("Random (committed draw)")
        MANUAL = "manual", _("Manual")

    SECRET_FIELDS = ("seed",)  # the draw seed; see gameplay.models.Match.SECRET_FIELDS

    name = models.CharField(max_length=120, validators=[visible_name])
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="organised_tournaments"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    variant = models.CharField(max_length=16, choices=variant_choices)
    options = models.JSONField(default=dict, blank=True)
    format = models.CharField(
        max_length=16, choices=Format.choices, default=Format.SINGLE, db_default=Format.SINGLE
    )
    grand_final = models.CharField(
        max_length=8,
        choices=GrandFinal.choices,
        default=GrandFinal.RESET,
        db_default=GrandFinal.RESET,
        help_text="Double elimination: the grand final's form.",
    )
    swiss_rounds = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Swiss: rounds to play; empty means from the field size."
    )
    tiebreaks = models.JSONField(
        default=list,
        db_default=[],
        blank=True,
        help_text="Swiss: tie-breaks in order (tiebreaks.TIEBREAKS).",
    )
    place_points = models.JSONField(
        default=list,
        db_default=[],
        blank=True,
        help_text="Swiss at tables: points by finishing place, e.g. [3, 1, 0, 0].",
    )
    groups = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Two-stage: round-robin groups."
    )
    group_advance = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Two-stage: entries of each group going to the bracket."
    )
    group_stage = models.CharField(
        max_length=12,
        choices=GroupStage.choices,
        default=GroupStage.ROUND_ROBIN,
        db_default=GroupStage.ROUND_ROBIN,
        help_text="Two-stage: how each group plays (Swiss: `swiss_rounds` rounds, paired in "
        "play within the group).",
    )
    second_stage = models.CharField(
        max_length=8,
        choices=SecondStage.choices,
        default=SecondStage.SINGLE,
        db_default=SecondStage.SINGLE,
        help_text="Two-stage: the bracket the groups' qualifiers play "
        "(double elimination uses the grand final's form).",
    )
    table_size = models.PositiveSmallIntegerField(default=2)
    advance = models.PositiveSmallIntegerField(default=1, help_text="Players going through.")
    best_of = models.PositiveSmallIntegerField(default=1, help_text="Matches per table.")
    final_best_of = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Matches at the final; empty means as every table."
    )
    seeding = models.CharField(max_length=8, choices=Seeding.choices, default=Seeding.RATING)
    seed = models.CharField(
        max_length=64,
        blank=True,
        # Committed when registration closes, revealed at the start; matches have their own.
        help_text="The draw seed (random seeding): secret until the start.",
    )
    draw_commitment = models.CharField(
        max_length=64,
        blank=True,
        db_default="",
        help_text="SHA-256 of the draw seed, public from registration's close.",
    )
    third_place = models.BooleanField(default=False)
    registration_opens_at = models.DateTimeField(null=True, blank=True)
    registration_closes_at = models.DateTimeField(null=True, blank=True)
    check_in_opens_at = models.DateTimeField(null=True, blank=True)
    check_in_closes_at = models.DateTimeField(null=True, blank=True)
    starts_at = models.DateTimeField(null=True, blank=True)
    max_entries = models.PositiveIntegerField(null=True, blank=True)
    min_entries = models.PositiveIntegerField(
        default=2,
        db_default=2,
        help_text=_("Fewest entries that can play at the start; fewer cancels and refunds."),
    )
    min_level = models.PositiveIntegerField(default=1)
    entry_fee = models.PositiveIntegerField(default=0)
    sponsor_coins = models.PositiveBigIntegerField(
        default=0,
        db_default=0,
        help_text=_("Coins the house adds to the prize pool; only admins grant them."),
    )
    organiser_may_play = models.BooleanField(
        default=False,
        db_default=False,
        help_text=_("An admin lets the organiser enter this tournament."),
    )
    show_up_seconds = models.PositiveIntegerField(
        default=300, help_text="Time a player has to take their seat; 0 seats everyone at once."
    )
    turn_seconds = models.PositiveIntegerField(default=60)
    spectators_allowed = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Anyone signed in may watch this tournament's tables live (never the hands).",
    )
    # Sites that may show the embeddable bracket in a frame (CSP frame-ancestors), as
    # origins: "https://club.example". Empty: none may.
    embed_origins = models.JSONField(default=list, db_default=[], blank=True)
    # Who may enter (tournaments.services.registration, "Entry conditions"): invite-only
    # events admit the invited and whoever brings the code; a rating band in the ratings
    # people see (1500 for a newcomer) and a number of rated matches, in this game.
    invite_only = models.BooleanField(default=False, db_default=False)
    invite_code = models.CharField(max_length=16, blank=True, default="", db_default="")
    invited = models.ManyToManyField(Player, blank=True, related_name="invitations")
    min_rating = models.PositiveIntegerField(null=True, blank=True)
    max_rating = models.PositiveIntegerField(null=True, blank=True)
    min_rated_matches = models.PositiveIntegerField(default=0, db_default=0)
    # People who run the event with its organiser (every organiser action but this list).
    co_organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="co_organised_tournaments"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    cancel_reason = models.CharField(
        max_length=16,
        blank=True,
        db_default="",
        help_text="Why it was cancelled: empty by its organiser, too_few_entries by the clock.",
    )
    entries_count = models.PositiveIntegerField(
        default=0, help_text="Entries in the draw, fixed when the bracket is drawn."
    )

    class Meta:
        ordering = ["-starts_at", "-id"]
        permissions = [("organise_tournament", "Can create and run tournaments")]
        indexes = [models.Index(fields=["status", "starts_at"], name="tournament_due")]
        constraints = [
            models.CheckConstraint(
                condition=Q(table_size__gte=2, table_size__lte=6), name="tournament_table_2_6"
            ),
            models.CheckConstraint(
                condition=Q(advance__gte=1, advance__lt=F("table_size")),
                name="tournament_advance_below_table",
            ),
            models.CheckConstraint(
                condition=Q(best_of__gte=1) & Q(best_of__lte=9), name="tournament_best_of_1_9"
            ),
            models.CheckConstraint(
                condition=Q(final_best_of__isnull=True)
                | Q(final_best_of__gte=1, final_best_of__lte=9),
                name="tournament_final_best_of_1_9",
            ),
            models.CheckConstraint(
                condition=Q(third_place=False) | Q(table_size=2),
                name="tournament_third_place_head_to_head",
            ),
            models.CheckConstraint(
                condition=Q(max_entries__isnull=True) | Q(max_entries__gte=2),
                name="tournament_max_entries_2",
            ),
            models.CheckConstraint(
                condition=Q(min_entries__gte=2)
                & (Q(max_entries__isnull=True) | Q(min_entries__lte=F("max_entries"))),
                name="tournament_min_entries_2_to_max",
            ),
            models.CheckConstraint(
                condition=~Q(format="double") | Q(table_size=2, third_place=False),
                name="tournament_double_head_to_head",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def draw_revealed(self) -> bool:
        """The draw seed is public once the bracket is drawn (committed before)."""
        return self.started_at is not None and self.status in (
            self.Status.RUNNING,
            self.Status.FINISHED,
        )


class Prize(models.Model):
    """What one placement wins; entries sharing a placement each get it."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="prizes")
    placement = models.PositiveSmallIntegerField()
    coins = models.PositiveIntegerField(default=0)
    xp = models.PositiveIntegerField(default=0)
    title = models.ForeignKey(Title, null=True, blank=True, on_delete=models.PROTECT)
    reward = models.ForeignKey(Reward, null=True, blank=True, on_delete=models.PROTECT)

    class Meta:
        ordering = ["tournament", "placement"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "placement"], name="prize_per_place"),
            models.CheckConstraint(condition=Q(placement__gte=1), name="prize_placement_pos"),
        ]

    def __str__(self) -> str:
        return f"Prize for place {self.placement}"


class Entry(models.Model):
    class Status(models.TextChoices):
        REGISTERED = "registered", _("Registered")
        WAITLISTED = "waitlisted", _("Waiting list")
        CHECKED_IN = "checked_in", _("Checked in")
        PLAYING = "playing", _("Playing")
        WITHDRAWN = "withdrawn", _("Withdrawn")
        DROPPED = "dropped", _("Dropped (no check-in)")
        DISQUALIFIED = "disqualified", _("Disqualified")
        ELIMINATED = "eliminated", _("Eliminated")
        CHAMPION = "champion", _("Champion")

    # Unique (tournament, player) serves lookups by tournament; one index less to write
    # when the draw updates every entry.
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="entries", db_index=False
    )
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="entries")
    status = models.CharField(max_length=16, choices=Status.choices)
    registered_at = models.DateTimeField(auto_now_add=True)
    checked_in_at = models.DateTimeField(null=True, blank=True)
    manual_seed = models.PositiveIntegerField(
        null=True, blank=True, help_text="Organiser's seed for manual seeding (1 is the best)."
    )
    seed = models.PositiveIntegerField(null=True, blank=True, help_text="Seed in the draw.")
    registrations = models.PositiveSmallIntegerField(
        default=1, help_text="Times registered; keys each fee and refund in the ledger."
    )
    fee_paid = models.PositiveIntegerField(default=0)
    out_round = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="Last round played (double elimination: the stage it went out at).",
    )
    placement = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "placement", "seed", "registered_at", "id"]
        verbose_name_plural = "entries"
        constraints = [
            models.UniqueConstraint(fields=["tournament", "player"], name="entry_once"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.tournament_id}"


class Round(models.Model):
    """A round, numbered across the event; in double elimination each belongs to a side."""

    class Side(models.TextChoices):
        MAIN = "", _("Main bracket")
        WINNERS = "W", _("Winners' bracket")
        LOSERS = "L", _("Losers' bracket")
        FINAL = "F", _("Grand final")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=40)
    best_of = models.PositiveSmallIntegerField()
    side = models.CharField(
        max_length=1, choices=Side.choices, default=Side.MAIN, db_default=Side.MAIN, blank=True
    )
    side_round = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="The round's number within its side."
    )

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="round_once"),
        ]

    def __str__(self) -> str:
        return self.name


class Table(models.Model):
    """One bracket table, at its bracket ref (round, position)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting for earlier tables")
        WAITING = "waiting", _("Waiting for players")
        PLAYING = "playing", _("Playing")
        DONE = "done", _("Done")

    # No single-column FK indexes: (tournament, ...) indexes below lead with the tournament,
    # and a 65,536-entry draw writes every index once per table.
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="tables", db_index=False
    )
    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="tables", db_index=False
    )
    round_number = models.PositiveSmallIntegerField()
    position = models.PositiveIntegerField()
    third_place = models.BooleanField(default=False)
    capacity = models.PositiveSmallIntegerField()
    feeders_total = models.PositiveIntegerField(default=0)
    feeders_done = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    walkover = models.BooleanField(default=False, help_text="Decided without a match.")
    deadline = models.DateTimeField(null=True, blank=True, help_text="Players must show by this.")
    games_played = models.PositiveSmallIntegerField(default=0)
    replays = models.PositiveSmallIntegerField(
        db_default=0, help_text="Disputed matches set aside and played again."
    )
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "round_number", "position"]
        # Only waiting tables are looked up by status (deadlines due, tables ready to
        # start), so these are partial: the draw's other tables never enter them.
        indexes = [
            models.Index(fields=["deadline"], name="table_deadline", condition=Q(status="waiting")),
            models.Index(
                fields=["tournament"], name="table_waiting", condition=Q(status="waiting")
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "round_number", "position"], name="table_ref_once"
            ),
            models.CheckConstraint(
                condition=Q(feeders_done__lte=F("feeders_total")), name="table_feeders_le_total"
            ),
        ]

    def __str__(self) -> str:
        return f"table {self.round_number}.{self.position + 1} of {self.tournament_id}"


class TableSeat(models.Model):
    """An entry at a table: its seat, whether it showed, and its series totals there."""

    # Keys without database constraints, as for Table (the draw's cost); (table, index) is
    # unique, and that index serves lookups by table.
    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="seats", db_index=False, db_constraint=False
    )
    index = models.PositiveSmallIntegerField()
    entry = models.ForeignKey(
        Entry, on_delete=models.CASCADE, related_name="seats", db_constraint=False
    )
    seed = models.PositiveIntegerField()
    present = models.BooleanField(default=False)
    client_seed = models.CharField(
        max_length=64,
        blank=True,
        default="",
        db_default="",  # the draw COPYs seats without it
        help_text="Sent when the player took the seat; empty: none.",
    )
    forfeited = models.BooleanField(default=False, help_text="No-show, withdrew or disqualified.")
    wins = models.PositiveSmallIntegerField(default=0)
    points = models.IntegerField(default=0, help_text="Match scores summed over the series.")
    placement_sum = models.PositiveIntegerField(default=0)
    finish = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Finishing position at the table; empty if forfeited."
    )

    class Meta:
        ordering = ["table", "index"]
        constraints = [
            models.UniqueConstraint(fields=["table", "index"], name="table_seat_once"),
            models.UniqueConstraint(fields=["table", "entry"], name="table_entry_once"),
        ]

    def __str__(self) -> str:
        return f"seat {self.index} of {self.table_id}"


class TableMatch(models.Model):
    """A gameplay match played at a table; `number` counts games of a best-of-N series."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="matches")
    match = models.OneToOneField(Match, on_delete=models.PROTECT, related_name="tournament_table")
    number = models.PositiveSmallIntegerField()
    recorded = models.BooleanField(
        default=False,
        help_text="Settled: its result counted, or (disputed) set aside and replayed.",
    )

    class Meta:
        ordering = ["table", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="table_match_number_once")
        ]

    def __str__(self) -> str:
        return f"game {self.number} at {self.table_id}"


def new_webhook_secret() -> str:
    """The key a webhook's deliveries are signed with: 256 bits, shown to the organiser."""
    return secrets.token_hex(32)


class Webhook(models.Model):
    """An endpoint of the organiser's told about the tournament's events, each delivery
    signed with its secret and retried through the outbox (tournaments.webhooks)."""

    class Event(models.TextChoices):
        ENTRY_REGISTERED = "entry.registered", _("A player registered")
        ENTRY_CHECKED_IN = "entry.checked_in", _("A player checked in")
        ROUND_STARTED = "round.started", _("A round started")
        MATCH_FINISHED = "match.finished", _("A match finished")
        TOURNAMENT_FINISHED = "tournament.finished", _("The tournament finished")

    SECRET_FIELDS = ("secret",)  # the organiser's own page shows it; staff never do

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=500)
    secret = models.CharField(max_length=64, default=new_webhook_secret)
    # The events it is sent; empty: every event.
    events = models.JSONField(default=list, blank=True)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]

    def __str__(self) -> str:
        return self.url

    def wants(self, event: str) -> bool:
        return self.active and (not self.events or event in self.events)


class WebhookDelivery(models.Model):
    """One event for one webhook: written with the change it reports, sent at least once
    (a receiver dedupes by its id, sent as X-Knock-Delivery), and logged attempt by attempt."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        DELIVERED = "delivered", _("Delivered")
        FAILED = "failed", _("Failed")

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=32, choices=Webhook.Event.choices)
    # What the event is about, once per webhook (e.g. "match:812"): a change reported twice
    # (a task run twice) makes one delivery.
    key = models.CharField(max_length=80)
    payload = models.JSONField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-pk"]
        verbose_name_plural = "webhook deliveries"
        constraints = [
            models.UniqueConstraint(fields=["webhook", "key"], name="webhook_delivery_once"),
        ]

    def __str__(self) -> str:
        return f"{self.event} → {self.webhook.url}"


class NoShow(models.Model):
    """A person who had not taken their seat when a table's show-up deadline passed;
    `KNOCK_NO_SHOW_BAN["misses"]` of them bar the person from entering (`NoShowBan`)."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="no_shows")
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="no_shows")
    at = models.DateTimeField()
    # The ban it counted towards; the misses not yet counted are those without one.
    ban = models.ForeignKey(
        "NoShowBan", null=True, blank=True, on_delete=models.SET_NULL, related_name="counted"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "tournament"], name="no_show_once"),
        ]

    def __str__(self) -> str:
        return f"{self.player} missed {self.tournament}"


class NoShowBan(models.Model):
    """A person barred from entering tournaments until `events_left` more have started
    (one fewer each time a tournament starts), or an admin lifts it."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="no_show_bans")
    events_left = models.PositiveSmallIntegerField()
    misses = models.PositiveSmallIntegerField(help_text="The no-shows that earned it.")
    created_at = models.DateTimeField(auto_now_add=True)
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-pk"]

    def __str__(self) -> str:
        return f"{self.player}: {self.events_left} events left"

    @property
    def active(self) -> bool:
        return self.events_left > 0 and self.lifted_at is None
