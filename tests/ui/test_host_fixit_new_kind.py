"""The Host screen finds a new fix-it kind through the operation registry alone (issue 28,
2b): a throw-away kind registered in a fixture (tests/unit/test_fixit_new_kind.py), named by
the SSH panel's fix, is offered in its entry's words; `f` opens its flow with its entry's
title and runs its plan under its FixRunner; its applied fix (`Fixit.applied`) is offered
for undo, and `u` opens its undo (`Fixit.undo`) with its undo title. No edit of the screen,
the wizards or the runner."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from textual.widgets import Static

from tests.ui.test_host_fixit import run_wizard, slow_ssh_app
from tests.ui.test_host_screen import open_host
from tests.ui.test_wizards import body_text, until
from tests.unit.test_fixit_new_kind import APPLIED, KIND, build, new_kind  # noqa: F401
from zconsole.services.ops.operation import Operation
from zconsole.ui.screens.host.screen import HostScreen
from zconsole.ui.wizards.screen import WizardScreen


def offer(screen: HostScreen) -> str:
    w = screen.query_one("#fix-ssh .fix-offer", Static)
    return " ".join(str(w.render()).split()) if w.display else ""


def name_the_new_kind(screen: HostScreen) -> None:
    """The SSH panel's diagnosis, its plan fix naming the new kind (as health would)."""
    d = screen.diagnoses["ssh"]
    fixes = tuple(dataclasses.replace(f, plan=KIND) if f.plan else f for f in d.fixes)
    screen.diagnoses["ssh"] = dataclasses.replace(d, fixes=fixes)
    screen._redraw()


async def test_the_host_screen_offers_runs_and_undoes_a_new_kind(
        tmp_path: Path, new_kind: Operation) -> None:  # noqa: F811 - the fixture
    app, host, before = slow_ssh_app(tmp_path)
    async with app.run_test(size=(120, 60)) as pilot:
        screen = await open_host(app, pilot)
        name_the_new_kind(screen)
        assert screen.fix_kind("ssh") == KIND
        assert offer(screen) == "▶ f: apply the test fix as a plan"

        wz, preview, typed = await run_wizard(app, pilot, "f")
        assert wz.flow is not None and wz.flow.KIND == KIND
        assert wz.flow.TITLE == "Fix something for the test"
        assert "cp -a /etc/ssh/sshd_config.d/50-hardening.conf" in preview, preview
        assert "✔ Done." in body_text(wz) and typed == []  # a backup: nothing to confirm
        assert any(p.startswith("/var/backups/zconsole-ffffffffffff-") for p in
                   host.machine.files)  # the new kind's own step ran

        await pilot.press("enter")
        await until(pilot, lambda: app.screen is screen, "the Host screen")
        APPLIED.append(build(host))  # what its `Fixit.applied` now reads
        screen._find_applied()
        screen._redraw()
        assert "u: undo: restore" in offer(screen)
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, WizardScreen), "the undo wizard")
        undo = app.screen
        assert isinstance(undo, WizardScreen) and undo.flow is not None
        assert undo.flow.TITLE == "Undo the test fix"
        await until(pilot, lambda: "rm -f /var/backups/test-copy" in body_text(undo),
                    "the undo's preview", tries=1500)
