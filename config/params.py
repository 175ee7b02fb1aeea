"""Whole numbers from query strings and form fields: ASCII digits only, within a range.

Python's int() also reads other scripts' digits ("٣" is 3) and raises ValueError on "²"
(which str.isdigit() accepts) and past 4,300 digits; a value past a column's range fails
in the database. Every number a view parses from text goes through `ascii_int`.
"""

import re

MAX_ID = 2**63 - 1  # PostgreSQL's bigint: no row has a larger primary key
_DIGITS = re.compile(r"[0-9]{1,19}")


def ascii_int(text, *, low: int = 0, high: int = MAX_ID) -> int | None:
    """The number `text` spells in ASCII digits if it is within [low, high], else None."""
    if not isinstance(text, str) or not _DIGITS.fullmatch(text):
        return None
    value = int(text)
    return value if low <= value <= high else None
