"""The tournaments API, Challonge-like; no business logic here, every write is a service."""

import django_filters
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.response import Response
from rest_framework.views import APIView

from config.errors import NotAllowed, NotFound
from config.filters import UTCIsoDateTimeFilter
from config.schema import INSUFFICIENT_COINS
from gameplay.services import player_for_user
from tournaments import selectors, services
from tournaments.models import Entry, Tournament, Webhook, WebhookDelivery
from tournaments.serializers import (
    CoOrganisersSerializer,
    EmbedOriginsSerializer,
    EntryConditionsSerializer,
    EntryRegisterSerializer,
    EntrySerializer,
    SeedSerializer,
    ShowUpSerializer,
    TournamentSerializer,
    TournamentWriteSerializer,
    WebhookDeliverySerializer,
    WebhookSerializer,
    WebhookWriteSerializer,
)


class TournamentFilter(django_filters.FilterSet):
    name = django_filters.CharFilter(lookup_expr="icontains")
    organiser = django_filters.CharFilter(field_name="organiser__username")
    starts_after = UTCIsoDateTimeFilter(field_name="starts_at", lookup_expr="gte")
    starts_before = UTCIsoDateTimeFilter(field_name="starts_at", lookup_expr="lte")

    class Meta:
        model = Tournament
        fields = ["status", "variant", "table_size", "name", "organiser"]


def _prizes(data: dict) -> dict:
    if "prizes" in data:
        data["prizes"] = [dict(p) for p in data["prizes"]]
    return data


def _detail(tournament_id: int) -> dict:
    return TournamentSerializer(selectors.tournaments().get(pk=tournament_id)).data


def _visible(request, pk: int) -> Tournament:
    """The tournament if `request.user` may see it: a draft is its organiser's and staff's
    only, and to anyone else it does not exist (404)."""
    return get_object_or_404(selectors.visible_to(request.user), pk=pk)


def _run_by_caller(request, pk: int) -> Tournament:
    """The tournament if `request.user` runs it: 404 when they cannot see it, 403 when it
    is not theirs, both before a byte of the request body is read."""
    tournament = _visible(request, pk)
    if not services.can_run(request.user, tournament):
        raise NotAllowed(_("Only this tournament's organiser may do that."), code="not_organiser")
    return tournament


class TournamentList(generics.ListAPIView):
    """GET: tournaments, filtered; POST (organisers): create a draft."""

    serializer_class = TournamentSerializer
    filterset_class = TournamentFilter

    def get_queryset(self):
        return selectors.visible_to(self.request.user)

    @extend_schema(request=TournamentWriteSerializer, responses={201: TournamentSerializer})
    def post(self, request):
        data = TournamentWriteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        tournament = services.tournament_create(
            organiser=request.user, **_prizes(dict(data.validated_data))
        )
        return Response(_detail(tournament.pk), status=status.HTTP_201_CREATED)


class TournamentDetail(APIView):
    @extend_schema(responses={200: TournamentSerializer})
    def get(self, request, pk: int):
        return Response(TournamentSerializer(_visible(request, pk)).data)

    @extend_schema(request=TournamentWriteSerializer, responses={200: TournamentSerializer})
    def patch(self, request, pk: int):
        _run_by_caller(request, pk)
        data = TournamentWriteSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        services.tournament_update(
            tournament_id=pk, by=request.user, **_prizes(dict(data.validated_data))
        )
        return Response(_detail(pk))


ACTIONS = {
    "open-registration": services.tournament_open_registration,
    "open-check-in": services.tournament_open_check_in,
    "close-check-in": services.tournament_close_check_in,
    "start": services.tournament_start,
    "cancel": services.tournament_cancel,
}


class TournamentAction(APIView):
    """POST an organiser's action: open-registration, open-check-in, close-check-in, start,
    cancel. Anyone else gets 403."""

    @extend_schema(
        operation_id="tournaments_action",
        parameters=[OpenApiParameter("action", str, OpenApiParameter.PATH, enum=list(ACTIONS))],
        request=None,
        responses={200: TournamentSerializer},
    )
    def post(self, request, pk: int, action: str):
        if action not in ACTIONS:
            raise NotFound(f"No action {action!r}; choose from {', '.join(ACTIONS)}.")
        _visible(request, pk)
        ACTIONS[action](tournament_id=pk, by=request.user)
        return Response(_detail(pk))


class Register(APIView):
    """Register; an invite-only event needs its `code` unless you are on its list."""

    @extend_schema(
        request=EntryRegisterSerializer, responses={201: EntrySerializer, 402: INSUFFICIENT_COINS}
    )
    def post(self, request, pk: int):
        _visible(request, pk)
        data = EntryRegisterSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        entry = services.entry_register(
            tournament_id=pk,
            player=player_for_user(request.user),
            code=data.validated_data.get("code", ""),
        )
        return Response(EntrySerializer(entry).data, status=status.HTTP_201_CREATED)


class Withdraw(APIView):
    @extend_schema(request=None, responses={200: EntrySerializer})
    def post(self, request, pk: int):
        _visible(request, pk)
        entry = services.entry_withdraw(tournament_id=pk, player=player_for_user(request.user))
        return Response(EntrySerializer(entry).data)


class CheckIn(APIView):
    @extend_schema(request=None, responses={200: EntrySerializer})
    def post(self, request, pk: int):
        _visible(request, pk)
        entry = services.entry_check_in(tournament_id=pk, player=player_for_user(request.user))
        return Response(EntrySerializer(entry).data)


class Entries(generics.ListAPIView):
    serializer_class = EntrySerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Entry.objects.none()
        return selectors.entries(_visible(self.request, self.kwargs["pk"]))


def _entry(request, pk: int, entry_id: int) -> Entry:
    _visible(request, pk)
    # tournament__id, not tournament_id: only a lookup on the id column itself range-checks
    # the value, and SQLite cannot even compare a path's 30-digit number with a column.
    return get_object_or_404(Entry, pk=entry_id, tournament__id=pk)


class Disqualify(APIView):
    @extend_schema(request=None, responses={200: EntrySerializer})
    def post(self, request, pk: int, entry_id: int):
        entry = services.entry_disqualify(
            entry_id=_entry(request, pk, entry_id).pk, by=request.user
        )
        return Response(EntrySerializer(entry).data)


class EntrySeed(APIView):
    @extend_schema(request=SeedSerializer, responses={200: EntrySerializer})
    def post(self, request, pk: int, entry_id: int):
        _run_by_caller(request, pk)
        entry_id = _entry(request, pk, entry_id).pk
        data = SeedSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        entry = services.entry_set_seed(
            entry_id=entry_id, seed=data.validated_data["seed"], by=request.user
        )
        return Response(EntrySerializer(entry).data)


class Bracket(APIView):
    @extend_schema(responses={200: dict})
    def get(self, request, pk: int):
        return Response(selectors.bracket(_visible(request, pk)))


class Replay(APIView):
    """Organisers: set a table's disputed match aside and play it again."""

    @extend_schema(request=None, responses={200: dict})
    def post(self, request, pk: int, table_id: int):
        get_object_or_404(selectors.visible_to(request.user), pk=pk, tables__pk=table_id)
        services.table_replay(table_id=table_id, by=request.user)
        return Response(selectors.bracket(Tournament.objects.get(pk=pk)))


class ShowUp(APIView):
    """A player takes their seat at a bracket table before its deadline."""

    @extend_schema(request=ShowUpSerializer, responses={200: dict})
    def post(self, request, pk: int, table_id: int):
        get_object_or_404(selectors.visible_to(request.user), pk=pk, tables__pk=table_id)
        data = ShowUpSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.table_show_up(
            table_id=table_id,
            player=player_for_user(request.user),
            client_seed=data.validated_data.get("client_seed", ""),
        )
        return Response(selectors.bracket(Tournament.objects.get(pk=pk)))


class Webhooks(APIView):
    """Organisers: the tournament's webhooks (GET), or a new one (POST: url, events)."""

    @extend_schema(responses={200: WebhookSerializer(many=True)})
    def get(self, request, pk: int):
        tournament = _run_by_caller(request, pk)
        return Response(WebhookSerializer(tournament.webhooks.all(), many=True).data)

    @extend_schema(request=WebhookWriteSerializer, responses={201: WebhookSerializer})
    def post(self, request, pk: int):
        _run_by_caller(request, pk)
        data = WebhookWriteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        webhook = services.webhook_add(tournament_id=pk, by=request.user, **data.validated_data)
        return Response(WebhookSerializer(webhook).data, status=status.HTTP_201_CREATED)


def _webhook(request, pk: int, webhook_id: int) -> Webhook:
    return get_object_or_404(_run_by_caller(request, pk).webhooks, pk=webhook_id)


class WebhookDetail(APIView):
    @extend_schema(request=None, responses={204: None})
    def delete(self, request, pk: int, webhook_id: int):
        services.webhook_remove(webhook_id=_webhook(request, pk, webhook_id).pk, by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookDeliveries(generics.ListAPIView):
    """Organisers: a webhook's delivery log, newest first."""

    serializer_class = WebhookDeliverySerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation has no tournament
            return WebhookDelivery.objects.none()
        return _webhook(self.request, self.kwargs["pk"], self.kwargs["webhook_id"]).deliveries.all()


class EmbedOrigins(APIView):
    """Organisers: the sites that may frame /tournaments/<id>/embed/ (PUT: origins)."""

    @extend_schema(request=EmbedOriginsSerializer, responses={200: EmbedOriginsSerializer})
    def put(self, request, pk: int):
        _run_by_caller(request, pk)
        data = EmbedOriginsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        tournament = services.tournament_set_embed_origins(
            tournament_id=pk, by=request.user, origins=data.validated_data["origins"]
        )
        return Response({"origins": tournament.embed_origins})


class EntryConditions(APIView):
    """Organisers: who may register (PUT). The answer carries the invitation code."""

    @extend_schema(request=EntryConditionsSerializer, responses={200: dict})
    def put(self, request, pk: int):
        _run_by_caller(request, pk)
        data = EntryConditionsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        tournament = services.tournament_set_entry_conditions(
            tournament_id=pk, by=request.user, **data.validated_data
        )
        return Response(
            {
                "invite_only": tournament.invite_only,
                "invite_code": tournament.invite_code if tournament.invite_only else None,
                "invited": sorted(
                    p.user.username for p in tournament.invited.select_related("user")
                ),
                "min_rating": tournament.min_rating,
                "max_rating": tournament.max_rating,
                "min_rated_matches": tournament.min_rated_matches,
            }
        )


class CoOrganisers(APIView):
    """The organiser: the people who run the event with them (PUT: usernames)."""

    @extend_schema(request=CoOrganisersSerializer, responses={200: CoOrganisersSerializer})
    def put(self, request, pk: int):
        _visible(request, pk)
        data = CoOrganisersSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        tournament = services.tournament_set_co_organisers(
            tournament_id=pk, by=request.user, usernames=data.validated_data["co_organisers"]
        )
        names = tournament.co_organisers.order_by("username").values_list("username", flat=True)
        return Response({"co_organisers": list(names)})
