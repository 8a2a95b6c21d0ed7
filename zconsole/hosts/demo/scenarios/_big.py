"""What the big-host scenarios share: racks of identical disks with unique serials, and a
dataset tree of many projects (`big100`, `big1000`)."""

from __future__ import annotations

from zconsole.hosts.demo.machine.common import GiB, MiB, TiB
from zconsole.hosts.demo.machine.disks import Disk
from zconsole.hosts.demo.machine.pools import Vdev
from zconsole.hosts.demo.scenarios._builder import Builder

HDD_16T = 16000900661248
HDD_20T = 20000588955648
SSD_3T84 = 3840755982336


def hdds(
    b: Builder, count: int, model: str, prefix: str, size: int, start: int = 0, load: float = 0.6
) -> list[Disk]:
    return [b.hdd(model, f"{prefix}{start + i:05d}", size, load=load) for i in range(count)]


def ssds(
    b: Builder, count: int, model: str, prefix: str, size: int, load: float = 1.5
) -> list[Disk]:
    return [b.ssd(model, f"{prefix}{i:05d}", size, load=load) for i in range(count)]


def leaves(b: Builder, disks: list[Disk], pool: str) -> list[Vdev]:
    return [b.leaf(d, pool) for d in disks]


def groups(items: list[Vdev], size: int) -> list[list[Vdev]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def project_tree(
    b: Builder, pool: str, projects: int, *, snaps_each: int = 0, used: int = 2 * TiB
) -> None:
    """`pool/projects/pNNN`, each with a data and a scratch child and a few snapshots."""
    b.fs(pool, 128 * 1024, days_ago=900, props={"compression": "lz4", "atime": "off"})
    b.fs(f"{pool}/projects", 128 * 1024, days_ago=900)
    for i in range(projects):
        name = f"{pool}/projects/p{i:03d}"
        share = used // max(1, projects)
        b.fs(name, 96 * 1024, days_ago=800 - i % 700)
        b.fs(f"{name}/data", share * 9 // 10 + i * GiB, days_ago=800 - i % 700)
        b.fs(
            f"{name}/scratch",
            share // 10 + i * MiB,
            days_ago=100 - i % 90,
            props={"sync": "disabled"},
        )
        for k in range(snaps_each):
            b.snap(
                f"{name}/data",
                f"daily-{k:02d}",
                used=(64 + 7 * k + i) * MiB,
                days_ago=snaps_each - k,
            )
