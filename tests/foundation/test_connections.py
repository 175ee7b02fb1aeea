"""The web server `make run` starts keeps its PostgreSQL connections bounded under a burst.

Under ASGI each request's sync code runs in a thread of its own; with a persistent
connection per thread, 15 parallel requests left 17 idle connections and a burst held 97
of the server's 100. The web program is started exactly as `manage.py serve` builds it.
"""

import http.client
import socket
import subprocess
import threading
import time

import pytest
from django.db import connection

from config.ops.management.commands.serve import WEB_DATABASE_POOL_MAX, programs

APP_NAME = "knock-web-bound-test"  # libpq's PGAPPNAME tells this server's backends apart


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def backends() -> int:
    with connection.cursor() as cursor:
        # pg_stat_activity is read once per transaction unless the snapshot is dropped.
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [APP_NAME]
        )
        return cursor.fetchone()[0]


def get(port: int, path: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", path)
    response = conn.getresponse()
    response.read()
    return response.status


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_burst_of_parallel_requests_holds_at_most_the_pools_connections(tmp_path):
    db = connection.settings_dict
    url = f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    port = free_port()
    [web] = [program for program in programs("127.0.0.1", port, 1) if program.name == "web"]
    env = web.env | {"DATABASE_URL": url, "PGAPPNAME": APP_NAME, "KNOCK_VAR_DIR": str(tmp_path)}
    server = subprocess.Popen(web.argv, env=env, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                get(port, "/healthz")
                break
            except OSError:
                assert time.monotonic() < deadline, "the web server did not start"
                time.sleep(0.1)

        most, sampling = 0, True

        def sample() -> None:
            nonlocal most
            try:
                while sampling:
                    most = max(most, backends())
                    time.sleep(0.02)
            finally:
                connection.close()  # this thread's own

        sampler = threading.Thread(target=sample)
        sampler.start()
        statuses = []
        for path in ("/", "/healthz", "/leaderboard/"):
            requests = [
                threading.Thread(target=lambda p=path: statuses.append(get(port, p)))
                for _ in range(40)
            ]
            for request in requests:
                request.start()
            for request in requests:
                request.join()
        sampling = False
        sampler.join()
        after = backends()
    finally:
        server.terminate()
        server.wait(10)
        # Its backends end a moment after it does; the test database is dropped after this.
        deadline = time.monotonic() + 10
        while backends() and time.monotonic() < deadline:
            time.sleep(0.05)

    assert len(statuses) == 120 and 500 not in statuses
    assert 1 <= most <= int(WEB_DATABASE_POOL_MAX)
    assert after <= int(WEB_DATABASE_POOL_MAX)
