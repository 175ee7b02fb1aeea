"""Knock's rules engine: pure Python, no Django. See engine/README.md."""

from engine import cards, fair, gin, variants
from engine.errors import IllegalAction

__all__ = ["IllegalAction", "cards", "fair", "gin", "variants"]
