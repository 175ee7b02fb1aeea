"""What event a match belongs to, said at its table by the apps above gameplay.

Dependencies point one way (engine <- gameplay <- tournaments, leagues), so the table
cannot ask a tournament or a league about its match. Instead they register a function in
their AppConfig.ready() that answers for the matches that are theirs:

    from gameplay.table_context import register_context

    def tournament_table(match):
        ...
        return {"event": "Diwali Cup", "detail": "Semi-finals · game 1 of 3",
                "url": "/tournaments/7/", "back": "Back to the tournament"}

    register_context(tournament_table)

The table page asks each in registration order and shows the first answer: the event's
name linked, the round, and the result's way back. Each answer costs a fixed number of
queries.
"""

from collections.abc import Callable

Context = Callable[[object], dict | None]

_contexts: list[Context] = []


def register_context(fn: Context) -> Context:
    """Add a context; registering the same function again is a no-op (ready() may rerun)."""
    if fn not in _contexts:
        _contexts.append(fn)
    return fn


def context_of(match) -> dict | None:
    """The first registered answer for the match, or None (a room's match)."""
    for fn in _contexts:
        found = fn(match)
        if found:
            return found
    return None
