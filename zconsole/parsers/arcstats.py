"""/proc/spl/kstat/zfs/arcstats -> ArcStats, plus interval ratios from two samples.

Format: a kstat header line (`18 1 0x01 147 39984 13429029570 78990487020`: kid, type, flags,
number of entries, data size, creation and snapshot times in ns), a column header
`name type data`, then one `name type value` line per statistic, whitespace-aligned.
Types: 4 = uint64, 3 = int64 (`memory_available_bytes` is negative under memory pressure),
1/2 = int32/uint32 (accepted). Other kstat types are skipped.

Version traps: the field set changed in OpenZFS 2.2. Gone: `p`, `arc_meta_limit`,
`arc_meta_max`, `arc_meta_min` (and older ones such as `l2_compress_*` before that). New:
`iohits` and `*_iohits` (a read that found its block already being read), `meta`, `pd`, `pm`,
`mru_data`/`mru_metadata`..., `uncached_*`. Consequently the hit ratio is
hits/(hits+misses) on 2.1 and hits/(hits+iohits+misses) on 2.2+. Always work on deltas of two
samples: lifetime counters since module load hide what is happening now.
"""

from __future__ import annotations

from zconsole.model.arc import ArcStats
from zconsole.parsers.errors import parser
from zconsole.parsers.kstat import parse_kstat

SOURCE = "arcstats"


@parser(SOURCE)
def parse_arcstats(text: str) -> ArcStats:
    return ArcStats(fields=parse_kstat(text, SOURCE).fields)


def _delta(prev: ArcStats, cur: ArcStats, name: str) -> int | None:
    a, b = prev.get(name), cur.get(name)
    if a is None or b is None or b < a:  # missing, or the module was reloaded
        return None
    return b - a


def arc_hit_ratio(prev: ArcStats, cur: ArcStats) -> float | None:
    """Share of ARC reads served from memory over the interval, 0..1; None if no reads.

    2.1: hits / (hits + misses). 2.2+: hits / (hits + iohits + misses).
    """
    hits = _delta(prev, cur, "hits")
    misses = _delta(prev, cur, "misses")
    if hits is None or misses is None:
        return None
    total = hits + misses
    if cur.has_iohits and prev.has_iohits:
        iohits = _delta(prev, cur, "iohits")
        if iohits is None:
            return None
        total += iohits
    return hits / total if total else None


def arc_iohit_ratio(prev: ArcStats, cur: ArcStats) -> float | None:
    """2.2+ only: share of reads that joined an I/O already in flight (ioh%)."""
    if not (cur.has_iohits and prev.has_iohits):
        return None
    hits = _delta(prev, cur, "hits")
    iohits = _delta(prev, cur, "iohits")
    misses = _delta(prev, cur, "misses")
    if hits is None or iohits is None or misses is None:
        return None
    total = hits + iohits + misses
    return iohits / total if total else None


def demand_data_efficiency(prev: ArcStats, cur: ArcStats) -> float | None:
    """demand_data_hits / (demand_data_hits + demand_data_misses) over the interval."""
    hits = _delta(prev, cur, "demand_data_hits")
    misses = _delta(prev, cur, "demand_data_misses")
    if hits is None or misses is None:
        return None
    total = hits + misses
    return hits / total if total else None
