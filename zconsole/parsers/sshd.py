"""sshd's configuration: the effective settings (`sshd -T`) and the files as written
(sshd_config and the files its `Include` lines pull in), with where each line stands.

How sshd reads them (sshd_config(5), servconf.c of OpenSSH 9.2p1):
- keywords are case-insensitive; for most of them "the first obtained value will be used";
- `Include` is expanded where it stands, the glob's matches in lexical order (Debian's
  `Include /etc/ssh/sshd_config.d/*.conf` is at the top of the main file, so drop-ins win);
- a line after `Match` belongs to that block, up to the next `Match` or the end of the
  file it is in; a file included inside a block is read in that block, and the block state
  is restored after the included file (a `Match` in a drop-in ends with the drop-in).
"""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Mapping

from zconsole.model.fixit import ConfigLine, SshdSources
from zconsole.parsers.errors import ParseError, parser

SOURCE_T = "sshd -T"
SOURCE_CONFIG = "sshd_config"
MAX_DEPTH = 16  # servconf.c SERVCONF_MAX_DEPTH


@parser(SOURCE_T)
def parse_sshd_T(text: str) -> dict[str, tuple[str, ...]]:
    """`sshd -T` (also with `-C ...`): lower-case keyword -> its values in printed order
    (most keywords have one; hostkey, listenaddress, subsystem ... may have several)."""
    out: dict[str, list[str]] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        key, _, value = line.partition(" ")
        if not key or not key.isascii() or not all(c.isalnum() for c in key):
            raise ParseError(SOURCE_T, "not a `keyword value` line", n, raw)
        out.setdefault(key.lower(), []).append(value.strip())
    if not out:
        raise ParseError(SOURCE_T, "no settings printed")
    return {k: tuple(v) for k, v in out.items()}


def _split(line: str) -> tuple[str, str] | None:
    """`Keyword value`, `Keyword=value` or `Keyword = value`; None for blanks and comments."""
    s = line.strip()
    if not s or s.startswith("#"):
        return None
    i = 0
    while i < len(s) and not (s[i].isspace() or s[i] == "="):
        i += 1
    key = s[:i]
    rest = s[i:].lstrip()
    if rest.startswith("="):
        rest = rest[1:].lstrip()
    return key, rest


@parser(SOURCE_CONFIG)
def parse_sshd_config(main_path: str, files: Mapping[str, str]) -> SshdSources:
    """The keyword lines sshd reads, in its order. `files` maps a path to its text: the
    main file at `main_path` and every file an Include may name (paths not in `files` are
    taken as absent, as sshd takes a glob that matches nothing)."""
    if main_path not in files:
        raise ParseError(SOURCE_CONFIG, f"{main_path} was not given")
    lines: list[ConfigLine] = []
    read: list[str] = []
    problems: list[str] = []
    # (path, its lines, next index, the Match block in force, include depth): an explicit
    # stack, so a deep Include chain cannot reach Python's recursion limit; a file's entry
    # carries its own block, so returning from an included file restores the includer's
    split: dict[str, list[str]] = {}

    def text_of(p: str) -> list[str]:
        if p not in split:
            # lines end at \n only, as sshd reads them (fgets): never splitlines(), which
            # also breaks at \f, \x1c-\x1e, U+0085, U+2028/9 and a lone \r
            split[p] = files[p].split("\n")
        return split[p]

    stack: list[tuple[str, list[str], int, str | None, int]] = [
        (main_path, text_of(main_path), 0, None, 0)]
    # a file included again and again (Include lines repeated) must not multiply the work
    budget = 2 * sum(t.count("\n") + 1 for t in files.values()) + 1_000
    while stack:
        path, text, i, match, depth = stack.pop()
        budget -= 1
        if budget < 0:
            raise ParseError(SOURCE_CONFIG, "the Include lines expand to more than twice "
                             "the text given")
        if i == 0:
            read.append(path)
        if i >= len(text):
            continue
        stack.append((path, text, i + 1, match, depth))
        kv = _split(text[i])
        if kv is None:
            continue
        key, value = kv
        k = key.lower()
        if k == "match":
            stack[-1] = (path, text, i + 1, f"Match {value}".strip(), depth)
            continue
        lines.append(ConfigLine(path, i + 1, k, value, match))
        if k != "include":
            continue
        if depth + 1 > MAX_DEPTH:
            problems.append(f"{path}:{i + 1}: Include nested too deeply")
            continue
        found: list[str] = []
        for pattern in value.split():
            if not pattern.startswith("/"):
                pattern = "/etc/ssh/" + pattern  # relative to /etc/ssh (servconf.c)
            base = posixpath.basename(pattern)
            found += sorted(p for p in files if p != main_path
                            and posixpath.dirname(p) == posixpath.dirname(pattern)
                            and fnmatch.fnmatchcase(posixpath.basename(p), base))
        chain = {e[0] for e in stack}
        for p in reversed(found):  # last in, first out: the first match is read first
            if p in chain:
                problems.append(f"{path}:{i + 1}: {p} includes itself")
                continue
            stack.append((p, text_of(p), 0, match, depth + 1))
    if not lines:
        problems.append(f"{main_path} sets nothing (every default applies)")
    return SshdSources(tuple(lines), tuple(read), tuple(problems))
