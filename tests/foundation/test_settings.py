"""Settings read from the environment: good values parse, bad ones stop start-up by name."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import (
    env_bool,
    env_int,
    env_list,
    env_rates,
    parse_broker_url,
    parse_cache_url,
    parse_database_url,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("url", "engine", "name"),
    [
        ("postgres://postgres@127.0.0.1:5432/knock", "django.db.backends.postgresql", "knock"),
        (
            "postgresql://u:p@db.example.com/knock_prod",
            "django.db.backends.postgresql",
            "knock_prod",
        ),
        ("sqlite:////tmp/knock.sqlite3", "django.db.backends.sqlite3", "/tmp/knock.sqlite3"),
    ],
)
def test_database_url_parses(url, engine, name):
    config = parse_database_url(url)
    assert config["ENGINE"] == engine
    assert config["NAME"] == name


@pytest.mark.parametrize(
    "url", ["nonsense", "mongodb://h/db", "postgres://u:p@h:notaport/db", "postgres://h:5432"]
)
def test_malformed_database_url_names_the_variable(url):
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL"):
        parse_database_url(url)


@pytest.mark.parametrize(
    "url",
    [
        "redis://127.0.0.1:6379/0",
        "amqp://guest:guest@rabbit:5672//",
        "filesystem://",
        "rediss://h:6380/1",
    ],
)
def test_broker_url_parses(url):
    assert parse_broker_url(url) == url


@pytest.mark.parametrize(
    "url", ["redis://127.0.0.1:port/0", "http://example.com", "nonsense", "redis://", "amqp:///"]
)
def test_malformed_broker_url_names_the_variable(url):
    with pytest.raises(ImproperlyConfigured, match="CELERY_BROKER_URL"):
        parse_broker_url(url)


def test_typed_readers(monkeypatch):
    monkeypatch.setenv("KNOCK_FLAG", "off")
    monkeypatch.setenv("KNOCK_NUM", "12")
    monkeypatch.setenv("KNOCK_LIST", "a.example, b.example ,")
    assert env_bool("KNOCK_FLAG", default=True) is False
    assert env_int("KNOCK_NUM", 0) == 12
    assert env_list("KNOCK_LIST", []) == ["a.example", "b.example"]
    monkeypatch.setenv("KNOCK_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="KNOCK_FLAG"):
        env_bool("KNOCK_FLAG", default=True)
    monkeypatch.setenv("KNOCK_NUM", "twelve")
    with pytest.raises(ImproperlyConfigured, match="KNOCK_NUM"):
        env_int("KNOCK_NUM", 0)


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    # Only what the test sets: nothing from this run (DEBUG, a database, the browser
    # fixture's DJANGO_ALLOW_ASYNC_UNSAFE) may leak into the checked process.
    leaky = {"DATABASE_URL", "DEBUG", "SECRET_KEY", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    clean = {k: v for k, v in os.environ.items() if k not in leaky}
    clean.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_bad_database_url_stops_startup():
    result = manage("check", DATABASE_URL="postgres://u:p@h:notaport/db")
    assert result.returncode != 0
    assert "DATABASE_URL" in result.stderr


def test_bad_broker_url_stops_startup():
    result = manage("check", CELERY_BROKER_URL="http://not-a-broker")
    assert result.returncode != 0
    assert "CELERY_BROKER_URL" in result.stderr


def test_production_without_secret_key_is_a_clear_error():
    result = manage("check", DEBUG="0", ALLOWED_HOSTS="knock.example.com")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_check_deploy_is_clean_under_production_settings():
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="0",
        SECRET_KEY="k" * 10 + "production-secret-key-with-plenty-of-entropy-7f3a9c1e5b",
        ALLOWED_HOSTS="knock.example.com",
    )
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def cache_backend(**env: str) -> str:
    result = manage(
        "shell", "-c", "from django.conf import settings; print(settings.CACHES['default'])", **env
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_rate_limits_are_counted_where_every_process_sees_them():
    # The embedded default: files in var/, shared by the processes of one machine.
    assert "FileBasedCache" in cache_backend(CELERY_BROKER_URL="filesystem://")
    # With a Redis broker, the same Redis; CACHE_URL names another.
    on_broker = cache_backend(CELERY_BROKER_URL="redis://127.0.0.1:6379/3")
    assert "RedisCache" in on_broker and "redis://127.0.0.1:6379/3" in on_broker
    own = cache_backend(
        CELERY_BROKER_URL="amqp://guest:guest@rabbit:5672//", CACHE_URL="redis://cache:6379/1"
    )
    assert "RedisCache" in own and "redis://cache:6379/1" in own


@pytest.mark.parametrize("url", ["memcached://h:11211", "redis://", "redis://h:port/0"])
def test_malformed_cache_url_names_the_variable(url):
    with pytest.raises(ImproperlyConfigured, match="CACHE_URL"):
        parse_cache_url(url)


def test_rate_limits_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("KNOCK_RATES", "login=20/min, play=100/hour")
    assert env_rates("KNOCK_RATES") == {"login": "20/min", "play": "100/hour"}
    monkeypatch.setenv("KNOCK_RATES", "login=lots")
    with pytest.raises(ImproperlyConfigured, match="KNOCK_RATES"):
        env_rates("KNOCK_RATES")


def test_redis_hands_back_a_dead_workers_messages_after_minutes_not_an_hour():
    result = manage(
        "shell",
        "-c",
        "from django.conf import settings; "
        "print(settings.CELERY_BROKER_TRANSPORT_OPTIONS['visibility_timeout'], "
        "settings.CELERY_TASK_TIME_LIMIT)",
        CELERY_BROKER_URL="redis://127.0.0.1:6379/0",
    )
    assert result.returncode == 0, result.stderr
    visibility, hard_limit = map(int, result.stdout.splitlines()[-1].split())
    assert hard_limit < visibility <= 600
