"""SMART judged as an admin reads it (services/health/smart.py): table-driven over readings
built from real fixtures and from the model, including "growing" across two readings."""

from __future__ import annotations

import pytest

from tests.paths import parser_text
from tests.smart_readings import ata, nvme, scsi
from zconsole.model.finding import Severity
from zconsole.model.smart import (
    CounterTrack,
    Protocol,
    SelfTest,
    SmartAttr,
    SmartReading,
    Temperature,
    Unread,
)
from zconsole.parsers.smartctl import parse_smartctl
from zconsole.services.health.smart import DEFAULT_LIMIT_HDD, judge_smart

C, W = Severity.CRITICAL, Severity.WARNING


def fixture(name: str) -> SmartReading:
    return parse_smartctl(parser_text("smartctl", name))


def kinds(r: SmartReading, **kw: object) -> list[tuple[str, Severity]]:
    return [(f.kind, f.severity) for f in judge_smart(r, disk="sda", **kw)]  # type: ignore[arg-type]


CASES: list[tuple[str, SmartReading, list[tuple[str, Severity]]]] = [
    ("healthy ATA", ata((5, 0), (197, 0), (199, 0)), []),
    ("FAILED", ata((5, 0), passed=False), [("smart-failed", C)]),
    ("reallocated", ata((5, 8)), [("smart-counters", W)]),
    ("reported uncorrectable", ata((187, 1)), [("smart-counters", W)]),
    ("command timeout", ata((188, 3)), [("smart-counters", W)]),
    ("pending", ata((197, 48)), [("smart-counters", W)]),
    ("offline uncorrectable", ata((198, 2)), [("smart-counters", W)]),
    ("CRC only", ata((199, 24)), [("smart-crc", W)]),
    ("power-on hours are no finding", ata((9, 50000)), []),
    ("hot HDD over the default", ata(temperature=Temperature(current=DEFAULT_LIMIT_HDD)),
     [("smart-temperature", W)]),
    ("warm HDD under its own limit", ata(temperature=Temperature(current=58, limit=65)), []),
    ("over the drive's own limit", ata(temperature=Temperature(current=66, limit=65)),
     [("smart-temperature", W)]),
    ("at the critical limit", ata(temperature=Temperature(current=80, limit=70, critical=80)),
     [("smart-temperature", C)]),
    ("failed short test", ata(self_tests=(SelfTest("short", "Completed: read failure", False,
                                                   100, 1234),)),
     [("smart-self-test", W)]),
    ("old failure outdated by a newer pass", ata(self_tests=(
        SelfTest("short", "Completed without error", True, 200),
        SelfTest("short", "Completed: read failure", False, 100, 1234))), []),
    ("aborted test is no failure", ata(self_tests=(SelfTest("short", "Aborted by host", None,
                                                            1),)), []),
    ("NVMe healthy", nvme(), []),
    ("NVMe media errors", nvme(media_errors=3), [("smart-counters", W)]),
    ("NVMe wear 90", nvme(percentage_used=90), [("smart-wear", W)]),
    ("NVMe wear 89", nvme(percentage_used=89), []),
    ("NVMe spare below threshold", nvme(available_spare=5), [("smart-wear", W)]),
    ("QEMU NVMe spare 0 = threshold 0", nvme(available_spare=0, available_spare_threshold=0),
     []),
    ("NVMe reliability degraded", nvme(critical_warning=0x04), [("smart-nvme-critical", C)]),
    ("NVMe read only", nvme(critical_warning=0x08), [("smart-nvme-critical", C)]),
    ("NVMe temperature bit is heat, not failure", nvme(critical_warning=0x02),
     [("smart-temperature", W)]),
    ("NVMe hot", nvme(temperature=75), [("smart-temperature", W)]),
    ("SCSI grown defects", scsi(grown_defects=5),
     [("smart-counters", W)]),
    ("SCSI endurance", scsi(endurance_used=95), [("smart-wear", W)]),
    ("asleep: nothing judged", SmartReading(device="/dev/sdb", unread=Unread.ASLEEP), []),
    ("no SMART: nothing judged", SmartReading(device="/dev/vda", unread=Unread.NO_SMART), []),
]


@pytest.mark.parametrize(("reading", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_table(reading: SmartReading, expected: list[tuple[str, Severity]]) -> None:
    assert kinds(reading) == expected


FIXTURES = [
    ("scrutiny-smart-fail2.json", [("smart-failed", C), ("smart-counters", W),
                                   ("smart-self-test", W)]),
    ("sce-HGST_HUS724020ALE640_28.json", [("smart-crc", W)]),
    ("sce-ST3500418AS_12.json", [("smart-counters", W)]),
    ("sce-sat-Micron_5100_Pro___52x0___5300_SSDs-Micron_5300_MTFDDAK1T9TDS-sda.json",
     [("smart-counters", W), ("smart-crc", W)]),
    ("sce-nvme-null-SAMSUNG_MZWLL3T2HAJQ-00005-nvme0.json", [("smart-nvme-critical", C)]),
    ("sce-nvme-null-INTEL_SSDPE2KX020T7-nvme6.json", []),  # 75 % used: not yet
    ("scrutiny-smart-nvme-failed.json", [("smart-counters", W)]),
    ("sce-SEAGATE_ST373453LC_26.json", [("smart-counters", W)]),
    ("scrutiny-smart-scsi.json", [("smart-counters", W)]),
    ("scrutiny-smart-nvme.json", []),
    ("scrutiny-smart-ata.json", []),
    ("scrutiny-smart-ata-full.json", []),
]


@pytest.mark.parametrize(("name", "expected"), FIXTURES)
def test_real_outputs(name: str, expected: list[tuple[str, Severity]]) -> None:
    assert kinds(fixture(name)) == expected


def test_sentence_names_disk_and_numbers() -> None:
    (f,) = judge_smart(ata((197, 48), (5, 1)), disk="sdb",
                       by_id="ata-HGST_HUS724040ALE640_PN2334PBJ4K7XT", pool="tank")
    assert f.subject == "sdb" and f.pool == "tank"
    assert f.message.startswith("sdb (ata-HGST_HUS724040ALE640_PN2334PBJ4K7XT) has ")
    assert "1 reallocated sector:" in f.message and "48 pending sectors" in f.message


def test_crc_says_cable_not_disk() -> None:
    (f,) = judge_smart(ata((199, 24)), disk="sdc")
    assert "cable or backplane" in f.message and "not the disk" in f.message


def test_growing_across_two_readings_says_since_when() -> None:
    first_seen, now = 1_000_000.0, 1_000_000.0 + 3 * 3600
    track = CounterTrack("ata-197", first=12, first_seen=first_seen, last=48,
                         grew_at=now - 600)
    (f,) = judge_smart(ata((197, 48)), disk="sdb", tracks={"ata-197": track}, now=now)
    assert "48 pending sectors, up from 12 when first seen 3 h 0 min ago" in f.message
    assert "last rise found 10 min ago" in f.evidence[0]
    steady = CounterTrack("ata-197", first=48, first_seen=first_seen, last=48)
    (g,) = judge_smart(ata((197, 48)), disk="sdb", tracks={"ata-197": steady}, now=now)
    assert "unchanged since first seen 48 3 h 0 min ago" in g.evidence[0]
    assert "unchanged" not in g.message


def test_nvme_names_each_critical_bit() -> None:
    (f,) = judge_smart(nvme(critical_warning=0x0C), disk="nvme0n1")
    assert "reliability degraded" in f.message and "read-only" in f.message


def test_prefail_attribute_failing_now_is_critical_even_if_passed() -> None:
    bad = SmartAttr(id=5, name="Reallocated_Sector_Ct", raw=3000, value=3, worst=3, thresh=5,
                    prefailure=True)
    r = SmartReading(device="/dev/sda", protocol=Protocol.ATA, passed=True, attributes=(bad,))
    found = judge_smart(r, disk="sda")
    assert found[0].kind == "smart-failed" and found[0].severity is C
    assert "Reallocated_Sector_Ct 3 <= 5" in found[0].evidence[-1]


@pytest.mark.parametrize(("reading", "word"), [
    (nvme(percentage_used=93), "93 % worn"),
    # the finding is the spare, not the wear: it was called "1 % worn" on Disks
    (nvme(percentage_used=1, available_spare=5, available_spare_threshold=10), "spare low"),
    (nvme(percentage_used=95, available_spare=5, available_spare_threshold=10),
     "95 % worn, spare low"),
])
def test_the_wear_word_names_what_the_finding_is_for(reading: SmartReading, word: str) -> None:
    from zconsole.services.health.smart_words import finding_word

    (f,) = judge_smart(reading, disk="nvme0n1")
    assert f.kind == "smart-wear", f
    assert finding_word(f, reading) == word
