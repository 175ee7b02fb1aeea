"""Many clients play bot matches through the real HTTP API: gunicorn, PostgreSQL, Redis.

    .venv/bin/python benchmarks/api_bench.py --clients 16 --seconds 30

It creates (and drops afterwards) the database `knock_bench` on the PostgreSQL server of
DATABASE_URL (default postgres://postgres@127.0.0.1:5432), starts gunicorn and a Celery
worker on Redis (CELERY_BROKER_URL, default redis://127.0.0.1:6379/8), and lets each client
thread register, start a match against a bot in a gin room and play it move by move,
polling while the bot's worker moves. It prints actions per second and the p50/p99
latency of the action requests, next to the same numbers for GET /api/me/ through the
same stack (token auth and one row: the floor any API request pays) as a ratio.
"""

import argparse
import http.client
import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import gin  # noqa: E402
from engine.cards import parse  # noqa: E402


def choose(view: dict) -> dict:
    legal = view["legal_actions"]
    kinds = {action["type"] for action in legal}
    for wanted in ("big_gin", "knock"):
        if wanted in kinds:
            return next(a for a in legal if a["type"] == wanted)
    if "discard" in kinds:
        card, _ = gin.best_discard(parse(" ".join(view["hand"])))
        action = {"type": "discard", "card": str(card)}
        return action if action in legal else next(a for a in legal if a["type"] == "discard")
    return next((a for a in legal if a.get("source") == "stock"), legal[0])


class Client:
    def __init__(self, port: int):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.headers = {"Content-Type": "application/json"}

    def call(self, method: str, path: str, body=None) -> tuple[int, dict, float]:
        start = time.perf_counter()
        self.conn.request(
            method, path, json.dumps(body) if body is not None else None, self.headers
        )
        response = self.conn.getresponse()
        data = response.read()
        elapsed = time.perf_counter() - start
        return response.status, (json.loads(data) if data else {}), elapsed


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def play(port: int, number: int, room_id: int, deadline: float, out: dict, lock) -> None:
    client = Client(port)
    name = f"bench{number}"
    client.call("POST", "/api/auth/register/", {"username": name, "password": "bench-passphrase"})
    _, body, _ = client.call(
        "POST", "/api/auth/token/", {"username": name, "password": "bench-passphrase"}
    )
    client.headers["Authorization"] = f"Token {body['token']}"
    latencies, floor, matches, errors = [], [], 0, 0
    while time.perf_counter() < deadline:
        status, body, _ = client.call("POST", f"/api/rooms/{room_id}/play/", {"opponent": "bot"})
        if status != 201:
            errors += 1
            continue
        match_id = body["match"]
        view = client.call("GET", f"/api/matches/{match_id}/")[1]
        while view["status"] == "active" and time.perf_counter() < deadline:
            if not view["your_turn"]:
                time.sleep(0.005)
                view = client.call("GET", f"/api/matches/{match_id}/")[1]
                continue
            status, view, elapsed = client.call(
                "POST",
                f"/api/matches/{match_id}/actions/",
                {"seq": view["seq"], "action": choose(view)},
            )
            if status != 200:
                errors += 1
                view = client.call("GET", f"/api/matches/{match_id}/")[1]
                continue
            latencies.append(elapsed)
            floor.append(client.call("GET", "/api/me/")[2])
        matches += view["status"] != "active"
    with lock:
        out["latencies"] += latencies
        out["floor"] += floor
        out["matches"] += matches
        out["errors"] += errors


def wait_for(port: int, timeout: float = 60) -> None:
    start = time.time()
    while time.time() - start < timeout:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            # Up once it reaches the database; it runs no beat, so /healthz stays 503.
            if json.loads(conn.getresponse().read()).get("database") == "ok":
                return
        except (OSError, ValueError):
            pass  # not listening yet, or not answering JSON yet
        time.sleep(0.3)
    raise SystemExit("gunicorn did not come up")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--web-workers", type=int, default=4)
    parser.add_argument("--celery-concurrency", type=int, default=2)
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()

    server = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/knock")
    base = urlsplit(server)._replace(path="").geturl()
    env = dict(
        os.environ,
        DATABASE_URL=f"{base}/knock_bench",
        CELERY_BROKER_URL=os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/8"),
        DEBUG="0",
        SECRET_KEY="benchmark-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="0",
        LOG_LEVEL="WARNING",
        # Every client signs up from one address and plays flat out: lift the rate limits.
        API_RATE_LIMITS="register=100000/min,play=100000/min,user=1000000/min",
    )
    psql = ["psql", f"{base}/postgres", "-qc"]
    subprocess.run([*psql, "DROP DATABASE IF EXISTS knock_bench"], check=True)
    subprocess.run([*psql, "CREATE DATABASE knock_bench"], check=True)
    py = sys.executable
    subprocess.run([py, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    # Tasks left queued by an earlier run point at a dropped database: drop them too.
    subprocess.run(
        [str(ROOT / ".venv/bin/celery"), "-A", "config", "purge", "-f"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    room_id = subprocess.run(
        [
            py,
            "manage.py",
            "shell",
            "-c",
            "from gameplay.models import Room; "
            "print(Room.objects.create(name='Bench', variant='gin', options={'target': 50}).pk)",
        ],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()[-1]
    procs = [
        subprocess.Popen(
            [
                str(ROOT / ".venv/bin/gunicorn"),
                "config.wsgi:application",
                "--bind",
                f"127.0.0.1:{args.port}",
                "--workers",
                str(args.web_workers),
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=env,
        ),
        subprocess.Popen(
            [
                str(ROOT / ".venv/bin/celery"),
                "-A",
                "config",
                "worker",
                "--loglevel",
                "WARNING",
                "--concurrency",
                str(args.celery_concurrency),
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=ROOT,
            env=env,
        ),
    ]
    try:
        wait_for(args.port)
        out = {"latencies": [], "floor": [], "matches": 0, "errors": 0}
        lock = threading.Lock()
        deadline = time.perf_counter() + args.seconds
        threads = [
            threading.Thread(target=play, args=(args.port, n, int(room_id), deadline, out, lock))
            for n in range(args.clients)
        ]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            proc.wait(timeout=60)
        subprocess.run([*psql, "DROP DATABASE IF EXISTS knock_bench"], check=False)

    actions = out["latencies"]
    p50, p99 = percentile(actions, 0.50), percentile(actions, 0.99)
    h50, h99 = percentile(out["floor"], 0.50), percentile(out["floor"], 0.99)
    print(f"clients {args.clients}, {elapsed:.1f} s, gunicorn workers {args.web_workers}")
    print(f"human actions accepted: {len(actions)} ({len(actions) / elapsed:.1f} per second)")
    print(f"matches finished: {out['matches']}, errors: {out['errors']}")
    print(f"action latency  p50 {p50 * 1000:.1f} ms  p99 {p99 * 1000:.1f} ms")
    print(f"GET /api/me/ floor  p50 {h50 * 1000:.1f} ms  p99 {h99 * 1000:.1f} ms")
    print(f"ratio action/floor  p50 {p50 / h50:.2f}x  p99 {p99 / h99:.2f}x")
    if actions:
        print(f"mean action latency {statistics.fmean(actions) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
