"""Pictures of each wizard step on the demo host, at 80x24 and 120x40, frozen clock.

The journal lives under a temporary HOME, so the audit path on the result screen reads
`~/.local/state/zconsole/demo/audit.jsonl` in every run. Regenerate deliberately with
`pytest tests/ui/test_wizard_snapshots.py --snapshot-update` and look at the pictures.
"""

from __future__ import annotations

import itertools
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from tests.ui.conftest import frozen, settle
from tests.ui.test_wizards import TANK_A0, confirm_all, hand_attach, hand_flow, until
from zconsole.hosts import journal
from zconsole.hosts.demo import DemoHost
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.wizards import open_wizard
from zconsole.ui.wizards.choices import Selection
from zconsole.ui.wizards.flows import AttachFlow
from zconsole.ui.wizards.screen import Phase, WizardScreen

SIZES = [(80, 24), (120, 40)]


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("ZCONSOLE_STATE_DIR", raising=False)
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    # the demo's state: this run's own (shown in the pictures as under ~)
    monkeypatch.setattr(journal, "_run_demo_dir", [tmp_path / "zconsole-demo"])
    return tmp_path


def app_for(scenario: str = "showcase", version: str = "2.3", *,
            host: DemoHost | None = None, state: str | None = None) -> ZConsoleApp:
    host = host or DemoHost(scenario, zfs_version=version, clock=frozen, seed=0)
    app = ZConsoleApp(host, clock=frozen, refresh_interval=3600, state_directory=state)
    app.wizard_poll_interval = 0.01  # type: ignore[attr-defined]
    return app


async def to_phase(app: ZConsoleApp, pilot: Any, kind: str, selection: Selection | None,
                   picks: list[str], phase: Phase) -> WizardScreen:
    await settle(app, pilot)
    screen = open_wizard(app, kind, selection)
    await pilot.pause()
    for value in picks:
        await until(pilot, lambda: screen.phase is Phase.CHOOSE, "a choice")
        screen.choose(value)
        await pilot.pause()
    if phase is Phase.CHOOSE:
        await until(pilot, lambda: screen.phase is Phase.CHOOSE, "the choice")
    else:
        await until(pilot, lambda: screen.phase is Phase.PREVIEW, "the preview", tries=1500)
        await redraw_scrollbar(screen, pilot)
    await pilot.pause(0.05)
    return screen


async def redraw_scrollbar(screen: WizardScreen, pilot: Any) -> None:
    """The body's scrollbar set anew where the body is: the one that appears as a phase
    gives way to a longer one may keep an older frame's geometry (its thumb drawn an
    eighth of a cell apart from one run to the next)."""
    body = screen.query_one(".body")
    y = round(body.scroll_y)
    for at in (y + 1 if y < body.max_scroll_y else y - 1, y):
        await pilot.pause(0.05)
        body.scroll_to(y=at, animate=False, immediate=True)


ATTACH = ("attach", Selection("tank", path=("mirror-0",)))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("step", ["choose", "preview", "confirm", "result"])
def test_attach_steps(snap_compare: Any, size: tuple[int, int], step: str) -> None:
    app = app_for()

    async def run_before(pilot: Any) -> None:
        kind, sel = ATTACH
        picks = [] if step == "choose" else ["sdh"]
        screen = await to_phase(app, pilot, kind, sel, picks,
                                Phase.CHOOSE if step == "choose" else Phase.PREVIEW)
        if step == "confirm":
            await pilot.press("enter")
            await pilot.press(*"VK1ABCD")  # one character short of the serial
            # the picture once the field holds every key (a busy machine lags a frame)
            await until(pilot, lambda: any(w.value == "VK1ABCD" for w in screen.query(Input)),
                        "the typed serial")
        if step == "result":
            await confirm_all(screen, pilot)
            await until(pilot, lambda: screen.phase is Phase.RESULT, "the result", tries=1500)
            await redraw_scrollbar(screen, pilot)
        await pilot.pause(0.05)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("case", ["detach-preview", "grow-vdev", "grow-pull", "dedup-preview",
                                  "refusal", "resume-offer"])
def test_wizard_pictures(snap_compare: Any, size: tuple[int, int], case: str,
                         home: Path) -> None:
    host = None
    state = None
    if case == "resume-offer":
        host, state = _in_flight(home)
    scenario = {"grow-vdev": "grow", "grow-pull": "grow", "dedup-preview": "dedup"}.get(
        case, "showcase")
    app = app_for(scenario, host=host, state=state)

    async def run_before(pilot: Any) -> None:
        if case == "detach-preview":
            await to_phase(app, pilot, "detach",
                           Selection("tank", path=("mirror-0", TANK_A0)), [], Phase.PREVIEW)
        elif case == "grow-vdev":
            await to_phase(app, pilot, "replace-grow", Selection("tank"), [], Phase.CHOOSE)
        elif case == "grow-pull":
            screen = await to_phase(app, pilot, "replace-grow",
                                    Selection("tank", path=("mirror-0",)),
                                    ["sdc", "sdd", "online-e", "on-site"], Phase.PREVIEW)
            await confirm_all(screen, pilot)
            await until(pilot, lambda: screen.operator_step is not None, "the pull",
                        tries=1500)
        elif case == "dedup-preview":
            await to_phase(app, pilot, "dedup-off", None, ["", ""], Phase.PREVIEW)
        elif case == "refusal":
            await settle(app, pilot)
            flow = hand_flow(AttachFlow(preset={"target": f"tank\t{TANK_A0}",
                                                "disk": "sdj"}), hand_attach)
            screen = WizardScreen(flow, host=app.host, reading=app.reading)
            await app.push_screen(screen)
            await until(pilot, lambda: screen.phase is Phase.PREVIEW, "the preview")
            await pilot.press("enter", *"tank", "enter")
            await until(pilot, lambda: screen.phase is Phase.RESULT, "the result")
        elif case == "resume-offer":
            from zconsole.ui.wizards.resume import ResumeScreen

            await settle(app, pilot)
            await until(pilot, lambda: isinstance(app.screen, ResumeScreen), "the offer")
        await pilot.pause(0.05)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


def _in_flight(home: Path) -> tuple[DemoHost, str]:
    """A replace-to-grow plan stopped mid-resilver, as a killed console leaves it."""
    from zconsole.hosts.journal import AuditLog, PlanStore
    from zconsole.services.ops.engine.runner import PlanRunner, WaitProgress
    from zconsole.services.ops.zfs.common import read_inputs
    from zconsole.services.ops.zfs.replace_grow import build_replace_grow

    host = DemoHost("grow", zfs_version="2.3", clock=frozen, seed=0)
    state = home / "state"
    inputs = read_inputs(host, "tank")
    plan = build_replace_grow(inputs.reading, "tank", "mirror-0", ["sdc", "sdd"],
                                    props=inputs.props, on_site=False, plan_id="f" * 32)
    cancel = threading.Event()

    def on_event(ev: object) -> None:
        if isinstance(ev, WaitProgress) and ev.scanning:
            cancel.set()

    runner = PlanRunner(host, plan, audit=AuditLog(state / "audit.jsonl"),
                        store=PlanStore(state / "plans"), operator="test",
                        poll_interval=0.01, fast_forward=False)
    result = runner.run(on_event, cancel=cancel)
    assert result.status == "cancelled", result
    return host, str(state)


FAULTED = "ata-ST4000VN008-2DR166_ZGY8C3D4"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("case", ["disk", "bay", "bay-preview", "wrong-disk", "new-disk",
                                  "replace-preview"])
def test_replace_failed_pictures(snap_compare: Any, size: tuple[int, int], case: str) -> None:
    """The on-site replace (issue 12) on the degraded demo: which disk, where the new one
    goes, the bay plan, the watch (a wrong disk pulled; a new disk appeared), the replace."""
    host = DemoHost("degraded", zfs_version="2.3", clock=frozen, seed=0)
    app = app_for(host=host)
    app.wizard_fast_forward = False  # type: ignore[attr-defined]  # the test's hands swap

    async def run_before(pilot: Any) -> None:
        if case == "disk":
            await to_phase(app, pilot, "replace-failed", Selection("tank"), [], Phase.CHOOSE)
            await pilot.pause(0.05)
            return
        sel = Selection("tank", path=("mirror-0", FAULTED))
        if case == "bay":
            await to_phase(app, pilot, "replace-failed", sel, [], Phase.CHOOSE)
            await pilot.pause(0.05)
            return
        screen = await to_phase(app, pilot, "replace-failed", sel, ["same", "scrub"],
                                Phase.PREVIEW)
        if case == "bay-preview":
            await pilot.pause(0.05)
            return
        await pilot.press("enter", *"ZGY8C3D4", "enter")
        await until(pilot, lambda: screen.operator_step is not None, "the find step",
                    tries=1500)
        await pilot.press("o")
        await until(pilot, lambda: "Waiting for sdb" in _progress(screen), "the watch")
        if case == "wrong-disk":
            host.pull_disk("ZGY8A1B2")
            await until(pilot, lambda: "WRONG DISK" in _progress(screen), "the alarm")
        else:
            host.pull_disk("ZGY8C3D4")
            await until(pilot, lambda: "is gone" in _progress(screen), "the pull")
            if case == "new-disk":
                host.insert_disk("pci-0000:00:17.0-ata-2", "ST2000VN004-2E41", "ZSMALL01",
                                 2000398934016)
                await until(pilot, lambda: "REFUSED" in _progress(screen), "the refusal")
            else:
                host.insert_disk("pci-0000:00:17.0-ata-2", "ST4000VN008-2DR166", "ZNEW4242",
                                 4000787030016)
                await until(pilot, lambda: screen.phase is Phase.PREVIEW
                            and screen.plan is not None and "step 2" in screen.plan.title,
                            "the replace plan", tries=1500)
        await redraw_scrollbar(screen, pilot)
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


def _progress(screen: WizardScreen) -> str:
    from textual.widgets import Static

    return str(screen.query_one("#wz-progress-text", Static).render())


# --- issue 29: every page of the replace, same-bay and fix-ssh flows at 80x24 and 120x40,
# the title and the steps on top, the focused field (and the message under it) in view.

PAGES = [("replace", "choose"), ("replace", "preview"), ("replace", "confirm"),
         ("replace", "run"), ("replace", "result"),
         ("same-bay", "confirm"), ("same-bay", "run"), ("same-bay", "result"),
         ("fix-ssh", "preview"), ("fix-ssh", "confirm"), ("fix-ssh", "result")]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("flow,page", PAGES, ids=lambda p: str(p))
def test_flow_pages(snap_compare: Any, size: tuple[int, int], flow: str, page: str,
                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The same-bay flow's choose and preview pages are test_replace_failed_pictures' `bay`
    and `bay-preview`; fix-ssh asks nothing (no choose page) and its run never waits for
    anyone (its run page lasts a moment: the result shows what it did)."""
    if flow == "fix-ssh":
        # the plan's id names its backup file: the same in every run of the picture
        ids = itertools.count(1)
        monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=next(ids)))
        app = app_for("slow-ssh")
        drive = _fix_ssh_page
    else:
        host = DemoHost("degraded", zfs_version="2.3", clock=frozen, seed=0)
        app = app_for(host=host)
        drive = _replace_page if flow == "replace" else _same_bay_page
        if flow == "same-bay":
            app.wizard_fast_forward = False  # type: ignore[attr-defined]  # hands swap

    async def run_before(pilot: Any) -> None:
        await drive(app, pilot, page)
        screen = app.screen
        assert isinstance(screen, WizardScreen)
        await redraw_scrollbar(screen, pilot)
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


async def _typed_wrong(screen: WizardScreen, pilot: Any, wrong: str) -> None:
    """Enter on the preview, then a confirmation one key short: refused, said under it."""
    await pilot.press("enter")
    await until(pilot, lambda: screen.phase is Phase.CONFIRM, "the confirmation")
    await pilot.press(*wrong, "enter")
    await until(pilot, lambda: "does not match" in str(
        screen.query_one("#wz-message").render()), "the mismatch said")


async def _replace_page(app: ZConsoleApp, pilot: Any, page: str) -> None:
    sel = Selection("tank", path=("mirror-0", FAULTED))
    if page == "choose":
        await to_phase(app, pilot, "replace-failed", sel, ["free"], Phase.CHOOSE)
        return
    screen = await to_phase(app, pilot, "replace-failed", sel, ["free", "sdh", "scrub"],
                            Phase.PREVIEW)
    if page == "confirm":
        await _typed_wrong(screen, pilot, "ZGY8Q5R")
    elif page in ("run", "result"):
        await confirm_all(screen, pilot)
        await until(pilot, lambda: screen.operator_step is not None, "the pull", tries=1500)
        await pilot.press("i")  # identify: said in the on-site box
        await until(pilot, lambda: "identify finished" in str(
            screen.query_one("#wz-operator").render()), "identify's end")
        if page == "result":
            await pilot.press("o")
            await until(pilot, lambda: screen.phase is Phase.RESULT, "the result",
                        tries=1500)


async def _same_bay_page(app: ZConsoleApp, pilot: Any, page: str) -> None:
    host = app.host
    assert isinstance(host, DemoHost)
    screen = await to_phase(app, pilot, "replace-failed",
                            Selection("tank", path=("mirror-0", FAULTED)), ["same", "scrub"],
                            Phase.PREVIEW)
    if page == "confirm":
        await _typed_wrong(screen, pilot, "ZGY8C3D")
        return
    await pilot.press("enter", *"ZGY8C3D4", "enter")
    await until(pilot, lambda: screen.operator_step is not None, "the find step", tries=1500)
    if page == "run":
        await pilot.press("i")
        await until(pilot, lambda: "identify finished" in str(
            screen.query_one("#wz-operator").render()), "identify's end")
        return
    await pilot.press("o")
    await until(pilot, lambda: "Waiting for sdb" in _progress(screen), "the watch")
    host.pull_disk("ZGY8C3D4")
    await until(pilot, lambda: "is gone" in _progress(screen), "the pull")
    host.insert_disk("pci-0000:00:17.0-ata-2", "ST4000VN008-2DR166", "ZNEW4242",
                     4000787030016)
    await until(pilot, lambda: screen.phase is Phase.PREVIEW and screen.plan is not None
                and "step 2" in screen.plan.title, "the replace plan", tries=1500)
    app.wizard_fast_forward = None  # type: ignore[attr-defined]  # the resilver, at once
    await confirm_all(screen, pilot)
    await until(pilot, lambda: screen.phase is Phase.RESULT, "the result", tries=1500)


async def _fix_ssh_page(app: ZConsoleApp, pilot: Any, page: str) -> None:
    from tests.ui.test_wizard_small import fix_ssh_preview

    screen = await fix_ssh_preview(app, pilot)
    if page == "confirm":
        await _typed_wrong(screen, pilot, "UseDNS n")
    elif page == "result":
        await confirm_all(screen, pilot)
        await until(pilot, lambda: screen.phase is Phase.RESULT, "the result", tries=1500)
