"""Django's own words that its Hindi catalogue leaves untranslated and Knock's pages show
(the password rules of sign-up and password change, and `timeuntil`'s units, as in a
tournament's "in 2 hours"). Marked here so `makemessages` puts
them in Knock's catalogues, whose translations LOCALE_PATHS puts before Django's. Nothing
calls this list: the markers are what matters. A word Django's catalogue of a language
already translates need not be here; a page test in that language says what is missing
(tests/gameplay/test_hindi_browser.py)."""

from django.utils.translation import gettext_noop, ngettext_lazy

# ruff: noqa: RUF001 -- Django's own msgids, typographic apostrophe and all

WORDS = [
    ngettext_lazy(
        "This password is too short. It must contain at least %d character.",
        "This password is too short. It must contain at least %d characters.",
        "min_length",
    ),
    ngettext_lazy(
        "Your password must contain at least %(min_length)d character.",
        "Your password must contain at least %(min_length)d characters.",
        "min_length",
    ),
    gettext_noop("The password is too similar to the %(verbose_name)s."),
    gettext_noop("Your password can’t be too similar to your other personal information."),
    gettext_noop("This password is too common."),
    gettext_noop("Your password can’t be a commonly used password."),
    gettext_noop("This password is entirely numeric."),
    gettext_noop("Your password can’t be entirely numeric."),
    # django.utils.timesince.TIME_STRINGS: the `timesince`/`timeuntil` filters' units.
    ngettext_lazy("%(num)d year", "%(num)d years", "num"),
    ngettext_lazy("%(num)d month", "%(num)d months", "num"),
    ngettext_lazy("%(num)d week", "%(num)d weeks", "num"),
    ngettext_lazy("%(num)d day", "%(num)d days", "num"),
    ngettext_lazy("%(num)d hour", "%(num)d hours", "num"),
    ngettext_lazy("%(num)d minute", "%(num)d minutes", "num"),
]
