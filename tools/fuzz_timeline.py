#!/usr/bin/env python3
"""Fuzz the Timeline end to end: mutated real outputs through the whole read and the screen.

    python tools/fuzz_timeline.py                     # 25 000 inputs per source
    python tools/fuzz_timeline.py --iterations 2000 --seed 7 --source history

Every input is one host's answers to the Timeline's reads, real ones (the guests' captures in
tests/fixtures/parsers/zpool-events and zpool-history, /work/shared/fixtures when present, the
demo host's outputs, an audit log written by `AuditLog`, `date '+%z %Z'` lines), with one
source mutated by random edits, some hostile (times out of range, forged headers and record
suffixes, escape sequences, line separators, digit runs). The input goes through
`services/read/timeline.read_timeline` (the host answering from the mutated texts, the audit
log read from a file) into the model, then through what the Timeline screen draws: every page
of `panel.entry_lines`, `sources_text`, `zone_words`, the summary line
(`health.timeline.summary`), the filters. Allowed outcomes: the source read, a source that
could not be read (its ParseError shown as an error), entries left out as unreadable or
damaged (counted in the source's note). A failure is any exception that escapes, or a
rendered line holding a control, escape or invisible character (`hosttext.is_clean`); the
first 3 per source are printed with the input. Deterministic for a seed. Prints the inputs
tried and the outcomes per source, and a total; exit 1 when anything failed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import traceback
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools.mutation import mutate as edits  # noqa: E402
from zconsole.hosts.base import CommandFailed, PathNotFound, Result  # noqa: E402
from zconsole.hosts.journal import AuditLog  # noqa: E402
from zconsole.model.hosttext import is_clean  # noqa: E402
from zconsole.model.timeline import Entry, Kind, Source, Timeline  # noqa: E402
from zconsole.services.health.timeline import summary  # noqa: E402
from zconsole.services.read import catalogue  # noqa: E402
from zconsole.services.read.timeline import filter_entries, read_timeline  # noqa: E402

FIX = ROOT / "tests" / "fixtures" / "parsers"
SHARED = Path("/work/shared/fixtures")
NOW = 1795302010.0  # 2026-11-21 23:00:10 UTC, the frozen clock of the UI tests
LABEL = "fuzzhost"
SOURCES = ("events", "history", "audit", "zone")

HOSTILE = [
    "9" * 400, "\x1b]52;c;eA==\x07", "\x1b[2J", "\x00", "\r", "\x0b", "\x85", "\u2028",
    "\u2029", "\u202e", "\u200b", "²", "٣", "-", "\t", "\n", "\n\n", "  ", ":", '"', "\\",
    "time = 0x7fffffffffffffff 0x0 ", "time = 0xffffffffffffffff 0xffffffff ",
    "time = 0x0 0x0 ", "time = 0x1 0x3b9aca00 ",
    "Dec 31 9999 23:59:59.999999999 ", "Jan 01 0001 00:00:00.000000000 ",
    "Jan 01 1970 00:00:00.000000000\tresource.fs.zfs.statechange",
    "Nov 28 2026 10:00:00.000000002 resource.fs.zfs.statechange",
    "Feb 30 2026 10:00:00.000000000 ", "        vdev_state = \"FAULTED\"",
    "        class = \"ereport.fs.zfs.checksum\"", "        vdev_path = \"/dev/\x1b[31mvdb\"",
    "9999-12-31.23:59:59 ", "0001-01-01.00:00:00 ", "1970-01-01.00:00:00 ",
    "2026-02-30.25:61:61 ", " [user 0 (root) on zfsvm:linux]", " [on zfsvm]",
    " [user 99999999999999999999 (x) on h:linux]", "History for 'evil':\n",
    "[txg:99999999999999999999] ", "(9999999999999ms) ioctl ", "zpool replace tank vdb vdc",
    "zpool offline tank \x1b[2Jvdb",
]
JSON_HOSTILE = [
    "1e308", "-1e308", "1e400", "NaN", "Infinity", "-Infinity", "true", "null", "0", "-1",
    "253402300800", "253402128001", "9" * 400, '"\\u001b[2J"', '"\\u2028"', '"\\u0085"',
    '{"a":[1,2]}', "[]", '"x\\ny"', '"\\ud800"',
]


# -------------------------------------------------------------------------- the real inputs


@dataclass(frozen=True)
class Base:
    """One host's real answers: name, `zpool events -v` and `-H`, `zpool history -il` and
    `-i` (None: that read fails), the audit log's text, `date '+%z %Z'`."""

    name: str
    events_v: str | None
    events_h: str | None
    history_il: str | None
    history_i: str | None
    audit: str
    zone: str


def _read(path: Path) -> str | None:
    return path.read_text(errors="replace") if path.is_file() else None


def short_of(verbose: str) -> str:
    """`zpool events -H` of a real `-v` listing without host strings in it: each event's first
    line (a space before the class in -v, a tab in -H), nothing else."""
    out = []
    for line in verbose.splitlines():
        if line and not line[0].isspace() and not line.startswith(("TIME", "dropped ")):
            stamp, _, cls = line.rpartition(" ")
            out.append(f"{stamp}\t{cls}")
    return "".join(f"{line}\n" for line in out)


def audit_text(directory: Path) -> str:
    """An audit log as zconsole writes it (`AuditLog.append`), with the records a plan run
    leaves, on this host and another, plus an old record holding a raw U+2028."""
    log = AuditLog(directory / "audit.jsonl")
    base = {"host": LABEL, "plan_id": "p1", "kind": "replace", "pool": "tank",
            "operator": "alice"}
    log.append({**base, "ts": NOW - 300, "event": "plan-start", "title": "Replace a disk"})
    log.append({**base, "ts": NOW - 290, "event": "command-intent", "writes": True,
                "command": "zpool replace tank vdb vdd"})
    log.append({**base, "ts": NOW - 280, "event": "command", "writes": True, "exit_code": 0,
                "command": "zpool replace tank vdb vdd", "stdout": "", "stderr": ""})
    log.append({**base, "ts": NOW - 270, "event": "command", "writes": False, "exit_code": 0,
                "command": "zpool status -p tank"})
    log.append({**base, "ts": NOW - 260, "event": "command", "writes": True, "exit_code": 1,
                "command": "zpool clear tank vdb", "stderr": "cannot clear: no such device"})
    log.append({**base, "host": "another", "ts": NOW - 250, "event": "command",
                "writes": True, "exit_code": 0, "command": "zpool detach tank vdc"})
    log.append({**base, "ts": NOW - 240, "event": "plan-end", "status": "done"})
    old = json.dumps({**base, "ts": NOW - 230, "event": "command", "writes": True,
                      "exit_code": 0, "command": "zfs set com.example:note=a\u2028b tank"},
                     ensure_ascii=False, separators=(",", ":"))
    return log.path.read_text(encoding="utf-8") + old + "\n"


def demo_bases(audit: str) -> list[Base]:
    """The demo host's answers, in the real formats, for two scenarios and both versions."""
    from zconsole.hosts.demo import DemoHost

    out = []
    for scenario, version in (("degraded", "2.3"), ("resilvering", "2.1")):
        host = DemoHost(scenario, zfs_version=version, clock=lambda: NOW, seed=0)

        def answer(argv: tuple[str, ...], host: DemoHost = host) -> str | None:
            r = host.run(argv, check=False)
            return r.stdout if r.returncode == 0 else None

        out.append(Base(f"demo-{scenario}-{version}", answer(catalogue.ZPOOL_EVENTS),
                        answer(catalogue.ZPOOL_EVENTS_SHORT), answer(catalogue.ZPOOL_HISTORY),
                        answer(catalogue.ZPOOL_HISTORY_PLAIN), audit, "+0100 CET\n"))
    return out


def bases(directory: Path) -> list[Base]:
    audit = audit_text(directory)
    zones = ["+0000 UTC\n", "+0100 CET\n", "-0530\n", "+1345 +1345\n"]
    out: list[Base] = []
    ev_dir, hist_dir = FIX / "zpool-events", FIX / "zpool-history"
    names = sorted({p.name.rsplit("-", 1)[0] for p in ev_dir.glob("guest-*-hostile*-v.txt")})
    for i, name in enumerate(names):  # the hostile captures: -v/-H and -il/-i pairs
        out.append(Base(name, _read(ev_dir / f"{name}-v.txt"), _read(ev_dir / f"{name}-H.txt"),
                        _read(hist_dir / f"{name}-il.txt"), _read(hist_dir / f"{name}-i.txt"),
                        audit, zones[i % len(zones)]))
    for i, path in enumerate(sorted(ev_dir.glob("guest-*.txt"))):  # the incidents: -v alone
        if "hostile" in path.name:
            continue
        verbose = path.read_text(errors="replace")
        out.append(Base(path.stem, verbose, short_of(verbose), _read(hist_dir / path.name),
                        None, audit, zones[(i + 1) % len(zones)]))
    for path in sorted(SHARED.glob("*/*events*")) + sorted(SHARED.glob("*/*history*")):
        text = path.read_text(errors="replace")  # the lead's shared captures, when present
        is_events = "events" in path.name
        out.append(Base(f"shared-{path.stem}", text if is_events else None,
                        short_of(text) if is_events else None,
                        None if is_events else text, None, audit, "+0000 UTC\n"))
    out.extend(demo_bases(audit))
    return out


# -------------------------------------------------------------------------- mutation


def mutate(rng: random.Random, text: str, hostile: Sequence[str] = HOSTILE) -> str:
    return edits(rng, text, hostile)


def mutate_json(rng: random.Random, text: str) -> str:
    """An audit log edit: a value replaced by a hostile one (a time out of range, a string
    with an escape), or the text edited as any other."""
    if rng.random() < 0.5:
        return mutate(rng, text, HOSTILE + JSON_HOSTILE)
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    line = lines[i]
    colons = [k for k, c in enumerate(line) if c == ":"]
    if colons:
        k = rng.choice(colons) + 1
        end = k
        while end < len(line) and line[end] not in ",}":
            end += 1 if line[end] != '"' else max(1, line.find('"', end + 1) - end + 1)
        lines[i] = line[:k] + rng.choice(JSON_HOSTILE) + line[end:]
    return "\n".join(lines)


def mutated(rng: random.Random, base: Base, source: str) -> Base:
    if source == "events":
        v, h = base.events_v or "", base.events_h or ""
        which = rng.random()
        return replace(base, events_v=mutate(rng, v) if which < 0.8 else v,
                       events_h=mutate(rng, h) if which > 0.6 else h)
    if source == "history":
        il, i = base.history_il or "", base.history_i
        which = rng.random()
        return replace(base, history_il=mutate(rng, il) if which < 0.8 else il,
                       history_i=mutate(rng, i) if i is not None and which > 0.6 else i)
    if source == "audit":
        return replace(base, audit=mutate_json(rng, base.audit))
    return replace(base, zone=mutate(rng, base.zone))


# -------------------------------------------------------------------------- the host


class FuzzHost:
    """A host answering the Timeline's reads from one input's texts (None: the read fails)."""

    label = LABEL
    kind = "fuzz"
    simulated = True

    def __init__(self, b: Base) -> None:
        self.answers: Mapping[tuple[str, ...], str | None] = {
            catalogue.ZPOOL_EVENTS: b.events_v, catalogue.ZPOOL_EVENTS_SHORT: b.events_h,
            catalogue.ZPOOL_HISTORY: b.history_il, catalogue.ZPOOL_HISTORY_PLAIN: b.history_i,
            catalogue.DATE_ZONE: b.zone}

    def run(self, argv: Sequence[str], *, timeout: float = 20.0, check: bool = True,
            stdin: str | None = None) -> Result:
        out = self.answers.get(tuple(argv))
        if out is None:
            result = Result(tuple(argv), 1, "", "cannot open: no such pool", 0.0)
            if check:
                raise CommandFailed(result)
            return result
        return Result(tuple(argv), 0, out, "", 0.0)

    def now(self) -> float:
        return NOW

    def realpath(self, path: str) -> str:
        if path == "/etc/localtime":
            return "/usr/share/zoneinfo/Europe/Berlin"
        raise PathNotFound(path)

    def read_text(self, path: str) -> str:
        raise PathNotFound(path)


# -------------------------------------------------------------------------- one input


def rendered(t: Timeline, width: int) -> list[str]:
    """Every line the Timeline screen would draw of `t` (the text, not the styles)."""
    from zconsole.ui.kit.text import Hanging, para
    from zconsole.ui.screens.timeline.panel import (
        Filters,
        entry_lines,
        filters_line,
        pages,
        sources_text,
    )

    lines: list[str] = []
    entries = t.entries
    # as TimelinePanel.show draws them: the summary's paragraphs, the sources (with the
    # zone's words), every page of entries, the filters line
    lines += Hanging(*(para(line, "") for line in summary([], entries, {}, NOW, t.zone))
                     ).plain.split("\n")
    lines += sources_text(t, 2, "host clock 1 h 0 min behind").plain.split("\n")
    for page in range(pages(len(entries))):
        lines += entry_lines(entries, t.zone, width, (NOW - 3600, "22:00"), 3,
                             page).plain.split("\n")
    pools = sorted({e.pool for e in entries if e.pool})[:3]
    for pool in pools:  # the filters the screen offers, as the operator cycles them
        shown = filter_entries(entries, pool=pool, kind=Kind.COMMAND)
        lines += filters_line(Filters(pool=pool, kind=Kind.COMMAND)).plain.split("\n")
        lines += entry_lines(shown, t.zone, 60, None, 0).plain.split("\n")
    return lines


def outcome(t: Timeline, source: str) -> str:
    """What became of the mutated source: read, an error shown, or entries left out."""
    which = {"events": Source.EVENTS, "history": Source.HISTORY, "audit": Source.AUDIT}
    if source == "zone":
        return "zone read" if t.utc_offset is not None else "zone unread (UTC said)"
    s = t.source(which[source])
    if s is None:
        return "no source"
    if s.error is not None:
        return "could not be read (error shown)"
    if "left out" in s.note or "could not be checked" in s.note:
        return "read, some entries left out"
    return "read"


OBSERVED = (Entry(NOW - 100, Kind.STATE, "tank", "vdb", "vdb FAULTED (first seen; was ONLINE)",
                  Source.OBSERVED, state="FAULTED", seq=1),)


def one(b: Base, source: str, audit_path: Path) -> tuple[str, str | None]:
    """(outcome, None) or ("failure", what went wrong)."""
    audit_path.write_text(b.audit, encoding="utf-8", errors="surrogatepass")
    try:
        t = read_timeline(FuzzHost(b), audit=AuditLog(audit_path),  # type: ignore[arg-type]
                          observed=OBSERVED)
        lines = rendered(t, 100)
    except Exception:  # noqa: BLE001 - this is what the fuzzer looks for
        return "failure", traceback.format_exc(limit=6)
    for line in lines:
        if not is_clean(line):
            return "failure", f"a rendered line holds a control character: {line!r}"
    return outcome(t, source), None


def run(iterations: int, seed: int, sources: Sequence[str], *, quiet: bool = False
        ) -> dict[str, Counter[str]]:
    """`iterations` inputs per source; the outcome counts per source."""
    rng = random.Random(seed)
    results: dict[str, Counter[str]] = {s: Counter() for s in sources}
    with tempfile.TemporaryDirectory(prefix="zconsole-fuzz-timeline-") as tmp:
        real = bases(Path(tmp))
        audit_path = Path(tmp) / "fuzzed-audit.jsonl"
        for source in sources:
            shown = 0
            for _ in range(iterations):
                b = rng.choice(real)
                m = mutated(rng, b, source)
                what, why = one(m, source, audit_path)
                results[source][what] += 1
                if why is not None and shown < 3 and not quiet:
                    shown += 1
                    print(f"--- {source} from {b.name}:\n{why}\ninput: "
                          f"{_changed(b, m, source)!r}", flush=True)
            if not quiet:
                counts = ", ".join(f"{k} x{v}" for k, v in sorted(results[source].items()))
                print(f"{source:8} {iterations:>7} inputs: {counts}", flush=True)
    return results


def _changed(b: Base, m: Base, source: str) -> str:
    """The mutated text of the source, cut to where it starts to differ."""
    pairs = {"events": (b.events_v, m.events_v), "history": (b.history_il, m.history_il),
             "audit": (b.audit, m.audit), "zone": (b.zone, m.zone)}
    old, new = pairs[source]
    old, new = old or "", new or ""
    at = next((i for i, (x, y) in enumerate(zip(old, new, strict=False)) if x != y),
              min(len(old), len(new)))
    return new[max(0, at - 200):at + 400]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--iterations", "-n", type=int, default=25_000, help="inputs per source")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--source", action="append", choices=SOURCES, help="only these sources")
    args = ap.parse_args(argv)
    results = run(args.iterations, args.seed, args.source or SOURCES)
    total = sum(sum(c.values()) for c in results.values())
    failures = sum(c["failure"] for c in results.values())
    print(f"total: {total} inputs, {failures} failures (seed {args.seed})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
