"""`zconsole capture` on the live guest, then ReplayHost of that capture gives the same picture
as the live SshHost.  Needs ZCONSOLE_VM=1 (see tools/testvm/README.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from zconsole.cli.main import main
from zconsole.hosts.replay import ReplayHost
from zconsole.model.reading import HostReading
from zconsole.services.read.collect import collect, list_snapshots, pool_properties

if TYPE_CHECKING:
    from conftest import ZfsGuest

pytestmark = pytest.mark.zfsvm

PARTS = ("kernel", "pool_status", "pool_usage", "datasets", "arc", "diskstats", "disks")


def _make_state(g: ZfsGuest) -> None:
    g.exec("zpool create tank mirror vdb vdc && zpool create -o ashift=12 scratch vdf && "
           "zfs create tank/home && zfs create -V 32M tank/vol && "
           "head -c 8M /dev/urandom > /tank/home/f && zfs snapshot tank/home@one && "
           "zfs clone tank/home@one tank/home-clone && zpool offline tank vdc && sync")


def _stable(snap: HostReading) -> dict[str, object]:
    """What must be identical between the live read and the replay of its capture."""
    pools = snap.pool_status.value or ()
    usage = snap.pool_usage.value or ()
    inv = snap.disks.value
    assert inv is not None
    return {
        "zfs": (snap.zfs.presence, snap.zfs.userland, snap.zfs.version, snap.zfs.json_status),
        "kernel": snap.kernel.value,
        # the trees: names, types, states, notes, counters, paths (no scan timing in this state)
        "pools": pools,
        "usage": [(u.name, u.size, u.health, [(v.name, v.section, v.size, v.health)
                                              for v in u.vdevs]) for u in usage],
        "datasets": [(d.name, d.type, d.origin, d.mountpoint) for d in snap.datasets.value or ()],
        "disks": [(d.name, d.kind, d.serial, d.by_id, d.size_bytes, d.parent)
                  for d in inv.devices],
        "roles": inv.roles,
        "arc_fields": sorted((snap.arc.value.fields if snap.arc.value else {}).keys()),
        "diskstats": sorted(s.name for s in snap.diskstats.value or ()),
    }


def test_capture_replays_like_the_live_host(clean_guest: ZfsGuest, tmp_path: Path) -> None:
    g = clean_guest
    _make_state(g)
    live_host = g.host()
    try:
        live = collect(live_host)
        live_snaps = list_snapshots(live_host, "tank/home")
        live_props = pool_properties(live_host, "tank")
    finally:
        live_host.close()
    for part in PARTS:
        assert getattr(live, part).ok, (part, getattr(live, part).error)

    out = tmp_path / "cap"
    rc = main(["--host", g.alias, "--ssh-config", str(g.ssh_config), "capture", str(out),
               "--state", "test: tank mirror with vdc offline, scratch single disk"])
    assert rc == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["zfs_version"] == g.zfs_version
    assert manifest["state"].startswith("test: tank mirror")
    assert manifest["root"] is True

    replay = collect(ReplayHost(str(out)))
    for part in PARTS:
        assert getattr(replay, part).ok, (part, getattr(replay, part).error)
    assert _stable(replay) == _stable(live)

    pools = {p.name: p for p in replay.pool_status.value or ()}
    assert set(pools) == {"tank", "scratch"}
    assert pools["tank"].state == "DEGRADED"
    vdc = pools["tank"].find("vdc")
    assert vdc is not None and vdc.state == "OFFLINE"
    assert [d.name for d in replay.datasets.value or ()] == [
        "scratch", "tank", "tank/home", "tank/home-clone", "tank/vol"]

    rh = ReplayHost(str(out))
    snaps = list_snapshots(rh, "tank/home")
    assert snaps.ok and live_snaps.ok
    assert [s.name for s in snaps.value or ()] == [s.name for s in live_snaps.value or ()] == [
        "tank/home@one"]
    props = pool_properties(rh, "tank")
    assert props.ok and live_props.ok
    wanted = {"health", "size", "ashift", "guid"}
    got = {p.property: p.value for p in props.value or () if p.property in wanted}
    assert got == {p.property: p.value for p in live_props.value or () if p.property in wanted}
    assert got["health"] == "DEGRADED"
