"""Template helpers the site's pages share: the displayed rating and the nav's current page."""

from django import template
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from gameplay import rating_scale

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
