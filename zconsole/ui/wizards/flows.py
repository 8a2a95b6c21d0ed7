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
from zconsole.model.snapshot import HostSnapshot
from zconsole.ui.wizards import choices as ch
from zconsole.ui.wizards.choices import Choice, Selection

# (host, snapshot the choices were made on, choices, force) -> Plan
Builder = Callable[[Host, HostSnapshot | None, Mapping[str, str], bool], Plan]

REWRITE_CHOICES = (
    Choice("none", "Only turn dedup off",
           "new writes are not deduplicated; existing blocks stay in the DDT until rewritten"),
    Choice("send-receive", "Turn dedup off, then rewrite by send/receive and swap",
           "copies the data to a new dataset (needs free space for a full copy), then renames"),
    Choice("copy", "Turn dedup off, then rewrite in place (copy each file)",
           "filesystems only; snapshots keep the old blocks alive until they are destroyed"),
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

    def start(self, snapshot: HostSnapshot | None) -> dict[str, str]:
        """Choices made by the Pools cursor (not asked again)."""
        return dict(self.preset)

    def next_stage(self, snapshot: HostSnapshot | None, chosen: Mapping[str, str]
                   ) -> Stage | None:
        raise NotImplementedError

    def build(self, host: Host, snapshot: HostSnapshot | None, chosen: Mapping[str, str],
              force: bool) -> Plan:
        if self.builder is not None:
            return self.builder(host, snapshot, chosen, force)
        from zconsole.ui.wizards import backend

        return backend.build_plan(self.KIND, host, snapshot, chosen, force)


def split(value: str) -> tuple[str, str]:
    pool, _, name = value.partition("\t")
    return pool, name


class AttachFlow(Flow):
    KIND = "attach"
    TITLE = "Attach a disk (make or widen a mirror)"

    def start(self, snapshot: HostSnapshot | None) -> dict[str, str]:
        out = dict(self.preset)
        target = ch.selected_attach_target(snapshot, self.selection)
        if target and "target" not in out:
            out["target"] = target
        return out

    def next_stage(self, snapshot: HostSnapshot | None, chosen: Mapping[str, str]
                   ) -> Stage | None:
        if "target" not in chosen:
            return Stage("target", "Attach a new disk beside which device?",
                         tuple(ch.attach_targets(snapshot, self.selection)),
                         "No single-disk vdev or mirror to attach to.")
        if "disk" not in chosen:
            pool, leaf = split(chosen["target"])
            smallest = ch.smallest_member(snapshot, pool, leaf)
            size = f" (members: {ch.tb(smallest)})" if smallest else ""
            return Stage("disk", f"Which disk becomes the new copy of {leaf} in {pool}{size}?",
                         tuple(ch.new_disk_choices(snapshot, at_least=smallest)),
                         "No whole disk is free on this host.")
        return None


class DetachFlow(Flow):
    KIND = "detach"
    TITLE = "Detach a disk from a mirror"

    def start(self, snapshot: HostSnapshot | None) -> dict[str, str]:
        out = dict(self.preset)
        member = ch.selected_detach_member(snapshot, self.selection)
        if member and "member" not in out:
            out["member"] = member
        return out

    def next_stage(self, snapshot: HostSnapshot | None, chosen: Mapping[str, str]
                   ) -> Stage | None:
        if "member" not in chosen:
            return Stage("member", "Detach which member?",
                         tuple(ch.detach_members(snapshot, self.selection)),
                         "No mirror, replacing or spare vdev on this host.")
        return None


class GrowFlow(Flow):
    KIND = "replace-grow"
    TITLE = "Replace to grow (each member by a larger disk)"

    def start(self, snapshot: HostSnapshot | None) -> dict[str, str]:
        out = dict(self.preset)
        vdev = ch.selected_grow_vdev(snapshot, self.selection)
        if vdev and "vdev" not in out:
            out["vdev"] = vdev
        return out

    def next_stage(self, snapshot: HostSnapshot | None, chosen: Mapping[str, str]
                   ) -> Stage | None:
        if "vdev" not in chosen:
            return Stage("vdev", "Grow which vdev?",
                         tuple(ch.grow_vdevs(snapshot, self.selection)),
                         "No data vdev on this host.")
        pool, vdev = split(chosen["vdev"])
        members = ch.grow_members(snapshot, pool, vdev)
        sizes = [s for s in (ch.member_size(snapshot, m) for m in members) if s]
        largest = max(sizes) if sizes else None
        taken = [v for k, v in chosen.items() if k.startswith("new:")]
        for i, m in enumerate(members):
            key = f"new:{m.name}"
            if key in chosen:
                continue
            old = ch.leaf_label(snapshot, m)
            opts = ch.new_disk_choices(snapshot, at_least=largest, exclude=taken)
            return Stage(key, f"Member {i + 1} of {len(members)}: which larger disk replaces "
                         f"{old}?", tuple(opts),
                         "No free disk larger than the members: insert the new disks first "
                         "(or replace on site: the plan can ask you to swap each disk).")
        return None


class DedupOffFlow(Flow):
    KIND = "dedup-off"
    TITLE = "Turn dedup off"

    def next_stage(self, snapshot: HostSnapshot | None, chosen: Mapping[str, str]
                   ) -> Stage | None:
        pool = self.selection.pool if self.selection is not None else None
        if "datasets" not in chosen:
            found = ch.dedup_datasets(snapshot, pool)
            opts: list[Choice] = []
            if len(found) > 1:
                opts.append(Choice("\n".join(c.value for c in found),
                                   f"all {len(found)} datasets with dedup on",
                                   ", ".join(c.value for c in found)))
            opts.extend(found)
            return Stage("datasets", "Turn dedup off on which datasets?", tuple(opts),
                         "No dataset has dedup on.")
        if "rewrite" not in chosen:
            return Stage("rewrite", "Existing blocks stay deduplicated until they are "
                         "rewritten. Rewrite them now?", REWRITE_CHOICES)
        return None


FLOWS: dict[str, type[Flow]] = {f.KIND: f for f in (AttachFlow, DetachFlow, GrowFlow,
                                                    DedupOffFlow)}
