"""A bracket's words in the reader's language. Rounds keep their English names in the
database and the API (Round.name: "Semi-finals", "Round 2", "Losers' final"); the pages
say them through these messages, one whole message per name and per "out in" result, so
no sentence is built from pieces."""

import re

from django.utils.translation import gettext as _

_NUMBERED = re.compile(r"^(Round|Group round|Winners' round|Losers' round) (\d+)$")


def round_title(name: str) -> str:
    """A stored round name as the page says it; a name it does not know, as it is."""
    named = {
        "Final": _("Final"),
        "Semi-finals": _("Semi-finals"),
        "Quarter-finals": _("Quarter-finals"),
        "Winners' final": _("Winners' final"),
        "Losers' final": _("Losers' final"),
        "Grand final": _("Grand final"),
        "Grand final reset": _("Grand final reset"),
    }
    if name in named:
        return named[name]
    numbered = _NUMBERED.match(name)
    if numbered:
        kind, n = numbered.groups()
        words = {
            "Round": _("Round %(n)s"),
            "Group round": _("Group round %(n)s"),
            "Winners' round": _("Winners' round %(n)s"),
            "Losers' round": _("Losers' round %(n)s"),
        }[kind]
        return words % {"n": n}
    return name


def out_in(name: str) -> str:
    """ "Out in the Semi-finals", "Out in Round 1": the round an entry went out in."""
    named = {
        "Final": _("Out in the Final"),
        "Semi-finals": _("Out in the Semi-finals"),
        "Quarter-finals": _("Out in the Quarter-finals"),
        "Winners' final": _("Out in the Winners' final"),
        "Losers' final": _("Out in the Losers' final"),
        "Grand final": _("Out in the Grand final"),
        "Grand final reset": _("Out in the Grand final reset"),
    }
    if name in named:
        return named[name]
    numbered = _NUMBERED.match(name)
    if numbered:
        kind, n = numbered.groups()
        words = {
            "Round": _("Out in Round %(n)s"),
            "Group round": _("Out in Group round %(n)s"),
            "Winners' round": _("Out in Winners' round %(n)s"),
            "Losers' round": _("Out in Losers' round %(n)s"),
        }[kind]
        return words % {"n": n}
    return _("Out in %(round)s") % {"round": name}
