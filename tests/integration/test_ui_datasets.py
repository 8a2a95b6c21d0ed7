"""The Datasets screen on real OpenZFS (2.1.11 and 2.3.2 guests): values equal `zfs list -H -p`,
and the computed blast radius equals what `zfs destroy -nv` (without -R) lists after
"use '-R' to destroy the following datasets:". Needs ZCONSOLE_VM=1."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest
from vmguest import SAME_SCREEN_READS

if TYPE_CHECKING:
    from tests.integration.conftest import ZfsGuest

pytestmark = pytest.mark.zfsvm

USE_R = "use '-R' to destroy the following datasets:"


def use_r_list(stderr: str) -> set[str]:
    """Every name zfs printed under a "use '-R' ..." header (one block per refused
    snapshot with -r)."""
    out: set[str] = set()
    listing = False
    for line in stderr.splitlines():
        if line.strip() == USE_R:
            listing = True
            continue
        if line.startswith("cannot destroy") or not line.strip():
            listing = False
            continue
        if listing:
            out.add(line.strip())
    return out


def zfs_list(guest: ZfsGuest, *args: str) -> list[list[str]]:
    out = guest.exec(["zfs", "list", "-H", "-p", *args]).stdout
    return [line.split("\t") for line in out.splitlines() if line.strip()]


@pytest.fixture
def clone_chain(zfs_guest: ZfsGuest) -> Iterator[ZfsGuest]:
    """tank/data (@s1, @s2) with tank/data/child (@s1, from `snapshot -r`); tank/c1 cloned from
    tank/data@s1, with a child tank/c1/sub (@x) and a snapshot @cs; tank/c2 cloned from
    tank/c1@cs (a clone of a clone)."""
    g = zfs_guest
    g.reset()
    g.exec(["zpool", "create", "tank", "mirror", "vdb", "vdc"])
    g.exec(["zfs", "create", "tank/data"])
    g.exec(["zfs", "create", "tank/data/child"])
    g.exec("dd if=/dev/urandom of=/tank/data/f bs=1M count=8 2>/dev/null; "
           "dd if=/dev/urandom of=/tank/data/child/f bs=1M count=2 2>/dev/null; sync")
    g.exec(["zfs", "snapshot", "-r", "tank/data@s1"])
    g.exec("dd if=/dev/urandom of=/tank/data/g bs=1M count=4 2>/dev/null; sync")
    g.exec(["zfs", "snapshot", "tank/data@s2"])
    g.exec(["zfs", "clone", "tank/data@s1", "tank/c1"])
    g.exec(["zfs", "create", "tank/c1/sub"])
    g.exec(["zfs", "snapshot", "tank/c1/sub@x"])
    g.exec(["zfs", "snapshot", "tank/c1@cs"])
    g.exec(["zfs", "clone", "tank/c1@cs", "tank/c2"])
    g.exec(["zpool", "sync", "tank"])
    try:
        yield g
    finally:
        g.reset()


async def _wait(pilot: Any, cond: Callable[[], bool], what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await pilot.pause(0.05)


@pytest.mark.zfs_flavours("2.3", why=SAME_SCREEN_READS)
async def test_datasets_screen_on_the_guest(clone_chain: ZfsGuest) -> None:
    from textual.widgets import Static

    from zconsole.services.read.datasets import blast_radius
    from zconsole.ui.app import ZConsoleApp
    from zconsole.ui.screens.datasets.screen import DatasetsScreen
    from zconsole.ui.screens.datasets.tree_table import TreeTable

    g = clone_chain
    app = ZConsoleApp(g.host(), refresh_interval=3600)
    async with app.run_test(size=(120, 40)) as pilot:
        await _wait(pilot, lambda: app.reading is not None and app.refresh_started is None,
                    "the first refresh", 300)
        await pilot.press("3")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DatasetsScreen)
        table = screen.query_one(TreeTable)
        await _wait(pilot, lambda: bool(table.rows), "the tree")

        # filesystems: the same numbers zfs prints
        expected = {r[0]: (int(r[1]), int(r[2]), int(r[3]), r[4]) for r in zfs_list(
            g, "-t", "filesystem,volume", "-o", "name,used,refer,usedbysnapshots,origin")}
        shown = {r.key: r.dataset for r in table.rows if r.kind == "dataset"}
        assert set(shown) == set(expected)
        for name, (used, refer, usedsnap, origin) in expected.items():
            d = shown[name]
            assert d is not None
            assert (d.used, d.refer, d.usedbysnapshots) == (used, refer, usedsnap), name
            assert (d.origin or "-") == origin, name

        # opening tank/data lists its snapshots through the worker
        assert table.move_to("tank/data")
        await pilot.pause()
        await pilot.press("enter")
        await _wait(pilot, lambda: any(r.kind == "snapshot" for r in table.rows),
                    "the snapshots of tank/data")
        snaps = {r.key: r.dataset for r in table.rows if r.kind == "snapshot"}
        want = {r[0]: (int(r[1]), int(r[2])) for r in zfs_list(
            g, "-t", "snapshot", "-d", "1", "-o", "name,used,refer", "tank/data")}
        assert set(snaps) == set(want) == {"tank/data@s1", "tank/data@s2"}
        for name, (used, refer) in want.items():
            d = snaps[name]
            assert d is not None and (d.used, d.refer) == (used, refer), name
        i = table.index_of("tank/data@s1")
        assert i is not None and table.rows[i + 1].target == "tank/c1"

        # scan every snapshot name, then compare the radius with zfs's own refusal lists
        await pilot.press("a")
        await _wait(pilot, lambda: "Snapshot scan done" in str(
            screen.query_one("#ds-status", Static).render()), "the scan")
        assert screen.dtree is not None
        known = screen.known().names()
        assert sum(len(v) for v in known.values()) == len(zfs_list(
            g, "-t", "snapshot", "-o", "name"))

        big = blast_radius(screen.dtree, "tank/data@s1", "-R", known)
        assert big.complete
        targeted = {"tank/data@s1", "tank/data/child@s1"}
        computed = (set(big.datasets) | set(big.snapshots)) - targeted
        assert computed == {"tank/c1", "tank/c1/sub", "tank/c1/sub@x", "tank/c1@cs",
                            "tank/c2"}
        proc = g.exec(["zfs", "destroy", "-nvr", "tank/data@s1"], check=False)
        assert proc.returncode != 0
        assert use_r_list(proc.stderr) == computed

        small = blast_radius(screen.dtree, "tank/data", "-r", known)
        assert small.refused
        proc = g.exec(["zfs", "destroy", "-nvr", "tank/data"], check=False)
        assert proc.returncode != 0 and USE_R in proc.stderr
        assert use_r_list(proc.stderr) == set(small.use_R)

        # the panel says the same in words
        table.move_to("tank/data@s1")
        await pilot.pause(0.6)
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = " ".join(str(screen.query_one("#ds-radius").render()).split())
        assert "cannot destroy: 1 clone depends on it: tank/c1" in text
        assert "zfs destroy -R tank/data@s1 would also destroy: 3 filesystems/volumes" in text

    # nothing was destroyed: the screen is read-only
    assert {r[0] for r in zfs_list(g, "-t", "all", "-o", "name")} >= {
        "tank/data@s1", "tank/c1", "tank/c2"}
