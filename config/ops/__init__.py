"""Running Knock's processes: the `serve` supervisor behind `make run`, and the heartbeats
that workers and beat write so /healthz can tell when one of them stopped."""
