"""`manage.py serve` (what `make run` runs) with real processes: a dead program comes back,
a stale heartbeat shows in /healthz, and SIGTERM stops everything within seconds."""

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def process_state(pid: int) -> str | None:
    """The kernel's state letter for `pid`, or None when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return None
    return stat.rpartition(")")[2].split()[0]


def alive(pid: int) -> bool:
    return process_state(pid) not in (None, "Z")


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except (FileNotFoundError, ProcessLookupError):
            continue
        ppid = int(stat.rpartition(")")[2].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except FileNotFoundError:
        return ""


def child_running(parent: int, word: str) -> int | None:
    for pid in descendants(parent):
        if word in cmdline(pid) and alive(pid) and process_state(pid) != "T":
            parent_of = int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])
            if parent_of == parent:
                return pid
    return None


def wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def stop(process: subprocess.Popen, timeout: float) -> float:
    """SIGTERM `process`; return how long it took to exit."""
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    process.wait(timeout)
    return time.monotonic() - started


# --- the supervisor on small programs ------------------------------------------------

SUPERVISOR = textwrap.dedent(
    """
    import logging, sys
    from config.ops.supervisor import Program, Supervisor
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    python = sys.executable
    forks = "import os, time; os.fork(); time.sleep(60)"  # leaves a process in its group
    stubborn = (
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN);"
        "print('stubborn ignores SIGTERM', flush=True); time.sleep(60)"
    )
    programs = [
        Program("forks", [python, "-c", forks, "forks"]),  # the last word names it in ps
        Program("stubborn", [python, "-c", stubborn, "stubborn"]),
    ]
    Supervisor(programs, stop_timeout=1.5).run()
    """
)


@pytest.fixture
def supervisor(tmp_path):
    log = tmp_path / "supervisor.log"
    with open(log, "w") as out:
        process = subprocess.Popen(
            [sys.executable, "-c", SUPERVISOR], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT
        )
    process.log = log
    wait_for(lambda: "stubborn ignores SIGTERM" in log.read_text(), 10, "the programs to start")
    yield process
    if process.poll() is None:
        process.kill()
        process.wait()
    for pid in descendants(process.pid):
        os.kill(pid, signal.SIGKILL)


def test_a_killed_program_and_what_it_forked_are_replaced(supervisor):
    first = wait_for(lambda: child_running(supervisor.pid, "forks"), 10, "forks")
    forked = wait_for(lambda: descendants(first), 10, "the fork")
    os.kill(first, signal.SIGKILL)
    second = wait_for(
        lambda: (pid := child_running(supervisor.pid, "forks")) != first and pid, 10, "a restart"
    )
    assert second != first
    wait_for(lambda: not any(alive(pid) for pid in forked), 5, "the old fork to go")
    log = supervisor.log.read_text()
    assert f"forks (pid {first}) exited with signal SIGKILL" in log
    assert "restarting in 1 s" in log


def test_sigterm_stops_every_program_killing_those_that_ignore_it(supervisor):
    everything = descendants(supervisor.pid)
    took = stop(supervisor, timeout=10)
    assert took < 4  # stop_timeout 1.5 s, then SIGKILL
    assert supervisor.returncode == 0
    assert not [pid for pid in everything if alive(pid)]
    assert "stubborn did not stop in time; killing it" in supervisor.log.read_text()


def test_programs_go_when_the_supervisor_is_killed(supervisor):
    forks = child_running(supervisor.pid, "forks")
    everything = descendants(supervisor.pid)
    supervisor.kill()
    supervisor.wait()
    try:
        wait_for(lambda: not alive(forks), 5, "the kernel's SIGTERM to the orphan")
    finally:  # what ignores SIGTERM (and what forks forked) is this test's to clean up
        for pid in everything:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


# --- manage.py serve, as make run starts it ------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def healthz(port: int) -> tuple[int, dict]:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/healthz")
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    except (OSError, ValueError):
        return 0, {}


def test_serve_restarts_a_killed_worker_reports_a_stale_beat_and_stops_on_sigterm(tmp_path):
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in {"DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND"}
    }
    # The embedded default, in a var folder of its own; heartbeats stale after 3 s.
    env |= {"KNOCK_VAR_DIR": str(tmp_path), "DEBUG": "1", "KNOCK_HEARTBEAT_STALE_SECONDS": "3"}
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    port = free_port()
    with open(tmp_path / "serve.log", "w") as out:
        serve = subprocess.Popen(
            [*manage, "serve", "--port", str(port), "--concurrency", "1"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for(lambda: healthz(port)[0] == 200, 60, "/healthz 200")

        worker = child_running(serve.pid, "worker")
        pool = descendants(worker)
        os.kill(worker, signal.SIGKILL)
        wait_for(
            lambda: child_running(serve.pid, "worker") not in (None, worker),
            10,
            "a new worker",
        )
        assert not [pid for pid in pool if alive(pid)]  # its pool processes went with it
        # The new worker beats under the old one's name.
        wait_for(lambda: healthz(port)[0] == 200, 30, "/healthz 200 with the new worker")

        # The beat container's health check: this machine's beat heartbeat is fresh.
        check_beat = [*manage, "check_heartbeat", "beat"]
        patient = env | {"KNOCK_HEARTBEAT_STALE_SECONDS": "30"}  # beats come every 5 s
        fresh = subprocess.run(check_beat, cwd=ROOT, env=patient, capture_output=True, text=True)
        assert fresh.returncode == 0, fresh.stderr
        beat = child_running(serve.pid, "beat")
        os.kill(beat, signal.SIGSTOP)  # alive but silent, as a hung beat
        try:
            status, body = wait_for(
                lambda: (answer := healthz(port))[1].get("beat", "ok") != "ok" and answer,
                15,
                "a stale beat",
            )
            assert status == 503
            assert body["beat"] == "stale"  # the machine's name only to staff
            stale = subprocess.run(check_beat, cwd=ROOT, env=env, capture_output=True, text=True)
            assert stale.returncode == 1
            assert f"beat@{socket.gethostname()}: stale, last seen" in stale.stderr
        finally:
            os.kill(beat, signal.SIGCONT)
        wait_for(lambda: healthz(port)[0] == 200, 15, "/healthz 200 again")

        everything = descendants(serve.pid)
        took = stop(serve, timeout=30)
        assert not [pid for pid in everything if alive(pid)]
        assert took < 15, f"serve took {took:.1f} s to stop"
    finally:
        if serve.poll() is None:
            serve.kill()
        for pid in descendants(serve.pid):
            os.kill(pid, signal.SIGKILL)
    log = (tmp_path / "serve.log").read_text()
    assert "worker (pid" in log and "exited with signal SIGKILL" in log


def test_a_dead_programs_live_gauges_leave_the_metrics_folder(tmp_path, monkeypatch):
    """A web process's open-sockets gauge (config/metrics.py) ends with it; counters stay."""
    from config.ops.supervisor import Program, Supervisor

    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    program = Program("web", [sys.executable, "-c", "pass"])
    program.process = subprocess.Popen(program.argv, process_group=0)
    program.process.wait()
    program.started_at = time.monotonic()
    gauge = tmp_path / f"gauge_liveall_{program.process.pid}.db"
    counter = tmp_path / f"counter_{program.process.pid}.db"
    gauge.touch(), counter.touch()
    Supervisor([program])._on_exit(program, time.monotonic())
    assert not gauge.exists() and counter.exists()
