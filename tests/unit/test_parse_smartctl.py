"""`smartctl --json` parsing against real published outputs (tests/fixtures/parsers/smartctl,
SOURCES.md) and against damaged and hostile input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.paths import PARSERS, parser_text
from zconsole.model.smart import Protocol, Unread, counters
from zconsole.parsers.errors import ParseError
from zconsole.parsers.smartctl import parse_smartctl

DIR = PARSERS / "smartctl"
ALL = sorted(p.name for p in DIR.glob("*.json"))


def read(name: str) -> str:
    return parser_text("smartctl", name)


def test_every_fixture_is_named_in_sources() -> None:
    sources = (DIR / "SOURCES.md").read_text()
    assert ALL and all(name in sources for name in ALL)


@pytest.mark.parametrize("name", ALL)
def test_every_fixture_parses(name: str) -> None:
    r = parse_smartctl(read(name))
    assert r.damaged == ()
    assert r.exit_status == json.loads(read(name)).get("smartctl", {}).get("exit_status")


def test_failing_hdd_behind_usb_bridge() -> None:
    r = parse_smartctl(read("scrutiny-smart-fail2.json"))
    assert r.protocol is Protocol.ATA and r.read
    assert r.passed is False and r.exit_status == 216
    assert r.model == "Hitachi HDS721050DLE630"
    assert r.temperature is not None and r.temperature.current == 25  # not the packed raw
    realloc = r.attr(5)
    assert realloc is not None and (realloc.raw, realloc.value, realloc.thresh) == (1975, 1, 5)
    assert realloc.when_failed == "now" and realloc.failing_now and realloc.prefailure
    assert counters(r)["ata-197"] == 8
    assert len(r.self_tests) == 21
    failed = r.newest_test("extended")
    assert failed is not None and failed.passed is False and failed.lba == 104870168
    assert r.self_tests[0].kind == "short" and r.self_tests[0].hours == 42  # newest first
    assert "SMART status check returned 'DISK FAILING'" in r.exit_meanings
    assert "the self-test log has records of errors" in r.exit_meanings


def test_self_test_in_progress() -> None:
    r = parse_smartctl(read("scrutiny-smart-ata.json"))
    assert r.running is not None and r.running.percent_done == 90  # "10% remaining"
    # the drive's own expected durations (`polling_minutes`): what the self-test plan says
    assert r.test_minutes == (("short", 2), ("extended", 1479))
    nvme = parse_smartctl(read("scrutiny-smart-nvme.json"))
    assert nvme.test_minutes == ()  # NVMe JSON has no polling minutes


def test_packed_command_timeout_is_decoded() -> None:
    r = parse_smartctl(read("sce-sat-Seagate_Constellation_ES.3-ST3000NM0033-9ZM178-sdc.json"))
    a = r.attr(188)
    assert a is not None and a.raw == 17180131332 and a.counter == 4
    assert r.temperature is not None and r.temperature.current == 22


def test_ata_temperature_limit_from_sct() -> None:
    r = parse_smartctl(read("scrutiny-smart-ata-full.json"))
    assert r.temperature is not None
    assert (r.temperature.current, r.temperature.limit) == (36, 70)
    assert r.temperature.limit_source == "op_limit_max"


def test_nvme_critical_warning_and_wear() -> None:
    r = parse_smartctl(read("sce-nvme-null-SAMSUNG_MZWLL3T2HAJQ-00005-nvme0.json"))
    assert r.protocol is Protocol.NVME and r.passed is False and r.exit_status == 8
    assert r.nvme is not None and r.nvme.critical_warning == 16
    assert r.nvme.warnings == ("volatile memory backup device failed",)
    worn = parse_smartctl(read("sce-nvme-null-INTEL_SSDPE2KX020T7-nvme6.json"))
    assert worn.nvme is not None and worn.nvme.percentage_used == 75
    media = parse_smartctl(read("scrutiny-smart-nvme-failed.json"))
    assert media.nvme is not None and media.nvme.media_errors == 7
    assert media.nvme.error_log_entries == 62 and media.nvme.unsafe_shutdowns == 10


def test_scsi_grown_defects_and_uncorrected() -> None:
    r = parse_smartctl(read("sce-SEAGATE_ST373453LC_26.json"))
    assert r.protocol is Protocol.SCSI and r.model == "SEAGATE ST373453LC"
    assert r.scsi is not None and r.scsi.grown_defects == 260
    assert (r.scsi.read_uncorrected, r.scsi.write_uncorrected) == (1, 535)
    assert r.temperature is not None and r.temperature.limit == 68
    assert r.firmware == "DX10"


def test_open_failure_and_raid_volume_are_not_data() -> None:
    r = parse_smartctl(read("scrutiny-smart-fail.json"), "/dev/sda")
    assert r.unread is Unread.OPEN_FAILED and r.device == "/dev/sda"
    assert "Open failed" in r.unread_detail
    assert parse_smartctl(read("scrutiny-smart-fail.json")).device == "/dev/sda"  # from the text
    raid = parse_smartctl(read("scrutiny-smart-raid.json"))
    assert raid.unread is Unread.NO_SMART and raid.temperature is None


def _envelope(exit_status: int, messages: list[tuple[str, str]], device: bool) -> str:
    d: dict[str, object] = {"json_format_version": [1, 0], "smartctl": {
        "version": [7, 3], "exit_status": exit_status,
        "messages": [{"string": s, "severity": sev} for sev, s in messages]}}
    if device:
        d["device"] = {"name": "/dev/sdb", "info_name": "/dev/sdb [SAT]", "type": "sat",
                       "protocol": "ATA"}
    return json.dumps(d)


def test_standby_is_asleep_not_an_error() -> None:
    # the shape smartctl 7.3 writes for -n standby (smart-facts.md §2.2, ataprint.cpp jinf)
    text = _envelope(2, [("information", "Device is in STANDBY mode, exit(2)")], True)
    r = parse_smartctl(text)
    assert r.unread is Unread.ASLEEP and r.device == "/dev/sdb"
    assert "asleep" in r.unread.words
    scsi = _envelope(2, [("information", "Device is in STANDBY BY COMMAND mode, exit(2)")],
                     True)
    assert parse_smartctl(scsi).unread is Unread.ASLEEP


def test_virtio_and_permission_denied() -> None:
    virtio = _envelope(1, [("error", "/dev/vda: Unable to detect device type")], False)
    assert parse_smartctl(virtio, "/dev/vda").unread is Unread.NO_SMART
    assert parse_smartctl(virtio).device == "/dev/vda"
    denied = _envelope(2, [("error", "Smartctl open device: /dev/sda failed: "
                                     "Permission denied")], False)
    assert parse_smartctl(denied).unread is Unread.NOT_ROOT


def test_damaged_attribute_row_keeps_the_others() -> None:
    d = json.loads(read("scrutiny-smart-fail2.json"))
    rows = d["ata_smart_attributes"]["table"]
    rows[0]["raw"] = "lots"  # damaged
    rows[1]["id"] = 9999  # impossible id
    rows.append(["not", "a", "row"])
    r = parse_smartctl(json.dumps(d))
    assert len(r.damaged) == 3 and all(x.startswith("attribute row") for x in r.damaged)
    assert r.attr(5) is not None and r.attr(197) is not None
    assert len(r.attributes) == len(rows) - 3


def test_big_nvme_counters_exact() -> None:
    d = json.loads(read("scrutiny-smart-nvme.json"))
    big = 2**100 + 7
    d["nvme_smart_health_information_log"]["media_errors"] = big
    r = parse_smartctl(json.dumps(d))
    assert r.nvme is not None and r.nvme.media_errors == big


def test_hostile_strings_are_kept_raw_and_cut() -> None:
    d = json.loads(read("scrutiny-smart-nvme.json"))
    d["model_name"] = "\x1b]52;c;AAAA\x07evil" + "x" * 5000
    r = parse_smartctl(json.dumps(d))
    assert r.model is not None and r.model.startswith("\x1b]52") and len(r.model) == 512


@pytest.mark.parametrize("text", ["", "nonsense", "[]", "{}", '{"device": 3}', "1e999999",
                                  "[" * 100000, '{"smartctl": {"exit_status": "x"}}'])
def test_not_smartctl_json(text: str) -> None:
    try:
        r = parse_smartctl(text)
    except ParseError:
        return
    assert not r.read  # an envelope without data is "not read", never a crash


@settings(max_examples=60, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda c: st.lists(c, max_size=4) | st.dictionaries(
                        st.sampled_from(["device", "smartctl", "ata_smart_attributes",
                                         "table", "raw", "value", "id", "protocol",
                                         "nvme_smart_health_information_log", "temperature",
                                         "scsi_self_test_0", "exit_status", "messages"]),
                        c, max_size=5), max_leaves=30))
def test_any_json_gives_a_model_or_parse_error(doc: object) -> None:
    try:
        parse_smartctl(json.dumps(doc))
    except ParseError:
        pass


def test_cli_parse_smartctl(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "zconsole", "parse", "smartctl",
                          str(DIR / "scrutiny-smart-fail2.json")], capture_output=True,
                         text=True, check=True).stdout
    assert "health: FAILED" in out and "CRITICAL" in out and "8 pending sectors" in out
    as_json = subprocess.run([sys.executable, "-m", "zconsole", "parse", "smartctl", "--json",
                              str(DIR / "sce-SEAGATE_ST373453LC_26.json")],
                             capture_output=True, text=True, check=True).stdout
    assert json.loads(as_json)["scsi"]["grown_defects"] == 260


def test_parse_json_gives_each_attribute_by_name() -> None:
    """An attribute row (a NamedTuple, made by the thousand in a poll) is an object with its
    fields in `parse --json`, as every other record is, never a bare list."""
    as_json = subprocess.run([sys.executable, "-m", "zconsole", "parse", "smartctl", "--json",
                              str(DIR / "scrutiny-smart-fail2.json")],
                             capture_output=True, text=True, check=True).stdout
    attrs = {a["id"]: a for a in json.loads(as_json)["attributes"]}
    assert attrs[197]["name"] == "Current_Pending_Sector" and attrs[197]["raw"] == 8
    assert set(attrs[197]) == {"id", "name", "raw", "raw_string", "value", "worst", "thresh",
                               "when_failed", "prefailure"}


def test_nvme_74_self_test_log_and_progress() -> None:
    # smartctl 7.4's nvme_self_test_log (SM74 nvmeprint.cpp print_self_test_log): no public
    # fixture with a licence; the keys as the source writes them
    d = json.loads(read("scrutiny-smart-nvme.json"))
    d["nvme_self_test_log"] = {
        "current_self_test_operation": {"value": 2, "string": "Extended self-test"},
        "current_self_test_completion_percent": 37,
        "table": [{"self_test_code": {"value": 1, "string": "Short"},
                   "self_test_result": {"value": 7, "string": "Completed: failed segments"},
                   "power_on_hours": 2400, "segment": 2, "lba": 4096},
                  {"self_test_code": {"value": 1, "string": "Short"},
                   "self_test_result": {"value": 0, "string": "Completed without error"},
                   "power_on_hours": 2300},
                  {"self_test_code": "broken"}]}
    r = parse_smartctl(json.dumps(d))
    assert r.running is not None and (r.running.kind, r.running.percent_done) == (
        "extended", 37)
    assert [(t.kind, t.passed, t.hours) for t in r.self_tests] == [
        ("short", False, 2400), ("short", True, 2300)]
    assert r.damaged == ("NVMe self-test log entry 3",)


def test_scsi_self_test_keys() -> None:
    # smartctl 7.3 writes scsi_self_test_0..19 as separate keys (scsiprint.cpp)
    d = json.loads(read("sce-SEAGATE_ST373453LC_26.json"))
    d["scsi_self_test_0"] = {"code": {"value": 1, "string": "Background short"},
                             "result": {"value": 15, "string": "Self test in progress ..."},
                             "self_test_in_progress": True}
    d["scsi_self_test_1"] = {"code": {"value": 2, "string": "Background long"},
                             "result": {"value": 5, "string": "Failed in first segment"},
                             "power_on_time": {"hours": 102000}, "lba_first_failure": 77}
    r = parse_smartctl(json.dumps(d))
    assert r.running is not None and r.running.percent_done is None
    failed = r.newest_test("extended")
    assert failed is not None and (failed.passed, failed.hours, failed.lba) == (
        False, 102000, 77)


def test_usb_bridge_that_hides_smart_is_no_smart() -> None:
    # smartctl's os_linux.cpp: "Unknown USB bridge [0x%04x:0x%04x (0x%03x)]", exit 1
    text = _envelope(1, [("error", "/dev/sdc: Unknown USB bridge [0x152d:0x0578 (0x214)]"),
                         ("error", "Please specify device type with the -d option.")], False)
    r = parse_smartctl(text, "/dev/sdc")
    assert r.unread is Unread.NO_SMART and "USB bridge" in r.unread_detail


# Real captures from this project's QEMU test guests (tools/testvm, issue 30; SOURCES.md)


def test_qemu_guest_ata_disk_after_a_short_self_test() -> None:
    from zconsole.services.health.smart import judge_smart

    r = parse_smartctl(read("testvm-qemu-ata-sda-after-short-test.json"))
    assert (r.protocol, r.device, r.exit_status, r.version) == (Protocol.ATA, "/dev/sda", 0,
                                                                 (7, 3))
    assert (r.model, r.serial, r.rotation_rate, r.passed) == (
        "QEMU SMART HDD", "zfsvm-sata0", 7200, True)
    assert [a.id for a in r.attributes] == [1, 3, 4, 5, 9, 12, 190]
    assert counters(r) == {"ata-5": 0}
    # 190's raw value is packed (522125343): the temperature is smartctl's decoded one
    airflow = r.attr(190)
    assert airflow is not None and airflow.raw == 522125343
    assert r.temperature is not None and r.temperature.current == 31
    assert [(t.kind, t.status, t.passed, t.hours) for t in r.self_tests] == [
        ("short", "Completed without error", True, 4660)]
    assert r.running is None and judge_smart(r, disk="sda") == ()


def test_qemu_guest_nvme_healthy_and_with_a_critical_warning() -> None:
    from zconsole.model.finding import Severity
    from zconsole.services.health.smart import judge_smart

    r = parse_smartctl(read("testvm-qemu-nvme0.json"))
    assert (r.protocol, r.device, r.exit_status, r.passed) == (Protocol.NVME, "/dev/nvme0", 0,
                                                               True)
    assert r.nvme is not None and (r.nvme.critical_warning, r.nvme.temperature) == (0, 50)
    # QEMU leaves the spare and its threshold at 0: equal is not "below its threshold"
    assert (r.nvme.available_spare, r.nvme.available_spare_threshold) == (0, 0)
    assert judge_smart(r, disk="nvme0n1") == ()

    w = parse_smartctl(read("testvm-qemu-nvme0-critical-warning-4.json"))
    assert (w.exit_status, w.passed) == (8, False)
    assert w.nvme is not None and w.nvme.critical_warning == 4
    found = judge_smart(w, disk="nvme0n1")
    assert [(f.kind, f.severity) for f in found] == [("smart-nvme-critical", Severity.CRITICAL)]
    assert "NVM subsystem reliability degraded" in found[0].message


def test_qemu_guest_virtio_disk_is_no_smart() -> None:
    r = parse_smartctl(read("testvm-qemu-virtio-vdb.json"), "/dev/vdb")
    assert (r.unread, r.device, r.exit_status) == (Unread.NO_SMART, "/dev/vdb", 1)
    assert "Unable to detect device type" in r.unread_detail
