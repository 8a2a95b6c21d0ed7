"""The `config:` table of a `zpool status` TEXT pool block -> the vdev forest. The forms it
takes are listed in the module doc of `parsers.zpool_status`; vdev types from names are
`parsers.vdev_names`'.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from zconsole.model.pool import ClassRow, Section, Vdev
from zconsole.parsers.units import lenient, parse_count
from zconsole.parsers.vdev_names import vdev_type_from_name

_CLASS_HEADERS = {"logs": "logs", "log": "logs", "dedup": "dedup", "special": "special",
                  "cache": "cache", "spares": "spares"}
_STATES = ("ONLINE", "DEGRADED", "FAULTED", "OFFLINE", "UNAVAIL", "REMOVED", "AVAIL",
           "INUSE", "SPLIT", "UNKNOWN", "SUSPENDED")
_CNT = r"[0-9]+(?:\.[0-9]+)?[KMGTPEZ]?"
_ROW = re.compile(
    r"^(?P<name>\S(?:.*?\S)?)\s+(?P<state>" + "|".join(_STATES) + r")"
    r"(?:\s+(?P<r>" + _CNT + r")(?:\s+(?P<w>" + _CNT + r")(?:\s+(?P<c>" + _CNT + r")"
    r"(?:\s+(?P<s>" + _CNT + r"))?)?)?)?(?:\s+(?P<note>\S(?:.*\S)?))?\s*$")

_DRAID_CHILDREN = re.compile(r":([0-9]{1,4})c(?::|-)")


def _min_children(name: str) -> int | None:
    """How many children a container row named `name` has at least, None for a leaf."""
    vtype, parity = vdev_type_from_name(name)
    if vtype in ("mirror", "replacing", "spare"):
        return 2
    if vtype == "raidz":
        return (parity or 1) + 1
    if vtype == "draid":
        m = _DRAID_CHILDREN.search(name)
        return int(m.group(1)) if m else (parity or 1) + 1
    return None


def _safe_count(text: str | None) -> int | None:
    return lenient(parse_count, text)


@dataclass
class _Node:
    name: str
    state: str
    counters: tuple[int | None, int | None, int | None]
    slow: int | None
    note: str | None
    depth: int
    children: list[_Node] = field(default_factory=list)

    def freeze(self) -> Vdev:
        vtype, parity = vdev_type_from_name(self.name)
        path = self.name if vtype in ("file", "disk") and self.name.startswith("/") else None
        note = self.note
        ashift, native = block_size(note)
        return Vdev(name=self.name, type=vtype, state=self.state,
                    read_errors=self.counters[0], write_errors=self.counters[1],
                    checksum_errors=self.counters[2], note=note, path=path,
                    children=tuple(c.freeze() for c in self.children), slow_ios=self.slow,
                    parity=parity,
                    resilvering=bool(note and "(resilvering)" in note),
                    removing=bool(note and "(removing)" in note),
                    ashift=ashift, native_ashift=native)


_BLOCK_SIZE = re.compile(r"block size: (\d{1,7})B configured, (\d{1,7})B native")


def block_size(note: str | None) -> tuple[int | None, int | None]:
    """`ashift`/`native_ashift` from zpool's `block size: 512B configured, 4096B native`
    note (print_status_config prints it on a leaf whose configured ashift is below the
    disk's physical one); (None, None) when the note is absent or not powers of two."""
    m = _BLOCK_SIZE.search(note or "")
    if m is None:
        return None, None
    conf, native = int(m.group(1)), int(m.group(2))
    if conf < 1 or native < 1 or conf & (conf - 1) or native & (native - 1):
        return None, None
    return conf.bit_length() - 1, native.bit_length() - 1


def _indent(line: str) -> int:
    expanded = line.expandtabs(8)
    return len(expanded) - len(expanded.lstrip(" "))


def _parse_row(stripped: str, has_slow: bool, depth: int) -> _Node | None:
    m = _ROW.match(stripped)
    if not m:
        return None
    r, w, c, s = m.group("r"), m.group("w"), m.group("c"), m.group("s")
    note = m.group("note")
    slow = None
    if s is not None:
        if has_slow:
            slow = _safe_count(s)
        else:
            note = s if note is None else s + stripped[m.end("s"):]
            note = note.strip() or None
    return _Node(name=m.group("name"), state=m.group("state"),
                 counters=(_safe_count(r), _safe_count(w), _safe_count(c)), slow=slow,
                 note=note, depth=depth)


class ConfigTable:
    """Builds the vdev forest of one pool from config rows."""

    def __init__(self, pool_name: str) -> None:
        self.pool_name = pool_name
        self.base: int | None = None
        self.has_slow = False
        self.section = "vdevs"
        self.root: _Node | None = None
        self.tops: dict[str, list[_Node]] = {k: [] for k in
                                             ("vdevs", "logs", "dedup", "special", "cache",
                                              "spares")}
        self.stack: list[_Node] = []
        self.classes: list[ClassRow] = []

    def header(self, line: str) -> None:
        self.base = _indent(line)
        self.has_slow = "SLOW" in line.split()

    def feed(self, line: str) -> bool:
        """Consume one table line; False if it is not a table row."""
        stripped = line.strip()
        if self.base is None:
            self.base = _indent(line)
        depth = max(0, (_indent(line) - self.base) // 2)
        if depth == 0 and stripped in _CLASS_HEADERS:
            self.section = _CLASS_HEADERS[stripped]
            self.stack = []
            return True
        node = _parse_row(stripped, self.has_slow, depth)
        if node is None:
            return False
        if depth == 0 and self.root is not None and node.name in _CLASS_HEADERS \
                and node.name != "spares":
            # illumos/Solaris era: `logs  FAULTED  0 0 0  bad intent log` - the class itself
            # has a state; its children follow, indented, as with the bare word.
            self.section = _CLASS_HEADERS[node.name]
            self.stack = []
            self.classes.append(ClassRow(Section(self.section), node.state, *node.counters,
                                         note=node.note))
            return True
        if self.section == "vdevs" and self.root is None and depth == 0:
            self.root = node
            self.stack = [node]
            return True
        if depth == 0:
            if self.section != "vdevs":
                depth = 1  # some pastes lose the class children's indent
            else:
                return False
        node.depth = depth
        # Climb to the parent: the nearest earlier node with a smaller depth.
        while self.stack and self.stack[-1].depth >= depth:
            self.stack.pop()
        if self.stack and not (self.section == "vdevs" and self.stack[-1] is self.root):
            self.stack[-1].children.append(node)
        elif self.section == "vdevs" and self.stack and self.stack[-1] is self.root:
            self.tops["vdevs"].append(node)
        else:
            self.tops[self.section].append(node)
        self.stack.append(node)
        return True

    def unfinished(self) -> str | None:
        """The innermost container of the last rows read that holds fewer devices than it
        must (zpool prints a mirror, replacing or spare with two or more, raidzP with more
        than P, draid with its `Nc` children): a sentence, or None."""
        for node in reversed(self.stack):
            need = _min_children(node.name)
            have = len(node.children)
            if need is not None and have < need:
                return (f"`{node.name[:60]}` lists {have} device{'' if have == 1 else 's'} "
                        f"where it has at least {need}")
        return None

    def freeze(self) -> dict[str, tuple[Vdev, ...]]:
        return {k: tuple(n.freeze() for n in v) for k, v in self.tops.items()}

