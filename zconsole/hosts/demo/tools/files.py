"""The file programs a fix-it plan runs, over `machine.files` (path -> text; the demo keeps no
mode or owner, so `cp -a` copies the text):

| program | forms answered |
|---|---|
| `cp` | `-a SRC DST` |
| `rm` | `-f PATH` |
| `sed` | `-i -e Nd PATH` (delete line N), `-i -e 'N{/RE/d;}' PATH` (line N, if RE matches it), `-i -e 'Ns/RE/REPL/' PATH` (on line N only) |
| `printf` | `FORMAT ARG...` with `%s` and `\\n` |
| `tee` | `PATH` (stdin to PATH and to stdout) |
| `cmp` | `-s A B` |
| `readlink` | `[--] PATH` (the target of a link; exit 1 and nothing for any other file) |

Lines end at `\\n` only, as GNU sed reads them (a form feed or U+2028 is part of a line).
Symbolic links (`Machine.symlinks`): `cmp`, `tee` and reads follow them; `cp -a` copies the
link itself (-a implies -P), `rm -f` removes the link, and `sed -i` writes a regular file in
place of the link (GNU sed without --follow-symlinks), leaving the target as it was.

Every change is root's: a user gets `Permission denied` as from a root-owned /etc.
"""

from __future__ import annotations

import re

from zconsole.hosts.demo.machine import CmdError, Machine
from zconsole.hosts.demo.tools._common import Context, Handler, Out


def follow(m: Machine, path: str) -> str:
    """`path` with its symbolic links followed (at most 40, as the kernel's ELOOP)."""
    for _ in range(40):
        if path not in m.symlinks:
            return path
        path = m.symlinks[path]
    return path


def split_lines(text: str) -> list[str]:
    """Lines with their ends, broken at `\\n` only (sed's lines)."""
    parts = text.split("\n")
    return [f"{x}\n" for x in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def bre(pattern: str) -> str:
    """A sed basic regular expression of the forms fix-it plans write (`^`, `$`, `.`, `*`,
    backslash-escaped literals) as a Python one; GNU's `\\+ \\? \\| \\( \\{` are refused."""
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if nxt in "+?|(){}":
                raise CmdError(1, f"sed: demo host does not answer \\{nxt} in a regex\n")
            out.append(re.escape(nxt))
            i += 2
            continue
        if (c == "^" and i == 0) or (c == "$" and i == len(pattern) - 1) or c in ".*":
            out.append(c)
        elif c == "[":
            raise CmdError(1, "sed: demo host does not answer brackets in a regex\n")
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def _root(ctx: Context, program: str, path: str) -> None:
    if not ctx.root:
        raise CmdError(1, f"{program}: cannot open '{path}': Permission denied\n")


def _text(ctx: Context, program: str, path: str) -> str:
    text = ctx.machine.files.get(follow(ctx.machine, path))
    if text is None:
        raise CmdError(1, f"{program}: {path}: No such file or directory\n")
    return text


def cp(ctx: Context, argv: list[str]) -> Out:
    if len(argv) != 3 or argv[0] != "-a":
        raise CmdError(1, "cp: demo host answers only -a SRC DST\n")
    src, dst = argv[1], argv[2]
    m = ctx.machine
    if src in m.symlinks:  # -a: the link itself
        _root(ctx, "cp", dst)
        m.symlinks[dst] = m.symlinks[src]
        m.files.pop(dst, None)
        return 0, "", ""
    text = _text(ctx, "cp: cannot stat", src)
    _root(ctx, "cp", dst)
    m.symlinks.pop(dst, None)
    m.files[follow(m, dst)] = text
    return 0, "", ""


def rm(ctx: Context, argv: list[str]) -> Out:
    if len(argv) != 2 or argv[0] != "-f":
        raise CmdError(1, "rm: demo host answers only -f PATH\n")
    _root(ctx, "rm", argv[1])
    if ctx.machine.symlinks.pop(argv[1], None) is None:
        ctx.machine.files.pop(argv[1], None)
    return 0, "", ""


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def sed(ctx: Context, argv: list[str]) -> Out:
    ok = len(argv) == 4 and argv[:2] == ["-i", "-e"]
    m = re.fullmatch(r"(\d+)d", argv[2]) if ok else None
    guarded = re.fullmatch(r"(\d+)\{/((?:[^/\\]|\\.)*)/d;?\}", argv[2]) if ok else None
    sub = re.fullmatch(r"(\d+)s/((?:[^/\\]|\\.)*)/((?:[^/\\]|\\.)*)/", argv[2]) if ok \
        else None
    if m is None and sub is None and guarded is None:
        raise CmdError(1, "sed: demo host answers only -i -e Nd PATH, -i -e 'N{/RE/d;}' PATH, "
                          "-i -e Ns/RE/REPL/ PATH\n")
    path = argv[3]
    text = _text(ctx, "sed: can't read", path)
    _root(ctx, "sed", path)
    lines = split_lines(text)
    n = int((m or sub or guarded).group(1))  # type: ignore[union-attr]
    if 0 < n <= len(lines):
        body = lines[n - 1][:-1] if lines[n - 1].endswith("\n") else lines[n - 1]
        if m is not None:
            del lines[n - 1]
        elif guarded is not None:
            if re.search(bre(guarded.group(2)), body):
                del lines[n - 1]
        else:
            assert sub is not None
            # the anchored BRE of a fix-it plan: its escapes are literal characters
            got = re.sub(bre(sub.group(2)), _unescape(sub.group(3)).replace("\\", "\\\\"),
                         body, count=1)
            lines[n - 1] = got + lines[n - 1][len(body):]
    ctx.machine.symlinks.pop(path, None)  # -i renames a new file over the link
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
    ctx.machine.files[follow(ctx.machine, argv[0])] = ctx.stdin or ""
    return 0, ctx.stdin or "", ""


def cmp(ctx: Context, argv: list[str]) -> Out:
    if len(argv) != 3 or argv[0] != "-s":
        raise CmdError(2, "cmp: demo host answers only -s A B\n")
    a = _text(ctx, "cmp", argv[1])
    b = _text(ctx, "cmp", argv[2])
    return (0 if a == b else 1), "", ""


def readlink(ctx: Context, argv: list[str]) -> Out:
    args = argv[1:] if argv[:1] == ["--"] else argv
    if len(args) != 1:
        raise CmdError(1, "readlink: demo host answers only [--] PATH\n")
    target = ctx.machine.symlinks.get(args[0])
    return (0, target + "\n", "") if target is not None else (1, "", "")


HANDLERS: dict[str, Handler] = {"cp": cp, "rm": rm, "sed": sed, "printf": printf, "tee": tee,
                                "cmp": cmp, "readlink": readlink}
