"""Every task a job runs retries a lock wait or a dropped connection, as gameplay's did."""

from types import SimpleNamespace

import pytest
from django.db import OperationalError

from gameplay import services as gameplay_services
from gameplay import tasks as gameplay_tasks
from leagues import services as league_services
from leagues import tasks as league_tasks
from tournaments import services as tournament_services
from tournaments import tasks as tournament_tasks

SEASON = SimpleNamespace(pk=7)

# task, the service it calls, what the service returns, what the task then returns
CASES = [
    (gameplay_tasks.finalize_match, gameplay_services, "match_finalize_many", {1}, 1),
    (tournament_tasks.match_finished, tournament_services, "table_matches_finished", {1}, 1),
    (tournament_tasks.start_tables, tournament_services, "waiting_tables", [], 0),
    (tournament_tasks.table_deadline, tournament_services, "table_deadline", "walkover", None),
    (league_tasks.record_fixture, league_services, "fixture_record", True, None),
    (league_tasks.rank_round, league_services, "round_rank", True, None),
    (league_tasks.close_season, league_services, "season_close", SEASON, 7),
    (league_tasks.open_round, league_services, "round_open", 2, None),
    (league_tasks.no_show, league_services, "fixture_no_show", True, None),
]


@pytest.mark.parametrize(
    ("task", "module", "name", "value", "returned"), CASES, ids=[c[0].name for c in CASES]
)
def test_a_task_retries_an_operational_error(monkeypatch, task, module, name, value, returned):
    calls = []

    def flaky(**kwargs):
        calls.append(kwargs)
        if len(calls) == 1:
            raise OperationalError("canceling statement due to lock timeout")
        return value

    monkeypatch.setattr(module, name, flaky)
    monkeypatch.setattr(tournament_services, "table_start_many", lambda **kwargs: {})
    monkeypatch.setattr(tournament_services, "start_batch", lambda **kwargs: 128)
    result = task.apply(args=(1,))
    assert result.get() == (value if returned is None else returned)
    assert len(calls) == 2
