"""The attach / raidz-expansion / grow wizards' disk stage (issue 26, items 3 and 8): the
question says what the disk becomes (a raidz expansion adds no copy), the copy counts come
from guards.holding, and a list where no disk can be chosen says so, with the reasons."""

from __future__ import annotations

from zconsole.hosts.demo import DemoHost
from zconsole.model.reading import HostReading
from zconsole.services.ops.zfs.common import ref
from zconsole.services.read.collect import collect
from zconsole.ui.wizards import disks as dk
from zconsole.ui.wizards.choices import Choice
from zconsole.ui.wizards.flows import AttachFlow, GrowFlow

T0 = 1795302000.0
F0 = "nvme-WD_BLACK_SN770_1TB_22517D801234"


def demo(scenario: str) -> HostReading:
    return collect(DemoHost(scenario, "2.3", clock=lambda: T0))


def test_big100_raidz_expansion_says_no_disk_can_be_added_and_why() -> None:
    stage = AttachFlow().next_stage(demo("big100"), {"target": ref("tank", "raidz2-0")})
    assert stage is not None and stage.key == "disk"
    assert stage.options and not any(c.enabled for c in stage.options)
    assert stage.question.startswith(
        "No disk can be added to raidz2-0 of tank: 102 disks are already in a pool (tank 100, "
        "fast 2); 1 is refused (nvme0n1: ")
    assert stage.question.endswith("Connect a new disk first; each row below says why it "
                                   "cannot be used.")


def test_raidz_expansion_asks_for_a_member_not_a_copy() -> None:
    question = dk.disk_question(demo("big100"), "tank", "raidz2-0")
    assert "copy" not in question.split("?")[0]
    assert question.startswith("Which disk widens raidz2-0 of tank by one member")
    assert question.endswith("A raidz expansion adds space, not a copy: the parity stays 2.")


def test_mirror_attach_counts_the_copies_zfs_will_hold() -> None:
    s = demo("showcase")
    stage = AttachFlow().next_stage(s, {"target": ref("fast", F0)})
    assert stage is not None
    assert stage.question == ("Which disk becomes one more copy in mirror-0 of fast (members: "
                              "1.00 TB (931.5G))? 1 copy complete now, 3 after.")
    targets = {c.value: c.label for c in dk.attach_targets(s)}
    assert targets[ref("fast", F0)] == "fast mirror-0: 1 copy → 3"  # was "2 copies → 3"


def test_a_single_disk_becomes_a_two_way_mirror() -> None:
    s = demo("showcase")
    cache = "nvme-Samsung_SSD_980_PRO_1TB_S5GXNF0R123456A"
    assert dk.disk_question(s, "tank", cache).endswith("It becomes a 2-way mirror (2 copies).")


def test_a_choosable_list_keeps_its_question() -> None:
    stage = GrowFlow().next_stage(demo("grow"), {"vdev": ref("tank", "mirror-0")})
    assert stage is not None and stage.question.startswith("Member 1 of 2: which larger disk")
    assert dk.no_disk_reason((), "x") is None
    assert dk.no_disk_reason((Choice("sdb", "sdb", "clean"),), "x") is None
    assert dk.no_disk_reason((Choice("sdb", "sdb", "✖ too small", enabled=False),), "m") == (
        "No disk can be added to m: 1 is refused (sdb: too small). Connect a new disk first; "
        "each row below says why it cannot be used.")
