"""Template helpers the site's pages share: the displayed rating, the nav's current page,
and numbers, counts and times in the reader's language and time zone."""

import re

from babel.numbers import format_decimal
from django import template
from django.conf import settings
from django.template.defaultfilters import date as date_filter
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, ngettext, pgettext
from django.utils.translation import gettext as _

from gameplay import rating_scale
from gameplay.models import Metric

register = template.Library()


@register.filter
def rating(ordinal):
    """A stored OpenSkill ordinal as the rating people see (gameplay.rating_scale)."""
    value = rating_scale.displayed(ordinal)
    return "" if value is None else number(value)


@register.simple_tag
def rating_explained():
    return rating_scale.EXPLANATION


@register.simple_tag
def language_choices():
    """The header's language buttons: each language but the page's own, regional variants
    (en-in) left out; English readers in India get theirs from their browser."""
    current = (get_language() or "en").split("-")[0]
    return [
        (code, name) for code, name in settings.LANGUAGES if "-" not in code and code != current
    ]


def babel_locale() -> str:
    """The active language as a CLDR locale: "hi", "en_IN", "en"."""
    language = get_language() or "en"
    base, _sep, region = language.partition("-")
    return f"{base}_{region.upper()}" if region else base


@register.filter
def number(value):
    """A count grouped as the reader's locale groups it (CLDR through Babel): 1,234,567 in
    English, 12,34,567 in Hindi and Indian English."""
    if value is None or value == "":
        return ""
    return format_decimal(value, locale=babel_locale())


@register.filter
def when(value, style="full"):
    """A moment in the reader's time zone (the one activated for the request), with the
    zone said: "Fri 4 Dec, 13:09 IST". `style` "date" gives the day alone, "time" the
    time of day with its zone."""
    if not value:
        return ""
    local = timezone.localtime(value)
    # Translators: a format of Django's date filter; keep T, the time zone.
    formats = {
        "full": pgettext("date format", "D j M, H:i T"),
        "date": pgettext("date format", "j M Y"),
        "time": pgettext("date format", "H:i T"),
    }
    return date_filter(local, formats[style])


@register.simple_tag(takes_context=True)
def nav_current(context, prefix: str):
    """` aria-current="page"` on the nav link of the section being shown."""
    request = context.get("request")
    if request is not None and request.path.startswith(prefix):
        return mark_safe(' aria-current="page"')
    return ""


@register.inclusion_tag("_confirm.html", takes_context=True)
def confirm(context, label, action, question, yes, style="", end=False, coins=None, name=""):
    """A button that opens a small panel asking `question` (its "{coins}" and "{name}"
    filled in); the panel's form POSTs to `action`. No JavaScript: a <details> element."""
    question = question.replace("{name}", str(name))
    if coins is not None:
        question = question.replace("{coins}", coins_words(coins))
    return {
        "label": label,
        "action": action,
        "question": question,
        "yes": yes,
        "style": style,
        "end": end,
        "csrf_token": context.get("csrf_token"),
    }


def coins_words(amount) -> str:
    amount = amount or 0
    return ngettext("%(n)s coin", "%(n)s coins", amount) % {"n": number(amount)}


@register.simple_tag
def coins(amount):
    return format_html("{}", coins_words(amount))


# English ordinals need their suffix; other languages say it their own way in the
# catalogue ("%(n)sवाँ"), so each suffix is a message of its own.
def ordinal_words(n: int) -> str:
    if 10 <= n % 100 <= 20 or n % 10 not in (1, 2, 3):
        return pgettext("ordinal", "%(n)sth") % {"n": number(n)}
    return {
        1: pgettext("ordinal", "%(n)sst"),
        2: pgettext("ordinal", "%(n)snd"),
        3: pgettext("ordinal", "%(n)srd"),
    }[n % 10] % {"n": number(n)}


@register.filter
def ordinal_place(n):
    """1 -> 1st, 2 -> 2nd, 11 -> 11th, 23 -> 23rd (in English)."""
    return ordinal_words(int(n))


_METRIC_REASON = re.compile(r"^([a-z_]+) (\d+)$")
_PLACE_REASON = re.compile(r"^(.+): place (\d+)$")


@register.filter
def reason_words(reason: str) -> str:
    """Why a title was granted, in words: the stored reason may be a metric code and a
    threshold ("matches_won 10") or a prize's "Sunday Cup: place 1"."""
    reason = reason or ""
    metric = _METRIC_REASON.match(reason)
    if metric and metric.group(1) in Metric.values:
        return f"{Metric(metric.group(1)).label}: {number(int(metric.group(2)))}"
    place = _PLACE_REASON.match(reason)
    if place:
        n, event = int(place.group(2)), place.group(1)
        if n == 1:
            return _("Champion of %(event)s") % {"event": event}
        return _("%(place)s in %(event)s") % {"place": ordinal_words(n), "event": event}
    return reason


@register.filter
def duration_words(value) -> str:
    """A timedelta as people say it: "1 day", "2 days 6 hours", "45 minutes"."""
    seconds = int(value.total_seconds())
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    units = (
        (days, lambda n: ngettext("%(n)s day", "%(n)s days", n)),
        (hours, lambda n: ngettext("%(n)s hour", "%(n)s hours", n)),
        (minutes, lambda n: ngettext("%(n)s minute", "%(n)s minutes", n)),
    )
    parts = [words(n) % {"n": number(n)} for n, words in units if n]
    return " ".join(parts) or _("no time")
