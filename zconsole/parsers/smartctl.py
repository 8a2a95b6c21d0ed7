"""`smartctl --json --all -n standby DEV` (smartmontools 7.0+) -> SmartReading.

Format (smart-facts.md §1): one JSON object. The envelope `smartctl{version, exit_status,
messages[]}` is always there in 7.x; `device{name, type, protocol}` is missing when the
device could not be opened. Then per protocol:
* ATA: `ata_smart_attributes.table[]` (`id, name, value, worst, thresh, when_failed
  ("now"/"past"/""), flags.prefailure, raw{value, string}`), `ata_smart_data.self_test.status`
  (value >> 4 == 15: running, `remaining_percent`), `ata_smart_self_test_log.standard.table[]`
  (newest first), `ata_smart_error_log.summary.count`;
* NVMe: `nvme_smart_health_information_log` (128-bit counters: Python's json reads them
  exactly), `nvme_self_test_log` (7.4+; `-a` of 7.3 does not include it);
* SCSI: `scsi_grown_defect_list`, `scsi_error_counter_log.{read,write,verify}`,
  `scsi_percentage_used_endurance_indicator`, `scsi_self_test_0..19` (separate keys);
  7.3 may write the trip point as `scsi_temperature.drive_trip`.

The exit status is a bit mask, not a verdict (§2.1): a healthy disk can exit 4, 64 or 128.
"No data" is bit 0 or 1 set or no `device`; otherwise the JSON is judged and the bits kept.

Hostile input: every value is type-checked; a damaged attribute row or log entry is left out
and named in `damaged`, the readable ones are kept. Strings are kept raw (faces escape them).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from zconsole.model.smart import (
    NvmeHealth,
    Protocol,
    ScsiHealth,
    SelfTest,
    SmartAttr,
    SmartReading,
    Temperature,
    TestRunning,
    Unread,
)
from zconsole.parsers.errors import ParseError, parser

SOURCE = "smartctl --json"
_MAX_STR = 512  # longer host strings are cut (a model or a message is never this long)

# the device an open failure names: "Smartctl open device: /dev/sda failed: ...",
# "/dev/vda: Unable to detect device type"
_NAMED = re.compile(r"(?:open device: |^)(/dev/[^\s:]+)")
_ATA_KIND = {0: "offline", 1: "short", 2: "extended", 3: "conveyance", 4: "selective"}
_NVME_KIND = {1: "short", 2: "extended"}
_SCSI_KIND = {1: "short", 2: "extended", 5: "short", 6: "extended"}


def _int(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _str(v: object) -> str | None:
    return v[:_MAX_STR] if isinstance(v, str) else None


def _obj(v: object) -> Mapping[str, Any]:
    return v if isinstance(v, dict) else {}


def _list(v: object) -> list[Any]:
    return v if isinstance(v, list) else []


def _protocol(text: str | None) -> Protocol | None:
    if text is None:
        return None
    if text.startswith("ATA"):  # "ATA", "ATA+SCSI"
        return Protocol.ATA
    return {"NVMe": Protocol.NVME, "SCSI": Protocol.SCSI}.get(text)


def _messages(env: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = []
    for m in _list(env.get("messages"))[:64]:
        text = _str(_obj(m).get("string"))
        if text is not None:
            out.append((_str(_obj(m).get("severity")) or "", text))
    return tuple(out)


def _why_unread(exit_status: int | None, has_device: bool,
                messages: tuple[tuple[str, str], ...]) -> tuple[Unread | None, str]:
    """Why there is no data (bit 0 or 1, or no `device`), with smartctl's message."""
    if has_device and not (exit_status or 0) & 0b11:
        return None, ""
    text = next((t for sev, t in messages if sev == "error"), "") or (
        messages[0][1] if messages else "")
    low = text.lower()
    if (exit_status or 0) & 0b10 and any(t.startswith("Device is in") and "mode" in t
                                         for _, t in messages):
        return Unread.ASLEEP, next(t for _, t in messages if t.startswith("Device is in"))
    if "permission denied" in low or "operation not permitted" in low:
        return Unread.NOT_ROOT, text
    if ("unable to detect device type" in low or "inappropriate ioctl" in low
            or "unknown usb bridge" in low):  # virtio; a USB bridge that hides SMART
        return Unread.NO_SMART, text
    return Unread.OPEN_FAILED, text


def _attr(row: object) -> SmartAttr | None:
    """One attribute row, or None when it has no id in 1-255 or no raw value. Written out
    with `type(x) is ...` rather than the helpers above (the same tests: JSON's numbers are
    exactly int, float or bool): a SMART poll of 1 000 ATA disks parses ~17 000 rows."""
    if type(row) is not dict or type(raw := row.get("raw")) is not dict:
        return None
    get, raw_value = row.get, raw.get("value")
    attr_id = get("id")
    if type(attr_id) is not int or type(raw_value) is not int or not 0 < attr_id < 256:
        return None
    name, raw_string, when = get("name"), raw.get("string"), get("when_failed")
    value, worst, thresh, flags = get("value"), get("worst"), get("thresh"), get("flags")
    prefail = flags.get("prefailure") if type(flags) is dict else None
    return SmartAttr(
        attr_id, name[:_MAX_STR] if type(name) is str and name else f"attribute {attr_id}",
        raw_value,
        raw_string[:_MAX_STR] if type(raw_string) is str and raw_string else str(raw_value),
        value if type(value) is int else None, worst if type(worst) is int else None,
        thresh if type(thresh) is int else None,
        when[:_MAX_STR] if type(when) is str else "",
        prefail if type(prefail) is bool else None)


def _ata_passed(code: int) -> bool | None:
    """ATA self-test status code (value >> 4): 0 passed; 3 fatal and 4-8 failed;
    1 aborted by host, 2 interrupted by reset, 15 running: no verdict."""
    if code == 0:
        return True
    return False if 3 <= code <= 8 else None


def _coded(r: Mapping[str, Any], kind: str, outcome: str
           ) -> tuple[int | None, Mapping[str, Any], int | None]:
    """A self-test log entry's kind code, its outcome object and that outcome's code (ATA:
    type/status; SCSI: code/result); None where the entry is damaged."""
    result = _obj(r.get(outcome))
    return _int(_obj(r.get(kind)).get("value")), result, _int(result.get("value"))


def _ata_tests(d: Mapping[str, Any], damaged: list[str]) -> tuple[SelfTest, ...]:
    log = _obj(d.get("ata_smart_self_test_log"))
    table = _list(_obj(log.get("extended")).get("table")) or _list(
        _obj(log.get("standard")).get("table"))
    out: list[SelfTest] = []
    for n, row in enumerate(table[:64]):
        r = _obj(row)
        kind_v, status, status_v = _coded(r, "type", "status")
        if kind_v is None or status_v is None:
            damaged.append(f"self-test log entry {n + 1}")
            continue
        passed = status.get("passed")
        out.append(SelfTest(
            kind=_ATA_KIND.get(kind_v & 0x7F, "other"),
            status=_str(status.get("string")) or f"status {status_v}",
            passed=passed if isinstance(passed, bool) else _ata_passed(status_v >> 4),
            hours=_int(r.get("lifetime_hours")), lba=_int(r.get("lba")),
            running=status_v >> 4 == 15))
    return tuple(out)


def _ata_running(d: Mapping[str, Any]) -> TestRunning | None:
    status = _obj(_obj(_obj(d.get("ata_smart_data")).get("self_test")).get("status"))
    value = _int(status.get("value"))
    if value is None or value >> 4 != 15:
        return None
    remaining = _int(status.get("remaining_percent"))
    if remaining is None:
        remaining = (value & 0xF) * 10
    return TestRunning(kind=None, percent_done=max(0, min(100, 100 - remaining)))


def _ata_minutes(d: Mapping[str, Any]) -> tuple[tuple[str, int], ...]:
    """`ata_smart_data.self_test.polling_minutes`: each supported kind's expected minutes."""
    mins = _obj(_obj(_obj(d.get("ata_smart_data")).get("self_test")).get("polling_minutes"))
    return tuple((kind, m) for kind in ("short", "extended", "conveyance")
                 if (m := _int(mins.get(kind))) is not None and 0 <= m < 1 << 16)


def _nvme(d: Mapping[str, Any]) -> NvmeHealth | None:
    log = d.get("nvme_smart_health_information_log")
    if not isinstance(log, dict):
        return None
    g = log.get
    return NvmeHealth(
        critical_warning=_int(g("critical_warning")) or 0, temperature=_int(g("temperature")),
        available_spare=_int(g("available_spare")),
        available_spare_threshold=_int(g("available_spare_threshold")),
        percentage_used=_int(g("percentage_used")), media_errors=_int(g("media_errors")),
        unsafe_shutdowns=_int(g("unsafe_shutdowns")),
        error_log_entries=_int(g("num_err_log_entries")),
        power_on_hours=_int(g("power_on_hours")),
        data_units_written=_int(g("data_units_written")),
        warning_temp_minutes=_int(g("warning_temp_time")),
        critical_temp_minutes=_int(g("critical_comp_time")))


def _nvme_tests(d: Mapping[str, Any], damaged: list[str]
                ) -> tuple[tuple[SelfTest, ...], TestRunning | None]:
    log = _obj(d.get("nvme_self_test_log"))
    out: list[SelfTest] = []
    for n, row in enumerate(_list(log.get("table"))[:64]):
        r = _obj(row)
        code, result = _int(_obj(r.get("self_test_code")).get("value")), _obj(
            r.get("self_test_result"))
        result_v = _int(result.get("value"))
        if code is None or result_v is None:
            damaged.append(f"NVMe self-test log entry {n + 1}")
            continue
        # 0 passed; 5 fatal, 6 unknown segment failed, 7 segments failed; the rest aborted
        passed = True if result_v == 0 else False if result_v in (5, 6, 7) else None
        out.append(SelfTest(kind=_NVME_KIND.get(code, "other"),
                            status=_str(result.get("string")) or f"result {result_v}",
                            passed=passed, hours=_int(r.get("power_on_hours")),
                            lba=_int(r.get("lba"))))
    op = _int(_obj(log.get("current_self_test_operation")).get("value"))
    running = None
    if op:
        running = TestRunning(kind=_NVME_KIND.get(op, "other"),
                              percent_done=_int(log.get("current_self_test_completion_percent")))
    return tuple(out), running


def _scsi(d: Mapping[str, Any]) -> ScsiHealth | None:
    counters = _obj(d.get("scsi_error_counter_log"))
    grown = _int(d.get("scsi_grown_defect_list"))
    endurance = _int(d.get("scsi_percentage_used_endurance_indicator"))
    if not counters and grown is None and endurance is None:
        return None

    def uncorrected(direction: str) -> int | None:
        return _int(_obj(counters.get(direction)).get("total_uncorrected_errors"))

    return ScsiHealth(grown_defects=grown, read_uncorrected=uncorrected("read"),
                      write_uncorrected=uncorrected("write"),
                      verify_uncorrected=uncorrected("verify"), endurance_used=endurance)


def _scsi_tests(d: Mapping[str, Any], damaged: list[str]
                ) -> tuple[tuple[SelfTest, ...], TestRunning | None]:
    out: list[SelfTest] = []
    running = None
    for n in range(20):
        entry = d.get(f"scsi_self_test_{n}")
        if entry is None:
            continue
        r = _obj(entry)
        code, result, result_v = _coded(r, "code", "result")
        if code is None or result_v is None:
            damaged.append(f"scsi_self_test_{n}")
            continue
        in_progress = r.get("self_test_in_progress") is True or result_v == 15
        kind = _SCSI_KIND.get(code, "other")
        passed = True if result_v == 0 else False if 3 <= result_v <= 7 else None
        out.append(SelfTest(kind=kind, status=_str(result.get("string")) or f"result {result_v}",
                            passed=passed, hours=_int(_obj(r.get("power_on_time")).get("hours")),
                            lba=_int(r.get("lba_first_failure")), running=in_progress))
        if in_progress and running is None:
            running = TestRunning(kind=kind, percent_done=None)
    return tuple(out), running


def _temperature(d: Mapping[str, Any], protocol: Protocol | None,
                 nvme: NvmeHealth | None) -> Temperature | None:
    t = _obj(d.get("temperature"))
    current = _int(t.get("current"))
    if current is None and nvme is not None:
        current = nvme.temperature
    if current is None or (current == 0 and protocol is Protocol.SCSI):
        return None  # QEMU's scsi-hd (and RAID volumes) report 0: no sensor
    legacy = _obj(d.get("scsi_temperature"))  # smartctl 7.3's name without a temp log page
    nvme_thr = _obj(d.get("nvme_composite_temperature_threshold"))  # 7.5+
    found = [(source, _int(value)) for source, value in (
        ("op_limit_max", t.get("op_limit_max")), ("drive_trip", t.get("drive_trip")),
        ("drive_trip", legacy.get("drive_trip")), ("WCTEMP", nvme_thr.get("warning")))
        if _int(value)]
    source, limit = found[0] if found else ("", None)
    critical = _int(t.get("critical_limit_max")) or _int(nvme_thr.get("critical")) or None
    return Temperature(current=current, limit=limit, critical=critical, limit_source=source)


def _identity(d: Mapping[str, Any]) -> dict[str, Any]:
    model = _str(d.get("model_name")) or _str(d.get("scsi_model_name"))
    if model is None:
        vendor, product = _str(d.get("scsi_vendor")), _str(d.get("scsi_product"))
        model = " ".join(p for p in (vendor, product) if p) or None
    version = _list(_obj(d.get("smartctl")).get("version"))
    return {
        "model": model, "serial": _str(d.get("serial_number")),
        "firmware": _str(d.get("firmware_version")) or _str(d.get("scsi_revision")),
        "capacity_bytes": _int(_obj(d.get("user_capacity")).get("bytes")) or _int(
            d.get("nvme_total_capacity")),
        "rotation_rate": _int(d.get("rotation_rate")),
        "version": (version[0], version[1]) if len(version) >= 2 and all(
            _int(v) is not None for v in version[:2]) else None,
    }


def _attributes(d: Mapping[str, Any], damaged: list[str]) -> tuple[SmartAttr, ...]:
    out: list[SmartAttr] = []
    for n, row in enumerate(_list(_obj(d.get("ata_smart_attributes")).get("table"))[:256]):
        a = _attr(row)
        if a is None:
            damaged.append(f"attribute row {n + 1}")
        else:
            out.append(a)
    return tuple(out)


@parser(SOURCE)
def parse_smartctl(text: str, source: str = "") -> SmartReading:
    """One disk's `smartctl --json` output. `source` names the device when the output does
    not (an open failure has no `device`)."""
    try:
        d = json.loads(text)
    except ValueError as e:
        raise ParseError(SOURCE, f"not JSON: {str(e)[:120]}") from e
    if not isinstance(d, dict) or not ("smartctl" in d or "device" in d):
        raise ParseError(SOURCE, "not smartctl JSON (no smartctl or device object)")
    env, device = _obj(d.get("smartctl")), d.get("device")
    exit_status = _int(env.get("exit_status"))
    messages = _messages(env)
    name = _str(_obj(device).get("name")) or source or next(
        (m.group(1) for _, t in messages if (m := _NAMED.search(t))), "")
    unread, why = _why_unread(exit_status, isinstance(device, dict), messages)
    ident = _identity(d)
    if unread is not None:
        return SmartReading(device=name, exit_status=exit_status, version=ident["version"],
                            messages=messages, unread=unread, unread_detail=why)
    protocol = _protocol(_str(_obj(device).get("protocol")))
    damaged: list[str] = []
    nvme, scsi = _nvme(d), _scsi(d)
    tests: tuple[SelfTest, ...] = ()
    running: TestRunning | None = None
    if protocol is Protocol.NVME:
        tests, running = _nvme_tests(d, damaged)
    elif protocol is Protocol.SCSI:
        tests, running = _scsi_tests(d, damaged)
    else:
        tests, running = _ata_tests(d, damaged), _ata_running(d)
    status = _obj(d.get("smart_status"))
    passed = status.get("passed") if isinstance(status.get("passed"), bool) else None
    attributes = _attributes(d, damaged)
    unread_now: Unread | None = None
    if _obj(d.get("smart_support")).get("available") is False or (
            passed is None and not attributes and nvme is None and scsi is None):
        unread_now = Unread.NO_SMART  # scsi-hd on virtio-scsi, a RAID volume
    return SmartReading(
        device=name, protocol=protocol, exit_status=exit_status, passed=passed,
        temperature=_temperature(d, protocol, nvme),
        power_on_hours=_int(_obj(d.get("power_on_time")).get("hours")),
        attributes=attributes, nvme=nvme, scsi=scsi, self_tests=tests, running=running,
        test_minutes=_ata_minutes(d) if protocol is Protocol.ATA else (),
        error_log_count=_int(_obj(_obj(d.get("ata_smart_error_log")).get("summary")).get(
            "count")),
        messages=messages, unread=unread_now,
        unread_detail="the device reports no SMART capability" if unread_now else "",
        damaged=tuple(damaged), **ident)
