"""`zpool iostat [-v] [-l] [-q] [-p] [-y] [interval [count]]`, human or scripted (`-H`) ->
reports of PoolIostat.

Format (cmd/zpool/zpool_main.c, print_iostat_header / print_iostat_dashes /
print_vdev_stats / print_iostat_default / print_iostat_latency / print_iostat_queues /
zpool_do_iostat, OpenZFS 2.1 and 2.3; older layouts from real pastes):

* Columns: name, alloc, free, read ops, write ops, read bytes, write bytes; with `-l` the
  average waits total_wait r/w, disk_wait r/w, syncq_wait r/w, asyncq_wait r/w, scrub, trim
  (0.8+) and rebuild (2.2+) - 9, 10 or 11 latency columns; with `-q` the queues
  syncq_read, syncq_write, asyncq_read, asyncq_write, scrubq_read, trimq_write (0.8+),
  rebuildq_write (2.2+), each pend/activ. `-` means "no I/O of that kind" (latency) or "not
  applicable" (capacity of a leaf).
* Scripted (`-H`): TAB-separated rows, names NOT indented: depth is lost. 7 fields; 17/18 with
  `-l` (2.1 / 2.2+); 19/21 with `-q`; 29/32 with both - the counts never collide, so the
  version is detected from them. A class section is preceded by a bare blank line (the class
  name is printed only without `-H`). Nothing separates two pools or two reports: the next
  pool row simply follows. With -p, rows other than pools and top-level vdevs print 0 for
  alloc and free (`-` without -p): with a vdev tree these become None here. `-T u|d`
  timestamp lines start a new report.
* Human (no `-H`): a two-line header names the column groups (`capacity operations
  bandwidth total_wait ... rebuild syncq_read ...`) and, under them, the title (`pool`) and
  the columns (`alloc free read write ...`, then any `-c SCRIPT` column titles); a line of
  dashes follows. Rows are whitespace-separated words mapped onto the header's columns (never
  by character position: a long name pushes its row to the right); vdev rows are indented 2
  spaces per level (`-v`), so the tree is known; class sections are announced by a row
  `logs  -  -  ...` (dedup, special, logs, cache). Figures are human (`148M`, `11.7K`,
  `95ms`, `336ns`, a locale's decimal comma `11,4T`) or exact with `-p`; a row whose figures
  may be rounded has `exact=False`.
* Reports: the header is printed before every report with `-v` (and once without); each
  pool of a `-v` report ends with a line of dashes; without `-v` several pools share one
  report, followed by a line of dashes. A report ends where the header comes again, where a
  pool already seen in the current report comes again, or at a timestamp line (`-T`).
* The first report covers the time since the pool was imported ("since boot"), unless `-y`
  was given: the text cannot show which, so the caller says it (`omitted_since_boot`);
  `PoolIostat.since_boot` is None when it did not.

Refused (ParseError with the line): histograms (`-w` latency, `-r` request size: a table
per vdev, not rows of figures); `zpool iostat POOL VDEV...` (title `vdev`: no pool row);
pastes that lost the name column; any line that is neither a header, a separator, a
class row, a timestamp nor a row of the header's columns.

Mapping onto the tree (scripted form): pass the pools from `zpool status` and each row is
matched, in order, against the depth-first walk zpool itself does, which also resolves the
same leaf name appearing in two sections. Without pools the parser does a best effort: a row
repeating a pool name of the current report starts a new report; other pool boundaries cannot
be seen (query one pool per command or pass `pools`, names alone suffice); depth is guessed
from alloc/free (0 -> child of the last top-level vdev); a blank-line group is labelled by a
class header row if one is present, otherwise guessed from the end of the fixed order
dedup < special < logs < cache (the last group is `cache` unless it holds a mirror/raidz).

The columns and cell readers are in `zpool_iostat_columns`, the two readers in
`zpool_iostat_human` and `zpool_iostat_scripted`; this module tells the forms apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from types import ModuleType

from zconsole.model.iostat import PoolIostat
from zconsole.model.pool import Pool
from zconsole.parsers.errors import ParseError, parser
from zconsole.parsers.zpool_iostat_columns import FIELD_COUNTS, SOURCE, is_timestamp
from zconsole.parsers.zpool_iostat_scripted import parse_scripted


@parser(SOURCE)
def latency_column_count(text: str) -> int:
    """10 (OpenZFS 2.1), 11 (2.2+) or 0 (no -l) for the first scripted row; -1 if none."""
    for raw in text.splitlines():
        if "\t" in raw:
            n = len(raw.rstrip("\r").split("\t"))
            return len(FIELD_COUNTS[n][0]) if n in FIELD_COUNTS else -1
    return -1


@parser(SOURCE)
def _human() -> ModuleType:
    """The human form's parser, imported when an output is not scripted (zconsole's own
    reads are `-H`): not before the first frame."""
    from zconsole.parsers import zpool_iostat_human

    return zpool_iostat_human


def parse_zpool_iostat(text: str, pools: Sequence[Pool] | None = None, *,
                       omitted_since_boot: bool | None = None) -> list[list[PoolIostat]]:
    """Parse `zpool iostat` output, human (with its header) or scripted (`-H`), into reports
    (one per interval) of pools. `omitted_since_boot`: True when the command had `-y`,
    False when it had not (the first report then covers the time since import), None when
    unknown (see the module doc)."""
    lines = text.splitlines()
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is None:
        return []
    while first < len(lines) and "\t" not in lines[first] \
            and not _human().is_header_pair(lines, first):
        if lines[first].strip() and not is_timestamp(lines[first]):
            raise ParseError(SOURCE, "neither the header of `zpool iostat` (capacity "
                                     "operations bandwidth / pool alloc free ...) nor "
                                     "TAB-separated rows of `zpool iostat -H`",
                             first + 1, lines[first])
        first += 1
    if first < len(lines) and "\t" not in lines[first]:
        reports = _human().parse_human(lines, first)
    else:
        trees = {p.name: p for p in pools} if pools is not None else {}
        reports = parse_scripted(lines, trees)
    if not reports and any(ln.strip() for ln in lines):
        raise ParseError(SOURCE, "no rows of figures (a header or timestamps only)")
    return [[replace(p, report=n, since_boot=None if omitted_since_boot is None
                     else (n == 0 and not omitted_since_boot)) for p in report]
            for n, report in enumerate(reports)]
