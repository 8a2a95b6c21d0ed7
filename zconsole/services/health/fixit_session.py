"""The SSH panel's session-setup causes (after `Accepted`, before the shell): pam_systemd
asks systemd-logind over D-Bus to create the session, and logind starts the user's manager
(user@UID.service) and answers when it runs. Judged from what `read.fixit` read:

- the user's manager: a login whose `Starting`..`Started user@UID.service` took SLOW_MANAGER
  or more (25 s with the host guest's slow-user-manager recipe), and what its drop-ins
  outside the packages' files run at its start (`systemctl cat`), file:line; a later first
  login of the same user that started it quickly makes it history;
- logind not answering: `pam_systemd(sshd:session): Failed to create session: ...` after 2 min
  (systemd 252's CreateSession timeout), and which daemon is at fault (systemd-logind, or the
  system bus: dbus-daemon) from their processes' state and pam_systemd's words; logins since
  that got their session, or logind answering `loginctl` now, make it history.

Each cause comes with its fixes as text; the ones a plan applies say so (`Fix.plan`:
services/ops/fixit/session.py). Removing pam_systemd is explained with its cost, never a plan.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from zconsole.model.finding import Finding, Severity
from zconsole.model.fixit import Fix, JournalLine, Login, SshReading
from zconsole.parsers.errors import ParseError
from zconsole.parsers.systemd import parse_unit_cat

# s: a user manager this slow to start is broken anywhere. On the host guest under TCG with
# a load of 5-8, the clean first login after boot waited 8.8 s for user@0.service (nothing
# wrong); with the slow-user-manager recipe (ExecStartPre=/bin/sleep 25) 35 s.
SLOW_MANAGER = 15.0
LOGIND_ANSWERS = 10.0  # s: logind answering `loginctl list-sessions` within this answers


def secs(s: float) -> str:
    return f"{s:.0f} s" if s >= 10 else f"{s:.1f} s"


def line_text(j: JournalLine) -> str:
    return j.text


def unread_parts(parts: Iterable[tuple[str, object]]) -> tuple[str, ...]:
    """What could not be read, one line each (`what: error`, and "needs root" when so);
    a part skipped on purpose is not in it."""
    out = []
    for what, part in parts:
        err = getattr(part, "error", None)
        if err and getattr(part, "error_type", None) != "Skipped":
            root = " (needs root)" if getattr(part, "needs_root", False) else ""
            out.append(f"{what}: {err}{root}")
    return tuple(out)


# what a drop-in of user@.service may do that holds the manager's start (and so the login)
START_KEYS = ("ExecStartPre", "ExecStart", "ExecStartPost", "ExecCondition",
              "TimeoutStartSec")
PAM_SYSTEMD_COST = ("no logind session: no XDG_RUNTIME_DIR, no user@.service, no loginctl "
                    "or lingering; sessions may hang at shutdown; for every login, not only "
                    "SSH")


@dataclass(frozen=True)
class SlowManager:
    """The slowest user manager start a login waited for, and the lines of its drop-ins
    outside the packages' (/etc, /run) that act at its start: (path, line number, text)."""

    login: Login
    unit: str
    seconds: float
    lines: tuple[tuple[str, int, str], ...] = ()
    vendor: tuple[str, ...] = ()  # drop-ins of the packages (never removed from here)
    # a later login of the same user whose manager started quickly: the wait is history
    later: Login | None = None

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p for p, _, _ in self.lines))


def slow_manager(r: SshReading) -> SlowManager | None:
    """The user manager whose start held a login (SLOW_MANAGER or more), with what its
    drop-ins run at start (from `systemctl cat`)."""
    logins = r.logins.value or ()
    slow = [lg for lg in logins if lg.manager_started is not None
            and lg.manager_started[1] - lg.manager_started[0] >= SLOW_MANAGER]
    if not slow:
        return None
    lg = slow[-1]
    assert lg.manager_started is not None
    took = lg.manager_started[1] - lg.manager_started[0]
    unit = f"user@{lg.uid}.service" if lg.uid is not None else "user@UID.service"
    text = (r.user_units.value or {}).get(unit) if r.user_units is not None else None
    lines: list[tuple[str, int, str]] = []
    vendor: list[str] = []
    if text is not None:
        try:
            files = parse_unit_cat(text)
        except ParseError:
            files = ()
        for f in files:
            if not f.dropin:
                continue
            acts = [(f.path, n, x.strip()) for n, x in enumerate(f.lines, 1)
                    if x.strip().partition("=")[0].strip() in START_KEYS]
            if f.vendor:
                vendor += [f.path] if acts else []
            else:
                lines += acts
    later = next((x for x in logins[logins.index(lg) + 1:]
                  if x.uid == lg.uid and x.manager_started is not None
                  and x.manager_started[1] - x.manager_started[0] < SLOW_MANAGER), None)
    return SlowManager(lg, unit, took, tuple(lines), tuple(vendor), later)


def user_manager_cause(r: SshReading) -> tuple[Finding, tuple[Fix, ...]] | None:
    sm = slow_manager(r)
    if sm is None:
        return None
    lg, unit, took = sm.login, sm.unit, sm.seconds
    evidence = [f"login of {lg.user or '?'}: session opened → session ready "
                f"{secs(lg.setup_seconds or took)}; {unit} took {secs(took)} to start"]
    evidence += [line_text(j) for j in lg.lines if "user@" in j.message or
                 "session opened" in j.message or "New session" in j.message
                 or j.message.startswith("Started session-")]
    evidence += [f"systemctl cat {unit}: {p}:{n}: {x}" for p, n, x in sm.lines]
    evidence += [f"systemctl cat {unit}: {p} (the packages' drop-in) acts at start"
                 for p in sm.vendor]
    units = r.user_units.value if r.user_units is not None else None
    if units is not None and unit in units and not sm.lines and not sm.vendor:
        evidence.append(f"systemctl cat {unit}: no drop-in acts at its start now (removed "
                        f"since?): the next first login of {lg.user or 'the user'} will tell")
    if sm.later is not None and sm.later.manager_started is not None:
        fast = sm.later.manager_started[1] - sm.later.manager_started[0]
        return Finding("ssh-user-manager", Severity.INFO, "sshd",
                       f"Earlier, the first login of {lg.user or 'a user'} waited "
                       f"{secs(took)} for {unit}; a later one started it in {secs(fast)}",
                       tuple(evidence)), ()
    msg = (f"The first login of {lg.user or 'a user'} waits {secs(took)} for {unit} "
           "(the user's systemd manager)")
    if sm.lines:
        p, n, x = sm.lines[0]
        msg += f": the drop-in {p}:{n} runs `{x}`"
    fixes: list[Fix] = []
    for path in sm.files:
        fixes.append(Fix(
            f"Remove the drop-in {path}",
            f"`cp -a` it to /var/backups first, `rm -f` it, `systemctl daemon-reload`; "
            f"`systemctl cat {unit}` proves it is gone (the next first login starts the "
            "manager without it); undo puts the copy back",
            "undoes someone's change to every user's manager: ask who made it and why; "
            "managers already running keep it until they stop",
            plan="" if fixes else "fix-session"))
    if not sm.files:
        fixes.append(Fix(f"Find what slows {unit}",
                         f"`systemctl cat {unit}` (drop-ins, ExecStartPre) and "
                         f"`journalctl -b -u {unit}`; remove the drop-in or the slow user "
                         "unit",
                         "read only until the cause is known; removing a drop-in undoes "
                         "someone's change, so ask who made it"))
    fixes.append(Fix(f"Keep {lg.user or 'the user'}'s manager running: "
                     f"`loginctl enable-linger {lg.user or 'USER'}`",
                     "the manager starts at boot and stays, so logins no longer wait for it",
                     "the user's services keep running after logout; the first wait moves to "
                     "boot"))
    fixes.append(Fix("Drop pam_systemd from the SSH session (explained, not done)",
                     "`pam-auth-update`, untick \"Register user sessions in the systemd "
                     "control group hierarchy\": logins would no longer ask logind, so no "
                     "manager would start for them",
                     PAM_SYSTEMD_COST))
    return Finding("ssh-user-manager", Severity.WARNING, "sshd", msg, tuple(evidence),
                   factor=took), tuple(fixes)


# pam_systemd's words when the system bus itself did not answer (dbus-daemon frozen: sd-bus's
# authentication timeout, 90 s on the host guest) rather than logind behind it
DBUS_WORDS = ("Transport endpoint is not connected", "Failed to connect to system bus")


def at_fault(r: SshReading) -> str | None:
    """Which daemon held the session's creation: "systemd-logind" or "dbus-daemon" (a
    process stopped now, else pam_systemd's words), None when no login's session failed."""
    failed = [lg for lg in r.logins.value or () if lg.session_failed is not None]
    if not failed:
        return None
    ps = r.daemons.value if r.daemons is not None else None
    for comm in ("dbus-daemon", "systemd-logind"):
        if ps and comm in ps and "T" in ps[comm][1]:
            return comm
    said = failed[-1].session_failed or ""
    return "dbus-daemon" if any(w in said for w in DBUS_WORDS) else "systemd-logind"


def logind_cause(r: SshReading, logins: tuple[Login, ...]) -> tuple[Finding, tuple[Fix, ...]] | None:
    failed = [lg for lg in logins if lg.session_failed is not None]
    if not failed:
        return None
    lg = failed[-1]
    took = lg.setup_seconds or 0.0
    # logins after the last failed one that did get their session: logind answers again,
    # so the wait is history (the journal keeps 2 h), not the cause of today's slow login
    since = [x for x in logins[logins.index(lg) + 1:]
             if x.session_failed is None and x.session_at is not None]
    evidence = [f"login of {lg.user or '?'} from {lg.addr or '?'}: session opened → "
                f"pam_systemd gave up after {secs(took)}: {lg.session_failed}"]
    evidence += [line_text(j) for j in lg.lines if "session opened" in j.message
                 or "pam_systemd" in j.message]
    if r.pam_systemd.value:
        evidence += list(r.pam_systemd.value)
    if r.services.value:
        evidence.append("now: " + ", ".join(f"{u} {s}" for u, s in r.services.value.items()
                                            if not u.startswith("ssh")))
    now = r.logind_now.value if r.logind_now is not None else None
    answers = now is not None and now.returncode == 0 and now.seconds < LOGIND_ANSWERS
    if now is not None:
        evidence.append("now: loginctl list-sessions "
                        + (f"answered in {secs(now.seconds)}" if now.returncode == 0 else
                           f"failed after {secs(now.seconds)}: "
                           f"{(now.text.strip().splitlines() or ['no output'])[-1]}"))
    if not since and answers:
        return Finding("ssh-logind", Severity.INFO, "sshd",
                       f"Earlier, {len(failed)} login(s) waited {secs(took)} for "
                       "systemd-logind, which did not answer; it answers now (the next "
                       "login will tell)", tuple(evidence)), ()
    if since:
        evidence.insert(0, f"{len(since)} later login(s) got their logind session, the last "
                           f"of {since[-1].user or '?'} from {since[-1].addr or '?'}")
        return Finding("ssh-logind", Severity.INFO, "sshd",
                       f"Earlier, {len(failed)} login(s) waited {secs(took)} for "
                       "systemd-logind, which did not answer; the logins since then got "
                       "their session", tuple(evidence)), ()
    ps = r.daemons.value if r.daemons is not None else None
    for comm, (pid, stat) in (ps or {}).items():
        state = " (stopped: SIGSTOP, a debugger?)" if "T" in stat else ""
        evidence.append(f"ps: {comm} pid {pid} state {stat}{state}")
    drop = Fix("Drop pam_systemd from the SSH session (last resort: explained, not done)",
               "`pam-auth-update`, untick \"Register user sessions in the systemd control "
               "group hierarchy\"", PAM_SYSTEMD_COST)
    if at_fault(r) == "dbus-daemon":
        msg = (f"Logins wait {secs(took)} for the system bus (dbus-daemon), which did not "
               f"answer (pam_systemd: {lg.session_failed})")
        fixes: tuple[Fix, ...] = (
            Fix("Reboot the host (dbus-daemon is not restarted from here)",
                "find why dbus-daemon does not answer (`systemctl status dbus`, its state in "
                "ps); a restart of the system bus cuts every service off it",
                "restarting dbus-daemon in place disconnects logind, networkd, resolved and "
                "every other service on the bus; most do not reconnect"),
            drop)
    else:
        msg = (f"Logins wait {secs(took)} for systemd-logind, which did not answer "
               f"(pam_systemd: {lg.session_failed})")
        fixes = (
            Fix("Restart systemd-logind",
                "`systemctl restart systemd-logind` (systemd sends a stopped process SIGCONT "
                "with its SIGTERM); `loginctl list-sessions` proves it answers again",
                "logins during the restart wait a moment; open sessions keep running "
                "(logind keeps their state in /run/systemd and reads it back)",
                plan="fix-session"),
            drop)
    return Finding("ssh-logind", Severity.WARNING, "sshd", msg, tuple(evidence),
                   factor=took), fixes


IGNORED_SHOWN = 3  # the ignored lines quoted in the evidence (the first few)


def journal_note(r: SshReading) -> tuple[str, ...]:
    """What the login journal's read skipped: lines that looked like sshd's, logind's or
    systemd's login lines but came from another process (a user's `logger -t sshd` in
    their session), and lines that were no readable entry."""
    out: list[str] = []
    ignored = r.journal_ignored
    if ignored:
        n = len(ignored)
        out.append(f"{n} journal line{'s' if n > 1 else ''} written in the name of sshd, "
                   "systemd-logind or systemd by other processes (anyone logged in can "
                   "write such lines, e.g. with `logger -t sshd`): ignored")
        for j in ignored[:IGNORED_SHOWN]:
            out.append(f"ignored: {j.stamp} {j.ident}: {j.message[:120]} (really "
                       f"{j.comm or '?'}, PID {j.pid}, uid {j.uid}, in {j.unit or '?'})")
    if r.journal_unreadable:
        out.append(f"{r.journal_unreadable} line(s) of the login journal were not readable "
                   "journal entries: skipped")
    return tuple(out)


def with_journal_note(r: SshReading, verdict: Finding, findings: list[Finding]
                      ) -> tuple[Finding, list[Finding]]:
    """The verdict first among the findings, with `journal_note` in its evidence."""
    if verdict not in findings:
        findings.insert(0, verdict)
    note = journal_note(r)
    if not note:
        return verdict, findings
    new = replace(verdict, evidence=(*verdict.evidence, *note))
    return new, [new if f is verdict else f for f in findings]
