"""The live table survives a restart of the web server (Playwright on Debian's chromium).

Unlike tests/gameplay/test_table_page.py, whose server runs in a thread of the test, the
site here is a real uvicorn process on config.asgi against the test database, the bots a
real Celery worker (`celery_worker`) on the same broker and Redis channel layer: the
server can be killed outright, as a crashed or redeployed machine would be, and started
again on the same port. The page is never reloaded: it must notice, back off, reconnect
by itself and come back to the exact state, including a bot's move made while it was down.
"""

import itertools
import os
import signal
import socket as sockets
import subprocess
import sys
import time

import pytest
from django.test import Client

from gameplay import selectors, services
from gameplay.models import Match
from tests.factories import BotPlayerFactory, PlayerFactory, RoomFactory
from tests.gameplay.test_table_page import TURN, play_turn, seq_of, wait_seq
from tests.workers import ROOT, _die_with_the_test, database_url

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class WebServer:
    """`uvicorn config.asgi:application` in a process group of its own, on a fixed port."""

    def __init__(self, port: int, queue: str) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url(),
            # Its moves enqueue bot turns where this test's worker listens.
            "CELERY_TASK_DEFAULT_QUEUE": queue,
            # WhiteNoise then serves the table's JavaScript from static/ (its finders).
            "DEBUG": "1",
            "LOG_LEVEL": "WARNING",
        }
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "config.asgi:application",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--lifespan",
                "off",
                "--ws",
                "websockets-sansio",
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=self.env,
            start_new_session=True,
            preexec_fn=_die_with_the_test,
        )
        deadline = time.monotonic() + 60
        while not self.listening():
            assert self.proc.poll() is None, "uvicorn exited while starting"
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.1)
        time.sleep(0.2)
        assert self.proc.poll() is None, f"uvicorn exited: port {self.port} taken by another?"

    def listening(self) -> bool:
        with sockets.socket() as probe:
            return probe.connect_ex(("127.0.0.1", self.port)) == 0

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Stop the whole server process group: SIGKILL leaves every socket dropped with
        no close frame, as a crash would; SIGTERM is uvicorn's graceful shutdown."""
        os.killpg(self.proc.pid, sig)
        self.proc.wait(timeout=30)
        self.proc = None


# When the page opens each table socket, by the page's clock (Playwright's own socket
# events reach the test only while it calls into Playwright, so their times say nothing).
# The site's notices socket reconnects on its own schedule and is not counted.
SOCKET_CLOCK = """
(() => {
  const Real = window.WebSocket;
  window.socketsOpened = [];
  window.WebSocket = class extends Real {
    constructor(url, ...rest) {
      super(url, ...rest);
      if (String(url).includes("/ws/matches/")) window.socketsOpened.push(performance.now());
    }
  };
})();
"""


def sockets_opened(page) -> list[float]:
    """When the page opened each socket so far, in seconds."""
    return [ms / 1000 for ms in page.evaluate("() => window.socketsOpened")]


def os_free_port() -> int:
    """A port the kernel has free now, outside the 8240-8249 of the in-thread servers (a
    test elsewhere could take one of those while this server is down)."""
    with sockets.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def web_server(transactional_db, celery_test_queue):
    server = WebServer(os_free_port(), celery_test_queue)
    server.start()
    yield server
    if server.proc is not None:
        server.kill()


@pytest.fixture
def open_page(browser, web_server):
    """A page of the server process, signed in as `player` (a session made here: the
    server does not know the tests' quick password hasher, so its login form would not)."""
    contexts, errors = [], []

    def open_as(player):
        client = Client()
        client.force_login(player.user)
        context = browser.new_context(base_url=web_server.url)
        contexts.append(context)
        session = client.cookies["sessionid"].value
        context.add_cookies([{"name": "sessionid", "value": session, "url": web_server.url}])
        page = context.new_page()
        page.add_init_script(SOCKET_CLOCK)
        page.on("pageerror", lambda error: errors.append(error))
        return page

    yield open_as
    for context in contexts:
        context.close()
    assert not errors, f"the page's JavaScript failed: {errors}"


def hand_in_page(page) -> list[str]:
    return sorted(page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)"))


def wait_for(predicate, timeout: float, message: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, message
        time.sleep(0.05)


def play_until_the_bot_is_to_move(page, match: Match) -> int:
    """Play the person's turns until the bot (seat 1) is to move; returns the seq then."""
    while True:
        page.wait_for_selector(TURN)
        play_turn(page)
        match.refresh_from_db()
        assert match.status == Match.Status.ACTIVE, "the match ended before the test did"
        if match.to_move == 1:
            assert seq_of(page) == match.seq
            return match.seq


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM], ids=["crash", "graceful"])
def test_the_table_reconnects_by_itself_after_the_server_restarts(
    web_server, open_page, celery_worker, stop
):
    # The bot's reply lands while the server is down; a target no single hand reaches keeps
    # the match going for as long as the test plays (the factory's 25 can end in one gin).
    room = RoomFactory(bot_pause_ms=1500, options={"target": 10000})
    ada = PlayerFactory()
    match = services.match_create(
        variant="gin", options=room.options, players=[ada, BotPlayerFactory()], room=room
    )
    page = open_page(ada)
    page.goto(f"/matches/{match.pk}/")
    page.wait_for_selector("#conn[data-state='live']")
    # Once the person's move hands the turn to the bot, take the server down.
    before = play_until_the_bot_is_to_move(page, match)

    web_server.kill(stop)
    page.wait_for_selector("#conn[data-state='down']", timeout=10000)
    attempts_before = len(sockets_opened(page))
    # The bot plays on the worker while no web server runs.
    wait_for(
        lambda: Match.objects.filter(pk=match.pk, seq__gt=before).exists(),
        timeout=20,
        message="the bot did not play while the server was down",
    )
    time.sleep(3)  # down long enough for a few attempts, backing off
    web_server.start()

    page.wait_for_selector("#conn[data-state='live']", timeout=30000)
    match.refresh_from_db()
    wait_seq(page, match.seq)
    assert seq_of(page) == match.seq > before
    # The exact state: the seat's own view, as the server has it now.
    view = selectors.match_view(selectors.match_watchable(match.pk, ada), ada)
    assert hand_in_page(page) == sorted(view["hand"])
    assert page.get_attribute("#knock-table", "data-status") == view["status"]
    # It retried by itself, backing off: several attempts while down, each wait longer.
    attempts = sockets_opened(page)[attempts_before:]
    assert 2 <= len(attempts) <= 8, attempts
    waits = [later - earlier for earlier, later in itertools.pairwise(attempts)]
    assert all(b > a for a, b in itertools.pairwise(waits)), waits

    # And play goes on over the new socket: the person moves until the bot is to play,
    # and its reply arrives live.
    handed_over = play_until_the_bot_is_to_move(page, match)
    page.wait_for_selector(TURN, timeout=20000)
    match.refresh_from_db()
    assert seq_of(page) == match.seq > handed_over
