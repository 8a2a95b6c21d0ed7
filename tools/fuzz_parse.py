#!/usr/bin/env python3
"""Fuzz `zconsole parse`: N mutated inputs per kind, each must exit 0 or 3, never a traceback.

    python tools/fuzz_parse.py                  # 100 000 inputs per kind (the issue's figure)
    python tools/fuzz_parse.py -n 2000 --seed 7

Every input is a real fixture (tests/fixtures, capture outputs included) mutated by random
edits, some of them hostile (digit runs of thousands, deep nesting, escape sequences, non-ASCII
digits, NUL). The command runs in this process through `zconsole.cli.main.main`, with stdout
and stderr captured; any exception that escapes, or an exit code other than 0 and 3, is a
failure and is printed with the input that caused it (first 5 per kind). Deterministic for a
given seed. Prints one line per kind and a total; exit 1 when anything failed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import sys
import tempfile
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools.mutation import mutate  # noqa: E402
from zconsole.cli.commands.parse import KINDS  # noqa: E402
from zconsole.cli.main import main  # noqa: E402

FIX = ROOT / "tests" / "fixtures"
# Which fixture folders feed which kind (capture outputs are real 2.1/2.3 outputs too).
SOURCES = {
    "zpool-status": ["parsers/zpool-status"],
    "zpool-list": ["parsers/zpool-list"],
    "zpool-iostat": ["parsers/zpool-iostat"],
    "zfs-list": ["parsers/zfs-list"],
    "zpool-get": ["parsers/props"],
    "zfs-get": ["parsers/props"],
    "arcstats": ["parsers/arcstats"],
    "diskstats": ["parsers/diskstats"],
    "udev-db": ["parsers/blockdev/udev*"],
    "lsblk": ["parsers/blockdev/lsblk*"],
}
HOSTILE = ["9" * 5000, "9" * 400, "[" * 3000, "{\"a\":" * 500, "\x1b]52;c;eA==\x07", "\x1b[2J",
           "\x00", "²", "٣", "\u202e", "-", "\t", "\n", "  ", ":", "%", "/", "1.5T", "-1",
           "null", "ONLINE", "DEGRADED", "mirror-0", "raidz2-1", "scan:", "pool:", "config:"]


# Captured real outputs (tests/fixtures/capture/*/STATE/manifest.json): argv prefix per kind.
CAPTURED = {"zpool-status": ("zpool", "status"), "zpool-list": ("zpool", "list"),
            "zpool-iostat": ("zpool", "iostat"), "zpool-get": ("zpool", "get"),
            "zfs-get": ("zfs", "get"), "udev-db": ("udevadm", "info"), "lsblk": ("lsblk",)}


def captured(kind: str) -> list[str]:
    prefix = CAPTURED.get(kind)
    out: list[str] = []
    if prefix is None:
        return out
    for manifest in sorted(FIX.glob("capture/*/*/manifest.json")):
        m = json.loads(manifest.read_text())
        for c in m.get("commands", []):
            if tuple(c["argv"][:len(prefix)]) == prefix and c.get("stdout"):
                path = manifest.parent / c["stdout"]
                if path.stat().st_size < 2_000_000:
                    out.append(path.read_text(errors="replace"))
    return sorted(set(out))


def samples(kind: str) -> list[str]:
    out: list[str] = captured(kind)
    for pattern in SOURCES.get(kind, []):
        base = FIX / pattern
        paths = [p for p in base.iterdir()] if base.is_dir() else list(FIX.glob(pattern))
        for p in sorted(paths):
            if p.is_file() and p.name != "SOURCES.md" and p.stat().st_size < 2_000_000:
                out.append(p.read_text(errors="replace"))
    return out


def run_one(kind: str, path: Path) -> tuple[int | None, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(["parse", kind, str(path)])
    except SystemExit as e:
        return (e.code if isinstance(e.code, int) else 1), ""
    except BaseException:  # noqa: BLE001 - this is what the fuzzer looks for
        return None, traceback.format_exc()
    return rc, ""


def main_(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=100_000, help="inputs per kind")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kind", action="append", help="only these kinds")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    # one file per run: two runs side by side must never read each other's input
    fd, name = tempfile.mkstemp(prefix=f"zconsole-fuzz-{args.seed}-", suffix=".txt")
    os.close(fd)
    tmp = Path(name)
    total_bad = 0
    for kind in args.kind or sorted(KINDS):
        base = samples(kind)
        if not base:
            print(f"{kind:14} no fixtures")
            continue
        codes: dict[int, int] = {}
        bad = 0
        for _ in range(args.n):
            text = mutate(rng, rng.choice(base), HOSTILE)
            tmp.write_text(text, errors="surrogatepass")
            rc, tb = run_one(kind, tmp)
            if rc is None or rc not in (0, 3):
                bad += 1
                if bad <= 5:
                    print(f"--- {kind}: rc={rc}\n{tb}\ninput: {text[:300]!r}")
            else:
                codes[rc] = codes.get(rc, 0) + 1
        total_bad += bad
        print(f"{kind:14} {args.n:>7} inputs: exit 0 x{codes.get(0, 0)}, exit 3 x{codes.get(3, 0)}"
              f", failures {bad}", flush=True)
    tmp.unlink(missing_ok=True)
    print(f"total failures: {total_bad}")
    return 1 if total_bad else 0


if __name__ == "__main__":
    sys.exit(main_())
