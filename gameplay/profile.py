"""Sections other apps add to the player profile page, without gameplay importing them.

Dependencies point one way (engine <- gameplay <- tournaments, leagues), so the profile
cannot ask tournaments or leagues what to show. Instead they register a section function
in their AppConfig.ready():

    from gameplay.profile import register_section

    def tournament_wins(player):
        wins = selectors.wins_of(player)
        if not wins:
            return None  # nothing to show: the section is left out
        return {
            "title": "Tournaments",
            "template": "tournaments/profile_section.html",
            "context": {"wins": wins},
        }

    register_section(tournament_wins)

The profile page calls every function, in registration order, with the Player. The
template is rendered with the section's context plus `player` and `request`. Keep each
section to a fixed number of queries: a test pins the profile page's query count.
"""

from collections.abc import Callable

from django.template.loader import render_to_string

Section = Callable[[object], dict | None]

_sections: list[Section] = []


def register_section(fn: Section) -> Section:
    """Add a section; registering the same function again is a no-op (ready() may rerun)."""
    if fn not in _sections:
        _sections.append(fn)
    return fn


def unregister_section(fn: Section) -> None:
    """Remove a section (tests that register one clean up with this)."""
    _sections.remove(fn)


def render_sections(player, request) -> list[dict]:
    """Each registered section that has something to show, as {"title", "html"}."""
    rendered = []
    for fn in _sections:
        section = fn(player)
        if section is None:
            continue
        context = {**section.get("context", {}), "player": player}
        rendered.append(
            {
                "title": section["title"],
                "html": render_to_string(section["template"], context, request=request),
            }
        )
    return rendered
