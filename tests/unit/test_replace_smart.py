"""Issue 30 in the replace plans (services/ops/zfs/new_disk_smart.py): the new disk's SMART
as a plan-time check (each reason, the cases without SMART), read again right before the
write, and the failing disk's SMART as the plan's evidence; on the showcase demo, whose
shelf disk sdm has 8 pending and 16 reallocated sectors and whose sdb is dying. The wizards'
lists of new disks mark a disk whose SMART the console read as failing (`choice_mark`)."""

from __future__ import annotations

import dataclasses

import pytest

from tests.fakes import DelegatingHost
from tests.smart_readings import ata, nvme
from zconsole.hosts.base import HostError
from zconsole.hosts.demo import DemoHost
from zconsole.model.plan import CheckLevel, Plan, Predicate
from zconsole.model.smart import SelfTest, SmartAttr, SmartReading, Unread
from zconsole.services.health.smart import judge_smart
from zconsole.services.health.smart_words import choice_mark
from zconsole.services.ops.engine.predicates import evaluate
from zconsole.services.ops.zfs import new_disk_smart as nds
from zconsole.services.ops.zfs import replace_failed as rf
from zconsole.services.ops.zfs.common import read_inputs, ref
from zconsole.services.ops.zfs.guards import HEALTHY_TARGET
from zconsole.services.read.collect import collect
from zconsole.ui.wizards import choices as ch
from zconsole.ui.wizards import disks as dk

T0 = 1795302000.0
DYING = "ata-HGST_HUS724040ALE640_PN2334PBJ4K7XT"  # sdb in tank mirror-0
BAD = "sdm"  # the shelf disk: 8 pending, 16 reallocated sectors
GOOD = "sdh"
SHELF_SERIAL = "VK2GHJ3K"


def check_of(r: SmartReading | None, error: str = "") -> tuple[CheckLevel, bool, str]:
    c = nds.smart_check(nds.SmartLook("sdx", r, error), "ata-NEW_X (sdx now)")
    assert c.name == nds.SMART
    return c.level, c.passed, c.detail


FAILED_SELF_TEST = SelfTest("extended", "Completed: read failure", False, 900, 123456)

WARNS = [
    ("pending", ata((197, 8)), "8 pending sectors"),
    ("reallocated", ata((5, 16)), "16 reallocated sectors"),
    ("offline uncorrectable", ata((198, 2)), "2 offline uncorrectable sectors"),
    ("reported uncorrectable", ata((187, 1)), "1 reported uncorrectable error"),
    ("failed self-test", ata((5, 0), self_tests=(FAILED_SELF_TEST,)),
     "extended self-test failed (Completed: read failure)"),
    ("NVMe media errors", nvme(media_errors=7), "7 media errors"),
    ("NVMe spare below threshold", nvme(available_spare=5, critical_warning=0x01),
     "available spare below its threshold"),
]


BLOCKS = [
    ("overall FAILED", ata((5, 0), passed=False), "its own health check says FAILED"),
    ("prefail attribute failing now",
     dataclasses.replace(ata(), attributes=(SmartAttr(5, "Reallocated_Sector_Ct", 1900,
                                                      value=3, worst=3, thresh=5,
                                                      prefailure=True),)),
     "a prefail attribute is at or below its threshold"),
    ("NVMe reliability degraded", nvme(critical_warning=0x04),
     "NVM subsystem reliability degraded"),
    ("NVMe read-only media", nvme(critical_warning=0x08), "media placed in read-only mode"),
]
# What the check adds to a reason, by its level: a WARN the operator may acknowledge; a BLOCK,
# a disk that says it is failing, is never used.
VERDICTS = {CheckLevel.WARN: "A new disk should have none",
            CheckLevel.BLOCK: "-f cannot override a disk's health"}
REASONS = [(*w, CheckLevel.WARN) for w in WARNS] + [(*b, CheckLevel.BLOCK) for b in BLOCKS]


@pytest.mark.parametrize(("name", "reading", "said", "level"), REASONS,
                         ids=[r[0] for r in REASONS])
def test_each_reason_gives_its_level_with_its_figure(name: str, reading: SmartReading,
                                                     said: str, level: CheckLevel) -> None:
    got, ok, detail = check_of(reading)
    assert (got, ok) == (level, False)
    assert said in detail and VERDICTS[level] in detail


@pytest.mark.parametrize(("reading", "error", "said"), [
    (SmartReading("/dev/vdb", unread=Unread.NO_SMART, unread_detail="a virtio disk"),
     "", "no SMART (a virtio disk)"),
    (SmartReading("/dev/sdx", unread=Unread.ASLEEP), "", "asleep, not read"),
    (SmartReading("/dev/sdx", unread=Unread.MISSING), "", "smartctl is not installed"),
    (SmartReading("/dev/sdx", unread=Unread.NOT_ROOT), "", "SMART needs root"),
    (None, "timed out after 20 s", "could not be read (timed out after 20 s)"),
])
def test_no_smart_is_a_note_never_a_block(reading: SmartReading | None, error: str,
                                          said: str) -> None:
    level, ok, detail = check_of(reading, error)
    assert (level, ok) == (CheckLevel.INFO, False)
    assert said in detail and "could not check the disk's own health" in detail


def test_a_clean_disk_passes_and_crc_errors_are_only_a_note() -> None:
    assert check_of(ata((5, 0), (197, 0), (199, 0)))[:2] == (CheckLevel.INFO, True)
    level, ok, detail = check_of(ata((5, 0), (199, 312)))
    assert (level, ok) == (CheckLevel.INFO, False)
    assert "312 UDMA CRC errors (the link, not the disk)" in detail


# ------------------------------------------------------------------ on the showcase demo


def showcase() -> DemoHost:
    return DemoHost("showcase", "2.3", clock=lambda: T0)


def plan_with(h: DemoHost, disk: str, **answers: str) -> Plan:
    return rf.plan_wizard(h, {"old": ref("tank", DYING), "bay": "free", "disk": disk,
                              "after": "scrub", **answers}, False)


def fit_of(plan: Plan) -> Predicate:
    return next(p for s in plan.steps for p in s.prechecks if p.kind == "new_disk_still_fit")


def test_the_bad_shelf_disk_is_warned_about_and_sdbs_smart_is_the_evidence() -> None:
    plan = plan_with(showcase(), BAD)
    by_name = {c.name: c for c in plan.checks}
    smart = by_name[nds.SMART]
    assert (smart.level, smart.passed) == (CheckLevel.WARN, False)
    assert "8 pending sectors; 16 reallocated sectors; SMART overall PASSED" in smart.detail
    assert not plan.blocked
    target = by_name[HEALTHY_TARGET]  # read at plan time: sdb is failing by its SMART
    assert target.passed and "is failing by its own SMART" in target.detail
    assert "48 pending sectors" in target.detail
    assert [c.name for c in plan.checks][:2] == [HEALTHY_TARGET, nds.SMART]


def test_the_consoles_words_for_the_old_disk_are_used_as_given() -> None:
    plan = plan_with(showcase(), GOOD, smart_old="48 pending sectors (up from 8 in 2 h)",
                     smart_old_failing="no")
    ev = next(c for c in plan.checks if c.name == nds.SMART_EVIDENCE)
    assert ev.detail == "SMART of sdb: 48 pending sectors (up from 8 in 2 h)."
    assert (ev.level, ev.passed) == (CheckLevel.INFO, False)  # a NOTE, never blocking
    assert next(c for c in plan.checks if c.name == nds.SMART).passed


def test_the_write_stops_when_the_new_disks_smart_got_worse_since_the_preview() -> None:
    h = showcase()
    fit = fit_of(plan_with(h, BAD))
    ok, said = evaluate(h, fit)
    assert ok, said  # as acknowledged in the preview
    assert "its SMART is no worse than in the preview" in said
    h.machine.smart[SHELF_SERIAL].pending = 9  # one more pending sector since
    ok, said = evaluate(h, fit)
    assert not ok
    assert "SMART changed since the preview" in said and "9 pending sectors" in said
    h.machine.smart[SHELF_SERIAL].pending = 8
    h.machine.smart[SHELF_SERIAL].passed = False  # and now the drive says FAILED
    ok, said = evaluate(h, fit)
    assert not ok and "its own health check says FAILED" in said


def test_a_clean_disk_that_gets_pending_sectors_before_the_write_is_stopped() -> None:
    h = showcase()
    fit = fit_of(plan_with(h, GOOD))
    assert dict(fit.params)["smart_seen"] == ""
    assert evaluate(h, fit)[0]
    serial = "VK1ABCDE"
    h.machine.smart[serial].pending = 2
    ok, said = evaluate(h, fit)
    assert not ok and "2 pending sectors" in said


def test_a_plan_time_read_that_fails_is_a_note_and_the_plan_goes_on() -> None:
    class Broken(DelegatingHost):
        def run(self, argv, **kw):  # type: ignore[no-untyped-def,override]
            if argv and argv[0] == "smartctl":
                raise HostError("smartctl timed out after 20 s")
            return super().run(argv, **kw)

    h = Broken(showcase())
    plan = rf.plan_wizard(h, {"old": ref("tank", DYING), "bay": "free", "disk": BAD,
                              "after": "scrub"}, False)
    smart = next(c for c in plan.checks if c.name == nds.SMART)
    assert (smart.level, smart.passed) == (CheckLevel.INFO, False)
    assert "could not be read (smartctl timed out after 20 s)" in smart.detail
    assert not plan.blocked
    ev = next(c for c in plan.checks if c.name == nds.SMART_EVIDENCE)
    assert "could not be read" in ev.detail


def test_the_spare_is_not_read_and_its_plan_has_no_smart_check() -> None:
    h = showcase()
    inputs = read_inputs(h, "tank")
    plan = rf.build_replace_failed(inputs.reading, "tank", DYING, bay="spare",
                                   new="ata-HGST_HUS724040ALE640_PN2334PBJ7F5ZT",
                                   props=inputs.props)
    assert nds.SMART not in {c.name for c in plan.checks}


def test_zconsole_plan_replace_failed_prints_the_same_check_lines(
        capsys: pytest.CaptureFixture[str]) -> None:
    from zconsole.cli.main import main

    rc = main(["--demo", "showcase", "plan", "replace-failed", "tank", DYING, BAD,
               "--dry-run"])
    out = capsys.readouterr().out
    assert rc == 0
    assert ("  ✓ ok      healthy-target: ata-HGST_HUS724040ALE640_PN2334PBJ4K7XT is failing by "
            "its own SMART, though ZFS counts no error yet: 48 pending sectors; 24 reallocated "
            "sectors; 8 offline uncorrectable sectors; extended self-test failed (Completed: "
            "read failure); SMART overall PASSED.\n") in out
    assert ("  ! WARN    smart: SMART of ata-WDC_WD80EFZX-68UW8N0_VK2GHJ3K (sdm now): 8 pending "
            "sectors; 16 reallocated sectors; SMART overall PASSED. A new disk should have "
            "none") in out
    assert "its SMART no worse than in the preview" in out
    assert "READY after acknowledging" in out


def test_the_demo_smartctl_answers_for_the_shelf_disk_as_smartctl_would() -> None:
    from zconsole.parsers.smartctl import parse_smartctl
    from zconsole.services.read.smart import smartctl_argv

    h = showcase()
    r = h.run(list(smartctl_argv(f"/dev/{BAD}")), check=False)
    reading = parse_smartctl(r.stdout)
    assert reading.serial == SHELF_SERIAL and reading.damaged == ()
    assert r.returncode == reading.exit_status == 64  # its error log has the read errors
    assert (reading.attr(197).raw, reading.attr(5).raw) == (8, 16)  # type: ignore[union-attr]
    assert reading.passed is True and reading.error_log_count == 2


def test_the_consoles_reading_is_the_evidence_with_its_history() -> None:
    from zconsole.model.smart import CounterTrack
    from zconsole.services.read.smart import DiskSmart

    grew = CounterTrack("ata-197", first=8, first_seen=T0 - 7200, last=48, grew_at=T0)
    st = DiskSmart("sdb", None, reading=ata((197, 48), (5, 24)), read_at=T0, tried_at=T0,
                   tracks={"ata-197": grew})
    assert nds.state_words(st, T0 + 120) == (
        "48 pending sectors (up from 8 in 2 h 2 min); 24 reallocated sectors; SMART overall "
        "PASSED (read 2 min ago)", True)
    asleep = DiskSmart("sdg", None, unread=SmartReading("/dev/sdg", unread=Unread.ASLEEP),
                       tried_at=T0)
    assert nds.state_words(asleep, T0) == (
        "asleep, not read (smartctl -n standby does not wake a disk)", False)
    assert nds.state_words(None, T0) is None  # not tried yet: the plan reads it itself
    assert nds.state_words(DiskSmart("sdb", None), T0) is None


# ------------------------------------------------------- the wizards' list of new disks

MARKS = {
    "pending": "8 pending sectors", "reallocated": "16 reallocated sectors",
    "offline uncorrectable": "2 offline uncorrectable sectors",
    "reported uncorrectable": "1 reported uncorrectable error",
    "failed self-test": "extended self-test failed", "NVMe media errors": "7 media errors",
    "NVMe spare below threshold": "spare below its threshold",
    "overall FAILED": "overall FAILED",
    "prefail attribute failing now": "a prefail attribute at its threshold, 1,900 "
                                     "reallocated sectors",
    "NVMe reliability degraded": "critical warning", "NVMe read-only media": "critical warning",
}


@pytest.mark.parametrize(("name", "reading"), [(r[0], r[1]) for r in REASONS],
                         ids=[r[0] for r in REASONS])
def test_each_failing_reason_is_a_short_mark_for_the_disk_list(
        name: str, reading: SmartReading) -> None:
    """Every reason the plan warns or blocks on is said in the row, in smart_words' words."""
    found = judge_smart(reading, disk="sdx")
    assert choice_mark(reading, found) == f"SMART: {MARKS[name]}"


def test_no_mark_without_a_reading_or_for_what_is_not_the_disk() -> None:
    assert choice_mark(None, ()) == ""
    asleep = SmartReading("/dev/sdx", unread=Unread.ASLEEP)
    assert choice_mark(asleep, ()) == ""
    for fine in (ata((5, 0), (197, 0)), ata((199, 312)), nvme(temperature=80),
                 nvme(percentage_used=95)):
        found = judge_smart(fine, disk="sdx")
        expected = "SMART: 95 % worn" if fine.nvme and fine.nvme.percentage_used == 95 else ""
        assert choice_mark(fine, found) == expected  # CRC and heat: the link and the room


def test_the_new_disk_list_marks_the_disk_the_console_read_as_failing() -> None:
    """The wizard's rows (ui/wizards/disks.py) with the console's marks: the shelf disk sdm
    says it, after the healthy sdh (a warning ranks it so); with no marks, as before."""
    reading = collect(showcase())
    marks = {BAD: "SMART: 8 pending sectors"}
    asked: list[str] = []

    def smart(disk: str) -> str:
        asked.append(disk)
        return marks.get(disk, "")

    rows = dk.new_disk_choices(reading, at_least=None, pool="tank", target=DYING,
                               replacing=True, smart=smart)
    by = {c.value: c for c in rows}
    assert by[BAD].detail.endswith(" · ▲ SMART: 8 pending sectors")
    assert "SMART" not in by[GOOD].detail
    order = [c.value for c in rows]
    assert order.index(GOOD) < order.index(BAD)
    plain_rows = dk.new_disk_choices(reading, at_least=None, pool="tank", target=DYING,
                                     replacing=True)
    assert all("SMART" not in c.detail for c in plain_rows)
    assert len(asked) == len(set(asked))  # one mark per disk, asked of the session
    # a hot spare says it too (tank's spare: sdg)
    spare = ch.avail_spare_choices(reading, "tank", lambda d: "SMART: overall FAILED"
                                   if d == "sdg" else "")
    assert [c.detail for c in spare] == ["AVAIL hot spare · ▲ SMART: overall FAILED"]
    assert [c.detail for c in ch.avail_spare_choices(reading, "tank")] == ["AVAIL hot spare"]
