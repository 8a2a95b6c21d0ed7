"""`Monitor`: several hosts followed, one refresh loop each, without Textual.

    mon = Monitor([Member.of("nas1", host)])
    mon.subscribe(lambda name, reading, verdict: print(name, verdict.level.name))
    mon.step()              # every member refreshed once, here, one after the other
    mon.sample(5)           # five readings a member (what needs several: a slow disk)
    mon.start(interval=5)   # a daemon thread per member, refreshing until `stop()`

A refresh's outcome goes to the member's session (`done`, or `failed` when the refresh
raised), then the member is judged (`Member.verdict_at`) and every subscriber is told
(host name, reading, verdict). The console keeps its own worker threads (Textual's) and
records their outcomes with `record` / `record_failure`, so its verdicts are the monitor's.
A subscriber that raises is noted in `subscriber_errors` and never stops a loop.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterable, Sequence

from zconsole.services.monitor.member import Member

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zconsole.model.advice import Advice, Mute
    from zconsole.model.reading import HostReading
    from zconsole.services.health.severity import HostVerdict, Thresholds
    from zconsole.services.session import Refresh

SMART_LOOK_S = 5.0  # how often the SMART thread asks each member whether its SMART is due
Subscriber = Callable[[str, "HostReading | None", "HostVerdict"], None]


class Monitor:
    def __init__(self, members: Iterable[Member] = (), *, thresholds: Thresholds | None = None,
                 advice_counts: bool = False, stale_after: float | None = None) -> None:
        """`thresholds` and `advice_counts` apply to every member (`check --capacity-*`,
        `--advice`); `stale_after`: seconds after which a `zpool status` is too old to be
        said (the console's refresh interval + timeout; None: never)."""
        self.thresholds = thresholds
        self.advice_counts = advice_counts
        self.stale_after = stale_after
        self.members: list[Member] = []
        self.subscribers: list[Subscriber] = []
        self.subscriber_errors: list[str] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        for m in members:
            self.add(m)

    def add(self, member: Member) -> Member:
        member.thresholds = self.thresholds
        member.advice_counts = self.advice_counts
        with self._lock:
            self.members.append(member)
        return member

    def subscribe(self, fn: Subscriber) -> Callable[[], None]:
        """`fn(host name, reading, verdict)` after every refresh; returns the unsubscribe."""
        with self._lock:
            self.subscribers.append(fn)
        return lambda: self._unsubscribe(fn)

    def _unsubscribe(self, fn: Subscriber) -> None:
        with self._lock:
            if fn in self.subscribers:
                self.subscribers.remove(fn)

    # -- outcomes -----------------------------------------------------------------------
    def record(self, m: Member, result: Refresh) -> HostVerdict:
        """A refresh of `m` ended with `result`: recorded in its session, judged, told."""
        m.session.done(result)
        return self.publish(m)

    def record_failure(self, m: Member, error: str) -> HostVerdict:
        """A refresh of `m` raised (`ExceptionName: text`): UNKNOWN, told."""
        m.session.failed(error)
        return self.publish(m)

    def advise(self, m: Member, advice: Sequence[Advice] = (), mutes: Sequence[Mute] = ()
               ) -> HostVerdict:
        """`m`'s advice and muted findings (read by whoever can: `check`, once), judged in."""
        m.advice, m.mutes = tuple(advice), tuple(mutes)
        return self.publish(m)

    def verdict(self, m: Member, now: float | None = None) -> HostVerdict:
        """`m` on the scale at `now` (its session's monotonic clock by default)."""
        return m.verdict_at(m.session.mono() if now is None else now, self.stale_after)

    def publish(self, m: Member) -> HostVerdict:
        verdict = self.verdict(m)
        with self._lock:
            subscribers = list(self.subscribers)
        for fn in subscribers:
            try:
                fn(m.name, m.reading, verdict)
            except Exception as e:  # noqa: BLE001 - a subscriber's bug never stops a loop
                self.subscriber_errors.append(f"{m.name}: {type(e).__name__}: {e}")
        return verdict

    # -- refreshing ---------------------------------------------------------------------
    def refresh(self, m: Member) -> HostVerdict | None:
        """One refresh of `m` on this thread; None when one was running already."""
        if not m.session.begin():
            return None
        if m.asked_at is None:
            m.asked_at = m.session.started
        try:
            result = m.session.refresh()
        except Exception as e:  # noqa: BLE001 - a host's failure is its UNKNOWN, not ours
            return self.record_failure(m, f"{type(e).__name__}: {e}")
        return self.record(m, result)

    def step(self, members: Sequence[Member] | None = None) -> None:
        """Every member (or `members`) refreshed once, one after the other."""
        for m in list(self.members if members is None else members):
            self.refresh(m)

    def sample(self, seconds: float, m: Member) -> HostVerdict:
        """`m` read once a second for `seconds` (at least once: each I/O sample lasts the
        session's iostat interval), so what needs several readings (a slow disk: 4 of the
        last 5) is in its verdict; stops early when its pools cannot be read at all."""
        verdict = self.refresh(m) or self.verdict(m)
        for _ in range(max(0, math.ceil(seconds) - 1)):
            last = m.session.last
            if m.session.last_error is not None or last is None \
                    or not last.reading.pool_status.ok:
                break  # no pools to sample: UNKNOWN already
            verdict = self.refresh(m) or verdict
        return verdict

    def poll_smart(self, m: Member) -> bool:
        """`m`'s disks' SMART read if due (`SmartFollow.due`: first poll, then a minute
        apart; each disk every 30 min), judged in and told. Nothing for a host not read yet
        or whose last refresh failed (its disks would only time out). True when it polled."""
        s = m.session
        if s.reading is None or s.last_error is not None or not s.smart.due(s.clock()):
            return False
        try:
            s.poll_smart()
            s.smart.error = ""
        except Exception as e:  # noqa: BLE001 - said on the disks, never stops the loop
            s.smart.error = f"{type(e).__name__}: {e}"
        self.publish(m)
        return True

    # -- the loops ----------------------------------------------------------------------
    def start(self, interval: float = 5.0, *, smart: bool = False,
              smart_every: float = SMART_LOOK_S) -> None:
        """A daemon thread per member: refresh, wait `interval`, until `stop()`. `smart`:
        one more thread that looks every `smart_every` seconds for members whose SMART is
        due (`poll_smart`), one after the other, so a slow smartctl never delays a refresh."""
        self._stop.clear()
        for m in list(self.members):
            t = threading.Thread(target=self._loop, args=(m, interval), daemon=True,
                                 name=f"monitor {m.name}")
            self._threads.append(t)
            t.start()
        if smart:
            t = threading.Thread(target=self._smart_loop, args=(smart_every,), daemon=True,
                                 name="monitor smart")
            self._threads.append(t)
            t.start()

    def _smart_loop(self, every: float) -> None:
        while not self._stop.is_set():
            for m in list(self.members):
                if self._stop.is_set():
                    return
                self.poll_smart(m)
            self._stop.wait(max(0.1, every))

    def _loop(self, m: Member, interval: float) -> None:
        while not self._stop.is_set():
            self.refresh(m)
            self._stop.wait(max(0.0, interval))

    def stop(self, timeout: float | None = None) -> None:
        """End the loops (a refresh running ends first, at its deadline at the latest)."""
        self._stop.set()
        deadline = None if timeout is None else time.monotonic() + timeout
        for t in self._threads:
            t.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        self._threads = [t for t in self._threads if t.is_alive()]
