"""A small process supervisor: start programs, restart one that dies, stop all on a signal.

`make run` needs three long-lived processes (web server, Celery worker, beat) and had a
shell line that lost the worker silently when it died and could hang on SIGTERM. This is
the smallest thing that does it right on one machine; production uses its own process
manager (docker-compose, systemd, Kubernetes) and runs each program on its own.

- Each program runs in its own process group, so when its main process dies the whole
  group (a prefork worker's pool processes too) is killed before it starts again, and a
  Ctrl-C in the terminal reaches the supervisor only, which then stops the programs in
  order instead of all of them getting SIGINT at once.
- A program that dies is restarted after a delay that doubles while it keeps dying
  quickly (1 s, 2 s, 4 s ... at most `max_backoff`) and resets once it has run for
  `steady_after` seconds; every exit and restart is logged.
- SIGTERM or SIGINT stops everything: SIGTERM to each program, SIGKILL to the groups of
  those still running after `stop_timeout` seconds (a second signal kills at once).
  A Celery task cut off this way is delivered again: acks are late, and the embedded
  broker keeps what a killed worker held (config/broker.py).
- On Linux each program also gets SIGTERM from the kernel if the supervisor itself is
  killed (PR_SET_PDEATHSIG), so a `kill -9` of `make run` leaves nothing behind.
"""

import ctypes
import ctypes.util
import logging
import os
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from time import monotonic

from prometheus_client import multiprocess

logger = logging.getLogger(__name__)

PR_SET_PDEATHSIG = 1


@dataclass
class Program:
    name: str
    argv: list[str]
    env: dict[str, str] | None = None
    process: subprocess.Popen | None = field(default=None, repr=False)
    started_at: float = 0.0
    restart_at: float = 0.0
    failures: int = 0  # consecutive quick deaths, for the backoff
    restarts: int = 0


def _die_with_parent(parent: int):
    """Return a pre-exec hook asking Linux to SIGTERM the child when `parent` dies."""
    libc_name = ctypes.util.find_library("c")
    if not sys.platform.startswith("linux") or not libc_name:
        return None
    libc = ctypes.CDLL(libc_name, use_errno=True)

    def hook() -> None:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the parent died before the request took effect
            os._exit(1)

    return hook


class Supervisor:
    def __init__(
        self,
        programs: list[Program],
        *,
        stop_timeout: float = 10.0,
        max_backoff: float = 30.0,
        steady_after: float = 30.0,
    ):
        self.programs = programs
        self.stop_timeout = stop_timeout
        self.max_backoff = max_backoff
        self.steady_after = steady_after
        self._signals = 0
        self._wake = threading.Event()

    def run(self) -> int:
        """Run until SIGTERM or SIGINT; return the exit status for the supervisor."""
        previous = {sig: signal.signal(sig, self._on_signal) for sig in SIGNALS}
        try:
            for program in self.programs:
                self._start(program)
            while not self._signals:
                now = monotonic()
                for program in self.programs:
                    if program.process is not None and program.process.poll() is not None:
                        self._on_exit(program, now)
                    if program.process is None and now >= program.restart_at:
                        self._start(program)
                self._wake.wait(0.2)
            self._stop_all()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        return 0

    def _on_signal(self, signum, frame) -> None:
        self._signals += 1
        logger.info("serve: %s received, stopping", signal.Signals(signum).name)
        self._wake.set()

    def _start(self, program: Program) -> None:
        program.process = subprocess.Popen(
            program.argv,
            env=program.env,
            process_group=0,
            preexec_fn=_die_with_parent(os.getpid()),
        )
        program.started_at = monotonic()
        logger.info("serve: started %s (pid %d)", program.name, program.process.pid)

    def _on_exit(self, program: Program, now: float) -> None:
        process = program.process
        _kill_group(process.pid)  # whatever it left behind (pool processes) goes with it
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            # Its open-sockets gauge goes with it (config/metrics.py); counters stay counted.
            multiprocess.mark_process_dead(process.pid)
        ran = now - program.started_at
        program.failures = 0 if ran >= self.steady_after else program.failures + 1
        delay = min(self.max_backoff, 2.0 ** max(program.failures - 1, 0))
        program.process, program.restart_at = None, now + delay
        program.restarts += 1
        logger.error(
            "serve: %s (pid %d) exited with %s after %.0f s; restarting in %.0f s",
            program.name,
            process.pid,
            _describe(process.returncode),
            ran,
            delay,
        )

    def _stop_all(self) -> None:
        started = monotonic()
        stopping = [p for p in self.programs if p.process is not None]
        for program in stopping:
            if program.process.poll() is None:
                program.process.send_signal(signal.SIGTERM)
        deadline = started + self.stop_timeout
        while stopping and self._signals < 2 and monotonic() < deadline:
            for program in [p for p in stopping if p.process.poll() is not None]:
                logger.info("serve: %s stopped in %.1f s", program.name, monotonic() - started)
                stopping.remove(program)
            self._wake.clear()
            self._wake.wait(0.1)
        for program in stopping:
            if program.process.poll() is None:
                logger.warning("serve: %s did not stop in time; killing it", program.name)
        for program in self.programs:
            if program.process is not None:
                _kill_group(program.process.pid)  # what is left of each group, too
                program.process.wait()
        logger.info("serve: stopped")


SIGNALS = (signal.SIGTERM, signal.SIGINT)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:  # the group is already empty
        return


def _describe(returncode: int) -> str:
    if returncode < 0:
        return f"signal {signal.Signals(-returncode).name}"
    return f"status {returncode}"
