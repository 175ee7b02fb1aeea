"""Django admin for leagues: ladders, seasons (start and close through the services),
fixtures, and standings to read (they change only through results and ranking)."""

from django.contrib import admin, messages
from django.db.models import Count
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from config.errors import DomainError
from gameplay.option_fields import VariantOptionsAdminForm
from leagues import services
from leagues.models import Division, Fixture, FixtureSeat, League, Membership, Season, Standing


class DivisionInline(admin.TabularInline):
    model = Division
    extra = 0
    ordering = ["tier"]


class LeagueForm(VariantOptionsAdminForm):
    """The league's game options a field each, from the engine's Option metadata."""

    class Meta:
        model = League
        exclude = ["options"]


@admin.register(League)
class LeagueAdmin(admin.ModelAdmin):
    form = LeagueForm
    list_display = ["name", "variant", "table_size", "tiebreakers", "members"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [DivisionInline]

    class Media:
        js = ["site/admin-options.js"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(member_count=Count("memberships"))

    @admin.display(description=gettext_lazy("members"), ordering="member_count")
    def members(self, league: League) -> int:
        return league.member_count

    def get_fieldsets(self, request, obj=None):
        fields = [
            f.name
            for f in League._meta.fields
            if f.editable and not f.auto_created and f.name != "options"
        ]
        return [(None, {"fields": fields}), *LeagueForm.option_fieldsets()]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["player", "league", "division", "joined_at"]
    list_filter = ["league"]
    list_select_related = ["player", "league", "division"]
    raw_id_fields = ["player"]


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    list_display = ["league", "number", "status", "starts_at", "ends_at", "rounds"]
    list_filter = ["league", "status"]
    list_select_related = ["league"]
    readonly_fields = ["status", "ends_at", "rounds", "started_at", "closed_at"]
    actions = ["start_season", "close_season"]

    @admin.action(description=gettext_lazy("Start the selected seasons (placement and fixtures)"))
    def start_season(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda s: services.season_start(season_id=s.pk),
            gettext_lazy("%(season)s: started."),
        )

    @admin.action(
        description=gettext_lazy("Close the selected seasons (promotion, relegation, awards)")
    )
    def close_season(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda s: services.season_close(season_id=s.pk),
            gettext_lazy("%(season)s: closed."),
        )

    def _each(self, request, queryset, step, done) -> None:
        """Run a service per season; a refusal is the admin's to read, not a crash. `done`
        is the whole sentence said of a season it was run on."""
        for season in queryset.select_related("league"):
            try:
                step(season)
            except DomainError as exc:
                self.message_user(
                    request,
                    # Translators: a tournament, table or season, then why a service refused it.
                    _("%(name)s: %(reason)s") % {"name": season, "reason": exc.message},
                    messages.ERROR,
                )
            else:
                self.message_user(request, done % {"season": season}, messages.SUCCESS)


class FixtureSeatInline(admin.TabularInline):
    model = FixtureSeat
    extra = 0
    can_delete = False
    readonly_fields = ["seat", "player", "place", "game_points", "outcome"]

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Fixture)
class FixtureAdmin(admin.ModelAdmin):
    list_display = ["__str__", "status", "match", "recorded_at"]
    list_filter = ["status", "round__season__league"]
    list_select_related = ["round__season__league", "round__division"]
    readonly_fields = ["round", "table", "match", "status", "recorded_at"]
    inlines = [FixtureSeatInline]

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(Standing)
class StandingAdmin(admin.ModelAdmin):
    """Read-only: a hand edit would disagree with the recorded results."""

    list_display = [
        "player",
        "season",
        "division",
        "rank",
        "played",
        "won",
        "drawn",
        "lost",
        "points",
        "form",
        "outcome",
    ]
    list_filter = ["season__league", "division"]
    list_select_related = ["player", "season__league", "division__league"]
    ordering = ["season", "division__tier", "rank", "player_id"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
