"""One log format for every process: with LOG_FORMAT=json, each line a web server, a
worker or beat writes (the image's `web`, `worker` and `beat` steps, as real processes) is
a JSON object, a request's lines carry its request id and a task's lines its name, id and
match ids. Also: Sentry only with SENTRY_DSN, and ADMINS from the environment."""

import ast
import gzip
import http.server
import json
import logging
import subprocess
import sys
import threading
import time

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.celery import app
from config.env import env_admins
from config.logs import JsonFormatter, PlainFormatter, context
from gameplay.tasks import record_fair_play
from tests.served import ROOT, Served, fetch, free_port, step_env
from tests.workers import database_url

pytestmark = pytest.mark.django_db(transaction=True)


#: What Celery prints itself, past logging, when SIGTERM stops a worker.
CELERY_SHUTDOWN_PRINT = "worker: Warm shutdown (MainProcess)"


def json_lines(served: Served) -> list[dict]:
    """Every line of the process's log, each of which must be one JSON object."""
    text = served.log.read_text()
    lines = [line for line in text.splitlines() if line.strip() not in ("", CELERY_SHUTDOWN_PRINT)]
    assert lines
    return [json.loads(line) for line in lines]


def test_a_requests_lines_are_json_and_carry_its_request_id(tmp_path):
    port = free_port()
    env = step_env(
        DATABASE_URL=database_url(),
        LOG_FORMAT="json",
        LOG_LEVEL="INFO",
        DEBUG="1",
        HOST="127.0.0.1",
        PORT=str(port),
        WEB_WORKERS="1",
    )
    web = Served(env, "web", log=tmp_path / "web.log")
    try:
        web.wait_listening(port)
        # No worker has sent a heartbeat here: /healthz logs a warning for this request.
        status, headers, _ = fetch(port, "/healthz", headers={"X-Request-ID": "req-42.a"})
        assert status == 503
        assert headers["x-request-id"] == "req-42.a"
        _, made, _ = fetch(port, "/healthz", headers={"X-Request-ID": "x" * 300})
        assert len(made["x-request-id"]) == 32  # a header no log should carry: a new id
    finally:
        web.stop()
    lines = json_lines(web)
    mine = [line for line in lines if line.get("request_id") == "req-42.a"]
    loggers = {line["logger"] for line in mine}
    assert {"config.health", "uvicorn.access"} <= loggers, lines
    warning = next(line for line in mine if line["logger"] == "config.health")
    assert warning["level"] == "WARNING"
    assert warning["message"].startswith("healthz: workers: missing")
    assert {"time", "pid"} <= set(warning)
    assert not [line for line in lines if "x" * 300 in json.dumps(line)]


def test_a_tasks_lines_are_json_and_carry_its_ids(tmp_path, celery_test_queue):
    name = f"logs-{free_port()}@%h"
    env = step_env(
        DATABASE_URL=database_url(),
        CELERY_TASK_DEFAULT_QUEUE=celery_test_queue,
        LOG_FORMAT="json",
        LOG_LEVEL="INFO",
    )
    worker = Served(
        env, "worker", "--concurrency", "1", "--without-mingle", "-n", name,
        log=tmp_path / "worker.log",
    )  # fmt: skip
    try:
        node = name.replace("%h", __import__("socket").gethostname())
        deadline = time.monotonic() + 60
        while not app.control.ping(destination=[node], timeout=0.5):
            assert worker.proc.poll() is None, worker.log.read_text()
            assert time.monotonic() < deadline, worker.log.read_text()
        sent = record_fair_play.apply_async(args=(987654, 987655), queue=celery_test_queue)
        deadline = time.monotonic() + 30
        while f'"task_id": "{sent.id}"' not in worker.log.read_text():
            assert time.monotonic() < deadline, worker.log.read_text()
            time.sleep(0.1)
    finally:
        worker.stop()
    lines = json_lines(worker)
    done = [line for line in lines if line.get("task_id") == sent.id]
    assert done, lines
    assert all(line["task"] == "gameplay.tasks.record_fair_play" for line in done)
    assert all(line["match_ids"] == [987654, 987655] for line in done)
    assert any("succeeded" in line["message"] for line in done)
    assert any(line["logger"].startswith("celery") and "task_id" not in line for line in lines)


class SentryInbox(http.server.BaseHTTPRequestHandler):
    """Stands in for Sentry's ingest endpoint: keeps the bodies posted to it."""

    received: list[bytes] = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        self.received.append(body)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        """Quiet: the test reads what was received."""


REPORT = """
import logging, sentry_sdk
client = sentry_sdk.get_client()
print(client.is_active(), sorted(client.integrations))
logging.getLogger("knock.test").error("sentry-check %s", 42)
sentry_sdk.flush(timeout=10)
"""


@pytest.mark.parametrize("configured", [True, False])
def test_sentry_gets_errors_only_when_configured(configured):
    inbox = http.server.HTTPServer(("127.0.0.1", 0), SentryInbox)
    SentryInbox.received = []
    thread = threading.Thread(target=inbox.serve_forever, daemon=True)
    thread.start()
    dsn = f"http://public@127.0.0.1:{inbox.server_port}/1" if configured else None
    try:
        done = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", REPORT],
            cwd=ROOT,
            env=step_env(SENTRY_DSN=dsn, DATABASE_URL=database_url()),
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
    finally:
        inbox.shutdown()
    active, _, integrations = done.stdout.splitlines()[-1].partition(" ")
    if configured:
        assert active == "True"
        assert {"celery", "django", "logging"} <= set(ast.literal_eval(integrations))
        assert any(b"sentry-check 42" in body for body in SentryInbox.received)
    else:
        assert active == "False"
        assert SentryInbox.received == []


def record(message: str = "hello %s", *args) -> logging.LogRecord:
    return logging.LogRecord(
        "knock.test", logging.ERROR, __file__, 1, message, args or ("you",), None
    )


def test_the_plain_format_carries_the_context_too():
    token = context.set({"request_id": "abc"})
    try:
        rec = record()
        rec.context = context.get()
    finally:
        context.reset(token)
    assert PlainFormatter().format(rec).endswith(" ERROR knock.test request_id=abc: hello you")


def test_a_json_line_carries_the_traceback():
    try:
        raise ValueError("boom")
    except ValueError:
        import sys

        rec = logging.LogRecord(
            "knock.test", logging.ERROR, __file__, 1, "failed", (), sys.exc_info()
        )
    line = json.loads(JsonFormatter().format(rec))
    assert line["message"] == "failed"
    assert "ValueError: boom" in line["exc"]


def test_admins_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("ADMINS", "Ann <ann@example.com>, bob@example.com")
    assert env_admins("ADMINS") == [
        ("Ann", "ann@example.com"),
        ("bob@example.com", "bob@example.com"),
    ]
    monkeypatch.setenv("ADMINS", "")
    assert env_admins("ADMINS") == []
    monkeypatch.setenv("ADMINS", "Ann, not-an-address")
    with pytest.raises(ImproperlyConfigured, match="ADMINS must list addresses"):
        env_admins("ADMINS")


def test_settings_take_admins_from_the_environment():
    """So mail_admins (a disputed match) has someone to write to."""
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", "from django.conf import settings; "
         "print(settings.ADMINS)"],
        cwd=ROOT,
        env=step_env(ADMINS="Ann <ann@example.com>", DATABASE_URL=database_url()),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )  # fmt: skip
    assert done.stdout.splitlines()[-1] == "[('Ann', 'ann@example.com')]"


def test_beats_lines_are_json_too(tmp_path, celery_test_queue):
    env = step_env(
        DATABASE_URL=database_url(),
        KNOCK_VAR_DIR=str(tmp_path),  # its schedule file (and an embedded broker) here
        CELERY_TASK_DEFAULT_QUEUE=celery_test_queue,
        LOG_FORMAT="json",
        LOG_LEVEL="INFO",
    )
    beat = Served(env, "beat", log=tmp_path / "beat.log")
    try:
        deadline = time.monotonic() + 60
        while "Sending due task" not in beat.log.read_text():
            assert beat.proc.poll() is None, beat.log.read_text()
            assert time.monotonic() < deadline, beat.log.read_text()
            time.sleep(0.2)
    finally:
        beat.stop()
    lines = json_lines(beat)
    assert any(line["logger"] == "celery.beat" for line in lines)
