"""The new disk's media class, rotation rate and size against the vdev's members (issue 26,
item 2): the showcase's attach of sdi (a 3 TB HDD) to the NVMe mirror `fast mirror-0` said
nothing, although the advisor flags that mix later. Every disk-choosing plan (attach,
replace, replace-grow, raidz expansion) and the wizard's disk list now warn, with the
advisor's own rule and reason."""

from __future__ import annotations

from pathlib import Path

from tests.unit.test_guards import with_disk
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.replay import ReplayHost
from zconsole.model.plan import Check, CheckLevel
from zconsole.model.reading import HostReading
from zconsole.parsers.blockdev import disk_from_udev
from zconsole.services.health.advice.layout import MIXED_MEDIA_WHY
from zconsole.services.ops.zfs import new_disk as N
from zconsole.services.ops.zfs.attach import build_attach
from zconsole.services.ops.zfs.common import read_inputs
from zconsole.services.ops.zfs.replace import build_replace
from zconsole.services.ops.zfs.replace_grow import build_replace_grow
from zconsole.services.read.collect import collect
from zconsole.ui.wizards import disks as ch

T0 = 1795302000.0
F0 = "nvme-WD_BLACK_SN770_1TB_22517D801234"
F1 = "nvme-WD_BLACK_SN770_1TB_22517D805678"
A0 = "ata-HGST_HUS724040ALE640_PN2334PBJ1A2BT"
RAIDZ = Path(__file__).resolve().parents[1] / "fixtures" / "capture" / "zfs-2.3.2"


def showcase() -> HostReading:
    return collect(DemoHost("showcase", "2.3", clock=lambda: T0))




def media(checks: tuple[Check, ...] | list[Check], suffix: str = "") -> Check:
    [c] = [c for c in checks if c.name == N.MEDIA + suffix]
    return c


def test_udev_rotation_rate_is_read() -> None:
    props = {"DEVTYPE": "disk", "ID_ATA_ROTATION_RATE_RPM": "5400"}
    assert disk_from_udev("sdx", props).rotation_rpm == 5400
    assert disk_from_udev("sdx", {**props, "ID_ATA_ROTATION_RATE_RPM": "0"}).rotation_rpm == 0
    assert disk_from_udev("sdx", {**props, "ID_ATA_ROTATION_RATE_RPM": "x"}).rotation_rpm is None
    assert disk_from_udev("sdx", {"DEVTYPE": "disk"}).rotation_rpm is None


def test_attach_of_a_spinning_disk_to_the_nvme_mirror_warns_with_the_advisors_reason() -> None:
    plan = build_attach(showcase(), "fast", "mirror-0", "sdi")
    c = media(plan.checks)
    assert (c.passed, c.level) == (False, CheckLevel.WARN)
    assert c.detail.startswith(
        "Mixed media (HDD beside NVMe): ata-ST3000VN007-2AH16M_ZDH1XY2Q (sdi now) is HDD, "
        "7200 rpm, 3.00 TB (2.7T); the members of mirror-0: 2 × NVMe, 1.00 TB (931.5G). ")
    assert MIXED_MEDIA_WHY in c.detail and "advice-mixed-media" in c.detail
    assert not plan.blocked  # acknowledged, not refused


def test_same_media_is_a_fact_not_a_warning() -> None:
    c = media(build_attach(showcase(), "tank", "mirror-0", "sdh").checks)
    assert (c.passed, c.level) == (True, CheckLevel.INFO)
    assert c.detail == (
        "Same kind of disk: ata-WDC_WD80EFZX-68UW8N0_VK1ABCDE (sdh now) is HDD, 7200 rpm, "
        "8.00 TB (7.3T); the members of mirror-0: 2 × HDD, 7200 rpm, 4.00 TB (3.6T).")


def test_a_slower_spinning_disk_warns() -> None:
    s = with_disk(showcase(), "sdh", rotation_rpm=5400)
    c = media(build_attach(s, "tank", "mirror-0", "sdh").checks)
    assert (c.passed, c.level) == (False, CheckLevel.WARN)
    assert c.detail.startswith("Slower disk (5400 rpm beside 7200 rpm): ")


def test_replace_compares_with_the_members_that_stay() -> None:
    plan = build_replace(showcase(), "fast", F1, "sdi")
    c = media(plan.checks)
    assert c.level is CheckLevel.WARN and not c.passed
    assert "the members of mirror-0: NVMe, 1.00 TB (931.5G)." in c.detail  # F0 only
    # an SSD replacing the only HDD of a mixed mirror ends the mix: no warning
    s = with_disk(showcase(), "sdi", rotational=False, rotation_rpm=0)
    inv = s.disks.value
    assert inv is not None
    [leaving] = [d.name for d in inv.whole_disks() if d.serial and d.serial in F1]
    mixed = with_disk(s, leaving, rotational=True)
    assert media(build_replace(mixed, "fast", F1, "sdi").checks).passed


def test_replace_grow_warns_for_each_member() -> None:
    plan = build_replace_grow(showcase(), "fast", "mirror-0", ["sdi", "sdh"])
    for i in (1, 2):
        c = media(plan.checks, f"#{i}")
        assert c.level is CheckLevel.WARN and not c.passed and "(HDD beside NVMe)" in c.detail


def test_raidz_expansion_warns_too() -> None:
    got = read_inputs(ReplayHost(str(RAIDZ / "raidz-expand-finished")), "tank")
    plan = build_attach(got.reading, "tank", "raidz1-0", "vdf", props=dict(got.props))
    assert media(plan.checks).passed  # virtio disks, all alike
    ssd = with_disk(got.reading, "vdf", rotational=False)
    c = media(build_attach(ssd, "tank", "raidz1-0", "vdf", props=dict(got.props)).checks)
    assert c.level is CheckLevel.WARN and c.detail.startswith("Mixed media (SSD beside HDD)")


def test_the_wizard_disk_list_names_the_mix() -> None:
    opts = {c.value: c for c in ch.new_disk_choices(showcase(), at_least=None, pool="fast",
                                                     target=F0)}
    assert opts["sdi"].enabled
    assert "▲ Mixed media (HDD beside NVMe)" in opts["sdi"].detail
    # beside the HDD mirror, the same disk is only the 512e warning
    tank = {c.value: c for c in ch.new_disk_choices(showcase(), at_least=None, pool="tank",
                                                     target=A0)}
    assert "Mixed media" not in tank["sdi"].detail


def test_a_smaller_disk_stays_refused() -> None:
    s = with_disk(showcase(), "sdi", size_bytes=500_000_000_000)
    plan = build_attach(s, "fast", "mirror-0", "sdi")
    assert plan.blocked and any(c.name == N.SIZE and c.blocking for c in plan.checks)
