"""Several hosts: the hosts file, `--host a --host b`, the demo fleet (a Host for each entry:
`make_host`, from hosts/factory.py, the one factory).

The hosts file is TOML, by default `$XDG_CONFIG_HOME/zconsole/hosts.toml`
(`~/.config/zconsole/hosts.toml`), one `[[host]]` table per host:

    [[host]]
    name = "nas1"                          # the name the Fleet screen and check show
    ssh = "root@nas1.example.org"          # ssh destination ([user@]host or an ssh alias)
    ssh_config = "~/.ssh/config.storage"   # optional: an extra ssh config file
    tags = ["prod", "rack-a"]              # optional

    [[host]]
    name = "lab"
    demo = "degraded"                      # the built-in demo host instead of ssh

A file that is not TOML, or whose entries are wrong, is a `HostsFileError` whose text names
the file and the line; no entry is used from it then. Names are shown as plain text
everywhere; control characters are refused in every value (a name is one visible line), and
an ssh destination is checked as `SshHost` checks it (never an option).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from zconsole.hosts.base import HostError
from zconsole.hosts.factory import make_host as make_host  # the one factory, for an entry
from zconsole.model.hosttext import is_clean, name_key, name_trap, visible

if sys.version_info >= (3, 11):
    import tomllib  # novermin
else:  # pragma: no cover - 3.10
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

MAX_FILE = 1 << 20  # bytes: a hosts file is small; anything larger is refused unread
MAX_NAME = 64
SILENT = "no-answer"  # `demo = "no-answer"`: a demo host that never answers (hosts.silent)
DEMO_FLEET = ("showcase", "degraded", "resilvering", SILENT)
KEYS = ("name", "ssh", "ssh_config", "demo", "tags")


class HostsFileError(ValueError):
    """A hosts file that cannot be used; `str()` names the file and the line."""


@dataclass(frozen=True)
class HostEntry:
    """One host of a fleet: exactly one of `ssh` and `demo`."""

    name: str
    ssh: str | None = None
    ssh_config: str | None = None
    demo: str | None = None
    tags: tuple[str, ...] = ()
    line: int = 0  # where its [[host]] starts in the hosts file (0: not from a file)


def default_hosts_path(environ: Mapping[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or os.path.join(env.get("HOME") or
                                                      os.path.expanduser("~"), ".config")
    return os.path.join(base, "zconsole", "hosts.toml")


def load_hosts(path: str | None = None) -> tuple[HostEntry, ...]:
    """The entries of the hosts file at `path` (default: `default_hosts_path()`)."""
    path = path or default_hosts_path()
    shown = visible(path)
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE + 1)
    except FileNotFoundError:
        raise HostsFileError(f"{shown}: no such hosts file (see `zconsole --help`; the "
                             "README shows its format)") from None
    except OSError as e:
        raise HostsFileError(f"{shown}: cannot read it: {visible(e.strerror or e)}") from None
    if len(data) > MAX_FILE:
        raise HostsFileError(f"{shown}: larger than {MAX_FILE // 1024} KiB: not a hosts file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise HostsFileError(f"{shown}:{line}: not UTF-8 text") from None
    return parse_hosts(text, path)


_HEADER = re.compile(r"^[ \t]*\[\[[ \t]*(?:host|\"host\"|'host')[ \t]*\]\]", re.MULTILINE)


def parse_hosts(text: str, path: str = "hosts.toml") -> tuple[HostEntry, ...]:
    """The entries of a hosts file's text; HostsFileError naming the line when it is wrong."""
    shown = visible(path)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        # its text ends "(at line N, column M)"
        at = re.search(r"at line (\d+)", str(e))
        raise HostsFileError(f"{shown}:{at.group(1) + ':' if at else ''} not valid TOML: "
                             f"{visible(e)}") from None
    lines = text.splitlines()
    starts = [text.count("\n", 0, m.start()) + 1 for m in _HEADER.finditer(text)]
    for key in doc:
        if key != "host":
            raise HostsFileError(f"{shown}:{_key_line(lines, 1, len(lines), key) or 1}: "
                                 f"unknown table or key {visible(key)!r} (hosts are "
                                 "[[host]] tables)")
    raw = doc.get("host", [])
    if not isinstance(raw, list):
        raise HostsFileError(f"{shown}: `host` must be [[host]] tables, one per host")
    out: list[HostEntry] = []
    seen: dict[str, int] = {}
    for i, item in enumerate(raw):
        start = starts[i] if len(starts) == len(raw) else 0
        end = starts[i + 1] - 1 if start and i + 1 < len(starts) else len(lines)
        where = f"{shown}:{start}" if start else f"{shown}: host {i + 1}"

        def fail(msg: str, key: str | None = None, where: str = where, start: int = start,
                 end: int = end) -> HostsFileError:
            line = _key_line(lines, start, end, key) if key and start else 0
            at = f"{shown}:{line}" if line else where
            return HostsFileError(f"{at}: {msg}")

        entry = _entry(item, i + 1, start, fail)
        key = name_key(entry.name)  # names an operator cannot tell apart are one name
        if key in seen:
            raise fail(f"the name {visible(entry.name)!r} is used twice (first at line "
                       f"{seen[key]})" if seen[key] else
                       f"the name {visible(entry.name)!r} is used twice", "name")
        seen[key] = start
        out.append(entry)
    return tuple(out)


def _key_line(lines: Sequence[str], start: int, end: int, key: str | None) -> int:
    """The line (1-based) in start..end where `key = …` is set, 0 when not found."""
    if not key or not start:
        return 0
    pattern = re.compile(rf"^[ \t]*[\"']?{re.escape(key)}[\"']?[ \t]*=")
    for n in range(start, min(end, len(lines)) + 1):
        if pattern.match(lines[n - 1]):
            return n
    return 0


def _text_value(item: Mapping[str, Any], key: str,
                fail: Callable[[str, str | None], HostsFileError]) -> str | None:
    value = item.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise fail(f"{key} must be a string, not {type(value).__name__}", key)
    if not value.strip():
        raise fail(f"{key} is empty", key)
    if not is_clean(value):
        raise fail(f"{key} holds control characters: '{visible(value)}'", key)
    return value


def _entry(item: object, n: int, start: int,
           fail: Callable[[str, str | None], HostsFileError]) -> HostEntry:
    if not isinstance(item, dict):
        raise fail(f"host {n} is not a table", None)
    for key in item:
        if key not in KEYS:
            raise fail(f"unknown key {visible(key)!r} (known: {', '.join(KEYS)})", key)
    name = _text_value(item, "name", fail)
    if name is None:
        raise fail("a host needs a name (name = \"nas1\")", None)
    if len(name) > MAX_NAME:
        raise fail(f"name longer than {MAX_NAME} characters", "name")
    trap = name_trap(name)
    if trap is not None:  # the Fleet screen and `check` name hosts by it
        raise fail(f"the name {visible(name)!r} {trap}: it could be mistaken for another",
                   "name")
    ssh = _text_value(item, "ssh", fail)
    demo = _text_value(item, "demo", fail)
    if (ssh is None) == (demo is None):
        raise fail(f"host {name!r} needs exactly one of ssh = \"[user@]host\" and "
                   "demo = \"SCENARIO\"", None)
    if ssh is not None:
        from zconsole.hosts.ssh import validate_destination

        try:
            validate_destination(ssh)
        except HostError as e:
            raise fail(str(e), "ssh") from None
    if demo is not None and demo != SILENT:
        from zconsole.hosts.demo import SCENARIOS

        if demo not in SCENARIOS:
            raise fail(f"unknown demo scenario {demo!r} (choose one of: "
                       f"{', '.join([*SCENARIOS, SILENT])})", "demo")
    ssh_config = _text_value(item, "ssh_config", fail)
    if ssh_config is not None and ssh is None:
        raise fail("ssh_config is for an ssh host", "ssh_config")
    tags = item.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise fail("tags must be a list of strings (tags = [\"prod\"])", "tags")
    for t in tags:
        if not t or not is_clean(t):
            raise fail(f"a tag is empty or holds control characters: '{visible(t)}'", "tags")
    return HostEntry(name, ssh, ssh_config, demo, tuple(tags), start)


def with_tags(entries: Sequence[HostEntry], tags: Iterable[str]) -> tuple[HostEntry, ...]:
    """The entries that carry every one of `tags` (`--tag prod --tag rack-a`), in order."""
    wanted = set(tags)
    return tuple(e for e in entries if wanted <= set(e.tags))


def from_destinations(destinations: Iterable[str], ssh_config: str | None = None
                      ) -> tuple[HostEntry, ...]:
    """`--host a --host b`: one entry each, named like its destination (once each)."""
    out: dict[str, HostEntry] = {}
    for d in destinations:
        out.setdefault(d, HostEntry(d, ssh=d, ssh_config=ssh_config))
    return tuple(out.values())


def demo_fleet(scenarios: Sequence[str] = DEMO_FLEET) -> tuple[HostEntry, ...]:
    """The demo fleet: the demo host in several scenarios, one of them a host that never
    answers (`SILENT`), so the Fleet screen can be tried without ssh."""
    return tuple(HostEntry(f"demo-{s}", demo=s, tags=("demo",)) for s in scenarios)
