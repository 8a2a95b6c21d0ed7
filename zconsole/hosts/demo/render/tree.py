"""`Tree`: the read-only virtual filesystem behind `read_text`, `list_dir` and `realpath`
(files, directory listings, symlinks). `block` and `net` fill it; files computed at read time
(/proc/spl/kstat/zfs/arcstats, /proc/diskstats, ...) are answered by the host itself."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Tree:
    """A read-only virtual filesystem: files, directory listings and symlinks."""

    files: dict[str, str] = field(default_factory=dict)
    dirs: dict[str, set[str]] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)

    def add_file(self, path: str, text: str) -> None:
        self.files[path] = text
        self._parents(path)

    def add_dir(self, path: str) -> None:
        self.dirs.setdefault(path, set())
        self._parents(path)

    def add_link(self, path: str, target: str) -> None:
        self.links[path] = target
        self._parents(path)

    def _parents(self, path: str) -> None:
        parent, _, name = path.rpartition("/")
        while parent:
            entries = self.dirs.setdefault(parent, set())
            if name in entries:
                return
            entries.add(name)
            parent, _, name = parent.rpartition("/")

    def resolve(self, path: str) -> str:
        """Follow symlinks component by component (like realpath)."""
        parts = [p for p in path.split("/") if p]
        cur = ""
        hops = 0
        i = 0
        while i < len(parts):
            nxt = cur + "/" + parts[i]
            if nxt in self.links and hops < 40:
                hops += 1
                target = self.links[nxt]
                if not target.startswith("/"):
                    base = cur
                    for comp in target.split("/"):
                        if comp == "..":
                            base = base.rpartition("/")[0]
                        elif comp and comp != ".":
                            base = base + "/" + comp
                    target = base
                parts = [p for p in target.split("/") if p] + parts[i + 1:]
                cur = ""
                i = 0
                continue
            cur = nxt
            i += 1
        return cur or "/"
