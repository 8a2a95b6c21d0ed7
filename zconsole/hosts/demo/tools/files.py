"""The file programs a fix-it plan runs, over `machine.files` (path -> text; the demo keeps no
mode or owner, so `cp -a` copies the text):

| program | forms answered |
|---|---|
| `cp` | `-a SRC DST` |
| `rm` | `-f PATH` |
| `sed` | `-i -e Nd PATH` (delete line N), `-i -e 'Ns/RE/REPL/' PATH` (on line N only) |
| `printf` | `FORMAT ARG...` with `%s` and `\\n` |
| `tee` | `PATH` (stdin to PATH and to stdout) |
| `cmp` | `-s A B` |

Every change is root's: a user gets `Permission denied` as from a root-owned /etc.
"""

from __future__ import annotations

import re

from zconsole.hosts.demo.machine import CmdError
from zconsole.hosts.demo.tools._common import Context, Handler, Out


def _root(ctx: Context, program: str, path: str) -> None:
    if not ctx.root:
        raise CmdError(1, f"{program}: cannot open '{path}': Permission denied\n")


def _text(ctx: Context, program: str, path: str) -> str:
    text = ctx.machine.files.get(path)
    if text is None:
        raise CmdError(1, f"{program}: {path}: No such file or directory\n")
    return text


def cp(ctx: Context, argv: list[str]) -> Out:
    if len(argv) != 3 or argv[0] != "-a":
        raise CmdError(1, "cp: demo host answers only -a SRC DST\n")
    src, dst = argv[1], argv[2]
    text = _text(ctx, "cp: cannot stat", src)
    _root(ctx, "cp", dst)
    ctx.machine.files[dst] = text
    return 0, "", ""


def rm(ctx: Context, argv: list[str]) -> Out:
    if len(argv) != 2 or argv[0] != "-f":
        raise CmdError(1, "rm: demo host answers only -f PATH\n")
    _root(ctx, "rm", argv[1])
    ctx.machine.files.pop(argv[1], None)
    return 0, "", ""


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def sed(ctx: Context, argv: list[str]) -> Out:
    ok = len(argv) == 4 and argv[:2] == ["-i", "-e"]
    m = re.fullmatch(r"(\d+)d", argv[2]) if ok else None
    sub = re.fullmatch(r"(\d+)s/((?:[^/\\]|\\.)*)/((?:[^/\\]|\\.)*)/", argv[2]) if ok \
        else None
    if m is None and sub is None:
        raise CmdError(1, "sed: demo host answers only -i -e Nd PATH, -i -e Ns/RE/REPL/ PATH\n")
    path = argv[3]
    text = _text(ctx, "sed: can't read", path)
    _root(ctx, "sed", path)
    lines = text.splitlines(keepends=True)
    n = int((m or sub).group(1))  # type: ignore[union-attr]
    if 0 < n <= len(lines):
        if m is not None:
            del lines[n - 1]
        else:
            assert sub is not None
            body = lines[n - 1].rstrip("\n")
            # the anchored BRE of a fix-it plan: its escapes are literal characters
            got = re.sub(sub.group(2), _unescape(sub.group(3)).replace("\\", "\\\\"), body,
                         count=1)
            lines[n - 1] = got + lines[n - 1][len(body):]
    ctx.machine.files[path] = "".join(lines)
    return 0, "", ""


def printf(ctx: Context, argv: list[str]) -> Out:
    if not argv:
        raise CmdError(1, "printf: missing operand\n")
    fmt, args = argv[0].replace("\\n", "\n"), argv[1:]
    if "%s" not in fmt:
        return 0, fmt, ""
    return 0, "".join(fmt.replace("%s", a) for a in args or [""]), ""


def tee(ctx: Context, argv: list[str]) -> Out:
    if len(argv) != 1:
        raise CmdError(1, "tee: demo host answers only tee PATH\n")
    _root(ctx, "tee", argv[0])
    ctx.machine.files[argv[0]] = ctx.stdin or ""
    return 0, ctx.stdin or "", ""


def cmp(ctx: Context, argv: list[str]) -> Out:
    if len(argv) != 3 or argv[0] != "-s":
        raise CmdError(2, "cmp: demo host answers only -s A B\n")
    a = _text(ctx, "cmp", argv[1])
    b = _text(ctx, "cmp", argv[2])
    return (0 if a == b else 1), "", ""


HANDLERS: dict[str, Handler] = {"cp": cp, "rm": rm, "sed": sed, "printf": printf, "tee": tee,
                                "cmp": cmp}
