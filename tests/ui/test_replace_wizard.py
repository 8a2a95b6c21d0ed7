"""The on-site replace of a failed disk through the screens, on the demo host (issue 12): `r`
on the Pools screen, the same bay, the operator's hands played by the test (the demo host's
pull_disk / insert_disk) while the wizard watches the disks: the happy path to a clean scrub,
the wrong disk pulled, a new disk too small, the console killed while waiting for the new disk
and resumed, and a hot spare in use that goes back to AVAIL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from tests.ui.conftest import frozen, settle
from tests.ui.test_wizards import audit, body_text, until, wizard_app
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.journal import PlanStore
from zconsole.model.plan import StepStatus
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.screens.pools.pool_block import PoolBlock
from zconsole.ui.wizards.screen import Phase, WizardScreen

OLD = "ata-ST4000VN008-2DR166_ZGY8C3D4"  # FAULTED, sdb, in bay ata-2
BAY = "pci-0000:00:17.0-ata-2"
MODEL = "ST4000VN008-2DR166"
FOUR_TB = 4000787030016
TWO_TB = 2000398934016


def progress(screen: WizardScreen) -> str:
    return str(screen.query_one("#wz-progress-text", Static).render())


async def open_on_the_faulted_disk(app: ZConsoleApp, pilot: Any) -> WizardScreen:
    """Pools: the cursor on the FAULTED member of mirror-0, then `r`."""
    await settle(app, pilot)
    tank = next(b for b in app.screen.query(PoolBlock) if b.pool_name == "tank")
    tank.table.focus()
    await pilot.pause()
    key = f"tank:vdevs:mirror-0/{OLD}"
    for _ in range(6):
        if tank.table.cursor_key == key:
            break
        await pilot.press("down")
    assert tank.table.cursor_key == key
    await pilot.press("r")
    await until(pilot, lambda: isinstance(app.screen, WizardScreen), "the wizard")
    screen = app.screen
    assert isinstance(screen, WizardScreen)
    assert screen.chosen["old"] == f"tank\t{OLD}"  # the cursor's disk, not asked again
    return screen


async def asked(pilot: Any, screen: WizardScreen, key: str, what: str) -> None:
    """Wait until the wizard asks its question `key` (`what`: said when it never does)."""
    await until(pilot, lambda: screen.stage is not None and screen.stage.key == key, what)


async def answer(pilot: Any, screen: WizardScreen, key: str, what: str, value: str) -> None:
    """Wait for the question `key`, then answer it with `value`."""
    await asked(pilot, screen, key, what)
    screen.choose(value)


async def replace_plan_shown(pilot: Any, screen: WizardScreen) -> None:
    """The bay plan has ended: the replace plan (step 2 of 2) is previewed."""
    await until(
        pilot,
        lambda: (
            screen.phase is Phase.PREVIEW
            and screen.plan is not None
            and "step 2 of 2" in screen.plan.title
        ),
        "the replace plan",
        tries=1500,
    )


async def same_bay_to_the_swap(
    app: ZConsoleApp, pilot: Any, screen: WizardScreen, after: str = "scrub"
) -> None:
    """Same bay → preview → type the serial → offline → the find step → o: watching."""
    await until(
        pilot,
        lambda: (
            screen.phase is Phase.CHOOSE and screen.stage is not None and screen.stage.key == "bay"
        ),
        "the bay question",
    )
    assert screen.stage is not None
    same = next(o for o in screen.stage.options if o.value == "same")
    assert "zpool offline" in same.detail and "while it is empty" not in same.detail
    screen.choose("same")
    await answer(pilot, screen, "after", "the after question", after)
    await until(pilot, lambda: screen.phase is Phase.PREVIEW, "the preview", tries=1500)
    text = body_text(screen)
    assert f"zpool offline tank {OLD}" in text
    assert "While the bay is empty" in text
    await pilot.press("enter")
    assert screen.phase is Phase.CONFIRM and screen.pending[0].expected == "ZGY8C3D4"
    await pilot.press(*"ZGY8C3D4", "enter")
    await until(pilot, lambda: screen.operator_step is not None, "the find step", tries=1500)
    op = str(screen.query_one("#wz-operator", Static).render())
    assert "serial ZGY8C3D4" in op and "Press i" in op
    await pilot.press("o")
    await until(
        pilot,
        lambda: "Waiting for sdb with serial ZGY8C3D4 to be pulled" in progress(screen),
        "the watch",
    )


@asynccontextmanager
async def at_the_swap(
    tmp_path: Path, version: str = "2.3"
) -> AsyncIterator[tuple[DemoHost, ZConsoleApp, Any, WizardScreen]]:
    """The degraded demo host, the wizard opened on its FAULTED disk and taken to the swap."""
    host = DemoHost("degraded", zfs_version=version, clock=frozen, seed=0)
    app = wizard_app(tmp_path, host=host, fast_forward=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_on_the_faulted_disk(app, pilot)
        await same_bay_to_the_swap(app, pilot, screen)
        yield host, app, pilot, screen


async def test_same_bay_happy_path_to_a_clean_scrub(tmp_path: Path) -> None:
    async with at_the_swap(tmp_path) as (host, app, pilot, screen):
        host.pull_disk("ZGY8C3D4")
        await until(
            pilot, lambda: "sdb with serial ZGY8C3D4 is gone" in progress(screen), "the pull seen"
        )
        host.insert_disk(BAY, MODEL, "ZNEW4242", FOUR_TB)
        # the bay plan ends; the replace plan is built with the disk that appeared
        await replace_plan_shown(pilot, screen)
        text = body_text(screen)
        assert f"zpool replace tank {OLD} /dev/disk/by-id/ata-ST4000VN008-2DR166_ZNEW4242" in text
        assert "zpool scrub tank" in text
        app.wizard_fast_forward = True  # type: ignore[attr-defined]  # the resilver, the scrub
        await pilot.press("enter")
        assert screen.pending[0].expected == "ZNEW4242"  # the new disk's serial
        await pilot.press(*"ZNEW4242", "enter")
        await until(pilot, lambda: screen.phase is Phase.RESULT, "the result", tries=3000)
        assert "✔ Done." in body_text(screen)
        argvs = [r["argv"] for r in audit(tmp_path) if r["event"] == "command"]
        assert argvs == [
            ["zpool", "offline", "tank", OLD],
            ["zpool", "replace", "tank", OLD, "/dev/disk/by-id/ata-ST4000VN008-2DR166_ZNEW4242"],
            ["zpool", "scrub", "tank"],
        ]
        status = host.run(["zpool", "status", "tank"]).stdout
        assert OLD not in status and "ZNEW4242  ONLINE" in status
        assert "scrub repaired 0B" in status


async def test_wrong_disk_pulled_is_said_loudly_with_the_way_back(tmp_path: Path) -> None:
    async with at_the_swap(tmp_path) as (host, app, pilot, screen):
        host.pull_disk("ZGY8A1B2")  # the last good copy of mirror-0, not the failed disk
        await until(pilot, lambda: "WRONG DISK" in progress(screen), "the alarm")
        said = progress(screen)
        assert "serial ZGY8A1B2" in said and "Put it back" in said
        assert "zpool online tank ata-ST4000VN008-2DR166_ZGY8A1B2" in said
        assert "WRONG DISK" in body_text(screen)  # in the log too
        assert screen.phase is Phase.RUN  # still watching; nothing else is done
        assert [r["argv"][1] for r in audit(tmp_path) if r["event"] == "command"] == ["offline"]


async def test_a_new_disk_too_small_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    async with at_the_swap(tmp_path) as (host, app, pilot, screen):
        host.pull_disk("ZGY8C3D4")
        small = host.insert_disk(BAY, "ST2000VN004-2E41", "ZSMALL01", TWO_TB)
        await until(pilot, lambda: "REFUSED" in progress(screen), "the refusal")
        said = progress(screen)
        assert f"A new disk appeared: {small}, 2.00 TB" in said and "too small" in said
        assert screen.phase is Phase.RUN and screen.status["swap"] is StepStatus.WAITING
        assert not any(
            r["argv"][1] == "replace" for r in audit(tmp_path) if r["event"] == "command"
        )
        host.pull_disk("ZSMALL01")
        host.insert_disk(BAY, MODEL, "ZNEW0002", FOUR_TB)
        await replace_plan_shown(pilot, screen)
        assert "ZNEW0002" in body_text(screen)


async def test_killed_while_waiting_for_the_new_disk_then_resumed(tmp_path: Path) -> None:
    async with at_the_swap(tmp_path, "2.1") as (host, app, pilot, screen):
        host.pull_disk("ZGY8C3D4")
        await until(pilot, lambda: "is gone" in progress(screen), "the pull seen")
    # the console is killed: the plan stays in flight, waiting for the new disk
    assert PlanStore(tmp_path / "plans").in_flight()
    app2 = wizard_app(tmp_path, host=host, fast_forward=False)
    async with app2.run_test(size=(120, 40)) as pilot:
        from zconsole.ui.wizards.resume import ResumeScreen

        await until(
            pilot,
            lambda: isinstance(app2.screen, ResumeScreen) and bool(app2.screen.query(Static)),
            "the resume offer",
        )
        await pilot.pause(0.05)
        offer = " ".join(str(w.render()) for w in app2.screen.query(Static))
        assert "1 operation in flight on this host" in offer
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app2.screen, WizardScreen), "the wizard")
        w = app2.screen
        assert isinstance(w, WizardScreen) and w.phase is Phase.PREVIEW
        assert w.plan is not None and "step 1 of 2" in w.plan.title
        text = body_text(w)
        assert "Resuming:" in text and "ZGY8C3D4 is gone" in text  # what the disks show
        await pilot.press("enter")  # the offline ran already: nothing asked again
        await until(pilot, lambda: "is gone" in progress(w), "watching again")
        host.insert_disk(BAY, MODEL, "ZNEW0003", FOUR_TB)
        await replace_plan_shown(pilot, w)
        assert "/dev/disk/by-id/ata-ST4000VN008-2DR166_ZNEW0003" in body_text(w)
    offlines = [r for r in audit(tmp_path) if r["event"] == "command" and r["argv"][1] == "offline"]
    assert len(offlines) == 1  # never run twice


@pytest.mark.parametrize("version", ["2.1", "2.3"])
async def test_a_spare_in_use_returns_to_avail(tmp_path: Path, version: str) -> None:
    host = DemoHost("degraded-spare", zfs_version=version, clock=frozen, seed=0)
    app = wizard_app(tmp_path, host=host)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        from zconsole.ui.wizards import open_wizard

        screen = open_wizard(app, "replace-failed", None)
        await asked(pilot, screen, "old", "the disk question")
        assert screen.stage is not None
        first = screen.stage.options[0]
        assert first.value == f"tank\t{OLD}" and "hot spare" in first.detail
        screen.choose(first.value)
        await answer(pilot, screen, "bay", "the bay question", "free")
        await answer(pilot, screen, "disk", "the disk question", "sdh")
        await answer(pilot, screen, "spare", "the spare question", "return")
        await answer(pilot, screen, "after", "the after question", "none")
        await until(pilot, lambda: screen.phase is Phase.PREVIEW, "the preview", tries=1500)
        assert "goes back to the spares (AVAIL)" in body_text(screen)
        await pilot.press("enter", *"ZGY8Q5R6", "enter")
        await until(pilot, lambda: screen.operator_step is not None, "the pull", tries=3000)
        assert screen.status["spare-back"] is StepStatus.DONE
        await pilot.press("o")
        await until(pilot, lambda: screen.phase is Phase.RESULT, "the result", tries=1500)
        assert "✔ Done." in body_text(screen)
        assert "ZGY8N3P4 is an AVAIL spare again" in body_text(screen)
        status = host.run(["zpool", "status", "tank"]).stdout
        assert "ata-ST4000VN008-2DR166_ZGY8N3P4    AVAIL" in status


async def test_replacing_one_failed_disk_leaves_the_other_faulted_and_says_so(
    tmp_path: Path,
) -> None:
    """Issue 26 item 1 through the screens: `--demo degraded`, the UNAVAIL disk, a free bay,
    sdh; the spare is offered first; the scrub is the default after choice; the clear names
    only the new disk; the result says what is still wrong and the to-do line stays."""
    gone = "15712766684991486900"
    host = DemoHost("degraded", zfs_version="2.3", clock=frozen, seed=0)
    app = wizard_app(tmp_path, host=host)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        from zconsole.ui.wizards import open_wizard

        screen = open_wizard(app, "replace-failed", None)
        await answer(pilot, screen, "old", "the disk question", f"tank\t{gone}")
        await asked(pilot, screen, "bay", "the bay question")
        assert screen.stage is not None and screen.stage.options[0].value == "spare"
        screen.choose("free")
        await answer(pilot, screen, "disk", "the disk question", "sdh")
        await asked(pilot, screen, "after", "the after question")
        assert screen.stage is not None and screen.stage.options[0].value == "scrub"
        screen.choose("clear-scrub")
        await until(pilot, lambda: screen.phase is Phase.PREVIEW, "the preview", tries=1500)
        assert "zpool clear tank ata-ST4000VN008-2DR166_ZGY8Q5R6" in body_text(screen)
        await pilot.press("enter", *"ZGY8Q5R6", "enter")
        await until(pilot, lambda: screen.phase is Phase.RESULT, "the result", tries=3000)
        text = body_text(screen)
        assert "✔ Done." in text
        assert "still wrong in tank" in text and f"{OLD}: FAULTED" in text, text
        argvs = [r["argv"] for r in audit(tmp_path) if r["event"] == "command"]
        assert ["zpool", "clear", "tank"] not in argvs
        assert ["zpool", "clear", "tank", "ata-ST4000VN008-2DR166_ZGY8Q5R6"] in argvs
        await pilot.press("enter")  # close
        await until(pilot, lambda: not isinstance(app.screen, WizardScreen), "the close")
        app.action_refresh()
        await settle(app, pilot)
        tank = next(b for b in app.screen.query(PoolBlock) if b.pool_name == "tank")
        shown = str(tank.summary.render())
        assert f"Press r to replace {OLD}" in shown, shown
