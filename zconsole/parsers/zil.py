"""/proc/spl/kstat/zfs/zil -> ZilStats: the ZFS intent log counters of the whole host.

The same kstat format as arcstats (parsers/kstat.py). Present in 2.1 and 2.3 with the same
counter names; 2.3 adds `zil_commit_error/stall/suspend_count` and the
`zil_itx_metaslab_{normal,slog}_{write,alloc}` byte counters. 2.2+ also keeps the same
counters per dataset (`/proc/spl/kstat/zfs/POOL/objset-0x*`); zconsole reads only the host's
sum. Counters start at module load: the header's times give how long ago.
"""

from __future__ import annotations

from zconsole.model.advice import ZilStats
from zconsole.parsers.errors import parser
from zconsole.parsers.kstat import parse_kstat

SOURCE = "zil"


@parser(SOURCE)
def parse_zil(text: str) -> ZilStats:
    k = parse_kstat(text, SOURCE)
    return ZilStats(fields=k.fields, age_s=k.age_s)
