"""The rating people see: the OpenSkill ordinal mapped onto a familiar chess-like range.

The stored rating is OpenSkill's ordinal, mu - 3 sigma: 0 for a newcomer (mu 25, sigma
25/3), rising as the system grows surer of a player who wins. People know ratings around
1500 from chess sites, so the pages show 1500 + 20 x ordinal: a newcomer reads 1500 and a
strong regular about 2000. Plain functions, so every page and the API agree.
"""

from django.utils.translation import gettext_lazy as _

BASE = 1500
PER_POINT = 20
EXPLANATION = _(
    "Knock rating: 1500 + 20 × the OpenSkill ordinal (μ − 3σ, a cautious estimate "  # noqa: RUF001
    "of skill). "
    "Everyone starts at 1500; it is provisional until the estimate settles."
)


def displayed(ordinal: float | None) -> int | None:
    """The rating shown for a stored ordinal (None stays None: no rated match yet)."""
    if ordinal is None:
        return None
    return round(BASE + PER_POINT * ordinal)
