"""The ARC: its sizes, the rates that drive its counters, and `count_arc`, which moves the
counters /proc/spl/kstat/zfs/arcstats shows; `Zil`, the rates behind
/proc/spl/kstat/zfs/zil."""

from __future__ import annotations

from dataclasses import dataclass, field

from zconsole.hosts.demo.machine.common import GiB, jitter


@dataclass
class Arc:
    c_max: int
    c_min: int
    c: int
    size: int
    mru_frac: float = 0.45
    hit_rate: float = 2400.0  # demand hits per second
    miss_rate: float = 60.0
    iohit_rate: float = 8.0
    counters: dict[str, float] = field(default_factory=dict)
    l2_size: int = 0
    l2_asize: int = 0
    l2_hit_share: float = 0.3  # share of the ARC's misses the L2ARC answers
    memory_all: int = 64 * GiB
    throttled: int = 0


@dataclass
class Zil:
    """Log blocks a second written to log devices (`slog_per_s`) and to pools' own vdevs
    (`normal_per_s`), host-wide, since the module loaded. A machine without one gets
    `default_zil`: busy log devices where it has some, a trickle to the pools."""

    slog_per_s: float
    normal_per_s: float
    commits_per_block: float = 1.6  # fsyncs per log block (several commits share one)


def count_arc(a: Arc, seed: int, now: float, dt: float) -> None:
    """Move the ARC's hit and miss counters on by `dt` seconds ending at `now`."""
    k = a.counters
    b = int(now)
    jh = jitter(seed, "arc", b, 0.15)
    hits = a.hit_rate * jh * dt
    misses = a.miss_rate * jitter(seed, "arcm", b, 0.2) * dt
    iohits = a.iohit_rate * dt
    for key, v in (
        ("hits", hits), ("misses", misses), ("iohits", iohits),
        ("demand_data_hits", hits * 0.62), ("demand_data_misses", misses * 0.55),
        ("demand_data_iohits", iohits * 0.5),
        ("demand_metadata_hits", hits * 0.33), ("demand_metadata_misses", misses * 0.2),
        ("demand_metadata_iohits", iohits * 0.3),
        ("prefetch_data_hits", hits * 0.01), ("prefetch_data_misses", misses * 0.2),
        ("prefetch_data_iohits", iohits * 0.1),
        ("prefetch_metadata_hits", hits * 0.04), ("prefetch_metadata_misses", misses * 0.05),
        ("prefetch_metadata_iohits", iohits * 0.1),
        ("mru_hits", hits * a.mru_frac), ("mfu_hits", hits * (1 - a.mru_frac)),
        ("mru_ghost_hits", misses * 0.08), ("mfu_ghost_hits", misses * 0.03),
        ("deleted", misses * 0.9),
        ("l2_hits", misses * a.l2_hit_share if a.l2_size else 0.0),
        ("l2_misses", misses * (1 - a.l2_hit_share) if a.l2_size else 0.0),
    ):
        k[key] = k.get(key, 0.0) + v
