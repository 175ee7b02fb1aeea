"""Form fields for a game's options, built from the engine's `Option` metadata (type,
default, range, help), so nobody types raw JSON: the organiser's tournament form and the
admin's room, tournament and league forms share them.

Every game's options are fields at once, named `opt_<variant>_<option>`; only the chosen
game's count, and an empty one is that option's default. The engine's `validate_options`
has the last word, and its refusal is shown by the field it names.
"""

from __future__ import annotations

import re

from django import forms
from django.core.exceptions import ValidationError
from django.utils.text import capfirst, format_lazy
from django.utils.translation import gettext_lazy, pgettext_lazy

from engine import variants
from gameplay.models import variant_choices

# A choice option's values as the select shows them: in English the engine's own keys
# (what the API takes, and what the options' help names), in other languages words.
CHOICE_LABELS = {
    "points": pgettext_lazy("game option choice", "points"),
    "pool101": pgettext_lazy("game option choice", "pool101"),
    "pool201": pgettext_lazy("game option choice", "pool201"),
    "deals": pgettext_lazy("game option choice", "deals"),
    "two_sequences": pgettext_lazy("game option choice", "two_sequences"),
    "pure_run": pgettext_lazy("game option choice", "pure_run"),
    "any": pgettext_lazy("game option choice", "any"),
    "same": pgettext_lazy("game option choice", "same"),
    "winner": pgettext_lazy("game option choice", "winner"),
    "penalty": pgettext_lazy("game option choice", "penalty"),
}


def option_field_name(variant: str, option: str) -> str:
    return f"opt_{variant}_{option}"


def option_label(option):
    """The option's name as the reader reads it: the engine's label translated, or for an
    option without one (a variant not yet labelled) its name in words."""
    return gettext_lazy(option.label) if option.label else capfirst(option.name.replace("_", " "))


def _help(option):
    """The engine's help, translated, then the range an integer option allows."""
    helps = [capfirst(gettext_lazy(option.help))] if option.help else []
    if option.kind is int and option.minimum is not None and option.maximum is not None:
        helps.append(
            format_lazy(
                gettext_lazy("{low} to {high}; default {default}"),
                low=option.minimum,
                high=option.maximum,
                default=option.default,
            )
        )
    return format_lazy(". ".join("{}" for _ in helps), *helps)


def option_field(option) -> forms.Field:
    """A form field for one engine Option: its type, its range and its help."""
    common = {
        "label": option_label(option),
        "required": False,  # only the chosen game's options count; empty is its default
        "initial": option.default,
        "help_text": _help(option),
    }
    choices = getattr(option, "choices", ())
    if choices:
        return forms.ChoiceField(choices=[(c, CHOICE_LABELS.get(c, c)) for c in choices], **common)
    if option.kind is bool:
        return forms.BooleanField(**common)
    return forms.IntegerField(min_value=option.minimum, max_value=option.maximum, **common)


def all_option_fields() -> dict[str, forms.Field]:
    """One field per option of every game, by field name."""
    return {
        option_field_name(variant, option.name): option_field(option)
        for variant in variants.names()
        for option in variants.get(variant).options
    }


def chosen_options(data: dict, variant: str) -> dict:
    """The chosen game's options from cleaned form data; empty fields are left out."""
    chosen = {
        o.name: data.get(option_field_name(variant, o.name)) for o in variants.get(variant).options
    }
    return {name: value for name, value in chosen.items() if value not in (None, "")}


def initial_options(variant: str, options: dict | None) -> dict:
    return {option_field_name(variant, key): value for key, value in (options or {}).items()}


class VariantOptionsAdminForm(forms.ModelForm):
    """An admin ModelForm whose JSON `options` field is replaced by one field per option
    of every game; `options` is rebuilt from the chosen game's fields and checked by the
    engine. Subclasses set Meta as usual, without "options"."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        instance = self.instance
        if instance.pk and instance.variant:
            for name, value in initial_options(instance.variant, instance.options).items():
                self.initial.setdefault(name, value)

    def clean(self):
        data = super().clean()
        variant = data.get("variant") or self.instance.variant
        if not variant or self.errors:
            return data
        options = chosen_options(data, variant)
        try:
            variants.get(variant).validate_options(options)
        except ValueError as exc:
            named = re.search(r"'(\w+)'", str(exc))
            field = option_field_name(variant, named.group(1)) if named else None
            raise ValidationError({field if field in self.fields else None: str(exc)}) from exc
        self.instance.options = options
        return data

    @classmethod
    def option_fieldsets(cls) -> list[tuple[str, dict]]:
        """One admin fieldset per game, shown only for the chosen game (admin-options.js)."""
        return [
            (
                format_lazy(gettext_lazy("{game} options"), game=label),
                {
                    "classes": ["variant-options", f"variant-{variant}"],
                    "description": format_lazy(
                        gettext_lazy(
                            "Used when the game is {game}; an empty field takes the game's default."
                        ),
                        game=label,
                    ),
                    "fields": [
                        option_field_name(variant, o.name) for o in variants.get(variant).options
                    ],
                },
            )
            for variant, label in variant_choices()
        ]


VariantOptionsAdminForm.declared_fields.update(all_option_fields())
VariantOptionsAdminForm.base_fields.update(VariantOptionsAdminForm.declared_fields)
