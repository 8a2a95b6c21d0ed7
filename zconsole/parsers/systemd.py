"""systemd's boot figures and networkd's links, as their tools print them (systemd 252):

- `systemd-analyze`: `Startup finished in 6.967s (kernel) + 2min 9.636s (userspace) =
  2min 16.603s` (phases may also be firmware, loader, initrd);
- `systemd-analyze blame`: `2min 359ms systemd-networkd-wait-online.service`, slowest first;
- `systemd-analyze critical-chain UNIT`: a tree of `unit @at +took` lines under two lines of
  legend;
- `networkctl list`: `IDX LINK TYPE OPERATIONAL SETUP` rows and `N links listed.`;
- `systemctl show -p ExecStart UNIT`: one `ExecStart={ path=P ; argv[]=ARGS ; ignore_errors=no ;
  ... }` line per command (systemd joins argv with spaces, unquoted), among the other
  properties asked for;
- `systemctl cat UNIT`: each file (the unit, then its drop-ins in the order systemd applies
  them) after a `# /PATH` line, the files separated by an empty line;
- time spans as systemd's format_timespan() writes them: `2min 359ms`, `1.085s`, `945ms`,
  `1h 2min 3.5s`, `12us` / `12µs`.
"""

from __future__ import annotations

import re

from zconsole.model.fixit import BlameEntry, ChainUnit, NetLink, StartupTimes, UnitFile
from zconsole.parsers.errors import ParseError, Skipped, parser

_UNITS = {"us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0,
          "d": 86400.0, "w": 604800.0, "month": 2629800.0, "y": 31557600.0}
_SPAN_PART = re.compile(r"(\d{1,12}(?:\.\d{1,9})?)(us|µs|μs|ms|min|month|s|h|d|w|y)")
_UNIT = re.compile(r"[A-Za-z0-9:_.\\@-]{1,256}\.(?:service|mount|device|socket|target|timer|"
                   r"swap|scope|path|slice|automount)")


def timespan(text: str) -> float | None:
    """A systemd time span in seconds, None when `text` is not one."""
    words = text.split()
    if not words or len(words) > 12:
        return None
    total = 0.0
    for w in words:
        m = _SPAN_PART.fullmatch(w)
        if m is None:
            return None
        total += float(m.group(1)) * _UNITS[m.group(2)]
    return total


@parser("systemd-analyze")
def parse_startup(text: str) -> StartupTimes:
    for line in text.splitlines():
        if not line.startswith("Startup finished in "):
            continue
        body, eq, total_text = line[len("Startup finished in "):].rpartition(" = ")
        total = timespan(total_text.strip())
        if not eq or total is None:
            raise ParseError("systemd-analyze", "no total", None, line)
        phases: list[tuple[str, float]] = []
        for part in body.split(" + "):
            m = re.fullmatch(r"(.{1,80}) \((\w{1,20})\)", part.strip())
            span = timespan(m.group(1)) if m else None
            if m is None or span is None:
                raise ParseError("systemd-analyze", f"unreadable phase {part[:60]!r}", None,
                                 line)
            phases.append((m.group(2), span))
        return StartupTimes(tuple(phases), total, line.strip())
    if "Bootup is not yet finished" in text:
        raise ParseError("systemd-analyze", "the boot has not finished yet")
    raise ParseError("systemd-analyze", "no 'Startup finished' line")


@parser("systemd-analyze blame")
def parse_blame(text: str) -> tuple[BlameEntry, ...]:
    """Every `TIME UNIT` line, in the printed order (slowest first)."""
    out: list[BlameEntry] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        time_text, _, unit = line.rpartition(" ")
        secs = timespan(time_text)
        if secs is None or not _UNIT.fullmatch(unit):
            raise ParseError("systemd-analyze blame", "not a `time unit` line", n, raw)
        out.append(BlameEntry(secs, unit, time_text.strip()))
    return tuple(out)


_CHAIN = re.compile(r"([ │├└─]*)(\S{1,256})(?: @([0-9a-zµμ. ]{1,60}?))?(?: \+([0-9a-zµμ. ]{1,60}))?")


@parser("systemd-analyze critical-chain")
def parse_critical_chain(text: str, *, skipped: list[Skipped] | None = None
                         ) -> tuple[ChainUnit, ...]:
    """The chain's units in print order. A line that is not `unit @at +took` (one cut by a
    pager, ending in `>`, or garbage) is left out and appended to `skipped`; the readable
    units are kept. A ParseError only when no line reads."""
    out: list[ChainUnit] = []
    bad: list[Skipped] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if (not line or line.startswith("The time ") or line.startswith("The time when")
                or line.startswith("Bootup is not yet finished")):
            continue
        m = _CHAIN.fullmatch(line)
        if m is None or not _UNIT.fullmatch(m.group(2)):
            bad.append(Skipped(n, raw, "not a `unit @at +took` line"
                               + (" (cut by a pager)" if line.endswith(">") else "")))
            continue
        at = timespan(m.group(3)) if m.group(3) else None
        took = timespan(m.group(4)) if m.group(4) else None
        out.append(ChainUnit(len(m.group(1)) // 2, m.group(2), at, took))
    if skipped is not None:
        skipped.extend(bad)
    if bad and not out:
        raise ParseError("systemd-analyze critical-chain", bad[0].reason, bad[0].line_no,
                         bad[0].line)
    return tuple(out)


@parser("networkctl list")
def parse_networkctl_list(text: str) -> tuple[NetLink, ...]:
    out: list[NetLink] = []
    for n, raw in enumerate(text.splitlines(), 1):
        words = raw.split()
        if not words or words[0] == "IDX" or (len(words) >= 2 and words[1] == "links"
                                              and words[-1] == "listed."):
            continue
        if len(words) != 5 or not words[0].isascii() or not words[0].isdigit():
            raise ParseError("networkctl list", "not an `IDX LINK TYPE OPERATIONAL SETUP` row",
                             n, raw)
        if len(words[0]) > 9:
            raise ParseError("networkctl list", "index out of range", n, raw)
        out.append(NetLink(int(words[0]), words[1], words[2], words[3], words[4]))
    return tuple(out)


@parser("systemctl cat")
def parse_unit_cat(text: str) -> tuple[UnitFile, ...]:
    """The files of `systemctl cat`, in its order. A file's own comment lines stay in it; the
    empty line systemctl writes before the next `# /PATH` is not the file's."""
    files: list[tuple[str, list[str]]] = []
    # lines end at \n only, as systemd reads a unit file (a form feed or U+2028 in a
    # comment is part of its line): the line numbers are the ones sed and file_line count
    lines = text.split("\n")
    if lines and not lines[-1]:
        lines.pop()
    for n, raw in enumerate(lines, 1):
        if raw.startswith("# /") and (n == 1 or not lines[n - 2].strip()):
            if files and files[-1][1] and not files[-1][1][-1].strip():
                files[-1][1].pop()
            files.append((raw[2:].strip(), []))
        elif files:
            files[-1][1].append(raw)
        elif raw.strip():
            raise ParseError("systemctl cat", "text before the first `# /PATH` line", n, raw)
    return tuple(UnitFile(path, tuple(body)) for path, body in files)


_EXEC_LINE = "ExecStart={"
_ARGV = " argv[]="
_ARGV_END = " ; ignore_errors="


@parser("systemctl show -p ExecStart")
def parse_exec_start(text: str) -> tuple[tuple[str, ...], ...]:
    """The unit's ExecStart commands as `systemctl show` prints them (its drop-ins applied,
    as loaded), each as its argv; () when it has none (`ExecStart=` or no such line). Other
    properties' lines are passed over."""
    out: list[tuple[str, ...]] = []
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.startswith("ExecStart="):
            continue
        if raw == "ExecStart=":
            continue
        if not raw.startswith(_EXEC_LINE) or not raw.rstrip().endswith("}"):
            raise ParseError("systemctl show -p ExecStart", "not an `ExecStart={ ... }` line",
                             n, raw)
        start = raw.find(_ARGV)
        end = raw.find(_ARGV_END, start + 1) if start >= 0 else -1
        if start < 0 or end < 0:
            raise ParseError("systemctl show -p ExecStart", "no `argv[]=` field", n, raw)
        argv = tuple(raw[start + len(_ARGV):end].split())
        if not argv:
            raise ParseError("systemctl show -p ExecStart", "an empty argv", n, raw)
        out.append(argv)
    return tuple(out)
