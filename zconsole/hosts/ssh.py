"""SshHost: a remote machine over the operator's own ssh (plumbum SshMachine).

The operator's ~/.ssh/config applies (ssh itself reads it); an optional extra config file can be
given (the test guest uses one). Connections share a control socket, so the many small reads a
refresh makes cost one TCP/SSH handshake, not one each.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from plumbum import SshMachine
from plumbum.commands.processes import CommandNotFound as PlumbumCommandNotFound

from zconsole.hosts import batch
from zconsole.hosts.base import (
    BaseHost,
    CommandNotFound,
    CommandTimedOut,
    HostError,
    HostUnreachable,
    PathNotFound,
    Result,
    SessionLost,
    checked,
    writing,
)
from zconsole.hosts.hold import Held, hold_process

_SBIN = ("/usr/local/sbin", "/usr/sbin", "/sbin")
SSH_UNREACHABLE = 255  # ssh's own exit status when the connection fails


def control_dir() -> str:
    """The directory of ssh control sockets: ours alone, or refused.

    Under `sudo -i` there is no XDG_RUNTIME_DIR and the shared temp dir is used, where another
    local user can create `zconsole-ssh-UID` first and see (or replace) the socket that carries
    root's commands. The directory must be a real directory (not a link), owned by this uid, and
    closed to group and others; zconsole refuses to use anything else rather than repair it.
    """
    base = os.environ.get("XDG_RUNTIME_DIR", "")
    if not base or not os.path.isdir(base):
        # unset (sudo -i, cron), or gone: systemd removes /run/user/UID when the user's last
        # session ends, and a tmux started in it keeps the name. The shared temp dir then,
        # with the same checks (it was "[Errno 2] No such file or directory", no ssh tried)
        base = tempfile.gettempdir()
    path = os.path.join(base, f"zconsole-ssh-{os.getuid()}")
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise HostError(f"{path} is not a directory (a link or a file): zconsole will not put "
                        "its ssh control socket there; remove it and try again")
    if st.st_uid != os.getuid():
        raise HostError(f"{path} belongs to uid {st.st_uid}, not to you (uid {os.getuid()}): "
                        "another user created it; zconsole will not use it for its ssh "
                        "control socket. Remove it (as root) and try again")
    if stat.S_IMODE(st.st_mode) & 0o077:
        raise HostError(f"{path} is open to group or others (mode "
                        f"{stat.S_IMODE(st.st_mode):04o}): zconsole will not use it for its "
                        f"ssh control socket. `chmod 700 {path}` or remove it")
    return path


# [user@]host as ssh takes it: never an option (`-oProxyCommand=...` would be one), no spaces
# or control characters; a host name, an ssh_config alias, an IPv4 or a bracketed IPv6.
_DESTINATION = re.compile(r"(?:[A-Za-z0-9._][A-Za-z0-9._+-]*@)?"
                          r"(?:[A-Za-z0-9_][A-Za-z0-9._-]*|\[[0-9A-Fa-f:.%A-Za-z]+\])")


def validate_destination(destination: str) -> str:
    """`destination` if ssh can only read it as a destination; HostError otherwise."""
    if not _DESTINATION.fullmatch(destination):
        raise HostError(f"not a host to ssh to: {destination!r} (expected [user@]host; a "
                        "value starting with '-' would be read by ssh as an option)")
    return destination


def _text(proc: Any, data: bytes | str | None) -> str:
    if data is None:
        return ""
    if isinstance(data, bytes):
        return data.decode(getattr(proc, "custom_encoding", None) or "utf-8", "replace")
    return data


def _lost(result: Result) -> bool:
    """ssh's own 255 with not a byte on stdout or stderr: the session was closed without an
    exit status (ssh prints a reason for every failure of its own)."""
    return result.returncode == SSH_UNREACHABLE and not result.stdout and not result.stderr


def _abandon(proc: Any) -> None:
    """Kill the local ssh client and drop our ends of its pipes without waiting for EOF."""
    with contextlib.suppress(OSError):
        proc.kill()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


# A login that takes 15-30 s is what the fix-it panels are for (sshd waiting for a reverse
# DNS lookup, pam_systemd for logind or the user's manager): zconsole must still get in to
# show it, so the first session may take this long once the TCP connection is up.
LOGIN_TIMEOUT = 90.0
SERVER_ALIVE_INTERVAL = 15
SERVER_ALIVE_COUNT = 3
# a read whose session was lost (SessionLost) is asked again after each of these pauses (s)
LOST_RETRY_PAUSES = (0.05, 0.25, 1.0)


_EPOCH = re.compile(r"[0-9]{1,12}")  # `date +%s`: seconds since 1970, nothing else


def ssh_reason(stderr: str | bytes | None) -> str | None:
    """ssh's own words for a failed connection, one line: its last `ssh: ...` line (e.g.
    "Could not resolve hostname bad..host: Name or service not known"), else the last line
    it wrote; None when it wrote nothing."""
    text = stderr.decode(errors="replace") if isinstance(stderr, bytes) else (stderr or "")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    said = next((line for line in reversed(lines) if line.startswith("ssh: ")), None)
    if said is not None:
        return said.removeprefix("ssh: ")
    return lines[-1] if lines else None


class SshHost(BaseHost):
    kind = "ssh"
    concurrent_reads = True

    def __init__(
        self,
        destination: str,
        *,
        ssh_config: str | None = None,
        port: int | None = None,
        connect_timeout: float = 10.0,
        login_timeout: float = LOGIN_TIMEOUT,
        extra_opts: Sequence[str] = (),
    ) -> None:
        """`connect_timeout`: ssh's own ConnectTimeout (the TCP connection and the server's
        banner); `login_timeout`: how long the first session may take to come up after
        that (plumbum waits for its shell)."""
        user, _, host = validate_destination(destination).rpartition("@")
        self.destination = destination
        self._host = host
        self._user = user or None
        self._port = port
        self._connect_timeout = connect_timeout
        self._login_timeout = max(login_timeout, connect_timeout)
        opts: list[str] = []
        if ssh_config:
            opts += ["-F", ssh_config]
        opts += [
            "-o", "BatchMode=yes",
            "-o", "ControlMaster=auto",
            "-o", f"ControlPath={control_dir()}/%C",
            "-o", "ControlPersist=300",
            "-o", f"ConnectTimeout={int(connect_timeout)}",
            # a master whose host rebooted or vanished without a reset (a NAT, QEMU's user
            # network) would otherwise be reused for ever, every read waiting on a dead TCP
            # connection: ssh ends it after 3 unanswered keepalives, 45 s
            "-o", f"ServerAliveInterval={SERVER_ALIVE_INTERVAL}",
            "-o", f"ServerAliveCountMax={SERVER_ALIVE_COUNT}",
            *extra_opts,
        ]
        self._ssh_opts = opts
        self._machine: Any = None
        self._connecting = threading.Lock()
        self._programs: dict[str, Any] = {}
        self._clock_offset: float | None = None
        self._root: bool | None = None

    @property
    def label(self) -> str:
        return self.destination

    # -- connection --------------------------------------------------------------------------
    def _connect(self) -> Any:
        with self._connecting:  # reads run on several threads: one connection, one master
            return self._connect_locked()

    def _connect_locked(self) -> Any:
        if self._machine is None:
            try:
                self._machine = SshMachine(
                    self._host,
                    user=self._user,
                    port=self._port,
                    ssh_opts=self._ssh_opts,
                    scp_opts=self._ssh_opts,
                    connect_timeout=self._login_timeout,
                )
            except Exception as e:  # noqa: BLE001 - plumbum raises several kinds here
                reason = ssh_reason(getattr(e, "stderr", None)) or self._probe() or str(e)
                raise HostUnreachable(
                    f"cannot reach {self.destination} over ssh: {reason}") from None
        return self._machine

    def _probe(self) -> str | None:
        """ssh's own reason, asked again where plumbum lost it (its shell's stdin closed
        under it: "[Errno 32] Broken pipe"): `ssh ... HOST true` with the same options, its
        stderr read. Only on the failure path; None when ssh says nothing."""
        argv = ["ssh", *self._ssh_opts, *(["-p", str(self._port)] if self._port else []),
                *(["-l", self._user] if self._user else []), "--", self._host, "true"]
        try:
            done = subprocess.run(argv, capture_output=True, stdin=subprocess.DEVNULL,  # noqa: S603
                                  timeout=self._login_timeout, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return ssh_reason(done.stderr) if done.returncode != 0 else None

    def close(self) -> None:
        if self._machine is not None:
            try:
                self._machine.close()
            finally:
                self._machine = None

    def _program(self, name: str) -> Any:
        m = self._connect()
        if name in self._programs:
            return self._programs[name]
        if "/" in name:
            cmd = m[name]
        else:
            try:
                cmd = m[name]
            except PlumbumCommandNotFound:
                for d in _SBIN:
                    p = m.path(d) / name
                    if p.exists():
                        cmd = m[str(p)]
                        break
                else:
                    raise CommandNotFound([name], self.destination) from None
        self._programs[name] = cmd
        return cmd

    # -- Host protocol -----------------------------------------------------------------------
    def _exec(self, args: tuple[str, ...], timeout: float, stdin: str | None) -> Result:
        started = time.monotonic()
        result = self._exec_once(args, timeout, stdin)
        # a session that ended with neither an exit status nor output: the server closed the
        # channel (dropbear 2022.8x does when two sessions overlap: SessionLost). A read is
        # asked again, a little later each time, in the time left; a write never is
        tries = 1
        for pause in () if writing() else LOST_RETRY_PAUSES:
            if not _lost(result) or time.monotonic() - started + pause >= timeout:
                break
            time.sleep(pause)
            result = self._exec_once(args, timeout - (time.monotonic() - started), stdin)
            tries += 1
        if _lost(result):
            raise SessionLost(
                f"{self.destination}: the ssh session of `{' '.join(args)}` ended without an "
                "exit status or any output (ssh exit 255)"
                + (f", {tries} times" if tries > 1 else "") + ": whether it ran is not known")
        return result

    def _exec_once(self, args: tuple[str, ...], timeout: float, stdin: str | None) -> Result:
        cmd = self._program(args[0])[list(args[1:])]
        started = time.monotonic()
        try:
            proc = cmd.popen()
        except OSError as e:
            raise HostUnreachable(f"{self.destination}: cannot start ssh: {e}") from None
        # Not plumbum's run(timeout=): it kills the local ssh client and then waits for EOF,
        # but with a ControlMaster the client has handed its pipes to the master, which keeps
        # them open until the REMOTE command ends (`sleep 30` with timeout 1 took 30 s).
        try:
            out, err = proc.communicate(
                input=stdin.encode() if stdin is not None else None, timeout=timeout)
        except subprocess.TimeoutExpired:
            _abandon(proc)
            raise CommandTimedOut(args, timeout) from None
        rc = int(proc.returncode)
        out, err = _text(proc, out), _text(proc, err)
        if rc == SSH_UNREACHABLE and not out and ("ssh:" in err or "Connection" in err):
            raise HostUnreachable(f"{self.destination}: {err.strip()}")
        if rc == 127 and "not found" in err:
            raise CommandNotFound(args, self.destination)
        return Result(args, rc, out, err, time.monotonic() - started)

    def _hold(self, args: tuple[str, ...], stdin: str, timeout: float) -> Held | Result:
        """The remote command holds while its ssh channel is open: closing stdin (release) or
        losing the connection (zconsole killed) ends it on the host."""
        cmd = self._program(args[0])[list(args[1:])]
        try:
            proc = cmd.popen()
        except OSError as e:
            raise HostUnreachable(f"{self.destination}: cannot start ssh: {e}") from None
        got = hold_process(proc, args, stdin, timeout, kill=_abandon)
        if isinstance(got, Result) and got.returncode == SSH_UNREACHABLE and not got.stdout:
            raise HostUnreachable(f"{self.destination}: {got.stderr.strip()}")
        return got

    def _exec_pipeline(self, stages: list[tuple[str, ...]], timeout: float) -> Result:
        """Each stage runs on the remote host over its own ssh channel and this machine
        connects them (the data crosses the network twice: fine for a dataset rewrite on a
        LAN, slow over a thin link). As in _exec(), the timeout is ours, not plumbum's."""
        started = time.monotonic()
        procs: list[Any] = []
        try:
            for args in stages:
                cmd = self._program(args[0])[list(args[1:])]
                stdin = procs[-1].stdout if procs else subprocess.DEVNULL
                procs.append(cmd.popen(stdin=stdin))
                if len(procs) > 1:
                    procs[-2].stdout.close()  # the next stage owns it now
        except OSError as e:
            for p in procs:
                _abandon(p)
            raise HostUnreachable(f"{self.destination}: cannot start ssh: {e}") from None
        errs: list[str] = []
        deadline = started + timeout
        try:
            out, err = procs[-1].communicate(timeout=max(0.0, deadline - time.monotonic()))
            for p in procs[:-1]:
                p.wait(timeout=max(0.0, deadline - time.monotonic()))
                errs.append(_text(p, p.stderr.read() if p.stderr else b""))
        except subprocess.TimeoutExpired:
            for p in procs:
                _abandon(p)
            raise CommandTimedOut(stages[0], timeout) from None
        errs.append(_text(procs[-1], err))
        rc = next((int(p.returncode) for p in procs if p.returncode), 0)
        return Result(stages[0], rc, _text(procs[-1], out), "".join(errs),
                      time.monotonic() - started)

    def read_text(self, path: str) -> str:
        r = self.run(["cat", "--", path], check=False)
        if r.returncode != 0:
            if "No such file" in r.stderr:
                raise PathNotFound(path)
            checked(r, True)
        return r.stdout

    def list_dir(self, path: str) -> list[str]:
        r = self.run(["ls", "-1A", "--", path], check=False)
        if r.returncode != 0:
            if "No such file" in r.stderr:
                raise PathNotFound(path)
            checked(r, True)
        return sorted(line for line in r.stdout.splitlines() if line)

    def read_texts(self, paths: Sequence[str]) -> dict[str, str]:
        """Many small files in one round trip each `batch.BATCH` (hosts/batch.py); a path
        the batch cannot take is read alone."""
        out: dict[str, str] = {}
        alone = [p for p in paths if not batch.batchable(p)]
        for part in batch.chunks([p for p in paths if batch.batchable(p)]):
            r = self.run(batch.grep_argv(part), check=False)
            if r.returncode in (0, 1, 2):  # 2: a file was missing (-s keeps it quiet)
                out.update(batch.decode_grep(r.stdout, part))
            else:  # no grep there: each file alone, as before
                alone.extend(part)
        out.update(batch.each_text(self, alone))
        return out

    def list_dirs(self, paths: Sequence[str]) -> dict[str, list[str]]:
        """Many directories in one round trip each `batch.BATCH` (hosts/batch.py)."""
        out: dict[str, list[str]] = {}
        alone = [p for p in paths if not batch.batchable(p)]
        for part in batch.chunks([p for p in paths if batch.batchable(p)]):
            r = self.run(batch.find_argv(part), check=False)
            if r.returncode in (0, 1):  # 1: a directory was missing
                out.update(batch.decode_find(r.stdout, part, r.stderr))
            else:
                alone.extend(part)
        out.update(batch.each_dir(self, alone))
        return out

    def realpath(self, path: str) -> str:
        return self.run(["readlink", "-f", "--", path]).stdout.strip() or path

    def now(self) -> float:
        """The host's wall clock: ours plus its offset, measured once (`clock_offset`)."""
        if self._clock_offset is None:
            self._clock_offset = self.clock_offset()
        return time.time() + self._clock_offset

    def clock_offset(self) -> float:
        """The host's wall clock less ours, from one `date +%s`: whole seconds, so its
        middle (+0.5 s) against the middle of our round trip; off by at most half the round
        trip and half a second. 0 when the host's clock cannot be read (its answer is
        hostile input: only digits are a time)."""
        before = time.time()
        try:
            out = self.run(["date", "+%s"], timeout=10).stdout.strip()
        except HostError:
            return 0.0
        after = time.time()
        if not _EPOCH.fullmatch(out):
            return 0.0
        return int(out) + 0.5 - (before + after) / 2

    def is_root(self) -> bool:
        if self._root is None:
            self._root = self.run(["id", "-u"], timeout=10).stdout.strip() == "0"
        return self._root

    def udev_properties(self, devname: str) -> Mapping[str, str] | None:
        return None  # services ask `udevadm info` through run()
