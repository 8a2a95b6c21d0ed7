"""services.guards: every guard with a failing case (and the passing case beside it), on the
demo host's scenarios and on hand-edited snapshots of them."""

from __future__ import annotations

import dataclasses

import pytest

from zconsole.hosts.demo import DemoHost
from zconsole.model.disk import Disk
from zconsole.model.finding import Finding, Severity
from zconsole.model.plan import Check, CheckLevel
from zconsole.model.pool import Pool
from zconsole.model.reading import HostReading, Part
from zconsole.services.ops.zfs import guards as G
from zconsole.services.ops.zfs import new_disk as N
from zconsole.services.read.collect import collect

T0 = 1795302000.0
A0 = "ata-HGST_HUS724040ALE640_PN2334PBJ1A2BT"  # showcase tank mirror-0
A1 = "ata-HGST_HUS724040ALE640_PN2334PBJ4K7XT"  # showcase tank mirror-0, the slow one
B1 = "ata-HGST_HUS724040ALE640_PN2334PBJ2C8WT"  # showcase tank mirror-1
F0 = "nvme-WD_BLACK_SN770_1TB_22517D801234"  # showcase fast mirror-0, the good copy
F1 = "nvme-WD_BLACK_SN770_1TB_22517D805678"  # showcase fast mirror-0, being resilvered
D_OK = "ata-ST4000VN008-2DR166_ZGY8A1B2"  # degraded tank mirror-0, the only good copy
D_BAD = "ata-ST4000VN008-2DR166_ZGY8C3D4"  # degraded tank mirror-0, FAULTED
MEMBER_4T = 4000787030016 - 10 * (1 << 20)  # a 4 TB member's leaf: disk minus 10 MiB


def snap(scenario: str = "showcase", version: str = "2.3") -> HostReading:
    return collect(DemoHost(scenario, version, clock=lambda: T0))


def status_of(scenario: str = "showcase", version: str = "2.3", pool: str = "tank") -> Pool:
    """The `zpool status` of one pool of a demo scenario, as the guards read it."""
    status = snap(scenario, version).pool(pool).status
    assert status is not None
    return status


def by_name(checks: list[Check], name: str) -> Check:
    hits = [c for c in checks if c.name == name]
    assert len(hits) == 1, (name, checks)
    return hits[0]


def with_disk(s: HostReading, name: str, **changes: object) -> HostReading:
    """The snapshot with one inventory device changed (size, holders, mounts, links...)."""
    inv = s.disks.value
    assert inv is not None
    devices = tuple(dataclasses.replace(d, **changes) if d.name == name else d  # type: ignore[arg-type]
                    for d in inv.devices)
    return dataclasses.replace(s, disks=Part(inv._replace(devices=devices),
                                             s.disks.taken_at, s.disks.source))


def failing(checks: list[Check]) -> list[tuple[str, CheckLevel]]:
    return [(c.name, c.level) for c in checks if not c.passed]


# ---------------------------------------------------------------------------- clean disk


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_clean_large_disk_passes_everything_but_the_512e_warning(version: str) -> None:
    checks = N.check_new_disk(snap(version=version), "tank", A0, "sdh")
    assert failing(checks) == [(N.SECTOR, CheckLevel.WARN)]  # 4096-byte physical, ashift 9
    assert by_name(checks, N.NAMING).detail.startswith(
        "ata-WDC_WD80EFZX-68UW8N0_VK1ABCDE (sdh now) will be named "
        "/dev/disk/by-id/ata-WDC_WD80EFZX-68UW8N0_VK1ABCDE")
    size = by_name(checks, N.SIZE)
    assert size.passed and "8001552736256 bytes" in size.detail and "4000776544256" in size.detail
    assert "stays unused until every member of mirror-0 is that large" in size.detail


# --------------------------------------------------------------------------------- size


def test_size_smaller_disk_is_blocked() -> None:
    c = by_name(N.check_new_disk(snap(), "tank", A0, "sdi"), N.SIZE)
    assert (c.passed, c.level) == (False, CheckLevel.BLOCK)
    assert "3000582496256 bytes" in c.detail and "4000776544256 bytes" in c.detail
    assert "'device is too small'" in c.detail


def test_size_counts_the_10_mib_whole_disk_reserve() -> None:
    """A disk exactly member + 10 MiB passes; one byte-sector less is too small: "same size"
    disks of another model can fail this way."""
    s = snap()
    exact = N.check_new_disk(with_disk(s, "sdh", size_bytes=MEMBER_4T + 10 * (1 << 20)),
                             "tank", A0, "sdh")
    assert by_name(exact, N.SIZE).passed
    short = N.check_new_disk(with_disk(s, "sdh", size_bytes=MEMBER_4T + 10 * (1 << 20) - 512),
                             "tank", A0, "sdh")
    c = by_name(short, N.SIZE)
    assert (c.passed, c.level) == (False, CheckLevel.BLOCK)
    # the same number of bytes as the member disk itself is NOT enough
    same = N.check_new_disk(with_disk(s, "sdh", size_bytes=MEMBER_4T), "tank", A0, "sdh")
    assert not by_name(same, N.SIZE).passed


def test_size_unknown_is_blocked() -> None:
    c = by_name(N.check_new_disk(with_disk(snap(), "sdh", size_bytes=None), "tank", A0, "sdh"),
                N.SIZE)
    assert (c.passed, c.level) == (False, CheckLevel.BLOCK)


def test_size_falls_back_to_the_inventory_without_zpool_list() -> None:
    s = snap()
    s = dataclasses.replace(s, pool_usage=Part(None, T0, "zpool list", "timed out",
                                               "CommandTimedOut"))
    c = by_name(N.check_new_disk(s, "tank", A0, "sdi"), N.SIZE)
    assert not c.passed and "partition size" in c.detail


# ------------------------------------------------------------------------ clean, not in use


def test_mounted_disk_is_blocked() -> None:
    c = by_name(N.check_new_disk(snap(), "tank", A0, "sdk"), N.IN_USE)
    assert (c.passed, c.level) == (False, CheckLevel.BLOCK)
    assert "sdk1 is mounted at /srv/backup" in c.detail and "even with -f" in c.detail


def test_swap_and_system_disk_is_blocked() -> None:
    c = by_name(N.check_new_disk(snap(), "tank", A0, "nvme0n1"), N.IN_USE)
    assert not c.passed and c.level is CheckLevel.BLOCK
    assert "nvme0n1p3 is active swap" in c.detail and "mounted at /" in c.detail


@pytest.mark.parametrize("holder,kind,words", [("md0", "md", "an md RAID member (md0)"),
                                                ("dm-3", "dm", "under device-mapper (dm-3)")])
def test_md_and_dm_members_are_blocked(holder: str, kind: str, words: str) -> None:
    s = with_disk(snap(), "sdh", holders=(holder,))
    inv = s.disks.value
    assert inv is not None
    stacked = Disk(name=holder, devpath=f"/sys/class/block/{holder}", kind=kind)
    s = dataclasses.replace(s, disks=Part(inv._replace(
        devices=(*inv.devices, stacked)), T0))
    c = by_name(N.check_new_disk(s, "tank", A0, "sdh"), N.IN_USE)
    assert (c.passed, c.level) == (False, CheckLevel.BLOCK)
    assert words in c.detail


def test_member_of_an_imported_pool_is_blocked() -> None:
    checks = N.check_new_disk(snap(), "tank", A0, "sdc")
    c = by_name(checks, N.IN_POOL)
    assert (c.passed, c.level) == (False, CheckLevel.BLOCK)
    assert f"{B1.replace('2C8WT', '9M3QT')} in tank (mirror-1)" in c.detail
    # its own label is not reported as a foreign one
    assert not [x for x in checks if x.name == N.FOREIGN_LABEL]


def test_hot_spare_of_the_pool_is_blocked() -> None:
    c = by_name(N.check_new_disk(snap(), "tank", A0, "sdg"), N.IN_POOL)
    assert not c.passed and "spares" in c.detail


def test_label_of_an_exported_pool_needs_a_second_confirmation_and_f() -> None:
    c = by_name(N.check_new_disk(snap(), "tank", A0, "sdl"), N.FOREIGN_LABEL)
    assert (c.passed, c.level, c.force_flag) == (False, CheckLevel.CONFIRM, "-f")
    assert c.needs_force and not c.blocking
    assert "pool oldpool, which is not imported here" in c.detail


def test_unmounted_filesystem_needs_a_second_confirmation_and_f() -> None:
    s = snap()
    s = with_disk(s, "sdk1", mountpoints=())
    c = by_name(N.check_new_disk(s, "tank", A0, "sdk"), N.OLD_DATA)
    assert (c.passed, c.level, c.force_flag) == (False, CheckLevel.CONFIRM, "-f")
    assert "sdk1 holds a ext4 filesystem labelled 'backup', not mounted" in c.detail
    assert by_name(N.check_new_disk(s, "tank", A0, "sdk"), N.IN_USE).passed


def test_bare_partitions_are_a_warning() -> None:
    s = with_disk(snap(), "sdk1", mountpoints=(), fs_type=None, fs_label=None)
    c = by_name(N.check_new_disk(s, "tank", A0, "sdk"), N.PARTITIONS)
    assert (c.passed, c.level) == (False, CheckLevel.WARN)
    assert "partitions without any filesystem (sdk1)" in c.detail


def test_unknown_disk_and_unreadable_inventory_are_blocked() -> None:
    s = snap()
    c = N.check_new_disk(s, "tank", A0, "sdz")
    assert failing(c) == [(N.FOUND, CheckLevel.BLOCK)]
    broken = dataclasses.replace(s, disks=Part(None, T0, "lsblk", "lsblk: timed out",
                                               "CommandTimedOut"))
    c = N.check_new_disk(broken, "tank", A0, "sdh")
    assert failing(c) == [(N.FOUND, CheckLevel.BLOCK)]
    assert "lsblk: timed out" in c[0].detail


def test_unreadable_pool_status_is_blocked() -> None:
    s = snap()
    s = dataclasses.replace(s, pool_status=Part(None, T0, "zpool status", "exit 1", "X"))
    c = N.check_new_disk(s, "tank", A0, "sdh")
    assert failing(c) == [(G.POOL_READ, CheckLevel.BLOCK)]


# --------------------------------------------------------------------------------- names


def test_no_by_id_link_falls_back_to_by_path_with_a_warning() -> None:
    s = with_disk(snap(), "sdh", by_id=())
    c = by_name(N.check_new_disk(s, "tank", A0, "sdh"), N.NAMING)
    assert (c.passed, c.level) == (False, CheckLevel.WARN)
    assert "/dev/disk/by-path/pci-0000:00:17.0-ata-8" in c.detail


def test_kernel_name_only_is_blocked() -> None:
    s = with_disk(snap(), "sdh", by_id=(), by_path=())
    c = by_name(N.check_new_disk(s, "tank", A0, "sdh"), N.NAMING)
    assert (c.passed, c.level) == (False, CheckLevel.BLOCK)
    assert "never puts a kernel name (sdX)" in c.detail


# ------------------------------------------------------------------------------- sectors


def test_4k_logical_disk_in_an_ashift_9_vdev_is_blocked_with_zpools_words() -> None:
    c = by_name(N.check_new_disk(snap(), "tank", A0, "sdj"), N.SECTOR)
    assert (c.passed, c.level) == (False, CheckLevel.BLOCK)
    assert ("new device has a different optimal sector size; use the option '-o ashift=N' "
            "to override the optimal size") in c.detail
    assert "ashift 9" in c.detail and "4096-byte logical sectors" in c.detail


def test_512e_disk_is_a_warning_and_pool_ashift_property_is_used() -> None:
    c = by_name(N.check_new_disk(snap(), "tank", A0, "sdh"), N.SECTOR)
    assert (c.passed, c.level) == (False, CheckLevel.WARN)
    assert "block size: 512B configured, 4096B native" in c.detail
    ok = by_name(N.check_new_disk(snap(), "tank", A0, "sdj", props={"ashift": "12"}),
                 N.SECTOR)
    assert ok.passed and "pool property ashift=12" in ok.detail


def test_unknown_sector_size_is_a_warning() -> None:
    s = with_disk(snap(), "sdh", logical_sector=None)
    c = by_name(N.check_new_disk(s, "tank", A0, "sdh"), N.SECTOR)
    assert (c.passed, c.level) == (False, CheckLevel.WARN)


# ------------------------------------------------------------------------- attach target


def test_attach_targets() -> None:
    tank = status_of()
    assert G.check_attach_target(tank, "mirror-0")[0].passed
    assert G.check_attach_target(tank, A0)[0].passed
    spare = G.check_attach_target(tank, "ata-HGST_HUS724040ALE640_PN2334PBJ7F5ZT")[0]
    assert (spare.passed, spare.level) == (False, CheckLevel.BLOCK) and "hot spare" in spare.detail
    cache = G.check_attach_target(tank, "nvme-Samsung_SSD_980_PRO_1TB_S5GXNF0R123456A")[0]
    assert not cache.passed and "cache device" in cache.detail
    assert G.attach_leaf(tank, "mirror-0") is not None
    assert G.attach_leaf(tank, "mirror-0").name == A0  # type: ignore[union-attr]


def test_attach_to_a_replace_in_progress_is_blocked() -> None:
    tank = status_of("resilvering")
    c = G.check_attach_target(tank, "mirror-0")[0]
    assert (c.passed, c.level) == (False, CheckLevel.BLOCK)
    assert "replace in progress" in c.detail


# -------------------------------------------------------------------------------- detach


def test_detach_of_the_last_good_copy_is_blocked_before_zfs_says_it() -> None:
    fast = status_of(pool="fast")
    c = by_name(G.check_detach(fast, F0), G.LAST_REPLICA)
    assert (c.passed, c.level) == (False, CheckLevel.BLOCK)
    assert f"cannot detach {F0}: no valid replicas" in c.detail
    assert f"{F1} is resilvering" in c.detail


def test_detach_of_the_good_half_next_to_a_faulted_one_is_blocked() -> None:
    tank = status_of("degraded", "2.1")
    c = by_name(G.check_detach(tank, D_OK), G.LAST_REPLICA)
    assert (c.passed, c.level) == (False, CheckLevel.BLOCK)
    assert f"{D_BAD} is FAULTED" in c.detail
    # detaching the FAULTED one is fine: no good copy goes
    checks = G.check_detach(tank, D_BAD)
    assert not [x for x in checks if x.blocking]


def test_detach_leaving_one_copy_is_a_loud_warning() -> None:
    tank = status_of()
    c = by_name(G.check_detach(tank, A0), G.REDUNDANCY_AFTER)
    assert (c.passed, c.level) == (False, CheckLevel.WARN)
    assert f"single copy ({A1})" in c.detail


def test_detach_of_a_resilvering_half_warns_that_it_cancels() -> None:
    fast = status_of(pool="fast")
    checks = G.check_detach(fast, F1)
    assert by_name(checks, G.LAST_REPLICA).passed
    c = by_name(checks, G.CANCELS_RESILVER)
    assert (c.passed, c.level) == (False, CheckLevel.WARN)


def test_detach_of_a_top_level_disk_or_unknown_leaf_is_blocked() -> None:
    tank = status_of()
    c = G.check_detach(tank, "nvme-Samsung_SSD_980_PRO_1TB_S5GXNF0R123456A")[0]
    assert (c.name, c.passed, c.level) == (G.DETACH_TARGET, False, CheckLevel.BLOCK)
    assert "only applicable to mirror and replacing vdevs" in c.detail
    c = G.check_detach(tank, "nosuch")[0]
    assert not c.passed and "no such device in pool" in c.detail


# ------------------------------------------------------------------- replacement target


def test_healthy_disk_chosen_as_failed_is_a_loud_warning() -> None:
    tank = status_of()
    c = G.check_replacement_target(tank, A0, [])[0]
    assert (c.name, c.passed, c.level) == (G.HEALTHY_TARGET, False, CheckLevel.WARN)
    assert c.detail.startswith(f"CAREFUL: {A0} looks HEALTHY: ONLINE, 0 read / 0 write / "
                               "0 checksum errors, not reported slow.")
    unknown = G.check_replacement_target(tank, A0, None)[0]
    assert "slowness not checked (no latency samples yet)" in unknown.detail


def test_slow_or_faulted_disk_is_a_real_target() -> None:
    tank = status_of()
    slow = Finding("slow-disk", Severity.CRITICAL, A1, f"{A1} is 9.8x slower than its peers",
                   pool="tank", factor=9.8)
    c = G.check_replacement_target(tank, A1, [slow])[0]
    assert c.passed and "9.8x slower" in c.detail
    degraded = status_of("degraded", "2.1")
    c = G.check_replacement_target(degraded, D_BAD, [])[0]
    assert c.passed and "FAULTED" in c.detail and "3 read / 117 write / 0 checksum" in c.detail


def test_grow_purpose_warns_only_for_unhealthy_members() -> None:
    degraded = status_of("degraded", "2.3")
    c = G.check_replacement_target(degraded, D_BAD, None, purpose="grow")[0]
    assert (c.passed, c.level) == (False, CheckLevel.WARN)
    c = G.check_replacement_target(degraded, D_OK, None, purpose="grow")[0]
    assert (c.passed, c.level) == (True, CheckLevel.INFO)


# ----------------------------------------------------------------------------------- scans


def test_running_scrub_is_a_warning() -> None:
    h = DemoHost("healthy", "2.3", clock=lambda: T0)
    h.run(["zpool", "scrub", "tank"])
    tank = collect(h).pool("tank").status  # type: ignore[union-attr]
    assert tank is not None
    c = G.check_scrub(tank)[0]
    assert (c.name, c.passed, c.level) == (G.SCRUB, False, CheckLevel.WARN)
    assert "attaching or replacing a disk cancels it" in c.detail
    quiet = snap("healthy").pool("tank").status  # type: ignore[union-attr]
    assert quiet is not None and G.check_scrub(quiet)[0].passed


def test_running_resilver_is_a_warning() -> None:
    fast = status_of(pool="fast")
    c = G.check_scrub(fast)[0]
    assert (c.name, c.passed, c.level) == (G.RESILVER, False, CheckLevel.WARN)


# ------------------------------------------------------------------------ redundancy preview


def test_redundancy_preview_sentences() -> None:
    s = snap()
    tank = s.pool("tank").status  # type: ignore[union-attr]
    fast = s.pool("fast").status  # type: ignore[union-attr]
    assert tank is not None and fast is not None
    assert G.redundancy_preview(tank, A0, "detach") == (
        f"mirror-0 has 2 copies now ({A0}, {A1}).",
        f"After detaching {A0}, mirror-0 keeps 1 copy ({A1}): NO redundancy, one more "
        "failure loses data.")
    assert G.redundancy_preview(tank, A0, "offline")[1] == (
        f"mirror-0 keeps 1 copy ({A1}) until {A0} is back online.")
    assert G.redundancy_preview(tank, "mirror-0", "attach", new="NEW")[1] == (
        f"mirror-0 keeps 2 copies ({A0}, {A1}) while NEW is resilvered; 3 copies after.")
    assert G.redundancy_preview(tank, A0, "replace", new="NEW")[1] == (
        f"mirror-0 keeps 2 copies during the resilver ({A0} stays until NEW is complete); "
        f"2 copies after, with NEW instead of {A0}.")
    assert G.redundancy_preview(fast, F0, "detach") == (
        f"mirror-0 has 1 copy now ({F0}); {F1} is resilvering.",
        f"Detaching {F0} would leave mirror-0 without any valid copy: ZFS refuses (no valid "
        "replicas).")
    cache = "nvme-Samsung_SSD_980_PRO_1TB_S5GXNF0R123456A"
    assert G.redundancy_preview(tank, cache, "attach", new="NEW") == (
        f"{cache} is a single disk: 1 copy, no redundancy (cache vdev).",
        f"{cache} keeps 1 copy until NEW is resilvered; it becomes a 2-way mirror with 2 "
        "copies after.")


def test_redundancy_preview_of_a_faulted_member() -> None:
    tank = status_of("degraded", "2.1")
    assert G.redundancy_preview(tank, D_BAD, "replace", new="NEW") == (
        f"mirror-0 has 1 copy now ({D_OK}); {D_BAD} is FAULTED.",
        f"mirror-0 keeps 1 copy ({D_OK}) until the resilver ends; 2 copies after.")
    with pytest.raises(ValueError):
        G.redundancy_preview(tank, D_BAD, "explode")
