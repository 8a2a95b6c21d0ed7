"""`smartctl` of smartmontools 7.3 (Debian 12), JSON form: `smartctl --json --all [-n
POWERMODE] [-d TYPE] DEVICE` (`-j`, `-a`, `-x`/`--xall` read as `-a`, `--nocheck=MODE`).
The shapes are those of the real outputs in tests/fixtures/parsers/smartctl (smart-facts.md
§1): an ATA disk's attribute table (flags, normalized values, packed temperature raw value),
its self-test and error log summaries; an NVMe disk's health log (7.3's `-a` has no NVMe
self-test log); the exit status as a bit mask (8 failing, 16/32 attribute thresholds, 64
error log, 128 failed self-test; smart-facts.md §2.1).

Faithful corners: `-n standby` (or `idle`) skips an ATA disk in STANDBY with exit 2 and
"Device is in STANDBY mode, exit(2)"; `-n sleep`, `-n never` and no `-n` wake it and read
it. NVMe ignores `-n` (7.3). A caller who is not root gets "Permission denied" (exit 2, no
`device`); `/dev/vd*` gets "Unable to detect device type" (exit 1). A device is named as
the kernel name or any /dev/disk/by-id or by-path link.

Self-tests (ATA): `-t short|long` starts one and prints smartctl's text ("Testing has
begun", the minutes to wait); while it runs `ata_smart_data.self_test.status` is "in
progress" with `remaining_percent`, and another `-t` is refused (exit 4) as smartctl
refuses to abort a running test; `-X` aborts it. It runs on the demo clock and its result
lands in the self-test log (`machine/selftest.py`). NVMe self-tests need smartctl 7.4:
this 7.3 refuses them. Text reads and the other logs (`-l`) are not simulated: exit 1 with a
plain note.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from zconsole.hosts.demo.getopt import OptError, getopt
from zconsole.hosts.demo.machine import selftest
from zconsole.hosts.demo.machine.disks import Disk
from zconsole.hosts.demo.machine.smart import SmartState, smart_of
from zconsole.hosts.demo.tools._common import Context, Handler, Out

_LONG = {"json": False, "all": False, "xall": False, "nocheck": True, "device": True,
         "info": False, "health": False, "test": True, "abort": False}
_TEST_NAMES = {1: "Short offline", 2: "Extended offline"}
# (id, name, value, worst, thresh, flags) of the rows every ATA disk here has; raw and the
# counters' normalized values are filled from the disk's SmartState
_HDD = ((1, "Raw_Read_Error_Rate", 100, 100, 16, 0x0B), (2, "Throughput_Performance", 135,
        135, 54, 0x05), (3, "Spin_Up_Time", 146, 146, 24, 0x07), (4, "Start_Stop_Count", 100,
        100, 0, 0x12), (5, "Reallocated_Sector_Ct", 100, 100, 5, 0x33), (7, "Seek_Error_Rate",
        100, 100, 67, 0x0B), (8, "Seek_Time_Performance", 124, 124, 20, 0x05),
        (9, "Power_On_Hours", 97, 97, 0, 0x12), (10, "Spin_Retry_Count", 100, 100, 60, 0x13),
        (12, "Power_Cycle_Count", 100, 100, 0, 0x32), (192, "Power-Off_Retract_Count", 98, 98,
        0, 0x32), (193, "Load_Cycle_Count", 98, 98, 0, 0x12), (194, "Temperature_Celsius", 0,
        0, 0, 0x02), (196, "Reallocated_Event_Count", 100, 100, 0, 0x32),
        (197, "Current_Pending_Sector", 100, 100, 0, 0x22), (198, "Offline_Uncorrectable", 100,
        100, 0, 0x08), (199, "UDMA_CRC_Error_Count", 200, 200, 0, 0x0A))
_SSD = ((5, "Reallocated_Sector_Ct", 100, 100, 0, 0x32), (9, "Power_On_Hours", 100, 100, 0,
        0x32), (12, "Power_Cycle_Count", 100, 100, 0, 0x32), (170, "Available_Reservd_Space",
        100, 100, 10, 0x33), (171, "Program_Fail_Count", 100, 100, 0, 0x32),
        (172, "Erase_Fail_Count", 100, 100, 0, 0x32), (174, "Unsafe_Shutdown_Count", 100, 100,
        0, 0x32), (184, "End-to-End_Error", 100, 100, 90, 0x33), (187, "Reported_Uncorrect",
        100, 100, 0, 0x32), (194, "Temperature_Celsius", 0, 0, 0, 0x22),
        (197, "Current_Pending_Sector", 100, 100, 0, 0x32), (199, "CRC_Error_Count", 100, 100,
        0, 0x3E), (233, "Media_Wearout_Indicator", 98, 98, 0, 0x32))


def _flags(v: int) -> dict[str, Any]:
    letters = "".join(c if v & (1 << i) else "-" for i, c in enumerate("POSRCK")) + " "
    return {"value": v, "string": letters, "prefailure": bool(v & 1),
            "updated_online": bool(v & 2), "performance": bool(v & 4),
            "error_rate": bool(v & 8), "event_count": bool(v & 16), "auto_keep": bool(v & 32)}


def _raw(d: Disk, st: SmartState, attr_id: int, now: float) -> tuple[int, str]:
    if attr_id == 194:
        t = st.temperature
        return (t | st.temperature_min << 16 | st.temperature_max << 32,
                f"{t} (Min/Max {st.temperature_min}/{st.temperature_max})")
    value = {4: st.power_cycles, 5: st.reallocated, 9: st.hours_at(now), 12: st.power_cycles,
             174: st.unsafe_shutdowns, 187: st.reported_uncorrect, 192: st.unsafe_shutdowns,
             196: st.reallocated // 3, 197: st.pending_at(now), 198: st.offline_uncorrectable,
             199: st.crc}.get(attr_id, 0)
    return value, str(value)


def _attributes(d: Disk, st: SmartState, now: float) -> list[dict[str, Any]]:
    rows = []
    for attr_id, name, value, worst, thresh, flags in (_HDD if d.rotational else _SSD):
        raw, text = _raw(d, st, attr_id, now)
        if attr_id == 194:
            value = worst = st.temperature if not d.rotational else 100 + 4 * (
                54 - st.temperature)
        elif attr_id == 5:
            value = worst = max(1, 100 - st.reallocated // 20)
        rows.append({"id": attr_id, "name": name, "value": value, "worst": worst,
                     "thresh": thresh, "when_failed": "", "flags": _flags(flags),
                     "raw": {"value": raw, "string": text}})
    return rows


def _test_status(status: int) -> dict[str, Any]:
    code = status >> 4
    if code == 0:
        return {"value": status, "string": "Completed without error", "passed": True}
    if code == 1:
        return {"value": status, "string": "Aborted by host"}
    return {"value": status, "string": "Completed: read failure",
            "remaining_percent": (status & 0xF) * 10, "passed": False}


def _exec_status(last: int) -> dict[str, Any]:
    """`ata_smart_data.self_test.status`: how the last self-test ended, or the one running
    (smartctl's words, ataprint.cpp PrintSmartSelfExecStatus)."""
    code = last >> 4
    if code == 0:
        return {"value": last, "string": "completed without error", "passed": True}
    if code == 15:
        left = (last & 0xF) * 10
        return {"value": last, "string": f"in progress, {left}% remaining",
                "remaining_percent": left}
    if code == 1:
        return {"value": last, "string": "was aborted by the host"}
    return {"value": last, "string": "the previous self-test completed having the read "
            "element of the test failed", "passed": False}


def _self_test_log(st: SmartState, now: float) -> tuple[dict[str, Any], int]:
    """The standard self-test log and how many of its failures count (exit bit 7): a
    failure followed by a newer successful extended test is outdated."""
    table, failed, outdated, newer_ext_ok = [], 0, 0, False
    for t in st.tests:
        entry: dict[str, Any] = {"type": {"value": t.kind, "string": _TEST_NAMES[t.kind]},
                                 "status": _test_status(t.status),
                                 "lifetime_hours": (t.at_hours if t.at_hours is not None
                                                    else st.hours_at(now) - t.hours_ago)
                                 % 65536}
        if t.status >> 4:
            entry["lba"] = t.lba or 0
            failed += 1
            outdated += newer_ext_ok
        elif t.kind == 2:
            newer_ext_ok = True
        table.append(entry)
    log: dict[str, Any] = {"revision": 1, "count": len(table), "error_count_total": failed,
                           "error_count_outdated": outdated}
    if table:
        log["table"] = table
    return {"standard": log}, failed - outdated


def _errors(st: SmartState) -> dict[str, Any]:
    count = st.reported_uncorrect + st.offline_uncorrectable + st.crc
    return {"summary": {"revision": 1, "count": count, "logged_count": min(count, 5)}
            if count else {"revision": 1, "count": 0}}


def _ata(ctx: Context, d: Disk, st: SmartState, out: dict[str, Any]) -> int:
    now = ctx.now
    last = st.tests[0].status if st.tests else 0
    if st.running is not None:
        last = st.running.status(now)
    ssd = not d.rotational
    tests, failed_tests = _self_test_log(st, now)
    out.update({
        "model_name": d.model, "serial_number": d.serial, "firmware_version": "MJAOA3B0",
        "user_capacity": {"blocks": d.size // 512, "bytes": d.size},
        "logical_block_size": d.logical_sector, "physical_block_size": d.physical_sector,
        "rotation_rate": 0 if ssd else 7200, "in_smartctl_database": False,
        "local_time": _local_time(now),
        "smart_support": {"available": True, "enabled": True},
        "smart_status": {"passed": st.passed},
        "ata_smart_data": {
            "offline_data_collection": {"status": {"value": 130, "string":
                                                   "was completed without error",
                                                   "passed": True},
                                        "completion_seconds": 28 if ssd else 101},
            "self_test": {"status": _exec_status(last),
                          "polling_minutes": selftest.polling_minutes(not ssd)},
            "capabilities": {"exec_offline_immediate_supported": True,
                             "self_tests_supported": True,
                             "conveyance_self_test_supported": False,
                             "selective_self_test_supported": True,
                             "error_logging_supported": True, "gp_logging_supported": True}},
        "ata_smart_attributes": {"revision": 16, "table": _attributes(d, st, now)},
        "power_on_time": {"hours": st.hours_at(now)},
        "power_cycle_count": st.power_cycles,
        "temperature": {"current": st.temperature},
        "ata_smart_error_log": _errors(st),
        "ata_smart_self_test_log": tests,
    })
    errors = out["ata_smart_error_log"]["summary"]["count"]
    return (8 if not st.passed else 0) | (64 if errors else 0) | (128 if failed_tests else 0)


def _nvme(ctx: Context, d: Disk, st: SmartState, out: dict[str, Any]) -> int:
    cw = st.nvme.critical_warning
    flags: dict[str, Any] = {"value": cw}
    if cw:
        flags |= {name: bool(cw & mask) for mask, name in (
            (1, "spare_below_threshold"), (2, "temperature_above_or_below_threshold"),
            (4, "reliability_degraded"), (8, "media_read_only"),
            (16, "volatile_memory_backup_failed"),
            (32, "persistent_memory_region_unreliable"))} | {"other": cw >> 6}
    hours = st.hours_at(ctx.now)
    written = int(hours * 310_000 * (1 + st.nvme.percentage_used / 10))
    out.update({
        "model_name": d.model, "serial_number": d.serial, "firmware_version": "5B2QGXA7",
        "nvme_pci_vendor": {"id": 5197, "subsystem_id": 5197},
        "nvme_ieee_oui_identifier": 9528, "nvme_total_capacity": d.size,
        "nvme_unallocated_capacity": 0, "nvme_controller_id": 6,
        "nvme_version": {"string": "1.3", "value": 66304}, "nvme_number_of_namespaces": 1,
        "nvme_namespaces": [{"id": 1, "size": {"blocks": d.size // 512, "bytes": d.size},
                             "capacity": {"blocks": d.size // 512, "bytes": d.size},
                             "formatted_lba_size": 512}],
        "user_capacity": {"blocks": d.size // 512, "bytes": d.size},
        "logical_block_size": 512, "local_time": _local_time(ctx.now),
        "smart_support": {"available": True, "enabled": True},
        "smart_status": {"passed": cw == 0, "nvme": flags},
        "nvme_smart_health_information_log": {
            "critical_warning": cw, "temperature": st.temperature,
            "available_spare": st.nvme.available_spare, "available_spare_threshold": 10,
            "percentage_used": st.nvme.percentage_used, "data_units_read": written // 3,
            "data_units_written": written, "host_reads": written * 3,
            "host_writes": written * 2, "controller_busy_time": hours // 4,
            "power_cycles": st.power_cycles, "power_on_hours": hours,
            "unsafe_shutdowns": st.unsafe_shutdowns, "media_errors": st.nvme.media_errors,
            "num_err_log_entries": 0, "warning_temp_time": 95 if cw & 2 else 0,
            "critical_comp_time": 0, "temperature_sensors": [st.temperature,
                                                             st.temperature + 6]},
        "temperature": {"current": st.temperature},
        "power_cycle_count": st.power_cycles, "power_on_time": {"hours": hours},
        "nvme_error_information_log": {"size": 64, "read": 16, "unread": 0},
    })
    return 8 if cw else 0


def _local_time(now: float) -> dict[str, Any]:
    t = dt.datetime.fromtimestamp(int(now), dt.timezone.utc)
    return {"time_t": int(now), "asctime": t.strftime("%a %b %e %H:%M:%S %Y UTC")}


def _print(ctx: Context, argv: list[str], status: int, body: dict[str, Any],
           messages: tuple[tuple[str, str], ...] = ()) -> Out:
    env: dict[str, Any] = {"version": [7, 3], "svn_revision": "5338",
                           "platform_info": f"x86_64-linux-{ctx.machine.kernel}",
                           "build_info": "(local build)", "argv": ["smartctl", *argv]}
    if messages:
        env["messages"] = [{"string": s, "severity": sev} for sev, s in messages]
    env["exit_status"] = status
    # smartctl indents its JSON; the demo prints the same document on one line (the C
    # encoder: indenting took most of a thousand-disk poll's time, bench/smart_cost.py)
    return status, json.dumps({"json_format_version": [1, 0], "smartctl": env,
                               **body}) + "\n", ""


def _find(ctx: Context, path: str) -> Disk | None:
    name = path if path.startswith("/dev/disk/") else path.removeprefix("/dev/")
    if name.startswith("nvme") and "n" not in name[4:]:
        name += "n1"  # the controller node /dev/nvmeN: its (only) namespace's disk
    hit = ctx.machine.disk_by_any(name)
    return hit[0] if hit else None


_HEAD = ("smartctl 7.3 2022-02-28 r5338 [x86_64-linux-{kernel}] (local build)\n"
         "Copyright (C) 2002-22, Bruce Allen, Christian Franke, www.smartmontools.org\n\n"
         "=== START OF OFFLINE IMMEDIATE AND SELF-TEST SECTION ===\n")


def _self_test(ctx: Context, d: Disk, st: SmartState, word: str | None) -> Out:
    """`-t short|long` (word) or `-X` (None), as smartctl 7.3 prints them for ATA."""
    head = _HEAD.format(kernel=ctx.machine.kernel)
    if d.transport == "nvme":
        return 4, head + "NVMe self-tests are not supported by this smartctl (7.4 adds " \
                         "them)\n", ""
    if word is None:
        selftest.abort(st, ctx.now)
        return 0, head + 'Sending command: "Abort SMART off-line mode self-test routine".' \
                         "\nSelf-testing aborted!\n", ""
    if st.running is not None:
        left = int(st.running.left(ctx.now) * 100)
        return 4, head + f"Can't start self-test without aborting current test ({left}% " \
                         "remaining),\nadd '-t force' option to override, or run " \
                         "'smartctl -X' to abort test.\n", ""
    minutes = selftest.start(st, word, ctx.now, rotational=bool(d.rotational),
                             pace=ctx.machine.pace)
    name = "Short" if word == "short" else "Extended"
    what = f"Execute SMART {name} self-test routine immediately in off-line mode"
    end = dt.datetime.fromtimestamp(int(ctx.now + minutes * 60), dt.timezone.utc)
    return 0, head + (f'Sending command: "{what}".\nDrive command "{what}" successful.\n'
                      f"Testing has begun.\nPlease wait {minutes} minutes for test to "
                      f"complete.\nTest will complete after "
                      f"{end.strftime('%a %b %e %H:%M:%S %Y UTC')}\n"
                      "Use smartctl -X to abort test.\n"), ""


def smartctl(ctx: Context, argv: list[str]) -> Out:
    try:
        p = getopt(argv, "jaxHin:d:t:Xl:", _LONG)
    except OptError as e:
        return 1, f"=======> {e.message.upper()}\nUse smartctl -h to get a usage summary\n", ""
    test = p.last("t") or p.last("--test")
    aborting = p.has("X") or p.has("--abort")
    if test is not None and test not in selftest.KINDS:
        return 1, "", f"smartctl (demo): -t {test} is not simulated (short, long are)\n"
    testing = test is not None or aborting
    if p.has("l") or not (testing or p.has("j") or p.has("--json")):
        return 1, "", "smartctl (demo): only --json --all reads and -t/-X are simulated\n"
    if len(p.args) != 1:
        return _print(ctx, argv, 1, {}, (("error", "ERROR: smartctl requires a device name "
                                                   "as the final command-line argument."),))
    path = p.args[0]
    mode = (p.last("n") or p.last("--nocheck") or "never").split(",")[0]
    if path.removeprefix("/dev/").startswith("vd"):
        return _print(ctx, argv, 1, {}, (("error", f"{path}: Unable to detect device type"),))
    d = _find(ctx, path)
    if d is None:
        return _print(ctx, argv, 2, {}, (("error", f"Smartctl open device: {path} failed: "
                                                   "No such device"),))
    if not ctx.root:
        return _print(ctx, argv, 2, {}, (("error", f"Smartctl open device: {path} failed: "
                                                   "Permission denied"),))
    st = smart_of(ctx.machine, d)
    selftest.settle(st, ctx.now)
    if testing:
        st.asleep = False  # a command to the drive spins it up
        return _self_test(ctx, d, st, test)
    nvme = d.transport == "nvme"
    device = {"name": path, "info_name": path if nvme else f"{path} [SAT]",
              "type": "nvme" if nvme else "sat", "protocol": "NVMe" if nvme else "ATA"}
    if st.asleep and not nvme:
        if mode in ("standby", "idle"):
            return _print(ctx, argv, 2, {"device": device},
                          (("information", "Device is in STANDBY mode, exit(2)"),))
        st.asleep = False  # reading it spins it up
    body: dict[str, Any] = {"device": device}
    status = (_nvme if nvme else _ata)(ctx, d, st, body)
    return _print(ctx, argv, status, body)


HANDLERS: dict[str, Handler] = {"smartctl": smartctl}
