"""Self-test: the disk tests itself (`smartctl -t short|long DEV`), watched to its result.

Registered as "self-test" in `services.ops.registry`; the wizard is the Disks screen's `T`
(`ui.wizards.flows.SelfTestFlow`: answers `disk` = the kernel name, `test` = short|long).

What it does (smartctl(8) `-t`): the drive runs the test in its own firmware, in "off-line
mode" beside normal I/O; it reads its surface (short: a sample, some electrical and
mechanical checks; long: every sector) and writes nothing of the data. zconsole only starts
it and reads the drive's progress and log; it never aborts it (`smartctl -X` is the
operator's). If zconsole is closed, the test goes on in the disk; a resumed plan watches it
again. Power loss or a reset interrupts it ("Interrupted by reset" in the log).

Checks (plan time, on a fresh read of the disk):
* smartctl present and the disk answers SMART (not virtio, not asleep; a sleeping disk can
  be woken for the test: the operator's choice, a second confirmation);
* NVMe self-tests need smartctl 7.4 (7.3 has no NVMe `-t`);
* no self-test already runs (a new `-t` would have to abort it; BLOCK);
* the disk's pool is not resilvering or scrubbing (CONFIRM: `--force` / the wizard's
  second confirmation overrides; the test then slows the scan and the scan the test);
* the drive's own expected duration (`polling_minutes`, ATA), said as INFO.
Runtime: before the command, no self-test runs (`smart_idle`) and, unless overridden, the
pool still has no scan (`no_scan`): a resilver that started after the preview refuses it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from zconsole.hosts.base import Host
from zconsole.model.command import Command
from zconsole.model.disk import Disk
from zconsole.model.plan import Check, CheckLevel, Plan, Step, Wait, predicate
from zconsole.model.reading import HostReading
from zconsole.model.smart import Protocol, SmartReading, Unread
from zconsole.services.ops.operation import PlanRequest
from zconsole.services.ops.smart.watch import ACTIVITY, WORDS, new_entries
from zconsole.services.ops.zfs.common import Draft, disk_index, when
from zconsole.services.ops.zfs.predicates import describe_scan, running_scans
from zconsole.services.read.collect import collect
from zconsole.services.read.smart import read_smart

KIND = "self-test"
TESTS = {"short": "short", "long": "extended"}  # `-t` word -> the log's kind
BY_ID = "/dev/disk/by-id/"
_NVME_NS = re.compile(r"^(nvme[0-9]+)n[0-9]+$")

SMARTCTL, SMART, NVME, RUNNING, SCAN, DURATION = (
    "smartctl", "disk answers SMART", "NVMe self-test", "no self-test running",
    "pool not scanning", "expected duration")


def device_arg(disk: Disk) -> str:
    """DEV as the command names it: the NVMe controller node (as the reads, smartctl 7.4
    fails on some single-namespace drives at the namespace), else the by-id link (stable
    across boots: a resumed plan names the same disk), else /dev/NAME."""
    m = _NVME_NS.match(disk.name)
    if m:
        return f"/dev/{m.group(1)}"
    if disk.by_id:
        return BY_ID + disk.by_id[0]
    return f"/dev/{disk.name}"


def minutes_of(smart: SmartReading | None, kind: str) -> int | None:
    return dict(smart.test_minutes).get(kind) if smart is not None else None


def _smart_checks(name: str, smart: SmartReading | None, kind: str) -> list[Check]:
    if smart is None:
        return [Check(SMART, False, CheckLevel.BLOCK, f"{name}'s SMART could not be read.")]
    u = smart.unread
    if u is Unread.MISSING:
        return [Check(SMARTCTL, False, CheckLevel.BLOCK, f"{u.words}: nothing can start "
                                                         "a self-test.")]
    if u is Unread.ASLEEP:
        return [Check(SMART, False, CheckLevel.CONFIRM,
                      f"{name} is asleep (STANDBY): the test wakes it and keeps it spinning "
                      "until it ends. Waking a sleeping disk is your choice: confirm a "
                      "second time to do it.")]
    if u is not None:
        detail = f" ({smart.unread_detail})" if smart.unread_detail else ""
        return [Check(SMART, False, CheckLevel.BLOCK,
                      f"{name}: {u.words}{detail}; it cannot run a SMART self-test.")]
    checks = [Check(SMART, True, CheckLevel.BLOCK,
                    f"{name} answers SMART ({smart.protocol.value if smart.protocol else '?'}"
                    f", smartctl {'.'.join(map(str, smart.version or ()))or '?'}).")]
    if smart.protocol is Protocol.NVME and (smart.version or (0, 0)) < (7, 4):
        checks.append(Check(NVME, False, CheckLevel.BLOCK,
                            "NVMe self-tests need smartctl 7.4 or newer (7.3 has no NVMe -t); "
                            "Debian 12: smartmontools from bookworm-backports."))
    run = smart.running
    if run is not None:
        done = f", {run.percent_done} % done" if run.percent_done is not None else ""
        checks.append(Check(RUNNING, False, CheckLevel.BLOCK,
                            f"A {run.kind or ''} self-test already runs on {name}{done}: wait "
                            "for its result (a new one would abort it), or abort it yourself "
                            "with smartctl -X."))
    else:
        checks.append(Check(RUNNING, True, CheckLevel.BLOCK, f"No self-test runs on {name}."))
    minutes = minutes_of(smart, kind)
    checks.append(Check(DURATION, True, CheckLevel.INFO,
                        f"The drive expects the {WORDS[kind]} test to take {minutes} "
                        "minutes." if minutes is not None else
                        "The drive gives no expected duration for this test."))
    return checks


def _pool_checks(reading: HostReading, pool: str, name: str) -> list[Check]:
    entry = reading.pool(pool)
    status = entry.status if entry is not None else None
    if status is None:
        return [Check(SCAN, False, CheckLevel.CONFIRM,
                      f"{pool}'s state could not be read: a resilver may be running.")]
    scans = running_scans(status)
    if scans:
        return [Check(SCAN, False, CheckLevel.CONFIRM,
                      f"{pool} is busy: {'; '.join(describe_scan(s) for s in scans)}. A "
                      f"self-test of {name} now slows it, and it slows the test; wait for it "
                      "to end, or confirm a second time to test anyway.")]
    return [Check(SCAN, True, CheckLevel.CONFIRM, f"No scrub or resilver runs in {pool}.")]


def build_self_test(reading: HostReading, disk: str, smart: SmartReading | None, *,
                    test: str = "short", force: bool = False, plan_id: str | None = None,
                    now: float | None = None) -> Plan:
    """Start a `test` ("short" or "long") self-test on `disk` (any name of it) and watch
    it to its result. `smart` is the disk's SMART read just now (None: not read)."""
    kind = TESTS[test]
    index = disk_index(reading)
    dev = index.find(disk) if index is not None else None
    if dev is not None and dev.kind != "disk":
        dev = None
    inv = reading.disks.value if reading.disks.ok else None
    role = inv.role(dev.name) if inv is not None and dev is not None else None
    pool = role.pool if role is not None and role.pool else ""
    draft = Draft(KIND, f"{WORDS[kind].capitalize()} self-test of {disk}", reading.host, pool,
                  when(reading, now), plan_id, None, reading)
    if dev is None:
        return draft.blocked(f"{disk} is not a whole disk of {reading.host}.", name=SMART)
    device = device_arg(dev)
    checks = _smart_checks(dev.name, smart, kind)
    if pool:
        checks.extend(_pool_checks(reading, pool, dev.name))
    hours = smart.power_on_hours if smart is not None and smart.read else None
    seen = len(new_entries(smart, kind, hours)) if smart is not None and smart.read else 0
    minutes = minutes_of(smart, kind)
    log = dict(device=device, test=kind, since_hours=str(hours) if hours is not None else "",
               seen=str(seen))
    pre = [predicate("smart_idle", f"no self-test runs on {dev.name}", device=device)]
    if pool and not force:
        pre.append(predicate("no_scan", f"no scrub or resilver runs in {pool}", pool=pool))
    where = (f"{dev.name} serves pool {pool}" + (f" ({' > '.join(role.vdev_path)})"
                                                 if role is not None and role.vdev_path else "")
             if pool else f"{dev.name} is in no imported pool")
    preview = (
        f"{where}. The drive tests itself in its own firmware: it reads its surface "
        f"({'every sector' if test == 'long' else 'a sample'}) and writes none of its data; "
        "the pool keeps working, a little slower while it runs (smartctl(8) -t).",
        "If zconsole is closed the test goes on in the disk; resume the plan to watch it "
        "to its result. Power loss or a reset interrupts it; only smartctl -X aborts it.",
    )
    steps = (
        Step(id="start", title=f"Start a {WORDS[kind]} self-test on {dev.name}",
             explanation="smartctl asks the drive to begin; it answers at once and runs the "
                         "test by itself.",
             command=Command(("smartctl", "-t", test, device),
                             f"start a {WORDS[kind]} self-test on {dev.name}", writes=True),
             prechecks=tuple(pre),
             postchecks=(predicate("self_test_started", f"a self-test runs on {dev.name} "
                                   "(or its result is logged)", **log),)),
        Step(id="watch", title=f"Watch the self-test of {dev.name} to its result",
             explanation="zconsole reads the drive's progress until the result is in its "
                         "self-test log, and records the result.",
             wait=Wait(pool, ACTIVITY, f"the {WORDS[kind]} self-test of {dev.name}",
                       until=(predicate("self_test_logged",
                                        f"the result is in {dev.name}'s self-test log",
                                        minutes=str(minutes or ""), disk=dev.name,
                                        **log),))),
    )
    return draft.plan(title=f"{WORDS[kind].capitalize()} self-test of {dev.name}",
                      preview=preview, checks=checks, steps=steps,
                      params=(("disk", dev.name), ("device", device), ("test", test),
                              ("observer", "the disk"), ("force", "yes" if force else "no")))


def read_target(host: Host, disk: str) -> tuple[HostReading, SmartReading | None]:
    """The host now and the disk's SMART now (blocking: a worker or the CLI)."""
    reading = collect(host)
    index = disk_index(reading)
    dev = index.find(disk) if index is not None else None
    if dev is None or dev.kind != "disk":
        return reading, None
    return reading, read_smart(host, dev)


def plan_cli(host: Host, req: PlanRequest) -> Plan:
    """`zconsole plan self-test DISK [--long] [--force]`."""
    disk = req.args[0]
    reading, smart = read_target(host, disk)
    return build_self_test(reading, disk, smart, test="long" if req.flag("long") else "short",
                           force=req.force)


def plan_wizard(host: Host, answers: Mapping[str, str], force: bool) -> Plan:
    disk = answers["disk"]
    reading, smart = read_target(host, disk)
    return build_self_test(reading, disk, smart, test=answers.get("test") or "short",
                           force=force)

