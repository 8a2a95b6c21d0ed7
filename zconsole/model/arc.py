"""ARC statistics from /proc/spl/kstat/zfs/arcstats."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ArcStats:
    """Every arcstats field by name. 2.2+ added iohits and removed p / arc_meta_limit.

    Rates (hit ratio) must come from the difference of two samples, never lifetime counters.
    """

    fields: dict[str, int] = field(default_factory=dict, hash=False)

    def get(self, name: str) -> int | None:
        return self.fields.get(name)

    @property
    def has_iohits(self) -> bool:
        """True on OpenZFS 2.2 and newer."""
        return "iohits" in self.fields

    @property
    def size(self) -> int | None:
        return self.fields.get("size")

    @property
    def target(self) -> int | None:
        return self.fields.get("c")

    @property
    def c_max(self) -> int | None:
        return self.fields.get("c_max")

    @property
    def c_min(self) -> int | None:
        return self.fields.get("c_min")

    @property
    def throttled(self) -> bool:
        return (self.fields.get("memory_throttle_count") or 0) > 0
