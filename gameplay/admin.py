"""Django admin for what admins manage: players, levels, rooms, titles, achievements,
rewards, and matches (read-only, with a re-verify action).

Balances, XP, levels, titles held and unlocked achievements only move through
gameplay.services, so they are read-only here; the actions call those services.
"""

import json
import uuid

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.core.exceptions import ValidationError
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from rest_framework.authtoken.models import TokenProxy

from config.errors import Conflict
from engine import variants
from gameplay import services
from gameplay.models import (
    Achievement,
    ApiToken,
    CoinEntry,
    FairPlaySignal,
    HouseAccount,
    HouseEntry,
    Level,
    Match,
    Player,
    PlayerAchievement,
    PlayerTitle,
    Rating,
    RatingChange,
    Reward,
    Room,
    Seat,
    Title,
    XpEntry,
)
from gameplay.option_fields import VariantOptionsAdminForm
from gameplay.usernames import UsernameError, normalize_username, skeleton


class ReadOnlyInline(admin.TabularInline):
    """Rows only services write (ledgers, logs): shown, never edited here."""

    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ReadOnlyAdmin(admin.ModelAdmin):
    """Records of what happened (matches, ratings): viewable, never edited by hand."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


# --- players --------------------------------------------------------------------------


class CoinEntryInline(ReadOnlyInline):
    model = CoinEntry
    fields = ["created_at", "amount", "balance_after", "reason", "key"]
    readonly_fields = fields
    ordering = ["-id"]


class HouseEntryInline(ReadOnlyInline):
    model = HouseEntry
    fields = ["created_at", "amount", "balance_after", "reason", "key"]
    readonly_fields = fields
    ordering = ["-id"]


@admin.register(HouseAccount)
class HouseAccountAdmin(admin.ModelAdmin):
    """The house's coins (prize pools held, rake): written only by the services."""

    list_display = ["code", "coins"]
    readonly_fields = ["code", "coins"]
    inlines = [HouseEntryInline]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class XpEntryInline(ReadOnlyInline):
    model = XpEntry
    fields = ["created_at", "amount", "reason", "key"]
    readonly_fields = fields
    ordering = ["-id"]


class PlayerTitleInline(ReadOnlyInline):
    model = PlayerTitle
    fields = ["title", "reason", "granted_at"]
    readonly_fields = fields
    verbose_name_plural = gettext_lazy("titles held")


class PlayerAchievementInline(ReadOnlyInline):
    model = PlayerAchievement
    fields = ["achievement", "unlocked_at"]
    readonly_fields = fields
    verbose_name_plural = gettext_lazy("achievements unlocked")


def marked_message(count: int) -> str:
    return ngettext("Marked %(count)s player.", "Marked %(count)s players.", count) % {
        "count": count
    }


def granted_message(reward, granted: int, skipped: int) -> str:
    """One whole sentence for each case: everyone granted, or some already had it."""
    values = {"reward": reward, "count": granted, "skipped": skipped}
    if skipped:
        return (
            ngettext(
                # Translators: skipped is how many of the selected players already had it.
                "Granted %(reward)s to %(count)s player; %(skipped)s already had this grant.",
                "Granted %(reward)s to %(count)s players; %(skipped)s already had this grant.",
                granted,
            )
            % values
        )
    return (
        ngettext(
            "Granted %(reward)s to %(count)s player.",
            "Granted %(reward)s to %(count)s players.",
            granted,
        )
        % values
    )


class GrantRewardForm(forms.Form):
    reward = forms.ModelChoiceField(
        queryset=Reward.objects.select_related("title"), label=gettext_lazy("Reward")
    )
    # The initial reason is kept on the ledgers as data, so it stays one wording.
    reason = forms.CharField(
        max_length=100, initial="Granted by an admin", label=gettext_lazy("Reason")
    )
    # Minted when the form is shown, so submitting the same form twice grants once.
    grant_id = forms.UUIDField(widget=forms.HiddenInput)


class LevelForm(forms.ModelForm):
    """A higher level needs strictly more XP than every level below it."""

    def clean(self):
        data = super().clean()
        number, xp = data.get("number"), data.get("xp_required")
        if number is None or xp is None:
            return data
        others = Level.objects.exclude(pk=self.instance.pk)
        below = others.filter(number__lt=number).order_by("-number").first()
        above = others.filter(number__gt=number).order_by("number").first()
        if below and xp <= below.xp_required:
            raise ValidationError(
                _("Level %(number)s must need more XP than level %(below)s (%(xp)s).")
                % {"number": number, "below": below.number, "xp": below.xp_required}
            )
        if above and xp >= above.xp_required:
            raise ValidationError(
                _("Level %(number)s must need less XP than level %(above)s (%(xp)s).")
                % {"number": number, "above": above.number, "xp": above.xp_required}
            )
        return data


class UsernameRulesMixin:
    """An admin creating or renaming an account obeys the same username rules as sign-up."""

    def clean_username(self):
        try:
            name = normalize_username(self.cleaned_data.get("username"))
        except UsernameError as exc:
            raise ValidationError(str(exc), code=exc.code) from None
        others = get_user_model().objects.filter(username__iexact=name)
        if self.instance.pk is not None:
            others = others.exclude(pk=self.instance.pk)
        if others.exists():
            raise ValidationError(_("That username is taken."), code="username_taken")
        renamed = self.instance if self.instance.pk is not None else None
        try:
            services.refuse_look_alike(skeleton(name), user=renamed)
        except Conflict as exc:
            raise ValidationError(str(exc), code=exc.code) from None
        return name

    def _get_validation_exclusions(self):
        # clean_username has checked the name (and its uniqueness in any case); the model's
        # own validator is Python's \w, which refuses the combining marks of Indic names.
        return {*super()._get_validation_exclusions(), "username"}


class KnockUserCreationForm(UsernameRulesMixin, AdminUserCreationForm):
    pass


class KnockUserChangeForm(UsernameRulesMixin, UserChangeForm):
    pass


admin.site.unregister(get_user_model())


@admin.register(get_user_model())
class KnockUserAdmin(UserAdmin):
    add_form = KnockUserCreationForm
    form = KnockUserChangeForm

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        # A renamed account's player keeps the skeleton of its new name.
        Player.objects.filter(user=obj).update(name_skeleton=skeleton(obj.get_username()))


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = [
        "display_name",
        "user",
        "level",
        "xp",
        "coins",
        "displayed_title",
        "is_bot",
        "fair_play_mark",
        "created_at",
    ]
    list_filter = ["level", "is_bot", "bot_kind"]
    search_fields = ["display_name", "user__username"]
    list_select_related = ["user", "displayed_title"]
    # A client seed is its player's own contribution to their deals: nobody else sets it.
    readonly_fields = ["xp", "level", "coins", "displayed_title", "client_seed", "created_at"]
    raw_id_fields = ["user"]
    inlines = [PlayerTitleInline, PlayerAchievementInline, CoinEntryInline, XpEntryInline]
    actions = ["grant_reward", "mark_for_review", "clear_mark"]

    @admin.action(description=gettext_lazy("Mark the selected players for a fair-play review"))
    def mark_for_review(self, request, queryset):
        note = f"Under review ({request.user.get_username()})"
        marked = services.player_mark(player_ids=queryset.values_list("pk", flat=True), note=note)
        self.message_user(request, marked_message(marked), messages.SUCCESS)

    @admin.action(description=gettext_lazy("Clear the fair-play mark of the selected players"))
    def clear_mark(self, request, queryset):
        cleared = services.player_mark(player_ids=queryset.values_list("pk", flat=True), note="")
        self.message_user(
            request,
            ngettext("Cleared %(count)s mark.", "Cleared %(count)s marks.", cleared)
            % {"count": cleared},
            messages.SUCCESS,
        )

    @admin.action(description=gettext_lazy("Grant a reward to the selected players"))
    def grant_reward(self, request, queryset):
        """Pick a reward on an intermediate page, then grant it through the service."""
        if "apply" in request.POST:
            form = GrantRewardForm(request.POST)
            if form.is_valid():
                reward = form.cleaned_data["reward"]
                key = f"admin:{request.user.pk}:{form.cleaned_data['grant_id'].hex}"
                granted, full = 0, []
                for player_id in queryset.values_list("pk", flat=True):
                    try:
                        granted += services.reward_grant(
                            player_id=player_id,
                            reward=reward,
                            reason=form.cleaned_data["reason"],
                            key=key,
                        )
                    except services.BalanceOverflow:
                        full.append(player_id)
                if full:
                    self.message_user(
                        request,
                        ngettext(
                            "Not granted to %(count)s player whose balance it would overflow.",
                            "Not granted to %(count)s players whose balance it would overflow.",
                            len(full),
                        )
                        % {"count": len(full)},
                        messages.ERROR,
                    )
                skipped = queryset.count() - granted - len(full)
                self.message_user(
                    request, granted_message(reward, granted, skipped), messages.SUCCESS
                )
                return None
        else:
            form = GrantRewardForm(initial={"grant_id": uuid.uuid4()})
        return TemplateResponse(
            request,
            "gameplay/admin/grant_reward.html",
            {
                **self.admin_site.each_context(request),
                "title": _("Grant a reward"),
                "opts": self.model._meta,
                "form": form,
                "players": queryset,
                "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
            },
        )


# --- progression ----------------------------------------------------------------------


@admin.register(Level)
class LevelAdmin(admin.ModelAdmin):
    list_display = ["number", "xp_required", "title"]
    list_select_related = ["title"]
    autocomplete_fields = ["title"]
    form = LevelForm

    # Players follow a change of the ladder both ways (services.levels_recompute).
    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        services.levels_recompute()

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        services.levels_recompute()

    def delete_queryset(self, request, queryset):
        super().delete_queryset(request, queryset)
        services.levels_recompute()


@admin.register(Title)
class TitleAdmin(admin.ModelAdmin):
    list_display = ["name", "code", "metric", "threshold", "awardable_by_organisers"]
    list_filter = ["metric", "awardable_by_organisers"]
    search_fields = ["name", "code"]
    prepopulated_fields = {"code": ["name"]}


@admin.register(Reward)
class RewardAdmin(admin.ModelAdmin):
    list_display = ["name", "code", "xp", "coins", "title", "awardable_by_organisers"]
    list_filter = ["awardable_by_organisers"]
    list_select_related = ["title"]
    search_fields = ["name", "code"]
    prepopulated_fields = {"code": ["name"]}
    autocomplete_fields = ["title"]


@admin.register(Achievement)
class AchievementAdmin(admin.ModelAdmin):
    list_display = ["name", "code", "tier", "metric", "threshold", "hidden", "reward"]
    list_filter = ["tier", "metric", "hidden"]
    search_fields = ["name", "code", "description"]
    list_select_related = ["reward"]
    prepopulated_fields = {"code": ["name"]}
    autocomplete_fields = ["reward"]


# --- rooms ----------------------------------------------------------------------------


class RoomForm(VariantOptionsAdminForm):
    """Checks variant, seats and options against the engine, so a room can always deal;
    the options are a field each, from the engine's Option metadata."""

    class Meta:
        model = Room
        fields = [
            "name",
            "variant",
            "seats",
            "min_level",
            "entry_fee",
            "turn_seconds",
            "max_timeouts",
            "bots_allowed",
            "bot_pause_ms",
            "spectators_allowed",
            "claim_seconds",
            "max_tables_per_player",
            "active",
        ]

    def clean(self):
        cleaned = super().clean()
        name, seats = cleaned.get("variant"), cleaned.get("seats")
        if not name or seats is None:
            return cleaned
        try:
            variant = variants.get(name)
        except ValueError as exc:
            raise ValidationError({"variant": str(exc)}) from exc
        try:
            variant.validate_players(seats)
        except ValueError as exc:
            raise ValidationError({"seats": str(exc)}) from exc
        return cleaned


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin):
    form = RoomForm
    fieldsets = [(None, {"fields": RoomForm.Meta.fields}), *RoomForm.option_fieldsets()]
    list_display = [
        "name",
        "variant",
        "seats",
        "min_level",
        "entry_fee",
        "turn_seconds",
        "bots_allowed",
        "active",
    ]
    list_editable = ["min_level", "active"]
    list_filter = ["variant", "active", "bots_allowed", "min_level"]
    search_fields = ["name"]

    class Media:
        js = ["site/admin-options.js"]


# --- matches and ratings --------------------------------------------------------------


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ["index", "player", "score", "placement", "timeouts", "forfeited"]
    readonly_fields = fields


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    list_display = ["id", "variant", "room", "status", "players", "seq", "created_at", "finished"]
    list_filter = ["status", "variant", "room"]
    search_fields = ["=id", "seats__player__display_name", "seats__player__user__username"]
    list_select_related = ["room"]
    date_hierarchy = "created_at"
    # Match.SECRET_FIELDS (seed, seat seeds, state, log) are no field here
    # (config/admin_guard.py); the seed and the log are shown below once the match ends.
    readonly_fields = ["revealed_seed", "move_log"]
    inlines = [SeatInline]
    actions = ["reverify"]

    def get_queryset(self, request):
        # A page of 100 matches shows none of their logs; one match's page reads its own.
        return super().get_queryset(request).defer("log", "state")

    @admin.display(description=gettext_lazy("finished"), ordering="finished_at")
    def finished(self, match: Match):
        return match.finished_at

    @admin.display(description=gettext_lazy("seed"))
    def revealed_seed(self, match: Match):
        if match.status == Match.Status.ACTIVE:
            return format_html("<em>{}</em>", _("secret until the match ends"))
        return match.seed

    @admin.display(description=gettext_lazy("move log"))
    def move_log(self, match: Match):
        """One line per move: number, seat, action (and "auto" for a timed-out seat)."""
        if match.status == Match.Status.ACTIVE:
            return format_html("<em>{}</em>", _("secret until the match ends"))
        lines = (self._move_line(number, move) for number, move in enumerate(match.log, start=1))
        return format_html("<pre>{}</pre>", "\n".join(lines) or _("no moves yet"))

    @staticmethod
    def _move_line(number: int, move: dict) -> str:
        values = {
            "number": f"{number:>4}",
            "seat": move["seat"],
            "action": json.dumps(move["action"]),
        }
        if move.get("auto"):
            # Translators: a line of the move log; "auto" marks a move made for a timed-out seat.
            return _("%(number)s  seat %(seat)s  %(action)s  auto") % values
        # Translators: a line of the move log: the move's number, the seat, the action (JSON).
        return _("%(number)s  seat %(seat)s  %(action)s") % values

    @admin.action(
        description=gettext_lazy("Re-verify the selected matches by replaying their move logs")
    )
    def reverify(self, request, queryset):
        for match in queryset:
            if match.status == Match.Status.ACTIVE:
                self.message_user(
                    request,
                    _("Match %(match)s is still being played.") % {"match": match.pk},
                    messages.WARNING,
                )
                continue
            problem = services.match_verify(match=match)
            if problem is None:
                self.message_user(
                    request,
                    _("Match %(match)s: the replay reproduces the stored result.")
                    % {"match": match.pk},
                    messages.SUCCESS,
                )
            else:
                self.message_user(
                    request,
                    # Translators: problem is what the replay found, from the verifier.
                    _("Match %(match)s: %(problem)s") % {"match": match.pk, "problem": problem},
                    messages.ERROR,
                )


class RatingChangeInline(ReadOnlyInline):
    model = RatingChange
    fields = ["match", "ordinal", "mu", "sigma", "created_at"]
    readonly_fields = fields
    verbose_name_plural = gettext_lazy("history")


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = [
        "player",
        "variant",
        "ordinal",
        "mu",
        "sigma",
        "rated_matches",
        "provisional",
        "last_rated_at",
    ]
    list_filter = ["variant"]
    search_fields = ["player__display_name", "player__user__username"]
    list_select_related = ["player"]
    inlines = [RatingChangeInline]

    @admin.display(boolean=True, description=gettext_lazy("provisional"))
    def provisional(self, rating: Rating) -> bool:
        return rating.provisional


# --- API tokens -----------------------------------------------------------------------

# DRF's own tokens are no longer read (gameplay 0012 moved them to ApiToken): no screen.
admin.site.unregister(TokenProxy)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """People's API tokens; deleting one revokes it at once. Never made or edited here."""

    list_display = ["user", "name", "prefix", "created_at", "expires_at"]
    search_fields = ["user__username", "name", "prefix"]
    list_select_related = ["user"]
    fields = ["user", "name", "prefix", "created_at", "expires_at"]
    readonly_fields = fields

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


# --- fair play ------------------------------------------------------------------------


@admin.register(FairPlaySignal)
class FairPlaySignalAdmin(ReadOnlyAdmin):
    """The fair-play view: players and pairs worth a look, with the evidence behind each
    signal and links to the matches. Nothing here bans anyone; mark a player instead."""

    list_display = ["kind", "player_link", "other_link", "summary", "match_links", "updated_at"]
    list_filter = ["kind"]
    list_select_related = ["player", "other"]
    search_fields = ["player__display_name", "other__display_name"]
    actions = ["mark_players"]

    @admin.display(description=gettext_lazy("player"))
    def player_link(self, signal: FairPlaySignal):
        return self._player(signal.player)

    # Translators: the column naming the second player of a signal about a pair.
    @admin.display(description=gettext_lazy("with"))
    def other_link(self, signal: FairPlaySignal):
        return self._player(signal.other) if signal.other else ""

    @staticmethod
    def _player(player):
        url = reverse("admin:gameplay_player_change", args=[player.pk])
        mark = f" [{player.fair_play_mark}]" if player.fair_play_mark else ""
        return format_html('<a href="{}">{}</a>{}', url, player.display_name, mark)

    @admin.display(description=gettext_lazy("evidence"))
    def summary(self, signal: FairPlaySignal):
        return ", ".join(f"{key} {value}" for key, value in signal.evidence.items())

    @admin.display(description=gettext_lazy("matches"))
    def match_links(self, signal: FairPlaySignal):
        return format_html_join(
            " ",
            '<a href="{}">{}</a>',
            ((reverse("admin:gameplay_match_change", args=[pk]), pk) for pk in signal.matches),
        )

    @admin.action(description=gettext_lazy("Mark the players of the selected signals for review"))
    def mark_players(self, request, queryset):
        ids = {pk for row in queryset.values_list("player", "other") for pk in row if pk}
        note = f"Under review ({request.user.get_username()})"
        marked = services.player_mark(player_ids=ids, note=note)
        self.message_user(request, marked_message(marked), messages.SUCCESS)
