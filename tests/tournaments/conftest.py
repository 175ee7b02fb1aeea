import pytest

from gameplay import tasks as gameplay_tasks
from tournaments import tasks as tournament_tasks


@pytest.fixture
def no_broker(monkeypatch):
    """For tests that stand in for the workers themselves: nothing is sent to the broker,
    where it would wait for (and delay) the next test's real worker."""
    for task in (
        gameplay_tasks.play_bots,
        gameplay_tasks.finalize_match,
        tournament_tasks.match_finished,
        tournament_tasks.start_tables,
    ):
        monkeypatch.setattr(task, "delay", lambda *args, **kwargs: None)
