"""Template helpers the site's pages share: the displayed rating and the nav's current page."""

import re

from django import template
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from gameplay import rating_scale
from gameplay.models import Metric

register = template.Library()


@register.filter
def rating(ordinal):
    """A stored OpenSkill ordinal as the rating people see (gameplay.rating_scale)."""
    value = rating_scale.displayed(ordinal)
    return "" if value is None else value


@register.simple_tag
def rating_explained():
    return rating_scale.EXPLANATION


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
        question = question.replace("{coins}", f"{coins} coin{'' if coins == 1 else 's'}")
    return {
        "label": label,
        "action": action,
        "question": question,
        "yes": yes,
        "style": style,
        "end": end,
        "csrf_token": context.get("csrf_token"),
    }


@register.simple_tag
def coins(amount):
    amount = amount or 0
    return format_html("{} coin{}", amount, "" if amount == 1 else "s")


@register.filter
def ordinal_place(n):
    """1 -> 1st, 2 -> 2nd, 11 -> 11th, 23 -> 23rd."""
    n = int(n)
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


_METRIC_REASON = re.compile(r"^([a-z_]+) (\d+)$")
_PLACE_REASON = re.compile(r"^(.+): place (\d+)$")


@register.filter
def reason_words(reason: str) -> str:
    """Why a title was granted, in words: the stored reason may be a metric code and a
    threshold ("matches_won 10") or a prize's "Sunday Cup: place 1"."""
    reason = reason or ""
    metric = _METRIC_REASON.match(reason)
    if metric and metric.group(1) in Metric.values:
        return f"{Metric(metric.group(1)).label}: {metric.group(2)}"
    place = _PLACE_REASON.match(reason)
    if place:
        n, event = int(place.group(2)), place.group(1)
        return f"Champion of {event}" if n == 1 else f"{ordinal_place(n)} in {event}"
    return reason


@register.filter
def duration_words(value) -> str:
    """A timedelta as people say it: "1 day", "2 days 6 hours", "45 minutes"."""
    seconds = int(value.total_seconds())
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    parts = [
        f"{n} {unit}{'' if n == 1 else 's'}"
        for n, unit in ((days, "day"), (hours, "hour"), (minutes, "minute"))
        if n
    ]
    return " ".join(parts) or "no time"
