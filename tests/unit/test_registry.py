"""The operation registry is the one list of kinds: the CLI, the Pools keys, the palette and
the wizards' flows agree with it (services/ops/registry.py)."""

from __future__ import annotations

import argparse

import pytest

from zconsole.services.ops import registry
from zconsole.services.ops.operation import CliArgs, PlanRequest


def test_kinds_are_unique_and_in_table_order() -> None:
    kinds = [op.kind for op in registry.OPERATIONS]
    assert kinds == ["attach", "detach", "replace", "replace-failed", "replace-grow",
                     "dedup-off", "dedup-off-cleanup", "advice", "self-test", "fix-ssh",
                     "fix-ssh-auth", "fix-session", "fix-boot"]
    assert registry.kinds() == tuple(kinds)
    assert all(registry.get(k).kind == k for k in kinds)
    with pytest.raises(KeyError, match="unknown operation kind 'explode'"):
        registry.get("explode")


def test_every_wizard_has_one_flow_with_the_registry_title() -> None:
    """Disk wizards and fix-its alike: `make_flow` finds each one's flow in the one table
    (FLOWS, `@wizard_flow`), or the plain flow when its wizard asks nothing."""
    from zconsole.ui.wizards.flows import FLOWS, PlanFlow, make_flow

    wizards = {op.kind for op in registry.OPERATIONS if op.wizard is not None}
    assert {op.kind for op in registry.with_wizard()} == {
        "attach", "detach", "replace-failed", "replace-grow", "dedup-off"}
    assert {op.kind for op in registry.with_wizard("host")} == {
        "fix-ssh", "fix-ssh-auth", "fix-session", "fix-boot"}
    assert {op.kind for op in registry.with_wizard("disks")} == {"self-test"}
    for kind in wizards:
        flow = make_flow(kind)
        assert flow.KIND == kind
        assert flow.TITLE == registry.get(kind).title
    assert set(FLOWS) == {"attach", "detach", "replace-failed", "replace-grow", "dedup-off",
                          "fix-boot", "self-test"}
    assert all(type(make_flow(k)) is PlanFlow for k in ("fix-ssh", "fix-session"))
    with pytest.raises(ValueError, match="no Wizard"):
        make_flow("replace")


def test_a_flow_needs_a_registry_entry_with_a_wizard() -> None:
    from zconsole.ui.wizards.flows import Flow, wizard_flow

    class NoWizard(Flow):
        KIND = "replace"  # in the registry, but CLI only

    class Unknown(Flow):
        KIND = "explode"

    with pytest.raises(ValueError, match="no Wizard"):
        wizard_flow(NoWizard)
    with pytest.raises(KeyError):
        wizard_flow(Unknown)


def test_wizard_keys_are_unique_and_free_on_the_pools_screen() -> None:
    from zconsole.ui.app import ZConsoleApp
    from zconsole.ui.screens.pools.screen import WIZARD_KEYS, PoolsScreen

    # the Pools screen's copy (kept so that its first frame need not import every domain)
    assert WIZARD_KEYS == tuple((op.kind, op.wizard.key, op.wizard.label)
                                for op in registry.with_wizard() if op.wizard is not None)

    keys = [op.wizard.key for op in registry.with_wizard() if op.wizard is not None]
    assert len(keys) == len(set(keys))
    others = {b.key for b in ZConsoleApp.BINDINGS if not isinstance(b, tuple)}
    others |= {b.key for b in PoolsScreen.BINDINGS
               if not isinstance(b, tuple) and not b.action.startswith("wizard(")}
    assert not set(keys) & others
    wizard_bindings = [(b.key, b.action, b.description) for b in PoolsScreen.BINDINGS
                       if not isinstance(b, tuple) and b.action.startswith("wizard(")]
    assert wizard_bindings == [("a", "wizard('attach')", "Attach"),
                               ("d", "wizard('detach')", "Detach"),
                               ("r", "wizard('replace-failed')", "Replace"),
                               ("g", "wizard('replace-grow')", "Grow"),
                               ("D", "wizard('dedup-off')", "Dedup")]


def test_wizard_keys_are_unique_and_free_on_the_disks_screen() -> None:
    """The Disks screen binds the registry's wizards for it (`Wizard.screen == "disks"`)
    from its copy of their keys, as the Pools screen does."""
    from zconsole.ui.app import ZConsoleApp
    from zconsole.ui.screens.disks.screen import WIZARD_KEYS, DisksScreen

    assert WIZARD_KEYS == tuple((op.kind, op.wizard.key, op.wizard.label)
                                for op in registry.with_wizard("disks") if op.wizard is not None)
    others = {b.key for b in ZConsoleApp.BINDINGS if not isinstance(b, tuple)}
    others |= {b.key for b in DisksScreen.BINDINGS
               if not isinstance(b, tuple) and not b.action.startswith("wizard(")}
    assert not {key for _, key, _ in WIZARD_KEYS} & others
    assert [(b.key, b.action, b.description) for b in DisksScreen.BINDINGS
            if not isinstance(b, tuple) and b.action.startswith("wizard(")] == [
        ("T", "wizard('self-test')", "Self-test")]


def test_a_host_wide_kind_takes_its_args_after_the_kind() -> None:
    """`zconsole plan self-test sdb`: the word after KIND is the DISK, not a POOL."""
    from zconsole.cli.commands.plan import add_parser, request_from

    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    req = request_from(parser.parse_args(["plan", "self-test", "sdb", "--long"]))
    assert (req.pool, req.args, req.flag("long")) == ("", ("sdb",), True)
    assert request_from(parser.parse_args(["plan", "fix-ssh"])).args == ()
    with pytest.raises(ValueError, match="takes no POOL or ARG"):
        registry.get("fix-ssh").cli.check("fix-ssh", ("x",), "")
    with pytest.raises(ValueError, match="plan self-test needs DISK"):
        registry.get("self-test").cli.check("self-test", (), "")


def test_cli_options_are_each_kinds_once_in_table_order() -> None:
    flags = [o.flag for o in registry.cli_options()]
    assert flags == ["--force", "--on-site", "--bay", "--keep-spare", "--after", "--remote",
                     "--expand", "--rewrite", "--long", "--method", "--fix"]
    assert [o.dest for o in registry.cli_options()] == [
        "force", "on_site", "bay", "keep_spare", "after", "remote", "expand", "rewrite",
        "long", "method", "fix"]


def test_the_plan_command_is_built_from_the_registry() -> None:
    from zconsole.cli.commands.plan import add_parser, request_from

    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["plan", "replace-grow", "tank", "mirror-0", "sdc", "sdd",
                              "--expand", "autoexpand", "--remote", "--rewrite", "x"])
    req = request_from(args)
    assert req == PlanRequest("tank", ("mirror-0", "sdc", "sdd"), {
        "force": False, "on_site": False, "bay": "free", "keep_spare": False, "after": "scrub",
        "remote": True, "expand": "autoexpand", "rewrite": ["x"], "long": False,
        "method": None, "fix": None})
    assert req.text("expand") == "autoexpand" and req.flag("remote") and not req.force
    assert req.texts("rewrite") == ["x"] and req.texts("nothing") == []


@pytest.mark.parametrize(("cli", "args", "ok"), [
    (CliArgs("TARGET DISK", at_least=2, at_most=2), ("a", "b"), True),
    (CliArgs("TARGET DISK", at_least=2, at_most=2), ("a",), False),
    (CliArgs("TARGET DISK", at_least=2, at_most=2), ("a", "b", "c"), False),
    (CliArgs("VDEV DISK...", at_least=2), ("a", "b", "c", "d"), True),
    (CliArgs("[DATASET...]"), (), True),
])
def test_cli_arity(cli: CliArgs, args: tuple[str, ...], ok: bool) -> None:
    if ok:
        cli.check("k", args)
    else:
        with pytest.raises(ValueError, match=f"plan k needs POOL {cli.usage}"):
            cli.check("k", args)


@pytest.mark.parametrize(("kind", "scenario"), [
    ("attach", "showcase"), ("detach", "showcase"), ("replace-grow", "grow"),
    ("dedup-off", "dedup"), ("replace-failed", "degraded"), ("self-test", "showcase")])
def test_each_flow_collects_the_answers_its_entry_names(kind: str, scenario: str) -> None:
    """Walk the flow (first offered choice at each stage): the answers are the ones the
    registry entry lists in `Wizard.asks`, and its plan function builds a plan from them."""
    from zconsole.hosts.demo import DemoHost
    from zconsole.services.read.collect import collect
    from zconsole.ui.wizards.flows import FLOWS

    host = DemoHost(scenario)
    reading = collect(host)
    flow = FLOWS[kind]()
    chosen = flow.start(reading)
    while (stage := flow.next_stage(reading, chosen)) is not None:
        chosen[stage.key] = next(o for o in stage.options if o.enabled).value
    wizard = registry.get(kind).wizard
    assert wizard is not None
    prefixes = tuple(a.removesuffix("MEMBER") for a in wizard.asks if a.endswith("MEMBER"))
    assert all(k in wizard.asks or k.startswith(prefixes) for k in chosen), chosen
    plan = wizard.plan(host, chosen, False)
    assert plan.kind == kind and plan.steps
