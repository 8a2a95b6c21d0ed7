"""glibc-style getopt: options anywhere (argv is permuted), `--` ends options, clustered
short options (`-vHp`), attached or separate arguments (`-oname` / `-o name`), long options.
Errors carry the exact text zpool/zfs print before their usage message."""

from __future__ import annotations

from dataclasses import dataclass, field


class OptError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass
class Parsed:
    opts: list[tuple[str, str | None]] = field(default_factory=list)
    args: list[str] = field(default_factory=list)

    def has(self, opt: str) -> bool:
        return any(o == opt for o, _ in self.opts)

    def values(self, opt: str) -> list[str]:
        return [v for o, v in self.opts if o == opt and v is not None]

    def last(self, opt: str) -> str | None:
        vals = self.values(opt)
        return vals[-1] if vals else None


def getopt(argv: list[str], shortopts: str, longopts: dict[str, bool] | None = None,
           ) -> Parsed:
    """`shortopts` like "gHLo:pPT:v"; `longopts` maps name -> takes an argument."""
    longopts = longopts or {}
    takes: dict[str, bool] = {}
    i = 0
    while i < len(shortopts):
        c = shortopts[i]
        if c == ":":
            i += 1
            continue
        arg = i + 1 < len(shortopts) and shortopts[i + 1] == ":"
        takes[c] = arg
        i += 2 if arg else 1
    out = Parsed()
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            out.args.extend(argv[i + 1:])
            break
        if a.startswith("--"):
            name, eq, val = a[2:].partition("=")
            if name not in longopts:
                raise OptError(f"unrecognized option '{a}'")
            if longopts[name]:
                if not eq:
                    if i + 1 >= len(argv):
                        raise OptError(f"missing argument for '{name}' option")
                    i += 1
                    val = argv[i]
                out.opts.append(("--" + name, val))
            else:
                out.opts.append(("--" + name, None))
            i += 1
            continue
        if a.startswith("-") and len(a) > 1:
            j = 1
            while j < len(a):
                c = a[j]
                if c not in takes:
                    raise OptError(f"invalid option '{c}'")
                if takes[c]:
                    rest = a[j + 1:]
                    if rest:
                        out.opts.append((c, rest))
                    else:
                        if i + 1 >= len(argv):
                            raise OptError(f"missing argument for '{c}' option")
                        i += 1
                        out.opts.append((c, argv[i]))
                    break
                out.opts.append((c, None))
                j += 1
            i += 1
            continue
        out.args.append(a)
        i += 1
    return out
