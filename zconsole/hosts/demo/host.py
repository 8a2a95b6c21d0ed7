"""DemoHost: a simulated Linux machine with OpenZFS that answers real commands in the real
formats of OpenZFS 2.1.11 or 2.3.2 and evolves with its clock.

Time: every answer is computed at `now() = clock() + skew`. `clock` defaults to time.time;
inject a callable (or a constant lambda for a frozen machine) in tests. `zpool wait` and the
`-w` flags fast-forward the simulation (they add to `skew`) instead of sleeping; interval
sampling (`zpool iostat -y 1 3`) is computed from the simulated rates without sleeping.

A rehearsal (`pace=REHEARSAL_PACE`: the console's `zconsole --demo`) keeps to the wall clock
instead: no skew ever, so the Timeline says the operator's time; a scan the operator starts
runs `pace` times faster than the disks (machine/scans.py), so a 4 TB resilver takes minutes
and its progress and ETA move on the run page; `zpool wait` and `-w` wait in real time (the
`sleep` given, time.sleep by default), polling the machine as the real command polls the
kernel, and give up after the command's timeout as a real host's would
(`CommandTimedOut`). The host holds no lock while it waits: reads from other threads go on.

A command is looked up in `tools.PROGRAMS` (one module per program family under `tools/`),
which reads and changes the `machine/` and prints through `render/`. Files (`read_text`,
`list_dir`, `realpath`) come from `render.tree.Tree`, filled by `render.block` and
`render.net`, plus the few computed at read time below (`_dynamic`).
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from zconsole.hosts.base import (
    BaseHost,
    CommandNotFound,
    CommandTimedOut,
    HostError,
    PathNotFound,
    Result,
    writing,
)
from zconsole.hosts.demo import record
from zconsole.hosts.demo.fmt import nicenum
from zconsole.hosts.demo.machine import CmdError, bays
from zconsole.hosts.demo.record import Log
from zconsole.hosts.demo.render import block, net, proc
from zconsole.hosts.demo.render.block import disk_properties
from zconsole.hosts.demo.render.tree import Tree
from zconsole.hosts.demo.scenarios import build
from zconsole.hosts.demo.tools import PROGRAMS
from zconsole.hosts.demo.tools import files as files_tools
from zconsole.hosts.demo.tools._common import Context, Out
from zconsole.hosts.hold import Held

REHEARSAL_PACE = 60.0
"""A rehearsal's scans run 60 times faster than the disks: an hour of a real resilver is a
minute. A 4 TB HDD at 165 MiB/s (about 6 h 40 min) takes under 7 min, the degraded tank's
1.7 TiB mirror half about 3 min: long enough for the console's 5 s refresh to show progress
and ETA moving dozens of times, short enough to wait through at the desk."""
WAIT_POLL = 1.0  # seconds between two looks of a rehearsal's `zpool wait`

SBIN = ("/usr/sbin/", "/sbin/", "/usr/bin/", "/bin/", "/usr/local/sbin/")
# Programs that never change the machine's shape (disks, partitions, pools, names): the
# derived indexes stay. smartctl is asked once per disk in a poll: on a host with a thousand
# disks, making the name index again after each answer made the poll quadratic.
SHAPE_KEEPING = frozenset({"smartctl"})


NSSWITCH = """\
# /etc/nsswitch.conf
passwd:         files systemd
group:          files systemd
shadow:         files
gshadow:        files

hosts:          files mdns4_minimal [NOTFOUND=return] dns myhostname
networks:       files

protocols:      db files
services:       db files
ethers:         db files
rpc:            db files

netgroup:       nis
"""


@dataclass(frozen=True)
class Hand:
    """One thing the operator's hands can do at the demo rack (`DemoHost.hands`); `act` does
    it and says what was done."""

    title: str
    help: str
    act: Callable[[], str]


class DemoHost(BaseHost):
    kind = "demo"
    simulated = True

    def __init__(self, scenario: str = "showcase", zfs_version: str = "2.3",
                 clock: Callable[[], float] | None = None, seed: int = 0,
                 root: bool = True, pace: float | None = None,
                 sleep: Callable[[float], None] | None = None, log: Log | None = None) -> None:
        """`pace`: a rehearsal (see the module doc; None: the tests' instant waits);
        `sleep`: how a rehearsal's `zpool wait` lets time pass (tests pass a fake); `log`:
        where the machine keeps what was done to it, and is rebuilt from (`record.py`)."""
        if zfs_version not in ("2.1", "2.3"):
            raise ValueError(f"zfs_version must be '2.1' or '2.3', not {zfs_version!r}")
        if pace is not None and pace < 1.0:
            raise ValueError(f"pace must be 1 or more, not {pace!r}")
        self.scenario = scenario
        self.zfs_version = zfs_version
        self._clock = clock or time.time
        self._skew = 0.0
        self.seed = seed
        self._root = root
        self.pace = pace
        self._sleep = sleep or time.sleep
        self._log = log
        self._at: float | None = None  # the time of the record being done again
        self._tree_cache: tuple[int, Tree] | None = None
        self.rebuild(float(self._clock()))
        if log is not None:
            record.restore(self, log)

    def rebuild(self, start: float) -> None:
        """The scenario's machine as built at `start`."""
        self.started = start
        self.machine = build(self.scenario, self.seed, start, self.zfs_version)
        self.machine.last = start
        self.machine.pace = self.pace or 1.0
        self._tree_cache = None

    def replay(self, rec: Mapping[str, object]) -> None:
        """Do one record of the machine's log again, at its time (`record.py`)."""
        t, argv, stdin = rec.get("t"), rec.get("argv"), rec.get("stdin")
        if not isinstance(t, (int, float)):
            return
        self._at = max(float(t), self.machine.last)
        try:
            kind = rec.get("kind")
            if kind == "run" and isinstance(argv, list) and argv and \
                    all(isinstance(a, str) for a in argv):
                self._exec(tuple(argv), 600.0, stdin if isinstance(stdin, str) else None)
            elif kind in ("pull", "swap") and isinstance(rec.get("serial"), str):
                act = self.pull_disk if kind == "pull" else self.simulate_swap
                act(str(rec["serial"]))
            elif kind == "fill" and isinstance(rec.get("bay"), str):
                self._fill_hand(str(rec["bay"]))
            elif kind == "insert":
                self.insert_disk(str(rec.get("bay")), str(rec.get("model")),
                                 str(rec.get("serial")), int(str(rec.get("size"))))
            elif kind == "reboot":
                self.reboot()
        except (HostError, CmdError, ValueError):
            pass  # refused now as it would be by the program: the machine stays as it is
        finally:
            self._at = None

    def _note(self, kind: str, t: float, **fields: object) -> None:
        """Keep what was done to the machine in its log (not while doing it again)."""
        if self._log is not None and self._at is None:
            self._log.append({"kind": kind, "t": t, **fields})

    # --- the Host protocol -------------------------------------------------------------

    @property
    def label(self) -> str:
        return f"demo: {self.scenario}"

    @property
    def v23(self) -> bool:
        return self.zfs_version == "2.3"

    def now(self) -> float:
        if self._at is not None:
            return self._at
        return float(self._clock()) + self._skew

    def is_root(self) -> bool:
        return self._root

    @property
    def rehearsal(self) -> bool:
        """Whether the host keeps to the wall clock (a rehearsal), not jumping ahead."""
        return self.pace is not None

    def _sync(self) -> float:
        t = self.now()
        self.machine.advance(t)
        if self.machine.pending_inserts:
            bays.due(self.machine, t)
        return max(t, self.machine.last)

    def _fast_forward(self, t: float) -> None:
        cur = self.now()
        if t > cur and not self.rehearsal:  # a rehearsal never jumps ahead of the wall clock
            self._skew += t - cur
        self.machine.changed()  # the command that waits may have changed the vdev trees
        self.machine.advance(self.now())

    def _wait_until(self, end_of: Callable[[float], float | None], timeout: float) -> float:
        """`zpool wait` / `-w`: until `end_of(now)` (when what is awaited ends, at the pace
        seen now) says nothing runs any more; the time it returns at. Tests jump to each end
        (a deferred resilver follows the first); a rehearsal sleeps, looking again every
        `WAIT_POLL` s, and stops after `timeout` s with TimeoutError, as a real host's
        command timeout stops the real `zpool wait`."""
        started = float(self._clock())
        jumps = 0
        while True:
            self.machine.changed()  # the command that waits may have changed the vdev trees
            t = self._sync()
            end = end_of(t)
            if end is None or self._at is not None:  # a wait changes nothing: not done again
                return t
            if not self.rehearsal:
                jumps += 1
                if jumps > 64:  # a scan that never ends (paused): as a real wait would hang
                    raise TimeoutError
                self._fast_forward(max(end, t) + 1.0)
                continue
            left = timeout - (float(self._clock()) - started)
            if left <= 0:
                raise TimeoutError
            self._sleep(min(max(end - t, 0.0) + 0.05, left, WAIT_POLL))

    def _exec(self, args: tuple[str, ...], timeout: float, stdin: str | None) -> Result:
        prog = args[0]
        for prefix in SBIN:
            if prog.startswith(prefix):
                prog = prog[len(prefix):]
                break
        handler = PROGRAMS.get(prog)
        if handler is None:
            raise CommandNotFound(args, self.label)
        now = self._sync()
        if writing():  # the plan runner's writes: kept, with their time
            self._note("run", now, argv=list(args), stdin=stdin)
        ctx = Context(machine=self.machine, now=now, v23=self.v23, root=self._root,
                      fast_forward=self._fast_forward, stdin=stdin,
                      wait_until=lambda end_of: self._wait_until(end_of, timeout))
        try:
            rc, out, err = handler(ctx, list(args[1:]))
        except CmdError as e:
            rc, out, err = e.rc, "", e.stderr
        except TimeoutError:
            raise CommandTimedOut(args, timeout) from None
        finally:
            if prog not in SHAPE_KEEPING:
                self.machine.changed()  # any other command may have changed its shape
        return Result(args, rc, out, err, ctx.took)

    def _exec_pipeline(self, stages: list[tuple[str, ...]], timeout: float) -> Result:
        """Stages run one after the other (the simulation has no byte streams); each stage
        sees the previous one's output as stdin. Result as a real pipeline: first non-zero
        exit, every stage's stderr."""
        rc, out, errs = 0, "", []
        for args in stages:
            r = self.run(args, timeout=timeout, check=False, stdin=out)
            errs.append(r.stderr)
            out = r.stdout
            if r.returncode != 0 and rc == 0:
                rc = r.returncode
        return Result(stages[0], rc, out, "".join(errs), 0.0)

    def reboot(self) -> str:
        """The host boots again now (a rehearsal of a boot fix): wait-online waits, is quick
        or does not run, as the files now say (`tools/boot.reboot`)."""
        from zconsole.hosts.demo.tools import boot

        t = self._sync()
        self._note("reboot", t)
        return boot.reboot(self.machine, t)

    # --- files -------------------------------------------------------------------------

    def _tree(self) -> Tree:
        """/dev, /sys/class/block and /sys/class/net as files, made once per generation of
        the machine (every command starts a new one; see `Machine.changed`)."""
        cached = self._tree_cache
        if cached is not None and cached[0] == self.machine.generation:
            return cached[1]
        tree = Tree()
        block.build_tree(self.machine, tree)
        net.build_tree(self.machine, tree)
        self._tree_cache = (self.machine.generation, tree)
        return tree

    def _dynamic(self, path: str) -> str | None:
        m = self.machine
        if path == "/proc/spl/kstat/zfs/arcstats":
            self._sync()
            return proc.arcstats(m, self.now(), self.v23)
        if path == "/proc/spl/kstat/zfs/zil":
            return proc.zil(m, self.now(), self.v23)
        if path == "/proc/diskstats":
            self._sync()
            return proc.diskstats(m)
        if path in ("/proc/mounts", "/proc/self/mounts", "/etc/mtab"):
            return proc.mounts(m)
        if path == "/proc/swaps":
            return proc.swaps(m)
        if path == "/proc/mdstat":
            return proc.mdstat()
        if path in ("/sys/module/zfs/version", "/sys/module/spl/version"):
            return "2.3.2-2~bpo12+2\n" if self.v23 else "2.1.11-1\n"
        if path == "/etc/hostname":
            return m.hostname + "\n"
        if path == "/etc/nsswitch.conf":  # Debian 12's, with libnss-mdns installed
            return NSSWITCH
        if path == "/proc/sys/kernel/osrelease":
            return m.kernel + "\n"
        if path == "/proc/sys/kernel/random/boot_id":  # one per boot of the machine
            h = hashlib.md5(f"{m.hostname} {m.boot_time!r}".encode(), usedforsecurity=False)
            return str(uuid.UUID(h.hexdigest())) + "\n"
        if path == "/proc/uptime":
            up = self.now() - m.boot_time
            return f"{up:.2f} {up * 1.7:.2f}\n"
        return None

    def _hold(self, args: tuple[str, ...], stdin: str, timeout: float) -> Held | Result:
        """`flock -n -E CODE LOCK tee OWNER` as the host would: the lock table is in the
        machine, so two consoles (two runners) on one demo host see each other's locks."""
        if (len(args) != 7 or args[0].rsplit("/", 1)[-1] != "flock" or args[1:3] != ("-n", "-E")
                or not args[3].isdigit() or args[5] != "tee"):
            raise NotImplementedError(f"the demo host holds only flock … tee, not {args[0]}")
        lock, owner = args[4], args[6]
        m = self.machine
        if lock in m.locks:
            return Result(args, int(args[3]), "", "", 0.0)
        m.locks[lock] = owner
        m.files[owner] = stdin if stdin.endswith("\n") else stdin + "\n"

        def let_go() -> None:
            m.locks.pop(lock, None)

        return Held(args, _on_release=let_go)

    def read_text(self, path: str) -> str:
        path = files_tools.follow(self.machine, path)
        if path in self.machine.files:
            return self.machine.files[path]
        text = self._dynamic(path)
        if text is not None:
            return text
        tree = self._tree()
        real = tree.resolve(path)
        if real in tree.files:
            return tree.files[real]
        raise PathNotFound(path)

    def list_dir(self, path: str) -> list[str]:
        tree = self._tree()
        real = tree.resolve(path.rstrip("/") or "/")
        if real in tree.dirs:
            return sorted(tree.dirs[real])
        under = path.rstrip("/") + "/"
        names = {f[len(under):] for f in [*self.machine.files, *self.machine.symlinks]
                 if f.startswith(under) and "/" not in f[len(under):]}
        if names:
            return sorted(names)
        if path.rstrip("/") == "/proc/spl/kstat/zfs":
            return sorted(["arcstats", "abdstats", "dbufstats", "dmu_tx", "fm", "zil",
                           *self.machine.pools])
        raise PathNotFound(path)

    def realpath(self, path: str) -> str:
        followed = files_tools.follow(self.machine, path)
        return followed if followed != path else self._tree().resolve(path)

    def udev_properties(self, devname: str) -> Mapping[str, str] | None:
        hit = self.machine.disk_by_any(devname)
        if hit is None:
            return None
        d, part = hit
        pobj = next((x for x in d.partitions if x.number == part), None) if part else None
        return disk_properties(self.machine, d, pobj)

    # --- hands at the rack (the same-bay replace rehearsed) ------------------------------

    def pull_disk(self, serial: str) -> None:
        """Take the disk with `serial` out of its bay (machine/bays.py)."""
        self._note("pull", self._sync(), serial=serial)
        bays.pull(self.machine, serial)

    def insert_disk(self, bay: str, model: str, serial: str, size: int) -> str:
        """Put a new, blank disk into `bay` (a by-path name); its kernel name."""
        self._note("insert", self._sync(), bay=bay, model=model, serial=serial, size=size)
        return bays.insert(self.machine, bay, model, serial, size).name

    def simulate_swap(self, serial: str) -> None:
        """A rehearsal's hands (`machine/bays.rehearse`): the disk with `serial` out, a new
        one into its bay. The runner's fast-forward of a `disk-swap` wait calls it
        (`services/ops/zfs/bay.py`)."""
        t = self._sync()
        self._note("swap", t, serial=serial)
        bays.rehearse(self.machine, serial, t)

    def hands(self) -> list[Hand]:
        """What the operator's hands can do at the rack now (the console's palette offers
        each, "Demo: pull the disk", "Demo: insert a new disk"): take out a member ZFS no
        longer uses (OFFLINE or FAULTED), put a new blank disk into an empty bay. The
        same-bay replace's watching step waits for them in a rehearsal as at a real rack."""
        self._sync()
        m = self.machine
        out: list[Hand] = []
        for d, pool, state in bays.pullable(m):
            out.append(Hand(f"Demo: pull the disk {d.name}",
                            f"take {d.name} (serial {d.serial}, {state} in {pool}) out of its "
                            f"bay {d.pci_path}", partial(self._pull_hand, d.serial)))
        for old in bays.empty_bays(m):
            out.append(Hand(f"Demo: insert a new disk into {old.pci_path}",
                            f"a new blank {old.model} into the empty bay {old.pci_path} "
                            f"(where {old.serial} was)", partial(self._fill_hand, old.pci_path)))
        return out

    def _pull_hand(self, serial: str) -> str:
        self.pull_disk(serial)
        d = next(x for x in self.machine.disks.values() if x.serial == serial)
        return f"{d.name} (serial {d.serial}) is out of its bay {d.pci_path}."

    def _fill_hand(self, bay: str) -> str:
        t = self._sync()
        old = next((d for d in bays.empty_bays(self.machine) if d.pci_path == bay), None)
        if old is None:
            return f"The bay {bay} is not empty any more."
        self._note("fill", t, bay=bay)
        new = bays.fill(self.machine, old, t)
        return (f"A new disk is in the bay {bay}: {new.name}, {new.model}, serial {new.serial}, "
                f"{nicenum(new.size)}.")

    # --- conveniences for tests and screenshots ----------------------------------------

    def answer(self, argv: Sequence[str]) -> Out:
        r = self.run(argv, check=False)
        return r.returncode, r.stdout, r.stderr
