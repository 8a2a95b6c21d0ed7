"""SMART advice (issue 30): what an admin would point out about how the disks are watched,
not about their health (the findings of services/health/smart.py do that). From what the
session's SMART watch holds (`services/read/smart.DiskSmart`), judged after a poll; never a
read of its own.

Findings (kind, severity, threshold):
- `advice-smart-self-test` INFO     a disk that runs self-tests (ATA or SCSI with a self-test
                                    log or its durations) whose newest finished test is more
                                    than SELF_TEST_DAYS days of power-on time old, or that has
                                    none in its log
- `advice-smart-missing`   WARNING  smartctl is not installed: no disk's SMART is read (one
                                    for the host, with the package: smartmontools)
- `advice-smart-access`    INFO     smartctl could not open the disks: not root (one for the
                                    host)
- `advice-smart-none`      INFO     a pool member with no SMART (virtio, a USB bridge that
                                    hides it, SMART unavailable): said once per disk
All at most WARNING, as every advice (`check --advice`); none raises the exit code unasked.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from zconsole.model.advice import Advice
from zconsole.model.finding import Severity
from zconsole.model.hosttext import visible
from zconsole.model.smart import Protocol, SmartReading, Unread

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zconsole.model.reading import DiskInventory
    from zconsole.services.read.smart import DiskSmart

# smartd's own examples schedule a short test daily and a long one weekly (smartd.conf(5)
# `-s (S/../.././02|L/../../6/03)`); a month with no test at all means nobody scheduled one.
SELF_TEST_DAYS = 30
_ATA_HOURS_WRAP = 65536  # an ATA self-test log keeps power-on hours in 16 bits
_HOST = "SMART"


def _who(s: DiskSmart) -> str:
    return f"{visible(s.disk)} ({visible(s.by_id)})" if s.by_id else visible(s.disk)


def _runs_tests(r: SmartReading) -> bool:
    if r.self_tests:
        return True
    minutes = getattr(r, "test_minutes", ())  # ATA polling minutes: it can run them
    return r.protocol is Protocol.ATA and bool(minutes)


def _age_hours(r: SmartReading) -> int | None:
    """Power-on hours since the newest finished self-test (None: none in the log, or no
    power-on hours to count from)."""
    done = [t for t in r.self_tests if not t.running and t.hours is not None]
    if not done or r.power_on_hours is None:
        return None
    newest = done[0].hours or 0
    now = r.power_on_hours
    if r.protocol is Protocol.ATA and newest < _ATA_HOURS_WRAP <= now:
        now %= _ATA_HOURS_WRAP
    return max(0, now - newest)


def _self_test(s: DiskSmart, pool: str | None) -> Iterator[Advice]:
    r = s.reading
    if r is None or r.running is not None or not _runs_tests(r):
        return
    age = _age_hours(r)
    limit = SELF_TEST_DAYS * 24
    if r.self_tests and (age is None or age <= limit):
        return
    said = ("has no self-test in its log" if not r.self_tests
            else f"last ran a self-test {age // 24} days of power-on time ago"
            if age is not None else "")
    yield Advice(
        "advice-smart-self-test", Severity.INFO, s.disk, f"{_who(s)} {said}.",
        why="A self-test reads the whole surface (long) or samples it (short) and finds "
            "the sectors that fail before ZFS needs them; smartd on Debian schedules none "
            "by default. One a month at least (smartd.conf -s) keeps the log honest.",
        cost=f"A long test takes hours and slows the disk's other I/O while it runs; "
             f"`smartctl -t long /dev/{visible(s.disk)}` (or the Disks screen's self-test) "
             "starts one, and the drive runs it by itself.",
        evidence=tuple(x for x in (
            f"power-on hours: {r.power_on_hours:,}" if r.power_on_hours is not None else None,
            f"newest test: {r.self_tests[0].kind} at {r.self_tests[0].hours:,} h"
            if r.self_tests and r.self_tests[0].hours is not None else None) if x),
        pool=pool)


def _host_wide(states: list[DiskSmart]) -> Iterator[Advice]:
    why = {s.unread.unread for s in states if s.unread is not None and s.unread.unread}
    if Unread.MISSING in why:
        yield Advice(
            "advice-smart-missing", Severity.WARNING, _HOST,
            "smartctl is not installed: no disk's SMART is read.",
            why="SMART is how a disk says it is failing (pending and reallocated sectors, "
                "a failed self-test) before ZFS sees errors; without smartctl zconsole, "
                "check and the metrics cannot say it.",
            cost="Install the package smartmontools (Debian/Ubuntu: apt install "
                 "smartmontools; it also starts smartd, which e-mails root).",
            evidence=(f"disks not read: {sum(1 for s in states if s.reading is None)}",))
    elif Unread.NOT_ROOT in why:
        yield Advice(
            "advice-smart-access", Severity.INFO, _HOST,
            "smartctl could not open the disks: SMART needs root.",
            why="smartctl sends commands to the disk itself, which Linux allows root only.",
            cost="Run zconsole (or check) as root, or through sudo for smartctl alone.",
            evidence=tuple(f"{visible(s.disk)}: {visible(s.unread.unread_detail)[:80]}"
                           for s in states[:3] if s.unread is not None
                           and s.unread.unread is Unread.NOT_ROOT))


def _no_smart(s: DiskSmart, pool: str) -> Iterator[Advice]:
    u = s.unread
    if u is None or u.unread is not Unread.NO_SMART or s.reading is not None:
        return
    why = f" ({visible(u.unread_detail)})" if u.unread_detail else ""
    yield Advice(
        "advice-smart-none", Severity.INFO, s.disk,
        f"{_who(s)}, a member of {visible(pool)}, has no SMART{why}.",
        why="zconsole cannot see this disk failing before ZFS does: no pending sectors, no "
            "self-test. On a virtual machine the disks to watch are the hypervisor's; behind "
            "a USB bridge, smartctl -d sat sometimes reaches the disk.",
        cost="Nothing to change on this host; watch the disks where they are real.",
        pool=pool)


def judge_smart_advice(states: Iterable[DiskSmart], pools: Mapping[str, str]
                       ) -> list[Advice]:
    """The SMART advice of one host from its watch's states; `pools` maps a disk's kernel
    name to its pool. Worst first."""
    states = sorted(states, key=lambda s: s.disk)
    out: list[Advice] = [*_host_wide(states)]
    for s in states:
        out.extend(_self_test(s, pools.get(s.disk)))
        if s.disk in pools:
            out.extend(_no_smart(s, pools[s.disk]))
    return sorted(out, key=lambda a: -a.severity.rank)


def smart_advice(states: Iterable[DiskSmart], inventory: DiskInventory | None
                 ) -> list[Advice]:
    """`judge_smart_advice` with each disk's pool from the reading's disk roles."""
    pools = {r.disk: r.pool for r in inventory.roles if r.pool} if inventory else {}
    return judge_smart_advice(states, pools)
