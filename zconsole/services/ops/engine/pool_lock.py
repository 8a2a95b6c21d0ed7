"""One writer per pool: a lock on the host, held for the length of a write step.

Two consoles on one host could both pass the pre-check for detaching the two halves of one
mirror; zconsole's own guard must not be bypassed by a second console. So every step whose
command writes takes the pool's lock on the HOST (not on the operator's machine: two operators
may work from two laptops) before its pre-checks and lets go after its post-checks:

    flock -n -E 75 /run/zconsole.pool-POOL.lock tee /run/zconsole.pool-POOL.owner

`flock` takes the lock without waiting (`-n`) and exits 75 when another process holds it;
holding it, it runs `tee`, which writes who holds it (a JSON line on its stdin) to the owner
file and echoes it back: the echo is the proof the lock is held. Closing stdin (or the console
dying, which closes the pipe or the ssh channel) ends `tee` and frees the lock, so a killed
console never leaves a pool locked. /run is a root-only tmpfs: no one else can plant the files,
and a reboot clears them.

A console that finds the lock held says who holds it ("another zconsole holds pool tank:
alice@laptop, pid 4242, 'Detach sdb from mirror-0' step 'detach' since 14:02:11") and runs
nothing. A host that cannot hold a lock (no `flock`, a replayed capture) is said in the audit
log and the step goes on: the pre-checks still guard it, as before this lock existed.
"""

from __future__ import annotations

import json
import os
import re
import socket
import time
import zlib
from dataclasses import dataclass

from zconsole.hosts.base import Host, HostError, Result
from zconsole.hosts.hold import Held

LOCK_DIR = "/run"
HELD_EXIT = 75
_SAFE = re.compile(r"[^A-Za-z0-9_.:-]")


def lock_paths(pool: str) -> tuple[str, str]:
    """The lock file and the owner file for `pool`. A pool name holds only [A-Za-z0-9_.:-]
    on a real host; anything else (a hostile name) is replaced and the name's checksum added,
    so two names never share a file and no name reaches outside /run."""
    safe = _SAFE.sub("_", pool)[:80]
    if safe != pool:
        safe += f"-{zlib.crc32(pool.encode('utf-8', 'surrogateescape')):08x}"
    base = f"{LOCK_DIR}/zconsole.pool-{safe}"
    return base + ".lock", base + ".owner"


def lock_argv(pool: str) -> list[str]:
    lock, owner = lock_paths(pool)
    return ["flock", "-n", "-E", str(HELD_EXIT), lock, "tee", owner]


@dataclass(frozen=True)
class LockOwner:
    operator: str
    console: str  # the machine the console runs on (the operator's ssh hop, usually the host)
    pid: int
    plan: str
    step: str
    since: float

    def to_json(self) -> str:
        return json.dumps({"operator": self.operator, "console": self.console, "pid": self.pid, "plan": self.plan,
                           "step": self.step, "since": self.since}, ensure_ascii=True)

    @classmethod
    def from_text(cls, text: str) -> LockOwner | None:
        """The owner file's first line, or None when it is not one zconsole wrote."""
        try:
            d = json.loads(text.splitlines()[0] if text else "")
            return cls(str(d["operator"]), str(d.get("console", "?")), int(d["pid"]), str(d["plan"]), str(d["step"]),
                       float(d["since"]))
        except (ValueError, KeyError, TypeError, IndexError):
            return None

    def describe(self) -> str:
        at = time.strftime("%H:%M:%S", time.localtime(self.since))
        return (f"{self.operator} on {self.console}, pid {self.pid}, running '{self.plan}' step '{self.step}' "
                f"since {at}")


class PoolLockHeld(Exception):
    """Another console holds the pool: nothing may run. `str()` is the sentence to show."""

    def __init__(self, pool: str, owner: LockOwner | None) -> None:
        self.pool = pool
        self.owner = owner
        who = owner.describe() if owner is not None else "a process that did not say who it is"
        super().__init__(f"another zconsole is changing pool {pool} right now ({who}); "
                         "nothing was run. Wait for it to finish, look at the pool again, "
                         "then retry this step")


@dataclass
class PoolLock:
    """A held lock (`held` set) or the reason none could be taken (`note`)."""

    pool: str
    held: Held | None
    note: str = ""

    def release(self) -> None:
        if self.held is not None:
            self.held.release()
            self.held = None


def _read_owner(host: Host, pool: str, tries: int = 5) -> LockOwner | None:
    """Who holds the lock. `tee` echoes its line before it writes the owner file, so a
    holder that has just started may not have written it yet: look again a few times."""
    for i in range(tries):
        try:
            owner = LockOwner.from_text(host.read_text(lock_paths(pool)[1]))
        except HostError:
            owner = None
        if owner is not None or i == tries - 1:
            return owner
        time.sleep(0.2)
    return None


def take_pool_lock(host: Host, pool: str, *, operator: str, plan: str, step: str,
                   now: float, timeout: float = 15.0) -> PoolLock:
    """Take `pool`'s lock on `host` for one write step. Raises PoolLockHeld when another
    console holds it; a PoolLock without `held` (and a `note` saying why) when this host
    cannot hold a lock at all."""
    owner = LockOwner(operator, socket.gethostname(), os.getpid(), plan, step, now)
    hold = getattr(host, "hold", None)  # a test double or a wrapper may not have one
    if hold is None:
        return PoolLock(pool, None, "no pool lock: this host cannot hold a command")
    try:
        got = hold(lock_argv(pool), stdin=owner.to_json(), timeout=timeout)
    except NotImplementedError as e:
        return PoolLock(pool, None, f"no pool lock: {e}")
    except HostError as e:
        return PoolLock(pool, None, f"no pool lock: {e}")
    if isinstance(got, Held):
        return PoolLock(pool, got)
    if isinstance(got, Result) and got.returncode == HELD_EXIT:
        raise PoolLockHeld(pool, _read_owner(host, pool))
    detail = (got.stderr.strip().splitlines() or ["no output"])[0]
    return PoolLock(pool, None, f"no pool lock: flock exited {got.returncode}: {detail}")
