#!/usr/bin/env python3
"""Capture real outputs of the Debian 12 host guest for the fix-it parsers and the demo host:
tests/fixtures/host/<state>/, one directory per state (clean, and each fault recipe of
hostvm/faults.py), each file the stdout of one command run as root in the guest (stderr and
exit status are in the state's manifest.json, and SOURCES.md says which command made which
file). Nothing here is edited by hand afterwards.

    python tests/integration/capture_host_fixtures.py                 # boots its own guest
    python tests/integration/capture_host_fixtures.py --states clean,slow-reverse-dns
    python tests/integration/capture_host_fixtures.py --attach /tmp/zconsole-testvm-0/hostvm

Its own guest is started in a run directory of its own (never a guest another process uses)
and stopped at the end. Logins are made the way an operator's are (`ssh hostvm true`, a new
connection each time) and timed on this machine; the journal around them is captured.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

from hostvm import faults  # noqa: E402
from hostvm.guest import OPERATOR, HostGuest, ensure_operator, guest_now  # noqa: E402

OUT = REPO / "tests" / "fixtures" / "host"
CLIENT = "10.0.2.2"  # QEMU's user-network gateway: every ssh client appears from there
CONNECTION = f"user=root,addr={CLIENT},host={CLIENT}"
USER_STOP_WAIT = 14.0  # UserStopDelaySec (10 s) and a margin

TAG = ""  # --tag: a second capture of a state goes to <state>-<tag>/, next to the first
STATES = ["clean", "sshd-auth-methods", "slow-reverse-dns", "slow-user-manager",
          "frozen-logind", "wait-online-hang", "ifupdown-dhcp-hang"]


def utc() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def load_testvm() -> Any:
    spec = importlib.util.spec_from_file_location("zconsole_testvm",
                                                  REPO / "tools" / "testvm" / "testvm.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["zconsole_testvm"] = mod
    spec.loader.exec_module(mod)
    return mod


class State:
    """One fixture directory and its manifest."""

    def __init__(self, g: HostGuest, name: str, fault: str) -> None:
        self.g = g
        name += TAG
        self.dir = OUT / name
        self.dir.mkdir(parents=True, exist_ok=True)
        self.entries: list[dict[str, Any]] = []
        self.notes: list[str] = []
        self.name = name
        self.fault = fault

    def run(self, filename: str, command: str | list[str], timeout: float = 300.0,
            as_user: str | None = None) -> subprocess.CompletedProcess[str]:
        """Run in the guest (as root, or `su` to as_user); stdout into filename."""
        shown = command if isinstance(command, str) else shlex.join(command)
        remote: str | list[str] = command
        if as_user:
            remote = f"su -s /bin/sh {as_user} -c {shlex.quote(shown)}"
        t0 = time.monotonic()
        when = utc()
        try:
            proc = self.g.exec(remote, check=False, timeout=timeout)
        except subprocess.TimeoutExpired:
            self.entries.append({"file": filename, "command": shown, "as": as_user or "root",
                                 "at": when, "error": f"timed out after {timeout:g} s"})
            self.save()
            print(f"  {filename}: TIMEOUT", flush=True)
            return subprocess.CompletedProcess(remote, 124, "", "")
        secs = round(time.monotonic() - t0, 3)
        path = self.dir / filename
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(proc.stdout)
        self.entries.append({"file": filename, "command": shown, "as": as_user or "root",
                             "at": when, "rc": proc.returncode, "seconds": secs,
                             "stderr": proc.stderr[-2000:]})
        self.save()
        print(f"  {filename}: rc {proc.returncode}, {secs} s", flush=True)
        return proc

    def note(self, text: str) -> None:
        print(f"  note: {text}", flush=True)
        self.notes.append(f"{utc()}: {text}")
        self.save()

    def save(self) -> None:
        (self.dir / "manifest.json").write_text(json.dumps(
            {"state": self.name, "fault": self.fault, "guest": GUEST_DESC,
             "commands": self.entries, "notes": self.notes}, indent=1) + "\n")


GUEST_DESC = ("Debian 12 host guest (tools/testvm --flavour host: bookworm, systemd 252, "
              "openssh-server 9.2p1, netplan.io 0.106, OpenZFS 2.3.2) under QEMU/TCG")


def login(g: HostGuest, st: State, user: str = "root", timeout: float = 400.0) -> float:
    argv = g.ssh_argv("true")
    argv[-2:-2] = ["-l", user]
    t0 = time.monotonic()
    proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=timeout)
    secs = round(time.monotonic() - t0, 2)
    st.note(f"login `ssh -l {user} hostvm true` (new connection, from this machine) took "
            f"{secs} s, rc {proc.returncode}")
    return secs


def ssh_reads(st: State, session: bool = True) -> None:
    st.run("sshd-T.txt", ["sshd", "-T"])
    st.run("sshd-T-C.txt", ["sshd", "-T", "-C", CONNECTION])
    st.run("sshd_config", ["cat", "/etc/ssh/sshd_config"])
    names = st.run("sshd_config.d.ls", ["ls", "-1", "/etc/ssh/sshd_config.d"]).stdout.split()
    for name in names:
        st.run(f"sshd_config.d/{name}", ["cat", f"/etc/ssh/sshd_config.d/{name}"])
    st.run("resolv.conf", ["cat", "/etc/resolv.conf"])
    st.run("nsswitch.conf", ["cat", "/etc/nsswitch.conf"])
    hosts = st.run("getent-hosts.txt", f"TIMEFORMAT='real %R'; time getent hosts {CLIENT}")
    words = hosts.stdout.split()
    if len(words) > 1:  # sshd checks the name it got forward: time that lookup too
        st.run("getent-ahosts.txt", f"TIMEFORMAT='real %R'; time getent ahosts {words[1]}")
    st.run("pam-common-session.txt", ["grep", "-n", "pam_systemd", "/etc/pam.d/common-session"])
    st.run("is-active.txt", ["systemctl", "is-active", "systemd-logind.service", "dbus.service",
                             "ssh.service", "ssh.socket"])
    st.run("is-enabled-ssh.txt", ["systemctl", "is-enabled", "ssh.service", "ssh.socket"])
    st.run("ssh-connection.txt", 'echo "$SSH_CONNECTION"')
    if session:
        session_reads(st)


def session_reads(st: State, logind: bool = True) -> None:
    """The session setup's reads (zconsole/services/read/fixit.py): the user managers'
    units (root's and the operator's), the session daemons' processes, logind timed."""
    uids = ["0"]
    op = st.g.exec(["id", "-u", OPERATOR], check=False)
    if op.returncode == 0:
        uids.append(op.stdout.strip())
    for uid in uids:
        st.run(f"systemctl-cat-user@{uid}.service.txt",
               ["systemctl", "cat", "--no-pager", f"user@{uid}.service"])
    st.run("ps-daemons.txt", ["ps", "-o", "pid=,stat=,comm=", "-C",
                              "systemd-logind,dbus-daemon"])
    if logind:
        st.run("loginctl-list-sessions.txt",
               ["loginctl", "--no-pager", "--no-legend", "list-sessions"])


def journal_since(st: State, since: str, suffix: str = "") -> None:
    # the fix-it read's own command (zconsole/services/read/fixit.py LOGIN_JOURNAL)
    st.run(f"journal-login{suffix}.txt",
           ["journalctl", "--no-pager", "-o", "short-iso-precise", "--since", "-2h",
            "-u", "ssh.service", "-u", "systemd-logind.service", "-u", "user@*.service"])
    st.run(f"journal-ssh{suffix}.txt",
           ["journalctl", "--no-pager", "-u", "ssh", "-o", "short-iso-precise", "--since", since])
    st.run(f"journal-ssh{suffix}.json",
           ["journalctl", "--no-pager", "-u", "ssh", "-o", "json", "--since", since])
    st.run(f"journal-all{suffix}.txt",
           ["journalctl", "--no-pager", "-o", "short-iso-precise", "--since", since])


def boot_reads(st: State) -> None:
    st.run("systemd-analyze.txt", ["systemd-analyze"])
    st.run("blame.txt", ["systemd-analyze", "blame", "--no-pager"])
    st.run("critical-chain-network-online.txt",
           ["systemd-analyze", "critical-chain", "--no-pager", "network-online.target"])
    st.run("networkctl-list.txt", ["networkctl", "list", "--no-pager"])
    st.run("is-enabled-wait-online.txt",
           ["systemctl", "is-enabled", "systemd-networkd-wait-online.service"])
    st.run("netplan-get.txt", ["netplan", "get"])
    st.run("journal-wait-online.txt", ["journalctl", "--no-pager", "-b", "-u",
                                       "systemd-networkd-wait-online.service",
                                       "-o", "short-iso-precise"])
    st.run("list-dependencies-reverse-network-online.txt",
           ["systemctl", "list-dependencies", "--reverse", "--plain", "--no-pager",
            "network-online.target"])
    st.run("show-wait-online.txt",
           ["systemctl", "show", "-p", "ExecStart", "-p", "DropInPaths", "-p",
            "ActiveState", "-p", "Result", "systemd-networkd-wait-online.service"])
    st.run("is-system-running.txt", ["systemctl", "is-system-running"])


def nonroot_reads(st: State) -> None:
    st.run("nonroot-sshd-T.txt", "/usr/sbin/sshd -T", as_user=OPERATOR)
    st.run("nonroot-journal-ssh.txt", "journalctl --no-pager -u ssh -n 5 -o short-iso-precise",
           as_user=OPERATOR)
    st.run("nonroot-id.txt", "id", as_user=OPERATOR)


def capture(g: HostGuest, state: str) -> None:
    print(f"== {state} at {utc()}", flush=True)
    if state == "clean":
        st = State(g, "clean", "none (the guest as built)")
        since = guest_now(g)
        login(g, st)
        login(g, st)
        ssh_reads(st)
        journal_since(st, since)
        boot_reads(st)
        nonroot_reads(st)
        return
    if state == "sshd-auth-methods":
        st = State(g, state, "sshd-auth-methods (tests/integration/hostvm/faults.py)")
        with faults.applied(state, g) as fault:
            st.note(f"cause() {fault.cause()}")
            ssh_reads(st)
        return
    if state == "slow-reverse-dns":
        st = State(g, state, "slow-reverse-dns, delay 3 s (zc-slowdns on 127.0.0.2 answers "
                   "every query after 3 s; UseDNS yes in sshd_config.d/50-zc-usedns.conf)")
        with faults.applied(state, g, delay=3) as fault:
            st.note(f"cause() {fault.cause()}")
            since = guest_now(g)
            login(g, st)
            login(g, st)
            ssh_reads(st)
            journal_since(st, since)
        return
    if state == "slow-user-manager":
        st = State(g, state, "slow-user-manager, 25 s (user@.service.d/50-zc-slow.conf "
                   "ExecStartPre=/bin/sleep 25); the login is the operator zcop's, with no "
                   "other session of zcop")
        ensure_operator(g)
        with faults.applied(state, g, delay=25) as fault:
            st.note(f"cause() {fault.cause()}")
            time.sleep(USER_STOP_WAIT)
            since = guest_now(g)
            login(g, st, OPERATOR)
            ssh_reads(st)
            journal_since(st, since)
        return
    if state == "frozen-logind":
        st = State(g, state, "frozen-logind (kill -STOP systemd-logind during one root login; "
                   "kill -CONT right after it)")
        since = guest_now(g)
        with faults.applied(state, g) as fault:
            st.note(f"cause() {fault.cause()}")
            login(g, st)
            # while logind is still stopped: the session daemons and logind's answer as the
            # panel reads them during the fault (the files of ssh_reads come after kill -CONT)
            session_reads(st)
            st.note("ps-daemons.txt and loginctl-list-sessions.txt: taken while logind was "
                    "stopped; the others after kill -CONT")
        time.sleep(2)
        ssh_reads(st, session=False)
        journal_since(st, since)
        st.run("journal-logind.txt", ["journalctl", "--no-pager", "-u", "systemd-logind",
                                      "-o", "short-iso-precise", "--since", since])
        return
    if state == "wait-online-hang":
        booted_into(g, state, "wait-online-hang (netplan: br0 over lan0 static, VLAN br0.100, "
                    "br100, lan1 no cable dhcp4; zc-needs-online.service wants "
                    "network-online.target), then a reboot", lambda st: (
                        st.run("networkctl-list-a.txt",
                               ["networkctl", "list", "-a", "--no-pager"]),
                        st.run("netplan-yaml.txt", ["cat", "/etc/netplan/01-hostvm.yaml"]),
                        st.run("run-systemd-network.txt",
                               "grep -H '' /run/systemd/network/*.network "
                               "/run/systemd/network/*.netdev")))
        return
    if state == "ifupdown-dhcp-hang":
        booted_into(g, state, "ifupdown-dhcp-hang (interfaces.d: `auto lan1` / `iface lan1 "
                    "inet dhcp`, lan1 without cable and not in netplan), then a reboot",
                    lambda st: (
                        st.run("journal-networking.txt",
                               ["journalctl", "--no-pager", "-b", "-u", "networking.service",
                                "-o", "short-iso-precise"]),
                        st.run("interfaces-d.txt", ["cat", faults.IFUPDOWN_FILE])))
        return
    raise SystemExit(f"unknown state {state}")


def booted_into(g: HostGuest, state: str, desc: str, more: Any) -> None:
    """A boot fault: the recipe applied, a reboot, the boot reads and `more(st)`; its files
    undone after (this guest is stopped next, never rebooted back)."""
    st = State(g, state, desc)
    fault = faults.make(state, g)
    fault.apply()
    try:
        t = g.reboot(timeout=1200)
        st.note(f"reboot: ssh answered {t:.1f} s after `systemctl reboot`")
        st.note(f"is-system-running --wait: {g.wait_booted(timeout=1200)}")
        boot_reads(st)
        more(st)
        st.note(f"cause() {fault.cause()}")
    finally:
        fault.undo()


def write_sources() -> Path:
    """tests/fixtures/host/SOURCES.md from every state's manifest.json."""
    out = ["# Real outputs of the Debian 12 host guest, for the fix-it parsers and the demo",
           "",
           "Written by `tests/integration/capture_host_fixtures.py` (never edited by hand):",
           "each file is the **stdout** of one command run in the guest over ssh, as root",
           "unless the `as` column says otherwise; its stderr, exit status and seconds are in",
           "the state's `manifest.json`. Guest: " + GUEST_DESC + ", booted by the script in",
           "a run directory of its own (QEMU user network: every ssh client appears from",
           f"{CLIENT}). Logins are `ssh -l USER hostvm true` from the machine running QEMU, a",
           "new connection each, timed there (the notes).", "",
           "In `clean`, the three `nonroot-*` commands failed (exit 1: the user zcop did not",
           "exist yet; su's message is in the manifest): the non-root outputs are in",
           "`nonroot/`, taken on the same guest a minute later. A `-2` directory is a second",
           "capture of the same state on a second boot of the guest (the commands added after",
           "the first run: the forward lookup sshd makes, the login journal as the fix-it read",
           "asks for it); a `-3` directory a third, for the session setup's reads (the user",
           "managers' units, the session daemons' processes, logind's answer timed).", ""]
    for d in sorted(p for p in OUT.iterdir() if (p / "manifest.json").is_file()):
        m = json.loads((d / "manifest.json").read_text())
        out += [f"## {d.name}", "", f"Fault: {m['fault']}.", ""]
        out += ["| file | command | as | at | exit | s |", "|---|---|---|---|---|---|"]
        for c in m["commands"]:
            cmd = c["command"].replace("|", "\\|")
            extra = c.get("error", "")
            out.append(f"| `{c['file']}` | `{cmd}` | {c['as']} | {c['at']} | "
                       f"{c.get('rc', extra)} | {c.get('seconds', '')} |")
        if m["notes"]:
            out += ["", "Notes:", ""] + [f"- {n}" for n in m["notes"]]
        out.append("")
    path = OUT / "SOURCES.md"
    path.write_text("\n".join(out))
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--states", default=",".join(STATES))
    ap.add_argument("--attach", help="run dir of a running host guest (not stopped)")
    ap.add_argument("--tag", default="", help="write to <state>-TAG/ (a second capture)")
    ap.add_argument("--sources-only", action="store_true",
                    help="only write SOURCES.md from the manifests")
    args = ap.parse_args()
    global TAG
    TAG = f"-{args.tag}" if args.tag else ""
    if args.sources_only:
        print(write_sources())
        return 0
    tv = load_testvm()
    fl = tv.FLAVOURS["host"]
    if args.attach:
        inst = tv.HostInstance(fl, Path(args.attach))
    else:
        run_root = Path(os.environ.get("ZCONSOLE_VM_RUN_ROOT",
                                       f"/tmp/zconsole-testvm-{os.getuid()}"))
        inst = tv.HostInstance(fl, run_root / f"capture-{os.getpid()}-host")
        t0 = time.monotonic()
        build = tv.build(fl, quiet=True)
        print(f"build/cache {time.monotonic() - t0:.1f} s: {build}", flush=True)
        ready = inst.start(build, timeout=1200)
        print(f"boot to ssh {ready:.1f} s (run dir {inst.run_dir})", flush=True)
    g = HostGuest(inst)
    try:
        print(f"is-system-running --wait: {g.wait_booted(timeout=1200)} at {utc()}", flush=True)
        for state in args.states.split(","):
            try:
                capture(g, state)
            except Exception as exc:  # noqa: BLE001 - keep going: each state is saved as it goes
                print(f"!! {state}: {type(exc).__name__}: {exc}", flush=True)
    finally:
        if not args.attach:
            print(f"stop: {inst.stop()}", flush=True)
        write_sources()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
