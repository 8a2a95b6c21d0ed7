"""Did the boot fix work? A boot fix (services/ops/fixit/boot.py) takes effect at the next
boot, so the judgement comes from the first reading after a reboot: the wait-online time of
the boot the fix was applied on (recorded with the fix) against this boot's.

    wait-online took 120.0 s before the fix, 0.4 s this boot: fixed

Before the reboot the fix is pending (said as such, never "fixed"); a boot that still waits
says the fix did not help. "After the reboot" is told by the kernel's boot id
(/proc/sys/kernel/random/boot_id, recorded with the fix), else by the boot's start time. The record comes from the caller (the Host screen reads the plan
store): health never imports ops.
"""

from __future__ import annotations

import time

from zconsole.model.finding import Finding, Severity
from zconsole.model.fixit import AppliedBootFix, BootReading
from zconsole.services.health.boot import waited as boot_wait

SLOW_WAIT = 10.0  # s: as services.health.fixit: a wait-online run longer than this held the boot
WAIT_ONLINE = "systemd-networkd-wait-online.service"
NETWORKING = "networking.service"


def _secs(s: float | None) -> str:
    return "?" if s is None else f"{s:.1f} s"


def _when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def wait_this_boot(r: BootReading, unit: str = WAIT_ONLINE) -> tuple[float | None, bool]:
    """(wait-online's seconds at this boot or None when it did not run, whether it timed
    out), from blame, else from its journal of this boot. Another `unit`: its seconds in
    blame (networking.service: ifupdown's `ifup -a`), never "timed out"."""
    blame = r.blame.value or ()
    if unit != WAIT_ONLINE:
        return next((b.seconds for b in blame if b.unit == unit), None), False
    journal = r.wait_online_journal.value or ()
    timed_out = any("Timeout occurred while waiting" in j.message
                    or "Event loop failed" in j.message for j in journal)
    # the diagnosis' own figure: the boot's first run when restarted since, else blame's
    return boot_wait(next((b for b in blame if b.unit == WAIT_ONLINE), None), journal), timed_out


def _ifup_waited(r: BootReading) -> bool | None:
    """Whether ifupdown's `ifup -a` waited for a DHCP answer that never came this boot
    (networking.service's journal: dhclient's "No DHCPOFFERS received"); None when that
    journal was not read or when its seconds alone say it (under SLOW_WAIT: not held)."""
    blame = r.blame.value or ()
    net = next((b.seconds for b in blame if b.unit == NETWORKING), None)
    if net is not None and net < SLOW_WAIT:
        return None
    journal = r.networking_journal.value if r.networking_journal is not None else None
    if journal is None:
        return None
    return any("No DHCPOFFERS received" in j.message for j in journal)


def judge_fix(r: BootReading, fix: AppliedBootFix) -> Finding:
    """The applied fix against this boot: pending (not rebooted since), fixed, not fixed, or
    not known (the boot time could not be read)."""
    when = _when(fix.applied_at)
    booted = r.booted_at.value if r.booted_at is not None else None
    boot_id = r.boot_id.value if r.boot_id is not None else None
    if boot_id is not None and fix.boot_id is not None:  # exact: the kernel's id of the boot
        same = boot_id == fix.boot_id
    elif booted is not None:  # else by the clock
        same = booted < fix.applied_at
    else:
        return Finding("boot-fix-unknown", Severity.UNKNOWN, "boot",
                       f"A boot fix was applied on {when} ({fix.what}); whether this boot "
                       "came after it is not known: the boot time could not be read")
    name = "wait-online" if fix.unit == WAIT_ONLINE else fix.unit
    if same:
        return Finding("boot-fix-pending", Severity.INFO, "boot",
                       f"The fix applied on {when} ({fix.what}) takes effect at the next "
                       f"boot: reboot, then this panel compares {name}'s time with the "
                       f"{_secs(fix.wait_before)} it took before the fix",
                       ("this is the boot the fix was applied in",))
    now, timed_out = wait_this_boot(r, fix.unit)
    if fix.wait_before is not None:
        before = f"{name} took {_secs(fix.wait_before)} before the fix"
    elif fix.wait_limit is not None:
        before = ("the fix was applied in a boot that did not wait, before one that would "
                  f"have waited up to {_secs(fix.wait_limit)}")
    else:
        before = "the fix was applied in a boot that did not wait (its wait is not known)"
    old = fix.wait_before if fix.wait_before is not None else fix.wait_limit
    evidence = (f"fix: {fix.what}, applied on {when}",
                *([f"this boot began on {_when(booted)}"] if booted is not None else []))
    if now is None and r.blame.value is None and (
            fix.unit != WAIT_ONLINE or r.wait_online_journal.value is None):
        return Finding("boot-fix-unknown", Severity.UNKNOWN, "boot",
                       f"{before}; this boot's time could not be read (neither systemd-analyze "
                       "blame nor wait-online's journal)", evidence)
    # networking.service (ifupdown's allow-hotplug): judged by what held it, when its journal
    # of this boot was read: dhclient's "No DHCPOFFERS received" is the wait the fix removes;
    # its seconds alone are not (a loaded host's clean `ifup -a`: 28.3 s against 89.4 s
    # before the fix on the host guest, 2026-11-29)
    waited = _ifup_waited(r) if fix.unit == NETWORKING else None
    if waited is not None:
        this = f"{_secs(now)} this boot" if now is not None else "not in blame this boot"
        if not waited:
            return Finding("boot-fix-proven", Severity.OK, "boot",
                           f"{before}, {this}, and its journal shows no DHCP wait: fixed",
                           evidence, factor=now)
        return Finding("boot-fix-failed", Severity.WARNING, "boot",
                       f"{before}, {this}; dhclient waited again (No DHCPOFFERS received): "
                       "the fix did not help (u undoes it)", evidence, factor=now)
    # fixed: wait-online did not time out, and took under SLOW_WAIT or a quarter of its wait
    # before the fix (a loaded or slow host may bring its links up in more than 10 s once the
    # stuck link no longer holds the boot: seen on the host guest under load, 2026-11-26), or
    # of the wait the boot after a non-waiting one would have had
    if not timed_out and (now is None or now < SLOW_WAIT or (
            old is not None and now <= old / 4)):
        this = "did not run this boot" if now is None else f"{_secs(now)} this boot"
        return Finding("boot-fix-proven", Severity.OK, "boot", f"{before}, {this}: fixed",
                       evidence, factor=now)
    return Finding("boot-fix-failed", Severity.WARNING, "boot",
                   f"{before}, {_secs(now)} this boot"
                   + (" (it timed out again)" if timed_out else "")
                   + ": the fix did not help (u undoes it)", evidence, factor=now)
