"""The advisor's own read: what `services/health/advice` judges beyond the console's reading.

One `zfs get` of the advisor's dataset properties (compression, atime, xattr, copies,
recordsize, dedup, ...: `catalogue.ADVICE_PROPERTIES`) for every filesystem and volume,
`zpool status -D -p POOL` for each pool that holds deduplicated data (its DDT size), and the
host's ZIL counters (/proc/spl/kstat/zfs/zil: synchronous writes, for the SLOG), and, when
the host has clones, one `zfs get` of the snapshots they were made from. Read when
the Advice screen is shown or `zconsole check` runs, never on every refresh. Blocking: call
from a worker. A failed read is a failed Part: the findings that need it are not judged.
"""

from __future__ import annotations

from zconsole.hosts.base import Host, HostError
from zconsole.model.advice import AdviceInputs, DatasetProps
from zconsole.model.pool import DedupSummary
from zconsole.model.reading import HostReading
from zconsole.parsers.errors import ParseError
from zconsole.parsers.props import parse_get
from zconsole.parsers.zil import parse_zil
from zconsole.parsers.zpool_status import parse_zpool_status
from zconsole.services.read import catalogue
from zconsole.services.read.collect import _Reader, _show
from zconsole.services.read.dedup import zpool_status_dedup

DEFAULT_TIMEOUT = 30.0


def parse_advice_props(text: str) -> tuple[DatasetProps, ...]:
    """`zfs get -H -p -o name,property,value,source` rows grouped by dataset, in order."""
    rows: dict[str, dict[str, tuple[str, str]]] = {}
    for row in parse_get(text):
        rows.setdefault(row.name, {})[row.property] = (row.value, row.source)
    return tuple(DatasetProps(name, values.get("type", ("filesystem", "-"))[0], values)
                 for name, values in rows.items())


def dedup_pools(reading: HostReading, props: tuple[DatasetProps, ...] | None) -> list[str]:
    """Pools that deduplicate: a dedup ratio above 1.00x, or a dataset with dedup on."""
    out: list[str] = []
    for u in reading.pool_usage.value or ():
        if u.dedupratio is not None and u.dedupratio > 1.0:
            out.append(u.name)
    for p in props or ():
        if (p.value("dedup") or "off") != "off" and p.pool not in out:
            out.append(p.pool)
    return out


def read_ddt(host: Host, pool: str, *, json_totals: bool, timeout: float
             ) -> DedupSummary | None:
    argv = zpool_status_dedup(pool)
    try:
        pools = parse_zpool_status(host.run(argv, timeout=timeout).stdout,
                                   ddt_sizes_are_totals=json_totals)
    except (HostError, ParseError, ValueError):
        return None
    found = next((p for p in pools if p.name == pool), None)
    return found.ddt if found is not None else None


def read_advice(host: Host, reading: HostReading, *, timeout: float = DEFAULT_TIMEOUT
                ) -> AdviceInputs:
    """The reading plus the advisor's properties and DDT summaries."""
    if not reading.zfs.present:
        return AdviceInputs(reading)
    rd = _Reader(host, timeout)
    argv = catalogue.zfs_get_advice()
    props = rd.part(_show(argv), lambda: parse_advice_props(rd.run(argv)))
    v = reading.zfs.version
    totals = v is not None and v >= (2, 3, 0)
    ddt: dict[str, DedupSummary] = {}
    for pool in dedup_pools(reading, props.value):
        got = read_ddt(host, pool, json_totals=totals, timeout=timeout)
        if got is not None:
            ddt[pool] = got
    zil = rd.part(catalogue.ZIL_KSTAT,
                  lambda: parse_zil(host.read_text(catalogue.ZIL_KSTAT)))
    origins = None
    names = clone_origins(props.value)
    if names:
        oargv = catalogue.zfs_get_origins(names)
        origins = rd.part(_show(oargv), lambda: parse_advice_props(rd.run(oargv)))
    return AdviceInputs(reading, props, ddt, zil, origins)


def clone_origins(props: tuple[DatasetProps, ...] | None) -> list[str]:
    """The snapshots the host's clones were made from, each once, in order."""
    out: dict[str, None] = {}
    for p in props or ():
        origin = p.value("origin")
        if origin and "@" in origin:
            out[origin] = None
    return list(out)
