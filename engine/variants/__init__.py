"""Registry of rummy variants: ``variants.get("gin")`` and friends.

A new variant subclasses `base.Variant` and calls `register` at import; the server only
ever goes through `get`, so it needs no change when a variant is added.
"""

from __future__ import annotations

from engine.variants.base import Game, Option, Record, Variant

_REGISTRY: dict[str, Variant] = {}


def register(variant: Variant) -> Variant:
    """Make ``variant`` reachable by its name; a name can be registered once."""
    if variant.name in _REGISTRY:
        raise ValueError(f"variant {variant.name!r} is already registered")
    _REGISTRY[variant.name] = variant
    return variant


def get(name: str) -> Variant:
    """The variant called ``name``; ValueError lists the known names."""
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown variant {name!r}; known: {', '.join(names())}") from None


def names() -> list[str]:
    return sorted(_REGISTRY)


# Importing registers them.
from engine.variants import basic as _basic  # noqa: E402
from engine.variants import dummy as _dummy  # noqa: E402
from engine.variants import gin as _gin  # noqa: E402
from engine.variants import indian as _indian  # noqa: E402
from engine.variants import indian21 as _indian21  # noqa: E402

__all__ = [
    "Game",
    "Option",
    "Record",
    "Variant",
    "_basic",
    "_dummy",
    "_gin",
    "_indian",
    "_indian21",
    "get",
    "names",
    "register",
]
