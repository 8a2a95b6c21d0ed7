"""What an operation kind is: the shape of one entry in `services.ops.registry`.

An `Operation` ties together, for one kind ("attach"):

* its words: `title` (the wizard's header) and `help` (one line, the palette's entry);
* `cli`: its `zconsole plan KIND POOL ARG... [options]` arguments (`CliArgs`, `CliOption`);
* `plan`: read the host and build the plan from what `zconsole plan` parsed (`PlanRequest`);
* `wizard`: present when the console has a wizard for it (`Wizard`): the screen that offers
  it and its key there, its footer label, the answers its flow collects and how they become
  a plan;
* `fixit`: present for a fix-it (`Fixit`): the Host screen's panel that offers it, its
  undo and rollback, and the fixes of its kind applied on a host.

Nothing here knows a domain. ZFS's kinds live in `services/ops/zfs/` (one module per kind:
the pure `build_*` builder, then `plan_cli` and `plan_wizard`, which read the host and call
it); fix-its live in `services/ops/fixit/` the same way (`registry.fix_it_entry` makes
an entry and its `Fixit` from the module). The registry only points at them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from zconsole.hosts.base import Host
from zconsole.model.plan import Plan

if TYPE_CHECKING:
    from zconsole.hosts.journal import PlanStore
    from zconsole.services.ops.engine.events import RunResult


@dataclass(frozen=True)
class CliOption:
    """One option of `zconsole plan`. The command accepts the options of every kind (in
    registry order, each once); a kind reads the ones its entry lists.

    Plain options are yes/no flags; `choices` makes one that takes one of them (`default`
    when absent); `many` one that may be repeated (a list, empty when absent)."""

    flag: str  # "--expand"
    help: str
    choices: tuple[str, ...] = ()
    default: str | None = None
    metavar: str | None = None
    many: bool = False

    @property
    def dest(self) -> str:
        """Its name in `PlanRequest.options`: "--on-site" -> "on_site"."""
        return self.flag.lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class CliArgs:
    """`zconsole plan KIND POOL ARG...`: what the ARGs are (`usage`, as `--help` and the usage
    error print it), how many there may be, and the options the kind reads."""

    usage: str  # "TARGET DISK"
    at_least: int = 0
    at_most: int | None = None  # None: no limit
    options: tuple[CliOption, ...] = ()
    pool: bool = True  # False: a host-wide kind (fix-ssh), `zconsole plan KIND` takes no
    # POOL; its ARGs (`usage`, e.g. self-test's DISK) are all the words after KIND

    def check(self, kind: str, args: Sequence[str], pool: str = "x") -> None:
        """Raise ValueError (a usage error) when the POOL or the number of ARGs does not
        fit."""
        if not self.pool:
            if pool or (args and not self.usage):
                raise ValueError(f"plan {kind} takes no POOL or ARG")
            if self.usage and (len(args) < self.at_least or
                               (self.at_most is not None and len(args) > self.at_most)):
                raise ValueError(f"plan {kind} needs {self.usage}")
            return
        if not pool or len(args) < self.at_least or \
                (self.at_most is not None and len(args) > self.at_most):
            raise ValueError(f"plan {kind} needs POOL {self.usage}")


@dataclass(frozen=True)
class PlanRequest:
    """What `zconsole plan KIND POOL ARG... [options]` asked for: the pool, the ARGs in
    order, and every option by `CliOption.dest` (a flag is a bool, a choice a str, a
    repeatable option a list of str)."""

    pool: str
    args: tuple[str, ...] = ()
    options: Mapping[str, object] = field(default_factory=dict)

    @property
    def force(self) -> bool:
        """--force: the plan as it runs once every CONFIRM check was confirmed twice."""
        return self.flag("force")

    def flag(self, dest: str) -> bool:
        return bool(self.options.get(dest, False))

    def text(self, dest: str, default: str = "") -> str:
        value = self.options.get(dest)
        return value if isinstance(value, str) else default

    def texts(self, dest: str) -> list[str]:
        value = self.options.get(dest)
        return [str(v) for v in value] if isinstance(value, (list, tuple)) else []


# (host, the wizard's answers by name, force) -> Plan; reads the host (call from a worker)
WizardPlan = Callable[[Host, Mapping[str, str], bool], Plan]
# (host, what `zconsole plan` parsed) -> Plan; reads the host
CliPlan = Callable[[Host, PlanRequest], Plan]


@dataclass(frozen=True)
class Wizard:
    """The console's wizard for a kind. Its choice stages are UI code: the flow class in
    `ui/wizards/` registered for the same kind (`@wizard_flow`), which fills the answers named
    in `asks` ("pool<TAB>name" values for vdevs, newline-joined lists for multiple choices).
    A wizard with no choice stage of its own needs no flow class: the UI's `make_flow` gives
    it the plain flow (straight to the plan)."""

    key: str  # the key on its screen ("a")
    label: str  # the footer's word for it ("Attach")
    asks: tuple[str, ...]  # the answers the flow collects, in order
    plan: WizardPlan
    screen: str = "pools"  # the screen that offers it: "pools" (a key each), "host" (`f`),
    # "disks" (a key each, on the selected disk)


@dataclass(frozen=True)
class Fixit:
    """A fix-it kind, as the runner, the undo and the Host screen need it; its registry
    entry carries it (`registry.fix_it_entry`, from the domain module's functions)."""

    panel: str  # the Host screen's panel that offers it ("ssh", "boot")
    offer: str  # what `f` does, in the panel's words
    undo_kind: str  # Plan.kind of its undo ("fix-ssh-undo")
    undo_title: str  # the undo wizard's title
    rollback_kind: str  # Plan.kind of the rollback of a half-applied fix
    # (the fix, how its run ended, now) -> the rollback plan; None: nothing was changed
    rollback_for: Callable[[Plan, RunResult, float], Plan | None]
    # (the fix, the rollback, how the rollback ended) -> the sentence that says what it did
    rolled_back: Callable[[Plan, Plan, RunResult], str]
    # (an applied fix, the host) -> its undo plan; reads the host (call from a worker)
    undo: Callable[[Plan, Host], Plan]
    # (the plan store, the host's label) -> the fixes applied there and not undone, oldest first
    applied: Callable[[PlanStore, str], list[Plan]]


@dataclass(frozen=True)
class Operation:
    """One operation kind (see the module docstring)."""

    kind: str  # "attach": Plan.kind, the `zconsole plan` KIND, the wizard's name
    title: str  # "Attach a disk (make or widen a mirror)"
    help: str  # one line: "attach a disk (make or widen a mirror)"
    cli: CliArgs
    plan: CliPlan
    wizard: Wizard | None = None
    fixit: Fixit | None = None
