"""`zpool status` TEXT output -> list[Pool].

Formats handled
---------------
* OpenZFS 2.1 (main target), with or without `-p`; 2.2 / 2.3 text; ZFS on Linux 0.6 / 0.7 / 0.8.
* Any number of pools, each block starting `  pool: NAME`; blank lines between blocks are
  optional (pasted output often loses them). `no pools available`, `all pools are healthy`
  and `pool 'x' is healthy` (`-x`) give [].
* Header keys `pool`, `state`, `status`, `action`, `see`, `scan` (also Solaris-era `scrub:`),
  with continuation lines indented by TAB or spaces; `expand:` (raidz expansion, 2.3+: in
  progress, paused for resilver, `copy is slow`, over 100 %, finished) -> Pool.expand and
  `remove:` (device removal: `Evacuation of X in progress`, `Removal of vdev N copied ...
  completed`, canceled, `N memory used for removed device mappings`) -> Pool.removal.
  Unknown keys (`checkpoint:`, ZED e-mail fields...) are kept verbatim in `Pool.unparsed`.
* `config:` table: TAB + 2 spaces per depth + name, STATE, READ, WRITE, CKSUM (+ SLOW with
  `-s`), then a free-form note (`(resilvering)`, `(repairing)`, `was /dev/...`,
  `too many errors`, `cannot open`, `block size: 512B configured, 4096B native`...). Depth is
  measured relative to the `NAME` header after expanding tabs, so tables whose TAB became
  spaces (pasted output) or that carry extra uniform indentation parse the same.
  Class headers `logs`, `dedup`, `special` (2.1 prints a trailing blank), `cache`, `spares`;
  illumos/Solaris-era class rows with their own state and counters (`logs  FAULTED 0 0 0
  bad intent log`) are classes too (Pool.classes), never data vdevs.
  Rows without counters (spares `AVAIL` / `INUSE  currently in use`, or cut-off lines) get
  None. Counters like `1.02K` are expanded (units.parse_count).
* Vdev types from names: mirror-N, raidzP-N (parity P), draidP:Dd:Cc:Ss-N, replacing-N,
  spare-N (first child is the old disk), indirect-N, distributed spares draidP-N-M (`dspare`,
  a spare in use inside spare-N, AVAIL/INUSE in `spares`), files (`/path` not under /dev),
  disks (everything else). The pool's own row is `Pool.root`. `(removing)` on a top-level
  vdev sets Vdev.removing.
* `scan:` lines, several per pool (scrub + sequential rebuild), each with continuation lines:
  - 2.2+  `X / T scanned at R/s, Y / T2 issued at R/s` + `P repaired, N% done, ETA to go`
  - 0.8-2.1 `X scanned at R/s, Y issued at R/s, T total` + `P resilvered, N% done, ...`
  - 0.6/0.7 `X scanned out of T at R/s, 2h9m to go` + `P resilvered, N% done`
  - ETA as `HH:MM:SS`, `N days HH:MM:SS`, `12h2m`, `no estimated completion time`,
    `(scan is slow, no estimated time)` (-> None)
  - `scrub repaired ... in ... with N errors on ...`, `resilvered ...`, `resilvered (vdev) ...`,
    `... canceled on ...`, `scrub paused since ...`, `resilver (mirror-0) in progress since`,
    `none requested` (-> Pool.scan is None).
* `errors:` line -> Pool.errors, and its count -> Pool.error_count (`No known data errors`
  0, `N data errors, use '-v' for a list` N, as JSON's `error_count`); with `-v` the permanent-error file list below it (zpool
  prints each as `%7s %s`: 8 blanks, the name) -> Pool.error_files, each name as printed
  without the indentation (`/tank/a b`, `tank/fs:<0x24>`, `<metadata>:<0x48>`; trailing
  blanks are dropped: a terminal's padding cannot be told from a name's own). Only indented
  lines are files; anything else after the list is kept in `Pool.unparsed`.
* A paste that ends early (Pool.truncated, a sentence naming the last line read and what
  zpool prints next). zpool's status_callback prints, for an imported pool, the header,
  `config:`, the table and then always an `errors:` line; only the last pool of the text can
  be cut, so only it is judged: no `config:` line, `config:` without the table, or a table
  without the `errors:` line that ends it is a cut paste; when the rows end inside a
  container that lacks devices (a mirror, replacing or spare with one child, raidzP with P
  or fewer, draid with fewer than its `Nc` children) the sentence says which. An `errors:`
  line that is the beginning of one of zpool's sentences and not all of it, or the
  permanent-error header with no file under it (zpool prints the list with it), is a paste
  cut there too (a paste cut inside the list of files cannot be told: zpool prints no
  count with it). A last
  `pool:` line without its `state:` is left out and noted on the pool before it (a paste,
  `pasted=True`; in a host's own output it is a ParseError, so a check never loses a pool).
  `config: The configuration cannot be determined.` is whole as it is.
* `-D`: ` dedup: DDT entries N, size X on disk, Y in core` -> Pool.ddt; `dedup: no DDT
  entries` -> DedupSummary(0, 0, 0). The histogram below it is skipped.

Version traps
-------------
* `size X on disk, Y in core` are per-entry averages in 2.1 and totals in 2.3; the text does
  not say which, so the caller passes `ddt_sizes_are_totals`.
* Human sizes in scan lines are rounded (`729M`); exact byte counts need JSON (2.3+).
* States stay exactly as printed (UNAVAIL, not CANT_OPEN).
* ANSI colour codes (ZFS_COLOR / `--color`) are stripped first.

The `scan:`, `expand:`, `remove:` and `dedup:` entries are read by `zpool_status_scan`, the
`config:` table by `zpool_status_config`; this module splits the text into pool blocks and
each block into those parts.

Never raises anything but ParseError, and only when nothing is readable: no `pool:` block
at all, or a first pool without its `state:` line.
"""

from __future__ import annotations

import re
from dataclasses import replace

from zconsole.model.pool import DedupSummary, Pool
from zconsole.parsers.errors import ParseError, parser
from zconsole.parsers.zpool_status_config import ConfigTable
from zconsole.parsers.zpool_status_scan import (
    parse_ddt_line,
    parse_expand_text,
    parse_removal_text,
    parse_scan_text,
)

SOURCE = "zpool status"

# SGR colour codes (`ZFS_COLOR`, a coloured terminal) in a pasted report. Only a paste is
# cleaned: a host's own output keeps every byte, so a name that holds an escape sequence is
# never read as another, shorter name (a write must target the vdev the host named).
_SGR = re.compile(r"\x1b\[[0-9;]*m")
_POOL_LINE = re.compile(r"^\s*pool:\s*(?P<name>\S(?:.*\S)?)\s*$")
_KEY_LINE = re.compile(r"^\s{0,8}(?P<key>[a-z][a-z ]{1,11}):(?:\s(?P<val>.*))?$")
_HEADER_KEYS = {"pool", "state", "status", "action", "see", "scan", "scrub", "config",
                "errors", "dedup", "remove", "expand"}
_PERMANENT = "Permanent errors have been detected in the following files:"
_DDT_HISTO = re.compile(r"^\s*(bucket\b|_{4,}|refcnt\b|-{4,}|Total\b|[0-9.]+[KMGTPEZ]?\s+\S)")


def _split_blocks(lines: list[str]) -> tuple[list[str], list[list[str]]]:
    pre: list[str] = []
    blocks: list[list[str]] = []
    for line in lines:
        if _POOL_LINE.match(line):
            blocks.append([line])
        elif blocks:
            blocks[-1].append(line)
        else:
            pre.append(line)
    return pre, blocks


class _Block:
    """One pool's block, read line by line: header keys with their continuation lines,
    `scan:` entries, the config table, the `errors:` list and the `-D` DDT summary."""

    def __init__(self, name: str, ddt_totals: bool, extra_unparsed: list[str],
                 first_line_no: int = 1) -> None:
        self.name = name
        self.line_no = first_line_no  # the line being fed, 1-based in the whole text
        self.last: tuple[int, str] = (first_line_no, "")  # the last non-blank line
        self.config_text: str | None = None  # None: no `config:` line seen
        self.errors_seen = False
        self.error_files: list[str] = []
        self.ddt_totals = ddt_totals
        self.fields: dict[str, list[str]] = {}
        self.scans: list[list[str]] = []
        self.unparsed: list[str] = list(extra_unparsed)
        self.errors_lines: list[str] = []
        self.table = ConfigTable(name)
        self.ddt: DedupSummary | None = None
        self.mode = "header"  # header | config | errors | ddt
        self.current: list[str] | None = None

    def feed(self, line: str) -> None:
        self.line_no += 1
        if not line.strip():
            self.current = None if self.mode == "header" else self.current
            return
        stripped = line.strip()
        self.last = (self.line_no, stripped)
        km = _KEY_LINE.match(line)
        key = km.group("key").strip() if km else None
        val = (km.group("val") or "").strip() if km else ""
        if key == "dedup" and (stripped.startswith("dedup: DDT") or "no DDT" in stripped):
            self.ddt = parse_ddt_line(stripped, sizes_are_totals=self.ddt_totals)
            if self.ddt is None:
                self.unparsed.append(line)
            self.mode = "ddt"
        elif key is not None and key in _HEADER_KEYS and key != "dedup" and (
                self.mode == "header" or key == "errors" or key == "config"):
            self._key(key, val)
        elif self.mode == "header":
            if km is not None or self.current is None:
                self.unparsed.append(line)
                self.current = None
            else:
                self.current.append(stripped)
        elif self.mode == "config":
            if stripped.split()[:1] == ["NAME"] and "STATE" in stripped:
                self.table.header(line)
            elif not self.table.feed(line):
                self.unparsed.append(line)
        elif self.mode == "errors":
            if self.errors_lines[:1] == [_PERMANENT] and line.startswith((" ", "\t")):
                self.error_files.append(stripped)
            else:
                self.unparsed.append(line)
        elif self.mode == "ddt" and not _DDT_HISTO.match(line):
            self.unparsed.append(line)

    def _key(self, key: str, val: str) -> None:
        if key == "config":
            self.mode = "config"
            self.current = None
            self.config_text = val
        elif key == "errors":
            self.mode = "errors"
            self.errors_seen = True
            self.errors_lines = [val]
        elif key in ("scan", "scrub"):
            self.current = [val]
            self.scans.append(self.current)
        else:
            self.current = [val]
            self.fields.setdefault(key, self.current)

    def _joined(self, key: str) -> str | None:
        parts = self.fields.get(key)
        if parts is None:
            return None
        return " ".join(p for p in parts if p) or None

    def pool(self) -> Pool:
        fields = self.fields
        expand = parse_expand_text("\n".join(fields["expand"])) if "expand" in fields else None
        removal = parse_removal_text("\n".join(fields["remove"])) if "remove" in fields else None
        scan_infos = tuple(s for s in (parse_scan_text("\n".join(p)) for p in self.scans) if s)
        sections = self.table.freeze()
        errors = "\n".join(e for e in self.errors_lines if e) or None
        root = self.table.root
        return Pool(
            name=self.name, state=self._joined("state") or "", status=self._joined("status"),
            action=self._joined("action"), see=self._joined("see"),
            scan=scan_infos[0] if scan_infos else None, scans=scan_infos, errors=errors,
            vdevs=sections["vdevs"], logs=sections["logs"], cache=sections["cache"],
            spares=sections["spares"], special=sections["special"], dedup=sections["dedup"],
            ddt=self.ddt, unparsed=tuple(self.unparsed),
            root=root.freeze() if root is not None else None,
            expand=expand, removal=removal, classes=tuple(self.table.classes),
            error_files=tuple(self.error_files), error_count=_error_count(errors),
        )

    def truncation(self) -> str | None:
        """Where this (last) pool block ends early, or None (see module doc)."""
        line_no, text = self.last
        at = f"the paste ends at line {line_no} (`{text[:60]}`)"
        if self.errors_seen:
            return _errors_cut(self.errors_lines[0] if self.errors_lines else "",
                               bool(self.error_files), at)
        if self.mode == "ddt" or self.config_text:
            return None
        if self.config_text is None:
            return f"{at} before the `config:` table; the pool's devices are not shown"
        if self.table.base is None or self.table.root is None:
            return f"{at} after `config:`, before the table's rows"
        short = self.table.unfinished()
        if short is not None:
            return f"{at} inside the config table: {short}; then an `errors:` line was expected"
        return f"{at} inside the config table; more rows or the `errors:` line were expected"


_DATA_ERRORS = re.compile(r"([0-9]{1,19}) data errors, use '-v' for a list", re.ASCII)


# what zpool's status_callback and print_error_log print after `errors: ` (zpool_main.c):
# the sentences, and the one after a count
_ERRORS_SAID = ("No known data errors", _PERMANENT, "List of errors unavailable")
_ERRORS_COUNTED = "data errors, use '-v' for a list"


def _errors_cut(first: str, files: bool, at: str) -> str | None:
    """Where a paste ends inside the `errors:` part: the line itself cut (the beginning of
    one of zpool's sentences, not all of it), or the permanent-error header without a file
    under it (zpool prints it with its list: each error's file follows)."""
    if first == _PERMANENT:
        return None if files else f"{at} after the `errors:` line, before the files it lists"
    count = re.fullmatch(r"[0-9]{1,19}(?: (.*))?", first, re.ASCII | re.S)
    said = (count.group(1) or "") if count else first
    for whole in (_ERRORS_COUNTED,) if count else _ERRORS_SAID:
        if whole.startswith(said) and said != whole:
            return f"{at} inside the `errors:` line (zpool prints `{whole}`)"
    return None


def _error_count(errors: str | None) -> int | None:
    """The pool's permanent data errors as the `errors:` line counts them (JSON's
    `error_count`): `No known data errors` 0, `N data errors, use '-v' for a list` N; None
    where it names files instead (`-v`: no count printed) or is not there."""
    if errors == "No known data errors":
        return 0
    m = _DATA_ERRORS.fullmatch(errors or "")
    return int(m.group(1)) if m else None


def _parse_block(block: list[str], ddt_totals: bool, extra_unparsed: list[str],
                 first_line_no: int, last: bool) -> Pool:
    m = _POOL_LINE.match(block[0])
    reader = _Block(m.group("name") if m else "", ddt_totals, extra_unparsed, first_line_no)
    for line in block[1:]:
        reader.feed(line)
    pool = reader.pool()
    return replace(pool, truncated=reader.truncation()) if last else pool


def _root_type_fix(pool: Pool) -> Pool:
    if pool.root is None:
        return pool
    return replace(pool, root=replace(pool.root, type="root", parity=None, path=None,
                                      children=pool.vdevs))


def _last_text(block: list[str]) -> int:
    """1-based index in `block` of its last non-blank line."""
    return max(k for k, ln in enumerate(block) if ln.strip()) + 1


_NOTHING = re.compile(r"^\s*(no pools available|all pools are healthy|"
                      r"pool '.*' is healthy)\s*$")


@parser(SOURCE)
def parse_zpool_status(text: str, *, ddt_sizes_are_totals: bool = False,
                       pasted: bool = False) -> list[Pool]:
    """Parse `zpool status [-p] [-v] [-D] [-s] [pool...]` text into pools (see module doc).
    `pasted`: the text came from a person (a terminal's colour codes are dropped)."""
    clean = (_SGR.sub("", text) if pasted else text).replace("\r\n", "\n").replace("\r", "\n")
    lines = clean.split("\n")
    pre, blocks = _split_blocks(lines)
    if not blocks:
        if any(_NOTHING.match(ln) for ln in lines):
            return []
        first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
        raise ParseError(SOURCE, "no `pool:` line found",
                         line_no=None if first is None else first + 1,
                         line=None if first is None else lines[first][:200])
    pre_unparsed = [ln for ln in pre if ln.strip()]
    pools: list[Pool] = []
    at = len(pre)
    for i, block in enumerate(blocks):
        last = i == len(blocks) - 1
        pool = _parse_block(block, ddt_sizes_are_totals, pre_unparsed if i == 0 else [],
                            at + 1, last)
        if not pool.state:
            # a `pool:` line and no `state:` is no pool zpool printed (garbage, or output cut
            # short): never a pool in an empty state, which a check would call healthy-ish.
            # The last one of several in a paste is a paste cut in its header: the others
            # are kept. A host's own output is refused whole: a check must not lose a pool.
            if not (pasted and last and pools):
                raise ParseError(SOURCE, f"pool {pool.name!r} has no `state:` line",
                                 line_no=at + 1, line=block[0][:200])
            pools[-1] = replace(pools[-1], truncated=(
                f"the paste ends at line {at + _last_text(block)} inside the header of the next pool "
                f"`{pool.name[:60]}`, before its `state:` line; that pool is left out"))
            break
        at += len(block)
        pools.append(_root_type_fix(pool))
    return pools
