"""Soak the embedded default: `make run` for many minutes under concurrent matches.

    .venv/bin/python benchmarks/soak.py --minutes 35 --port 8232

Starts `make run` with no database or broker configured (SQLite and the embedded broker,
in a var folder of its own, default /tmp/knock-soak), waits for /healthz, then until the
time is up:

- a driver in this process creates a batch of bot-against-bot matches (gin, basic, indian)
  every few seconds through the services, so this process, the web server, the worker
  and beat all publish to the broker while the worker consumes;
- HTTP clients register, start matches against a bot through the API and play them move
  by move while the worker answers for the bot.

With `--kill-worker-every N` it also SIGKILLs the worker's main process every N seconds,
to show the supervisor bring it back and the broker hand what it held to the next one
(no match may be left unfinished).

Every 30 s it prints a progress line; at the end it stops `make run` with SIGTERM and
prints one JSON object: minutes, matches finished, worker restarts and broker errors seen
in make run's output, /healthz answers that were not 200, seconds make run took to stop.
The bound: no restarts, no errors, every /healthz 200, stopped within 15 s.
"""

import argparse
import http.client
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TROUBLE = re.compile(
    r"Unrecoverable error|JSONDecodeError|Traceback|exited with|unreadable|ERROR/|raised unexpected"
)


class Client:
    def __init__(self, port: int):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.headers = {"Content-Type": "application/json"}

    def call(self, method: str, path: str, body=None) -> tuple[int, dict]:
        payload = json.dumps(body) if body is not None else None
        self.conn.request(method, path, payload, self.headers)
        response = self.conn.getresponse()
        data = response.read()
        try:
            return response.status, (json.loads(data) if data else {})
        except ValueError:
            return response.status, {"raw": data[:200].decode(errors="replace")}


def api_player(port: int, number: int, room_id: int, deadline: float, out: dict, lock) -> None:
    """Play gin against a bot through the API, match after match, choosing moves at random
    among the legal ones (the bot on the worker does the thinking). A 429 (the API's rate
    limits) is waited out and counted, not an error."""
    client = Client(port)

    def call(method: str, path: str, body=None) -> tuple[int, dict]:
        while True:
            status, answer = client.call(method, path, body)
            if status != 429:
                return status, answer
            with lock:
                out["api_throttled"] += 1
            time.sleep(5)

    name = f"soak{number}-{os.getpid()}"
    call("POST", "/api/auth/register/", {"username": name, "password": "soak-passphrase"})
    _, body = call("POST", "/api/auth/token/", {"username": name, "password": "soak-passphrase"})
    client.headers["Authorization"] = f"Token {body['token']}"
    while time.monotonic() < deadline:
        status, body = call("POST", f"/api/rooms/{room_id}/play/", {"opponent": "bot"})
        if status != 201:
            with lock:
                out["api_errors"].append(f"play {status} {body}")
            time.sleep(1)
            continue
        match_id = body["match"]
        status, view = call("GET", f"/api/matches/{match_id}/")
        while view.get("status") == "active" and time.monotonic() < deadline:
            if not view["your_turn"]:
                time.sleep(0.2)
                status, view = call("GET", f"/api/matches/{match_id}/")
                continue
            action = random.choice(view["legal_actions"])
            status, answer = call(
                "POST", f"/api/matches/{match_id}/actions/", {"seq": view["seq"], "action": action}
            )
            if status != 200:
                with lock:
                    out["api_errors"].append(f"act {status} {answer}")
                status, view = call("GET", f"/api/matches/{match_id}/")
                continue
            view = answer
        if view.get("status") != "active":
            with lock:
                out["api_matches"] += 1


def worker_pid(run_pid: int) -> int | None:
    """The Celery worker's main process: the child of `manage.py serve` running a worker."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:  # the process ended while we looked
                continue
            parents[int(entry.name)] = (int(stat.rpartition(")")[2].split()[1]), argv)
    serve = [pid for pid, (_, argv) in parents.items() if b"serve" in argv]
    for pid, (parent, argv) in parents.items():
        if parent in serve and b"celery" in argv and b"worker" in argv:
            return pid
    return None


def healthz(port: int) -> tuple[int, str]:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/healthz")
        response = conn.getresponse()
        return response.status, response.read().decode()
    except OSError as exc:
        return 0, str(exc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=35)
    parser.add_argument("--port", type=int, default=8232)
    parser.add_argument("--var", default="/tmp/knock-soak")
    parser.add_argument("--batch", type=int, default=12, help="bot matches per batch")
    parser.add_argument("--every", type=float, default=3.0, help="seconds between batches")
    parser.add_argument("--clients", type=int, default=4, help="API players")
    parser.add_argument("--venv", default=str(ROOT / ".venv"))
    parser.add_argument("--kill-worker-every", type=float, default=0, help="seconds; 0: never")
    args = parser.parse_args()

    for name in ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "DEBUG"):
        os.environ.pop(name, None)
    os.environ["KNOCK_VAR_DIR"] = args.var
    log_path = Path(args.var).with_suffix(".log")
    Path(args.var).mkdir(parents=True, exist_ok=True)
    log = open(log_path, "w")  # noqa: SIM115 - make run writes to it until the end
    run = subprocess.Popen(
        ["make", "run", f"PORT={args.port}", f"VENV={args.venv}"],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        process_group=0,
    )
    started = time.monotonic()
    while healthz(args.port)[0] != 200:
        if run.poll() is not None or time.monotonic() - started > 600:
            raise SystemExit(f"make run did not come up; see {log_path}")
        time.sleep(1)
    print(f"make run is up after {time.monotonic() - started:.0f} s; log in {log_path}", flush=True)
    # Pool processes that get tasks in their first seconds never log (Celery; the tasks run
    # fine): give them time, so that task failures, if any, show in the log.
    time.sleep(20)

    # Only now: with DJANGO_SETTINGS_MODULE in its environment, the worker's pool
    # processes log nothing (Celery's logging set-up and Django's then disagree).
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    import django

    django.setup()
    from engine import variants
    from gameplay import services
    from gameplay.models import Match, Room

    bots = {kind: services.bot_players(kind=kind, count=6) for kind in ("random", "greedy")}
    bots["expert"] = services.bot_players(kind="expert", count=3)
    room = Room.objects.filter(variant="gin", min_level=1, entry_fee=0, seats=2).order_by("pk")[0]
    options = {"gin": {"target": 25}, "basic": {"target": 50}, "indian": {"deals": 2}}
    first_match = Match.objects.order_by("-pk").values_list("pk", flat=True).first() or 0

    out = {"api_matches": 0, "api_errors": [], "api_throttled": 0}
    lock = threading.Lock()
    deadline = time.monotonic() + args.minutes * 60
    clients = [
        threading.Thread(target=api_player, args=(args.port, n, room.pk, deadline, out, lock))
        for n in range(args.clients)
    ]
    for client in clients:
        client.start()

    created, unhealthy, next_report, rng = 0, [], time.monotonic() + 30, random.Random(7)
    kills, next_kill = 0, time.monotonic() + (args.kill_worker_every or float("inf"))
    while time.monotonic() < deadline:
        if time.monotonic() >= next_kill:
            next_kill += args.kill_worker_every
            victim = worker_pid(run.pid)
            if victim:
                os.kill(victim, signal.SIGKILL)
                kills += 1
        specs = []
        for _ in range(args.batch):
            variant = rng.choice(["gin", "gin", "basic", "indian"])
            kinds = [k for k in variants.get(variant).bots if k in bots]
            pool = [bot for kind in kinds for bot in bots[kind]]
            players = rng.sample(pool, 2 if variant == "gin" else rng.choice([2, 3, 4]))
            specs.append({"variant": variant, "options": options[variant], "players": players})
        for spec in specs:
            services.match_create(**spec)
        created += len(specs)
        status, body = healthz(args.port)
        if status != 200 and not kills:  # after a kill, stale for a moment is the truth
            unhealthy.append(f"{status} {body}")
        if time.monotonic() >= next_report:
            next_report += 30
            finished = Match.objects.filter(pk__gt=first_match, status="finished").count()
            elapsed = (time.monotonic() + args.minutes * 60 - deadline) / 60
            print(
                f"{elapsed:5.1f} min: {created} bot matches created, {finished} matches "
                f"finished, {out['api_matches']} API matches, healthz {status}",
                flush=True,
            )
        time.sleep(args.every)
    for client in clients:
        client.join()

    # Let the worker finish what is queued, then count.
    settle = time.monotonic() + 120
    while time.monotonic() < settle:
        if not Match.objects.filter(pk__gt=first_match, status="active").exists():
            break
        time.sleep(2)
    matches = Match.objects.filter(pk__gt=first_match)
    finished = matches.filter(status="finished").count()
    still_active = matches.filter(status="active").count()

    stop_started = time.monotonic()
    os.kill(run.pid, signal.SIGTERM)
    try:
        run.wait(60)
    except subprocess.TimeoutExpired:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    stopped_in = time.monotonic() - stop_started
    log.close()
    trouble = [line.strip() for line in log_path.read_text().splitlines() if TROUBLE.search(line)]
    print(
        json.dumps(
            {
                "minutes": round(args.minutes, 1),
                "bot_matches_created": created,
                "api_matches_finished": out["api_matches"],
                "matches_finished": finished,
                "matches_still_active": still_active,
                "worker_kills": kills,
                "worker_restarts": sum("exited with" in line for line in trouble),
                "trouble_lines": trouble[:20],
                "api_errors": out["api_errors"][:20],
                "api_throttled": out["api_throttled"],
                "healthz_not_200": unhealthy[:20],
                "stopped_in_seconds": round(stopped_in, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
