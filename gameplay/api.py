"""The gameplay API: accounts, rooms, matches played move by move. No business logic here."""

from django.contrib.auth.signals import user_logged_in
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import NotAuthenticated, ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from config.errors import NotFound
from config.schema import INSUFFICIENT_COINS, error
from config.security import LockedOut
from gameplay import selectors, services
from gameplay.models import ApiToken, Match, Player, Room
from gameplay.serializers import (
    ActionSerializer,
    ApiTokenSerializer,
    IssuedTokenSerializer,
    LiveMatchSerializer,
    MatchDocumentSerializer,
    MatchStartedSerializer,
    MatchSummarySerializer,
    MatchViewSerializer,
    MeSerializer,
    PlayerSerializer,
    PlaySerializer,
    QueuedSerializer,
    RegisteredSerializer,
    RegisterSerializer,
    RoomSerializer,
    TitleChoiceSerializer,
    TokenNameSerializer,
    TokenRequestSerializer,
)


class RegisterView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list = []
    throttle_scope = "register"

    @extend_schema(request=RegisterSerializer, responses={201: RegisteredSerializer})
    def post(self, request):
        data = RegisterSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player = services.player_register(**data.validated_data)
        _token, key = services.api_token_create(user=player.user, name="sign-up")
        return Response(
            {"id": player.pk, "username": player.user.username, "token": key},
            status=status.HTTP_201_CREATED,
        )


class TokenView(ObtainAuthToken):
    """POST username and password (and a `name` for the token), get a new token: each call
    makes one, listed at GET /api/me/tokens/."""

    # DRF's view names its own parsers and no throttles; this one has the API's and a limit.
    parser_classes = api_settings.DEFAULT_PARSER_CLASSES
    throttle_classes = api_settings.DEFAULT_THROTTLE_CLASSES
    throttle_scope = "login"

    @extend_schema(request=TokenRequestSerializer, responses={200: IssuedTokenSerializer})
    def post(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        try:
            serializer.is_valid(raise_exception=True)
        except ValidationError:
            # django-axes marks the request when this username is locked out from here.
            if getattr(request, "axes_locked_out", False):
                raise LockedOut() from None
            raise
        user = serializer.validated_data["user"]
        named = TokenNameSerializer(data=request.data)
        named.is_valid(raise_exception=True)
        # A token is a login: last_login moves, and django-axes forgets earlier failures.
        user_logged_in.send(sender=type(user), request=request, user=user)
        token, key = services.api_token_create(user=user, name=named.validated_data.get("name", ""))
        return Response({"token": key, "id": token.pk, "expires_at": token.expires_at})


class MyTokens(generics.ListAPIView):
    """Your API tokens (not their keys, shown only when made); `current` marks the one
    this request came with."""

    serializer_class = ApiTokenSerializer
    pagination_class = None  # at most services.API_TOKENS_MAX

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return ApiToken.objects.none()
        return selectors.api_tokens_of(self.request.user)


class MyToken(APIView):
    @extend_schema(request=None, responses={204: None})
    def delete(self, request, pk: int):
        """Revoke one of your tokens at once (the current one too)."""
        services.api_token_revoke(user=request.user, token_id=pk)
        return Response(status=status.HTTP_204_NO_CONTENT)


class RoomList(generics.ListAPIView):
    serializer_class = RoomSerializer
    pagination_class = None  # a lobby is a handful of rooms

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return Room.objects.none()
        return selectors.rooms_for(services.player_for_user(self.request.user))


class RoomPlay(APIView):
    throttle_scope = "play"  # each bot match costs the workers a match's worth of moves

    @extend_schema(
        request=PlaySerializer,
        responses={
            201: OpenApiResponse(MatchStartedSerializer, description="A bot match started."),
            202: OpenApiResponse(QueuedSerializer, description="Waiting for human opponents."),
            402: INSUFFICIENT_COINS,
            409: error(
                "Already at as many tables in this room as it allows (`already_at_table`; "
                "`details.match` is one of them)."
            ),
        },
    )
    def post(self, request, pk: int):
        data = PlaySerializer(data=request.data)
        data.is_valid(raise_exception=True)
        room = get_object_or_404(Room, pk=pk, active=True)
        player = services.player_for_user(request.user)
        outcome = services.room_play(
            player=player,
            room=room,
            opponent=data.validated_data["opponent"],
            client_seed=data.validated_data.get("client_seed", ""),
        )
        if isinstance(outcome, Match):
            return Response({"match": outcome.pk}, status=status.HTTP_201_CREATED)
        return Response({"queued": True, "room": room.pk}, status=status.HTTP_202_ACCEPTED)


class QueueLeave(APIView):
    @extend_schema(request=None, responses={204: None})
    def delete(self, request):
        services.queue_leave(player=services.player_for_user(request.user))
        return Response(status=status.HTTP_204_NO_CONTENT)


class Me(generics.RetrieveAPIView):
    serializer_class = MeSerializer

    def get_object(self):
        return services.player_for_user(self.request.user)


class MeTitle(APIView):
    @extend_schema(request=TitleChoiceSerializer, responses={204: None})
    def post(self, request):
        data = TitleChoiceSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.title_display(
            player=services.player_for_user(request.user), title_id=data.validated_data["title"]
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class MyMatches(generics.ListAPIView):
    serializer_class = MatchSummarySerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Match.objects.none()
        return selectors.matches_of(services.player_for_user(self.request.user))


class PlayerDetail(generics.RetrieveAPIView):
    serializer_class = PlayerSerializer
    queryset = Player.objects.select_related("displayed_title").prefetch_related("ratings")


class LiveMatches(generics.ListAPIView):
    """Running matches anyone signed in may watch (open to spectators, by the match or its
    room), newest first: the lobby's "Live games". Public fields only, never a hand."""

    serializer_class = LiveMatchSerializer

    def get_queryset(self):
        return selectors.live_matches()

    def paginate_queryset(self, queryset):
        page = super().paginate_queryset(queryset)
        return page if page is None else selectors.label_matches(page)


def _match_or_404(match_id: int, player: Player) -> Match:
    """The match as its table page and socket show it: to its seats, to spectators where
    allowed, and to anyone once it is over."""
    match = selectors.match_watchable(match_id, player)
    if match is None:
        raise NotFound(_("No such match."))
    return match


class MatchDetail(APIView):
    """A seat's view of its match; once the match is over, anyone's (logged out too, as on
    its table page): the public view, with no hand."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: MatchViewSerializer})
    def get(self, request, pk: int):
        if not request.user.is_authenticated:
            match = selectors.match_finished(pk)
            if match is None:
                # A running match, or none: the same answer as before, never which it is.
                raise NotAuthenticated()
            return Response(selectors.match_view(match, None))
        player = services.player_for_user(request.user)
        return Response(selectors.match_view(_match_or_404(pk, player), player))


class MatchDocumentView(APIView):
    """A finished match as one JSON document, for anyone: what `python -m engine.verify`
    and the /verify/ page check."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: MatchDocumentSerializer})
    def get(self, request, pk: int):
        match = selectors.match_finished(pk)
        document = selectors.match_document(match) if match else None
        if document is None:
            raise NotFound(_("No finished match with this id."))
        response = Response(document)
        if request.query_params.get("download"):
            response["Content-Disposition"] = f'attachment; filename="knock-match-{pk}.json"'
        return response


class MatchActions(APIView):
    @extend_schema(request=ActionSerializer, responses={200: MatchViewSerializer})
    def post(self, request, pk: int):
        data = ActionSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player = services.player_for_user(request.user)
        match = services.match_act(
            match_id=pk,
            player=player,
            seq=data.validated_data["seq"],
            action=data.validated_data["action"],
        )
        return Response(selectors.match_view(match, player))


class _MatchControl(APIView):
    """A seat's action that is no turn; the answer is the caller's view."""

    service = None

    def post(self, request, pk: int):
        player = services.player_for_user(request.user)
        match = type(self).service(match_id=pk, player=player)
        return Response(selectors.match_view(match, player))


class MatchResign(_MatchControl):
    """Resign the match: at any moment, in turn or not. Recorded as an engine move
    (`{"type": "resign"}`) so the log replays to the result; the resigner places last."""

    service = staticmethod(services.match_resign)

    @extend_schema(
        request=None,
        responses={
            200: MatchViewSerializer,
            409: error("The match is over already (`match_over`): nothing changed."),
        },
    )
    def post(self, request, pk: int):
        return super().post(request, pk)


class MatchAbort(_MatchControl):
    """Call a room's match off before its first move: no rating, no XP, fees refunded."""

    service = staticmethod(services.match_abort)

    @extend_schema(
        request=None,
        responses={
            200: MatchViewSerializer,
            409: error(
                "The first move was played (`match_started`: resign instead), the match is "
                "a tournament's or a league's (`abort_not_allowed`) or over (`match_over`)."
            ),
        },
    )
    def post(self, request, pk: int):
        return super().post(request, pk)


class MatchNextHand(_MatchControl):
    """Ready for the next hand while the table rests between hands; the last person ready
    starts it. Pressed when the table is not resting it changes nothing."""

    service = staticmethod(services.match_next_hand)

    @extend_schema(
        request=None,
        responses={200: MatchViewSerializer, 409: error("The match is over (`match_over`).")},
    )
    def post(self, request, pk: int):
        return super().post(request, pk)
