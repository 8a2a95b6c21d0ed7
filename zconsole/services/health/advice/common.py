"""What the advisor's modules share: where a property's value comes from, sizes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from zconsole.model.advice import DatasetProps

GIB = 1 << 30


def origin(p: DatasetProps, prop: str) -> str:
    """The dataset a property's value is set on: itself (local), the one it is inherited
    from, or the pool's root dataset for a default (where `zfs set` would change it for the
    whole pool)."""
    src = p.source(prop) or ""
    if src.startswith("inherited from "):
        return src[len("inherited from "):]
    if src == "local" or src == "received":
        return p.name
    return p.pool


@dataclass
class Group:
    """Datasets that have one value from one origin."""

    origin: str
    value: str
    datasets: list[DatasetProps] = field(default_factory=list)

    @property
    def referenced(self) -> int:
        return sum(d.number("referenced") or 0 for d in self.datasets)

    def names(self, lead: str, limit: int = 3) -> str:
        """`lead` and the datasets' names (the first `limit`), or "" when the only one is
        the origin itself."""
        if [d.name for d in self.datasets] == [self.origin]:
            return ""
        shown = [d.name for d in self.datasets[:limit]]
        more = len(self.datasets) - len(shown)
        return lead + ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def group_by_origin(props: Iterable[DatasetProps], prop: str,
                    keep: Iterable[str]) -> list[Group]:
    """Datasets whose `prop` is one of `keep`, grouped by (origin, value), in order."""
    wanted = set(keep)
    groups: dict[tuple[str, str], Group] = {}
    for p in props:
        v = p.value(prop)
        if v is None or v not in wanted:
            continue
        key = (origin(p, prop), v)
        groups.setdefault(key, Group(key[0], v)).datasets.append(p)
    return list(groups.values())


def set_locally(g: Group, prop: str) -> bool:
    """`prop` was set on the group's origin (local or received), not its default."""
    return bool({d.source(prop) for d in g.datasets if d.name == g.origin}
                & {"local", "received"})


def source_words(g: Group, prop: str) -> str:
    """`set on tank/vm`, or `the default on pool tank` when nobody set it."""
    srcs = {d.source(prop) for d in g.datasets if d.name == g.origin}
    if srcs & {"local", "received"}:
        return f"set on {g.origin}"
    return f"the default on pool {g.origin}"
