"""Several hosts followed at once: one row each for the Fleet.

A `Member` (services/monitor/member.py: the monitor's entry) is one host with its own session:
the console refreshes each member on its own loop (a dead or hung host never holds the
others), `zconsole check --hosts` samples each. `fleet_row` sums a member up as the Fleet
screen shows it: its verdict on the one scale (`Member.verdict_at`, the monitor's, as `check`
says it) with its highest finding, the pools,
the fullest pool's capacity, the scrubs and resilvers running, the slow disks, and how old
the reading is. A member whose `zpool status` has not answered for longer than the console's
limit says since when ("no answer for 2 min"), never its last ONLINE. Every age is on the
console's monotonic clock (its sessions' `mono`), never the host's clock less the console's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from zconsole.model.finding import Finding, Severity
from zconsole.model.pool import ScanState
from zconsole.model.reading import PENDING
from zconsole.services import fmt
from zconsole.services.monitor.member import Member as Member  # the monitor's entry
from zconsole.services.read.flights import NO_ANSWER

#: a `zpool status` that failed so is a host that does not answer (not one that said no)
NOT_ANSWERING = (NO_ANSWER, PENDING, "CommandTimedOut", "HostUnreachable")
NO_ANSWER_AFTER = 3.0  # seconds a first refresh may take before a host is said not to answer


@dataclass(frozen=True)
class FleetRow:
    """One host of the fleet as its row on the Fleet screen says it."""

    name: str
    tags: tuple[str, ...]
    state: Severity
    answering: bool  # False: no good `zpool status` within the limit (or ever)
    pools: int | None  # None: not known (no answer)
    capacity: int | None  # the fullest pool's, percent
    capacity_pool: str | None
    scans: tuple[str, ...] = ()  # "tank: resilver 62 %"
    slow: int = 0
    age: str = ""  # "12 s ago", "no answer for 2 min", "reading…"
    problem: str = ""  # the worst finding's message (or why there is no reading)
    findings: tuple[Finding, ...] = field(default=(), repr=False)


def fleet_row(member: Member, now: float, stale_after: float) -> FleetRow:
    """`member` as its Fleet row at `now` (the console's monotonic clock, its session's
    `mono`); `stale_after` as the console's.
    (The judging is imported here: the console builds its members before its first frame,
    and the Fleet screen is the first to sum them up.)"""
    from zconsole.services.health.slowdisk import KIND as SLOW_DISK

    s = member.session
    last = s.last
    if last is None:  # no refresh has ended yet
        since = s.started if s.started is not None else member.asked_at
        waited = now - since if since is not None else 0.0
        if waited < NO_ANSWER_AFTER:
            return FleetRow(member.name, member.tags, Severity.UNKNOWN, True, None, None,
                            None, age="reading…", problem=s.last_error or "")
        return FleetRow(member.name, member.tags, Severity.UNKNOWN, False, None, None, None,
                        age=f"no answer for {fmt.duration(waited)}",
                        problem=s.last_error or "no answer yet")
    reading = s.aged(last.reading, now, stale_after)
    status = reading.pool_status
    verdict = member.verdict_at(now, stale_after)  # the monitor's (health.severity's scale)
    findings, state = verdict.findings, verdict.level
    problem = verdict.problems[0].message if verdict.problems else ""
    if not status.ok:
        silent = status.error_type in NOT_ANSWERING
        if silent:
            since = next((t for t in (s.status_seen_at, member.asked_at, s.started,
                                      reading.seen) if t is not None), now)
            age = f"no answer for {fmt.duration(now - since)}"
        else:  # it answered, with an error (permission, no zpool, output not understood)
            age = fmt.age(status.age(now))
        return FleetRow(member.name, member.tags, Severity.UNKNOWN, not silent, None, None,
                        None, age=age, problem=f"zpool status: {status.error}",
                        findings=tuple(findings))
    pools = reading.pools
    used = [(e.usage.capacity, e.name) for e in pools
            if e.usage is not None and e.usage.capacity is not None]
    fullest = max(used, default=None)
    scans: list[str] = []
    for e in pools:
        st = e.status
        if st is None:
            continue
        for scan in st.scans or ((st.scan,) if st.scan else ()):
            if scan.state is ScanState.IN_PROGRESS and scan.function is not None:
                kind = "rebuild" if scan.rebuild_vdev else scan.function.value
                done = (f" {scan.percent_done:.0f} %" if scan.percent_done is not None
                        else "")
                scans.append(f"{e.name}: {kind}{done}")
    seen = s.status_age(now)
    return FleetRow(
        member.name, member.tags, state, True, len(pools),
        fullest[0] if fullest is not None else None,
        fullest[1] if fullest is not None else None, tuple(scans),
        sum(1 for f in s.findings if f.kind == SLOW_DISK),
        age=fmt.age(seen if seen is not None else reading.age(now)),
        problem=problem, findings=tuple(findings))


def worst(rows: list[FleetRow]) -> Severity:
    return Severity.worst(r.state for r in rows)


def worst_first(rows: list[FleetRow]) -> list[int]:
    """The rows' places, worst state first (the fleet's order among equals)."""
    return sorted(range(len(rows)), key=lambda i: -rows[i].state.rank)
