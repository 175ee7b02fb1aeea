"""The names of gameplay's jobs: the services that enqueue them (`config.jobs.enqueue`) and
the tasks that run them (`gameplay.tasks`, registered under these names) share them, so a
job is named once and a misspelt one fails at import, not on a worker."""

PLAY_BOTS = "gameplay.tasks.play_bots"
TURN_TIMEOUT = "gameplay.tasks.turn_timeout"
FINALIZE_MATCH = "gameplay.tasks.finalize_match"
RECORD_FAIR_PLAY = "gameplay.tasks.record_fair_play"
HAND_BREAK_END = "gameplay.tasks.hand_break_end"
