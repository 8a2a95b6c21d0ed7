"""The Timeline on real OpenZFS (on 2.1; both flavours' event reads: test_timeline_hostile_guest):
a scripted incident, a disk pulled mid-write with QEMU's device_del and then replaced, appears
in the timeline in the right order with ZFS's own times, and the summary line is right before
and after the replace; `check`, the Fleet's judge and the Pools to-do level agree on each of the
two states (CRITICAL, then OK). Needs ZCONSOLE_VM=1. Kept short: one small mirror, 32 MiB
written (about 40 s a flavour, plus the guest's boot, measured with --durations)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from vmguest import ONE_FLOW

from zconsole.model.finding import Severity
from zconsole.model.timeline import Source
from zconsole.services.health.severity import judge_host, pool_level
from zconsole.services.health.timeline import clock_time, summary
from zconsole.services.monitor.report import judge
from zconsole.services.read.timeline import read_timeline
from zconsole.services.session import HostSession, Refresh

if TYPE_CHECKING:
    from conftest import ZfsGuest

pytestmark = pytest.mark.zfsvm


def agree(r: Refresh, level: Severity) -> None:
    """`check` (its exit code and metrics), the Fleet's judge and each pool's to-do level
    say `level` of one reading (no second read: no extra ssh round trip)."""
    v = judge(r.reading, slow=r.findings, estimates=r.scan_estimates)
    assert v.status is level, v.findings
    assert judge_host(r.reading, slow=r.findings, estimates=r.scan_estimates).level is level
    for e in r.reading.pools:
        assert pool_level(e, slow=r.findings, estimates=r.scan_estimates) is level
        assert [m.value for m in v.metrics if m.name == "pool_health"] == [level.exit_code]


@pytest.mark.zfs_flavours("2.1", why=ONE_FLOW)
def test_a_pulled_disk_and_its_replacement_in_the_timeline(clean_guest: ZfsGuest) -> None:
    g = clean_guest
    g.exec("zpool events -c")
    g.exec("zpool create -o ashift=12 -O compression=off tank mirror vdb vdc")
    g.exec("(head -c 32M /dev/urandom > /tank/a.bin; sync) > /dev/null 2>&1 & "
           "echo $! > /tmp/writer")
    g.monitor("device_del vdc")  # pulled while the writer runs
    g.exec("while kill -0 $(cat /tmp/writer) 2>/dev/null; do sleep 0.5; done; sync; "
           "head -c 4M /dev/urandom > /tank/b.bin; sync", timeout=300)
    host = g.host()
    session = HostSession(host)
    reading = session.refresh()
    pools = reading.reading.pool_status.value or ()
    assert [p.state for p in pools] == ["DEGRADED"], reading.reading.pool_status
    # the one scale (issue 28), every face from this reading: the mirror is down to one disk
    agree(reading, Severity.CRITICAL)
    assert "no redundancy left in mirror-0" in judge_host(reading.reading).headline

    before = read_timeline(host, pools=pools)
    assert all(s.ok for s in before.sources), before.sources
    removed = next(e for e in before.entries
                   if e.source is Source.EVENTS and e.words == "vdc REMOVED (was ONLINE)")
    now = host.now()
    line = summary(pools, before.entries, {}, now, before.utc_offset)
    assert line[0].startswith(f"✖ CRITICAL tank DEGRADED since "  # mirror down to one disk
                              f"{clock_time(removed.at, before.utc_offset, now=now)} (")
    assert line[0].endswith(": vdc REMOVED") or ": vdc REMOVED after " in line[0]

    g.exec("zpool replace tank vdc vdd")
    # the old disk leaves its replacing vdev after the resilver, asynchronously: until then the
    # pool is still DEGRADED (CI, stop 22); `replace` is the activity that covers that detach
    g.exec("zpool wait -t resilver,replace tank", timeout=300)
    done = session.refresh()
    pools = done.reading.pool_status.value or ()
    agree(done, Severity.OK)
    after = read_timeline(host, pools=pools)
    seq = [(e.source, e.words) for e in after.entries]
    order = [
        seq.index((Source.HISTORY, "zpool create -o ashift=12 -O compression=off tank mirror "
                                   "vdb vdc")),
        seq.index((Source.EVENTS, "vdc REMOVED (was ONLINE)")),
        seq.index((Source.EVENTS, "vdd attached")),
        seq.index((Source.EVENTS, "resilver started")),
        seq.index((Source.EVENTS, "resilver finished")),
    ]
    assert order == sorted(order)
    assert (Source.HISTORY, "zpool replace tank vdc vdd") in seq
    # ZFS's own times: each event's time is the `time` field (epoch, nanoseconds)
    ev_times = [e.at for e in after.entries if e.source is Source.EVENTS]
    assert ev_times == sorted(ev_times) and any(t != int(t) for t in ev_times)
    events = after.source(Source.EVENTS)
    assert events is not None and events.oldest is not None and events.oldest <= removed.at
    assert summary(pools, after.entries, {}, host.now(), after.utc_offset) == ["tank ONLINE"]
