from django.urls import reverse
from rest_framework import serializers

from gameplay import services
from gameplay.models import ApiToken, Match, Player, Room, variant_choices


class VariantField(serializers.ChoiceField):
    """A game from the engine's registry, read each time a serializer is made (DRF copies
    declared fields per instance), so a newly registered variant is accepted at once."""

    def __init__(self, **kwargs):
        super().__init__(choices=variant_choices(), **kwargs)


class RegisterSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(write_only=True)
    email = serializers.CharField(
        required=False, allow_blank=True, max_length=254, help_text="Where reset links go."
    )


class RoomSerializer(serializers.ModelSerializer):
    locked = serializers.BooleanField(read_only=True)

    class Meta:
        model = Room
        fields = [
            "id",
            "name",
            "variant",
            "options",
            "seats",
            "min_level",
            "entry_fee",
            "turn_seconds",
            "bots_allowed",
            "locked",
        ]


class PlaySerializer(serializers.Serializer):
    opponent = serializers.ChoiceField(choices=["bot", "human"])
    client_seed = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=64,
        help_text=(
            "Your seed for this match's deals (1-64 printable ASCII characters, no spaces); "
            "omitted: your profile's, else one drawn by the server."
        ),
    )


class ActionSerializer(serializers.Serializer):
    seq = serializers.IntegerField(min_value=0)
    action = serializers.JSONField()


class TitleChoiceSerializer(serializers.Serializer):
    title = serializers.IntegerField(allow_null=True)


class MatchSummarySerializer(serializers.ModelSerializer):
    room = serializers.CharField(source="room.name", default=None, allow_null=True)
    players = serializers.SerializerMethodField()

    class Meta:
        model = Match
        fields = [
            "id",
            "variant",
            "room",
            "status",
            "seq",
            "players",
            "commitment",
            "created_at",
            "finished_at",
        ]

    def get_players(self, match) -> list[dict]:
        return [
            {
                "seat": seat.index,
                "player": seat.player.display_name,
                "bot": seat.player.is_bot,
                "placement": seat.placement,
                "score": seat.score,
            }
            for seat in match.seats.all()
        ]


class PlayerSerializer(serializers.ModelSerializer):
    title = serializers.CharField(source="displayed_title.name", default=None, allow_null=True)
    ratings = serializers.SerializerMethodField()

    class Meta:
        model = Player
        fields = ["id", "display_name", "is_bot", "level", "xp", "coins", "title", "ratings"]

    def get_ratings(self, player) -> list[dict]:
        return [
            {
                "variant": rating.variant,
                "ordinal": round(rating.ordinal, 2),
                "mu": round(rating.mu, 3),
                "sigma": round(rating.sigma, 3),
                "provisional": rating.provisional,
                "rated_matches": rating.rated_matches,
            }
            for rating in player.ratings.all()
        ]


class MeSerializer(PlayerSerializer):
    """The signed-in player: also their client seed and the commitment of the server seed
    their next match will use, to see before sending a client seed (engine/README.md)."""

    next_seed_commitment = serializers.SerializerMethodField()

    class Meta(PlayerSerializer.Meta):
        fields = [*PlayerSerializer.Meta.fields, "client_seed", "next_seed_commitment"]

    def get_next_seed_commitment(self, player) -> str:
        return services.player_next_seed_commitment(player=player)


class ApiTokenSerializer(serializers.ModelSerializer):
    current = serializers.SerializerMethodField(help_text="Whether this request came with it.")

    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "expires_at", "current"]

    def get_current(self, token) -> bool:
        return token == self.context["request"].auth


class TokenNameSerializer(serializers.Serializer):
    name = serializers.CharField(
        max_length=60, required=False, allow_blank=True, help_text="What the token is for."
    )


class TokenRequestSerializer(TokenNameSerializer):
    """POST /api/auth/token/ as the schema shows it (DRF's serializer checks the login)."""

    username = serializers.CharField()
    password = serializers.CharField(style={"input_type": "password"})


# --- response shapes the views build as dicts (selectors.match_view); for the schema ----


class RegisteredSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The new player's id.")
    username = serializers.CharField()
    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`.")


class IssuedTokenSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`; shown once.")
    id = serializers.IntegerField()
    expires_at = serializers.DateTimeField(allow_null=True)


class MatchStartedSerializer(serializers.Serializer):
    match = serializers.IntegerField(help_text="The new match's id.")


class QueuedSerializer(serializers.Serializer):
    queued = serializers.BooleanField()
    room = serializers.IntegerField()


class LiveSeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField(source="index")
    player = serializers.CharField(source="player.display_name", help_text="Display name.")
    player_id = serializers.IntegerField()
    bot = serializers.BooleanField(source="player.is_bot")


class LiveMatchSerializer(serializers.ModelSerializer):
    """A running match open to spectators, as the lobby lists it: public fields only (no
    seed, state, log or hand; watch it at `table` or GET /api/matches/<id>/)."""

    where = serializers.CharField(help_text="Its room's or tournament's name; may be empty.")
    room = serializers.CharField(source="room.name", default=None, allow_null=True)
    seats = LiveSeatSerializer(many=True)
    table = serializers.SerializerMethodField(help_text="The table page to watch it on.")

    class Meta:
        model = Match
        fields = [
            "id",
            "variant",
            "room",
            "where",
            "players",
            "seats",
            "seq",
            "created_at",
            "table",
        ]

    def get_table(self, match) -> str:
        return reverse("match-table", args=[match.pk])


class SeatViewSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    player = serializers.CharField(help_text="Display name.")
    player_id = serializers.IntegerField()
    bot = serializers.BooleanField()
    card_count = serializers.IntegerField()
    timeouts = serializers.IntegerField()


class MoveSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    seat = serializers.IntegerField()
    action = serializers.DictField(help_text="As accepted, e.g. {type: discard, card: 7H}.")
    at = serializers.DateTimeField(required=False, help_text="When the move was stored.")
    auto = serializers.BooleanField(required=False, help_text="A timed-out seat's move.")


class HandBreakSerializer(serializers.Serializer):
    until = serializers.DateTimeField(help_text="When the next hand starts at the latest.")
    ready = serializers.ListField(
        child=serializers.IntegerField(), help_text="Seats that pressed Next hand."
    )


class LastTimeoutSerializer(serializers.Serializer):
    seq = serializers.IntegerField(help_text="The move number of the move played for you.")
    action = serializers.DictField()


class MatchViewSerializer(serializers.Serializer):
    """One seat's view of a match; the last five fields appear once it has ended."""

    id = serializers.IntegerField()
    variant = VariantField()
    options = serializers.DictField()
    status = serializers.ChoiceField(choices=Match.Status.choices)
    seq = serializers.IntegerField(help_text="Accepted actions so far; send it with the next.")
    seat = serializers.IntegerField(help_text="The caller's seat.")
    to_move = serializers.IntegerField(allow_null=True)
    your_turn = serializers.BooleanField()
    turn_deadline = serializers.DateTimeField(allow_null=True)
    legal_actions = serializers.ListField(child=serializers.DictField())
    hand = serializers.ListField(child=serializers.CharField(), help_text='Cards, e.g. "TS".')
    table = serializers.DictField(help_text="The variant's public table, hidden cards removed.")
    seats = SeatViewSerializer(many=True)
    scores = serializers.ListField(child=serializers.IntegerField())
    hand_break = HandBreakSerializer(
        allow_null=True,
        help_text=(
            "Set while the table rests between hands: no move is accepted (409 "
            "`between_hands`) and no clock runs until everyone pressed Next hand or `until`."
        ),
    )
    can_abort = serializers.BooleanField(
        help_text="The caller may call the match off (a room's match before its first move)."
    )
    max_timeouts = serializers.IntegerField(help_text="Timed-out turns that forfeit a seat.")
    last_move = serializers.DictField(
        allow_null=True, help_text="The latest move, {seat, action}; null before the first."
    )
    last_timeout = LastTimeoutSerializer(
        required=False,
        help_text="The caller's seat only: what the table played when its time last ran out.",
    )
    commitment = serializers.CharField(help_text="SHA-256 of the seed, public from the start.")
    client_seeds = serializers.ListField(
        child=serializers.CharField(allow_null=True),
        help_text="One per seat (null for a bot); public from the start.",
    )
    seed = serializers.CharField(required=False, help_text="The server seed, once over.")
    seat_seeds = serializers.ListField(
        child=serializers.CharField(allow_null=True),
        required=False,
        help_text=(
            "Once over: the people's pre-committed seeds the server seed is made of "
            "(engine.fair.server_seed_of), null for a bot seat; empty for a bots-only match."
        ),
    )
    moves = MoveSerializer(many=True, required=False)
    result = serializers.DictField(required=False, allow_null=True)
    placements = serializers.ListField(
        child=serializers.IntegerField(allow_null=True), required=False
    )
    dispute_reason = serializers.CharField(required=False)


class DocumentSeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    player = serializers.CharField(help_text="Display name.")
    player_id = serializers.IntegerField()
    bot = serializers.BooleanField()
    placement = serializers.IntegerField(allow_null=True)
    score = serializers.IntegerField(allow_null=True)


class MatchDocumentSerializer(serializers.Serializer):
    """A finished match as one document: what `python -m engine.verify` checks."""

    format = serializers.CharField(help_text='"knock-match/1".')
    id = serializers.IntegerField()
    variant = VariantField()
    options = serializers.DictField()
    status = serializers.ChoiceField(choices=Match.Status.choices)
    seats = DocumentSeatSerializer(many=True)
    commitment = serializers.CharField(help_text="SHA-256 of the server seed.")
    seed = serializers.CharField(help_text="The server seed, revealed.")
    seat_seeds = serializers.ListField(
        child=serializers.CharField(allow_null=True),
        help_text="The people's pre-committed seeds the server seed is made of.",
    )
    client_seeds = serializers.ListField(child=serializers.CharField(allow_null=True))
    deal_seed = serializers.CharField(help_text="engine.fair.deal_seed(seed, client_seeds).")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    moves = MoveSerializer(many=True)
    result = serializers.DictField(allow_null=True)
