"""A configuration file's text as the fix-its read, change and compare it: lines broken at
`\\n` only (what sed, sshd and systemd count as a line), its sha256, the unified diff of a
change, and the sed script that deletes one line only if it still reads what zconsole saw."""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Sequence


def split_lines(text: str) -> list[str]:
    r"""`text`'s lines with their ends, broken at `\n` only (what sed, sshd and systemd
    count as a line; `str.splitlines` also breaks at \f, \x1c-\x1e, U+0085, U+2028/9, \r)."""
    parts = text.split("\n")
    return [f"{x}\n" for x in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def text_lines(text: str) -> list[str]:
    r"""`text`'s lines without their `\n` (a `\r` stays: it is part of the line to sed)."""
    return [x[:-1] if x.endswith("\n") else x for x in split_lines(text)]


def sha256(text: str | None) -> str:
    """The sha256 of a file's text as the host reads it ("" for no file)."""
    if text is None:
        return ""
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def unified_diff(path: str, before: str | None, after: str | None) -> str:
    """The change of `path` as a unified diff; None is "no such file" (/dev/null)."""
    old = "/dev/null" if before is None else f"a{path}"
    new = "/dev/null" if after is None else f"b{path}"
    lines = difflib.unified_diff(split_lines(before or ""), split_lines(after or ""), old,
                                 new)
    return "".join(x if x.endswith("\n") else x + "\n\\ No newline at end of file\n"
                   for x in lines)


def lines_text(lines: Sequence[str]) -> str:
    r"""What `printf '%s\n' LINE...` writes."""
    return "".join(f"{x}\n" for x in lines)


def delete_line(text: str, n: int) -> str:
    """`text` without its line `n` (1-based), as `sed -i -e Nd` leaves it."""
    lines = split_lines(text)
    if 0 < n <= len(lines):
        del lines[n - 1]
    return "".join(lines)


def replace_line(text: str, n: int, new: str) -> str:
    r"""`text` with line `n` (1-based) reading `new`, its `\n` kept."""
    lines = split_lines(text)
    if 0 < n <= len(lines):
        lines[n - 1] = new + ("\n" if lines[n - 1].endswith("\n") else "")
    return "".join(lines)


def bre_literal(text: str) -> str:
    """`text` as a sed basic regular expression matching it literally (GNU and busybox sed;
    `/` is the delimiter)."""
    return "".join(f"\\{c}" if c in "\\/.*[]^$" else c for c in text)


def sed_delete(n: int, text: str) -> str:
    """The sed script that deletes line `n` only if it reads exactly `text`: the address and
    the pattern both (`N{/^TEXT$/d;}`: POSIX wants the `;` before `}`), so a wrong number
    deletes nothing."""
    return f"{n}{{/^{bre_literal(text)}$/d;}}"


def plain_line(text: str) -> bool:
    """A line zconsole may name in a sed pattern: no control character but the tab."""
    return all(c == "\t" or (c.isprintable() and c not in "\u2028\u2029\x85") for c in text)
