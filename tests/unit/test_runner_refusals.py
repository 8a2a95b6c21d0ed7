"""services.refusals: every refusal of the facts file and of the demo host is explained."""

from __future__ import annotations

import pytest

from zconsole.hosts.demo import DemoHost
from zconsole.services.ops.zfs.refusals import explain

T0 = 1795302000.0
A0 = "ata-HGST_HUS724040ALE640_PN2334PBJ1A2BT"
A1 = "ata-HGST_HUS724040ALE640_PN2334PBJ4K7XT"
SPARE = "ata-HGST_HUS724040ALE640_PN2334PBJ7F5ZT"
CACHE = "nvme-Samsung_SSD_980_PRO_1TB_S5GXNF0R123456A"
FAST0 = "nvme-WD_BLACK_SN770_1TB_22517D801234"

# shared/reference/zfs-linux-facts.md, "Disk operations": the refusal texts, with the prefix
FACTS = {
    "cannot attach sdk to sda: device is too small": "smaller than the smallest member",
    "cannot attach sdk to sdb1: can only attach to mirrors and top-level disks":
        "single-disk vdev or to a mirror",
    "cannot attach sdk to sda: sdk is busy, or device removal is in progress":
        "Something holds the new disk open",
    "cannot replace sda with sdk: new device has a different optimal sector size; use the "
    "option '-o ashift=N' to override the optimal size": "ashift",
    "cannot replace sda with sdk: already in replacing/spare config; wait for completion or "
    "use 'zpool detach'": "already being replaced",
    "cannot replace sda with sdk: no such device in pool": "does not know this device",
    "cannot attach sdk to sdg: device is reserved as a hot spare": "hot spares",
    "cannot detach sda: no valid replicas": "without a complete copy",
}


@pytest.mark.parametrize("stderr,words", FACTS.items())
def test_facts_refusals(stderr: str, words: str) -> None:
    text = explain(stderr + "\n")
    assert text is not None and words in text


def _demo_refusals(version: str) -> list[tuple[tuple[str, ...], str]]:
    """Run every refusing command the demo host knows; (argv, stderr) of each."""
    h = DemoHost("showcase", version, lambda: T0)
    g = DemoHost("grow", version, lambda: T0)
    cases = [
        (h, ("zpool", "attach", "tank", A0, "sdi")),  # too small
        (h, ("zpool", "attach", "tank", A0, "sdj")),  # sector size
        (h, ("zpool", "attach", "tank", A0, "sdk")),  # mounted
        (h, ("zpool", "attach", "tank", A0, "sdl")),  # exported pool label
        (h, ("zpool", "attach", "tank", A0, "sdc")),  # active pool
        (h, ("zpool", "attach", "-f", "tank", A0, "sdc")),  # -f cannot override
        (h, ("zpool", "attach", "tank", A0, "sdz")),  # no such device in /dev
        (h, ("zpool", "attach", "tank", "nosuch", "sdh")),
        (h, ("zpool", "attach", "tank", "mirror-0", "sdh")),
        (h, ("zpool", "attach", "tank", SPARE, "sdh")),
        (h, ("zpool", "attach", "tank", CACHE, "sdh")),
        (h, ("zpool", "attach", "nopool", A0, "sdh")),
        (h, ("zpool", "detach", "tank", "nosuch")),
        (h, ("zpool", "detach", "tank", "mirror-0")),
        (h, ("zpool", "detach", "tank", SPARE)),
        (h, ("zpool", "detach", "fast", FAST0)),  # no valid replicas
        (h, ("zpool", "offline", "fast", FAST0)),
        (h, ("zpool", "online", "tank", "nosuch")),
        (h, ("zpool", "scrub", "fast")),  # currently resilvering
        (h, ("zpool", "scrub", "-s", "tank")),  # no active scrub
        (h, ("zpool", "set", "size=1", "tank")),
        (h, ("zpool", "set", "bogus=1", "tank")),
        (h, ("zpool", "labelclear", "sdl1")),  # exported pool, needs -f
        (h, ("zpool", "labelclear", f"/dev/disk/by-id/{A0}-part1")),  # active
        (h, ("zfs", "set", "dedup=maybe", "tank")),
        (h, ("zfs", "set", "used=1", "tank")),
        (h, ("zfs", "set", "dedup=off", "tank/nosuch")),
        (h, ("zpool", "attach", "-x", "tank", A0, "sdh")),  # usage
        (g, ("zpool", "replace", "tank", "ata-WDC_WD10EFRX-68FYTN0_WD-WCC4J1GROW01", "sdc")),
    ]
    out = []
    for host, argv in cases:
        r = host.run(list(argv), check=False)
        if argv[:2] == ("zpool", "replace") and r.returncode == 0:
            # a second replace of the same disk while the first still runs
            r = host.run(["zpool", "replace", "tank", argv[3], "sdd"], check=False)
        assert r.returncode != 0, (argv, r)
        out.append((argv, r.stderr))
    return out


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_every_demo_refusal_is_explained(version: str) -> None:
    for argv, stderr in _demo_refusals(version):
        text = explain(stderr)
        assert text, f"no explanation for {argv}: {stderr!r}"
        assert "Nothing was changed" in text or "Nothing could be changed" in text, (argv, text)


def test_specific_wins_over_the_generic_header() -> None:
    stderr = ("invalid vdev specification\nuse '-f' to override the following errors:\n"
              "/dev/sdl1 is part of exported pool 'oldpool'\n")
    text = explain(stderr)
    assert text is not None
    assert text.startswith("The disk carries the label of the exported pool 'oldpool'.")
    assert "ZFS found something on the new disk" not in text
    forced = ("invalid vdev specification\nthe following errors must be manually repaired:\n"
              "/dev/sdc1 is part of active pool 'tank'\n")
    assert explain(forced) == ("The disk belongs to the imported pool 'tank'. Not even -f "
                               "overrides this: it would destroy a live pool. Pick another "
                               "disk. Nothing was changed.")


def test_unknown_and_empty() -> None:
    assert explain("") is None
    assert explain("   \n") is None
    assert explain("something entirely new happened\n") is None
