"""Fixtures shared by the whole suite."""

import os
import uuid

import celery.contrib.testing.tasks  # noqa: F401 - registers celery.ping for the ping check
import pytest
from celery.contrib.testing.worker import start_worker
from django.conf import settings
from django.db import connection
from rest_framework.test import APIClient

from config.celery import app as celery_app

# Bots at event tables play at once in tests, as the factories' rooms do (bot_pause_ms=0):
# here for the worker and server processes tests start, `event_bots_at_once` for this one.
os.environ.setdefault("KNOCK_EVENT_BOT_PAUSE_MS", "0")
# Hands follow one another at once unless a test asks for the rest between them.
os.environ.setdefault("KNOCK_NEXT_HAND_SECONDS", "0")


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Factories hash a password per user; PBKDF2 would cost more than most tests."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def event_bots_at_once(settings):
    settings.KNOCK_EVENT_BOT_PAUSE_MS = int(os.environ["KNOCK_EVENT_BOT_PAUSE_MS"])
    settings.KNOCK_NEXT_HAND_SECONDS = int(os.environ["KNOCK_NEXT_HAND_SECONDS"])


@pytest.fixture(autouse=True)
def fresh_rate_limits(settings):
    """Each test counts its requests from zero: its own cache key prefix (on Redis and on
    files alike), so no test is throttled by another's. Keys expire with their windows."""
    default = settings.CACHES["default"]
    settings.CACHES = {"default": {**default, "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}}


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's, and at the end the live tables' database threads let go of their
    connections first (gameplay/live.py): the test database is dropped after this. Threads
    that served the in-process ASGI servers' requests (asgiref's) keep theirs open too; on
    PostgreSQL their sessions are ended here, or the drop fails ("being accessed by other
    users") and leaves the database behind."""
    yield
    from django.db import connection

    from gameplay import live

    live.close_db_threads()
    if connection.vendor == "postgresql":
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()


@pytest.fixture(scope="session")
def celery_test_queue():
    """Route this run's tasks to a queue of its own, so a worker from `make run` or another
    test run on the same broker never takes them."""
    queue = f"knock-test-{uuid.uuid4().hex[:12]}"
    previous = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = queue
    yield queue
    celery_app.conf.task_default_queue = previous


@pytest.fixture
def celery_worker(celery_test_queue, transactional_db):
    """A real Celery worker (threads in this process) on the configured broker and backend.

    Tests that use it see committed rows only, hence `transactional_db`. SQLite's in-memory
    test database locks whole tables across threads, so there the worker runs one task at
    a time; on PostgreSQL two run at once.
    """
    # start_worker checks the worker answers its ping task through the result backend.
    celery_app.tasks["celery.ping"].ignore_result = False
    with start_worker(
        celery_app,
        pool="threads",
        concurrency=2 if connection.vendor == "postgresql" else 1,
        queues=[celery_test_queue],
        perform_ping_check=True,
        shutdown_timeout=30,
    ) as worker:
        yield worker


def pytest_collection_modifyitems(config, items):
    """Tests marked `postgres` prove row locks and concurrency, which SQLite cannot; tests
    marked `redis` prove the Redis feeds and channel layer, which the embedded default has
    none of. Either is skipped where its server is not configured, visibly. CI runs them on
    PostgreSQL and Redis with KNOCK_STRICT=1, where any skip fails."""
    missing = {}
    if connection.vendor != "postgresql":
        missing["postgres"] = "needs PostgreSQL: set DATABASE_URL=postgres://..."
    if not settings.REDIS_URL:
        missing["redis"] = "needs Redis: set REDIS_URL or CELERY_BROKER_URL=redis://..."
    for item in items:
        for name, reason in missing.items():
            if name in item.keywords:
                item.add_marker(pytest.mark.skip(reason=reason))
                break


def pytest_sessionfinish(session, exitstatus):
    if os.environ.get("KNOCK_STRICT") != "1":
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = len(reporter.stats.get("skipped", [])) if reporter else 0
    if skipped:
        reporter.write_line(
            f"KNOCK_STRICT=1: {skipped} test(s) skipped; every test must run in CI."
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture(scope="session")
def browser():
    """Debian's chromium driven by Playwright (browser downloads cannot work here)."""
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the ORM calls the tests make
    # beside it are still plain synchronous code.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, live_server):
    """A fresh browser page; `page.base` is the live server's URL.

    A test fails if Chromium reports anything the Content-Security-Policy blocked: the
    site must work under its policy.
    """
    context = browser.new_context(base_url=live_server.url)
    page = context.new_page()
    page.base = live_server.url
    blocked = []
    page.on(
        "console",
        lambda message: (
            blocked.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    yield page
    context.close()
    assert not blocked, blocked


@pytest.fixture
def login(page, live_server):
    """Log a user into the browser page through the login form (factories' password)."""

    def log_in(username: str, password: str = "correct-horse-battery"):
        page.goto("/accounts/login/?next=/")
        page.fill("#id_username", username)
        page.fill("#id_password", password)
        page.click("form.card button[type=submit]")
        page.wait_for_load_state()

    return log_in


@pytest.fixture
def eager_tasks():
    """Run tasks in-process for fast tests; the real-worker tests prove the broker path."""
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager = False
    celery_app.conf.task_eager_propagates = False


@pytest.fixture
def shoot(page):
    """Screenshots of the page at 1280 px and 375 px wide, full length, into
    var/screenshots/site/ (or $KNOCK_SHOTS), for people to look at; never committed."""
    from pathlib import Path

    from django.conf import settings

    folder = Path(os.environ.get("KNOCK_SHOTS") or Path(settings.BASE_DIR, "var/screenshots/site"))

    def take(name: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        size = page.viewport_size or {"width": 1280, "height": 800}
        for width in (1280, 375):
            page.set_viewport_size({"width": width, "height": 800})
            page.screenshot(path=str(folder / f"{name}-{width}.png"), full_page=True)
        page.set_viewport_size(size)

    return take
