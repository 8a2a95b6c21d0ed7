"""The login journal read as JSON (issue 27, item 4): who wrote a line is journald's word
(`_PID`, `_UID`, `_COMM`, `_SYSTEMD_UNIT`), not the writer's (SYSLOG_IDENTIFIER).

The fixture (tests/fixtures/host/forged-login/, SOURCES.md) is the host guest's login
journal, as JSON and as text, of a real login of root and of the user zcop, who then wrote
four lines with `logger -t sshd` / `logger -t systemd` from their session: an `Accepted`
and a `session opened` for root, and a 16 s start of root's user manager. Read as text
(the read before this change) they make a login of root that waited 16 s for its manager,
the slow-login panel's cause with the fix of removing user@.service drop-ins; read as JSON
they are ignored and counted in the panel's evidence."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from zconsole.hosts.base import DEFAULT_TIMEOUT, Result
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.demo.machine.system import JournalEntry
from zconsole.model.finding import Severity
from zconsole.parsers.errors import ParseError
from zconsole.parsers.journal import (
    login_lines,
    logins_from_journal,
    parse_journal,
    parse_journal_json,
)
from zconsole.services.health.fixit import diagnose_ssh
from zconsole.services.ops.fixit import ssh_lockout
from zconsole.services.read import fixit as read

STATE = Path(__file__).resolve().parents[1] / "fixtures" / "host" / "forged-login"
JSON_TEXT = (STATE / "journal-login.json").read_text()
TEXT = (STATE / "journal-login.txt").read_text()
FORGED_PIDS = {569, 572, 575}  # the four logger processes' PIDs (two lines from 569)


def test_the_text_read_takes_the_forged_lines_for_a_login_of_root() -> None:
    """The problem, as the text read saw it: the forged lines make a login of root by
    "sshd[569]" that waited 16 s for user@0.service (SLOW_MANAGER is 15 s)."""
    forged = [lg for lg in logins_from_journal(parse_journal(TEXT)) if lg.pid == 569]
    assert len(forged) == 1 and forged[0].user == "root" and forged[0].uid == 0
    assert forged[0].manager_started is not None
    start, end = forged[0].manager_started
    assert 16 <= end - start < 17


def test_the_json_read_ignores_lines_other_processes_wrote() -> None:
    lines, unreadable = parse_journal_json(JSON_TEXT)
    assert unreadable == 0 and len(lines) == 37 and all(j.trusted for j in lines)
    logins = logins_from_journal(lines)
    assert [(lg.pid, lg.user, lg.uid) for lg in logins] == [(545, "root", 0),
                                                            (552, "zcop", 1000)]
    assert not any("forged" in j.message for lg in logins for j in lg.lines)
    # zcop's first login started zcop's manager (PID 1's lines): that one is real
    zcop = logins[1]
    assert zcop.manager_started is not None and zcop.session_id == "11"
    used, ignored = login_lines(lines)
    assert [(j.ident, j.comm, j.uid, j.unit) for j in ignored] == [
        ("sshd", "logger", 1000, "session-11.scope")] * 2 + [
        ("systemd", "logger", 1000, "session-11.scope")] * 2
    assert {j.pid for j in ignored} == FORGED_PIDS
    assert [j.message.split(" for ")[0] for j in ignored[:2]] == [
        "Accepted publickey", "pam_unix(sshd:session): session opened"]
    # sshd's lines after pam_systemd moved the session (in its scope) are not login lines
    # and are neither used nor counted: only what looks like a line the logins are read from
    assert not any(j.comm == "sshd" for j in ignored)
    assert all(j.unit == "ssh.service" for j in used if j.comm == "sshd")


def test_json_and_text_agree_on_the_real_logins() -> None:
    """The JSON read sees the real logins as the text read did, to the microsecond (both
    take the time the writer sent the line)."""
    def key(lg: object) -> tuple[object, ...]:
        return tuple(getattr(lg, f) for f in ("pid", "user", "uid", "method", "addr",
                                              "accepted_at", "opened_at", "session_id",
                                              "session_at", "scope_at", "manager_started"))
    by_text = [key(lg) for lg in logins_from_journal(parse_journal(TEXT)) if lg.pid != 569]
    by_json = [key(lg) for lg in logins_from_journal(parse_journal_json(JSON_TEXT)[0])]
    assert by_json == by_text


def test_a_damaged_line_never_loses_the_readable_ones() -> None:
    real = JSON_TEXT.splitlines()
    damaged = ["{", "not json", '{"MESSAGE": null, "__REALTIME_TIMESTAMP": "1"}',
               "[1, 2]", '{"MESSAGE": "x", "__REALTIME_TIMESTAMP": "99999999999999999999"}',
               '{"MESSAGE": ["a", "b"], "__REALTIME_TIMESTAMP": "1795896993057032"}',
               '{"MESSAGE": "no time"}', "[" * 50_000]
    mixed = "\n".join(x for pair in zip(real, damaged * 5, strict=False) for x in pair)
    mixed += "\n" + "\n".join(real[len(damaged) * 5:])
    lines, unreadable = parse_journal_json(mixed)
    assert unreadable == min(len(real), len(damaged) * 5)
    assert lines == parse_journal_json(JSON_TEXT)[0]


def test_only_unreadable_lines_are_a_parse_error_and_nothing_is_no_entry() -> None:
    with pytest.raises(ParseError, match="journalctl -o json"):
        parse_journal_json("-- No entries --\n")
    with pytest.raises(ParseError):
        parse_journal_json(TEXT)
    assert parse_journal_json("") == ((), 0)  # what journalctl -o json prints for none


def test_json_field_forms() -> None:
    """A message that is not UTF-8 comes as a list of byte values; a trusted field in a
    form journald never writes (a list) makes the line nobody's."""
    base = json.loads(JSON_TEXT.splitlines()[0])
    raw = dict(base, MESSAGE=list(b"Accepted publickey for root from 10.0.2.2 port 1 ssh2\xff"))
    (line,), _ = parse_journal_json(json.dumps(raw))
    assert line.message.startswith("Accepted publickey for root") and line.message[-1] == "\ufffd"
    assert logins_from_journal((line,))[0].user == "root"
    odd = dict(base, _COMM=["sshd", "sshd"])
    (line,), _ = parse_journal_json(json.dumps(odd))
    assert line.comm is None and logins_from_journal((line,)) == ()
    assert login_lines((line,))[1] == (line,)


def test_a_manager_line_counts_only_from_pid_1() -> None:
    """`Started user@0.service` from a process that is not PID 1 (a user's own manager
    is not either) is not the service manager's."""
    lines, _ = parse_journal_json(JSON_TEXT)
    pid1 = [j for j in lines if j.pid == 1]
    assert pid1 and all(j.comm == "systemd" and j.unit == "init.scope" for j in pid1)
    user_manager = [j for j in lines if j.comm == "systemd" and j.pid != 1]
    assert user_manager and all(j.unit == "user@1000.service" for j in user_manager)
    assert not any(j in login_lines(lines)[0] for j in user_manager)


class _Replay(DemoHost):
    """The demo host, except that the login journal is the guest's forged-login capture."""

    def __init__(self, answer: str) -> None:
        super().__init__("healthy", clock=lambda: 1_795_897_100.0)
        self.journal_answer = answer

    def run(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, check: bool = True,
            stdin: str | None = None) -> Result:
        if tuple(argv[:4]) == read.LOGIN_JOURNAL[:4]:
            return Result(tuple(argv), 0, self.journal_answer, "", 0.1)
        return super().run(argv, timeout=timeout, check=check, stdin=stdin)


def test_the_panel_does_not_take_the_forged_lines_and_says_so() -> None:
    r = read.read_ssh(_Replay(JSON_TEXT), "10.0.2.2")
    assert r.logins.ok and [lg.pid for lg in r.logins.value or ()] == [545, 552]
    assert len(r.journal_ignored) == 4 and r.journal_unreadable == 0
    d = diagnose_ssh(r)
    assert d.verdict.kind == "ssh-ok" and d.verdict.severity is Severity.OK, d.verdict
    assert not any(f.kind == "ssh-user-manager" for f in d.findings)
    assert d.fixes == () or not any("user@" in f.title for f in d.fixes)
    ev = "\n".join(d.verdict.evidence)
    assert ("4 journal lines written in the name of sshd, systemd-logind or systemd by "
            "other processes") in ev, ev
    assert "(really logger, PID 569, uid 1000, in session-11.scope)" in ev, ev


def test_the_same_lines_read_as_text_made_the_panel_blame_the_user_manager(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The contrast: the read as it was (text, by the look of a line) on the same
    journal names root's user manager, 16 s, as the cause of slow logins."""
    monkeypatch.setattr(read, "parse_journal_json", lambda t: (parse_journal(t), 0))
    d = diagnose_ssh(read.read_ssh(_Replay(TEXT), "10.0.2.2"))
    assert d.verdict.kind == "ssh-user-manager", d.verdict


def test_ssh_lockout_counts_only_sshds_own_accepted_lines() -> None:
    """fix-ssh-auth's "who logged in with it" (last week) reads the same journal: the
    forged `Accepted publickey for root` is not a login."""
    lines = ssh_lockout.read_journal(_Replay(JSON_TEXT))
    assert lines is not None
    assert [(j.pid, j.message.split(" from ")[0]) for j in lines
            if j.message.startswith("Accepted")] == [
        (545, "Accepted publickey for root"), (552, "Accepted publickey for zcop")]


# ------------------------------------------------------------------------------- demo


def test_demo_answers_json_with_journalds_fields() -> None:
    host = DemoHost("slow-session", clock=lambda: 1_795_302_010.0)
    out = host.run(read.LOGIN_JOURNAL).stdout
    rows = [json.loads(x) for x in out.splitlines()]
    assert rows and all(r["_PID"] and r["_COMM"] and r["_SYSTEMD_UNIT"] for r in rows)
    assert {r["_SYSTEMD_UNIT"] for r in rows if r["_PID"] == "1"} == {"init.scope"}
    assert all("UNIT" in r for r in rows if r["_PID"] == "1")
    sshd = [r for r in rows if r["SYSLOG_IDENTIFIER"] == "sshd"]
    assert sshd and all(r["_COMM"] == "sshd" and r["_SYSTEMD_UNIT"] == "ssh.service"
                        and r["_UID"] == "0" for r in sshd)
    # the same entries as the text format, nothing at all when none matches
    text = host.run([*read.LOGIN_JOURNAL[:2], "-o", "short-iso-precise",
                     *read.LOGIN_JOURNAL[4:]]).stdout
    assert len(text.splitlines()) == len(rows)
    none = host.run(["journalctl", "--no-pager", "-o", "json", "-u", "nothing.service"])
    assert none.stdout == "" and none.returncode == 0
    bad = host.run(["journalctl", "--no-pager", "-o", "jsonish"], check=False)
    assert bad.returncode == 1


def test_demo_forged_lines_in_a_session_are_ignored() -> None:
    """A demo machine whose journal holds a user's `logger -t sshd` / `-t systemd` lines
    in their session scope (comm logger, uid 1000): the slow-session cause stays the
    demo's own, the forged login is not one, and the evidence counts the four lines."""
    host = DemoHost("slow-session", clock=lambda: 1_795_302_010.0)
    host.run(["true"], check=False)  # the machine built
    clean = diagnose_ssh(read.read_ssh(host))
    system = host.machine.system
    assert system is not None
    at = 1_795_302_000.0
    forged = [("sshd", "Accepted publickey for root from 10.9.9.9 port 1 ssh2"),
              ("sshd", "pam_unix(sshd:session): session opened for user root(uid=0) by (uid=0)"),
              ("systemd", "Starting user@0.service - User Manager for UID 0..."),
              ("systemd", "Started user@0.service - User Manager for UID 0.")]
    for i, (ident, msg) in enumerate(forged):
        system.journal.append(JournalEntry(at + (0, 0.1, 0.2, 40)[i], "session-7.scope", ident,
                                           4242, msg, comm="logger", uid=1000))
    system.journal.sort(key=lambda e: e.at)
    r = read.read_ssh(host)
    assert [lg.addr for lg in r.logins.value or ()].count("10.9.9.9") == 0
    assert len(r.journal_ignored) == 4
    d = diagnose_ssh(r)
    assert d.verdict.kind == clean.verdict.kind == "ssh-user-manager"
    assert d.verdict.message == clean.verdict.message
    assert any(e.startswith("4 journal lines written in the name of sshd")
               for e in d.verdict.evidence)
