"""What deduplication costs a pool, and which datasets still write deduplicated blocks.

Reads (argv lists, nothing written):
* `zpool status -D -p POOL` (text, both versions): ` dedup: DDT entries N, size X on disk,
  Y in core`. OpenZFS 2.1 prints X and Y PER ENTRY, 2.3 prints TOTALS
  (`parsers.zpool_status.DedupSummary` knows which from the version);
* `zpool get -H -p dedupratio[,dedup_table_size] POOL` (dedup_table_size exists from 2.3);
* `zfs get -H -p -r -t filesystem,volume -o name,property,value,source
  dedup,used,referenced,type POOL`: every dataset with dedup other than off, where the value
  comes from (set here, or inherited), and its size;
* /proc/spl/kstat/zfs/arcstats c_max, to put the table's RAM next to the ARC's ceiling.

A failed read is kept in `DedupReport.errors` with what failed, never replaced by a guess.

`zfs set dedup=off` changes only NEW writes: every block already written deduplicated keeps
its DDT entry until it is freed (overwritten, deleted, and no snapshot still references it).
The table shrinks only when the data is rewritten; `services.plans.build_dedup_off` offers a
guided rewrite (send/receive into a new dataset, then swap with `zfs rename`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from zconsole.hosts.base import Host, HostError
from zconsole.model.pool import DedupSummary
from zconsole.model.reading import ZfsInfo
from zconsole.parsers.arcstats import parse_arcstats
from zconsole.parsers.errors import ParseError
from zconsole.parsers.props import parse_get
from zconsole.parsers.zpool_status import parse_zpool_status
from zconsole.services import fmt
from zconsole.services.read import catalogue
from zconsole.services.read.collect import detect_zfs

DEFAULT_TIMEOUT = 30.0
_EXPECTED = (HostError, ParseError, ValueError, KeyError, IndexError)


def zpool_status_dedup(pool: str) -> tuple[str, ...]:
    return ("zpool", "status", "-D", "-p", pool)


def zpool_get_dedup(pool: str, v23: bool) -> tuple[str, ...]:
    props = "dedupratio,dedup_table_size" if v23 else "dedupratio"
    return ("zpool", "get", "-H", "-p", props, pool)


def zfs_get_dedup(pool: str) -> tuple[str, ...]:
    return ("zfs", "get", "-H", "-p", "-r", "-t", "filesystem,volume", "-o",
            "name,property,value,source", "dedup,used,referenced,type", pool)


@dataclass(frozen=True)
class DedupDataset:
    """A dataset whose new writes are deduplicated (dedup is not off)."""

    name: str
    value: str  # on, verify, sha256, sha256,verify, ...
    source: str  # local, received, default, "inherited from tank/vm"
    kind: str | None = None  # filesystem, volume
    used: int | None = None
    referenced: int | None = None

    @property
    def set_here(self) -> bool:
        """dedup was set on this dataset itself (local or received), not inherited."""
        return self.source in ("local", "received")

    @property
    def inherited_from(self) -> str | None:
        prefix = "inherited from "
        return self.source[len(prefix):] if self.source.startswith(prefix) else None


@dataclass(frozen=True)
class DedupReport:
    pool: str
    version: tuple[int, int, int] | None
    ddt: DedupSummary | None  # None: `zpool status -D` could not be read
    dedupratio: float | None
    datasets: tuple[DedupDataset, ...]  # dedup != off
    table_size: int | None = None  # 2.3 pool property dedup_table_size (bytes on disk)
    arc_max: int | None = None
    errors: tuple[str, ...] = ()
    histogram: tuple[str, ...] = ()  # the `zpool status -D` table lines, verbatim

    @property
    def entries(self) -> int | None:
        return self.ddt.entries if self.ddt is not None else None

    @property
    def ram_bytes(self) -> int | None:
        """RAM the whole table takes when it is in core (2.1: entries x per-entry size)."""
        return self.ddt.core_total_bytes if self.ddt is not None else None

    @property
    def disk_bytes(self) -> int | None:
        return self.ddt.disk_total_bytes if self.ddt is not None else None

    def dataset(self, name: str) -> DedupDataset | None:
        return next((d for d in self.datasets if d.name == name), None)

    def lines(self) -> tuple[str, ...]:
        """The sentences a wizard shows before anything changes."""
        out: list[str] = []
        ddt = self.ddt
        if ddt is None:
            out.append(f"The dedup table of {self.pool} could not be read.")
        elif ddt.entries == 0:
            out.append(f"{self.pool} has no DDT entries: nothing is deduplicated.")
        else:
            if ddt.sizes_are_totals:
                how = "OpenZFS 2.3 prints totals"
            else:
                how = (f"OpenZFS 2.1 prints per-entry sizes: {ddt.size_on_disk} B on disk and "
                       f"{ddt.size_in_core} B in core per entry, multiplied here")
            out.append(f"Dedup table (DDT) of {self.pool}: {ddt.entries:,} entries, "
                       f"{fmt.size(ddt.disk_total_bytes)} on disk, "
                       f"{fmt.size(ddt.core_total_bytes)} in core ({how}).")
            ram = f"Keeping the whole table in RAM takes {fmt.size(ddt.core_total_bytes)}"
            if self.arc_max:
                ram += (f", {100 * ddt.core_total_bytes / self.arc_max:.1f} % of the ARC's "
                        f"maximum ({fmt.size(self.arc_max)})")
            out.append(ram + "; every write to a deduplicated dataset looks the table up.")
        if self.dedupratio is not None:
            out.append(f"Dedup ratio {self.dedupratio:.2f}x.")
        if self.table_size is not None:
            out.append(f"dedup_table_size (pool property): {fmt.size(self.table_size)}.")
        if not self.datasets:
            out.append(f"No dataset of {self.pool} has dedup on.")
        for d in self.datasets:
            where = "set here" if d.set_here else (d.source or "?")
            size = f", {fmt.size(d.used)} used" if d.used is not None else ""
            out.append(f"{d.name} ({d.kind or 'dataset'}): dedup={d.value} ({where}){size}.")
        out.extend(f"Could not read: {e}" for e in self.errors)
        return tuple(out)


def shrink_sentence(before: DedupReport, after: DedupReport) -> str:
    """'DDT: 1,176,735 -> 912,004 entries (-264,731), in core 162 MiB -> 125 MiB.'"""
    if before.ddt is None or after.ddt is None:
        return "The dedup table could not be read before and after, so its change is unknown."
    b, a = before.ddt, after.ddt
    diff = a.entries - b.entries
    return (f"DDT of {after.pool}: {b.entries:,} -> {a.entries:,} entries ({diff:+,}), in core "
            f"{fmt.size(b.core_total_bytes)} -> {fmt.size(a.core_total_bytes)}.")


def _histogram(status_text: str) -> tuple[str, ...]:
    lines = status_text.splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith("dedup:"):
            rest = [x for x in lines[i + 1:] if x.strip()]
            return tuple(rest)
    return ()


def _int(v: str) -> int | None:
    return int(v) if v.isdigit() else None


def read_dedup(host: Host, pool: str, *, zfs: ZfsInfo | None = None,
               timeout: float = DEFAULT_TIMEOUT) -> DedupReport:
    """Read everything `DedupReport` holds (blocking: call from a worker)."""
    catalogue._check_name(pool)
    info = zfs if zfs is not None else detect_zfs(host, timeout=timeout)
    v23 = info.version is not None and info.version >= (2, 3, 0)
    errors: list[str] = []

    ddt: DedupSummary | None = None
    histogram: tuple[str, ...] = ()
    argv = zpool_status_dedup(pool)
    try:
        text = host.run(argv, timeout=timeout).stdout
        pools = parse_zpool_status(text, ddt_sizes_are_totals=v23)
        found = next((p for p in pools if p.name == pool), None)
        if found is None:
            errors.append(f"{' '.join(argv)}: pool {pool} not in the output")
        elif found.ddt is None:
            errors.append(f"{' '.join(argv)}: no 'dedup:' line in the output")
        else:
            ddt = found.ddt
            histogram = _histogram(text)
    except _EXPECTED as e:
        errors.append(f"{' '.join(argv)}: {e}")

    ratio: float | None = None
    table: int | None = None
    argv = zpool_get_dedup(pool, v23)
    try:
        for row in parse_get(host.run(argv, timeout=timeout).stdout):
            if row.property == "dedupratio":
                ratio = float(row.value.rstrip("x"))
            elif row.property == "dedup_table_size":
                table = _int(row.value)
    except _EXPECTED as e:
        errors.append(f"{' '.join(argv)}: {e}")

    datasets: list[DedupDataset] = []
    argv = zfs_get_dedup(pool)
    try:
        rows: dict[str, dict[str, tuple[str, str]]] = {}
        order: list[str] = []
        for row in parse_get(host.run(argv, timeout=timeout).stdout):
            if row.name not in rows:
                order.append(row.name)
            rows.setdefault(row.name, {})[row.property] = (row.value, row.source)
        for name in order:
            props = rows[name]
            value, source = props.get("dedup", ("off", "default"))
            if value == "off":
                continue
            datasets.append(DedupDataset(
                name=name, value=value, source=source,
                kind=props.get("type", (None, ""))[0],
                used=_int(props.get("used", ("", ""))[0]),
                referenced=_int(props.get("referenced", ("", ""))[0])))
    except _EXPECTED as e:
        errors.append(f"{' '.join(argv)}: {e}")

    arc_max: int | None = None
    try:
        arc_max = parse_arcstats(host.read_text(catalogue.ARCSTATS)).c_max
    except _EXPECTED:
        arc_max = None  # optional: the RAM figure stands without the comparison

    return DedupReport(pool=pool, version=info.version, ddt=ddt, dedupratio=ratio,
                       datasets=tuple(datasets), table_size=table, arc_max=arc_max,
                       errors=tuple(errors), histogram=histogram)


def roots(report: DedupReport, chosen: Sequence[str] | None = None) -> list[DedupDataset]:
    """The datasets a `zfs set dedup=off` must name: those with dedup set on themselves (or
    the chosen ones), skipping any whose ancestor is already in the list (they inherit)."""
    pick = [d for d in report.datasets if (d.name in chosen if chosen else d.set_here)]
    if chosen:
        missing = [c for c in chosen if report.dataset(c) is None]
        if missing:
            raise ValueError(f"dedup is not on for {', '.join(missing)}")
    names = {d.name for d in pick}
    out: list[DedupDataset] = []
    for d in pick:
        parts = d.name.split("/")
        if any("/".join(parts[:i]) in names for i in range(1, len(parts))):
            continue
        out.append(d)
    return out


def followers(report: DedupReport, root: str) -> list[DedupDataset]:
    """Datasets that inherit dedup from `root` (they follow its new value)."""
    return [d for d in report.datasets if d.name.startswith(root + "/") and not d.set_here]
