"""What gameplay announces; tournaments and leagues subscribe in their AppConfig.ready.

Gameplay never imports those apps: it sends `match_finished` inside the finalizing
transaction, with the ids of the matches that transaction finalized (one, or a tournament
round's worth). Receivers only enqueue their own jobs (`config.jobs.enqueue`), which so
commit with the results, or roll back with them; they must not do the work themselves.
"""

from django.dispatch import Signal

match_finished = Signal()  # sender=Match class, kwargs: match_ids (a list)
