from rest_framework import serializers

from gameplay.models import Reward, Title
from gameplay.serializers import VariantField
from tournaments.models import TIEBREAK_CHOICES, Entry, Prize, Tournament, Webhook, WebhookDelivery
from tournaments.services import BOUNDS, EDITABLE

# What the PositiveIntegerField columns hold (PostgreSQL integer); past it is a 400, not a 500.
INT_MAX = 2**31 - 1


class PrizeSerializer(serializers.ModelSerializer):
    title = serializers.PrimaryKeyRelatedField(
        queryset=Title.objects.all(), required=False, allow_null=True
    )
    reward = serializers.PrimaryKeyRelatedField(
        queryset=Reward.objects.all(), required=False, allow_null=True
    )

    class Meta:
        model = Prize
        fields = ["placement", "coins", "xp", "title", "reward"]


# Every setting an organiser gives: those fixed when the tournament is created, then those
# editable until the draw (the service's list, so the two cannot drift apart).
SETTINGS = ["variant", "format", "table_size", "advance", "entry_fee", *EDITABLE]


class TournamentSerializer(serializers.ModelSerializer):
    organiser = serializers.CharField(source="organiser.username", read_only=True)
    entered = serializers.IntegerField(read_only=True)
    waitlisted = serializers.IntegerField(read_only=True)
    prizes = PrizeSerializer(many=True, read_only=True)
    links = serializers.SerializerMethodField()
    draw_seed = serializers.SerializerMethodField(
        help_text="The draw seed, revealed at the start (null before): "
        "tournaments.bracket.random_seeding recomputes a random draw from it."
    )

    class Meta:
        model = Tournament
        fields = [
            "id",
            "status",
            "organiser",
            *SETTINGS,
            "entered",
            "waitlisted",
            "entries_count",
            "started_at",
            "finished_at",
            "cancel_reason",
            "prizes",
            "sponsor_coins",
            "organiser_may_play",
            "draw_commitment",
            "draw_seed",
            "invite_only",
            "min_rating",
            "max_rating",
            "min_rated_matches",
            "links",
        ]
        # Granted by admins only (docs/architecture.md section 10): shown, never written here;
        # entry conditions change through their own endpoint (entry-conditions/).
        read_only_fields = [
            "draw_commitment",
            "sponsor_coins",
            "organiser_may_play",
            "invite_only",
            "min_rating",
            "max_rating",
            "min_rated_matches",
            "cancel_reason",
        ]

    def get_draw_seed(self, tournament) -> str | None:
        return tournament.seed if tournament.draw_revealed else None

    def get_links(self, tournament) -> dict:
        base = f"/api/tournaments/{tournament.pk}"
        return {
            "self": f"{base}/",
            "entries": f"{base}/entries/",
            "bracket": f"{base}/bracket/",
            "page": f"/tournaments/{tournament.pk}/",
        }


class TournamentWriteSerializer(serializers.Serializer):
    """What an organiser sends; the service validates the combination."""

    name = serializers.CharField(max_length=120)
    variant = VariantField()
    options = serializers.DictField(required=False)
    format = serializers.ChoiceField(choices=Tournament.Format.choices, required=False)
    grand_final = serializers.ChoiceField(choices=Tournament.GrandFinal.choices, required=False)
    swiss_rounds = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=BOUNDS["swiss_rounds"][0],
        max_value=BOUNDS["swiss_rounds"][1],
    )
    groups = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=BOUNDS["groups"][0],
        max_value=BOUNDS["groups"][1],
    )
    group_advance = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=BOUNDS["group_advance"][0],
        max_value=BOUNDS["group_advance"][1],
    )
    group_stage = serializers.ChoiceField(choices=Tournament.GroupStage.choices, required=False)
    second_stage = serializers.ChoiceField(choices=Tournament.SecondStage.choices, required=False)
    place_points = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=1000), required=False, max_length=6
    )
    tiebreaks = serializers.ListField(
        child=serializers.ChoiceField(choices=TIEBREAK_CHOICES), required=False, max_length=6
    )
    table_size = serializers.IntegerField(required=False, min_value=2, max_value=6)
    advance = serializers.IntegerField(required=False, min_value=1, max_value=5)
    best_of = serializers.IntegerField(required=False, min_value=1, max_value=9)
    final_best_of = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=9
    )
    seeding = serializers.ChoiceField(choices=Tournament.Seeding.choices, required=False)
    third_place = serializers.BooleanField(required=False)
    registration_opens_at = serializers.DateTimeField(required=False, allow_null=True)
    registration_closes_at = serializers.DateTimeField(required=False, allow_null=True)
    check_in_opens_at = serializers.DateTimeField(required=False, allow_null=True)
    check_in_closes_at = serializers.DateTimeField(required=False, allow_null=True)
    starts_at = serializers.DateTimeField(required=False, allow_null=True)
    max_entries = serializers.IntegerField(
        required=False, allow_null=True, min_value=2, max_value=INT_MAX
    )
    min_entries = serializers.IntegerField(
        required=False, min_value=BOUNDS["min_entries"][0], max_value=BOUNDS["min_entries"][1]
    )
    min_level = serializers.IntegerField(required=False, min_value=1, max_value=INT_MAX)
    entry_fee = serializers.IntegerField(required=False, min_value=0, max_value=INT_MAX)
    show_up_seconds = serializers.IntegerField(required=False, min_value=0, max_value=INT_MAX)
    turn_seconds = serializers.IntegerField(required=False, min_value=5, max_value=INT_MAX)
    spectators_allowed = serializers.BooleanField(required=False)
    prizes = PrizeSerializer(many=True, required=False)


class EntrySerializer(serializers.ModelSerializer):
    player = serializers.CharField(source="player.display_name", read_only=True)
    player_id = serializers.IntegerField(read_only=True)
    bot = serializers.BooleanField(source="player.is_bot", read_only=True)

    class Meta:
        model = Entry
        fields = [
            "id",
            "player",
            "player_id",
            "bot",
            "status",
            "seed",
            "manual_seed",
            "placement",
            "out_round",
            "registered_at",
            "checked_in_at",
        ]


class SeedSerializer(serializers.Serializer):
    seed = serializers.IntegerField(min_value=1, max_value=INT_MAX, allow_null=True)


class ShowUpSerializer(serializers.Serializer):
    client_seed = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=64,
        help_text=(
            "Your seed for the deals at this table (1-64 printable ASCII characters, no "
            "spaces); omitted: your profile's, else one drawn by the server."
        ),
    )


class WebhookDeliverySerializer(serializers.ModelSerializer):
    class Meta:
        model = WebhookDelivery
        fields = [
            "id",
            "event",
            "status",
            "attempts",
            "response_status",
            "last_error",
            "created_at",
            "delivered_at",
        ]


class WebhookSerializer(serializers.ModelSerializer):
    """An organiser's endpoint, with its signing secret: only its organiser reads these."""

    class Meta:
        model = Webhook
        fields = ["id", "url", "events", "secret", "active", "created_at"]
        read_only_fields = ["secret", "active", "created_at"]


class WebhookWriteSerializer(serializers.Serializer):
    url = serializers.URLField(max_length=500)
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=Webhook.Event.choices),
        required=False,
        max_length=len(Webhook.Event.choices),
    )


class EmbedOriginsSerializer(serializers.Serializer):
    origins = serializers.ListField(
        child=serializers.CharField(max_length=200), max_length=10, allow_empty=True
    )


class EntryRegisterSerializer(serializers.Serializer):
    code = serializers.CharField(max_length=16, required=False, allow_blank=True)


class EntryConditionsSerializer(serializers.Serializer):
    invite_only = serializers.BooleanField()
    invited = serializers.ListField(
        child=serializers.CharField(max_length=150), max_length=500, required=False
    )
    min_rating = serializers.IntegerField(
        min_value=0, max_value=10_000, allow_null=True, required=False
    )
    max_rating = serializers.IntegerField(
        min_value=0, max_value=10_000, allow_null=True, required=False
    )
    min_rated_matches = serializers.IntegerField(min_value=0, max_value=100_000, required=False)


class CoOrganisersSerializer(serializers.Serializer):
    co_organisers = serializers.ListField(
        child=serializers.CharField(max_length=150), max_length=10
    )
