"""Names one person types and others read (tournaments, leagues and their divisions,
titles, rewards, achievements, rooms): visible characters only.

A direction override (U+202E) makes a name read backwards, an isolate or a mark reorders
what follows it, a control character or a zero-width one hides in plain sight; none of
them belongs in a name. Usernames follow the same rule (gameplay/usernames.py).
"""

import unicodedata

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from config.errors import DomainError

# Control, format (zero-width characters, the direction marks U+200E/F, embeddings and
# overrides U+202A-202E, isolates U+2066-2069, the BOM), private-use, surrogate,
# unassigned, and line or paragraph separators.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})


def hidden_characters(text: str) -> list[str]:
    """The code points of `text` a reader cannot see or trust, as U+XXXX, sorted."""
    return sorted(
        {f"U+{ord(c):04X}" for c in text or "" if unicodedata.category(c) in HIDDEN_CATEGORIES}
    )


def hidden_message(hidden: list[str]) -> str:
    return _(
        "A name cannot contain invisible, control or direction-changing characters "
        "(found %(found)s)."
    ) % {"found": ", ".join(hidden)}


def visible_name(value: str) -> None:
    """The model fields' validator, so the admin's forms refuse such a name too."""
    hidden = hidden_characters(value)
    if hidden:
        raise ValidationError(hidden_message(hidden), code="invisible_characters")


def refuse_hidden(*names: str) -> None:
    """The services' check, behind every door (pages, API, admin): a 400 `invalid_name`."""
    for name in names:
        hidden = hidden_characters(name)
        if hidden:
            raise DomainError(hidden_message(hidden), code="invalid_name")
