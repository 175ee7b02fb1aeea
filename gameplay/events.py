"""What gameplay announces; tournaments and leagues subscribe in their AppConfig.ready.

Gameplay never imports those apps: it sends `match_finished` after the finalizing
transaction commits, with the ids of the matches that transaction finalized (one, or a
tournament round's worth); receivers enqueue their own tasks.
"""

from django.dispatch import Signal

match_finished = Signal()  # sender=Match class, kwargs: match_ids (a list)
