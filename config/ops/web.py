"""The web server's command line: uvicorn on `config.asgi`, trusting forwarded headers only
as far as NUM_PROXIES says.

uvicorn on its own trusts X-Forwarded-For and X-Forwarded-Proto from 127.0.0.1, so with
nothing in front any local client (and anything relaying through loopback) could choose
its own address for the rate limits and lock-outs. Here the headers are ignored
(`--no-proxy-headers`) unless NUM_PROXIES > 0, and then trusted only from
FORWARDED_ALLOW_IPS (default 127.0.0.1, a proxy on the same machine; the compose file
names its network). `python -m config.ops.web` is what the image's `web` step runs;
`manage.py serve` starts the same command.
"""

import os
import sys
import urllib.request

from config.env import env_int, env_list, env_str


def uvicorn_argv(*, host: str, port: int, workers: int = 1) -> list[str]:
    """uvicorn's argv for this environment (NUM_PROXIES, FORWARDED_ALLOW_IPS)."""
    if env_int("NUM_PROXIES", 0) > 0:
        proxies = ["--proxy-headers", "--forwarded-allow-ips", forwarded_allow_ips()]
    else:
        proxies = ["--no-proxy-headers"]
    return [
        sys.executable,
        "-m",
        "uvicorn",
        "config.asgi:application",
        "--host",
        host,
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--lifespan",
        "off",  # Django's ASGI handler has no start-up or shutdown hooks
        "--timeout-graceful-shutdown",
        "3",
        *proxies,
    ]


def forwarded_allow_ips() -> str:
    return env_str("FORWARDED_ALLOW_IPS", "") or "127.0.0.1"


def probe_host() -> str:
    """A name the site answers to: the first of ALLOWED_HOSTS (a wildcard made concrete),
    so the probe passes the host check with the real domain configured."""
    hosts = env_list("ALLOWED_HOSTS", []) or ["localhost"]
    first = hosts[0]
    if first == "*":
        return "localhost"
    return "www" + first if first.startswith(".") else first


def probe(port: int) -> int:
    """The container's health check: 0 when this web process's /healthz (the database and
    broker checks) answers 200, else 1."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/healthz?only=database,broker",
        headers={"Host": probe_host(), "X-Forwarded-Proto": "https"},
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return 0 if response.status == 200 else 1
    except OSError as exc:  # refused, timed out, or an HTTP error status
        print(f"web health check failed: {exc}", file=sys.stderr)
        return 1


def main() -> None:
    """Replace this process with uvicorn (HOST, PORT, WEB_WORKERS from the environment);
    with `--check`, probe the one running here instead."""
    if sys.argv[1:] == ["--check"]:
        raise SystemExit(probe(env_int("PORT", 8000)))
    argv = uvicorn_argv(
        host=env_str("HOST", "0.0.0.0"),
        port=env_int("PORT", 8000),
        workers=env_int("WEB_WORKERS", 3),
    )
    os.execv(argv[0], argv)


if __name__ == "__main__":
    main()
