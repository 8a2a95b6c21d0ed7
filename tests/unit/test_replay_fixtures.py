"""Every real pool state captured from the QEMU guest, replayed through the whole read path.

The fixtures under tests/fixtures/capture/zfs-<version>/<state>/ are real outputs of OpenZFS
2.1.11 and 2.3.2 (see tests/fixtures/capture/SOURCES.md and each state's setup.sh). Here they
go through `ReplayHost` + `services.snapshot.collect()` (and the sampler, the snapshot listing
and `zconsole parse`) with assertions on the real values of each state. No guest needed.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.paths import CAPTURES
from zconsole.cli.main import main
from zconsole.hosts.base import HostError
from zconsole.hosts.replay import ReplayHost
from zconsole.model.pool import Pool, ScanFunction, ScanState, Section, Vdev
from zconsole.model.reading import DiskState, HostReading
from zconsole.parsers.zpool_iostat import latency_column_count
from zconsole.parsers.zpool_status import parse_zpool_status
from zconsole.services.read import catalogue as C
from zconsole.services.read.capture import _is_allowed
from zconsole.services.read.collect import collect, list_snapshots, pool_properties
from zconsole.services.read.network import collect_network
from zconsole.services.read.sampling import zfs_latency
from zconsole.services.session import HostSession

ROOT = CAPTURES
VERSIONS = {"2.1": "2.1.11", "2.3": "2.3.2"}
STATES = (
    "healthy", "degraded-offline", "removed", "resilver-in-progress", "replacing-mid-resilver",
    "spare-in-use", "logs-cache-special", "dedup", "many-snapshots",
)
CASES = [pytest.param(fl, st, id=f"{fl}-{st}") for fl in VERSIONS for st in STATES]
PARTS = ("kernel", "pool_status", "pool_usage", "datasets", "arc", "diskstats", "disks")
GUEST_DISKS = ("vda", "vdb", "vdc", "vdd", "vde", "vdf", "vdg")


def state_dir(flavour: str, state: str) -> Path:
    return ROOT / f"zfs-{VERSIONS[flavour]}" / state


def manifest(flavour: str, state: str) -> dict[str, Any]:
    return json.loads((state_dir(flavour, state) / "manifest.json").read_text())


@functools.cache
def snap(flavour: str, state: str) -> HostReading:
    return collect(ReplayHost(str(state_dir(flavour, state))))


def tank(flavour: str, state: str) -> Pool:
    pools = snap(flavour, state).pool_status.value
    assert pools is not None
    [pool] = pools
    assert pool.name == "tank"
    return pool


def captured(flavour: str, state: str, argv: tuple[str, ...]) -> str:
    r = ReplayHost(str(state_dir(flavour, state))).run(argv)
    return r.stdout


def status_text(flavour: str, state: str, *extra: str) -> Pool:
    """`zpool status -p [extra]` through the text parser (both versions have it)."""
    text = captured(flavour, state, ("zpool", "status", "-p", *extra))
    [pool] = parse_zpool_status(text, ddt_sizes_are_totals=flavour == "2.3")
    return pool


def children(v: Vdev | None) -> list[tuple[str, str]]:
    assert v is not None
    return [(c.name, c.state) for c in v.children]


def one_disk_down(flavour: str, state: str, why: str, vdc_state: str) -> Pool:
    """The state's tank: DEGRADED, its status saying `why`, mirror-0 with vdb ONLINE and vdc
    in `vdc_state`."""
    pool = tank(flavour, state)
    assert pool.state == "DEGRADED"
    assert pool.status is not None and why in pool.status
    assert children(pool.find("mirror-0")) == [("vdb", "ONLINE"), ("vdc", vdc_state)]
    return pool


# -- every state ---------------------------------------------------------------------------

@pytest.mark.parametrize(("flavour", "state"), CASES)
def test_manifest_says_the_state_and_only_reads(flavour: str, state: str) -> None:
    m = manifest(flavour, state)
    assert m["state"].startswith(f"{state}: ")
    assert m["zfs_version"] == VERSIONS[flavour]
    assert m["kernel"].startswith("6.1.0-") and m["root"] is True and m["host"] == "zfsvm"
    assert all(_is_allowed(c["argv"]) for c in m["commands"])
    assert (state_dir(flavour, state) / "setup.sh").read_text().count("zpool create") >= 1
    failed = [c["argv"] for c in m["commands"] if c["returncode"] != 0]
    if flavour == "2.1":  # no JSON status before 2.3: recorded as the refusal it is
        assert failed == [["zpool", "status", "-j", "--json-int"],
                          ["zpool", "status", "-j", "--json-int", "-D"],
                          ["zpool", "status", "-j"]]
    else:
        assert failed == []


@pytest.mark.parametrize(("flavour", "state"), CASES)
def test_collect_reads_every_part(flavour: str, state: str) -> None:
    s = snap(flavour, state)
    for part in PARTS:
        p = getattr(s, part)
        assert p.ok, (part, p.error)
    assert s.zfs.present and s.zfs.userland is not None
    assert s.zfs.version == tuple(int(x) for x in VERSIONS[flavour].split("."))
    assert s.zfs.json_status is (flavour == "2.3")
    assert s.pool_status.source == " ".join(C.zpool_status(flavour == "2.3"))
    pool = tank(flavour, state)
    assert not pool.unparsed
    # the text form (what `zconsole parse` and 2.1 read) agrees with collect()'s tree
    text = status_text(flavour, state)
    assert [(sec, d, v.name, v.state, v.resilvering) for sec, d, v in text.walk()] == \
        [(sec, d, v.name, v.state, v.resilvering) for sec, d, v in pool.walk()]
    assert text.state == pool.state
    usage = {u.name: u for u in s.pool_usage.value or ()}
    assert set(usage) == {"tank"} and usage["tank"].health == pool.state


class _Watching(ReplayHost):
    """A ReplayHost that remembers every read the capture could not answer."""

    def __init__(self, directory: str) -> None:
        super().__init__(directory)
        self.misses: list[str] = []

    def run(self, argv: Any, **kw: Any) -> Any:
        try:
            return super().run(argv, **kw)
        except HostError:
            self.misses.append("run " + " ".join(argv))
            raise

    def read_text(self, path: str) -> str:
        try:
            return super().read_text(path)
        except HostError:
            self.misses.append("read " + path)
            raise

    def list_dir(self, path: str) -> list[str]:
        try:
            return super().list_dir(path)
        except HostError:
            self.misses.append("list " + path)
            raise


@pytest.mark.parametrize(("flavour", "state"), CASES)
def test_capture_answers_every_read_of_a_refresh(flavour: str, state: str) -> None:
    host = _Watching(str(state_dir(flavour, state)))
    live = HostSession(host)
    first = live.refresh()
    second = live.refresh()
    for ds in first.reading.datasets.value or ():
        assert list_snapshots(host, ds.name).ok
    assert pool_properties(host, "tank").ok
    net = collect_network(host)
    assert {i.name for i in net.interfaces} >= {"lo", "eth0"}
    assert host.misses == []
    # two iostat reports were captured: the second refresh gets a sample for every leaf
    assert second.sample is not None and second.sample.latency is not None
    assert second.leaves


@pytest.mark.parametrize(("flavour", "state"), CASES)
def test_iostat_rows_map_onto_the_tree(flavour: str, state: str) -> None:
    host = ReplayHost(str(state_dir(flavour, state)))
    text = host.run(C.zpool_iostat_latency(1)).stdout
    assert latency_column_count(text) == (10 if flavour == "2.1" else 11)
    host = ReplayHost(str(state_dir(flavour, state)))
    pool = tank(flavour, state)
    lat = zfs_latency(host, 1, pools=[pool])
    [report] = lat.reports
    rows = {(r.section, r.vdev_path): r for r in report.rows}
    want = {(sec, path) for sec, path, _ in pool.leaf_paths() if sec is not Section.SPARES}
    assert want and want <= set(rows)
    for key in want:
        r = rows[key]
        assert r.write_ops >= 0 and r.read_ops >= 0
        if flavour == "2.1":
            assert r.rebuild_wait is None
    # and the sampler keys each leaf by (pool, path in the tree)
    assert set(lat.leaves) == {("tank", path) for _, path in want}


@pytest.mark.parametrize(("flavour", "state"), CASES)
def test_arcstats_field_set_by_version(flavour: str, state: str) -> None:
    arc = snap(flavour, state).arc.value
    assert arc is not None
    assert arc.c_max == 536870912  # zfs_arc_max pinned on the guest's kernel command line
    if flavour == "2.1":
        assert "p" in arc.fields and "arc_meta_limit" in arc.fields and not arc.has_iohits
    else:
        assert arc.has_iohits and "p" not in arc.fields and "arc_meta_limit" not in arc.fields


@pytest.mark.parametrize(("flavour", "state"), CASES)
def test_disk_identities_from_udev(flavour: str, state: str) -> None:
    inv = snap(flavour, state).disks.value
    assert inv is not None and inv.source == "udevadm"
    whole = {d.name: d for d in inv.whole_disks()}
    present = [n for n in GUEST_DISKS if not (state == "removed" and n == "vdc")]
    assert sorted(whole) == present
    for name, d in whole.items():
        label = "scratch" if name == "vda" else name
        assert d.serial == f"zfsvm-{label}"
        assert d.by_id == (f"virtio-zfsvm-{label}",)
    pool = tank(flavour, state)
    for sec, path, _ in pool.leaf_paths():
        leaf = path[-1]
        disk = re.sub(r"\d+$", "", leaf)
        role = inv.role(disk)
        if state == "removed" and leaf == "vdc":
            assert role is None  # gone from the machine, still in the pool config
            continue
        assert role is not None, leaf
        if sec is Section.SPARES and state != "spare-in-use":
            continue
        assert role.state is DiskState.IN_POOL and role.pool == "tank", (leaf, role)


# -- per state -----------------------------------------------------------------------------

@pytest.mark.parametrize("flavour", VERSIONS)
def test_healthy(flavour: str) -> None:
    pool = tank(flavour, "healthy")
    assert pool.state == "ONLINE" and pool.status is None and pool.scan is None
    assert children(pool.find("mirror-0")) == [("vdb", "ONLINE"), ("vdc", "ONLINE")]
    s = snap(flavour, "healthy")
    ds = {d.name: d for d in s.datasets.value or ()}
    assert set(ds) == {"tank", "tank/home", "tank/home/alice", "tank/media", "tank/vol1",
                       "tank/alice-restore"}
    assert ds["tank/vol1"].type == "volume"
    assert ds["tank/alice-restore"].origin == "tank/home/alice@nightly-1"
    assert ds["tank/media"].refer is not None and ds["tank/media"].refer > 40 * 2**20
    # the quotas of setup/healthy.sh, read by the console's own `zfs list` (DEFAULT_COLUMNS)
    assert (ds["tank/home"].quota, ds["tank/home/alice"].refquota) == (1 << 30, 40 << 20)
    assert sum(d.quota is not None or d.refquota is not None for d in ds.values()) == 2
    host = ReplayHost(str(state_dir(flavour, "healthy")))
    snaps = list_snapshots(host, "tank/home/alice").value or ()
    assert [(x.name, x.clones) for x in snaps] == [
        ("tank/home/alice@nightly-1", ("tank/alice-restore",)),
        ("tank/home/alice@before-upgrade", ())]
    inv = s.disks.value
    assert inv is not None
    assert [r.disk for r in inv.roles if r.state is DiskState.FREE] == ["vdd", "vde", "vdf",
                                                                        "vdg"]
    assert inv.role("zd0") is not None  # the zvol is a block device, ignored as a disk
    # the writer loop ran during the capture: the iostat report saw writes on both leaves
    lat = zfs_latency(ReplayHost(str(state_dir(flavour, "healthy"))), 1, pools=[tank(
        flavour, "healthy")])
    assert all(r.write_ops > 0 for r in lat.leaves.values())


@pytest.mark.parametrize("flavour", VERSIONS)
def test_degraded_offline(flavour: str) -> None:
    pool = one_disk_down(flavour, "degraded-offline", "taken offline by the administrator",
                         "OFFLINE")
    assert pool.find("mirror-0").state == "DEGRADED"  # type: ignore[union-attr]


@pytest.mark.parametrize("flavour", VERSIONS)
def test_removed(flavour: str) -> None:
    one_disk_down(flavour, "removed", "removed by the administrator", "REMOVED")
    m = manifest(flavour, "removed")
    assert "/dev/disk/by-id/virtio-zfsvm-vdc" not in m["links"]
    assert "vdc" not in m["dirs"]["/sys/class/block"]


@pytest.mark.parametrize(("flavour", "state", "container", "new"), [
    pytest.param(fl, st, c, n, id=f"{fl}-{st}") for fl in VERSIONS
    for st, c, n in (("resilver-in-progress", "mirror-0", "vdc"),
                     ("replacing-mid-resilver", "replacing-1", "vdf"))])
def test_resilver_caught_mid_way(flavour: str, state: str, container: str, new: str) -> None:
    pool = tank(flavour, state)
    scan = pool.scan
    assert scan is not None
    assert scan.function is ScanFunction.RESILVER and scan.state is ScanState.IN_PROGRESS
    assert scan.percent_done is not None and 25 <= scan.percent_done < 100
    assert scan.issued_bytes is not None and scan.total_bytes is not None
    assert 0 < scan.issued_bytes < scan.total_bytes
    assert pool.status is not None and "currently being resilvered" in pool.status
    leaf = pool.find(new)
    assert leaf is not None and leaf.resilvering
    assert [v.name for _, _, v in pool.walk() if v.resilvering] == [new]
    parent = pool.parent_of(new)
    assert parent is not None and parent.name == container
    if state == "replacing-mid-resilver":
        assert parent.type == "replacing"
        assert children(parent) == [("vdc", "ONLINE"), ("vdf", "ONLINE")]
        assert children(pool.find("mirror-0"))[0] == ("vdb", "ONLINE")
    else:
        assert children(parent) == [("vdb", "ONLINE"), ("vdc", "ONLINE")]
    # the text form says the same percentage
    text = status_text(flavour, state)
    assert text.find(new).note == "(resilvering)"  # type: ignore[union-attr]
    text_scan = text.scan
    assert text_scan is not None and text_scan.percent_done == pytest.approx(
        scan.percent_done, abs=0.01)


@pytest.mark.parametrize("flavour", VERSIONS)
def test_spare_in_use(flavour: str) -> None:
    pool = tank(flavour, "spare-in-use")
    assert pool.state == "DEGRADED"
    spare = pool.find("spare-1")
    assert spare is not None and spare.type == "spare" and spare.state == "DEGRADED"
    assert children(spare) == [("vdc", "OFFLINE"), ("vdd", "ONLINE")]
    assert [(v.name, v.state) for v in pool.spares] == [("vdd", "INUSE")]
    assert pool.spares[0].note == "currently in use"
    assert pool.scan is not None and pool.scan.function is ScanFunction.RESILVER
    assert pool.scan.state is ScanState.FINISHED


@pytest.mark.parametrize("flavour", VERSIONS)
def test_logs_cache_special(flavour: str) -> None:
    pool = tank(flavour, "logs-cache-special")
    assert pool.state == "ONLINE"

    def top(sec: Section) -> list[tuple[str, list[tuple[str, str]]]]:
        return [(v.name, children(v)) for v in pool.section(sec)]

    assert top(Section.DATA) == [("mirror-0", [("vdb", "ONLINE"), ("vdc", "ONLINE")])]
    assert top(Section.LOGS) == [("mirror-1", [("vdd1", "ONLINE"), ("vde1", "ONLINE")])]
    assert top(Section.SPECIAL) == [("mirror-2", [("vdd2", "ONLINE"), ("vde2", "ONLINE")])]
    assert top(Section.DEDUP) == [("mirror-3", [("vdd3", "ONLINE"), ("vde3", "ONLINE")])]
    assert [(v.name, v.state) for v in pool.cache] == [("vdf", "ONLINE")]
    usage = snap(flavour, "logs-cache-special").pool_usage.value
    assert usage is not None
    sections = {v.name: v.section for v in usage[0].vdevs}
    assert sections["mirror-1"] is Section.LOGS and sections["mirror-2"] is Section.SPECIAL
    assert sections["mirror-3"] is Section.DEDUP and sections["vdf"] is Section.CACHE
    special = next(v for v in usage[0].vdevs if v.name == "mirror-2")
    assert special.alloc is not None and special.alloc > 0  # small blocks landed there
    inv = snap(flavour, "logs-cache-special").disks.value
    assert inv is not None
    for part in ("vdd1", "vdd2", "vdd3", "vde1", "vde2", "vde3"):
        d = inv.device(part)
        assert d is not None and d.kind == "part" and d.parent == part[:3]
    for disk, sec in (("vdd", Section.LOGS), ("vdf", Section.CACHE)):
        role = inv.role(disk)
        assert role is not None and role.state is DiskState.IN_POOL and role.section is sec


@pytest.mark.parametrize("flavour", VERSIONS)
def test_dedup_table(flavour: str) -> None:
    pool = status_text(flavour, "dedup", "-D")
    ddt = pool.ddt
    assert ddt is not None
    assert ddt.entries > 0
    usage = snap(flavour, "dedup").pool_usage.value
    assert usage is not None and usage[0].dedupratio is not None and usage[0].dedupratio > 3
    if flavour == "2.1":
        # 2.1 prints per-entry averages: a few hundred bytes each
        assert not ddt.sizes_are_totals
        assert ddt.size_in_core < 1024 and ddt.size_on_disk < 1024
        assert ddt.core_total_bytes == ddt.entries * ddt.size_in_core
    else:
        # 2.3 prints totals
        assert ddt.sizes_are_totals
        assert ddt.core_total_bytes == ddt.size_in_core > ddt.entries
    ds = {d.name: d for d in snap(flavour, "dedup").datasets.value or ()}
    assert ds["tank/dd"].dedup == "on"


@pytest.mark.parametrize("flavour", VERSIONS)
def test_many_snapshots(flavour: str) -> None:
    host = ReplayHost(str(state_dir(flavour, "many-snapshots")))
    counts = {}
    for name in ("tank/projects", "tank/home", "tank/projects/web", "tank/projects-old",
                 "tank/projects-older", "tank/home-restore", "tank"):
        part = list_snapshots(host, name)
        assert part.ok, part.error
        counts[name] = len(part.value or ())
    assert counts == {"tank/projects": 400, "tank/home": 250, "tank/projects/web": 100,
                      "tank/projects-old": 1, "tank/projects-older": 0,
                      "tank/home-restore": 0, "tank": 0}
    snaps = {s.name: s for s in list_snapshots(host, "tank/projects").value or ()}
    assert snaps["tank/projects@auto-0100"].clones == ("tank/projects-old",)
    assert list(snaps)[0] == "tank/projects@auto-0001"
    assert list(snaps)[-1] == "tank/projects@auto-0400"
    ds = {d.name: d for d in snap(flavour, "many-snapshots").datasets.value or ()}
    assert ds["tank/projects-old"].origin == "tank/projects@auto-0100"
    assert ds["tank/projects-older"].origin == "tank/projects-old@fork"  # clone of a clone
    assert ds["tank/home-restore"].origin == "tank/home@auto-0250"
    assert ds["tank/projects"].usedbysnapshots is not None
    size = sum(p.stat().st_size for p in state_dir(flavour, "many-snapshots").rglob("*")
               if p.is_file())
    assert size < 1024 * 1024


# -- zconsole parse over every captured output ---------------------------------------------

def _parse_args(flavour: str, argv: list[str]) -> list[str] | None:
    head = tuple(argv[:2])
    if head == ("zpool", "status"):
        return ["zpool-status", "--zfs-version", flavour]
    if head == ("zpool", "list"):
        return ["zpool-list"]
    if head == ("zpool", "iostat"):
        return ["zpool-iostat"]
    if head == ("zpool", "get"):
        return ["zpool-get"]
    if head == ("zfs", "list"):
        return ["zfs-list", "--columns", argv[argv.index("-o") + 1]]
    if argv[0] == "udevadm":
        return ["udev-db"]
    if argv[0] == "lsblk":
        return ["lsblk"]
    return None  # zfs version, zpool version, uname, ip, bridge: not `zconsole parse` kinds


@pytest.mark.parametrize(("flavour", "state"), CASES)
def test_zconsole_parse_every_output(flavour: str, state: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    d = state_dir(flavour, state)
    m = manifest(flavour, state)
    parsed = 0
    for c in m["commands"]:
        args = _parse_args(flavour, c["argv"])
        if args is None or c["returncode"] != 0:
            continue
        kind, *opts = args
        assert main(["parse", kind, str(d / c["stdout"]), *opts]) == 0, c["argv"]
        parsed += 1
    for path, kind in ((C.ARCSTATS, "arcstats"), (C.DISKSTATS, "diskstats")):
        assert main(["parse", kind, str(d / m["files"][path])]) == 0
    out = capsys.readouterr()
    assert "does not read as" not in out.err
    assert parsed >= (18 if flavour == "2.3" else 15)
    assert "pool tank:" in out.out
