"""Every operation kind zconsole can plan, in one table: `OPERATIONS`.

Each entry (`operation.Operation`) says, for one kind: its title and one-line help, the key and
footer label of its wizard, the `zconsole plan` arguments, and the functions that read the host
and build its plan. Everything that offers operations reads this table and nothing else:

* `zconsole plan KIND ...` (`cli/commands/plan.py`): the KINDs, the ARG help, the options,
  the usage errors, and `entry.plan(host, request)`;
* the Pools screen (`ui/screens/pools/screen.py`): one key binding `wizard('KIND')` per entry
  with a wizard, and its palette entries (`PoolsScreen.system_commands`); the Disks screen
  (`ui/screens/disks/screen.py`) the same for the entries whose `Wizard.screen` is "disks"
  (self-test: `T` on the selected disk, its `disk` answer given);
* the wizards (`ui/wizards/flows.py`): a flow class registers itself for its kind with
  `@wizard_flow`, which takes the title from here; the plan comes from `entry.wizard.plan`;
  a wizard that asks nothing of its own (`Wizard.asks` empty) needs no flow class;
* the fix-its (`Operation.fixit`, `fix_it_entry`): the Host screen offers
  each on its panel (`Fixit.panel`, `f`) and its undo (`u`, `Fixit.undo`), the wizard runs it
  under `FixRunner` (`fixit(kind)`: its rollback), a resumed one too.

Where the parts live, and why. This module and the entries are services: no Textual, so
`zconsole plan` and tests use them without the UI. What a kind *does* lives in its domain,
one module per kind (`services/ops/zfs/attach.py`: the pure `build_attach`, then `plan_cli`
and `plan_wizard`, which read the host and call it). What a wizard *asks* (its choice stages,
which list the host's disks and vdevs for the screen) is UI code and stays in
`ui/wizards/flows.py`; the entry names the answers the flow collects (`Wizard.asks`). The
engine (`services/ops/engine/`) runs any plan and reads none of this.

Adding an operation kind:
1. its module in its domain, e.g. `services/ops/zfs/replace_failed.py` (copy `detach.py`,
   the smallest): `build_*`, `plan_cli`, and `plan_wizard` if it has a wizard;
   new predicate kinds go to the domain's `predicates.py`;
2. one entry below;
3. if its wizard has choice stages: its flow class in `ui/wizards/` (`flows.py`, or
   `fixit.py` for a fix-it), decorated `@wizard_flow`.
A fix-it is the same: its module in `services/ops/fixit/` (`build_*`, `plan_for`, and the
names `fix_it_entry` reads: `plan_cli`, `plan_wizard`, `undo_plan`, `rollback_for`,
`rolled_back`, `applied_fixes`), one `fix_it_entry(...)` below (its words: title, help,
panel, offer, undo title), and the diagnosis' fix naming its kind (`Fix.plan`,
services/health): the Host screen, the wizards and the runner need no edit.
The tests in `tests/unit/test_registry.py` check that the table, the flows, the keys and the
CLI agree.
"""

from __future__ import annotations

from types import ModuleType

from zconsole.services.ops.fixit import boot as fix_boot
from zconsole.services.ops.fixit import session as fix_session
from zconsole.services.ops.fixit import ssh as fix_ssh
from zconsole.services.ops.fixit import ssh_auth as fix_ssh_auth
from zconsole.services.ops.operation import CliArgs, CliOption, Fixit, Operation, Wizard
from zconsole.services.ops.smart import selftest
from zconsole.services.ops.zfs import (
    advice,
    attach,
    dedup_cleanup,
    dedup_off,
    detach,
    replace,
    replace_failed,
    replace_grow,
)


def fix_it_entry(domain: ModuleType, title: str, help: str, *, panel: str, offer: str,
                 undo_title: str, options: tuple[CliOption, ...] = (),
                 asks: tuple[str, ...] = ()) -> Operation:
    """A fix-it's entry from its module in `services/ops/fixit/`, which has the same names
    as every fix-it's: KIND, UNDO_KIND, ROLLBACK_KIND, `plan_cli`, `plan_wizard`,
    `undo_plan(fix, host=, now=)`, `rollback_for(fix, result, now=)`, `rolled_back`,
    `applied_fixes(store, host)`. A host-wide kind (`zconsole plan KIND`, no POOL) whose
    wizard is the Host screen's `f` on `panel`."""
    return Operation(
        kind=domain.KIND, title=title, help=help,
        cli=CliArgs("", pool=False, options=options), plan=domain.plan_cli,
        wizard=Wizard(key="f", label="Fix", asks=asks, plan=domain.plan_wizard, screen="host"),
        fixit=Fixit(
            panel=panel, offer=offer, undo_title=undo_title, undo_kind=domain.UNDO_KIND,
            rollback_kind=domain.ROLLBACK_KIND, rolled_back=domain.rolled_back,
            rollback_for=lambda fix, result, now: domain.rollback_for(fix, result, now=now),
            undo=lambda fix, host: domain.undo_plan(fix, host=host, now=host.now()),
            applied=domain.applied_fixes))


FORCE = CliOption("--force", "the plan as it runs after the operator confirmed every CONFIRM "
                             "check twice (adds -f where one is needed)")

OPERATIONS: tuple[Operation, ...] = (
    Operation(
        kind="attach",
        title="Attach a disk (make or widen a mirror)",
        help="attach a disk (make or widen a mirror)",
        cli=CliArgs("TARGET DISK", at_least=2, at_most=2, options=(FORCE,)),
        plan=attach.plan_cli,
        wizard=Wizard(key="a", label="Attach", asks=("target", "disk"),
                      plan=attach.plan_wizard),
    ),
    Operation(
        kind="detach",
        title="Detach a disk from a mirror",
        help="detach a disk from a mirror",
        cli=CliArgs("LEAF", at_least=1, at_most=1),
        plan=detach.plan_cli,
        wizard=Wizard(key="d", label="Detach", asks=("member",), plan=detach.plan_wizard),
    ),
    Operation(
        kind="replace",
        title="Replace a disk",
        help="replace one (failed) disk by a new one",
        cli=CliArgs("OLD NEW", at_least=2, at_most=2, options=(
            FORCE,
            CliOption("--on-site", "replace: add the identify and pull-the-old-disk steps"),
        )),
        plan=replace.plan_cli,
    ),
    Operation(
        kind="replace-failed",
        title="Replace a failed disk (on site)",
        help="replace a failed disk on site (a free bay or the same bay)",
        cli=CliArgs("OLD [NEW]", at_least=1, at_most=2, options=(
            FORCE,
            CliOption("--bay", "replace-failed: where the new disk goes: a free bay (NEW "
                               "already plugged in) or the same bay (without NEW: the plan "
                               "that offlines OLD and watches the swap; with NEW: the "
                               "replace after it), or the spare (NEW: an AVAIL hot spare "
                               "of the pool, put in now)", choices=replace_failed.BAYS,
                      default="free"),
            CliOption("--keep-spare", "replace-failed: keep the hot spare in use as the "
                                      "member (zpool detach OLD) and add NEW as the spare"),
            CliOption("--after", "replace-failed: afterwards, scrub (default), clear the "
                                 "new disk's counters then scrub, also clear the other "
                                 "devices (each named, typed), or nothing",
                      choices=replace_failed.AFTER_CHOICES, default="scrub"),
        )),
        plan=replace_failed.plan_cli,
        wizard=Wizard(key="r", label="Replace",
                      asks=("old", "bay", "disk", "spare", "after", "baseline", "slow"),
                      plan=replace_failed.plan_wizard),
    ),
    Operation(
        kind="replace-grow",
        title="Replace to grow (each member by a larger disk)",
        help="replace to grow (larger disks, one by one)",
        cli=CliArgs("VDEV DISK...", at_least=2, options=(
            FORCE,
            CliOption("--remote", "replace-grow: leave out the identify/pull steps (nobody on "
                                  "site)"),
            CliOption("--expand", "replace-grow: how the new space is claimed (default "
                                  "online-e)", choices=replace_grow.EXPAND_CHOICES,
                      default="online-e"),
        )),
        plan=replace_grow.plan_cli,
        wizard=Wizard(key="g", label="Grow", asks=("vdev", "new:MEMBER", "expand", "site"),
                      plan=replace_grow.plan_wizard),
    ),
    Operation(
        kind="dedup-off",
        title="Turn dedup off",
        help="turn dedup off",
        cli=CliArgs("[DATASET...]", options=(
            CliOption("--rewrite", "dedup-off: also rewrite DATASET (send -R/receive with its "
                                   "children and snapshots, swap; the old copy is kept "
                                   "until dedup-off-cleanup); repeatable",
                      metavar="DATASET", many=True),
        )),
        plan=dedup_off.plan_cli,
        wizard=Wizard(key="D", label="Dedup", asks=("pool", "cleanup", "datasets", "rewrite"),
                      plan=dedup_off.plan_wizard),
    ),
    Operation(
        kind=dedup_cleanup.KIND,
        title="Destroy the old copy a dedup-off rewrite kept",
        help="destroy the old copy a dedup-off rewrite kept (DS.zconsole-dedup-old-DATE), "
             "once the new copy works: checked again to hold every snapshot first",
        cli=CliArgs("OLD", at_least=1, at_most=1),
        plan=dedup_cleanup.plan_cli,
    ),
    Operation(
        kind=advice.KIND,
        title="Run an advice's command",
        help="run the advisor's command for one finding (zfs set, zpool scrub, zpool remove "
             "of a cache or log device), judged again on a fresh reading (the Advice "
             "screen's x)",
        cli=CliArgs("ADVICE-KIND [SUBJECT]", at_least=1, at_most=2),
        plan=advice.plan_cli,
    ),
    Operation(
        kind=selftest.KIND,
        title="SMART self-test of a disk",
        help="start a disk's SMART self-test (smartctl -t short, or long) and watch it to its "
             "result; refused while its pool resilvers or scrubs unless confirmed twice "
             "(--force)",
        cli=CliArgs("DISK", at_least=1, at_most=1, pool=False, options=(
            FORCE,
            CliOption("--long", "self-test: the long (extended) test, every sector (hours), "
                                "instead of the short one"),
        )),
        plan=selftest.plan_cli,
        wizard=Wizard(key="T", label="Self-test", asks=("disk", "test"),
                      plan=selftest.plan_wizard, screen="disks"),
    ),
    fix_it_entry(
        fix_ssh, "Fix slow SSH logins (UseDNS no)",
        "fix slow SSH logins: stop sshd's reverse DNS lookup (the Host screen's fix)",
        panel="ssh", undo_title="Undo the SSH fix",
        offer="apply the first fix as a plan: every command shown first, typed confirmation, "
              "validated (sshd -t, sshd -T), reloaded, verified by a fresh login, rolled back "
              "if that fails; undo later with u"),
    fix_it_entry(
        fix_ssh_auth, "Fix slow SSH logins (an authentication method off)",
        "switch an authentication method sshd offers off (GSSAPI, Kerberos, "
        "keyboard-interactive, host-based), for every client and in each Match block that "
        "switches it on (the Host screen's fix)",
        options=(CliOption("--method", "fix-ssh-auth: which method (default: the first one "
                                       "on, in the SSH panel's order)",
                           choices=tuple(fix_ssh_auth.METHODS)),),
        panel="ssh", undo_title="Undo the authentication method fix",
        offer="switch the first authentication method listed off, as a plan: every command "
              "shown first, typed confirmation, validated (sshd -t, sshd -T), reloaded, "
              "verified by a fresh login, rolled back if that fails; undo later with u"),
    fix_it_entry(
        fix_session, "Fix slow SSH logins (the session setup)",
        "fix logins held in the session setup: restart a logind that does not answer, or "
        "remove a slow user manager's drop-in (the Host screen's fix)",
        panel="ssh", undo_title="Undo the session fix",
        offer="apply the first fix as a plan: every command shown first, typed confirmation, "
              "proven (logind answers, or systemctl no longer lists the drop-in), rolled back "
              "if that fails; a removed drop-in can be undone later with u"),
    fix_it_entry(
        fix_boot, "Fix slow boot (wait-online)",
        "fix a boot held by wait-online: the narrowest fix the diagnosis allows (the Host "
        "screen's fix)",
        options=(CliOption("--fix", "fix-boot: which fix (default: the narrowest the "
                                    "diagnosis allows; mask is the last resort and never "
                                    "chosen by itself)", choices=fix_boot.FIXES),),
        asks=("fix",),  # the fixes the boot panel read to choose from (FixBootFlow)
        panel="boot", undo_title="Undo the boot fix",
        offer="choose a fix, narrowest first with what each costs (the diagnosis' choice "
              "selected), and apply it as a plan: every command shown first, typed "
              "confirmation, validated and verified, rolled back if that fails; it takes "
              "effect at the next boot, which this panel then judges; undo later with u"),
)

BY_KIND: dict[str, Operation] = {op.kind: op for op in OPERATIONS}


def get(kind: str) -> Operation:
    """The entry for `kind`; KeyError names the known kinds."""
    try:
        return BY_KIND[kind]
    except KeyError:
        raise KeyError(f"unknown operation kind {kind!r} (known: {', '.join(BY_KIND)})"
                       ) from None


def kinds() -> tuple[str, ...]:
    return tuple(BY_KIND)


def register(op: Operation) -> Operation:
    """Add an entry (after the table's); a kind is registered once."""
    global OPERATIONS
    if op.kind in BY_KIND:
        raise ValueError(f"operation kind {op.kind!r} is registered already")
    BY_KIND[op.kind] = op
    OPERATIONS = (*OPERATIONS, op)
    return op


def with_wizard(screen: str = "pools") -> tuple[Operation, ...]:
    """The entries `screen` offers as wizards, in table order (the Pools keys, palette)."""
    return tuple(op for op in OPERATIONS if op.wizard is not None and op.wizard.screen == screen)


def fixits() -> tuple[Operation, ...]:
    """The fix-it entries, in table order (the Host screen's panels offer them)."""
    return tuple(op for op in OPERATIONS if op.fixit is not None)


def fixit(kind: str) -> Fixit | None:
    """The fix-it of `kind` (None: not a fix-it; its undo and rollback are plain plans)."""
    op = BY_KIND.get(kind)
    return op.fixit if op is not None else None


def cli_options() -> tuple[CliOption, ...]:
    """Every kind's `zconsole plan` options, each once, in table order."""
    out: dict[str, CliOption] = {}
    for op in OPERATIONS:
        for opt in op.cli.options:
            out.setdefault(opt.flag, opt)
    return tuple(out.values())
