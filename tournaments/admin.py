"""Django admin for tournaments: settings and prizes are edited here before the draw; entries
and the bracket only move through tournaments.services, which the actions call."""

import secrets

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import Count, Q
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, ngettext_lazy

from config.errors import DomainError
from gameplay.option_fields import VariantOptionsAdminForm
from tournaments import services
from tournaments.models import (
    Entry,
    NoShow,
    NoShowBan,
    Prize,
    Table,
    Tournament,
    Webhook,
    WebhookDelivery,
)

# Entries that never sat in the draw.
NOT_IN_THE_DRAW = (Entry.Status.WITHDRAWN, Entry.Status.WAITLISTED, Entry.Status.DROPPED)


class PrizeInline(admin.TabularInline):
    model = Prize
    extra = 1
    raw_id_fields = ["title", "reward"]


class EntryInline(admin.TabularInline):
    """Entries change through services (fees, waiting list): shown here, not edited."""

    model = Entry
    extra = 0
    can_delete = False
    show_change_link = False
    fields = ["player", "status", "seed", "placement", "out_round", "registered_at", "fee_paid"]
    readonly_fields = fields
    ordering = ["placement", "seed", "registered_at"]

    def has_add_permission(self, request, obj=None):
        return False


class TournamentForm(VariantOptionsAdminForm):
    """The settings before the draw; the game's options a field each, from the engine."""

    class Meta:
        model = Tournament
        fields = [
            "organiser",
            "variant",
            "format",
            *(name for name in services.EDITABLE if name != "options"),
            "table_size",
            "advance",
            "entry_fee",
            "sponsor_coins",
            "organiser_may_play",
        ]

    # Settings with a default that a form may leave out: empty means the default.
    DEFAULTED = (
        "format",
        "grand_final",
        "tiebreaks",
        "place_points",
        "group_stage",
        "second_stage",
        "sponsor_coins",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in self.DEFAULTED:
            if name in self.fields:
                self.fields[name].required = False

    def clean(self):
        values = super().clean()
        for name in self.DEFAULTED:
            if name in self.fields and not values.get(name):
                values[name] = Tournament._meta.get_field(name).get_default()
        if not self.errors:
            try:
                services.validate_settings({**values, "options": self.instance.options})
                # A sponsor budget or cap an admin lowers must still pay the prizes, and no
                # pool may pass the balance bound.
                prizes = (
                    self.instance.prizes.values("placement", "coins", "xp", "title_id", "reward_id")
                    if self.instance.pk
                    else []
                )
                services.validate_prizes(values, prizes)
            except DomainError as exc:
                raise ValidationError(exc.message) from exc
        return values


def refused_message(thing, exc: DomainError) -> str:
    # Translators: a tournament, table or season, then why a service refused it.
    return _("%(name)s: %(reason)s") % {"name": thing, "reason": exc.message}


def _run(modeladmin, request, queryset, service, done) -> None:
    """Call one service per selected tournament; report each refusal by name, then how
    many were done in `done`, a lazy plural keyed on "count"."""
    ok = 0
    for tournament in queryset:
        try:
            service(tournament_id=tournament.pk, by=request.user)
            ok += 1
        except DomainError as exc:
            modeladmin.message_user(request, refused_message(tournament, exc), messages.ERROR)
    if ok:
        modeladmin.message_user(request, done % {"count": ok}, messages.SUCCESS)


@admin.action(description=gettext_lazy("Open registration"))
def open_registration(modeladmin, request, queryset):
    done = ngettext_lazy("%(count)s tournament opened.", "%(count)s tournaments opened.", "count")
    _run(modeladmin, request, queryset, services.tournament_open_registration, done)


@admin.action(description=gettext_lazy("Start now (draw the bracket)"))
def start_now(modeladmin, request, queryset):
    done = ngettext_lazy("%(count)s tournament started.", "%(count)s tournaments started.", "count")
    _run(modeladmin, request, queryset, services.tournament_start, done)


@admin.action(description=gettext_lazy("Cancel and refund every fee"))
def cancel(modeladmin, request, queryset):
    done = ngettext_lazy(
        "%(count)s tournament cancelled.", "%(count)s tournaments cancelled.", "count"
    )
    _run(modeladmin, request, queryset, services.tournament_cancel, done)


class DrawnTournamentForm(forms.ModelForm):
    """A drawn tournament's settings are history: every field is shown read-only."""

    class Meta:
        model = Tournament
        fields = []


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    form = TournamentForm
    list_display = [
        "name",
        "status",
        "variant",
        "table_size",
        "advance",
        "entries",
        "starts_at",
        "organiser",
    ]
    list_select_related = ["organiser"]
    list_filter = [
        "status",
        "variant",
        "table_size",
        "seeding",
        "third_place",
        "spectators_allowed",
    ]
    search_fields = ["name", "organiser__username"]
    date_hierarchy = "starts_at"
    readonly_fields = ["status", "entries_count", "started_at", "finished_at", "draw_commitment"]
    inlines = [PrizeInline, EntryInline]
    actions = [open_registration, start_now, cancel]

    class Media:
        js = ["site/admin-options.js"]

    def get_queryset(self, request):
        # Before the draw `entries_count` is 0: the list counts the entries themselves.
        admitted = Count("entries", filter=Q(entries__status__in=services.ADMITTED))
        playing = Count("entries", filter=~Q(entries__status__in=NOT_IN_THE_DRAW))
        return super().get_queryset(request).annotate(admitted=admitted, in_draw=playing)

    @admin.display(description=gettext_lazy("entries"), ordering="admitted")
    def entries(self, tournament: Tournament) -> int:
        """Registered and checked-in entries before the draw; the draw's entries after."""
        if tournament.status in services.BEFORE_START:
            return tournament.admitted
        return tournament.entries_count or tournament.in_draw

    def get_changeform_initial_data(self, request):
        return {"organiser": request.user.pk}

    def _drawn(self, obj) -> bool:
        return obj is not None and obj.status not in services.BEFORE_START

    def get_form(self, request, obj=None, change=False, **kwargs):
        if self._drawn(obj):
            kwargs["form"] = DrawnTournamentForm
        return super().get_form(request, obj, change, **kwargs)

    def get_fieldsets(self, request, obj=None):
        if self._drawn(obj):
            return [(None, {"fields": self.get_readonly_fields(request, obj)})]
        main = [*TournamentForm.Meta.fields, *self.readonly_fields]
        return [(None, {"fields": main}), *TournamentForm.option_fieldsets()]

    def get_readonly_fields(self, request, obj=None):
        if self._drawn(obj):
            # The bracket is drawn: its settings are history now.
            drawn = [f.name for f in Tournament._meta.fields if f.name != "seed"]
            return [*drawn, "revealed_seed"]
        return self.readonly_fields

    def save_model(self, request, obj, form, change):
        # Nobody chooses the secret every deal derives from, staff included.
        if not obj.seed:
            obj.seed = secrets.token_hex(16)
        super().save_model(request, obj, form, change)

    @admin.display(description=gettext_lazy("seed"))
    def revealed_seed(self, tournament: Tournament):
        if tournament.status != Tournament.Status.FINISHED:
            return format_html("<em>{}</em>", _("secret until the tournament ends"))
        return tournament.seed


@admin.action(description=gettext_lazy("Set the disputed match aside and play it again"))
def replay_disputed(modeladmin, request, queryset):
    for table in queryset:
        try:
            services.table_replay(table_id=table.pk, by=request.user)
            modeladmin.message_user(
                request, _("%(table)s: a new match started.") % {"table": table}, messages.SUCCESS
            )
        except DomainError as exc:
            modeladmin.message_user(request, refused_message(table, exc), messages.ERROR)


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    """The drawn bracket, for looking things up; it moves only through play (and the
    organiser's replay of a disputed match)."""

    list_display = [
        "__str__",
        "round_number",
        "position",
        "status",
        "walkover",
        "replays",
        "deadline",
    ]
    list_filter = ["status", "walkover", "third_place"]
    search_fields = ["tournament__name"]
    list_select_related = ["tournament"]
    actions = [replay_disputed]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class WebhookDeliveryInline(admin.TabularInline):
    """The delivery log: written by tournaments.services.webhooks, read here."""

    model = WebhookDelivery
    extra = 0
    can_delete = False
    max_num = 0
    ordering = ["-pk"]
    fields = readonly_fields = [
        "event",
        "key",
        "status",
        "attempts",
        "response_status",
        "last_error",
        "created_at",
        "delivered_at",
    ]


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):
    """Organisers add webhooks on their tournament's page; here staff see them and their
    log, and can switch one off. The signing secret never shows (Webhook.SECRET_FIELDS)."""

    list_display = ["url", "tournament", "active", "events", "created_at"]
    list_filter = ["active"]
    search_fields = ["url", "tournament__name"]
    raw_id_fields = ["tournament"]
    fields = ["tournament", "url", "events", "active"]
    readonly_fields = ["tournament", "url"]  # an address is checked when it is added
    inlines = [WebhookDeliveryInline]

    def has_add_permission(self, request):
        return False  # through the organiser's page or the API, which check the address


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = ["event", "webhook", "status", "attempts", "response_status", "created_at"]
    list_filter = ["status", "event"]
    search_fields = ["webhook__url", "key"]
    readonly_fields = [f.name for f in WebhookDelivery._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(NoShowBan)
class NoShowBanAdmin(admin.ModelAdmin):
    """Bans earned by missing show-up deadlines (tournaments.services.access); an admin
    lifts one with the action, and the player may enter again at once."""

    list_display = ["player", "misses", "events_left", "created_at", "lifted_at", "lifted_by"]
    list_filter = [("lifted_at", admin.EmptyFieldListFilter)]
    search_fields = ["player__display_name", "player__user__username"]
    readonly_fields = [f.name for f in NoShowBan._meta.fields]
    actions = ["lift"]

    def has_add_permission(self, request):
        return False

    @admin.action(description=gettext_lazy("Lift the selected bans"))
    def lift(self, request, queryset):
        for ban in queryset:
            services.no_show_ban_lift(ban_id=ban.pk, by=request.user)
        count = queryset.count()
        self.message_user(
            request,
            ngettext("%(count)s ban lifted.", "%(count)s bans lifted.", count) % {"count": count},
            messages.SUCCESS,
        )


@admin.register(NoShow)
class NoShowAdmin(admin.ModelAdmin):
    list_display = ["player", "tournament", "at"]
    search_fields = ["player__display_name", "tournament__name"]
    readonly_fields = ["player", "tournament", "at"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
