"""The embedded Celery broker: kombu's filesystem transport, safe for concurrent processes.

Selected in settings for `filesystem://` (the default broker), so no process can reach
the stock transport by accident. Stock kombu 5.x has three races that kill or starve a
worker on one machine:

- A producer creates a message file with `open(path, "wb")` and writes it afterwards; a
  consumer lists the folder, renames the file and reads it in between, gets b"" and
  raises `JSONDecodeError('Expecting value ...')` out of `drain_events`: the worker dies
  with "Unrecoverable error". Here every file (message or exchange table) is written
  under a hidden temporary name and `os.replace`d into place, so a reader sees a whole
  file or none.
- Binding a queue rewrites the exchange table in place ("wb" truncates before the lock
  is taken), so a publisher reading it for a fanout can see it empty. Here a separate
  lock file serialises writers and readers only ever open a complete table.
- A consumer takes a message out of the queue folder and keeps it only in memory until
  the task is acknowledged; a worker killed with SIGKILL (or the OOM killer) loses every
  message it had prefetched, including countdown tasks waiting for their time. Here a
  taken message is renamed into the consumer's own claims folder, deleted on ack, and
  moved back into the queue by any consumer that finds the claim's owner gone (the
  owner holds an flock for its life; the kernel drops it when the process dies).
  Delivery is at least once, as on Redis: tasks are idempotent.

Renames within one folder tree are atomic on POSIX, so of two consumers racing for a
file exactly one gets it. The broker folders must live on one local filesystem (they
do: `var/broker/`); NFS and friends are not supported, as with stock kombu.

Why not a transport on SQLite: it would be another few hundred lines of queue semantics
(visibility, fanout, priorities) on a database file that the web server and workers
already contend for; the filesystem transport's semantics are kombu's own, and only its
writes and claims needed fixing.
"""

import fcntl
import logging
import os
import uuid
import weakref
from collections import deque
from pathlib import Path
from queue import Empty
from time import monotonic

from kombu.transport import filesystem, virtual
from kombu.utils.json import dumps, loads

logger = logging.getLogger(__name__)

#: How often a consumer with nothing to do looks for claims whose owner died.
RECOVER_EVERY_SECONDS = 10.0

# Claims locks are held by the process that created them; a forked child (a prefork
# pool process) must not keep them alive after its parent dies.
_claim_locks: "weakref.WeakSet[ClaimsFolder]" = weakref.WeakSet()


def _close_inherited_claim_locks() -> None:
    for claims in list(_claim_locks):
        claims.forget_after_fork()


os.register_at_fork(after_in_child=_close_inherited_claim_locks)


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to `path` so that no reader ever sees a partial file."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
    os.replace(tmp, path)


class ClaimsFolder:
    """One consumer's folder of taken-but-unacknowledged messages, locked for its life.

    Layout: `<claims>/<id>.lock` (flocked by the owner) and `<claims>/<id>/<message files>`.
    The lock file is locked under a hidden name and then renamed into place, and the
    folder made after that, so a recoverer never takes a live consumer's claims.
    """

    def __init__(self, root: Path):
        self.root = root
        self.id = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self.folder = root / self.id
        self._lock_path = root / f"{self.id}.lock"
        root.mkdir(parents=True, exist_ok=True)
        locking = root / f".{self.id}.locking"
        self._lock_fd: int | None = os.open(locking, os.O_CREAT | os.O_WRONLY, 0o644)
        fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.replace(locking, self._lock_path)
        self.folder.mkdir()
        _claim_locks.add(self)

    def forget_after_fork(self) -> None:
        """In a forked child: close the inherited descriptor. The lock belongs to the open
        file, which the parent still holds, so it stays the parent's."""
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def release(self) -> None:
        """Give up the folder. Empty (kombu's QoS restored unacknowledged messages when the
        channel closed), it is removed; otherwise a recoverer requeues what is left."""
        if self._lock_fd is None:
            return
        if any(self.folder.iterdir()):
            logger.warning("broker: claims in %s left for recovery", self.folder)
        else:
            self.folder.rmdir()
            self._lock_path.unlink()
        os.close(self._lock_fd)
        self._lock_fd = None


def recover_abandoned_claims(claims_root: Path, queue_folder: Path) -> int:
    """Move the messages of every claims folder whose owner is gone back into the queue.

    Returns how many messages went back. Safe to run from many processes at once: the
    flock decides which recoverer handles a folder, and renames never duplicate a file.
    """
    recovered = 0
    try:
        entries = list(claims_root.iterdir())
    except FileNotFoundError:
        return 0
    for lock_path in entries:
        if lock_path.suffix != ".lock":
            continue
        try:
            lock = open(lock_path, "rb")  # noqa: SIM115 - closed below, locked in between
        except FileNotFoundError:  # another recoverer finished this one
            continue
        with lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # its owner is alive
                continue
            folder = lock_path.with_suffix("")
            if folder.is_dir():
                for message in sorted(folder.iterdir()):
                    os.replace(message, queue_folder / message.name)
                    recovered += 1
                folder.rmdir()
            lock_path.unlink(missing_ok=True)
    if recovered:
        logger.warning("broker: requeued %d message(s) a dead consumer held", recovered)
    return recovered


class Channel(filesystem.Channel):
    """kombu's filesystem channel with atomic writes and durable claims (module docstring)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._claims: ClaimsFolder | None = None
        self._claimed: dict[str, Path] = {}  # delivery tag -> claimed file
        self._no_ack_queues: set[str] = set()
        self._listed: dict[str, deque[str]] = {}
        self._next_recovery = 0.0

    # --- writing ---------------------------------------------------------------------

    def _put(self, queue, payload, **kwargs):
        # The name sorts by time as kombu's does, so queues stay first in, first out.
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        write_atomically(Path(self.data_folder_out) / name, dumps(payload).encode())

    def _queue_bind(self, exchange, routing_key, pattern, queue):
        binding = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")

        def add(table):
            if binding not in table:
                table.insert(0, binding)
            return table

        self._update_table(exchange, add)

    def _delete(self, queue, exchange, routing_key, pattern, *args, **kwargs):
        virtual.Channel._delete(self, queue, exchange, routing_key, pattern, *args, **kwargs)
        binding = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        self._update_table(exchange, lambda table: [b for b in table if b != binding])

    def _update_table(self, exchange, change) -> None:
        """Read, change and atomically replace an exchange's table under its writers' lock;
        `get_table` readers open either the old file or the new one, never a partial."""
        file = self._exchange_file(exchange)
        self.control_folder.mkdir(parents=True, exist_ok=True)
        with open(file.with_name(f"{file.name}.lock"), "ab") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            table = self.get_table(exchange)
            write_atomically(file, dumps(change(list(table))).encode())

    # --- reading and acknowledging ---------------------------------------------------

    @property
    def claims(self) -> ClaimsFolder:
        if self._claims is None:
            self._claims = ClaimsFolder(Path(self.transport_options.get("claims_folder", "claims")))
        return self._claims

    def _get(self, queue):
        queue_folder = Path(self.data_folder_in)
        if monotonic() >= self._next_recovery:
            self._next_recovery = monotonic() + RECOVER_EVERY_SECONDS
            recover_abandoned_claims(self.claims.root, queue_folder)
        # One listing serves many gets: names sort by time, and newer files land behind
        # the ones already listed. Names another consumer took are skipped.
        listed = self._listed.setdefault(queue, deque())
        relisted = False
        while True:
            if not listed:
                if relisted:
                    raise Empty()
                wanted = f"{queue}.msg"
                names = (n for n in os.listdir(queue_folder) if n.partition(".")[2] == wanted)
                listed.extend(sorted(names))
                relisted = True
                continue
            message = self._take(queue, queue_folder / listed.popleft())
            if message is not None:
                return message

    def _take(self, queue: str, path: Path) -> dict | None:
        claimed = self.claims.folder / path.name
        try:
            os.rename(path, claimed)
        except FileNotFoundError:  # another consumer took it
            return None
        raw = claimed.read_bytes()
        try:
            message = loads(raw)
            tag = message["properties"]["delivery_tag"]
        except (ValueError, KeyError, TypeError) as exc:
            # Never written by this transport (atomic writes cannot leave a partial file):
            # kept aside for a person to look at instead of killing the consumer.
            aside = Path(self.processed_folder) / f"{path.name}.unreadable"
            os.replace(claimed, aside)
            logger.error("broker: set aside unreadable message %s: %r", aside, exc)
            return None
        if queue in self._no_ack_queues:
            self._settle(claimed)
        else:
            self._claimed[tag] = claimed
        return message

    def _settle(self, claimed: Path) -> None:
        if self.store_processed:
            os.replace(claimed, Path(self.processed_folder) / claimed.name)
        else:
            claimed.unlink(missing_ok=True)

    def _release(self, delivery_tag) -> None:
        claimed = self._claimed.pop(delivery_tag, None)
        if claimed is not None:
            self._settle(claimed)

    def basic_consume(self, queue, no_ack, *args, **kwargs):
        if no_ack:
            self._no_ack_queues.add(queue)
        return super().basic_consume(queue, no_ack, *args, **kwargs)

    def basic_get(self, queue, no_ack=False, **kwargs):
        message = super().basic_get(queue, no_ack=no_ack, **kwargs)
        if message is not None and no_ack:
            self._release(message.delivery_tag)
        return message

    def basic_ack(self, delivery_tag, multiple=False):
        super().basic_ack(delivery_tag, multiple=multiple)
        self._release(delivery_tag)

    def basic_reject(self, delivery_tag, requeue=False):
        super().basic_reject(delivery_tag, requeue=requeue)
        self._release(delivery_tag)

    def _restore(self, message):
        # Put back first, then drop the claim: a crash in between delivers twice, never 0.
        super()._restore(message)
        self._release(message.delivery_tag)

    def close(self):
        super().close()  # restores unacknowledged messages through _restore
        if self._claims is not None:
            self._claims.release()


class Transport(filesystem.Transport):
    """The filesystem transport on `Channel` above.

    An idle consumer looks for new messages every 0.1 s rather than kombu's 1 s, so a bot
    answers a move in about a tenth of a second; a poll is one `listdir` of `var/broker/queue`.
    """

    Channel = Channel
    polling_interval = 0.1
