"""Competition math both tournaments and leagues use, on plain data: places with ties,
standings and their tie-breakers, round-robin and multi-table schedules.

Like `engine/`, it imports no Django and no app, so neither events app owns what both need.
"""
