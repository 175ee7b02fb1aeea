"""What a username may be: plain functions, no database (uniqueness is the service's and
the database's).

A name is NFKC-normalised first, so a fullwidth or ligature spelling is the name it looks
like; then it must be visible, plain and not one the house's bots use. Its `skeleton` is
what the name looks like: two names with one skeleton are confusable (U+0430, a Cyrillic
letter, for a Latin "a"), and the service refuses a name whose skeleton a player has.
"""

import functools
import re
import unicodedata

from confusable_homoglyphs.utils import load as load_confusables
from django.utils.translation import gettext as _

from config.text import hidden_characters

MAX_LENGTH = 150  # Django's User.username

# Besides letters and digits of any script, with the combining marks (vowel signs, virama)
# that many scripts' letters take (UAX #31's identifiers); Python's \w leaves the marks out.
PUNCTUATION = frozenset("._@+-")
BOT_NAME = re.compile(r"bot-[a-z]+-[0-9]+", re.IGNORECASE)


class UsernameError(ValueError):
    def __init__(self, message: str, code: str = "invalid_username"):
        super().__init__(message)
        self.code = code


def bot_username(kind: str, number: int) -> str:
    return f"bot-{kind}-{number}"


def _plain(name: str) -> bool:
    """Letters and digits of any script, each with its combining marks, and . @ + - _."""
    after_letter = False
    for c in name:
        kind = unicodedata.category(c)[0]
        if kind in "LN":
            after_letter = True
        elif kind == "M":
            if not after_letter:
                return False
        elif c in PUNCTUATION:
            after_letter = False
        else:
            return False
    return True


def normalize_username(raw: str) -> str:
    """The name to store, or UsernameError saying what is wrong with it."""
    name = unicodedata.normalize("NFKC", raw or "").strip()
    if not name:
        raise UsernameError(_("A username is required."))
    hidden = hidden_characters(name)
    if hidden:
        raise UsernameError(
            _(
                "A username cannot contain invisible, control or direction-changing "
                "characters (found %(found)s)."
            )
            % {"found": ", ".join(hidden)}
        )
    if not _plain(name):
        raise UsernameError(
            _("A username may contain letters, digits and . @ + - _ only, with no spaces.")
        )
    if len(name) > MAX_LENGTH:
        raise UsernameError(_("A username is at most %(n)s characters long.") % {"n": MAX_LENGTH})
    if BOT_NAME.fullmatch(name):
        raise UsernameError(
            _("Names like bot-greedy-1 belong to the house's bots."), code="reserved_username"
        )
    return name


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype, from Unicode's confusables.txt as
    confusable_homoglyphs ships it (both directions of every `source ; prototype` line).
    The lines form stars: a prototype lists all its sources and a source only its
    prototype. A pair that lists only each other cannot say which is which; the smaller
    represents both, which is all a skeleton needs (one representative per class)."""
    pairs = load_confusables("confusables.json")
    table = {}
    for char, glyphs in pairs.items():
        if len(char) != 1 or len(glyphs) != 1:
            continue  # a sequence, or the prototype of several sources: itself
        other = glyphs[0]["c"]
        mutual = len(other) == 1 and len(pairs.get(other, ())) == 1
        if not (mutual and other > char):
            table[char] = other
    return table


def skeleton(name: str) -> str:
    """UTS #39's skeleton of a name (NFD, each character by its prototype, NFD again),
    made case-blind as Knock's names are: casefolded before each of two mappings, so
    "VIKRAM" is "vikram" (not "vlkram": a capital I's prototype is "l") and "0" (whose
    prototype is "O") is "o"."""
    prototypes = _prototypes()

    def mapped(text: str) -> str:
        text = unicodedata.normalize("NFD", text)
        return unicodedata.normalize("NFD", "".join(prototypes.get(c, c) for c in text))

    return mapped(mapped(name.casefold()).casefold())
