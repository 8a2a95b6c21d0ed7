"""Pilot tests of the disk wizards on the demo host (its state changes as ZFS's would; the
runner's waits fast-forward there), with the real runner, audit log and plan store in a
temporary state directory.

Hand-built plans (`hand_*` below) exercise the screen's own paths — refusals, blocks, force,
operator steps — independently of the plan builders; the wizards' default builders
(services/ops/zfs) are exercised where noted.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from textual.widget import Widget
from textual.widgets import Input, Static

from tests.ui.conftest import frozen, settle
from zconsole.hosts.base import Host
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.journal import PlanStore
from zconsole.model.command import Command
from zconsole.model.plan import (
    Check,
    CheckLevel,
    Confirmation,
    Plan,
    Step,
    StepStatus,
    Wait,
    predicate,
)
from zconsole.model.reading import HostReading
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.screens.pools.pools_view import PoolsView
from zconsole.ui.wizards.choices import Selection
from zconsole.ui.wizards.flows import AttachFlow, Flow
from zconsole.ui.wizards.screen import Phase, WizardScreen

TANK_A0 = "ata-HGST_HUS724040ALE640_PN2334PBJ1A2BT"  # showcase tank mirror-0, first member


def wizard_app(tmp: Path, scenario: str = "showcase", version: str = "2.3", *,
               host: DemoHost | None = None, read_only: bool = False,
               fast_forward: bool | None = None) -> ZConsoleApp:
    host = host or DemoHost(scenario, zfs_version=version, clock=frozen, seed=0)
    app = ZConsoleApp(host, clock=frozen, refresh_interval=3600, read_only=read_only,
                      state_directory=str(tmp))
    app.wizard_poll_interval = 0.01  # type: ignore[attr-defined]
    app.wizard_fast_forward = fast_forward  # type: ignore[attr-defined]
    return app


async def until(pilot: Any, cond: Any, what: str, tries: int = 600) -> None:
    for _ in range(tries):
        if cond():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def shown(w: Widget) -> bool:
    """The widget and every container above it are displayed (a phase the wizard's
    ContentSwitcher hides hides its texts too)."""
    return all(n.display for n in (w, *w.ancestors) if isinstance(n, Widget))


def body_text(screen: WizardScreen) -> str:
    parts = []
    for w in screen.query(Static):
        if (w.id or "").startswith("wz-") and shown(w):
            parts.append(str(w.render()))
    return "\n".join(parts)


def audit(tmp: Path) -> list[dict[str, Any]]:
    path = tmp / "audit.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def hand_attach(host: Host, reading: HostReading | None, chosen: Mapping[str, str],
                force: bool) -> Plan:
    """An attach plan as services/ops/zfs/attach.py builds one: by-id path, confirmation,
    wait."""
    pool, leaf = chosen["target"].split("\t")
    assert reading is not None and reading.disks.value is not None
    disk = reading.disks.value.device(chosen["disk"])
    assert disk is not None and disk.preferred_id
    new = disk.preferred_id
    return Plan(
        id=f"hand-attach-{disk.name}", kind="attach", title=f"Attach {disk.serial} to {leaf}",
        host=host.label, pool=pool, created_at=frozen(),
        preview=("mirror-0 keeps 2 copies until the resilver ends; 3 after",),
        checks=(Check("size", True, CheckLevel.BLOCK, f"{new} is large enough"),),
        steps=(
            Step("attach", f"Attach {new}", "adds a copy",
                 Command(("zpool", "attach", pool, leaf, f"/dev/disk/by-id/{new}"),
                         "attach the new disk", writes=True),
                 postchecks=(predicate("vdev_present", f"{new} is in {pool}", pool=pool,
                                       name=new),),
                 confirmation=Confirmation(f"Type the pool name ({pool}) to attach", pool)),
            Step("wait", "Wait for the resilver", "copies the data",
                 wait=Wait(pool, "resilver", "the resilver of the new disk",
                           until=(predicate("vdev_state", f"{new} is ONLINE", pool=pool,
                                            name=new, state="ONLINE"),))),
        ))


def hand_flow(flow: Flow, builder: Any) -> Flow:
    flow.builder = builder
    return flow


async def open_hand_attach(app: ZConsoleApp, pilot: Any, disk: str) -> WizardScreen:
    screen = WizardScreen(hand_flow(AttachFlow(selection=Selection("tank", path=("mirror-0",))),
                                    hand_attach),
                          host=app.host, reading=app.reading)
    await app.push_screen(screen)
    await pilot.pause()
    assert screen.phase is Phase.CHOOSE and screen.stage is not None
    assert screen.stage.key == "disk"  # the target came from the selection
    screen.choose(disk)
    await until(pilot, lambda: screen.phase is Phase.PREVIEW, "the preview")
    return screen


async def open_hand_preview(app: ZConsoleApp, pilot: Any, builder: Any) -> WizardScreen:
    """A wizard whose plan comes from `builder` (choices preset), opened at its preview."""
    screen = WizardScreen(hand_flow(AttachFlow(preset={"target": "x", "disk": "y"}), builder),
                          host=app.host, reading=app.reading)
    await app.push_screen(screen)
    await until(pilot, lambda: screen.phase is Phase.PREVIEW, "the preview")
    return screen


# --- the attach wizard, end to end with the real runner ---------------------------------------

async def test_attach_runs_to_the_end_and_audits_every_command(tmp_path: Path) -> None:
    app = wizard_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await open_hand_attach(app, pilot, "sdh")  # the clean 8 TB WD
        text = body_text(screen)
        assert "mirror-0 keeps 2 copies until the resilver ends; 3 after" in text
        assert (f"zpool attach tank {TANK_A0} /dev/disk/by-id/ata-WDC_WD80EFZX-68UW8N0_VK1ABCDE"
                in text)
        assert "✔ OK" in text
        await pilot.press("enter")
        assert screen.phase is Phase.CONFIRM
        assert audit(tmp_path) == []  # nothing ran before the typed confirmation
        await pilot.press(*"tank", "enter")
        await until(pilot, lambda: screen.phase is Phase.RESULT, "the result")
        text = body_text(screen)
        assert "✔ Done." in text
        assert "1. Attach ata-WDC_WD80EFZX-68UW8N0_VK1ABCDE · done" in text
        assert "ata-WDC_WD80EFZX-68UW8N0_VK1ABCDE is ONLINE" in text
        assert f"{tmp_path}/audit.jsonl" in text
        records = audit(tmp_path)
        cmds = [r for r in records if r["event"] == "command"]
        assert [c["argv"] for c in cmds] == [[
            "zpool", "attach", "tank", TANK_A0,
            "/dev/disk/by-id/ata-WDC_WD80EFZX-68UW8N0_VK1ABCDE"]]
        assert cmds[0]["exit_code"] == 0 and "duration_s" in cmds[0]
        assert records[-1]["event"] == "plan-end"
        # the demo machine changed like ZFS: the new disk is a third copy of mirror-0
        out = app.host.run(["zpool", "status", "tank"]).stdout
        assert "ata-WDC_WD80EFZX-68UW8N0_VK1ABCDE" in out
        assert PlanStore(tmp_path / "plans").in_flight() == []
        await pilot.press("enter")
        assert not isinstance(app.screen, WizardScreen)


async def type_a_mismatch(app: ZConsoleApp, pilot: Any, typed: str) -> tuple[WizardScreen, str]:
    """The hand attach at its typed confirmation, `typed` entered: the screen, still at the
    confirmation, and the message it shows."""
    await settle(app, pilot)
    screen = await open_hand_attach(app, pilot, "sdh")
    await pilot.press("enter")
    assert screen.phase is Phase.CONFIRM
    await pilot.press(*typed, "enter")
    await pilot.pause()
    assert screen.phase is Phase.CONFIRM
    return screen, str(screen.query_one("#wz-message", Static).render())


async def test_typed_confirmation_mismatch_runs_nothing(tmp_path: Path) -> None:
    app = wizard_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen, msg = await type_a_mismatch(app, pilot, "tnak")
        assert "You typed 'tnak', which does not match. Nothing was run." in msg
        assert screen.query_one("#wz-input", Input).value == ""
        assert audit(tmp_path) == [] and screen.runner is None
        assert "VK1ABCDE" not in app.host.run(["zpool", "status", "tank"]).stdout
        await pilot.press("escape")  # back to the preview, still nothing ran
        assert screen.phase is Phase.PREVIEW


async def test_zfs_refusal_is_shown_verbatim_with_its_explanation(tmp_path: Path) -> None:
    """sdj has 4096-byte logical sectors; tank's mirrors are ashift 9: ZFS refuses."""
    from zconsole.services.ops.zfs.refusals import explain

    app = wizard_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        # The guards already disable sdj in the list; a hand-built plan skips them so that
        # ZFS itself refuses.
        flow = hand_flow(AttachFlow(preset={"target": f"tank\t{TANK_A0}", "disk": "sdj"}),
                         hand_attach)
        screen = WizardScreen(flow, host=app.host, reading=app.reading)
        await app.push_screen(screen)
        await until(pilot, lambda: screen.phase is Phase.PREVIEW, "the preview")
        await pilot.press("enter", *"tank", "enter")
        await until(pilot, lambda: screen.phase is Phase.RESULT, "the result")
        refusal = str(screen.query_one("#wz-refusal", Static).render())
        stderr = (f"cannot attach /dev/disk/by-id/ata-HGST_HUS726T4TALN6L4_V6K2ZR1S to "
                  f"{TANK_A0}: new device has a different optimal sector size; use the option "
                  "'-o ashift=N' to override the optimal size")
        assert stderr in refusal
        expl = explain(stderr + "\n")
        assert expl and expl in refusal
        assert "What this means:" in refusal
        assert screen.status["attach"] is StepStatus.FAILED
        assert "✖ Stopped." in body_text(screen)
        cmds = [r for r in audit(tmp_path) if r["event"] == "command"]
        assert cmds[0]["exit_code"] == 1 and stderr in cmds[0]["stderr"]


# --- plans the screen must not run, or only after a second confirmation -------------------------

def _plan(checks: tuple[Check, ...], argv: tuple[str, ...] = ("zpool", "set", "autoexpand=on",
                                                              "tank")) -> Plan:
    return Plan(id="hand-checks", kind="attach", title="A plan with checks",
                host="demo: showcase", pool="tank", created_at=frozen(), checks=checks,
                steps=(Step("s1", "Set", "", Command(argv, "set", writes=True)),))


async def test_blocked_plan_cannot_run(tmp_path: Path) -> None:
    plan = _plan((Check("size", False, CheckLevel.BLOCK,
                        "sdi (3.00 TB) is smaller than the smallest member (4.00 TB)"),))
    app = wizard_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = await open_hand_preview(app, pilot, lambda *a: plan)
        text = body_text(screen)
        assert "✖ BLOCKS" in text and "smaller than the smallest member" in text
        assert "This plan cannot run" in text
        assert "proceed" not in {b.binding.action for b in screen.active_bindings.values()}
        await pilot.press("enter")
        assert screen.phase is Phase.PREVIEW and screen.runner is None
        assert audit(tmp_path) == []


async def test_confirm_check_needs_an_explicit_second_confirmation(tmp_path: Path) -> None:
    built: list[bool] = []

    def builder(host: Host, snap: HostReading | None, chosen: Mapping[str, str],
                force: bool) -> Plan:
        built.append(force)
        argv = ("zpool", "set", "autoexpand=on", "tank")
        return _plan((Check("clean", False, CheckLevel.CONFIRM,
                            "sdk holds an ext4 filesystem (not mounted)", force_flag="-f"),),
                     argv if not force else argv)

    app = wizard_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = await open_hand_preview(app, pilot, builder)
        assert "▲ NEEDS -f" in body_text(screen)
        await pilot.press("enter")
        assert screen.phase is Phase.FORCE
        assert "A second, explicit confirmation is needed" in body_text(screen)
        await pilot.press("enter")  # Enter is not the override
        assert screen.phase is Phase.FORCE and built == [False]
        await pilot.press("f")
        await until(pilot, lambda: screen.phase is Phase.PREVIEW, "the rebuilt preview")
        assert built == [False, True] and screen.force
        await pilot.press("enter")  # no typed confirmation in this plan: it runs
        await until(pilot, lambda: screen.phase is Phase.RESULT, "the result")
        assert [r["argv"] for r in audit(tmp_path) if r["event"] == "command"] == [
            ["zpool", "set", "autoexpand=on", "tank"]]


# --- leaving while it runs, and resuming at the next start ---------------------------------------

async def test_escape_while_running_stops_watching_and_the_next_start_resumes(
        tmp_path: Path) -> None:
    host = DemoHost("showcase", zfs_version="2.3", clock=frozen, seed=0)
    app = wizard_app(tmp_path, host=host, fast_forward=False)  # the resilver does not end
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await open_hand_attach(app, pilot, "sdh")
        await pilot.press("enter", *"tank", "enter")
        await until(pilot, lambda: screen.status.get("wait") is StepStatus.WAITING,
                    "the wait")
        await until(pilot, lambda: "resilver" in str(
            screen.query_one("#wz-progress-text", Static).render()), "progress")
        progress = str(screen.query_one("#wz-progress-text", Static).render())
        assert "%" in progress and " of " in progress
        await pilot.press("escape")
        assert isinstance(app.screen, WizardScreen)  # first Escape only warns
        assert "ZFS keeps going" in str(screen.query_one("#wz-message", Static).render())
        await pilot.press("escape")
        assert not isinstance(app.screen, WizardScreen)
        assert screen.cancel.is_set()
        await until(pilot, lambda: bool(PlanStore(tmp_path / "plans").in_flight()) and any(
            r["event"] == "wait-stopped" for r in audit(tmp_path)), "the saved plan")
    # zconsole starts again on the same (still resilvering) machine
    app2 = wizard_app(tmp_path, host=host)
    async with app2.run_test(size=(120, 40)) as pilot:
        from zconsole.ui.wizards.resume import ResumeScreen

        await until(pilot, lambda: isinstance(app2.screen, ResumeScreen)
                    and bool(app2.screen.query(Static)), "the resume offer")
        await pilot.pause(0.05)
        offer = app2.screen
        text = " ".join(str(w.render()) for w in offer.query(Static))
        assert "1 operation in flight on this host" in text
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app2.screen, WizardScreen), "the wizard")
        w = app2.screen
        assert isinstance(w, WizardScreen) and w.phase is Phase.PREVIEW
        assert "Resuming:" in body_text(w) and "(done)" in body_text(w)
        await pilot.press("enter")  # the attach ran already: no confirmation asked again
        await until(pilot, lambda: w.phase is Phase.RESULT, "the result")
        assert "✔ Done." in body_text(w)
        cmds = [r for r in audit(tmp_path) if r["event"] == "command"]
        assert len(cmds) == 1  # never re-run
        assert PlanStore(tmp_path / "plans").in_flight() == []


async def test_operator_step_with_identify_then_done(tmp_path: Path) -> None:
    dd = ("dd", "if=/dev/disk/by-id/ata-HGST_HUS724040ALE640_PN2334PBJ4K7XT", "of=/dev/null",
          "bs=1M", "count=2000", "iflag=direct")
    plan = Plan(id="hand-operator", kind="replace-grow", title="Swap a disk",
                host="demo: showcase", pool="tank", created_at=frozen(),
                steps=(Step("pull", "Pull the old disk", "on site",
                            Command(dd, "blink the disk's LED"),
                            operator_action="Pull the disk with serial PN2334PBJ4K7XT"),
                       Step("set", "Set", "", Command(("zpool", "set", "autoexpand=on", "tank"),
                                                      "set", writes=True))))
    app = wizard_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await open_hand_preview(app, pilot, lambda *a: plan)
        assert "✋ on site: Pull the disk with serial PN2334PBJ4K7XT" in body_text(screen)
        await pilot.press("enter")
        await until(pilot, lambda: screen.operator_step == 0, "the operator step")
        op = str(screen.query_one("#wz-operator", Static).render())
        assert "Pull the disk with serial PN2334PBJ4K7XT" in op and "Press i" in op
        assert [r for r in audit(tmp_path) if r["event"] == "command"] == []
        await pilot.press("i")
        await until(pilot, lambda: any(r["event"] == "command" for r in audit(tmp_path)),
                    "the identify reads")
        cmd = next(r for r in audit(tmp_path) if r["event"] == "command")
        assert cmd["argv"] == list(dd) and cmd["writes"] is False
        await pilot.press("o")
        await until(pilot, lambda: screen.phase is Phase.RESULT, "the result")
        assert screen.status["pull"] is StepStatus.DONE
        assert screen.status["set"] is StepStatus.DONE


# --- the Pools screen: cursor, keys, read-only ---------------------------------------------------

async def test_pools_cursor_selects_a_member_and_d_opens_detach_on_it(tmp_path: Path) -> None:
    app = wizard_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        from zconsole.ui.screens.pools.pool_block import PoolBlock

        view = app.screen.query_one(PoolsView)
        assert view.selected_key() == "fast"  # the first pool's table
        tank = next(b for b in app.screen.query(PoolBlock) if b.pool_name == "tank")
        for _ in range(4):  # Tab moves between the pools' tables
            if app.screen.focused is tank.table:
                break
            await pilot.press("tab")
        assert app.screen.focused is tank.table
        assert view.selected_key() == "tank"
        await pilot.press("down", "down")
        key = f"tank:vdevs:mirror-0/{TANK_A0}"
        assert view.selected_key() == key
        app.action_refresh()
        await settle(app, pilot, refreshes=1)
        assert view.selected_key() == key  # the cursor survives a refresh by row key
        flow_kinds: list[str] = []
        import zconsole.ui.wizards as wz

        real = wz.open_wizard

        def spy(app_: ZConsoleApp, kind: str, sel: Selection | None = None) -> Any:
            flow_kinds.append(kind)
            assert sel == Selection("tank", path=("mirror-0", TANK_A0))
            return real(app_, kind, sel)

        wz.open_wizard = spy  # type: ignore[assignment]
        try:
            await pilot.press("d")
        finally:
            wz.open_wizard = real
        assert flow_kinds == ["detach"]
        screen = app.screen
        assert isinstance(screen, WizardScreen)
        assert screen.chosen == {"member": f"tank\t{TANK_A0}"}


@pytest.mark.parametrize("key", ["a", "d", "r", "g", "D"])
async def test_read_only_has_no_wizard_key_footer_or_palette_entry(tmp_path: Path,
                                                                   key: str) -> None:
    from zconsole.services.ops import registry

    wizard_actions = {f"wizard('{op.kind}')" for op in registry.with_wizard()}
    app = wizard_app(tmp_path, read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        actions = {b.binding.action for b in app.screen.active_bindings.values()}
        assert not actions & wizard_actions
        await pilot.press(key)
        await pilot.pause(0.05)
        assert not isinstance(app.screen, WizardScreen)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert not [t for t in titles if t.startswith("Wizard")]


async def test_writable_console_has_the_wizard_keys_and_palette_entries(tmp_path: Path) -> None:
    from zconsole.services.ops import registry

    ops = registry.with_wizard()
    app = wizard_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        keys = {k: b.binding.action for k, b in app.screen.active_bindings.items()}
        assert {keys.get(k) for k in ("a", "d", "r", "g", "D")} == {f"wizard('{op.kind}')"
                                                              for op in ops}
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert [t for t in titles if t.startswith("Wizard")] == [f"Wizard: {op.help}"
                                                                 for op in ops]


async def test_pools_screen_system_commands_come_from_the_registry(tmp_path: Path) -> None:
    """`PoolsScreen.system_commands()`: what the app's `get_system_commands(screen)` lists:
    one entry per wizard of the operation registry, each opening its wizard; none read-only."""
    from zconsole.services.ops import registry

    app = wizard_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        commands = list(app.screen.system_commands())  # type: ignore[attr-defined]
        assert [c.title for c in commands] == [
            "Wizard: attach a disk (make or widen a mirror)",
            "Wizard: detach a disk from a mirror",
            "Wizard: replace a failed disk on site (a free bay or the same bay)",
            "Wizard: replace to grow (larger disks, one by one)",
            "Wizard: turn dedup off"]
        assert [c.title for c in commands] == [f"Wizard: {op.help}"
                                               for op in registry.with_wizard()]
        assert {c.help for c in commands} == {"on the selected row"}
        commands[-1].callback()
        await pilot.pause()
        assert isinstance(app.screen, WizardScreen) and app.screen.flow is not None
        assert app.screen.flow.KIND == "dedup-off"
    app = wizard_app(tmp_path, read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert list(app.screen.system_commands()) == []  # type: ignore[attr-defined]


# --- the four wizards with their real plan builders (services/ops/zfs) ----------------------------

async def drive(app: ZConsoleApp, pilot: Any, kind: str, selection: Selection | None,
                picks: list[str], *, preview: bool = True) -> WizardScreen:
    from zconsole.ui.wizards import open_wizard

    screen = open_wizard(app, kind, selection)
    await pilot.pause()
    for value in picks:
        await until(pilot, lambda: screen.phase is Phase.CHOOSE, f"the choice of {value!r}")
        screen.choose(value)
        await pilot.pause()
    if preview:
        await until(pilot, lambda: screen.phase is Phase.PREVIEW, "the preview", tries=1500)
    return screen


async def confirm_all(screen: WizardScreen, pilot: Any) -> list[str]:
    asked = []
    await pilot.press("enter")
    while screen.phase is Phase.CONFIRM:
        expected = screen.pending[0].expected
        asked.append(expected)
        await pilot.press(*expected, "enter")
        await pilot.pause()
    return asked


@pytest.mark.parametrize("version", ["2.1", "2.3"])
async def test_attach_wizard_with_the_real_builder(tmp_path: Path, version: str) -> None:
    app = wizard_app(tmp_path, version=version)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await drive(app, pilot, "attach", Selection("tank", path=("mirror-0",)), [],
                             preview=False)
        assert screen.stage is not None and screen.stage.key == "disk"
        options = {c.value: c for c in screen.stage.options}
        # the guards' verdicts, in the list: sdj's 4 KiB logical sectors cannot join ashift 9;
        # sdl carries a label of the exported pool oldpool (a second confirmation); the
        # mounted disk is refused
        assert not options["sdj"].enabled and "✖" in options["sdj"].detail
        assert options["sdl"].enabled and "second confirmation" in options["sdl"].detail
        assert not options["sdk"].enabled
        assert screen.stage.options[0].value == "sdh"  # the clean one first
        screen.choose("sdh")
        await until(pilot, lambda: screen.phase is Phase.PREVIEW, "the preview", tries=1500)
        assert screen.plan is not None and screen.plan.kind == "attach"
        assert screen.plan.argv_list() == [(
            "zpool", "attach", "tank", TANK_A0,
            "/dev/disk/by-id/ata-WDC_WD80EFZX-68UW8N0_VK1ABCDE")]
        text = body_text(screen)
        assert "Redundancy now, during and after" in text and "3 copies after" in text
        assert await confirm_all(screen, pilot) == ["VK1ABCDE"]  # the serial, typed
        await until(pilot, lambda: screen.phase is Phase.RESULT, "the result", tries=1500)
        assert "✔ Done." in body_text(screen)
        assert [r["exit_code"] for r in audit(tmp_path) if r["event"] == "command"] == [0]


async def test_attach_with_an_exported_pool_label_needs_force(tmp_path: Path) -> None:
    app = wizard_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await drive(app, pilot, "attach", Selection("tank", path=("mirror-0",)),
                             ["sdl"])
        assert screen.plan is not None and screen.plan.needs_force
        assert "-f" not in screen.plan.argv_list()[0]
        await pilot.press("enter")
        assert screen.phase is Phase.FORCE and "oldpool" in body_text(screen)
        await pilot.press("f")
        await until(pilot, lambda: screen.phase is Phase.PREVIEW and screen.force,
                    "the plan with -f", tries=1500)
        argv = screen.plan.argv_list()[0]
        assert argv[:3] == ("zpool", "attach", "-f")
        assert "zpool attach -f tank" in body_text(screen)


async def test_detach_of_the_last_good_copy_is_blocked_before_zfs_says_it(
        tmp_path: Path) -> None:
    """degraded: mirror-0 = ZGY8A1B2 (ONLINE) + ZGY8C3D4 (FAULTED); detaching the good one
    would leave no valid replica."""
    app = wizard_app(tmp_path, "degraded")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        snap = app.reading
        assert snap is not None
        pool = next(p for p in snap.pool_status.value or () if p.name == "tank")
        good = next(c.name for c in pool.vdevs[0].children if c.state == "ONLINE")
        screen = await drive(app, pilot, "detach", Selection("tank", path=("mirror-0", good)),
                             [])
        assert screen.plan is not None and screen.plan.blocked
        text = body_text(screen)
        assert "✖ BLOCKS" in text and "This plan cannot run" in text
        await pilot.press("enter")
        assert screen.phase is Phase.PREVIEW and screen.runner is None


async def test_detach_wizard_runs(tmp_path: Path) -> None:
    app = wizard_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        member = "ata-HGST_HUS724040ALE640_PN2334PBJ4K7XT"
        screen = await drive(app, pilot, "detach", None, [f"tank\t{member}"])
        assert "keeps 1 copy" in body_text(screen)
        assert await confirm_all(screen, pilot) == ["tank"]
        await until(pilot, lambda: screen.phase is Phase.RESULT, "the result", tries=1500)
        assert f"{member} is no longer in tank" in body_text(screen)
        assert member not in app.host.run(["zpool", "status", "tank"]).stdout


@pytest.mark.parametrize("version", ["2.1", "2.3"])
async def test_replace_to_grow_on_site_with_identify(tmp_path: Path, version: str) -> None:
    app = wizard_app(tmp_path, "grow", version)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        size_before = app.host.run(["zpool", "list", "-H", "-p", "-o", "size", "tank"]).stdout
        screen = await drive(app, pilot, "replace-grow", Selection("tank", path=("mirror-0",)),
                             ["sdc", "sdd", "online-e", "on-site"])
        assert await confirm_all(screen, pilot) == ["WD-WX12D3GROW03", "WD-WX12D3GROW04"]
        await until(pilot, lambda: screen.operator_step is not None, "the first pull",
                    tries=1500)
        op = str(screen.query_one("#wz-operator", Static).render())
        assert "Pull the disk with serial WD-WCC4J1GROW01" in op and "Press i" in op
        await pilot.press("i")
        await until(pilot, lambda: any(r["event"] == "command" and r["argv"][0] == "dd"
                                       for r in audit(tmp_path)), "identify")
        await pilot.press("o")
        await until(pilot, lambda: screen.operator_step is not None
                    and "GROW02" in str(screen.query_one("#wz-operator", Static).render()),
                    "the second pull", tries=1500)
        await pilot.press("o")
        await until(pilot, lambda: screen.phase is Phase.RESULT, "the result", tries=1500)
        text = body_text(screen)
        assert "✔ Done." in text and "tank SIZE is" in text
        size_after = app.host.run(["zpool", "list", "-H", "-p", "-o", "size", "tank"]).stdout
        assert int(size_after) > int(size_before)
        argvs = [r["argv"] for r in audit(tmp_path) if r["event"] == "command"]
        assert ["zpool", "online", "-e", "tank",
                "ata-WDC_WD20EFZX-68AWUN0_WD-WX12D3GROW04"] in argvs
        # the proof is on screen: the read-only `zpool list` output after the growth
        assert "zpool list" in text


async def test_dedup_off_with_a_send_receive_rewrite(tmp_path: Path) -> None:
    app = wizard_app(tmp_path, "dedup")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await drive(app, pilot, "dedup-off", None, ["tank/vm", "tank/vm"])
        text = body_text(screen)
        assert "Dedup table (DDT) of tank" in text and "in core" in text
        assert "affects NEW writes only" in text
        assert "zfs set dedup=off tank/vm" in text
        assert " | zfs receive" in text  # the pipeline, shown exactly
        await confirm_all(screen, pilot)
        await until(pilot, lambda: screen.phase is Phase.RESULT, "the result", tries=3000)
        assert "✔ Done." in body_text(screen), body_text(screen)
        got = app.host.run(["zfs", "get", "-H", "-o", "value", "dedup", "tank/vm"]).stdout
        assert got.strip() == "off"
        assert "dedup: DDT entries" in body_text(screen)  # zpool status -D after, shown


async def test_a_question_left_empty_by_a_missing_disk_read_fills_in_at_the_next_reading(
        tmp_path: Path) -> None:
    """The wizard opened on a reading whose disk list did not answer (a loaded host: the
    host guest's CI run saw an empty box for 120 s): it says why the list is empty, and the
    next reading fills the list in without the operator starting again."""
    import dataclasses

    from zconsole.model.reading import Part

    app = wizard_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        full = app.reading
        assert full is not None and full.disks.value is not None
        missing = dataclasses.replace(full, disks=Part(None, full.disks.taken_at, "lsblk",
                                                       "no answer for 30 s", "CommandTimedOut"))
        # what the console showed when the wizard opened
        assert app.session.last is not None
        app.session.last = dataclasses.replace(app.session.last, reading=missing)
        screen = WizardScreen(AttachFlow(selection=Selection("tank", path=("mirror-0",))),
                              host=app.host, reading=missing)
        await app.push_screen(screen)
        await pilot.pause()
        assert screen.phase is Phase.CHOOSE and screen.stage is not None
        assert screen.stage.key == "disk" and screen.stage.options == ()
        text = body_text(screen)
        assert "The disk list was not read (no answer for 30 s)" in text, text
        app.action_refresh()
        await until(pilot, lambda: screen.stage is not None and bool(screen.stage.options),
                    "the disks offered after the next reading")
        assert screen.reading is app.reading and screen.stage.key == "disk"
        assert "was not read" not in body_text(screen)
