"""The organiser's tournament form: plain fields, the variant's options built from the
engine's `Option` metadata, prizes as rows. Whether a combination can run is the service's
call (tournaments.services.validate_settings); the form only shows its answer in place."""

from __future__ import annotations

import re

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from config.text import visible_name
from engine import variants
from gameplay.models import variant_choices
from gameplay.option_fields import chosen_options, initial_options, option_field, option_field_name
from gameplay.selectors import awardable_rewards, awardable_titles
from tournaments.models import TIEBREAK_CHOICES, Tournament
from tournaments.serializers import INT_MAX
from tournaments.services import BOUNDS

ODD = [(n, str(n)) for n in (1, 3, 5, 7, 9)]
TIEBREAK_FIELDS = ("tiebreak_1", "tiebreak_2", "tiebreak_3")
PRIZE_ROWS = 4
PRIZE_PARTS = ("placement", "coins", "xp", "title", "reward")
WINDOWS = (
    "registration_opens_at",
    "registration_closes_at",
    "check_in_opens_at",
    "check_in_closes_at",
    "starts_at",
)
# The settings that are one form field each (options and prizes have fields of their own).
PLAIN_SETTINGS = (
    "name",
    "variant",
    "format",
    "grand_final",
    "swiss_rounds",
    "groups",
    "group_advance",
    "second_stage",
    "group_stage",
    "table_size",
    "advance",
    "best_of",
    "final_best_of",
    "seeding",
    "third_place",
    "max_entries",
    "min_entries",
    "min_level",
    "entry_fee",
    "show_up_seconds",
    "turn_seconds",
    "spectators_allowed",
    *WINDOWS,
)
# Fixed once the tournament exists (tournaments.services.tournament_update refuses them).
FIXED = ("variant", "format", "table_size", "advance", "entry_fee")


class DateTimeLocal(forms.DateTimeInput):
    input_type = "datetime-local"

    def __init__(self):
        super().__init__(format="%Y-%m-%dT%H:%M")


class TournamentForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=120, validators=[visible_name])
    variant = forms.ChoiceField(label=_("Variant"), choices=variant_choices, initial="gin")
    format = forms.ChoiceField(
        label=_("Format"),
        required=False,  # empty: single elimination, as before formats existed
        choices=Tournament.Format.choices,
        initial=Tournament.Format.SINGLE,
        help_text=_(
            "Double elimination and two-stage events are head-to-head; Swiss "
            "events also play at tables of 3 to 6 (points by place)."
        ),
    )
    grand_final = forms.ChoiceField(
        label=_("Grand final (double elimination)"),
        required=False,
        # Short option names: the model's long ones are cut off inside a select.
        choices=[
            (Tournament.GrandFinal.RESET, _("With a reset")),
            (Tournament.GrandFinal.SIMPLE, _("One match")),
        ],
        initial=Tournament.GrandFinal.RESET,
        help_text=_(
            "With a reset, a second match is played if the losers' bracket champion wins the first."
        ),
    )
    swiss_rounds = forms.IntegerField(
        label=_("Swiss rounds"),
        required=False,
        min_value=BOUNDS["swiss_rounds"][0],
        max_value=BOUNDS["swiss_rounds"][1],
        help_text=_("Empty: enough rounds to leave one perfect score (log2 of the field)."),
    )
    tiebreak_1 = forms.ChoiceField(
        label=_("Swiss tie-break 1"), required=False, choices=[("", "—"), *TIEBREAK_CHOICES]
    )
    tiebreak_2 = forms.ChoiceField(
        label=_("Swiss tie-break 2"), required=False, choices=[("", "—"), *TIEBREAK_CHOICES]
    )
    tiebreak_3 = forms.ChoiceField(
        label=_("Swiss tie-break 3"),
        required=False,
        choices=[("", "—"), *TIEBREAK_CHOICES],
        help_text=_("None chosen: Buchholz, Sonneborn-Berger, head-to-head."),
    )
    groups = forms.IntegerField(
        label=_("Groups (two-stage)"),
        required=False,
        min_value=BOUNDS["groups"][0],
        max_value=BOUNDS["groups"][1],
        help_text=_("Round-robin groups, dealt by seed. Empty: one group."),
    )
    group_advance = forms.IntegerField(
        label=_("Going through from each group"),
        required=False,
        min_value=BOUNDS["group_advance"][0],
        max_value=BOUNDS["group_advance"][1],
        help_text=_("Into a knock-out; group winners meet other groups' runners-up. Empty: 2."),
    )
    group_stage = forms.ChoiceField(
        label=_("Group stage (two-stage)"),
        required=False,
        choices=Tournament.GroupStage.choices,
        initial=Tournament.GroupStage.ROUND_ROBIN,
        help_text=_(
            "Swiss groups play the Swiss rounds above (empty: from the group size) "
            "and rank by the Swiss tie-breaks."
        ),
    )
    second_stage = forms.ChoiceField(
        label=_("Second stage (two-stage)"),
        required=False,
        choices=Tournament.SecondStage.choices,
        initial=Tournament.SecondStage.SINGLE,
        help_text=_("The qualifiers' bracket; double elimination uses the grand final above."),
    )
    place_points = forms.RegexField(
        label=_("Swiss points by place (tables of 3 to 6)"),
        # ASCII digits (\d would take any script's), at most 1,000 a place (as the API).
        regex=r"^\s*[0-9]{1,4}(\s*,\s*[0-9]{1,4}){0,5}\s*$",
        max_length=200,
        required=False,
        help_text=_("From first place down, e.g. 3, 1, 0, 0. Empty: 3, 1, 0, 0."),
        error_messages={
            "invalid": _(
                "Up to six whole numbers of at most 1000, separated by commas, e.g. 3, 1, 0, 0."
            )
        },
    )
    table_size = forms.TypedChoiceField(
        label=_("Players per table"),
        coerce=int,
        choices=[(n, str(n)) for n in range(2, 7)],
        initial=2,
        help_text=_("2 is head-to-head. Gin Rummy seats exactly 2; Basic and Indian 2 to 6."),
    )
    advance = forms.TypedChoiceField(
        label=_("Players going through from each table"),
        coerce=int,
        choices=[(n, str(n)) for n in range(1, 6)],
        initial=1,
        help_text=_("Fewer than the players per table."),
    )
    best_of = forms.TypedChoiceField(
        label=_("Matches per table (best of)"), coerce=int, choices=ODD, initial=1
    )
    final_best_of = forms.TypedChoiceField(
        label=_("Matches at the final (best of)"),
        coerce=int,
        choices=[("", _("As every table")), *ODD],
        required=False,
        empty_value=None,
    )
    seeding = forms.ChoiceField(
        label=_("Seeding"), choices=Tournament.Seeding.choices, initial="rating"
    )
    third_place = forms.BooleanField(
        label=_("Play a match for third place"),
        required=False,
        help_text=_("Head-to-head tables only."),
    )
    spectators_allowed = forms.BooleanField(
        label=_("Open the tables to spectators"),
        required=False,
        help_text=_("Anyone signed in may watch the tables play, without seeing any hand."),
    )
    max_entries = forms.IntegerField(
        label=_("Most entries"),
        required=False,
        min_value=2,
        max_value=65536,
        help_text=_("Empty: no limit. Past it, players join a waiting list."),
    )
    min_entries = forms.IntegerField(
        label=_("Fewest entries to start"),
        required=False,
        min_value=BOUNDS["min_entries"][0],
        max_value=BOUNDS["min_entries"][1],
        initial=2,
        help_text=_("With fewer at the start time, the tournament is cancelled and fees refunded."),
    )
    min_level = forms.IntegerField(
        label=_("Lowest level allowed"), min_value=1, max_value=INT_MAX, initial=1
    )
    entry_fee = forms.IntegerField(
        label=_("Entry fee (coins)"),
        min_value=0,
        max_value=INT_MAX,
        initial=0,
        help_text=_("Refunded on withdrawal before the start, on no check-in and on cancelling."),
    )
    show_up_seconds = forms.IntegerField(
        label=_("Time to take a seat (seconds)"),
        min_value=0,
        max_value=86400,
        initial=300,
        help_text=_("After it, who has not taken their seat loses by walkover. 0 seats everyone."),
    )
    turn_seconds = forms.IntegerField(
        label=_("Time per turn (seconds)"), min_value=5, max_value=3600, initial=60
    )
    registration_opens_at = forms.DateTimeField(
        label=_("Registration opens"), required=False, widget=DateTimeLocal()
    )
    registration_closes_at = forms.DateTimeField(
        label=_("Registration closes"), required=False, widget=DateTimeLocal()
    )
    check_in_opens_at = forms.DateTimeField(
        label=_("Check-in opens"), required=False, widget=DateTimeLocal()
    )
    check_in_closes_at = forms.DateTimeField(
        label=_("Check-in closes"), required=False, widget=DateTimeLocal()
    )
    starts_at = forms.DateTimeField(
        label=_("Starts"),
        required=False,
        widget=DateTimeLocal(),
        help_text=_("Times are UTC. Empty: you start it from its page."),
    )

    def __init__(self, *args, tournament: Tournament | None = None, **kwargs):
        self.tournament = tournament
        if tournament is not None:
            kwargs.setdefault("initial", initial_of(tournament))
        super().__init__(*args, **kwargs)
        for variant in variants.names():
            for option in variants.get(variant).options:
                self.fields[option_field_name(variant, option.name)] = option_field(option)
        # Only what admins made awardable by organisers can be chosen.
        titles = [("", "—"), *awardable_titles().order_by("name").values_list("pk", "name")]
        rewards = [("", "—"), *awardable_rewards().order_by("name").values_list("pk", "name")]
        for row in range(PRIZE_ROWS):
            self.fields[f"prize_{row}_placement"] = forms.IntegerField(
                label=_("Place"), required=False, min_value=1, max_value=65536
            )
            self.fields[f"prize_{row}_coins"] = forms.IntegerField(
                label=_("Coins"), required=False, min_value=0, max_value=INT_MAX
            )
            self.fields[f"prize_{row}_xp"] = forms.IntegerField(
                label="XP", required=False, min_value=0, max_value=INT_MAX
            )
            self.fields[f"prize_{row}_title"] = forms.TypedChoiceField(
                label=_("Title"), required=False, choices=titles, coerce=int, empty_value=None
            )
            self.fields[f"prize_{row}_reward"] = forms.TypedChoiceField(
                label=_("Reward"), required=False, choices=rewards, coerce=int, empty_value=None
            )
        if tournament is not None:
            for name in FIXED:
                self.fields[name].disabled = True
                self.fields[name].help_text = _("Fixed once the tournament exists.")

    # --- what the template lays out ------------------------------------------------------

    def variant_sections(self) -> list[dict]:
        return [
            {
                "variant": variant,
                "label": label,
                "seats": _seats(variant),
                "fields": [
                    self[option_field_name(variant, o.name)] for o in variants.get(variant).options
                ],
            }
            for variant, label in variant_choices()
        ]

    def prize_rows(self) -> list[list]:
        return [[self[f"prize_{row}_{part}"] for part in PRIZE_PARTS] for row in range(PRIZE_ROWS)]

    def window_fields(self):
        return [self[name] for name in WINDOWS]

    # --- what the service gets -------------------------------------------------------------

    def clean(self):
        data = super().clean()
        places = [data.get(f"prize_{row}_placement") for row in range(PRIZE_ROWS)]
        for row, place in enumerate(places):
            given = any(
                data.get(f"prize_{row}_{part}") for part in ("coins", "xp", "title", "reward")
            )
            if given and not place:
                self.add_error(f"prize_{row}_placement", _("Which place wins this prize?"))
            if place and places.count(place) > 1:
                self.add_error(
                    f"prize_{row}_placement", _("Place %(n)s has two prizes.") % {"n": place}
                )
        return data

    def settings(self) -> dict:
        """Keyword arguments for tournament_create (or, without FIXED, tournament_update)."""
        data = self.cleaned_data
        variant = data["variant"]
        values = {name: data[name] for name in PLAIN_SETTINGS}
        # An option left empty takes the engine's default.
        values["options"] = chosen_options(data, variant)
        values["format"] = values["format"] or Tournament.Format.SINGLE
        values["min_entries"] = values["min_entries"] or 2
        values["grand_final"] = values["grand_final"] or Tournament.GrandFinal.RESET
        values["second_stage"] = values["second_stage"] or Tournament.SecondStage.SINGLE
        values["group_stage"] = values["group_stage"] or Tournament.GroupStage.ROUND_ROBIN
        values["tiebreaks"] = [data[name] for name in TIEBREAK_FIELDS if data.get(name)]
        text = data.get("place_points") or ""
        values["place_points"] = [int(part) for part in text.split(",") if part.strip()]
        values["prizes"] = [
            {
                "placement": data[f"prize_{row}_placement"],
                "coins": data[f"prize_{row}_coins"] or 0,
                "xp": data[f"prize_{row}_xp"] or 0,
                "title_id": data[f"prize_{row}_title"],
                "reward_id": data[f"prize_{row}_reward"],
            }
            for row in range(PRIZE_ROWS)
            if data.get(f"prize_{row}_placement")
        ]
        if self.tournament is not None:
            for name in FIXED:
                values.pop(name)
        return values

    def explain(self, message: str, field: str | None = None) -> None:
        """Put the service's refusal next to the field it concerns (`field`, or the one
        its message names; else above the form)."""
        text, target = message, field
        option = re.search(r"option '(\w+)'", message)
        if option:
            target = option_field_name(self.cleaned_data.get("variant", ""), option.group(1))
        for name, field in self.fields.items():
            # Only identifiers (best_of, starts_at): plain words like "variant" are prose.
            if "_" in name and re.search(rf"\b{re.escape(name)}\b", text):
                target = target or name
                text = re.sub(rf"\b{re.escape(name)}\b", f"“{field.label}”", text)
        if target is None and re.search(r"\btables of\b|\bseats \d", message):
            target = "table_size"
        self.add_error(target if target in self.fields else None, text)


def _seats(variant: str) -> str:
    v = variants.get(variant)
    if v.min_players == v.max_players:
        n = v.min_players
        return ngettext("%(n)s player a table", "%(n)s players a table", n) % {"n": n}
    return _("%(low)s to %(high)s players a table") % {"low": v.min_players, "high": v.max_players}


def initial_of(tournament: Tournament) -> dict:
    initial = {name: getattr(tournament, name) for name in PLAIN_SETTINGS}
    initial["place_points"] = ", ".join(map(str, tournament.place_points or []))
    for name, key in zip(TIEBREAK_FIELDS, tournament.tiebreaks or [], strict=False):
        initial[name] = key
    initial.update(initial_options(tournament.variant, tournament.options))
    for row, prize in enumerate(tournament.prizes.all()[:PRIZE_ROWS]):
        initial.update(
            {
                f"prize_{row}_placement": prize.placement,
                f"prize_{row}_coins": prize.coins or None,
                f"prize_{row}_xp": prize.xp or None,
                f"prize_{row}_title": prize.title_id,
                f"prize_{row}_reward": prize.reward_id,
            }
        )
    return initial
