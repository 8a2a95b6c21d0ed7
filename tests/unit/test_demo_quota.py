"""The demo answers quota and refquota as real zfs does (issue 29): `zfs list -p` / `zfs get
-p` print 0 for none and bytes when set, `-` for a volume (real 2.1.11 and 2.3.2 output:
tests/fixtures/parsers/zfs-list/guest-zfs-*-default-columns.txt); without `-p`, `none` and
the size; AVAIL is what the quota of the dataset or of an ancestor, or its refquota, leaves
(zfsprops(7))."""

from __future__ import annotations

from zconsole.hosts.demo import DemoHost

GiB = 1 << 30


def listing(host: DemoHost, *names: str) -> dict[str, list[str]]:
    out = host.run(("zfs", "list", "-H", "-p", "-o", "name,used,avail,refer,quota,refquota",
                    *names)).stdout
    return {r.split("\t")[0]: r.split("\t")[1:] for r in out.splitlines()}


def test_no_quota_is_0_with_p_and_none_without() -> None:
    host = DemoHost("healthy", seed=0)
    rows = listing(host, "tank/home", "tank/vm/debian12")
    assert rows["tank/home"][3:] == ["0", "0"]
    assert rows["tank/vm/debian12"][3:] == ["-", "-"]  # a volume: neither applies
    got = host.run(("zfs", "get", "-H", "quota,refquota", "tank/home")).stdout.splitlines()
    assert got == ["tank/home\tquota\tnone\tdefault", "tank/home\trefquota\tnone\tdefault"]


def test_a_quota_and_a_refquota_set_bound_avail() -> None:
    host = DemoHost("healthy", seed=0)
    for argv in (("zfs", "set", "quota=1T", "tank/home"),
                 ("zfs", "set", "refquota=160G", "tank/home/bob")):
        assert host.run(argv).returncode == 0
    rows = listing(host, "tank/home", "tank/home/alice", "tank/home/bob", "tank/media")
    used, avail, _, quota, refquota = (int(x) for x in rows["tank/home"])
    assert (quota, refquota) == (1 << 40, 0) and avail == (1 << 40) - used
    assert int(rows["tank/home/alice"][1]) == avail  # the parent's quota bounds a child
    bob_avail, bob_refer = int(rows["tank/home/bob"][1]), int(rows["tank/home/bob"][2])
    assert rows["tank/home/bob"][4] == str(160 * GiB)
    assert bob_avail == min(avail, 160 * GiB - bob_refer)
    assert int(rows["tank/media"][1]) > avail  # outside tank/home: the pool's free space
    got = host.run(("zfs", "get", "-H", "quota", "tank/home")).stdout
    assert got == "tank/home\tquota\t1T\tlocal\n"
    got = host.run(("zfs", "get", "-H", "-p", "quota", "tank/home")).stdout
    assert got == f"tank/home\tquota\t{1 << 40}\tlocal\n"
