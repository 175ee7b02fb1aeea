"""Live tables under load: many WebSocket players against bots, in the production shape.

    python benchmarks/table_bench.py --levels 50 100 200 400 --seconds 30

It creates (and drops afterwards) the database `--database` (knock_table_bench) on the
PostgreSQL server of DATABASE_URL (default postgres://postgres@127.0.0.1:5432), starts
uvicorn on config.asgi (`--web-processes` of them) and a Celery worker on Redis
(CELERY_BROKER_URL, default redis://127.0.0.1:6379/9; the Channels layer is the same
Redis), and for each level N seats N people at N Gin tables against a bot (the room's bot
pause is 0). Each person is one WebSocket: on their turn they think for `--think` seconds
(2 s) on average, each time a time drawn evenly from `think * (1 +- jitter)` (`--jitter`,
0.5: 1-3 s), then send their move over the socket. `--jitter 0` makes every person think
exactly as long, so that all of them move within the same few milliseconds every cycle:
the worst case, not how people play (at 200 tables it queued 200 moves at once).

It prints, per level, the p50 and p99 time from a move that hands the turn to the bot
until the bot's reply arrives on the socket (the view in which it is the person's turn
again), the p50 and p99 of the socket's own answer to a move (the floor: no worker
involved), the web server's memory per connection (its resident size with the N sockets
open, less before, over N), where the machine's CPU went while measuring (seconds of CPU
per second of the web server, the worker, PostgreSQL and this client, and milliseconds of
CPU per bot reply: what a cycle costs, whatever else the machine runs), sockets that
failed and why, and the load average. The goal is 200 concurrent tables with a p99 under
250 ms.
"""

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import websockets

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT))

from engine import gin  # noqa: E402
from engine.cards import parse  # noqa: E402

HANDS_OVER = {"discard", "knock", "pass", "big_gin"}  # moves after which a bot is to play
SETUP = """
import json
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore
from gameplay import services
from gameplay.models import Room
room, _ = Room.objects.get_or_create(
    name="Table bench", defaults={"variant": "gin", "options": {"target": 500}, "bot_pause_ms": 0}
)
bot = services.bot_players(kind="greedy", count=1)[0]
out = []
for n in range(COUNT):
    # No password: sessions are made here, and hashing 400 passwords would take minutes.
    user = get_user_model().objects.create(username=f"table{LEVEL}x{n}")
    player = services.player_for_user(user)
    session = SessionStore()
    session[SESSION_KEY] = str(player.user.pk)
    session[BACKEND_SESSION_KEY] = "gameplay.backends.CaseInsensitiveModelBackend"
    session[HASH_SESSION_KEY] = player.user.get_session_auth_hash()
    session.create()
    match = services.match_create(
        variant="gin", options=room.options, players=[player, bot], room=room
    )
    out.append({"match": match.pk, "session": session.session_key})
print(json.dumps(out))
"""


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


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def rss_kib(pid: int) -> int:
    """The resident size of the process and its children (uvicorn's workers)."""
    total = 0
    for each in tree(pid):
        for line in Path(f"/proc/{each}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total


def tree(pid: int) -> list[int]:
    """The process and its descendants."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended between listing /proc and reading it
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += children.get(current, [])
    return found


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    """User and system CPU seconds used so far by each process."""
    ticks = os.sysconf("SC_CLK_TCK")
    used = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended between listing /proc and reading it
            continue
        used[pid] = (int(fields[11]) + int(fields[12])) / ticks
    return used


def postgres_backends(database: str) -> list[int]:
    """The PostgreSQL server processes serving `database`."""
    pids = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().decode(errors="replace")
        except OSError:  # the process ended between listing /proc and reading it
            continue
        if text.startswith("postgres: ") and f" {database} " in text:
            pids.append(int(cmdline.parent.name))
    return pids


class CpuMeter:
    """CPU seconds per wall second of the web server, the worker, PostgreSQL and the client
    between `start` and `stop` (processes that appear meanwhile count from zero)."""

    def __init__(self, web: int, worker: int, database: str) -> None:
        self.groups = {
            "web": lambda: tree(web),
            "worker": lambda: tree(worker),
            "postgres": lambda: postgres_backends(database),
            "client": lambda: [os.getpid()],
        }

    def start(self) -> None:
        self.began = time.monotonic()
        self.before = {name: cpu_seconds(pids()) for name, pids in self.groups.items()}

    def stop(self) -> tuple[dict[str, float], float]:
        """CPU seconds spent by each group since `start`, and the wall seconds passed."""
        wall = time.monotonic() - self.began
        out = {}
        for name, pids in self.groups.items():
            now = cpu_seconds(pids())
            out[name] = sum(now[pid] - self.before[name].get(pid, 0.0) for pid in now)
        return out, wall


class Stats:
    def __init__(self) -> None:
        self.reply: list[float] = []
        self.answer: list[float] = []
        self.errors = 0
        self.connected = 0


async def person(
    port, seat: dict, think: float, jitter: float, start: float, stop: float, stats: Stats
):
    url = f"ws://127.0.0.1:{port}/ws/matches/{seat['match']}/"
    async with websockets.connect(
        url,
        origin=f"http://127.0.0.1:{port}",
        additional_headers={"Cookie": f"sessionid={seat['session']}"},
        max_size=2**22,
        open_timeout=60,
    ) as ws:
        stats.connected += 1
        ref, in_flight, sent_at, awaiting_bot = 0, False, 0.0, False
        thinking = random.Random(seat["match"])  # the same think times every run
        while time.monotonic() < stop:
            try:
                frame = json.loads(await asyncio.wait_for(ws.recv(), stop - time.monotonic()))
            except TimeoutError:
                return
            now = time.monotonic()
            if frame["type"] == "error":
                stats.errors += 1
                in_flight = False
                await ws.send(json.dumps({"type": "resync"}))
                continue
            if frame["type"] != "view":
                continue
            view = frame["view"]
            if frame.get("ref") == ref and in_flight:
                in_flight = False
                if now > start:
                    stats.answer.append(now - sent_at)
            if awaiting_bot and view["your_turn"]:
                awaiting_bot = False
                if now > start:
                    stats.reply.append(now - sent_at)
            if view["status"] != "active":
                return
            if view["your_turn"] and not in_flight:
                await asyncio.sleep(think * thinking.uniform(1 - jitter, 1 + jitter))
                action = choose(view)
                ref += 1
                in_flight, sent_at = True, time.monotonic()
                awaiting_bot = action["type"] in HANDS_OVER
                await ws.send(
                    json.dumps({"type": "act", "seq": view["seq"], "action": action, "ref": ref})
                )


async def run_level(port, seats, think, jitter, seconds, web_pid, meter: CpuMeter) -> dict:
    stats = Stats()
    before = rss_kib(web_pid)
    # Everyone connected and past their first move before measuring.
    warmup = think * (1 + jitter) + 3
    start = time.monotonic() + warmup
    stop = start + seconds
    tasks = [asyncio.create_task(person(port, s, think, jitter, start, stop, stats)) for s in seats]
    await asyncio.sleep(warmup)
    during = rss_kib(web_pid)
    meter.start()
    await asyncio.sleep(seconds)
    cpu, wall = meter.stop()
    load = os.getloadavg()[0]
    results = await asyncio.gather(*tasks, return_exceptions=True)
    failures = [r for r in results if isinstance(r, Exception)]
    return {
        "tables": len(seats),
        "connected": stats.connected,
        "failed_sockets": len(failures),
        "failures": sorted({f"{type(f).__name__}: {f}"[:120] for f in failures}),
        "bot_replies": len(stats.reply),
        "reply_p50_ms": round(percentile(stats.reply, 0.5) * 1000, 1),
        "reply_p99_ms": round(percentile(stats.reply, 0.99) * 1000, 1),
        "answer_p50_ms": round(percentile(stats.answer, 0.5) * 1000, 1),
        "answer_p99_ms": round(percentile(stats.answer, 0.99) * 1000, 1),
        "errors": stats.errors,
        "kib_per_connection": round((during - before) / max(stats.connected, 1), 1),
        "cpu_per_second": {name: round(spent / wall, 2) for name, spent in cpu.items()},
        # What one cycle (a person's move to the bot's reply) costs, robust to a busy
        # machine: CPU spent while measuring over the bot replies that arrived meanwhile.
        "cpu_ms_per_reply": {
            name: round(1000 * spent / max(len(stats.reply), 1), 1) for name, spent in cpu.items()
        },
        "load_1min": round(load, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, nargs="+", default=[50, 100, 200, 400])
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--think", type=float, default=2.0)
    parser.add_argument("--jitter", type=float, default=0.5)
    parser.add_argument("--celery-concurrency", type=int, default=2)
    parser.add_argument("--web-processes", type=int, default=1, help="uvicorn --workers")
    parser.add_argument("--port", type=int, default=8249)
    parser.add_argument(
        "--database", default="knock_table_bench", help="created and dropped by the benchmark"
    )
    args = parser.parse_args()

    server = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/knock")
    base = urlsplit(server)._replace(path="").geturl()
    broker = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/9")
    env = dict(
        os.environ,
        DATABASE_URL=f"{base}/{args.database}",
        CELERY_BROKER_URL=broker,
        REDIS_URL=broker,
        DEBUG="0",
        SECRET_KEY="benchmark-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="0",
        SESSION_COOKIE_SECURE="0",
        LOG_LEVEL="WARNING",
    )
    psql = ["psql", f"{base}/postgres", "-qc"]
    subprocess.run([*psql, f"DROP DATABASE IF EXISTS {args.database}"], check=True)
    subprocess.run([*psql, f"CREATE DATABASE {args.database}"], check=True)
    py = sys.executable
    subprocess.run([py, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run(
        [str(BIN / "celery"), "-A", "config", "purge", "-f"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    web = subprocess.Popen(
        [
            str(BIN / "uvicorn"),
            "config.asgi:application",
            "--port",
            str(args.port),
            "--ws",
            "websockets-sansio",
            "--lifespan",
            "off",
            "--log-level",
            "warning",
            "--no-access-log",
            *(["--workers", str(args.web_processes)] if args.web_processes > 1 else []),
        ],
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )
    worker = subprocess.Popen(
        [
            str(BIN / "celery"),
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
        start_new_session=True,
    )
    rows = []
    try:
        time.sleep(4)
        for level in args.levels:
            seats = json.loads(
                subprocess.run(
                    [py, "manage.py", "shell", "-c", f"COUNT = LEVEL = {level}\n{SETUP}"],
                    cwd=ROOT,
                    env=env,
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout.splitlines()[-1]
            )
            meter = CpuMeter(web.pid, worker.pid, args.database)
            level = run_level(
                args.port, seats, args.think, args.jitter, args.seconds, web.pid, meter
            )
            row = asyncio.run(level)
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        for proc in (web, worker):
            os.killpg(proc.pid, signal.SIGTERM)
        for proc in (web, worker):
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                # uvicorn's supervisor with --workers waited on its workers past 30 s.
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        subprocess.run([*psql, f"DROP DATABASE IF EXISTS {args.database}"], check=False)
    print(json.dumps({"levels": rows}))


if __name__ == "__main__":
    main()
