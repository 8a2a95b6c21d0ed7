"""`zconsole check`: one reading, judged, for cron and monitoring systems.

    zconsole check                       # this machine
    zconsole check --host root@nas1      # over ssh
    zconsole check --demo degraded       # the demo host
    zconsole check --json                # the stable JSON shape (below)
    zconsole check --prometheus /var/lib/node_exporter/textfile/zconsole.prom
    zconsole check --hosts [FILE]        # every host of a hosts file (hosts/fleet.py)

It reads the host once (every read with its own deadline, `--timeout`), judges the reading
with the same `services/health` findings the console shows, and prints the Nagios/Icinga
plugin form: a first line `STATE: summary | perfdata`, then one line per finding. The exit
status is the host's verdict on the one scale (`services/health/severity.py`, the README's
table), as the Pools screen, Fleet and the Timeline judge it: 0 OK, 1 WARNING, 2 CRITICAL,
3 UNKNOWN. A read that failed or hung makes the pools UNKNOWN, never OK.

SMART (`--smart`, on by default; `--no-smart` skips it): each whole disk read once with
`smartctl --json --all -n standby` (services/read/smart.py) after the readings and judged
(services/health/smart.py) into the same verdict. On by default because a check is what
runs unattended: a disk whose pending sectors grow is what it should catch, and the read
wakes no disk (`-n standby`: a sleeping disk is said "asleep, not read"), costs one smartctl
per whole disk (none for virtio disks) and says "no SMART" or "needs root" as facts, never
as a failure of the check.

`--sample SECONDS` (default 5): the host is read once a second for that long (the I/O sample
of each reading lasts a second), so that what needs several readings is in the verdict: a
slow disk (an outlier in 4 of the last 5 samples). `--sample 0` reads once. Thresholds:
`--capacity-warn/--capacity-crit` (percent of the pool allocated, default 80/90).

Advice (services/health/advice: ashift, mixed media, imbalance, compression, dedup, L2ARC,
copies, snapshots, scrub age, ...) is listed at INFO and never raises the exit code, unless
`--advice` (then at its own level, at most WARNING). It costs one extra read (`zfs get` of a
few properties, and `zpool status -D` of pools that deduplicate); `--no-advice` skips it,
`--scrub-weeks N` sets the scrub age it advises from (default 5). Advice, slow disks and the
SMART kinds an admin can knowingly live with (`severity.MUTABLE`: smart-crc, smart-counters,
smart-self-test, smart-wear; never a failed disk) muted for this host (the console's Advice
screen, `m`, or `check --mute KIND:SUBJECT --reason TEXT`: cli/commands/check_mute.py) raise
nothing, and are listed under "muted" in the JSON.

JSON (`--json`), version 1: {"version": 1, "host", "taken_at", "status" (ok/warning/critical/
unknown), "exit_code", "summary", "findings": [{"kind", "severity", "subject", "pool",
"message", "evidence"}], "advice": [{"kind", "subject", "why", "cost", "command"}] (the
advice among the findings, with its reason), "muted": [{"kind", "subject", "message",
"reason", "muted_at"}], "disks": [{"disk", "id", "pool", "state", "words", "findings",
"read_at", "model", "serial"}] (each disk's SMART: "state" is read, no-smart, asleep,
smartctl-missing, not-root, open-failed, not-read or not-read-yet, "words" why, "findings"
its finding kinds; cli/formats/smart_disks.py; the text says each disk not read once, as a
fact that raises nothing), "metrics": [{"name", "labels", "value"}]}.
Host text in it is made visible (escapes shown as `\\x1b`), as everywhere.

Prometheus (`--prometheus FILE`, node_exporter's textfile collector): the families `zconsole
exporter` serves (services/monitor/metrics.py, through prometheus_client), written to a
temporary file beside FILE and renamed over it (`write_atomically`, not prometheus_client's
`write_to_textfile`, whose guessable temporary name follows a planted symlink), so the
collector never reads half a file.

Several hosts (`--hosts [FILE]`, or `--host` given more than once): each read and judged on its
own thread, at most `--workers` at once (`read_all`); a host whose check has not ended by its
deadline is UNKNOWN and never holds the others. The exit status is the worst host's; the text
is a first line (the worst state, how many hosts in each) and one section per host; JSON is
{"version": 1, "status", "exit_code", "hosts": [the object above, per host]}; the Prometheus
file has each metric's samples of every host together, each with its `host` label.

The host is followed by the headless monitor (services/monitor: a `Member` and its session,
the verdict `judge_host` gives it); its verdict is said as a `Report` in the formats of
cli/formats (nagios, json_out) and services/monitor/metrics. This module parses the arguments and runs the
check. It never imports Textual (an import-linter contract): it starts as fast as the reads.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import TextIO

from zconsole.cli.commands import check_mute
from zconsole.cli.commands._target import (
    add_fleet_options,
    add_target_options,
    fleet_entries,
    target_host,
)
from zconsole.hosts.base import Host
from zconsole.model.advice import Advice, Mute
from zconsole.model.finding import Finding, Severity
from zconsole.model.hosttext import visible
from zconsole.model.reading import HostReading
from zconsole.services.monitor.report import Report, report_of, unknown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zconsole.hosts.fleet import HostEntry
    from zconsole.services.monitor.loop import Monitor
    from zconsole.services.monitor.member import Member
    from zconsole.services.read.smart import DiskSmart

DEFAULT_TIMEOUT = 30.0
DEFAULT_SAMPLE = 5.0  # seconds of one-second readings (a slow disk needs 4 of the last 5)
WORKERS = 8  # hosts read at once by `check --hosts`


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    pc = sub.add_parser(
        "check", help="read and judge the host once; exit 0 OK, 1 WARNING, 2 CRITICAL, "
                      "3 UNKNOWN (for cron, Nagios/Icinga, node_exporter)",
        description="Read the host once, judge it as the console does, print one line per "
                    "finding and exit with the monitoring-plugin code.")
    add_target_options(pc, "check", "check")
    add_fleet_options(pc, "check", "check")
    pc.add_argument("--workers", type=int, default=WORKERS, metavar="N",
                    help=f"hosts checked at once with --hosts (default {WORKERS})")
    pc.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                    help=f"deadline of each read (default {DEFAULT_TIMEOUT:g})")
    pc.add_argument("--capacity-warn", type=int, default=80, metavar="PCT")
    pc.add_argument("--capacity-crit", type=int, default=90, metavar="PCT")
    pc.add_argument("--sample", type=float, default=DEFAULT_SAMPLE, metavar="SECONDS",
                    help=f"read the host once a second for this long, so that a slow disk "
                         f"is in the verdict (default {DEFAULT_SAMPLE:g}; 0: read once)")
    pc.add_argument("--advice", action="store_true",
                    help="let advice raise the exit code (at most to WARNING)")
    pc.add_argument("--scrub-weeks", type=int, default=None, metavar="N",
                    help="advise a scrub when the last one finished more than N weeks ago "
                         "(default 5: distributions scrub monthly)")
    pc.add_argument("--no-advice", action="store_true",
                    help="judge health only, without the advisor's findings")
    pc.add_argument("--smart", action=argparse.BooleanOptionalAction, default=True,
                    help="read each whole disk's SMART once (smartctl -n standby: a sleeping "
                         "disk is not woken) and judge it (default: on)")
    pc.add_argument("--json", action="store_true", help="print the result as JSON")
    check_mute.add_options(pc)
    pc.add_argument("--prometheus", metavar="FILE",
                    help="also write the metrics for node_exporter's textfile collector")


def monitor_of(args: argparse.Namespace) -> Monitor:
    """The monitor a check runs on: its thresholds, and whether advice counts."""
    from zconsole.services.health.severity import Thresholds
    from zconsole.services.monitor.loop import Monitor

    return Monitor(thresholds=Thresholds(args.capacity_warn, args.capacity_crit),
                   advice_counts=bool(getattr(args, "advice", False)))


def report_on(monitor: Monitor, m: Member, args: argparse.Namespace) -> Report:
    """`m` sampled by the monitor over `--sample` seconds (each read independent, with its
    deadline: a hung `zpool status` is said, UNKNOWN, and the check still ends), its advice
    and mutes judged in, its verdict said as a report (its findings, advice, what is muted,
    its metrics). A host whose refresh raised, with no reading, is UNKNOWN."""
    # kept first, by the host's label (the name its readings and mutes go by), whatever
    # the reading says: a mute is the operator's decision, not the host's answer
    kept_error = check_mute.apply(m.host, check_mute.host_label(m.host), args, time.time())
    monitor.sample(getattr(args, "sample", 0.0), m)
    last = m.session.last
    if last is None or m.session.last_error is not None:
        verdict = monitor.verdict(m)
        return unknown(m.name, verdict.findings[0].message, time.time())
    reading = last.reading
    if getattr(args, "smart", False):
        m.session.poll_smart()  # every whole disk once, after the readings
    advice, mutes, mutes_error = read_advice_once(
        m.host, reading, args, smart=tuple(m.session.smart.states().values()))
    mutes_error = mutes_error or kept_error
    verdict = monitor.advise(m, advice, mutes)
    v = report_of(m.name, reading, verdict, monitor.thresholds, advice)
    v.smart = tuple(m.session.smart.states().values())  # the textfile's SMART families
    if mutes_error:
        v.findings.append(Finding("advice-mutes", Severity.INFO, "advice",
                                  f"muted findings not applied: {mutes_error}"))
    return v


def verdict_of(host: Host, args: argparse.Namespace, name: str | None = None) -> Report:
    """One host read (over `--sample` seconds) by a monitor of its own, and said."""
    from zconsole.services.monitor.member import Member

    monitor = monitor_of(args)
    m = monitor.add(Member.of(name or str(host.label), host, timeout=args.timeout))
    v = report_on(monitor, m, args)
    if name is None and m.session.last is not None:
        v.host = str(m.session.last.reading.host)  # the name the host gives itself
    return v


def say(said: Report | list[Report], args: argparse.Namespace, out: TextIO) -> None:
    """One host's report or a fleet's, in the forms asked: the metrics file
    (`--prometheus`), then the JSON (`--json`) or the plugin's text on `out`."""
    from zconsole.cli.formats import json_out, nagios

    if args.prometheus:
        from zconsole.hosts.journal import write_atomically
        from zconsole.services.monitor.metrics import exposition, seen_of_report

        reports = [said] if isinstance(said, Report) else said
        write_atomically(args.prometheus, exposition([seen_of_report(r) for r in reports]))
    if args.json:
        doc = json_out.as_json(said) if isinstance(said, Report) else json_out.fleet_json(said)
        out.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    elif isinstance(said, Report):
        out.write(nagios.nagios_text(said))
    else:
        out.write(nagios.fleet_text(said))


def run_check(host: Host, args: argparse.Namespace, out: TextIO) -> int:
    v = verdict_of(host, args)
    say(v, args, out)
    return v.status.exit_code


def read_advice_once(host: Host, reading: HostReading, args: argparse.Namespace, *,
                     smart: Sequence[DiskSmart] = ()
                     ) -> tuple[list[Advice], tuple[Mute, ...], str | None]:
    """The advisor's findings (its one extra read, judged, and the SMART advice of the
    disks in `smart`, the session's watch; nothing when --no-advice), the findings muted
    for this host in the console (advice, slow disks, SMART kinds, with their reasons), and
    why the mutes could not be read."""
    from zconsole.hosts.journal import MuteStore

    found: list[Advice] = []
    if not getattr(args, "no_advice", False):
        from zconsole.services.health.advice import SCRUB_WEEKS, advise
        from zconsole.services.read.advice import read_advice

        weeks = getattr(args, "scrub_weeks", None)
        found = advise(read_advice(host, reading, timeout=args.timeout),
                       scrub_weeks=weeks if weeks is not None else SCRUB_WEEKS)
        if smart:
            from zconsole.services.health.advice.smart import smart_advice

            found = sorted([*found, *smart_advice(smart, reading.disks.value)],
                           key=lambda a: -a.severity.rank)
    try:
        mutes = MuteStore.default(simulated=bool(getattr(host, "simulated", False))).load(
            str(reading.host))
    except ValueError as e:
        return found, (), str(e)
    return found, mutes, None


def read_all(entries: Sequence[HostEntry], check_one: Callable[[HostEntry], Report], *,
             workers: int = WORKERS, deadline: float,
             clock: Callable[[], float] = time.monotonic) -> list[Report]:
    """`check_one(entry)` for every entry, at most `workers` at once, each on a thread of its
    own. A host whose check has not ended `deadline` seconds after it began is UNKNOWN ("no
    answer") and its thread is left behind (a daemon: it holds neither the others nor the
    exit), so a hung host never delays the verdict on the rest. In the entries' order."""
    done: dict[int, Report] = {}
    started: dict[int, float] = {}
    waiting = list(range(len(entries)))
    cond = threading.Condition()

    def job(i: int) -> None:
        e = entries[i]
        try:
            v = check_one(e)
        except Exception as ex:  # noqa: BLE001 - a host's failure is its UNKNOWN, not ours
            v = unknown(e.name, f"{e.name}: {type(ex).__name__}: {ex}", time.time())
        with cond:
            done.setdefault(i, v)
            cond.notify_all()

    with cond:
        while waiting or started:
            while waiting and len(started) < max(1, workers):
                i = waiting.pop(0)
                started[i] = clock()
                threading.Thread(target=job, args=(i,), daemon=True,
                                 name=f"check {entries[i].name}").start()
            now = clock()
            for i, t in list(started.items()):
                if i in done:
                    del started[i]
                elif now - t >= deadline:
                    e = entries[i]
                    done[i] = unknown(e.name, f"{e.name}: no answer within {deadline:g} s",
                                      time.time())
                    del started[i]
            if started and not (waiting and len(started) < max(1, workers)):
                first = min(started.values())
                if not any(i in done for i in started):
                    cond.wait(max(0.0, first + deadline - clock()))
    return [done[i] for i in range(len(entries))]


def run_fleet(entries: Sequence[HostEntry], args: argparse.Namespace, out: TextIO) -> int:
    """`check --hosts`: every host read and judged by one monitor, in parallel with a bound;
    the exit code is the worst host's."""
    from zconsole.hosts import factory
    from zconsole.services.monitor.member import Member

    zfs_version = getattr(args, "check_zfs_version", None) or args.zfs_version
    monitor = monitor_of(args)

    def check_one(e: HostEntry) -> Report:
        host = factory.make_host(e, zfs_version=zfs_version)
        m = monitor.add(Member.of(e.name, host, e.tags, timeout=args.timeout))
        return report_on(monitor, m, args)

    # a refresh is `zfs version` then the reads side by side (each `timeout`, the I/O
    # sample one interval more); past twice that and a bit, plus the sample's readings
    # (a second each, twice that for slow hosts), the host is not answering
    reports = read_all(entries, check_one, workers=args.workers,
                       deadline=2 * args.timeout + 5 + 2 * getattr(args, "sample", 0.0))
    say(reports, args, out)
    return Severity.worst(v.status for v in reports).exit_code


def run(args: argparse.Namespace) -> int:
    refused = check_mute.refusal(args)
    if refused:
        sys.stdout.write(f"UNKNOWN: {visible(refused)}\n")
        return Severity.UNKNOWN.exit_code
    try:
        entries = fleet_entries(args, "check")
    except ValueError as e:  # HostsFileError: the file and the line
        sys.stdout.write(f"UNKNOWN: {visible(str(e))}\n")
        return Severity.UNKNOWN.exit_code
    if entries is not None:
        if not entries:
            sys.stdout.write("UNKNOWN: the hosts file has no [[host]]\n")
            return Severity.UNKNOWN.exit_code
        return run_fleet(entries, args, sys.stdout)
    try:
        host = target_host(args, "check")
    except Exception as e:  # noqa: BLE001 - a bad --host is UNKNOWN, never a traceback
        sys.stdout.write(f"UNKNOWN: {visible(str(e))}\n")
        return Severity.UNKNOWN.exit_code
    try:
        return run_check(host, args, sys.stdout)
    except OSError as e:
        sys.stdout.write(f"UNKNOWN: {visible(str(e))}\n")
        return Severity.UNKNOWN.exit_code
