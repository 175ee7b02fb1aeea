"""The web server trusts X-Forwarded-For only as far as NUM_PROXIES says (issue 24).

uvicorn on its own trusts the header from 127.0.0.1, so with nothing in front a forged,
rotating X-Forwarded-For passed every per-address limit: 12 of 12 sign-ups against a limit
of 10 an hour. Here the sign-up limit is 2 an hour, against the real web command line
(`manage.py serve`'s, which is config/ops/web.py's).
"""

import json
import sys

import pytest

from config.ops.management.commands.serve import programs
from tests.served import Served, fetch, free_port, step_env
from tests.workers import database_url

pytestmark = pytest.mark.django_db(transaction=True)


def sign_up(port: int, n: int, forwarded_for: str) -> int:
    body = json.dumps({"username": f"forger{n}", "password": "correct-horse-battery-9"})
    headers = {"Content-Type": "application/json", "X-Forwarded-For": forwarded_for}
    return fetch(port, "/api/auth/register/", method="POST", headers=headers, body=body)[0]


def serve_web(tmp_path, **env: str) -> tuple[Served, int]:
    port = free_port()
    values = step_env(
        DATABASE_URL=database_url(),
        # The embedded broker and a file cache of this test's own: fresh rate counts.
        CELERY_BROKER_URL=None,
        CELERY_RESULT_BACKEND=None,
        REDIS_URL=None,
        CACHE_URL=None,
        KNOCK_VAR_DIR=str(tmp_path),
        DEBUG="1",
        API_RATE_LIMITS="register=2/hour",
        **env,
    )
    argv = programs("127.0.0.1", port, 1)[0].argv
    assert argv[0] == sys.executable
    web = Served(values, *argv, log=tmp_path / "web.log")
    web.wait_listening(port)
    return web, port


def test_with_no_proxy_a_forged_forwarded_for_is_ignored(tmp_path):
    web, port = serve_web(tmp_path, NUM_PROXIES="0")
    try:
        answers = [sign_up(port, n, f"198.51.100.{n}") for n in range(3)]
    finally:
        web.stop()
    assert answers == [201, 201, 429], web.log.read_text()[-2000:]


def test_behind_one_proxy_the_address_it_appends_counts(tmp_path):
    web, port = serve_web(tmp_path, NUM_PROXIES="1", FORWARDED_ALLOW_IPS="127.0.0.1")
    try:
        answers = [sign_up(port, n, "198.51.100.7") for n in range(3)]
        answers.append(sign_up(port, 3, "198.51.100.8"))  # another client, its own count
    finally:
        web.stop()
    assert answers == [201, 201, 429, 201], web.log.read_text()[-2000:]
