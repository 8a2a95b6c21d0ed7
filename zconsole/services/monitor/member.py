"""One host followed: its session (the readings) and its verdict on the one scale.

A `Member`'s verdict is `health.severity.judge_host` of its session's last reading, with the
slow disks and scan pace the session found over its readings, its disks' SMART findings
(read at their own cadence: `HostSession.smart`), the advice and mutes the
monitor was given for it, and its thresholds. It is never the last known state when the host
no longer says it: a refresh that raised, or a host with no reading yet, is UNKNOWN ("no-answer");
a `zpool status` older than the caller's limit (`stale_after`) is judged as not read
(`HostSession.aged`: the pools UNKNOWN, judged at each call: its findings say for how long).
Otherwise the verdict is kept until what it is judged from changes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from zconsole.hosts.base import Host
from zconsole.model.finding import Finding, Severity
from zconsole.services.session import HostSession

TYPE_CHECKING = False
if TYPE_CHECKING:  # the console's first frame imports this module: only what it needs
    from zconsole.model.advice import Advice, Mute
    from zconsole.model.reading import HostReading
    from zconsole.services.health.severity import HostVerdict, Thresholds

NO_READING = "no reading yet"


@dataclass(eq=False)
class Member:
    """One host of the monitor: its name (the hosts file's, or the ssh destination), tags,
    Host and session. `asked_at` is when it was first asked (console monotonic clock).
    `advice` and `mutes` join its verdict (`check` reads them once; see judge_host);
    `thresholds` (None: the scale's defaults) and `advice_counts` are the monitor's."""

    name: str
    host: Host
    session: HostSession
    tags: tuple[str, ...] = ()
    asked_at: float | None = None
    thresholds: Thresholds | None = None
    advice_counts: bool = False
    advice: tuple[Advice, ...] = ()
    mutes: tuple[Mute, ...] = ()
    _judged: tuple[tuple[object, ...], HostVerdict] | None = field(default=None, repr=False)

    @classmethod
    def of(cls, name: str, host: Host, tags: tuple[str, ...] = (), *,
           iostat_interval: int = 1, timeout: float = 20.0,
           clock: Callable[[], float] = time.time,
           mono: Callable[[], float] = time.monotonic) -> Member:
        return cls(name, host, HostSession(host, iostat_interval=iostat_interval,
                                           timeout=timeout, clock=clock, mono=mono), tags)

    @property
    def reading(self) -> HostReading | None:
        return self.session.reading

    def verdict_at(self, now: float | None = None, stale_after: float | None = None
                   ) -> HostVerdict:
        """The host on the scale at `now` (the console's monotonic clock; None: as last
        read, however old). Judged again only when what it is judged from changed."""
        s = self.session
        last, error = s.last, s.last_error
        stale = (last is not None and now is not None and stale_after is not None
                 and s.status_stale(now, stale_after))
        if stale:  # its findings say how long there has been no answer: judged each time
            return self._judge(now, stale_after)
        key: tuple[object, ...] = (error, self.thresholds, self.advice_counts, self.advice,
                                   self.mutes, s.smart.findings)
        kept = self._judged
        if kept is not None and kept[0][0] is last and kept[0][1:] == key:
            return kept[1]
        verdict = self._judge(None, None)
        self._judged = ((last, *key), verdict)
        return verdict

    def _judge(self, now: float | None, stale_after: float | None) -> HostVerdict:
        from zconsole.services.health.severity import DEFAULT_THRESHOLDS, HostVerdict, judge_host

        s = self.session
        last = s.last
        if last is None or s.last_error is not None:
            why = s.last_error or NO_READING
            said = why if last is None else f"refresh failed: {why}"
            unknown = Finding("no-answer", Severity.UNKNOWN, self.name, f"{self.name}: {said}")
            return HostVerdict(Severity.UNKNOWN, (unknown,))
        reading = last.reading
        if now is not None and stale_after is not None:
            reading = s.aged(reading, now, stale_after)
        return judge_host(reading, slow=last.findings, smart=s.smart.findings,
                          estimates=last.scan_estimates,
                          thresholds=self.thresholds or DEFAULT_THRESHOLDS,
                          advice=self.advice, advice_counts=self.advice_counts,
                          mutes=self.mutes)
