"""The image's path without Docker: deploy/entrypoint.sh's steps, as the Dockerfile runs
them (collectstatic at build, then migrate and web), against PostgreSQL and Redis with
DEBUG=0 and a real ALLOWED_HOSTS, and every kind of page answering 200.

Collecting with DEBUG=1 (as the image once did) writes no manifest, and then every HTML
page answered 500 with DEBUG=0 while /healthz said 200.
"""

import re
import sys
import tomllib
import uuid

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from tests.served import ROOT, Served, fetch, free_port, run_step, step_env

HOST = "knock.example.test"

# Run by `manage.py shell` in the fresh database: a player signed in, a running match at
# their table, a tournament taking entries; prints the ids the pages need.
SETUP = """
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from gameplay import services
from tests.factories import PlayerFactory, RoomFactory
from tests.tournaments.helpers import open_tournament
mia = PlayerFactory(user__username="mia")
bot = services.bot_players(kind="greedy", count=1)[0]
match = services.match_create(variant="gin", options={}, players=[mia, bot], room=RoomFactory())
cup = open_tournament(name="Image Cup")
session = SessionStore()
session[SESSION_KEY] = str(mia.user.pk)
session[BACKEND_SESSION_KEY] = "gameplay.backends.CaseInsensitiveModelBackend"
session[HASH_SESSION_KEY] = mia.user.get_session_auth_hash()
session.create()
print(match.pk, cup.pk, mia.pk, session.session_key)
"""


@pytest.fixture
def fresh_database():
    """A database of its own on the test server, for migrate to build from nothing."""
    db = connection.settings_dict
    name = f"knock_image_{uuid.uuid4().hex[:8]}"
    admin = {"host": db["HOST"] or "127.0.0.1", "port": db["PORT"] or 5432, "user": db["USER"]}
    if db.get("PASSWORD"):
        admin["password"] = db["PASSWORD"]
    with psycopg.connect(dbname="postgres", autocommit=True, **admin) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    yield f"postgres://{admin['user']}{password}@{admin['host']}:{admin['port']}/{name}"
    with psycopg.connect(dbname="postgres", autocommit=True, **admin) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.mark.postgres
@pytest.mark.redis
def test_the_images_steps_serve_every_page_with_debug_off(fresh_database, tmp_path):
    port = free_port()
    env = step_env(
        DEBUG="0",
        SECRET_KEY="image-test-secret-key-" + "x" * 40,
        ALLOWED_HOSTS=HOST,
        DATABASE_URL=fresh_database,
        CELERY_BROKER_URL=settings.CELERY_BROKER_URL,
        REDIS_URL=settings.REDIS_URL,
        CHANNELS_PREFIX=f"image{port}",
        KNOCK_VAR_DIR=str(tmp_path),
        # As in docker-compose.yml: one proxy in front, on this machine here.
        SECURE_PROXY_SSL_HEADER="1",
        NUM_PROXIES="1",
        HOST="127.0.0.1",
        PORT=str(port),
        WEB_WORKERS="1",
    )
    run_step(env.copy() | {"DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"}, "collectstatic")
    assert (tmp_path / "static" / "staticfiles.json").exists()  # collected without a database
    run_step(env, "migrate")
    printed = run_step(env, sys.executable, "manage.py", "shell", "-c", SETUP)
    match, cup, player, session = printed.splitlines()[-1].split()

    web = Served(env, "web", log=tmp_path / "web.log")
    try:
        web.wait_listening(port)
        headers = {"Host": HOST, "X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"}
        signed_in = headers | {"Cookie": f"sessionid={session}"}
        anonymous_pages = [
            "/",
            "/accounts/login/",
            "/accounts/signup/",
            "/accounts/password_reset/",
            "/api/",
            "/api/docs/",
            "/api/schema/",
            "/admin/login/",
            "/verify/",
            "/leaderboard/",
            f"/tournaments/{cup}/",
            f"/players/{player}/",
        ]
        pages = [
            "/",
            "/rooms/",
            "/tournaments/",
            "/leagues/",
            "/accounts/settings/",
            f"/matches/{match}/",
        ]
        answers = {path: fetch(port, path, headers=headers)[0] for path in anonymous_pages}
        answers |= {
            f"{path} (signed in)": fetch(port, path, headers=signed_in)[0] for path in pages
        }
        assert answers == dict.fromkeys(answers, 200), web.log.read_text()[-3000:]

        body = fetch(port, "/", headers=signed_in)[2]
        stylesheet = re.search(rb'href="(/static/[^"]+\.css)"', body).group(1).decode()
        assert re.search(r"\.[0-9a-f]{12}\.css$", stylesheet)  # the manifest's hashed name
        assert fetch(port, stylesheet, headers=headers)[0] == 200
        # The container's health check passes with the real domain as the only host.
        run_step(env, "healthcheck", "web")
    finally:
        web.stop()


def test_the_dockerfile_runs_the_entrypoint_steps_as_a_user_with_a_health_check():
    dockerfile = (ROOT / "Dockerfile").read_text()
    instructions = [line for line in dockerfile.splitlines() if line and line[0] != "#"]
    text = "\n".join(instructions)
    assert "deploy/entrypoint.sh install" in text
    assert "deploy/entrypoint.sh collectstatic" in text
    assert "DEBUG=1" not in text
    assert "COPY pyproject.toml README.md constraints.txt ./" in text
    assert re.search(r"^USER knock$", text, re.M)
    assert re.search(r'^HEALTHCHECK .*\n?.*CMD \["deploy/entrypoint.sh", "healthcheck"', text, re.M)
    assert 'ENTRYPOINT ["deploy/entrypoint.sh"]' in text
    # Nothing runs as root after USER: the last USER line comes after the last RUN.
    assert text.rindex("USER knock") > text.rindex("RUN ")


def test_the_dockerfile_copies_every_package():
    """A package left out of the image installs as nothing and fails at import."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packages = [p.rstrip("*") for p in project["tool"]["setuptools"]["packages"]["find"]["include"]]
    copied = re.findall(r"^COPY (\S+) \./\1$", (ROOT / "Dockerfile").read_text(), re.M)
    assert set(packages) - set(copied) == set()


def requirement_name(spec: str) -> str:
    return re.split(r"[\[<>=!~; ]", spec, maxsplit=1)[0].lower().replace("_", "-")


def test_constraints_pin_every_dependency_exactly():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {requirement_name(spec) for spec in project["dependencies"]}
    wanted |= {requirement_name(spec) for spec in project["optional-dependencies"]["dev"]}
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert re.fullmatch(r"[a-z0-9][a-z0-9.-]*", name) and version, line
            pins[name] = version
    assert wanted - set(pins) == set()
    # Exact pins in pyproject.toml agree with the constraints.
    for spec in project["dependencies"] + project["optional-dependencies"]["dev"]:
        if "==" in spec:
            assert pins[requirement_name(spec)] == spec.split("==")[1].split()[0], spec
