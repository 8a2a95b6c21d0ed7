"""Each disk's SMART as Prometheus families, from what the host's session holds
(`HostSession.smart`, services/smart_follow.py: the watch that reads each disk at its own slow
cadence). A scrape never runs smartctl: the exporter's monitor polls SMART on its own thread
(`Monitor.start(smart=True)`), `check --prometheus` once after its readings.

Names follow smartctl_exporter's (`smartctl_device_smart_status`, `_temperature`,
`_percentage_used`, `_critical_warning`, `_attribute{attribute_name}`) under zconsole's
prefix, with base units (`_celsius`, `_ratio`). The device counters (ATA 5, 187, 188, 197, 198,
199; NVMe media errors; SCSI grown defects and uncorrected errors) are **gauges**, one family
(`zconsole_smart_attribute_raw`, smartctl_exporter's `_attribute` with `value_type="raw"`)
with a `counter` label (promtool's lint refuses `_count` and the word counter in a gauge's
name), not `_total` counters: they are the disk's own values read now and
then, not counts zconsole keeps, and some fall (a pending sector rewritten or remapped leaves
197), so `increase()` would read a fall as a reset and count the whole value as growth. The
rule for "growing" compares with the hour's minimum (docs/prometheus/zconsole-rules.yml).

Labels: host, disk (kernel name), by_id (the disk's best /dev/disk/by-id name, "" when none),
pool ("" when the disk serves none), the same on every family; host text is made visible
first. `zconsole_smart_state` is one gauge per state: read (the last attempt had data),
asleep (`-n standby` did not wake it), no_smart (virtio, a bridge that hides it), unreadable
(smartctl missing, not root, could not open, timed out, output unreadable). The values are
those of the disk's last reading that had data (`zconsole_smart_read_timestamp_seconds` says
when): an asleep disk keeps its last reading, as on the console. They are said only while the
host is up (its `zpool status` read and not too old), as its pools are: a host that stops
answering loses its SMART series with its pool series, and ZconsoleHostNotRead takes over.

The overall health (`zconsole_smart_health_passed`) is said for ATA and SCSI only: NVMe's
`smart_status.passed` is just `critical_warning == 0` (a hot NVMe would read as FAILED);
its bits are `zconsole_smart_nvme_critical_warning`, judged bit by bit into the findings.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from prometheus_client.core import GaugeMetricFamily, Metric

from zconsole.model.hosttext import visible
from zconsole.model.smart import Protocol, Unread, counters

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zconsole.services.read.smart import DiskSmart

SMART_STATES = ("read", "asleep", "no_smart", "unreadable")
COUNTER_NAMES = {
    "ata-5": "reallocated_sectors", "ata-187": "reported_uncorrectable",
    "ata-188": "command_timeouts", "ata-197": "pending_sectors",
    "ata-198": "offline_uncorrectable", "ata-199": "udma_crc_errors",
    "nvme-media_errors": "media_errors", "scsi-grown_defects": "grown_defects",
    "scsi-read_uncorrected": "read_uncorrected", "scsi-write_uncorrected": "write_uncorrected",
    "scsi-verify_uncorrected": "verify_uncorrected",
}
AS_OF = " (as of the disk's last SMART reading: see zconsole_smart_read_timestamp_seconds)"
LABELS = ["host", "disk", "by_id", "pool"]


def smart_state(s: DiskSmart) -> str:
    """The disk's SMART state at its last attempt, one of SMART_STATES."""
    if s.error:
        return "unreadable"
    why = s.unread.unread if s.unread is not None else None
    if why is Unread.ASLEEP:
        return "asleep"
    if why is Unread.NO_SMART:
        return "no_smart"
    if why is not None:
        return "unreadable"
    return "read" if s.reading is not None else "unreadable"


class SmartFamilies:
    """The SMART families of one scrape, filled host by host."""

    def __init__(self) -> None:
        g = GaugeMetricFamily
        self.state = g("zconsole_smart_state", "1 for the disk's SMART state at its last "
                       "attempt (read, asleep, no_smart, unreadable), 0 for the others",
                       labels=[*LABELS, "state"])
        self.read_at = g("zconsole_smart_read_timestamp_seconds", "when the disk's SMART was "
                         "last read with data (epoch)", labels=LABELS)
        self.passed = g("zconsole_smart_health_passed", "1 when the drive's overall health "
                        "self-assessment passed, 0 when FAILED (ATA and SCSI)" + AS_OF,
                        labels=LABELS)
        self.count = g("zconsole_smart_attribute_raw", "a SMART failure counter of the disk, read "
                       "from the disk (a gauge: some fall when a sector is remapped)" + AS_OF,
                       labels=[*LABELS, "counter"])
        self.temp = g("zconsole_smart_temperature_celsius", "the disk's temperature" + AS_OF,
                      labels=LABELS)
        self.used = g("zconsole_smart_endurance_used_ratio", "share of the rated endurance "
                      "used (NVMe percentage used, SCSI endurance used; above 1 past it)"
                      + AS_OF, labels=LABELS)
        self.nvme_cw = g("zconsole_smart_nvme_critical_warning", "the NVMe critical warning "
                         "bits (0: none)" + AS_OF, labels=LABELS)

    def all(self) -> Iterator[Metric]:
        yield from (self.state, self.read_at, self.passed, self.count, self.temp, self.used,
                    self.nvme_cw)

    def add_host(self, host: str, states: Iterable[DiskSmart], pools: Mapping[str, str]
                 ) -> None:
        """`host`'s disks (`host` already made visible); `pools`: disk -> the pool it serves."""
        for s in states:
            labels = [host, visible(s.disk), visible(s.by_id or ""),
                      visible(pools.get(s.disk, ""))]
            cur = smart_state(s)
            for st in SMART_STATES:
                self.state.add_metric([*labels, st], 1.0 if st == cur else 0.0)
            r = s.reading
            if r is None:
                continue
            if s.read_at is not None:
                self.read_at.add_metric(labels, s.read_at)
            if r.passed is not None and r.protocol in (Protocol.ATA, Protocol.SCSI):
                self.passed.add_metric(labels, 1.0 if r.passed else 0.0)
            for key, value in sorted(counters(r).items()):
                self.count.add_metric([*labels, COUNTER_NAMES.get(key, key)], float(value))
            if r.temperature is not None:
                self.temp.add_metric(labels, float(r.temperature.current))
            used = r.nvme.percentage_used if r.nvme is not None else (
                r.scsi.endurance_used if r.scsi is not None else None)
            if used is not None:
                self.used.add_metric(labels, used / 100.0)
            if r.nvme is not None:
                self.nvme_cw.add_metric(labels, float(r.nvme.critical_warning))
