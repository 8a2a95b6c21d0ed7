"""`zconsole parse KIND [FILE|-] [--json]`: output pasted from another host, rendered.

An operator pastes `zpool status` from a box zconsole cannot reach and gets the same reading the
console would give (states as words, scan progress, counters expanded), or the parsed model as
JSON for scripts. The zpool-status JSON shape is stable and documented in the README.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from zconsole.model import Pool, RemovalInfo, Vdev
from zconsole.model.hosttext import visible
from zconsole.parsers import ParseError
from zconsole.parsers.to_json import record_fields

EXIT_OK = 0
EXIT_PARSE = 3
EXIT_IO = 4


def _zpool_status(text: str, *, zfs_version: str | None, **_: Any) -> Any:
    stripped = text.lstrip()
    if stripped.startswith("{"):
        from zconsole.parsers.zpool_status_json import parse_zpool_status_json

        return parse_zpool_status_json(text)
    from zconsole.parsers.zpool_status import parse_zpool_status

    return parse_zpool_status(text, ddt_sizes_are_totals=(zfs_version == "2.3"), pasted=True)


def _zpool_iostat(text: str, *, omitted_since_boot: bool = False, **_: Any) -> Any:
    from zconsole.parsers.zpool_iostat import parse_zpool_iostat

    # zpool's default: the first report covers the time since import, unless -y was given.
    return parse_zpool_iostat(text, omitted_since_boot=omitted_since_boot)


def _zfs_list(text: str, *, columns: str | None, **_: Any) -> Any:
    from zconsole.parsers.zfs_list import DEFAULT_COLUMNS, parse_zfs_list

    lines = text.splitlines()
    cols: Sequence[str]
    if columns:
        cols = [c.strip() for c in columns.split(",") if c.strip()]
    elif lines and lines[0].split()[:1] == ["NAME"]:
        # Pasted without -H: the header names the columns.
        cols = [c.lower() for c in lines[0].split()]
        text = "\n".join("\t".join(line.split()) for line in lines[1:]) + "\n"
    else:
        cols = DEFAULT_COLUMNS
    return parse_zfs_list(text, cols)


def _text_only(module: str, name: str) -> Callable[..., Any]:
    """The parser `name` of `zconsole.parsers.<module>`, which takes the text alone, imported
    when that kind is parsed (as every parser here is), not when the CLI starts."""

    def parse(text: str, **_: Any) -> Any:
        return getattr(importlib.import_module(f"zconsole.parsers.{module}"), name)(text)

    return parse


KINDS: dict[str, Callable[..., Any]] = {
    "zpool-status": _zpool_status,
    "zpool-list": _text_only("zpool_list", "parse_zpool_list"),
    "zpool-iostat": _zpool_iostat,
    "zfs-list": _zfs_list,
    "zpool-get": _text_only("props", "parse_get"),
    "zfs-get": _text_only("props", "parse_get"),
    "arcstats": _text_only("arcstats", "parse_arcstats"),
    "diskstats": _text_only("diskstats", "parse_diskstats"),
    "udev-db": _text_only("blockdev", "parse_udev_export_db"),
    "lsblk": _text_only("blockdev", "parse_lsblk_json"),
    "smartctl": _text_only("smartctl", "parse_smartctl"),
}


def parse_text(kind: str, text: str, *, columns: str | None = None,
               zfs_version: str | None = None, omitted_since_boot: bool = False) -> Any:
    return KINDS[kind](text, columns=columns, zfs_version=zfs_version,
                       omitted_since_boot=omitted_since_boot)


def to_json(kind: str, parsed: Any) -> Any:
    from zconsole.parsers.to_json import pools_to_json, to_jsonable

    if kind == "zpool-status":
        return pools_to_json(parsed)
    return to_jsonable(parsed)


# -- human rendering ------------------------------------------------------------------------

STATE_SYMBOL = {
    "ONLINE": "✔", "AVAIL": "✔", "INUSE": "●", "DEGRADED": "▲", "FAULTED": "✖",
    "UNAVAIL": "✖", "REMOVED": "✖", "OFFLINE": "○", "SUSPENDED": "✖",
}


def _counter(v: int | None) -> str:
    return "-" if v is None else str(v)


def _eta(seconds: int | None) -> str:
    if seconds is None:
        return ""
    h, rem = divmod(seconds, 3600)
    return f", about {h}h{rem // 60:02d}m to go"


def _progress_lines(pool: Pool) -> list[str]:
    out: list[str] = []
    for scan in pool.scans or ((pool.scan,) if pool.scan else ()):
        what = scan.function.value if scan.function else "scan"
        if scan.rebuild_vdev:
            what = f"rebuild ({visible(scan.rebuild_vdev)})"
        state = scan.state.value.replace("_", " ") if scan.state else "none"
        extra = f", {scan.percent_done:.2f}% done" if scan.percent_done is not None else ""
        out.append(f"  scan: {what} {state}{extra}{_eta(scan.eta_seconds)}")
    for label, op in (("expand", pool.expand), ("remove", pool.removal)):
        if op is None:
            continue
        index = op.vdev_index if isinstance(op, RemovalInfo) else None
        name = visible(op.vdev) if op.vdev else (f"vdev {index}" if index is not None else "?")
        state = op.state.value.replace("_", " ") if op.state else "unread"
        extra = f", {op.percent_done:.2f}% done" if op.percent_done is not None else ""
        if op.slow:
            extra += ", copy is slow (no estimate)"
        if getattr(op, "waiting_for_resilver", False):
            extra += ", waiting for a resilver or clear"
        out.append(f"  {label}: {name} {state}{extra}{_eta(op.eta_seconds)}")
    return out


def _error_lines(pool: Pool) -> list[str]:
    out = [f"  errors: {visible(pool.errors, multiline=True)}"] if pool.errors else []
    out.extend(f"          {visible(f)}" for f in pool.error_files)
    return out


def render_pools(pools: Sequence[Pool]) -> str:
    if not pools:
        return "no pools\n"
    out: list[str] = []
    for pool in pools:
        sym = STATE_SYMBOL.get(pool.state, "?")
        out.append(f"pool {visible(pool.name)}: {sym} {visible(pool.state)}")
        if pool.status:
            out.append(f"  status: {visible(pool.status)}")
        if pool.action:
            out.append(f"  action: {visible(pool.action)}")
        if pool.see:
            out.append(f"  see: {visible(pool.see)}")
        out.extend(_progress_lines(pool))
        rows = [(0, pool.root)] if pool.root is not None else []
        rows += [(d + 1, v) for _, d, v in pool.walk()]
        width = max([len(visible(pool.name))]
                    + [len(visible(v.name)) + 2 * d for d, v in rows])
        # the state column is as wide as its widest word (DEGRADED, SUSPENDED): a fixed
        # width put a longer state's counters one column right of the header
        sw = max([7] + [len(visible(v.state)) for _, v in rows])
        out.append(f"  {'NAME':<{width}}  {'STATE':<{sw + 2}} {'READ':>5} {'WRITE':>5} "
                   f"{'CKSUM':>5}")

        def row(v: Vdev, depth: int, width: int = width, sw: int = sw) -> None:
            name = "  " * depth + visible(v.name)
            sym = STATE_SYMBOL.get(v.state, "?")
            line = (f"  {name:<{width}}  {sym} {visible(v.state):<{sw}} "
                    f"{_counter(v.read_errors):>5} "
                    f"{_counter(v.write_errors):>5} {_counter(v.checksum_errors):>5}")
            if v.note:
                line += f"  {visible(v.note)}"
            out.append(line.rstrip())

        if pool.root is not None:
            row(pool.root, 0)
        for section in ("vdevs", "logs", "special", "dedup", "cache", "spares"):
            tops = getattr(pool, section)
            if not tops:
                continue
            if section != "vdevs":
                own = next((c for c in pool.classes if c.section.value == section), None)
                if own is None:
                    out.append(f"  {section}")
                else:
                    sym = STATE_SYMBOL.get(own.state, "?")
                    out.append(f"  {section}  {sym} {visible(own.state)}"
                               + (f"  {visible(own.note)}" if own.note else ""))
            for top in tops:
                for depth, v in top.walk(1):
                    row(v, depth)
        out.extend(_error_lines(pool))
        for line in pool.unparsed:
            out.append(f"  (not understood) {visible(line)}")
        if pool.truncated:
            out.append(f"  ! cut short: {visible(pool.truncated)}")
        out.append("")
    return "\n".join(out)


def render_generic(parsed: Any) -> str:
    """A plain table for lists of model records; key: value lines for one record."""
    items: list[Any]
    if isinstance(parsed, dict):
        return "\n".join(f"{visible(k)}: {visible(v)}" for k, v in parsed.items()) + "\n"
    if (own := record_fields(parsed)) is not None:
        if hasattr(parsed, "fields") and isinstance(parsed.fields, dict):
            return "\n".join(f"{visible(k):32} {visible(v)}"
                             for k, v in parsed.fields.items()) + "\n"
        return "\n".join(f"{n}: {visible(getattr(parsed, n))}" for n in own) + "\n"
    items = list(parsed)
    if items and isinstance(items[0], list):  # iostat: reports of pools
        flat = [p for report in items for p in report]
        items = [r for p in flat for r in (p.pool_row, *p.rows)]
    labels: list[str] | None = None
    if items and isinstance(getattr(items[0], "vdevs", None), tuple):  # zpool list -v
        # pool rows, then their vdev rows indented by depth under class labels
        labels, flat = [], []
        for u in items:
            labels.append(visible(u.name))
            flat.append(u)
            section = None
            for v in u.vdevs:
                if v.section != section and v.section.value != "vdevs":
                    labels.append(f"{visible(v.section.value)}")
                    flat.append(None)
                section = v.section
                labels.append("  " * (1 + (v.depth or 0)) + visible(v.name))
                flat.append(v)
        items = flat
    if not items:
        return "(nothing)\n"
    first = next((i for i in items if i is not None), None)
    first_fields = record_fields(first)
    if first_fields is None:
        return "\n".join(visible(i) for i in items) + "\n"
    names = [n for n in first_fields if n not in ("props", "children", "vdevs")]
    rows = [[_cell(getattr(i, n, None)) for n in names] for i in items]
    if labels is not None:
        for row, label in zip(rows, labels, strict=True):
            row[0] = label
    # columns with nothing in any row (e.g. the queue columns without -q) are left out
    keep = [k for k, n in enumerate(names) if k == 0 or any(r[k] != "-" for r in rows)]
    names = [names[k] for k in keep]
    rows = [[r[k] for k in keep] for r in rows]
    widths = [max(len(n), *(len(r[k]) for r in rows)) for k, n in enumerate(names)]
    lines = ["  ".join(n.upper().ljust(w) for n, w in zip(names, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
              for r in rows]
    return "\n".join(lines) + "\n"


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    if hasattr(v, "value"):
        return visible(v.value)
    if isinstance(v, tuple):
        return "/".join(visible(x) for x in v) if v else "-"
    if isinstance(v, float):
        return f"{v:.2f}"
    return visible(v)


def run_parse(kind: str, file: str, *, as_json: bool, columns: str | None = None,
              zfs_version: str | None = None, omitted_since_boot: bool = False) -> int:
    try:
        if file == "-":
            text = sys.stdin.read()
        else:
            with open(file, encoding="utf-8", errors="replace") as f:
                text = f.read()
    except OSError as e:
        print(f"zconsole parse: cannot read {file}: {e.strerror}", file=sys.stderr)
        return EXIT_IO
    try:
        parsed = parse_text(kind, text, columns=columns, zfs_version=zfs_version,
                            omitted_since_boot=omitted_since_boot)
    except ParseError as e:
        print(f"zconsole parse: this does not read as {kind} output: {visible(e)}",
              file=sys.stderr)
        return EXIT_PARSE
    if as_json:  # json.dump escapes every control character (ensure_ascii)
        json.dump(to_json(kind, parsed), sys.stdout, indent=2, sort_keys=False)
        sys.stdout.write("\n")
    elif kind == "zpool-status":
        sys.stdout.write(visible(render_pools(parsed), multiline=True))
    elif kind == "smartctl":
        from zconsole.services.health.smart import render_reading

        sys.stdout.write(visible(render_reading(parsed), multiline=True))
    else:
        sys.stdout.write(visible(render_generic(parsed), multiline=True))
    return EXIT_OK


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    pp = sub.add_parser("parse", help="render zpool/zfs output pasted from another host",
                        description="Parse output captured on another host and render it. "
                                    "With --json, print the parsed model as JSON.")
    pp.add_argument("kind", choices=sorted(KINDS), help="what the input is")
    pp.add_argument("file", nargs="?", default="-", help="input file, or - for stdin")
    pp.add_argument("--json", action="store_true", help="print the parsed model as JSON")
    pp.add_argument("--columns", default=None,
                    help="zfs-list: the -o column list the output was produced with")
    pp.add_argument("--zfs-version", dest="parse_zfs_version", choices=("2.1", "2.3"),
                    default=None,
                    help="zpool-status -D: version that produced it (DDT size semantics)")
    pp.add_argument("-y", dest="omitted_since_boot", action="store_true",
                    help="zpool-iostat: the output was made with -y (its first report is an "
                         "interval, not the time since the pool was imported)")


def take_back_file(args: argparse.Namespace, extra: list[str]) -> list[str]:
    """argparse binds an optional positional before a later option (`parse KIND --json
    FILE` leaves FILE over, `parse KIND --json -` leaves `-`, standard input, as the README
    writes it); take it back rather than make the operator reorder words."""
    if args.file == "-" and len(extra) == 1 and (extra[0] == "-"
                                                 or not extra[0].startswith("-")):
        args.file = extra[0]
        return []
    return extra


def run(args: argparse.Namespace) -> int:
    return run_parse(args.kind, args.file, as_json=args.json, columns=args.columns,
                     zfs_version=args.parse_zfs_version,
                     omitted_since_boot=args.omitted_since_boot)
