"""guards.holding: the one count behind every redundancy line (issue 26, item 3).

A table over real `zpool status` shapes (captured on the guests and quoted from OpenZFS issues
and docs) and the demo's: for each top-level vdev, what ZFS holds now, during and after an
attach, and a replace of its first unwell member. Mirrors count whole copies; raidz and dRAID
count the disks they can still lose. Resilvers already running are finished "after"; a
replacing or spare container is one copy; UNAVAIL/FAULTED/OFFLINE members hold nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from zconsole.hosts.demo import DemoHost
from zconsole.model.pool import Pool, Vdev
from zconsole.parsers.zpool_status import parse_zpool_status
from zconsole.services.ops.zfs import guards as G
from zconsole.services.read.collect import collect

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "parsers" / "zpool-status"
T0 = 1795302000.0
F0 = "nvme-WD_BLACK_SN770_1TB_22517D801234"
F1 = "nvme-WD_BLACK_SN770_1TB_22517D805678"


def _fixture(name: str) -> tuple[Pool, ...]:
    text = (FIXTURES / name).read_text()
    if name.endswith("-series.txt"):  # timestamp, one status, timestamp, ...: the first one
        body = text.split("\n", 1)[1]
        lines: list[str] = []
        for line in body.splitlines():
            if line.strip().isdigit():
                break
            lines.append(line)
        text = "\n".join(lines) + "\n"
    return tuple(parse_zpool_status(text))


def _demo(scenario: str) -> tuple[Pool, ...]:
    return collect(DemoHost(scenario, "2.3", clock=lambda: T0)).pool_status.value or ()


def _pools(source: str) -> tuple[Pool, ...]:
    return _demo(source[5:]) if source.startswith("demo ") else _fixture(source)


def _top(pools: tuple[Pool, ...], pool: str, top: str) -> Vdev:
    found = next(p for p in pools if p.name == pool).find(top)
    assert found is not None
    return found


def _unwell(top: Vdev) -> str | None:
    """The first leaf that is not ONLINE or is being resilvered (what a replace would take)."""
    return next((v.name for _, v in top.walk() if not v.children
                 and (v.state != "ONLINE" or v.resilvering)), None)


def _counts(h: G.Holding) -> tuple[int, int, int]:
    return h.now, h.during, h.after


# source, pool, top-level vdev, attach (now, during, after), replace of the first unwell leaf
TABLE = [
    # 3-way mirror on the 2.3.2 guest: a 4th disk makes 4 copies
    ("openzfs-2.3.2-attach-3way-mirror.txt", "tank", "mirror-0", (3, 3, 4), None),
    # raidz2 with a hot spare INUSE elsewhere: an expansion adds no parity
    ("zol-0.6.5.9-issue7577-spare-inuse.txt", "array", "raidz2-0", (2, 2, 2), None),
    # dRAID rebuilding to its distributed spare: every member says "(resilvering)", the
    # margin is 0 until the spare holds sdg's data, 1 after
    ("openzfs-docs-draid-howto-sequential-resilver-to-draid-spare.txt", "tank",
     "draid1:4d:11c:1s-0", (0, 0, 1), None),
    ("openzfs-docs-draid-howto-created-avail-spare.txt", "tank", "draid1:4d:11c:1s-0",
     (1, 1, 1), None),
    # the 2.1.11 guest: one dRAID's spare finished (margin back to 1), the other still running
    ("guest-zfs-2.1.11-draid-rebuild-series.txt", "tank", "draid1:1d:3c:1s-0", (1, 1, 1), None),
    ("guest-zfs-2.1.11-draid-rebuild-series.txt", "tank", "draid1:1d:3c:1s-1", (0, 0, 1), None),
    # the 2.3.2 guest: both still rebuilding (-0's held at 99.47 %): 0 until each ends
    ("guest-zfs-2.3.2-draid-rebuild-series.txt", "tank", "draid1:1d:3c:1s-0", (0, 0, 1), None),
    ("guest-zfs-2.3.2-draid-rebuild-series.txt", "tank", "draid1:1d:3c:1s-1", (0, 0, 1), None),
    # a replacing vdev inside a mirror (old OFFLINE, new resilvering) beside a DEGRADED disk
    ("zol-0.8-issue7537-replacing-too-many-errors.excerpt.txt", "vz", "mirror-0", (0, 0, 3),
     (0, 0, 2)),
    # raidz2 with a FAULTED member: replacing it gives the second parity back
    ("openzfs-2.1-issue15033-faulted-too-many-errors.excerpt.txt", "tank", "raidz2-0",
     (1, 1, 1), (1, 1, 2)),
    # a single-disk vdev becomes a 2-way mirror
    ("openzfs-docs-msg-K4-logs-degraded.txt", "test", "c3t2d0", (1, 1, 2), None),
    # the showcase: fast mirror-0 has one good copy and one being resilvered; attaching sdi
    # makes a 3-way mirror (issue 26: the plan said "2 copies after")
    ("demo showcase", "fast", "mirror-0", (1, 1, 3), (1, 1, 2)),
    ("demo showcase", "tank", "mirror-0", (2, 2, 3), None),
    # degraded: a FAULTED member, and a mirror whose member is UNAVAIL (named by its guid)
    ("demo degraded", "tank", "mirror-0", (1, 1, 2), (1, 1, 2)),
    ("demo degraded", "tank", "mirror-2", (1, 1, 2), (1, 1, 2)),
    # a hot spare in use: the spare container is one copy; the replace keeps 2
    ("demo degraded-spare", "tank", "mirror-0", (2, 2, 3), (2, 2, 2)),
    ("demo big100", "tank", "raidz2-0", (2, 2, 2), None),
]


@pytest.mark.parametrize(("source", "pool", "vdev", "attach", "replace"), TABLE,
                         ids=[f"{s}:{v}" for s, _, v, _, _ in TABLE])
def test_what_zfs_holds_now_during_and_after(source: str, pool: str, vdev: str,
                                             attach: tuple[int, int, int],
                                             replace: tuple[int, int, int] | None) -> None:
    top = _top(_pools(source), pool, vdev)
    assert _counts(G.holding(top, "attach")) == attach
    leaf = _unwell(top)
    if replace is None:
        return
    assert leaf is not None
    assert _counts(G.holding(top, "replace", leaf)) == replace


def test_the_attach_line_counts_the_resilvering_member_after() -> None:
    """Issue 26 item 3: the showcase attach to fast mirror-0 ends with 3 copies."""
    fast = next(p for p in _demo("showcase") if p.name == "fast")
    now, after = G.redundancy_preview(fast, F0, "attach", new="NEW")
    assert now == f"mirror-0 has 1 copy now ({F0}); {F1} is resilvering."
    assert after == (f"mirror-0 keeps 1 copy ({F0}) while NEW is resilvered; 3 copies after "
                     f"(once the resilver of {F1} ends too).")


def test_detach_and_offline_count_what_stays_readable_at_once() -> None:
    fast = next(p for p in _demo("showcase") if p.name == "fast")
    top = fast.find("mirror-0")
    assert top is not None
    assert _counts(G.holding(top, "detach", F1)) == (1, 1, 1)  # the partial copy goes
    assert _counts(G.holding(top, "detach", F0)) == (1, 0, 0)  # ZFS refuses: no valid replicas
    assert _counts(G.holding(top, "offline", F0)) == (1, 0, 3 - 1)


def test_the_dspare_rebuild_is_not_read_as_ten_failed_disks() -> None:
    [pool] = _fixture("openzfs-docs-draid-howto-sequential-resilver-to-draid-spare.txt")
    top = pool.vdevs[0]
    first = G.redundancy_preview(pool, top.name, "attach", new="NEW")[0]
    assert first == (f"{top.name} (11 disks, parity 1) can lose 0 more disks now "
                     "(spare-6 is covered by a spare, resilvering).")


def test_raidz_expansion_adds_no_copy() -> None:
    [pool] = _fixture("openzfs-2.1-issue15033-faulted-too-many-errors.excerpt.txt")
    after = G.redundancy_preview(pool, "raidz2-0", "attach", new="NEW")[1]
    assert after == ("Attaching NEW to raidz2-0 starts a raidz expansion: it adds no copy "
                     "and no parity. raidz2-0 can lose 1 more disk during the expansion and "
                     "1 more disk after.")


def test_unknown_operation_is_an_error() -> None:
    top = _top(_demo("showcase"), "tank", "mirror-0")
    with pytest.raises(ValueError):
        G.holding(top, "explode")


def test_detach_inside_a_draid_counts_losses_not_copies() -> None:
    """Detaching the OFFLINE disk under a finished distributed spare makes the spare
    permanent: the dRAID can still lose 1 disk (the check said 'keeps N copies')."""
    pools = _fixture("guest-zfs-2.1.11-draid-rebuild-series.txt")  # -0's rebuild finished
    [pool] = pools
    checks = {c.name: c for c in G.check_detach(pool, "vdc")}
    after = checks[G.REDUNDANCY_AFTER]
    assert after.passed and after.detail == "draid1:1d:3c:1s-0 can lose 1 more disk after the detach."
