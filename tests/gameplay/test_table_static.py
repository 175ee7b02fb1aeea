"""The table's ES modules as production serves them: DEBUG=0, `collectstatic` into
hashed names (config.storage.StaticFilesStorage), whitenoise serving STATIC_ROOT.

A module imports the others by relative path; unless collectstatic rewrites those paths to
the hashed names, a page would run one deploy's modules with another's, or two copies of
the shared store. The rewrite is checked on the files, then the table is played from them
in a real browser (Playwright on Debian's chromium) against a real uvicorn process."""

import json
import os
import re
from pathlib import Path, PurePosixPath

import pytest
from django.conf import settings
from django.test import Client

from engine import variants
from gameplay import services
from tests.factories import BotPlayerFactory, PlayerFactory, RoomFactory
from tests.gameplay import test_table_restart as restart
from tests.gameplay.test_table_page import TURN, play_turn, seq_of
from tests.served import run_step, step_env

IMPORT = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}/[^"']+)["']""")
# Production, but over plain HTTP on 127.0.0.1 (the test's browser has no certificate).
PRODUCTION = {
    "DEBUG": "0",
    "ALLOWED_HOSTS": "127.0.0.1",
    "SECURE_SSL_REDIRECT": "0",
    "SESSION_COOKIE_SECURE": "0",
    "CSRF_COOKIE_SECURE": "0",
    "SECURE_HSTS_SECONDS": "0",
}


@pytest.fixture(scope="module")
def collected(tmp_path_factory) -> Path:
    """The var directory of the image's own collectstatic step (deploy/entrypoint.sh)."""
    var = tmp_path_factory.mktemp("var")
    run_step(step_env(KNOCK_VAR_DIR=str(var)), "collectstatic", timeout=120)
    return var


def test_every_table_module_imports_the_others_by_their_hashed_names(collected):
    root = collected / "static"
    paths = json.loads((root / "staticfiles.json").read_text())["paths"]
    modules = {name for name in paths if name.startswith("table/") and name.endswith(".js")}
    assert {"table/main.js", "table/store.js", "table/variants/gin.js"} <= modules
    # What the page loads by URL: main.js, and the variant's module (table_data).
    todo = [paths["table/main.js"]] + [paths[f"table/variants/{v}.js"] for v in variants.names()]
    reached = set()
    while todo:
        served = PurePosixPath(todo.pop())
        reached.add(str(served))
        for spec in IMPORT.findall((root / served).read_text()):
            target = os.path.normpath(served.parent / spec)
            assert (root / target).is_file(), (str(served), spec)
            if target not in reached:
                todo.append(target)
    # Each module once, by its hashed name, from every importer: one copy of the store.
    assert reached == {paths[name] for name in modules}


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_table_plays_from_the_collected_modules_with_debug_off(
    collected, browser, celery_test_queue, celery_worker
):
    room = RoomFactory(options={"target": 10000})
    ada = PlayerFactory()
    match = services.match_create(
        variant="gin", options=room.options, players=[ada, BotPlayerFactory()], room=room
    )
    server = restart.WebServer(restart.os_free_port(), celery_test_queue)
    # The test's own key, so the server reads the session the test signs.
    server.env |= {**PRODUCTION, "KNOCK_VAR_DIR": str(collected), "SECRET_KEY": settings.SECRET_KEY}
    server.start()
    scripts, errors = [], []
    try:
        client = Client()
        client.force_login(ada.user)
        context = browser.new_context(base_url=server.url)
        context.add_cookies(
            [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": server.url}]
        )
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(error))
        page.on(
            "response",
            lambda response: (
                scripts.append((response.url, response.status))
                if response.url.endswith(".js")
                else None
            ),
        )
        page.goto(f"/matches/{match.pk}/")
        page.wait_for_selector("#conn[data-state='live']")
        assert page.locator("#hand .card").count() in (10, 11)
        for _ in range(4):
            page.wait_for_selector(TURN, timeout=15_000)
            before = seq_of(page)
            play_turn(page)
            assert seq_of(page) > before
        context.close()
    finally:
        server.kill()
    assert not errors, f"the page's JavaScript failed: {errors}"
    table = [(url, status) for url, status in scripts if "/static/table/" in url]
    assert len(table) >= 11  # main, its modules and the variant's
    assert all(status == 200 for _, status in table), table
    # Every module came by its hashed name (cached for ever), none by its plain one.
    assert all(re.search(r"\.[0-9a-f]{12}\.js$", url) for url, _ in table), table
