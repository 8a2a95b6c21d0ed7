"""The undo from the Host screen (issue 26 item 6) on the demo's slow-ssh host: its preview
shows the diff it makes (the fix's own change, reversed), and after a hand edit of the same
drop-in it is refused before anything runs, with the diff of the file now against what the
fix left; the file keeps the edit."""

from __future__ import annotations

from pathlib import Path

from tests.ui.test_host_fixit import DROPIN, back_to_host, offer, run_wizard, slow_ssh_app
from tests.ui.test_host_screen import open_host
from tests.ui.test_wizards import body_text, until
from zconsole.ui.wizards.screen import WizardScreen


async def test_the_undo_shows_its_diff_and_refuses_after_a_hand_edit(tmp_path: Path) -> None:
    app, host, before = slow_ssh_app(tmp_path)
    async with app.run_test(size=(120, 60)) as pilot:
        screen = await open_host(app, pilot)
        wz, _, typed = await run_wizard(app, pilot, "f")
        assert typed == ["UseDNS no"] and "✔ Done." in body_text(wz)
        await back_to_host(app, pilot, screen)
        assert offer(screen).startswith(f"▶ u: undo: restore {DROPIN} as it was on ")

        host.machine.files[DROPIN] += "PermitRootLogin no\n"  # the admin, by hand
        edited = host.machine.files[DROPIN]
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, WizardScreen), "the wizard")
        wz2 = app.screen
        assert isinstance(wz2, WizardScreen)
        await until(pilot, lambda: "+PermitRootLogin no" in body_text(wz2),
                    "the refusal with its diff", tries=1500)
        text = body_text(wz2)
        assert "changed since plan" in text and "undo the newest first" in text
        assert host.machine.files[DROPIN] == edited

        # the edit taken back by hand: the undo's preview shows the line it puts back
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "the Host screen")
        host.machine.files[DROPIN] = edited.replace("PermitRootLogin no\n", "")
        wz3, preview, typed = await run_wizard(app, pilot, "u")
        assert "+UseDNS yes" in preview, preview
        assert typed == ["undo"] and "✔ Done." in body_text(wz3)
        assert host.machine.files[DROPIN] == before
