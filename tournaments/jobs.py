"""The names of the tournaments' jobs, shared by the services that enqueue them and the
tasks registered under them (`tournaments.tasks`); see `gameplay.jobs`."""

MATCH_FINISHED = "tournaments.tasks.match_finished"
START_TABLES = "tournaments.tasks.start_tables"
DELIVER_WEBHOOK = "tournaments.tasks.deliver_webhook"
ADVANCE_SCHEDULE = "tournaments.tasks.advance_schedule"
