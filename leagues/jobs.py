"""The names of the leagues' jobs, shared by the services that enqueue them and the tasks
registered under them (`leagues.tasks`); see `gameplay.jobs`."""

RECORD_FIXTURE = "leagues.tasks.record_fixture"
RANK_ROUND = "leagues.tasks.rank_round"
CLOSE_SEASON = "leagues.tasks.close_season"
