"""The four wizards as choice stages: what to ask, in which order, and what it builds.

A flow is asked for its next stage given what was chosen so far; when there is none left,
the choices go to the plan builder (in a worker: builders read the host). Choices the Pools
cursor already made (the selected mirror, member or vdev) are not asked again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from zconsole.hosts.base import Host
from zconsole.model.plan import Plan
from zconsole.model.reading import HostReading
from zconsole.ui.wizards import choices as ch
from zconsole.ui.wizards.choices import Choice, Selection

# (host, snapshot the choices were made on, choices, force) -> Plan
Builder = Callable[[Host, HostReading | None, Mapping[str, str], bool], Plan]

EXPAND_CHOICES = (
    Choice("online-e", "At the end: zpool online -e for each new disk",
           "claims the new space explicitly, disk by disk, once every member is larger"),
    Choice("autoexpand", "Before the first replace: zpool set autoexpand=on",
           "the pool grows by itself when the last member is larger (the property stays on)"),
)
SITE_CHOICES = (
    Choice("on-site", "I am at the machine: after each resilver, pull the old disk",
           "shows the disk to pull by serial, by-path and slot; i makes its LED blink"),
    Choice("remote", "Remote: leave the old disks in place",
           "they leave the pool; pull them later"),
)


@dataclass(frozen=True)
class Stage:
    key: str
    question: str
    options: tuple[Choice, ...]
    empty: str = "Nothing to choose from."


@dataclass
class Flow:
    """Base: subclasses set KIND/TITLE and implement `stages`."""

    selection: Selection | None = None
    builder: Builder | None = None
    preset: dict[str, str] = field(default_factory=dict)

    KIND = ""
    TITLE = ""

    def title(self, chosen: Mapping[str, str]) -> str:
        return self.TITLE

    def start(self, reading: HostReading | None) -> dict[str, str]:
        """Choices made by the Pools cursor (not asked again)."""
        return dict(self.preset)

    def next_stage(self, reading: HostReading | None, chosen: Mapping[str, str]
                   ) -> Stage | None:
        raise NotImplementedError

    def build(self, host: Host, reading: HostReading | None, chosen: Mapping[str, str],
              force: bool) -> Plan:
        if self.builder is not None:
            return self.builder(host, reading, chosen, force)
        from zconsole.ui.wizards import backend

        return backend.build_plan(self.KIND, host, reading, chosen, force)


def split(value: str) -> tuple[str, str]:
    pool, _, name = value.partition("\t")
    return pool, name


class AttachFlow(Flow):
    KIND = "attach"
    TITLE = "Attach a disk (make or widen a mirror)"

    def start(self, reading: HostReading | None) -> dict[str, str]:
        out = dict(self.preset)
        target = ch.selected_attach_target(reading, self.selection)
        if target and "target" not in out:
            out["target"] = target
        return out

    def next_stage(self, reading: HostReading | None, chosen: Mapping[str, str]
                   ) -> Stage | None:
        if "target" not in chosen:
            return Stage("target", "Attach a new disk beside which device?",
                         tuple(ch.attach_targets(reading, self.selection)),
                         "No single-disk vdev or mirror to attach to.")
        if "disk" not in chosen:
            pool, leaf = split(chosen["target"])
            smallest = ch.smallest_member(reading, pool, leaf)
            size = f" (members: {ch.tb(smallest)})" if smallest else ""
            return Stage("disk", f"Which disk becomes the new copy of {leaf} in {pool}{size}?",
                         tuple(ch.new_disk_choices(reading, at_least=None, pool=pool,
                                                   target=leaf, near=smallest)),
                         "No whole disk is free on this host.")
        return None


class DetachFlow(Flow):
    KIND = "detach"
    TITLE = "Detach a disk from a mirror"

    def start(self, reading: HostReading | None) -> dict[str, str]:
        out = dict(self.preset)
        member = ch.selected_detach_member(reading, self.selection)
        if member and "member" not in out:
            out["member"] = member
        return out

    def next_stage(self, reading: HostReading | None, chosen: Mapping[str, str]
                   ) -> Stage | None:
        if "member" not in chosen:
            return Stage("member", "Detach which member?",
                         tuple(ch.detach_members(reading, self.selection)),
                         "No mirror, replacing or spare vdev on this host.")
        return None


class GrowFlow(Flow):
    KIND = "replace-grow"
    TITLE = "Replace to grow (each member by a larger disk)"

    def start(self, reading: HostReading | None) -> dict[str, str]:
        out = dict(self.preset)
        vdev = ch.selected_grow_vdev(reading, self.selection)
        if vdev and "vdev" not in out:
            out["vdev"] = vdev
        return out

    def next_stage(self, reading: HostReading | None, chosen: Mapping[str, str]
                   ) -> Stage | None:
        if "vdev" not in chosen:
            return Stage("vdev", "Grow which vdev?",
                         tuple(ch.grow_vdevs(reading, self.selection)),
                         "No data vdev on this host.")
        pool, vdev = split(chosen["vdev"])
        members = ch.grow_members(reading, pool, vdev)
        sizes = [s for s in (ch.member_size(reading, m) for m in members) if s]
        largest = max(sizes) if sizes else None
        taken = [v for k, v in chosen.items() if k.startswith("new:")]
        for i, m in enumerate(members):
            key = f"new:{m.name}"
            if key in chosen:
                continue
            old = ch.leaf_label(reading, m)
            opts = ch.new_disk_choices(reading, at_least=largest, exclude=taken, pool=pool,
                                       target=m.name, replacing=True)
            return Stage(key, f"Member {i + 1} of {len(members)}: which larger disk replaces "
                         f"{old}?", tuple(opts),
                         "No free disk larger than the members: connect the new disks "
                         "first (each new disk must be in the machine beside the old one).")
        if "expand" not in chosen:
            return Stage("expand", "How should the pool claim the new space?", EXPAND_CHOICES)
        if "site" not in chosen:
            return Stage("site", "Are you at the machine?", SITE_CHOICES)
        return None


class DedupOffFlow(Flow):
    KIND = "dedup-off"
    TITLE = "Turn dedup off"

    def start(self, reading: HostReading | None) -> dict[str, str]:
        out = dict(self.preset)
        if self.selection is not None and "pool" not in out:
            out["pool"] = self.selection.pool
        elif "pool" not in out:
            pools = sorted({c.value.split("/", 1)[0] for c in ch.dedup_datasets(reading)})
            if len(pools) == 1:
                out["pool"] = pools[0]
        return out

    def next_stage(self, reading: HostReading | None, chosen: Mapping[str, str]
                   ) -> Stage | None:
        if "pool" not in chosen:
            found = ch.dedup_datasets(reading)
            pools = sorted({c.value.split("/", 1)[0] for c in found})
            return Stage("pool", "Turn dedup off in which pool?",
                         tuple(Choice(p, p, ", ".join(c.value for c in found
                                                      if c.value.split("/", 1)[0] == p))
                               for p in pools), "No dataset has dedup on.")
        pool = chosen["pool"]
        found = ch.dedup_datasets(reading, pool)
        if "datasets" not in chosen:
            opts = [Choice("", f"every dataset of {pool} where dedup is set",
                           "the ones inheriting it follow: " +
                           ", ".join(c.value for c in found))] if found else []
            opts.extend(found)
            return Stage("datasets", f"Turn dedup off on which datasets of {pool}?",
                         tuple(opts), f"No dataset of {pool} has dedup on.")
        if "rewrite" not in chosen:
            picked = [d for d in chosen["datasets"].split("\n") if d] or [
                c.value for c in found]
            opts = [Choice("", "Only turn dedup off",
                           "new writes are not deduplicated; blocks already written keep "
                           "their table entries until rewritten or freed")]
            opts.extend(Choice(d, f"Also rewrite {d} (send/receive into a copy, then swap)",
                               "the table shrinks as the old copy is destroyed; needs free "
                               "space for a full copy and no writers meanwhile")
                        for d in picked)
            return Stage("rewrite", "Existing blocks stay deduplicated until they are "
                         "rewritten. Rewrite one now?", tuple(opts))
        return None


FLOWS: dict[str, type[Flow]] = {f.KIND: f for f in (AttachFlow, DetachFlow, GrowFlow,
                                                    DedupOffFlow)}
