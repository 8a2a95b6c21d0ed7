"""The fix-it reads and their judgement on the host guest's captured states
(tests/fixtures/host/<state>/): each cause named with its file:line and journal lines, the
fixes narrowest first; a clean host judged clean; "needs root" said exactly when zconsole is
not root and the host refused for that reason.

`FixtureHost` answers the reads' commands from one state's files. The login journal is the
read's own command as captured (`journal-login.txt`, in the `-2` states: taken before
`-u session-*.scope` was added to it), else the capture's whole window (`journal-all.txt`,
every unit: the units the read asks for are all in it; the parser ignores the others).
These captures are text (`-o short-iso-precise`), taken before the read asked for JSON: they
are replayed through the text parser, which takes lines by their look (none of these faults
writes a forged line). The JSON read and who may write a login line:
test_journal_json.py, on the JSON capture of forged-login/."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.verdicts import assert_verdict
from zconsole.hosts.base import DEFAULT_TIMEOUT, CommandFailed, HostError, PathNotFound, Result
from zconsole.hosts.demo import SCENARIOS, DemoHost
from zconsole.model.finding import Severity
from zconsole.services.health.boot import diagnose_boot
from zconsole.services.health.fixit import diagnose_ssh
from zconsole.services.read import fixit as read
from zconsole.services.read.netplan_memo import NETPLAN_FILES

HOST = Path(__file__).resolve().parents[1] / "fixtures" / "host"


@pytest.fixture(autouse=True)
def _text_captures(monkeypatch: pytest.MonkeyPatch) -> None:
    """The login journal's text captures replayed through the text parser (see above); a
    JSON answer (the demo host's) still goes through the JSON parser."""
    from zconsole.parsers.journal import parse_journal, parse_journal_json

    def either(text: str) -> tuple[tuple[Any, ...], int]:
        if text.lstrip()[:1] in ("{", ""):
            return parse_journal_json(text)
        return parse_journal(text), 0

    monkeypatch.setattr(read, "parse_journal_json", either)


class FixtureHost:
    """A host that answers the fix-it reads from one captured state (and the non-root
    answers from nonroot/ when root=False)."""

    kind = "replay"
    simulated = False
    concurrent_reads = False
    label = "hostvm (captured)"

    def __init__(self, state: str, root: bool = True, now: float = 1_795_454_400.0) -> None:
        self.dir = HOST / state
        self.name = self.dir.name
        self.root = root
        self._now = now
        self.ran: list[tuple[str, ...]] = []
        manifest = json.loads((self.dir / "manifest.json").read_text())
        self.meta = {c["file"]: c for c in manifest["commands"]}

    def _file(self, name: str) -> str:
        path = self.dir / name
        if not path.exists():
            raise PathNotFound(str(path))
        return path.read_text()

    def _answer(self, name: str, argv: tuple[str, ...], seconds: float = 0.0) -> Result:
        meta = self.meta.get(name, {})
        return Result(argv, int(meta.get("rc", 0)), self._file(name), meta.get("stderr", ""),
                      seconds)

    def run(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, check: bool = True,
            stdin: str | None = None) -> Result:
        a = tuple(argv)
        self.ran.append(a)
        if not self.root:
            nonroot = FixtureHost("nonroot")
            if a == read.SSHD_T or a[:3] == (read.SSHD, "-T", "-C"):
                r = nonroot._answer("nonroot-sshd-T.txt", a)
            elif a == read.LOGIN_JOURNAL:
                r = nonroot._answer("nonroot-journal-login.txt", a)
            elif a == read.JOURNAL_ACCESS:
                r = nonroot._answer("nonroot-journal-access.txt", a)
            else:
                r = self._route(a)
        else:
            r = self._route(a)
        if check and r.returncode != 0:
            raise CommandFailed(r)
        return r

    def _route(self, a: tuple[str, ...]) -> Result:
        if a == read.SSHD_T:
            return self._answer("sshd-T.txt", a)
        if a == read.sshd_t_connection("root", "10.0.2.2"):
            return self._answer("sshd-T-C.txt", a)
        if a == read.LOGIN_JOURNAL:
            if "journal-login.txt" in self.meta:
                return self._answer("journal-login.txt", a)
            return self._answer("journal-all.txt", a)
        if a == ("getent", "hosts", "10.0.2.2"):
            took = float(self.meta["getent-hosts.txt"]["stderr"].split()[1])
            return self._answer("getent-hosts.txt", a, took)
        if a[:2] == ("getent", "ahosts"):
            if "getent-ahosts.txt" not in self.meta:
                raise HostError(f"{' '.join(a)} was not captured in {self.dir.name}")
            took = float(self.meta["getent-ahosts.txt"]["stderr"].split()[1])
            return self._answer("getent-ahosts.txt", a, took)
        table = {read.PAM_GREP: "pam-common-session.txt", read.IS_ACTIVE: "is-active.txt",
                 read.SYSTEMD_ANALYZE: "systemd-analyze.txt", read.BLAME: "blame.txt",
                 read.CHAIN: "critical-chain-network-online.txt",
                 read.NETWORKCTL: "networkctl-list.txt",
                 read.IS_ENABLED_WAIT: "is-enabled-wait-online.txt",
                 read.WAIT_JOURNAL: "journal-wait-online.txt",
                 read.WANTS_ONLINE: "list-dependencies-reverse-network-online.txt",
                 read.NETPLAN_GET: "netplan-get.txt"}
        if a in table:
            return self._answer(table[a], a)
        if a == NETPLAN_FILES:  # not captured: netplan is asked every time
            raise HostError(f"{' '.join(a)} was not captured")
        if a[:3] == read.unit_cat("x")[:3]:
            # the user managers' units came with the `-3` captures; a state captured before
            # that (whose fault never touched user@.service) gets the packages' unit as
            # clean-3 captured it from the same guest image
            name = f"systemctl-cat-{a[3]}.txt"
            if name in self.meta:
                return self._answer(name, a)
            if not self.name.endswith("-3"):
                return FixtureHost("clean-3")._answer(name, a)
            raise HostError(f"{' '.join(a)} was not captured in {self.dir.name}")
        name = {read.PS_DAEMONS: "ps-daemons.txt", read.SHOW_WAIT: "show-wait-online.txt",
                read.NETWORKING_JOURNAL: "journal-networking.txt",
                read.LOGINCTL: "loginctl-list-sessions.txt"}.get(a, "")
        if name:
            if name not in self.meta:
                raise HostError(f"{' '.join(a)} was not captured in {self.dir.name}")
            return self._answer(name, a, float(self.meta[name].get("seconds", 0.0)))
        raise AssertionError(f"no capture for {a}")

    def run_pipeline(self, argvs: Sequence[Sequence[str]], *, timeout: float = DEFAULT_TIMEOUT,
                     check: bool = True) -> Result:
        raise NotImplementedError

    def hold(self, argv: Sequence[str], *, stdin: str, timeout: float = DEFAULT_TIMEOUT
             ) -> Result:
        raise NotImplementedError

    def read_text(self, path: str) -> str:
        if path == read.SSHD_CONFIG:
            return self._file("sshd_config")
        if path == read.RESOLV_CONF:
            return self._file("resolv.conf")
        if path.startswith(read.SSHD_CONFIG_D + "/"):
            return self._file("sshd_config.d/" + path.rsplit("/", 1)[1])
        raise PathNotFound(path)

    def list_dir(self, path: str) -> list[str]:
        if path == read.SSHD_CONFIG_D:
            return self._file("sshd_config.d.ls").split()
        raise PathNotFound(path)

    def realpath(self, path: str) -> str:
        return path

    def now(self) -> float:
        return self._now

    def is_root(self) -> bool:
        return self.root

    def udev_properties(self, devname: str) -> Mapping[str, str] | None:
        return None


# ----------------------------------------------------------------------------------- ssh

def test_clean_host_has_no_cause() -> None:
    host = FixtureHost("clean")
    r = read.read_ssh(host, "10.0.2.2")
    assert r.effective.ok and r.sources.ok and r.logins.ok and r.lookup.ok, r
    assert r.lookup.value is not None and r.lookup.value.returncode == 2  # no name: an answer
    assert r.pam_systemd.value == ("/etc/pam.d/common-session:24: session optional "
                                   "pam_systemd.so",)
    assert r.services.value == {"systemd-logind.service": "active", "dbus.service": "active",
                                "ssh.service": "active", "ssh.socket": "inactive"}
    d = diagnose_ssh(r)
    assert d.verdict.severity is Severity.OK
    assert d.verdict.message.startswith("No cause of slow logins found: 2 logins")
    assert d.fixes == () and d.unread == ()


def test_client_from_the_journal_when_not_given() -> None:
    r = read.read_ssh(FixtureHost("clean"))
    assert r.client == "10.0.2.2" and r.client_source == "the last login in the journal"
    assert read.client_from_ssh_connection("10.0.2.2 47672 10.0.2.15 22") == "10.0.2.2"
    assert read.client_from_ssh_connection("") is None


def test_not_root_says_exactly_what_needs_root() -> None:
    host = FixtureHost("clean", root=False)
    r = read.read_ssh(host, "10.0.2.2")
    assert r.effective.needs_root and r.effective_client.needs_root and r.logins.needs_root
    assert "sshd -T needs root" in (r.effective.error or "")
    assert "no hostkeys available" in (r.effective.error or "")
    assert "needs root (or group adm or systemd-journal)" in (r.logins.error or "")
    # what a user can read is read
    assert r.sources.ok and r.lookup.ok and r.pam_systemd.ok and r.services.ok
    assert not r.sources.needs_root
    d = diagnose_ssh(r)
    assert d.verdict.severity is Severity.UNKNOWN
    assert "zconsole is not root" in d.verdict.message
    assert sum("(needs root)" in u for u in d.unread) == 3


def test_not_root_reading_the_login_journal_as_json_is_told_it_needs_root() -> None:
    """In JSON mode journalctl keeps its "not seeing messages from other users" hint to itself
    (host guest, systemd 252): a user's read exits 0 with only their own lines, which read as
    "no login". The hint is asked for in text first (`-n 0`, no line): needs root."""

    class JsonNonRoot(FixtureHost):
        def run(self, argv: Sequence[str], **kw: Any) -> Result:
            if tuple(argv) == read.LOGIN_JOURNAL:
                self.ran.append(tuple(argv))
                return FixtureHost("nonroot")._answer("nonroot-journal-login-json.txt",
                                                      tuple(argv))
            return super().run(argv, **kw)

    host = JsonNonRoot("clean", root=False)
    r = read.read_ssh(host, "10.0.2.2")
    assert r.logins.needs_root, r.logins
    assert "needs root (or group adm or systemd-journal)" in (r.logins.error or "")
    assert read.JOURNAL_ACCESS in host.ran and read.LOGIN_JOURNAL not in host.ran
    # as root the hint is never asked for
    root = FixtureHost("clean")
    read.read_ssh(root, "10.0.2.2")
    assert read.JOURNAL_ACCESS not in root.ran


def test_root_refusal_is_not_blamed_on_root_when_root() -> None:
    """As root, sshd's own failure is a failure, never "needs root"."""

    class Broken(FixtureHost):
        def _route(self, a: tuple[str, ...]) -> Result:
            if a[0] == read.SSHD:
                return Result(a, 255, "", "/etc/ssh/sshd_config line 3: Bad SSH2 cipher "
                              "spec 'x'.\n", 0.0)
            return super()._route(a)

    r = read.read_ssh(Broken("clean"), "10.0.2.2")
    assert not r.effective.ok and not r.effective.needs_root
    assert "Bad SSH2 cipher" in (r.effective.error or "")


def test_auth_methods_fault_names_file_line_and_match_block() -> None:
    d = diagnose_ssh(read.read_ssh(FixtureHost("sshd-auth-methods"), "10.0.2.2"))
    msgs = [f.message for f in d.findings]
    assert any(m.startswith("GSSAPIAuthentication yes for this client "
                            "(/etc/ssh/sshd_config.d/40-zc-auth.conf:2: GSSAPIAuthentication yes)")
               for m in msgs), msgs
    assert any("(/etc/ssh/sshd_config:128: KerberosAuthentication yes, inside `Match Address "
               "10.0.2.0/24`)" in m for m in msgs), msgs
    assert any("(/etc/ssh/sshd_config:127: HostbasedAuthentication yes, inside `Match "
               "Address 10.0.2.0/24`)" in m for m in msgs), msgs
    assert any("(/etc/ssh/sshd_config:62: KbdInteractiveAuthentication yes)" in m
               for m in msgs), msgs


def test_slow_reverse_dns_verdict_and_evidence() -> None:
    d = diagnose_ssh(read.read_ssh(FixtureHost("slow-reverse-dns"), "10.0.2.2"))
    assert d.verdict.kind == "ssh-usedns" and d.verdict.severity is Severity.WARNING
    assert d.verdict.message.startswith("Logins wait ")
    assert d.verdict.message.endswith(" for a reverse DNS lookup of the client address")
    ev = "\n".join(d.verdict.evidence)
    assert ("UseDNS yes for this client (sshd -T); set at "
            "/etc/ssh/sshd_config.d/50-zc-usedns.conf:2") in ev
    assert "getent hosts 10.0.2.2: " in ev and "slow-client.example" in ev
    assert "resolver: 127.0.0.2 (/etc/resolv.conf)" in ev
    assert "reverse mapping checking getaddrinfo for slow-client.example [10.0.2.2] failed." \
        in ev
    titles = [f.title for f in d.fixes]
    assert titles[0] == "Remove `UseDNS yes` at /etc/ssh/sshd_config.d/50-zc-usedns.conf:2"
    assert titles[1] == "Override it with /etc/ssh/sshd_config.d/00-zconsole-usedns.conf"
    assert "from=" in d.fixes[0].cost


def test_slow_user_manager_verdict() -> None:
    r = read.read_ssh(FixtureHost("slow-user-manager"), "10.0.2.2")
    d = diagnose_ssh(r)
    assert d.verdict.kind == "ssh-user-manager", d.verdict
    assert d.verdict.message.startswith("The first login of zcop waits ")
    assert "for user@1000.service (the user's systemd manager)" in d.verdict.message
    ev = "\n".join(d.verdict.evidence)
    assert "Starting user@1000.service" in ev and "Started user@1000.service" in ev


def test_frozen_logind_verdict() -> None:
    d = diagnose_ssh(read.read_ssh(FixtureHost("frozen-logind"), "10.0.2.2"))
    assert d.verdict.kind == "ssh-logind", d.verdict
    assert "for systemd-logind, which did not answer (pam_systemd: " in d.verdict.message
    ev = "\n".join(d.verdict.evidence)
    assert "/etc/pam.d/common-session:24: session optional pam_systemd.so" in ev
    assert d.fixes[0].title == "Restart systemd-logind"


def test_a_logind_wait_that_is_over_is_history_not_the_verdict(tmp_path: Path) -> None:
    """The journal of the last 2 h can hold an earlier logind stall (the host guest's CI run
    did: the frozen-logind recipe ran before the reverse-DNS one): logins after it that got
    their session make it history (INFO, no fixes), and today's cause is the verdict."""
    import shutil

    state = tmp_path / "logind-then-usedns"
    shutil.copytree(HOST / "slow-reverse-dns-2", state)
    earlier = (HOST / "frozen-logind" / "journal-all.txt").read_text()
    now = (HOST / "slow-reverse-dns-2" / "journal-login.txt").read_text()
    (state / "journal-login.txt").write_text(earlier + now)
    d = diagnose_ssh(read.read_ssh(FixtureHost(str(state)), "10.0.2.2"))
    assert d.verdict.kind == "ssh-usedns", d.verdict
    logind = [f for f in d.findings if f.kind == "ssh-logind"]
    assert len(logind) == 1 and logind[0].severity is Severity.INFO, logind
    assert logind[0].message.startswith("Earlier, 1 login(s) waited 121 s for systemd-logind")
    assert "later login(s) got their logind session" in logind[0].evidence[0]
    assert [f.title for f in d.fixes][0].startswith("Remove `UseDNS yes`")
    # alone, the stall is still the verdict (nothing after it)
    alone = diagnose_ssh(read.read_ssh(FixtureHost("frozen-logind"), "10.0.2.2"))
    assert alone.verdict.kind == "ssh-logind" and alone.verdict.severity is Severity.WARNING


# ---------------------------------------------------------------------------------- boot

def test_clean_boot_did_not_wait() -> None:
    d = diagnose_boot(read.read_boot(FixtureHost("clean")))
    assert d.verdict.severity is Severity.OK
    assert "systemd-networkd-wait-online.service did not run" in d.verdict.message
    assert d.fixes == ()


def test_wait_online_hang_verdict_names_the_link() -> None:
    d = diagnose_boot(read.read_boot(FixtureHost("wait-online-hang")))
    assert_verdict(d, "boot-wait-online",
                   "Boot waits 2 min for lan1, a port with no cable that asks for DHCP",
                   "networkctl: lan1 ether no-carrier configuring",
                   "Timeout occurred while waiting for network connectivity.",
                   "enabled-runtime (netplan's generator enables it at every boot",
                   "netplan get: ethernets.lan1: dhcp4: true")
    assert [f.title for f in d.fixes] == [
        "Mark lan1 optional in netplan", "Wait only for br0 and br100", "Wait for any one link",
        "Mask wait-online (last resort)"]
    assert "zc-needs-online.service" in d.fixes[-1].cost


def test_a_wait_online_restarted_after_the_boot_is_judged_by_the_boots_own_run() -> None:
    """The wait-online-hang capture, then wait-online restarted live (as the `--any` fix is
    proven in its boot): blame now gives the restart's 0.8 s, the journal of this boot both
    runs. The boot waited 2 min (its first run, to the "Failed to start" line), and a fix
    planned now records that, not 0.8 s: the boot after it was judged not fixed for taking
    11.5 s on a loaded guest (CI, 2026-11-29)."""
    from dataclasses import replace

    from zconsole.model.fixit import BlameEntry, JournalLine
    from zconsole.services.health.fixit_boot import wait_this_boot

    r = read.read_boot(FixtureHost("wait-online-hang"))
    assert r.blame.value is not None and r.wait_online_journal.value is not None
    lines = r.wait_online_journal.value
    end = lines[-1].at
    again = tuple(replace(lines[0], at=end + 60 + dt, message=text) for dt, text in (
        (0.0, "Starting systemd-networkd-wait-online.service - Wait for Network to be "
              "Configured..."),
        (0.8, "Finished systemd-networkd-wait-online.service - Wait for Network to be "
              "Configured.")))
    blame = tuple(BlameEntry(0.8, b.unit, "800ms") if b.unit == WAIT_ONLINE_UNIT else b
                  for b in r.blame.value)
    restarted = replace(r, blame=replace(r.blame, value=blame),
                        wait_online_journal=replace(r.wait_online_journal, value=lines + again))
    assert isinstance(lines[0], JournalLine)
    d = diagnose_boot(restarted)
    assert d.verdict.kind == "boot-wait-online", d.verdict
    assert d.verdict.message.startswith("Boot waits 2 min for lan1"), d.verdict.message
    assert d.verdict.factor is not None and 120 < d.verdict.factor < 130, d.verdict.factor
    assert wait_this_boot(restarted)[0] == d.verdict.factor
    # one run: blame's figure, as before
    assert diagnose_boot(r).verdict.factor == next(
        b.seconds for b in r.blame.value if b.unit == WAIT_ONLINE_UNIT)


WAIT_ONLINE_UNIT = "systemd-networkd-wait-online.service"


def test_ifupdown_dhcp_hang_verdict_names_networking_and_the_port() -> None:
    """The guest's ifupdown-dhcp-hang boot (lan1 only in interfaces.d, `auto`, DHCP, no
    cable): wait-online had nothing to wait for, networking.service took 66.7 s for
    dhclient; the verdict says so from blame and its journal, the fix is allow-hotplug."""
    d = diagnose_boot(read.read_boot(FixtureHost("ifupdown-dhcp-hang")))
    assert_verdict(d, "boot-ifupdown", "Boot waits 67 s for networking.service: ifupdown's "
                   "`ifup -a` asks DHCP for lan1 and gets no answer",
                   "systemd-analyze blame: 1min 6.689s networking.service",
                   "dhclient[413]: DHCPDISCOVER on lan1 to 255.255.255.255 port 67 interval 8",
                   "No DHCPOFFERS received.")
    assert [f.title for f in d.fixes] == ["Bring lan1 up on hotplug in ifupdown"]
    assert d.fixes[0].plan == "fix-boot"
    assert d.unread == ()


def test_a_slow_ifup_without_its_journal_is_said_unread() -> None:
    """The wait-online-hang capture (before this read existed): networking.service took
    13.7 s on a loaded guest; without its journal nothing is blamed on it, and the panel
    says what it could not read."""
    d = diagnose_boot(read.read_boot(FixtureHost("wait-online-hang")))
    assert not any(f.kind == "boot-ifupdown" for f in d.findings)
    assert any(u.startswith("networking.service journal: ") for u in d.unread), d.unread


# ---------------------------------------------------------------------------------- demo

@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_every_demo_scenario_answers_the_fixit_reads(scenario: str) -> None:
    """The demo host answers every fix-it read in its real format (nothing unread as root);
    slow-ssh, slow-session, frozen-logind and slow-boot show their cause, the others none."""
    host = DemoHost(scenario, clock=lambda: 1_795_302_010.0)
    ssh = diagnose_ssh(read.read_ssh(host))
    boot = diagnose_boot(read.read_boot(host))
    assert ssh.unread == () and boot.unread == (), (ssh.unread, boot.unread)
    assert ssh.verdict.kind == {"slow-ssh": "ssh-usedns", "slow-session": "ssh-user-manager",
                                "frozen-logind": "ssh-logind"}.get(scenario, "ssh-ok")
    assert boot.verdict.kind == ("boot-wait-online" if scenario == "slow-boot" else "boot-ok")


def test_demo_not_root_answers_as_the_guest_did() -> None:
    host = DemoHost("slow-ssh", clock=lambda: 1_795_302_010.0, root=False)
    nonroot = json.loads((HOST / "nonroot" / "manifest.json").read_text())
    said = {c["file"]: c for c in nonroot["commands"]}
    r = host.run(read.SSHD_T, check=False)
    assert (r.returncode, r.stderr) == (1, said["nonroot-sshd-T.txt"]["stderr"])
    r = host.run(read.LOGIN_JOURNAL, check=False)
    assert (r.returncode, r.stdout, r.stderr) == (
        1, "", said["nonroot-journal-login.txt"]["stderr"])


def test_second_capture_times_both_lookups_sshd_makes() -> None:
    """slow-reverse-dns-2 (second boot): the PTR lookup of 10.0.2.2 (3.650 s) and the
    forward check of the name it gave (3.421 s, not found): the login's wait is their sum."""
    r = read.read_ssh(FixtureHost("slow-reverse-dns-2"))
    assert r.client == "10.0.2.2" and r.client_source == "the last login in the journal"
    assert r.forward.value is not None and r.forward.value.returncode == 2
    d = diagnose_ssh(r)
    assert d.verdict.message == ("Logins wait 7.1 s for a reverse DNS lookup of the client "
                                 "address")
    ev = "\n".join(d.verdict.evidence)
    assert "getent hosts 10.0.2.2: 3.6 s → slow-client.example" in ev
    assert ("getent ahosts slow-client.example (sshd checks the name forward): 3.4 s → not "
            "found") in ev
    assert d.unread == ()


def test_second_capture_clean_read_with_the_reads_own_journal() -> None:
    """clean-2: the read's own journal command over the last 2 h of a fresh boot. Its first
    login (the test machine's ssh master) started user@0.service, 8.8 s under TCG: below the
    threshold, not a cause."""
    r = read.read_ssh(FixtureHost("clean-2"))
    assert r.logins.value is not None and len(r.logins.value) == 4
    first = r.logins.value[0]
    assert first.manager_started is not None
    assert first.manager_started[1] - first.manager_started[0] == pytest.approx(8.8, abs=0.05)
    assert all(lg.session_at is not None for lg in r.logins.value)
    assert diagnose_ssh(r).verdict.kind == "ssh-ok"


# ------------------------------------------------------------ the session setup (-3 captures)

def test_third_capture_clean_has_no_session_cause() -> None:
    d = diagnose_ssh(read.read_ssh(FixtureHost("clean-3"), "10.0.2.2"))
    assert d.verdict.kind == "ssh-ok" and d.unread == (), (d.verdict, d.unread)


def test_slow_user_manager_names_the_drop_in_and_its_line() -> None:
    """The manager's unit as `systemctl cat` printed it: the packages' 10-login-barrier.conf
    is passed over, the recipe's drop-in is named with its line, and its removal is the fix
    a plan applies."""
    host = FixtureHost("slow-user-manager-3")
    d = diagnose_ssh(read.read_ssh(host, "10.0.2.2"))
    assert d.verdict.kind == "ssh-user-manager" and d.unread == (), (d.verdict, d.unread)
    assert d.verdict.message.startswith("The first login of zcop waits ")
    assert d.verdict.message.endswith(
        "for user@1000.service (the user's systemd manager): the drop-in "
        "/etc/systemd/system/user@.service.d/50-zc-slow.conf:3 runs "
        "`ExecStartPre=/bin/sleep 25`"), d.verdict.message
    assert "10-login-barrier" not in " ".join(d.verdict.evidence)
    assert (d.fixes[0].title, d.fixes[0].plan) == (
        "Remove the drop-in /etc/systemd/system/user@.service.d/50-zc-slow.conf",
        "fix-session")
    assert read.unit_cat("user@1000.service") in host.ran


def test_frozen_logind_names_the_stopped_process_and_its_silence() -> None:
    """ps and loginctl as the panel read them while logind was stopped: the service at fault
    is named, with its state, and the restart is the fix a plan applies."""
    d = diagnose_ssh(read.read_ssh(FixtureHost("frozen-logind-3"), "10.0.2.2"))
    assert d.verdict.kind == "ssh-logind" and d.verdict.severity is Severity.WARNING
    assert d.verdict.message.startswith("Logins wait ")
    assert "for systemd-logind, which did not answer (pam_systemd: Connection timed out)" in \
        d.verdict.message
    ev = "\n".join(d.verdict.evidence)
    assert "ps: systemd-logind pid 403 state Ts (stopped: SIGSTOP, a debugger?)" in ev
    assert "now: loginctl list-sessions failed after 26 s: Failed to list sessions: " \
           "Connection timed out" in ev, ev
    assert (d.fixes[0].title, d.fixes[0].plan) == ("Restart systemd-logind", "fix-session")
    assert d.fixes[1].plan == "" and "no XDG_RUNTIME_DIR" in d.fixes[1].cost
