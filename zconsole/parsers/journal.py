"""The journal as `journalctl -o json` gives it (the reads) or as `-o short-iso-precise`
prints it (pasted or older captured text), and the logins in it.

JSON (systemd 252): one object per line, every value a string, or null (a field over 4096
bytes without `--all`), or a list of byte values (not UTF-8), or a list of such values (a
field the writer sent twice). Fields that begin with `_` are journald's own (the writer's
PID, uid, cgroup and name, from the kernel); SYSLOG_IDENTIFIER and MESSAGE are the writer's
word: `logger -t sshd "Accepted ..."` in a user's session gives SYSLOG_IDENTIFIER=sshd with
_COMM=logger, _SYSTEMD_UNIT=session-N.scope and the user's _UID. A line that is not a
readable entry is skipped and counted, never the readable ones with it.

Text: `2026-11-23T17:30:01.123456+00:00 HOST IDENT[PID]: MESSAGE`; `-- Boot ID --` and
`-- No entries --` lines are journalctl's own and skipped. Text cannot tell who wrote a
line: its lines are taken by their look.

A login, from sshd's lines of one process (OpenSSH 9.2p1 texts; `Connection from` only at
LogLevel VERBOSE):
    [Connection from ADDR port N on ADDR port N]
    [reverse mapping checking getaddrinfo for NAME [ADDR] failed.]      UseDNS yes, no match
    [Address ADDR maps to NAME, but this does not map back to the address.]
    Accepted METHOD for USER from ADDR port N ssh2[: KEY]
    pam_unix(sshd:session): session opened for user USER(uid=N) by (uid=0)
    [pam_systemd(sshd:session): Failed to create session: REASON]
and around it, from other processes: systemd[1]'s `Starting user@UID.service` /
`Started user@UID.service` (the user's manager, which CreateSession waits for),
systemd-logind's `New session N of user USER.` and systemd[1]'s `Started session-N.scope`.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import replace
from typing import cast

from zconsole.model.fixit import JournalLine, Login
from zconsole.parsers.errors import ParseError, Skipped, parser

SOURCE = "journalctl"
JSON_SOURCE = "journalctl -o json"

_HEAD = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:[+-]\d\d:?\d\d|Z))"
                   r" (\S{1,255}) ([^\s\[:]{1,255})(?:\[(\d{1,10})\])?: ")
_ACCEPTED = re.compile(r"Accepted (\S{1,64}) for (\S{1,255}) from (\S{1,255}) port \d{1,5}")
_OPENED = re.compile(r"pam_unix\(sshd:session\): session opened for user ([^\s(]{1,255})"
                     r"(?:\(uid=(\d{1,10})\))?")
_FAILED = "pam_systemd(sshd:session): Failed to create session: "
_CONNECTION = re.compile(r"Connection from (\S{1,255}) port \d{1,5} on ")
_REVERSE = ("reverse mapping checking getaddrinfo for ", "but this does not map back to the "
            "address", "Nasty PTR record")
_MANAGER = re.compile(r"(Starting|Started) user@(\d{1,10})\.service")
_NEW_SESSION = re.compile(r"New session (\S{1,64}) of user (\S{1,255})\.")
_SCOPE = re.compile(r"Started session-(\S{1,64})\.scope")


def _epoch(stamp: str) -> float:
    s = stamp.replace(",", ".")
    if s.endswith("Z"):
        s = s[:-1] + "+00:00"
    elif len(s) > 5 and s[-5] in "+-" and s[-4:].isdigit():
        s = s[:-2] + ":" + s[-2:]
    frac = ""
    m = re.match(r"(.*T\d\d:\d\d:\d\d)(\.\d+)?(.*)$", s)
    if m is None:
        raise ValueError(stamp)
    if m.group(2):
        frac = (m.group(2) + "000000")[:7]  # fromisoformat of 3.10 wants 0, 3 or 6 digits
    return dt.datetime.fromisoformat(m.group(1) + frac + m.group(3)).timestamp()


@parser(SOURCE)
def parse_journal(text: str, *, skipped: list[Skipped] | None = None
                  ) -> tuple[JournalLine, ...]:
    """Every line with a timestamp; a message continued on further lines (an indented
    line without a timestamp) is joined to its line. A line that is neither, or whose
    timestamp is no time, is left out (with its continuation lines) and appended to
    `skipped`; a ParseError only when no line reads."""
    out: list[JournalLine] = []
    bad: list[Skipped] = []
    last_ok = False  # the last line read was kept: an indented line continues it
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.startswith("-- "):
            continue
        m = _HEAD.match(raw)
        if m is None:
            if raw[:1].isspace() and (last_ok or bad):
                if last_ok:
                    last = out[-1]
                    out[-1] = replace(last, message=last.message + "\n" + raw.strip())
                continue
            bad.append(Skipped(n, raw, "not a short-iso-precise journal line"))
            last_ok = False
            continue
        try:
            at = _epoch(m.group(1))
        except ValueError:
            bad.append(Skipped(n, raw, "unreadable timestamp"))
            last_ok = False
            continue
        pid = int(m.group(4)) if m.group(4) else None
        out.append(JournalLine(at, m.group(1), m.group(2), m.group(3), pid,
                               raw[m.end():]))
        last_ok = True
    if skipped is not None:
        skipped.extend(bad)
    if bad and not out:
        raise ParseError(SOURCE, bad[0].reason, bad[0].line_no, bad[0].line)
    return tuple(out)


def _value(v: object) -> str | None:
    """A JSON field's text: a string, or a list of byte values (not UTF-8; shown with
    U+FFFD where not); None for null (over 4096 bytes) or a field sent twice."""
    if isinstance(v, str):
        return v
    if isinstance(v, list) and all(isinstance(b, int) and 0 <= b < 256 for b in v):
        return bytes(v).decode("utf-8", "replace")
    return None


def _number(v: object) -> int | None:
    t = _value(v)
    return int(t) if t is not None and t.isascii() and t.isdigit() and len(t) <= 19 else None


def _entry(raw: str) -> JournalLine | None:
    """One line of `journalctl -o json` as a JournalLine, None when it is not a readable
    entry (no JSON object, no message or time, a time out of range)."""
    try:
        d = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(d, dict):
        return None
    # the time the writer sent it (the kernel's socket timestamp) when journald has it, as
    # journalctl's short formats print it; else when journald received it
    usec = _number(d.get("_SOURCE_REALTIME_TIMESTAMP")) or _number(
        d.get("__REALTIME_TIMESTAMP"))
    message = _value(d.get("MESSAGE"))
    if message is None or usec is None:
        return None
    try:
        when = dt.datetime.fromtimestamp(usec / 1e6, dt.timezone.utc)
    except (OverflowError, ValueError, OSError):
        return None
    comm = _value(d.get("_COMM"))
    ident = _value(d.get("SYSLOG_IDENTIFIER")) or comm or "?"
    return JournalLine(usec / 1e6, when.strftime("%Y-%m-%dT%H:%M:%S.%f+0000"),
                       _value(d.get("_HOSTNAME")) or "", ident, _number(d.get("_PID")),
                       message, _value(d.get("_SYSTEMD_UNIT")), comm, _number(d.get("_UID")),
                       trusted=True)


@parser(JSON_SOURCE)
def parse_journal_json(text: str) -> tuple[tuple[JournalLine, ...], int]:
    """Every readable entry of `journalctl -o json`, oldest first as journalctl gives
    them, and how many lines were not a readable entry (skipped). Only unreadable lines:
    a ParseError (a host that answers garbage has no empty journal)."""
    out: list[JournalLine] = []
    bad = 0
    first_bad: tuple[int, str] | None = None
    for n, raw in enumerate(text.split("\n"), 1):  # JSON escapes every line break it holds
        if not raw.strip():
            continue
        line = _entry(raw)
        if line is None:
            bad += 1
            first_bad = first_bad or (n, raw)
        else:
            out.append(line)
    if first_bad is not None and not out:
        raise ParseError(JSON_SOURCE, "not a journal entry in JSON", *first_bad)
    return tuple(out), bad


SSHD_COMMS = ("sshd", "sshd-session")  # sshd-session: OpenSSH 9.8 and later
SSH_UNIT = "ssh.service"
LOGIND_UNIT = "systemd-logind.service"


def _is_sshd(line: JournalLine) -> bool:
    """A line of the sshd program of ssh.service, as root (its per-connection processes
    too: they stay in ssh.service until pam_systemd moves the session to its scope, after
    the lines read here). Text: by its look."""
    if line.trusted:
        return (line.unit == SSH_UNIT and line.comm in SSHD_COMMS and line.uid == 0
                and line.pid is not None)
    return line.ident in SSHD_COMMS and line.pid is not None


def _is_logind(line: JournalLine) -> bool:
    return not line.trusted or (line.unit == LOGIND_UNIT and line.comm == "systemd-logind")


def _is_manager(line: JournalLine) -> bool:
    """A line of the service manager, PID 1 (`Starting user@UID.service`, `Started
    session-N.scope`; a user's own manager is not PID 1)."""
    return not line.trusted or line.pid == 1


def _looks_used(line: JournalLine) -> bool:
    """A line that says what a login line read here says (whoever wrote it)."""
    msg = line.message
    return (line.ident in SSHD_COMMS and bool(
        _CONNECTION.match(msg) or _ACCEPTED.match(msg) or _OPENED.match(msg)
        or msg.startswith(_FAILED) or any(r in msg for r in _REVERSE))) or bool(
        _MANAGER.search(msg) or _NEW_SESSION.match(msg) or _SCOPE.match(msg))


def login_lines(lines: tuple[JournalLine, ...]
                ) -> tuple[tuple[JournalLine, ...], tuple[JournalLine, ...]]:
    """The lines the logins are read from (sshd's of ssh.service, logind's, PID 1's), and
    those that look like such lines but came from another process (ignored: anyone
    logged in can write `logger -t sshd "Accepted ..."` into their session's journal)."""
    used: list[JournalLine] = []
    forged: list[JournalLine] = []
    for line in lines:
        if (_is_sshd(line) or (_is_logind(line) and _NEW_SESSION.match(line.message))
                or (_is_manager(line) and (_MANAGER.search(line.message)
                                           or _SCOPE.match(line.message)))):
            used.append(line)
        elif _looks_used(line):
            forged.append(line)
    return tuple(used), tuple(forged)


class _Acc:
    """A login being put together (mutable; frozen into a `Login` at the end)."""

    def __init__(self, pid: int, at: float) -> None:
        self.f: dict[str, object] = {"pid": pid, "first_at": at}
        self.lines: list[JournalLine] = []
        self.reverse: list[JournalLine] = []

    def login(self) -> Login:
        return Login(**self.f, lines=tuple(self.lines),  # type: ignore[arg-type]
                     reverse_lines=tuple(self.reverse))


@parser(SOURCE + " (logins)")
def _sshd_line(line: JournalLine, by_pid: dict[int, _Acc], no_session: dict[str, list[_Acc]],
               setting_up: dict[int, list[_Acc]], retired: list[_Acc]) -> None:
    """One of sshd's lines: the connection, reverse-mapping, Accepted, session opened or
    failed lines of the login of that process.

    A process id comes back after a reboot (the journal of the last 2 h spans boots) or a
    wrap: a line that begins a login (the connection, a reverse-mapping complaint, `Accepted`)
    for a process whose login is already past that point is a new login, and the old one
    is retired, not merged into it."""
    msg = line.message
    pid = line.pid
    assert pid is not None
    acc = by_pid.get(pid)
    if acc is not None and "accepted_at" in acc.f and (
            _CONNECTION.match(msg) or _ACCEPTED.match(msg) or any(r in msg for r in _REVERSE)):
        retired.append(acc)
        _settled(acc, no_session, setting_up)
        acc = None
    if acc is None:
        acc = by_pid[pid] = _Acc(pid, line.at)
    acc.lines.append(line)
    f = acc.f
    if (m := _CONNECTION.match(msg)) is not None:
        f.update(connected_at=line.at, addr=m.group(1))
    elif any(r in msg for r in _REVERSE):
        acc.reverse.append(line)
        f.setdefault("reverse_at", line.at)
    elif (m := _ACCEPTED.match(msg)) is not None:
        f.update(accepted_at=line.at, method=m.group(1), user=m.group(2), addr=m.group(3))
    elif (m := _OPENED.match(msg)) is not None and "opened_at" not in f:
        f.setdefault("user", m.group(1))
        f["opened_at"] = line.at
        no_session.setdefault(str(f["user"]), []).append(acc)
        if m.group(2):
            f["uid"] = int(m.group(2))
            setting_up.setdefault(int(m.group(2)), []).append(acc)
    elif msg.startswith(_FAILED):
        f.update(session_failed=msg[len(_FAILED):].strip(), session_failed_at=line.at)
        # pam_systemd gave up: no `New session` or scope will be this login's any more
        _settled(acc, no_session, setting_up)


def _settled(acc: _Acc, no_session: dict[str, list[_Acc]],
             setting_up: dict[int, list[_Acc]]) -> None:
    """`acc` waits for no session line any more (its session failed, or its process id
    was taken by a later login)."""
    for waiting in (*no_session.values(), *setting_up.values()):
        if acc in waiting:
            waiting.remove(acc)


def logins_from_journal(lines: tuple[JournalLine, ...]) -> tuple[Login, ...]:
    """The logins in journal lines (sshd's, and logind's and systemd's when given), oldest
    first. A process with no `Accepted` line (a failed or cut attempt) is left out. From
    JSON, only the lines of the programs that write them count (`login_lines`).

    Session lines carry no sshd process id. On systemd 252 (the host guest) logind logs
    `New session N of user U.` when it creates the session, then systemd starts the user's
    manager if it is not running (`Starting`..`Started user@UID.service`), then the session's
    scope (`Started session-N.scope`), and only then does CreateSession return; the scope
    line may also come just before logind's line. So: `New session` goes to the oldest login
    of U whose session was opened and has no session yet; the scope to the login with that
    session number; the user's manager to the oldest login of that uid still setting up."""
    by_pid: dict[int, _Acc] = {}
    retired: list[_Acc] = []  # logins whose process id a later process took
    no_session: dict[str, list[_Acc]] = {}  # user -> opened, no New session yet (oldest first)
    setting_up: dict[int, list[_Acc]] = {}  # uid -> opened, scope not started yet
    by_session: dict[str, _Acc] = {}
    early_scopes: dict[str, JournalLine] = {}  # a scope logged before its New session
    managers: dict[int, JournalLine] = {}  # uid -> its `Starting user@UID.service` line

    def scope(acc: _Acc, line: JournalLine) -> None:
        acc.f["scope_at"] = line.at
        acc.lines.append(line)
        uid = acc.f.get("uid")
        if isinstance(uid, int) and acc in setting_up.get(uid, []):
            setting_up[uid].remove(acc)

    for line in login_lines(lines)[0]:
        msg = line.message
        if _is_sshd(line):
            _sshd_line(line, by_pid, no_session, setting_up, retired)
            continue
        manager = _is_manager(line)
        if manager and (m := _MANAGER.search(msg)) is not None:
            uid = int(m.group(2))
            if m.group(1) == "Starting":
                managers[uid] = line
            elif uid in managers:
                start = managers.pop(uid)
                # the newest login of that uid opened before the manager started: a read
                # without the scope lines leaves older logins "setting up" for ever
                acc = next((a for a in reversed(setting_up.get(uid, []))
                            if "manager_started" not in a.f
                            and cast(float, a.f["opened_at"]) <= start.at), None)
                if acc is not None:
                    acc.f["manager_started"] = (start.at, line.at)
                    acc.lines += [start, line]
            continue
        if _is_logind(line) and (m := _NEW_SESSION.match(msg)) is not None:
            waiting = no_session.get(m.group(2))
            if waiting:
                acc = waiting.pop(0)
                acc.f.update(session_at=line.at, session_id=m.group(1))
                acc.lines.append(line)
                by_session[m.group(1)] = acc
                if m.group(1) in early_scopes:
                    scope(acc, early_scopes.pop(m.group(1)))
            continue
        if manager and (m := _SCOPE.match(msg)) is not None:
            acc = by_session.get(m.group(1))
            if acc is not None and "scope_at" not in acc.f:
                scope(acc, line)
            elif acc is None:
                early_scopes[m.group(1)] = line
    every = sorted([*retired, *by_pid.values()], key=lambda a: cast(float, a.f["first_at"]))
    return tuple(a.login() for a in every if "accepted_at" in a.f)
