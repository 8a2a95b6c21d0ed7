"""What every program module in `tools/` shares.

A handler is `handler(ctx, args) -> (exit code, stdout, stderr)`, where `args` follow the
program name. Instead of returning it may raise `CmdError` (exit code and stderr: every
refusal, usage error and permission error) or `TimeoutError` (the real command would block;
the host turns it into `CommandTimedOut`). The helpers keep handlers short:

- `Usage`: a program's usage texts; `usage.error(sub, v23, message)` is the exit-2 CmdError;
- `parse`: glibc getopt, or that usage error;
- `get_props`: the property list of `zpool get` / `zfs get`;
- `deny`: refuse a change to a caller who is not root;
- `each`: one change per named item (device, pool, dataset), failures collected as zpool and
  zfs collect them;
- `interval`: the trailing `interval [count]`;
- `subcommands`: the dispatch of `zpool X` / `zfs X`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from zconsole.hosts.demo.getopt import OptError, Parsed, getopt
from zconsole.hosts.demo.machine import CmdError, Machine

Out = tuple[int, str, str]
T = TypeVar("T")


@dataclass
class Context:
    """What a handler sees: the machine at `now`, the ZFS version, the caller."""

    machine: Machine
    now: float
    v23: bool
    root: bool
    fast_forward: Callable[[float], None]  # move the simulation to an absolute time
    stdin: str | None = None  # what a pipeline's previous stage wrote (zfs receive reads it)
    took: float = 0.0  # seconds the real command would take (getent's slow lookup)
    # `zpool wait`: wait until the function (now -> end time of what is awaited, None when
    # nothing runs) says None; the time then (DemoHost._wait_until)
    wait_until: Callable[[Callable[[float], float | None]], float] | None = None


Handler = Callable[[Context, list[str]], Out]


@dataclass(frozen=True)
class Usage:
    """A program's usage text per subcommand, as it prints them after a bad option or a
    missing argument: `message`, `usage:`, the subcommand's lines, then its footer."""

    texts: Mapping[str, str]
    texts_21: Mapping[str, str] = field(default_factory=dict)  # where OpenZFS 2.1 differs
    footers: Mapping[str, str] = field(default_factory=dict)

    def error(self, sub: str, v23: bool, message: str = "") -> CmdError:
        table = self.texts if v23 or sub not in self.texts_21 else self.texts_21
        body = table.get(sub, f"\t{sub}\n")
        lead = message + "\n" if message else ""
        return CmdError(2, lead + "usage:\n" + body + self.footers.get(sub, ""))


def parse(ctx: Context, usage: Usage, sub: str, argv: list[str], spec: str,
          longopts: dict[str, bool] | None = None) -> Parsed:
    """Options as glibc getopt reads them (`spec` like "gHLo:pPT:v"); a bad one raises the
    subcommand's usage error."""
    try:
        return getopt(argv, spec, longopts)
    except OptError as e:
        raise usage.error(sub, ctx.v23, e.message) from None


def get_props(ctx: Context, usage: Usage, p: Parsed, known: Callable[[str], bool]
              ) -> list[str]:
    """The comma-separated property list of `get` (its first argument; `all` or names
    `known` accepts), or the usage error libzfs gives."""
    if not p.args:
        raise usage.error("get", ctx.v23, "missing property argument")
    props = p.args[0].split(",")
    for prop in props:
        if prop != "all" and not known(prop):
            raise usage.error("get", ctx.v23, f"bad property list: invalid property '{prop}'")
    return props


class Denied(CmdError):
    """A change refused to a caller who is not root; it ends the command at once."""


def deny(ctx: Context, what: str) -> None:
    """Refuse a change to a caller who is not root: `<what>: permission denied`, exit 1."""
    if not ctx.root:
        raise Denied(1, what + ": permission denied\n")


def each(items: Iterable[T], change: Callable[[T], str | None]) -> Out:
    """Apply `change` to every item as zpool and zfs do: a refused item adds its message and
    raises the exit code to 1 (or to its own code when higher) while the next items still
    run; `deny` stops the command. `change` may return a warning for stderr."""
    rc, err = 0, ""
    for item in items:
        try:
            err += change(item) or ""
        except Denied:
            raise
        except CmdError as e:
            rc, err = max(rc, e.rc), err + e.stderr
    return rc, "", err


def interval(args: list[str]) -> tuple[list[str], float | None, int | None]:
    """Trailing `interval [count]` as zpool's get_interval_count reads them."""
    def num(s: str) -> bool:
        try:
            float(s)
        except ValueError:
            return False
        return not s.startswith("-")

    every: float | None = None
    count: int | None = None
    if args and num(args[-1]):
        if len(args) >= 2 and num(args[-2]):
            every, count = float(args[-2]), int(float(args[-1]))
            args = args[:-2]
        else:
            every = float(args[-1])
            args = args[:-1]
    return args, every, count


def subcommands(program: str, table: Mapping[str, Handler],
                aliases: Mapping[str, str] | None = None) -> Handler:
    """The handler of a program with subcommands (`zpool status`, `zfs snap`): no
    subcommand or an unknown one gives the program's own usage error (exit 2)."""
    head = f"usage: {program} command args ...\nwhere 'command' is one of the following:\n"
    names = aliases or {}

    def run(ctx: Context, argv: list[str]) -> Out:
        if not argv:
            return 2, "", head
        sub, rest = argv[0], argv[1:]
        handler = table.get(names.get(sub, sub))
        if handler is None:
            return 2, "", f"unrecognized command '{sub}'\n" + head
        return handler(ctx, rest)

    return run
