"""Errors of gameplay's services beyond those of config.errors, shared by its modules."""

from config.errors import DomainError


class InsufficientCoins(DomainError):
    status_code = 402
    code = "insufficient_coins"


class IllegalMove(DomainError):
    """The engine refused an action; `code` is the engine's stable reason."""

    code = "illegal_action"


class BalanceOverflow(DomainError):
    """A booking would take a balance past `gameplay.models.BALANCE_MAX`; nothing moves."""

    code = "balance_overflow"
