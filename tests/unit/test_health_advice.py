"""The advisor (services.health.advice): each finding where it must fire, with its evidence
and sentence, and where it must not (the demo's clean hosts, the real guest captures)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest

from tests.paths import CAPTURES, parser_text
from zconsole.hosts.demo.host import DemoHost
from zconsole.hosts.replay import ReplayHost
from zconsole.model.advice import Advice, AdviceInputs, DatasetProps, ZilStats
from zconsole.model.arc import ArcStats
from zconsole.model.finding import Severity
from zconsole.model.pool import PoolUsage, Section, VdevUsage
from zconsole.model.reading import HostReading, Part
from zconsole.parsers.zil import parse_zil
from zconsole.parsers.zpool_status import parse_zpool_status
from zconsole.parsers.zpool_status_json import parse_zpool_status_json
from zconsole.services.health.advice import advise
from zconsole.services.health.advice.datasets import (
    ACCOUNTING_BLOCK,
    SNAPSHOT_SPRAWL,
    raidz_alloc,
)
from zconsole.services.health.advice.layout import IMBALANCE_SPREAD
from zconsole.services.health.advice.slog import IDLE_PER_HOUR, MIN_HOURS, SYNC_PER_S
from zconsole.services.health.advice.upkeep import (
    CAPACITY_FULL,
    CAPACITY_SLOWS,
    L2_MIN_HIT_RATIO,
    SCRUB_WEEKS,
    WEEK,
)
from zconsole.services.read.advice import parse_advice_props, read_advice
from zconsole.services.read.collect import collect

FROZEN = 1_790_000_000.0


def demo_inputs(scenario: str, version: str = "2.3") -> AdviceInputs:
    host = DemoHost(scenario, zfs_version=version, clock=lambda: FROZEN, seed=0)
    return read_advice(host, collect(host))


@pytest.fixture(scope="module")
def advice23() -> dict[str, Advice]:
    found = advise(demo_inputs("advice"))
    return {a.kind: a for a in found}


def one(found: list[Advice], kind: str) -> Advice:
    [a] = [a for a in found if a.kind == kind]
    return a


# ------------------------------------------------------------------ the demo advice host


def test_the_advice_host_shows_every_finding_worst_first() -> None:
    found = advise(demo_inputs("advice"))
    assert [a.kind for a in found] == [
        "advice-copies", "advice-ashift", "advice-mixed-media", "advice-snapshots",
        "advice-dedup", "advice-capacity", "advice-scrub", "advice-slog-none",
        "advice-slog-none", "advice-imbalance", "advice-compression", "advice-atime",
        "advice-xattr", "advice-recordsize", "advice-volblocksize", "advice-l2arc",
        "advice-slog-idle", "advice-clone-origin"]
    assert all(a.severity in (Severity.INFO, Severity.WARNING) for a in found)
    assert all(a.why and a.cost for a in found)


def test_ashift_below_the_physical_sector(advice23: dict[str, Advice]) -> None:
    a = advice23["advice-ashift"]
    assert a.severity is Severity.WARNING and a.pool == "tank" and a.subject == "mirror-0"
    assert a.message == ("tank: mirror-0 writes 512 B blocks (ashift 9) to disks with 4096 B "
                         "physical sectors")
    assert a.evidence == (
        "vdev: mirror-0",
        "ata-WDC_WD40EFRX-68N32N0_WD-WCC7K0ADV001: ashift 9 (512 B), native 4096 B",
        "ata-WDC_WD40EFRX-68N32N0_WD-WCC7K0ADV002: ashift 9 (512 B), native 4096 B")
    assert "only fix is a new vdev or pool created with -o ashift=12" in a.cost
    assert a.command is None  # no command changes an ashift


def test_ashift_is_read_from_the_text_form_too() -> None:
    a = one(advise(demo_inputs("advice", "2.1")), "advice-ashift")
    assert a.message.startswith("tank: mirror-0 writes 512 B blocks (ashift 9)")


def test_mixed_media_in_a_mirror(advice23: dict[str, Advice]) -> None:
    a = advice23["advice-mixed-media"]
    assert a.severity is Severity.WARNING and a.subject == "mirror-1"
    assert a.message == "tank: mirror-1 mixes spinning disks (sdc) with SSD/NVMe (sdd)"
    # the model as udev names it (ID_MODEL)
    assert a.evidence == ("sdc: rotational (sata, WDC_WD40EFRX-68N32N0)",
                          "sdd: non-rotational (sata, Samsung_SSD_870_EVO_4TB)")
    assert "32.6 MB/s" in a.why


def test_vdev_imbalance_from_zpool_list(advice23: dict[str, Advice]) -> None:
    a = advice23["advice-imbalance"]
    assert a.severity is Severity.INFO
    assert a.message == "tank: mirror-0 is 86 % full, mirror-1 12 %"
    assert a.evidence == ("mirror-0: CAP 86 %", "mirror-1: CAP 12 %")
    assert "No command rebalances in place" in a.cost


def test_compression_off_is_grouped_where_it_is_set(advice23: dict[str, Advice]) -> None:
    a = advice23["advice-compression"]
    assert a.subject == "tank" and a.severity is Severity.INFO
    assert a.message == ("compression is off on 4 datasets holding 2.9 TiB "
                         "(the default on pool tank)")
    assert a.command == "zfs set compression=lz4 tank"
    assert "tank/share: compression=off (default), 1.2 TiB" in a.evidence
    assert "Only new writes are compressed" in a.cost


def test_atime_without_relatime_points_at_the_relatime_setting(
        advice23: dict[str, Advice]) -> None:
    a = advice23["advice-atime"]
    assert a.message == ("atime is on without relatime on 1 filesystem "
                         "(relatime=off, set on tank/mail)")
    assert a.command == "zfs set relatime=on tank/mail"
    assert a.evidence == ("tank/mail: atime=on (default), relatime=off (local)",)


def test_posix_acls_in_xattr_directories(advice23: dict[str, Advice]) -> None:
    a = advice23["advice-xattr"]
    assert a.message == ("POSIX ACLs are kept in xattr directories on 1 filesystem "
                         "(xattr=on, the default on pool tank: tank/share)")
    assert a.command == "zfs set xattr=sa tank"


def test_recordsize_of_a_vm_image_directory(advice23: dict[str, Advice]) -> None:
    a = advice23["advice-recordsize"]
    assert a.message == ("tank/libvirt holds VM images (/var/lib/libvirt/images) at "
                         "recordsize 128.0 KiB")
    assert a.evidence == ("mountpoint: /var/lib/libvirt/images", "recordsize: 131072 (default)")
    assert a.command == "zfs set recordsize=64K tank/libvirt"


def test_dedup_with_its_table_ratio_and_the_arc(advice23: dict[str, Advice]) -> None:
    a = advice23["advice-dedup"]
    # ratio 1.46x is below DEDUP_MIN_RATIO: a warning
    assert a.severity is Severity.WARNING
    assert a.message == "tank: dedup is on for 1 dataset (ratio 1.46x, DDT 646.0 MiB in RAM)"
    assert a.evidence == ("dedup ratio: 1.46x",
                          "DDT: 4,706,940 entries, 646.0 MiB in RAM, 1.5 GiB on disk",
                          "ARC maximum: 38.6 GiB", "tank/backup: dedup=on (local)")
    assert "new writes only" in a.cost and "dedup-off wizard" in a.cost
    assert a.command is None


def test_an_l2arc_that_seldom_answers(advice23: dict[str, Advice]) -> None:
    a = advice23["advice-l2arc"]
    assert a.severity is Severity.INFO
    assert a.message.startswith("the L2ARC answered 3.0 % of the ")
    assert "L2ARC size: 600.0 GiB" in a.evidence
    assert any(e.startswith("headers in ARC: ") for e in a.evidence)
    assert a.command == "zpool remove tank nvme-Samsung_SSD_980_PRO_1TB_S5GXNF0R900002B"


def test_copies_on_a_single_disk_pool(advice23: dict[str, Advice]) -> None:
    a = advice23["advice-copies"]
    assert a.severity is Severity.WARNING and a.pool == "scratch"
    assert a.message == ("scratch is a single disk and relies on copies=2 "
                         "(set on scratch/photos)")
    assert a.evidence == ("data vdevs: ata-ST2000DM008-2FR102_ZFL0ADV004",
                          "scratch/photos: copies=2 (local)")


def test_snapshot_sprawl(advice23: dict[str, Advice]) -> None:
    a = advice23["advice-snapshots"]
    assert a.message == "tank/mail has 24,000 snapshots" and a.evidence == (
        "snapshot_count: 24000",)


def test_capacity_above_80(advice23: dict[str, Advice]) -> None:
    # the one scale's level (health/severity.py): WARNING from 80 %, as `check` says it
    a = advice23["advice-capacity"]
    assert a.severity is Severity.WARNING and a.message == "scratch is 86 % full"
    assert a.evidence[0] == "CAP: 86 %"


def test_scrub_age(advice23: dict[str, Advice]) -> None:
    a = advice23["advice-scrub"]
    assert a.severity is Severity.WARNING
    assert a.message == "scratch was last scrubbed 80 d ago"
    assert a.evidence == ("last scrub finished: 80 d ago", "limit: 5 weeks")
    assert a.command == "zpool scrub scratch"


def test_scrub_weeks_is_configurable() -> None:
    inputs = demo_inputs("advice")
    assert not [a for a in advise(inputs, scrub_weeks=12) if a.kind == "advice-scrub"]
    # tank was scrubbed 9 days ago: one week makes it old too
    assert [a.subject for a in advise(inputs, scrub_weeks=1) if a.kind == "advice-scrub"] \
        == ["scratch", "tank"]


# ---------------------------------------------------------------- where it must not fire


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_the_healthy_demo_host_gets_only_its_uncompressed_media(version: str) -> None:
    found = advise(demo_inputs("healthy", version))
    assert [(a.kind, a.subject, a.message) for a in found] == [
        ("advice-compression", "tank/media",
         "compression is off on 1 dataset holding 2.3 TiB (set on tank/media)")]


def _captures() -> Iterator[str]:
    for ver in sorted(p for p in CAPTURES.iterdir() if p.is_dir()):
        for state in sorted(p for p in ver.iterdir() if p.is_dir()):
            yield f"{ver.name}/{state.name}"


@pytest.mark.parametrize("state", list(_captures()))
def test_no_advice_on_the_guests_real_pools(state: str) -> None:
    """The guests' pools are small, fresh and alike: nothing to advise. (Their captures
    hold no advisor `zfs get`: that read fails and the dataset findings are not judged.)"""
    host = ReplayHost(str(CAPTURES / state))
    inputs = read_advice(host, collect(host))
    assert inputs.props is not None and not inputs.props.ok
    assert advise(inputs) == []


def test_no_advice_without_zfs() -> None:
    r = collect(DemoHost("healthy", clock=lambda: FROZEN))
    gone = dataclasses.replace(r, zfs=r.zfs._replace(presence="not-installed"))
    assert advise(AdviceInputs(gone)) == []


# ------------------------------------------------------------------ thresholds, one by one


def _usage(r: HostReading, **change: object) -> HostReading:
    u = r.pool_usage.value or ()
    return dataclasses.replace(r, pool_usage=Part(
        tuple(dataclasses.replace(x, **change) for x in u), r.pool_usage.taken_at))


def test_capacity_thresholds() -> None:
    r = collect(DemoHost("healthy", clock=lambda: FROZEN))
    assert not advise(AdviceInputs(_usage(r, capacity=CAPACITY_SLOWS - 1)))
    [a] = advise(AdviceInputs(_usage(r, capacity=CAPACITY_SLOWS)))
    assert a.severity is Severity.WARNING  # the scale's pool-capacity level
    [a] = advise(AdviceInputs(_usage(r, capacity=CAPACITY_FULL)))  # CRITICAL, capped
    assert a.severity is Severity.WARNING and a.message == "tank is 90 % full"


def test_imbalance_below_the_spread_is_not_said() -> None:
    r = collect(DemoHost("advice", clock=lambda: FROZEN))
    tank = [u for u in r.pool_usage.value or () if u.name == "tank"][0]
    rows = [v for v in tank.vdevs if v.name in ("mirror-0", "mirror-1")]
    assert len(rows) == 2

    def spread(points: int) -> list[Advice]:
        vdevs = tuple(dataclasses.replace(v, capacity=40 + points) if v.name == "mirror-0"
                      else dataclasses.replace(v, capacity=40) if v.name == "mirror-1" else v
                      for v in tank.vdevs)
        fixed: tuple[PoolUsage, ...] = tuple(
            dataclasses.replace(u, vdevs=vdevs) if u.name == "tank" else u
            for u in r.pool_usage.value or ())
        r2 = dataclasses.replace(r, pool_usage=Part(fixed, r.pool_usage.taken_at))
        return [a for a in advise(AdviceInputs(r2)) if a.kind == "advice-imbalance"]

    assert spread(IMBALANCE_SPREAD - 1) == []
    assert [a.message for a in spread(IMBALANCE_SPREAD)] == [
        f"tank: mirror-0 is {40 + IMBALANCE_SPREAD} % full, mirror-1 40 %"]


def test_an_l2arc_that_earns_its_keep_is_not_said() -> None:
    r = collect(DemoHost("advice", clock=lambda: FROZEN))
    fields = dict((r.arc.value or ArcStats()).fields)
    lookups = 1_000_000
    fields["l2_hits"] = int(lookups * L2_MIN_HIT_RATIO)
    fields["l2_misses"] = lookups - fields["l2_hits"]
    r2 = dataclasses.replace(r, arc=Part(ArcStats(fields), r.arc.taken_at))
    assert not [a for a in advise(AdviceInputs(r2)) if a.kind == "advice-l2arc"]


def test_a_scrub_within_the_weeks_is_not_said() -> None:
    r = collect(DemoHost("advice", clock=lambda: FROZEN))
    scratch = [p for p in r.pool_status.value or () if p.name == "scratch"][0]
    assert scratch.scan is not None and scratch.scan.end_time is not None
    now = scratch.scan.end_time + SCRUB_WEEKS * WEEK
    assert not [a for a in advise(AdviceInputs(dataclasses.replace(r, taken_at=now)))
                if a.kind == "advice-scrub"]
    later = dataclasses.replace(r, taken_at=now + 3600)
    assert [a.subject for a in advise(AdviceInputs(later)) if a.kind == "advice-scrub"] == [
        "scratch"]


def _props(*rows: tuple[str, str, str, str]) -> tuple[DatasetProps, ...]:
    return parse_advice_props("".join("\t".join(r) + "\n" for r in rows))


def test_dataset_advice_needs_its_facts() -> None:
    r = collect(DemoHost("healthy", clock=lambda: FROZEN))
    props = _props(
        ("tank/small", "type", "filesystem", "-"),
        ("tank/small", "referenced", str(512 << 20), "-"),  # under 1 GiB: not worth it
        ("tank/small", "compression", "off", "local"),
        ("tank/small", "atime", "on", "default"),
        ("tank/small", "relatime", "on", "default"),  # relatime tames atime
        ("tank/small", "xattr", "on", "default"),
        ("tank/small", "acltype", "off", "default"),  # no POSIX ACLs: xattr is fine
        ("tank/small", "copies", "2", "local"),  # tank is mirrored: copies is extra
        ("tank/small", "recordsize", "131072", "default"),
        ("tank/small", "mountpoint", "/srv/small", "default"),  # not a VM image directory
        ("tank/small", "snapshot_count", str(SNAPSHOT_SPRAWL - 1), "-"),
        ("tank/small", "dedup", "off", "default"),
    )
    assert advise(AdviceInputs(r, Part(props, r.taken_at))) == []


def test_sprawl_is_said_once_for_the_deepest_dataset() -> None:
    r = collect(DemoHost("healthy", clock=lambda: FROZEN))
    props = _props(("tank", "snapshot_count", str(SNAPSHOT_SPRAWL + 5), "-"),
                   ("tank/a", "snapshot_count", str(SNAPSHOT_SPRAWL), "-"),
                   ("tank/b", "snapshot_count", "-", "-"))
    assert [a.subject for a in advise(AdviceInputs(r, Part(props, r.taken_at)))] == ["tank/a"]


def test_a_daily_snapshot_kept_only_by_its_clone(advice23: dict[str, Advice]) -> None:
    a = advice23["advice-clone-origin"]
    snap = "tank/share@zfs-auto-snap_daily-2026-05-03-0025"
    assert a.severity is Severity.INFO and a.subject == snap and a.pool == "tank"
    assert a.message == (f"{snap}, a daily snapshot 141 d old, is kept only by its clone "
                         "tank/share-restore")
    assert a.evidence == ("origin of: tank/share-restore (1.1 TiB referenced)",
                          "created: 141 d ago", "used: 6.0 GiB (freed once the snapshot can go)",
                          "label: daily (zfs-auto-snapshot keeps 31 d of them)")
    assert a.action is None  # promote or destroy: the operator's choice, never offered to run
    assert "zfs promote" in a.cost


@pytest.mark.parametrize(("name", "label"), [
    ("tank/a@zfs-auto-snap_daily-2026-05-03-0025", "daily"),
    ("tank/a@autosnap_2026-05-03_00:00:01_hourly", "hourly"),
    ("tank/a@weekly-12", "weekly"), ("tank/a@Monthly", "monthly"),
    ("tank/a@zfs-auto-snap_frequent-2026-05-03-0015", "frequent"),
    ("tank/a@golden", None), ("tank/a@before-upgrade", None), ("tank/a@dailyish", None),
    ("tank/daily@base", None)])
def test_the_rotation_label_is_read_from_the_snapshot_name(name: str, label: str | None) -> None:
    from zconsole.services.health.advice.clones import rotation_label

    assert rotation_label(name) == label


def test_a_clone_of_a_template_or_a_recent_rotation_is_not_said() -> None:
    from zconsole.services.health.advice.clones import DAY, judge_clones

    now = FROZEN
    clones = _props(("tank/t1", "origin", "tank/vm@golden", "-"),
                    ("tank/t2", "origin", "tank/home@daily-01", "-"),
                    ("tank/t3", "origin", "tank/home@hourly-9", "-"),
                    ("tank/plain", "origin", "-", "-"))
    origins = _props(("tank/vm@golden", "creation", str(int(now - 900 * DAY)), "-"),
                     ("tank/home@daily-01", "creation", str(int(now - 61 * DAY)), "-"),
                     ("tank/home@hourly-9", "creation", str(int(now - 3 * DAY)), "-"))
    said = list(judge_clones(clones, origins, now))
    # the template is never judged, the daily is within twice 31 days, the hourly is not
    assert [(a.subject, a.message.split(", ")[1]) for a in said] == [
        ("tank/home@hourly-9", "an hourly snapshot 3 d old")]
    assert list(judge_clones(clones, None, now)) == []  # the origins' read failed


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_the_clone_origins_are_read_by_name_only_when_there_are_clones(version: str) -> None:
    from zconsole.services.read import catalogue

    host = DemoHost("advice", zfs_version=version, clock=lambda: FROZEN, seed=0)
    inputs = read_advice(host, collect(host))
    assert inputs.origins is not None and inputs.origins.ok
    assert [o.name for o in inputs.origins.value or ()] == [
        "tank/share@zfs-auto-snap_daily-2026-05-03-0025"]
    assert catalogue.zfs_get_origins(["tank/a@b"]) == (
        "zfs", "get", "-H", "-p", "-o", "name,property,value,source", "creation,used,userrefs",
        "tank/a@b")
    with pytest.raises(ValueError):
        catalogue.zfs_get_origins(["-o@x"])
    # a host without a clone: not read at all
    bare = DemoHost("dedup", zfs_version=version, clock=lambda: FROZEN, seed=0)
    inputs = read_advice(bare, collect(bare))
    assert inputs.props is not None and inputs.props.ok and inputs.origins is None


def test_advice_is_never_critical() -> None:
    with pytest.raises(ValueError, match="at most WARNING"):
        Advice("advice-x", Severity.CRITICAL, "tank", "no", why="", cost="")


# -------------------------------------------------------------- zpool's block size note


def test_text_block_size_note_gives_the_ashifts() -> None:
    text = ("  pool: tank\n state: ONLINE\nconfig:\n\n"
            "\tNAME        STATE     READ WRITE CKSUM\n"
            "\ttank        ONLINE       0     0     0\n"
            "\t  sdb       ONLINE       0     0     0  block size: 512B configured, 4096B native\n"
            "\nerrors: No known data errors\n")
    [pool] = parse_zpool_status(text)
    leaf = pool.vdevs[0]
    assert (leaf.ashift, leaf.native_ashift) == (9, 12)
    assert leaf.note == "block size: 512B configured, 4096B native"


def test_json_configured_and_physical_ashift() -> None:
    import json
    doc = {"output_version": {"command": "zpool status", "vers_major": 0, "vers_minor": 1},
           "pools": {"tank": {"name": "tank", "state": "ONLINE", "pool_guid": "1",
                              "txg": "1", "spa_version": "5000", "zpl_version": "5",
                              "vdevs": {"tank": {
                                  "name": "tank", "vdev_type": "root", "guid": "1",
                                  "class": "normal", "state": "ONLINE", "read_errors": 0,
                                  "write_errors": 0, "checksum_errors": 0,
                                  "vdevs": {"sdb": {
                                      "name": "sdb", "vdev_type": "disk", "guid": "2",
                                      "path": "/dev/sdb1", "class": "normal",
                                      "state": "ONLINE", "read_errors": 0,
                                      "write_errors": 0, "checksum_errors": 0,
                                      "configured_ashift": 9, "physical_ashift": 12}}}},
                              "error_count": "0"}}}
    [pool] = parse_zpool_status_json(json.dumps(doc), now=int(FROZEN))
    leaf = pool.vdevs[0]
    assert (leaf.ashift, leaf.native_ashift) == (9, 12)
    assert leaf.note == "block size: 512B configured, 4096B native"


def test_vdev_usage_rows_are_real_model_rows() -> None:
    # the imbalance finding reads zpool list -v rows: VdevUsage (scripted form, no depth)
    r = collect(DemoHost("advice", clock=lambda: FROZEN))
    tank = [u for u in r.pool_usage.value or () if u.name == "tank"][0]
    assert all(isinstance(v, VdevUsage) for v in tank.vdevs)


# ---------------------------------------------------------------------------- muting


def test_mutes_are_kept_per_host_with_their_reason(tmp_path: Any) -> None:
    from zconsole.hosts.journal import MuteStore
    from zconsole.model.advice import Mute
    from zconsole.services.health.advice import split_muted

    store = MuteStore(tmp_path / "state" / "advice-mutes.json")
    assert store.load("nas1") == ()
    store.mute("nas1", Mute("advice-scrub", "scratch", "scrubbed by the backup box", 1.0))
    store.mute("nas2", Mute("advice-scrub", "scratch", "other host", 2.0))
    store.mute("nas1", Mute("advice-scrub", "scratch", "the reason, updated", 3.0))
    assert store.load("nas1") == (Mute("advice-scrub", "scratch", "the reason, updated", 3.0),)
    assert oct((tmp_path / "state" / "advice-mutes.json").stat().st_mode & 0o777) == "0o600"
    with pytest.raises(ValueError, match="reason"):
        store.mute("nas1", Mute("advice-atime", "tank", "  ", 4.0))

    found = advise(demo_inputs("advice"))
    said, muted = split_muted(found, store.load("nas1"))
    assert [a.kind for a, _ in muted] == ["advice-scrub"]
    assert muted[0][1].reason == "the reason, updated"
    assert len(said) == len(found) - 1 and "advice-scrub" not in {a.kind for a in said}

    store.unmute("nas1", "advice-scrub", "scratch")
    assert store.load("nas1") == () and len(store.load("nas2")) == 1


def test_an_unreadable_mute_file_is_said(tmp_path: Any) -> None:
    from zconsole.hosts.journal import MuteStore

    path = tmp_path / "advice-mutes.json"
    path.write_text("{not json")
    with pytest.raises(ValueError, match="cannot read the muted advice"):
        MuteStore(path).load("nas1")


# ------------------------------------------------------- scrub age from the text form


def test_the_text_forms_scrub_date_is_read_in_utc_terms() -> None:
    from tests.paths import PARSERS

    text = (PARSERS / "zpool-status" /
            "openzfs-2.1-issue14881-draid-rebuilt-file-vdevs.excerpt.txt").read_text()
    pools = parse_zpool_status(text)
    scrubs = [s for p in pools for s in (p.scans or ((p.scan,) if p.scan else ()))
              if s.function is not None and s.function.value == "scrub"]
    assert scrubs and scrubs[0].ended_near == 1684498068  # Fri May 19 12:07:48 2023, as UTC
    assert scrubs[0].end_time is None  # the zone is not printed: not an exact time


def test_scrub_age_on_openzfs_21_uses_the_printed_date() -> None:
    a = one(advise(demo_inputs("advice", "2.1")), "advice-scrub")
    assert a.message == "scratch was last scrubbed 80 d ago"


def test_a_scan_line_in_another_locale_is_not_guessed() -> None:
    from zconsole.parsers.zpool_status_scan import parse_scan_text

    s = parse_scan_text("scrub repaired 0B in 00:00:01 with 0 errors on ven. mai 19 12:07:48 2023")
    assert s is not None and s.ended_near is None


def test_recordsize_of_a_mysql_data_directory() -> None:
    """InnoDB's 16K pages under the default 128K recordsize: advice to set 16K; at 16K, or
    a dataset elsewhere, nothing."""
    from zconsole.model.advice import DatasetProps
    from zconsole.services.health.advice.datasets import _recordsize

    def ds(name: str, mp: str, rs: str, source: str = "default") -> DatasetProps:
        return DatasetProps(name, "filesystem", {"mountpoint": (mp, "local"),
                                                 "recordsize": (rs, source)})

    found = list(_recordsize((ds("tank/db", "/var/lib/mysql", "131072"),
                              ds("tank/db16", "/var/lib/mysql/x", "16384", "local"),
                              ds("tank/home", "/home", "131072"))))
    assert [a.subject for a in found] == ["tank/db"]
    a = found[0]
    assert a.message == ("tank/db holds MySQL/MariaDB data (/var/lib/mysql) at recordsize "
                         "128.0 KiB")
    assert a.evidence == ("mountpoint: /var/lib/mysql", "recordsize: 131072 (default)")
    assert a.command == "zfs set recordsize=16K tank/db" and a.severity is Severity.INFO


# ------------------------------------------------------------------ SLOG (the ZIL counters)


def test_sync_writes_on_hdds_without_a_log_device() -> None:
    none = [a for a in advise(demo_inputs("advice")) if a.kind == "advice-slog-none"]
    # two pools without a log device on HDDs: the host-wide figure is theirs together
    assert [a.subject for a in none] == ["tank", "vmstore"]
    a = none[0]
    assert a.severity is Severity.WARNING and a.pool == "tank"
    assert a.message == ("tank has no log device and its fsyncs wait for spinning disks: "
                         "23.0 log blocks a second on average among tank, vmstore")
    up = FROZEN - (DemoHost("advice", clock=lambda: FROZEN, seed=0).machine.boot_time + 9.4)
    assert (f"zil_itx_metaslab_normal_count: {int(23.0 * up):,} (host-wide, every pool "
            "without a log device)") in a.evidence
    assert "spinning disks of tank: sda, sdb, sdc" in a.evidence
    assert a.command is None  # adding a log device needs hardware: no command offered
    assert "power-loss protection" in a.cost and "sync=disabled is not a fix" in a.cost


def test_an_idle_log_device(advice23: dict[str, Advice]) -> None:
    a = advice23["advice-slog-idle"]
    assert a.severity is Severity.INFO and a.pool == a.subject == "scratch"
    log = "nvme-INTEL_SSDPEK1A118GA_PHOC2150009X118B"
    assert a.message == f"scratch: log device {log} is idle: 0 log blocks in 3 d"
    assert a.command == f"zpool remove scratch {log}"
    assert "zil_itx_metaslab_slog_count: 0 (host-wide)" in a.evidence


@pytest.mark.parametrize("scenario", ["healthy", "showcase"])
def test_busy_log_devices_are_not_called_idle(scenario: str) -> None:
    inputs = demo_inputs(scenario)
    assert inputs.zil is not None and inputs.zil.value is not None, inputs.zil
    assert (inputs.zil.value.slog_blocks or 0) > 0  # read, judged, and busy
    found = advise(inputs)
    assert not [a for a in found if a.kind.startswith("advice-slog")]


def _zil(name: str, age_h: float, **fields: int) -> ZilStats:
    z = parse_zil(parser_text("zil", name))
    return ZilStats({**z.fields, **fields}, age_h * 3600)


def _slog_inputs(zil: ZilStats) -> AdviceInputs:
    base = demo_inputs("advice")
    return dataclasses.replace(base, zil=Part(zil, FROZEN, "zil"))


def _slog(found: list[Advice]) -> list[str]:
    return sorted(a.kind for a in found if a.kind.startswith("advice-slog"))


def test_slog_thresholds_on_the_real_counters() -> None:
    # the guests' own counters (a pool with a log device, 300 dsync writes to each pool):
    # the rates depend only on the module's age
    hours = 48.0
    idle = int(IDLE_PER_HOUR * hours) - 1
    busy = int(SYNC_PER_S * hours * 3600)
    for version in ("2.1.11", "2.3.2"):
        name = f"{version}-slog-and-normal-dsync.txt"
        assert _slog(advise(_slog_inputs(_zil(name, hours, zil_itx_metaslab_slog_count=idle,
                                                zil_itx_metaslab_normal_count=busy)))) == [
            "advice-slog-idle", "advice-slog-none", "advice-slog-none"]
        assert _slog(advise(_slog_inputs(_zil(name, hours, zil_itx_metaslab_slog_count=idle + 2,
                                                zil_itx_metaslab_normal_count=busy - 10)))) == []
        # as captured: 301 blocks to each in seconds, far too young to judge
        z = parse_zil(parser_text("zil", name))
        assert z.age_s is not None and z.age_s < MIN_HOURS * 3600
        assert _slog(advise(_slog_inputs(z))) == []


def test_no_slog_advice_without_the_counters() -> None:
    base = demo_inputs("advice")
    failed = dataclasses.replace(base, zil=Part(None, FROZEN, "zil", "No such file", "OSError"))
    assert _slog(advise(failed)) == []
    assert _slog(advise(dataclasses.replace(base, zil=None))) == []


def test_ssd_pools_without_a_log_device_are_not_told_to_get_one() -> None:
    # the showcase's pools have a log device or are on NVMe: heavy sync writes are fine
    base = demo_inputs("showcase")
    hot = ZilStats({"zil_itx_metaslab_normal_count": 10**9,
                    "zil_itx_metaslab_slog_count": 10**9}, 72 * 3600)
    kinds = _slog(advise(dataclasses.replace(base, zil=Part(hot, FROZEN, "zil"))))
    assert "advice-slog-idle" not in kinds
    bare = [e.name for e in base.reading.pools if e.status is not None
            and not e.status.section(Section.LOGS)]
    assert bare == ["fast"]  # its disks are NVMe: a log device would not be faster
    assert "advice-slog-none" not in kinds


def test_one_pool_without_a_log_device_gets_the_figure_as_its_own() -> None:
    base = demo_inputs("advice")
    zil = base.zil.value if base.zil is not None else None
    assert zil is not None
    # vmstore gets a log device: tank is then the only pool the log blocks could be from
    reading = base.reading
    pools = tuple(dataclasses.replace(p, vdevs=p.vdevs, logs=(*p.logs, p.vdevs[0]))
                  if p.name == "vmstore" else p for p in reading.pool_status.value or ())
    alone = dataclasses.replace(base, reading=dataclasses.replace(
        reading, pool_status=dataclasses.replace(reading.pool_status, value=pools)))
    [a] = [a for a in advise(alone) if a.kind == "advice-slog-none"]
    assert a.message == ("tank has no log device and its fsyncs wait for spinning disks: "
                         "23.0 log blocks a second on average")


# ------------------------------------------------------------------ volblocksize on raidz


@pytest.mark.parametrize("psize, ashift, width, parity, alloc", [
    (8 * 1024, 12, 6, 2, 24 * 1024),     # 2 data + 2 parity sectors, padded to 6
    (16 * 1024, 12, 6, 2, 24 * 1024),    # 4 + 2: no padding
    (128 * 1024, 12, 6, 2, 192 * 1024),  # 32 + 16: two thirds data
    (4 * 1024, 12, 5, 1, 8 * 1024),      # one sector + parity
    (8 * 1024, 9, 6, 2, 12 * 1024),      # 16 + 8 sectors of 512 B
    (128 * 1024, 12, 3, 1, 192 * 1024),
])
def test_raidz_alloc_is_vdev_raidz_asize(psize: int, ashift: int, width: int, parity: int,
                                         alloc: int) -> None:
    assert raidz_alloc(psize, ashift, width, parity) == alloc


def test_a_small_volblocksize_on_a_wide_raidz(advice23: dict[str, Advice]) -> None:
    a = advice23["advice-volblocksize"]
    assert a.severity is Severity.INFO and a.subject == "vmstore/vm-100-disk-0"
    assert a.pool == "vmstore"
    assert a.message == ("vmstore/vm-100-disk-0: each 8.0 KiB block takes 24.0 KiB on "
                         "raidz2-0 (33.3 % data, 66.7 % for 128K blocks)")
    assert a.evidence == (
        "volblocksize: 8192 (-)",
        "raidz2-0: 6 disks, raidz2, ashift 12 (the disks' 4096 B physical sectors)",
        "8.0 KiB block: 24.0 KiB allocated", "128K block: 192.0 KiB allocated")
    assert "2.0x the space" in a.why
    assert raidz_alloc(ACCOUNTING_BLOCK, 12, 6, 2) == 192 * 1024


def test_volblocksize_that_pads_little_is_not_said() -> None:
    base = demo_inputs("advice")
    assert base.props is not None and base.props.value is not None
    props = tuple(dataclasses.replace(p, values={**p.values, "volblocksize": ("16384", "-")})
                  if p.name == "vmstore/vm-100-disk-0" else p for p in base.props.value)
    moved = dataclasses.replace(base, props=dataclasses.replace(base.props, value=props))
    assert not [a for a in advise(moved) if a.kind == "advice-volblocksize"]


def test_a_snapshot_count_the_host_does_not_keep_is_not_a_count() -> None:
    # the 2.1.11 guest: `zfs get -p snapshot_count` of a dataset with no snapshot_limit on it
    # or above prints 18446744073709551615 (UINT64_MAX, `none` without -p)
    rows = parse_advice_props(
        "t\ttype\tfilesystem\t-\n"
        "t\tsnapshot_count\t18446744073709551615\tdefault\n"
        "t/a\ttype\tfilesystem\t-\n"
        "t/a\tsnapshot_count\t18446744073709551615\tdefault\n")
    base = demo_inputs("healthy")
    found = advise(dataclasses.replace(base, props=Part(rows, FROZEN, "zfs get")))
    assert not [a for a in found if a.kind == "advice-snapshots"]
