"""The image's steps (deploy/entrypoint.sh) run as real processes, and plain HTTP to them.

Used by the image, proxy-header and log tests: each starts what a container would run, on
a port the kernel picks, in a process group of its own that dies with the test.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.workers import ROOT, _die_with_the_test

ENTRYPOINT = ROOT / "deploy" / "entrypoint.sh"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def step_env(**values: str) -> dict[str, str]:
    """This environment with the image's interpreter and `values` on top (a value of None
    removes the variable)."""
    env = {**os.environ, "PYTHON": sys.executable}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    for name, value in values.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def run_step(env: dict[str, str], *args: str, timeout: float = 300) -> str:
    """Run one entrypoint step to its end; its output, or a failure showing it."""
    done = subprocess.run(
        [str(ENTRYPOINT), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


class Served:
    """A long-running entrypoint step (web, worker, beat) logging to `log`."""

    def __init__(self, env: dict[str, str], *args: str, log: Path) -> None:
        self.log = log
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(
                [str(ENTRYPOINT), *args],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_the_test,
            )

    def wait_listening(self, port: int, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while True:
            assert self.proc.poll() is None, f"exited while starting:\n{self.log.read_text()}"
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    return
            assert time.monotonic() < deadline, f"not listening:\n{self.log.read_text()}"
            time.sleep(0.1)

    def stop(self) -> None:
        """SIGTERM to the main process, as Docker stops a container; then whatever is left
        of its group goes."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        with contextlib.suppress(ProcessLookupError):  # the group is gone already
            os.killpg(self.proc.pid, signal.SIGKILL)


def fetch(
    port: int, path: str, *, method: str = "GET", headers: dict | None = None, body=None
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()
