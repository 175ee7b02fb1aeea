"""Template filters for brackets drawn inside other drawings (double elimination's sides,
two-stage events' stages): each part is arranged on its own, as the page's whole bracket is."""

from django import template

from tournaments.views import bracket_drawing

register = template.Library()


@register.filter
def drawing(bracket: dict) -> dict:
    return bracket_drawing(bracket)
