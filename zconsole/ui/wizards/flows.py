"""The wizards' choice stages: what to ask, in which order. One flow class per operation kind.

A flow is asked for its next stage given what was chosen so far; when there is none left,
the answers go to the kind's plan function (`services.ops.registry`: `entry.wizard.plan`,
in a worker: it reads the host). Choices the Pools cursor already made (the selected mirror,
member or vdev) are not asked again.

A kind gets a wizard from two things: its registry entry has a `Wizard` (key, footer label,
the answers it expects, its plan function), and a flow class here (or in `fixit.py`),
decorated `@wizard_flow`, asks for those answers. The flow's KIND names the entry; its TITLE
is the entry's title. A wizard that asks nothing (`Wizard.asks` empty: most fix-its) needs
no class: `make_flow` gives it a `PlanFlow`, straight to the plan. `FLOWS` is the one table
of flow classes, for every kind; `make_flow(kind)` is how every launcher finds one.
Stages are UI-side because they list the host's disks and vdevs as the screen shows them
(`ui/wizards/choices.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from zconsole.hosts.base import Host
from zconsole.model.finding import Finding
from zconsole.model.hosttext import visible
from zconsole.model.plan import Plan
from zconsole.model.pool import Section
from zconsole.model.reading import DiskInventory, HostReading
from zconsole.services import fmt
from zconsole.services.ops import registry
from zconsole.services.ops.zfs import dedup_rewrite as rw
from zconsole.services.ops.zfs.common import lines, ref, split_ref
from zconsole.ui.wizards import choices as ch
from zconsole.ui.wizards import disks as dk
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
    preselect: str = ""  # the option highlighted first (its value), when enabled


@dataclass
class Flow:
    """Base: subclasses set KIND, implement `next_stage` (and `start` for what the cursor
    selects), and register with `@wizard_flow`. `builder` replaces the registry's plan
    function (tests drive the screen with hand-made plans)."""

    selection: Selection | None = None
    builder: Builder | None = None
    preset: dict[str, str] = field(default_factory=dict)
    findings: tuple[Finding, ...] = ()  # the console's findings (the slow disk) when opened
    # a disk's SMART as the console follows it (kernel name -> the evidence's words, "48
    # pending sectors (up from 8 in 2 h); ...; SMART overall PASSED", and whether it says
    # the disk is failing; None: not read yet): `open_wizard`'s `smart_words`
    smart: Callable[[str], tuple[str, bool] | None] | None = None
    # a disk's failing SMART in a short phrase for its row in a list of new disks (kernel
    # name -> "SMART: 8 pending sectors"; "" when fine or not read): `open_wizard`'s
    # `smart_marks`, from the session's last reading (nothing is read per row)
    smart_mark: Callable[[str], str] | None = None

    KIND = ""
    TITLE = ""

    def title(self, chosen: Mapping[str, str]) -> str:
        return self.TITLE

    def start(self, reading: HostReading | None) -> dict[str, str]:
        """Choices made by the Pools cursor (not asked again)."""
        return dict(self.preset)

    def preset_with(self, key: str, value: str | None) -> dict[str, str]:
        """The preset choices, and `key` = `value` (what the cursor selects) unless preset."""
        out = dict(self.preset)
        if value and key not in out:
            out[key] = value
        return out

    def next_stage(self, reading: HostReading | None, chosen: Mapping[str, str]
                   ) -> Stage | None:
        raise NotImplementedError

    def build(self, host: Host, reading: HostReading | None, chosen: Mapping[str, str],
              force: bool) -> Plan:
        """Read the host afresh (blocking: a worker calls this) and build the plan from what
        was chosen. `reading` is the one the choices were made on; the guards judge the fresh
        reading, never the screen's."""
        if self.builder is not None:
            return self.builder(host, reading, chosen, force)
        wizard = registry.get(self.KIND).wizard
        if wizard is None:
            raise ValueError(f"{self.KIND} has no wizard in the operation registry")
        return wizard.plan(host, chosen, force)


@dataclass
class PlanFlow(Flow):
    """No choice to make: straight to the plan (a fix-it, its undo, an advice's command).
    `kind` names the registry entry (the title is its title), `heading` replaces the title
    (an undo's)."""

    kind: str = ""
    heading: str = ""

    def __post_init__(self) -> None:
        if self.kind:
            self.KIND = self.kind
        if self.heading:
            self.TITLE = self.heading
        elif self.KIND and not self.TITLE:
            self.TITLE = registry.get(self.KIND).title

    def next_stage(self, reading: HostReading | None, chosen: Mapping[str, str]
                   ) -> Stage | None:
        return None


FLOWS: dict[str, type[Flow]] = {}


F = TypeVar("F", bound=Flow)


def wizard_flow(cls: type[F]) -> type[F]:
    """Register `cls` as the wizard of the registry entry `cls.KIND` (which must have a
    `Wizard`); the flow's TITLE is the entry's title."""
    entry = registry.get(cls.KIND)
    if entry.wizard is None:
        raise ValueError(f"operation {cls.KIND!r} has no Wizard in services.ops.registry")
    if cls.KIND in FLOWS:
        raise ValueError(f"a second flow for {cls.KIND!r}: {cls.__name__}")
    cls.TITLE = entry.title
    FLOWS[cls.KIND] = cls
    return cls


def make_flow(kind: str, **fields: object) -> Flow:
    """The wizard's flow for the registry entry `kind` (KeyError: no such kind; ValueError:
    it has no wizard): its `@wizard_flow` class, else, when its wizard asks nothing, the
    plain `PlanFlow`. `fields` go to the flow (selection, findings, builder, ...)."""
    import zconsole.ui.wizards.fixit  # noqa: F401 - registers the fix-its' flows

    entry = registry.get(kind)
    if entry.wizard is None:
        raise ValueError(f"operation {kind!r} has no Wizard in services.ops.registry")
    cls = FLOWS.get(kind)
    if cls is not None:
        return cls(**fields)  # type: ignore[arg-type]
    if entry.wizard.asks:
        raise KeyError(f"operation {kind!r} asks {', '.join(entry.wizard.asks)}: "
                       "it needs a @wizard_flow class")
    return PlanFlow(kind=kind, **fields)  # type: ignore[arg-type]


@wizard_flow
class AttachFlow(Flow):
    KIND = "attach"

    def start(self, reading: HostReading | None) -> dict[str, str]:
        return self.preset_with("target", dk.selected_attach_target(reading, self.selection))

    def next_stage(self, reading: HostReading | None, chosen: Mapping[str, str]
                   ) -> Stage | None:
        if "target" not in chosen:
            return Stage("target", "Attach a new disk beside which device?",
                         tuple(dk.attach_targets(reading, self.selection)),
                         "No single-disk vdev or mirror to attach to.")
        if "disk" not in chosen:
            pool, leaf = split_ref(chosen["target"])
            smallest = dk.smallest_member(reading, pool, leaf)
            opts = tuple(dk.new_disk_choices(reading, at_least=None, pool=pool, target=leaf,
                                             near=smallest, smart=self.smart_mark))
            question = dk.disk_question(reading, pool, leaf)
            return Stage("disk", dk.no_disk_reason(opts, f"{leaf} of {pool}") or question,
                         opts, "No whole disk is free on this host.")
        return None


@wizard_flow
class DetachFlow(Flow):
    KIND = "detach"

    def start(self, reading: HostReading | None) -> dict[str, str]:
        return self.preset_with("member", ch.selected_detach_member(reading, self.selection))

    def next_stage(self, reading: HostReading | None, chosen: Mapping[str, str]
                   ) -> Stage | None:
        if "member" not in chosen:
            return Stage("member", "Detach which member?",
                         tuple(ch.detach_members(reading, self.selection)),
                         "No mirror, replacing or spare vdev on this host.")
        return None


@wizard_flow
class GrowFlow(Flow):
    KIND = "replace-grow"

    def start(self, reading: HostReading | None) -> dict[str, str]:
        return self.preset_with("vdev", ch.selected_grow_vdev(reading, self.selection))

    def next_stage(self, reading: HostReading | None, chosen: Mapping[str, str]
                   ) -> Stage | None:
        if "vdev" not in chosen:
            return Stage("vdev", "Grow which vdev?",
                         tuple(ch.grow_vdevs(reading, self.selection)),
                         "No data vdev on this host.")
        pool, vdev = split_ref(chosen["vdev"])
        members = ch.grow_members(reading, pool, vdev)
        sizes = [s for s in (ch.member_size(reading, m) for m in members) if s]
        largest = max(sizes) if sizes else None
        taken = [v for k, v in chosen.items() if k.startswith("new:")]
        for i, m in enumerate(members):
            key = f"new:{m.name}"
            if key in chosen:
                continue
            old = ch.leaf_label(reading, m)
            opts = dk.new_disk_choices(reading, at_least=largest, exclude=taken, pool=pool,
                                       target=m.name, replacing=True, smart=self.smart_mark)
            question = (f"Member {i + 1} of {len(members)}: which larger disk replaces "
                        f"{old}?")
            return Stage(key, dk.no_disk_reason(opts, f"{vdev} of {pool} in place of "
                                                      f"{m.name}") or question, tuple(opts),
                         "No free disk larger than the members: connect the new disks "
                         "first (each new disk must be in the machine beside the old one).")
        if "expand" not in chosen:
            return Stage("expand", "How should the pool claim the new space?", EXPAND_CHOICES)
        if "site" not in chosen:
            return Stage("site", "Are you at the machine?", SITE_CHOICES)
        return None


@wizard_flow
class DedupOffFlow(Flow):
    KIND = "dedup-off"

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
            named = [c.value for c in ch.dedup_datasets(reading)] + rw.old_copies(reading)
            pools = sorted({n.split("/", 1)[0] for n in named})
            return Stage("pool", "Turn dedup off in which pool?",
                         tuple(Choice(p, p, ", ".join(n for n in named
                                                      if n.split("/", 1)[0] == p))
                               for p in pools), "No dataset has dedup on.")
        pool = chosen["pool"]
        olds = rw.old_copies(reading, pool)
        if olds and "cleanup" not in chosen:
            return Stage("cleanup", "An earlier rewrite kept the old copies below (read-only, "
                         "unmounted). Destroy one now?", (
                Choice("", "Keep them", "nothing is destroyed; go on to turn dedup off"),
                *(Choice(o, f"Destroy {o}: its copy works",
                         "zfs destroy -r, after checking again that the copy has every "
                         "snapshot and that no snapshot is held or cloned; the dedup table "
                         "shrinks as the blocks are freed") for o in olds)))
        if chosen.get("cleanup"):
            return None
        found = ch.dedup_datasets(reading, pool)
        if "datasets" not in chosen:
            opts = [Choice("", f"every dataset of {pool} where dedup is set",
                           "the ones inheriting it follow: " +
                           ", ".join(c.value for c in found))] if found else []
            opts.extend(found)
            return Stage("datasets", f"Turn dedup off on which datasets of {pool}?",
                         tuple(opts), f"No dataset of {pool} has dedup on.")
        if "rewrite" not in chosen:
            picked = lines(chosen["datasets"]) or [
                c.value for c in found]
            opts = [Choice("", "Only turn dedup off",
                           "new writes are not deduplicated; blocks already written keep "
                           "their table entries until rewritten or freed")]
            opts.extend(Choice(d, f"Also rewrite {d} (send -R/receive into a copy with every "
                                  "snapshot, then swap)",
                               "the old copy is kept, read-only and unmounted, until you say "
                               "the copy works (dedup-off-cleanup destroys it and the table "
                               "shrinks); needs free space for a full copy and no writers "
                               "meanwhile")
                        for d in picked)
            return Stage("rewrite", "Existing blocks stay deduplicated until they are "
                         "rewritten. Rewrite one now?", tuple(opts))
        return None



BAY_CHOICES = (
    Choice("free", "A free bay, or the new disk is already plugged in",
           "zpool replace with the new disk; the old one comes out afterwards"),
    Choice("same", "The same bay: no free bay, the old disk must come out first",
           "zpool offline (unless ZFS lost it already), find the disk, pull it, insert the "
           "new one: zconsole watches the disks and checks the new one before it writes"),
)
SPARE_BACK = (
    Choice("return", "Replace the failed disk; the hot spare goes back to AVAIL",
           "ZFS returns the spare by itself when the resilver ends; zconsole checks it did"),
    Choice("keep", "Keep the hot spare as the member; the new disk becomes the spare",
           "zpool detach of the failed disk, then zpool add POOL spare NEW"),
)


@wizard_flow
class ReplaceFailedFlow(Flow):
    """Replace a failed disk on site: which disk (worst first, with why), where the new one
    goes (free bay / same bay), the new disk (free bay; the same bay finds it by watching),
    the hot spare, and what to do afterwards. A same-bay run is two plans: the bay plan,
    then (`follow_up`) the replace plan with the disk that appeared."""

    KIND = "replace-failed"

    def start(self, reading: HostReading | None) -> dict[str, str]:
        return self.preset_with("old", ch.selected_failed_disk(reading, self.selection))

    def next_stage(self, reading: HostReading | None, chosen: Mapping[str, str]
                   ) -> Stage | None:
        if "old" not in chosen:
            return Stage("old", "Which disk has failed? (worst first; a healthy disk only "
                                "with a loud warning)",
                         tuple(ch.failed_disks(reading, self.selection, self.findings)),
                         "No disk in any pool.")
        pool, old = split_ref(chosen["old"])
        if "bay" not in chosen:
            return Stage("bay", f"Where does the new disk for {old} go?",
                         tuple(ch.spare_in_choices(reading, pool, old)
                               + ch.bay_choices(reading, pool, old, BAY_CHOICES)))
        if chosen["bay"] == "spare":
            if "disk" not in chosen:
                return Stage("disk", f"Which hot spare stands in for {old}?",
                             tuple(ch.avail_spare_choices(reading, pool, self.smart_mark)),
                             "No AVAIL hot spare in this pool.")
            return None  # the spare goes in; the new disk later (r again)
        if chosen["bay"] == "free" and "disk" not in chosen:
            smallest = dk.smallest_member(reading, pool, old)
            size = f" (members: {fmt.size_as_sold(smallest)})" if smallest else ""
            return Stage("disk", f"Which disk replaces {old}{size}?",
                         tuple(dk.new_disk_choices(reading, at_least=None, pool=pool,
                                                   target=old, replacing=True,
                                                   near=smallest, smart=self.smart_mark)),
                         "No whole disk is free on this host: plug the new disk in, or "
                         "choose the same bay.")
        if "spare" not in chosen and ch.spare_standing_in(reading, pool, old):
            return Stage("spare", f"The hot spare {ch.spare_standing_in(reading, pool, old)} "
                                  f"stands in for {old}. Afterwards:", SPARE_BACK)
        if "after" not in chosen:
            return Stage("after", "After the resilver:",
                         tuple(ch.after_choices(reading, pool, old)))
        return None

    def build(self, host: Host, reading: HostReading | None, chosen: Mapping[str, str],
              force: bool) -> Plan:
        """The slow-disk finding the console showed for the chosen disk goes with the
        answers (`slow`): the plan's guards read it instead of calling the disk healthy; so
        does the disk's SMART as the console follows it (`smart_old`, the plan's evidence;
        without it the plan reads the disk once)."""
        answers = dict(chosen)
        pool, old = split_ref(answers["old"])
        slow = next((f.message for f in self.findings if f.kind == "slow-disk"
                     and f.subject == old and f.pool in (None, pool)), None)
        if slow and "slow" not in answers:
            answers["slow"] = slow
        disk = ch.leaf_disk_name(reading, pool, old)
        said = self.smart(disk) if self.smart is not None and disk is not None else None
        if said is not None and "smart_old" not in answers:
            words, bad = said  # the console's reading, with its history
            answers.update(smart_old=words, smart_old_failing="yes" if bad else "no")
        return super().build(host, reading, answers, force)


def follow_up(plan: Plan, findings: tuple[Finding, ...] = (),
              smart: Callable[[str], tuple[str, bool] | None] | None = None
              ) -> Flow | None:
    """The flow that continues a finished plan, when it has a second part: the same-bay
    replace after the bay plan (its answers all given: the next thing shown is the plan)."""
    from zconsole.services.ops.zfs import replace_failed as rf

    params = dict(plan.params)
    if plan.kind != rf.KIND or params.get("stage") != "bay":
        return None
    return ReplaceFailedFlow(findings=findings, smart=smart, preset={
        "old": ref(plan.pool, params["old"]), "bay": "same", "disk": rf.IN_BAY,
        "spare": params.get("spare", "return"), "after": params.get("after", "scrub"),
        "baseline": rf.baseline_answer(plan)})


TEST_CHOICES = (
    Choice("short", "Short: minutes", "the drive checks its electronics and mechanics and "
                                      "reads a sample of its surface"),
    Choice("long", "Long (extended): every sector, hours on a large HDD",
           "the drive reads its whole surface; its pool is a little slower meanwhile"),
)


@wizard_flow
class SelfTestFlow(Flow):
    """The Disks screen's T: the disk is the selected row (`preset`), the test is asked."""

    KIND = "self-test"

    def next_stage(self, reading: HostReading | None, chosen: Mapping[str, str]
                   ) -> Stage | None:
        if "disk" not in chosen:
            inv = ch.reading_inventory(reading)
            disks = inv.whole_disks() if inv is not None else ()
            mark = self.smart_mark or (lambda _disk: "")
            return Stage("disk", "Self-test which disk?", tuple(
                Choice(d.name, visible(f"{d.name}  {d.model or ''}  {d.serial or ''}"),
                       ch.marked(_serves(d.name, inv), mark(d.name)))
                for d in disks), "No whole disk on this host.")
        if "test" not in chosen:
            return Stage("test", f"Which SMART self-test of {visible(chosen['disk'])}?",
                         TEST_CHOICES)
        return None


_SECTION_WORDS = {Section.LOGS: "its log", Section.CACHE: "its cache",
                  Section.SPARES: "a spare", Section.SPECIAL: "its special vdev",
                  Section.DEDUP: "its dedup vdev"}


def _serves(disk: str, inv: DiskInventory | None) -> str:
    """What a disk in the self-test wizard's list serves: the pool and the top-level vdev a
    test slows a little while it runs (or its part: log, cache, spare), or no pool."""
    role = inv.role(disk) if inv is not None else None
    if role is None or not role.pool:
        return "in no imported pool"
    part = _SECTION_WORDS.get(role.section) if role.section is not None else None
    if part is not None:
        return visible(f"serves {role.pool} as {part}")
    group = role.vdev_path[0] if len(role.vdev_path) > 1 else "a single-disk vdev"
    return visible(f"serves {role.pool} ({group})")
