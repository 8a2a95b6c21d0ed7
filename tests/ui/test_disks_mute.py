"""`m` on the Disks screen at 80x24: the SMART findings of a disk the admin knowingly keeps
(the shelf disk sdm's pending and reallocated sectors) are muted with a reason through the
one mute mechanism (the file `check` reads), judged out of the host's verdict, and shown
dimmed with the reason; `m` again unmutes them. A disk with nothing to mute says so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.ui.test_disks_screen import open_disks, select
from tests.ui.test_disks_smart import first_smart_poll, smart_text
from tests.ui.test_wizards import until, wizard_app
from zconsole.hosts.journal import MUTES_FILE, MuteStore
from zconsole.model.finding import Severity
from zconsole.ui.kit.mute import MuteScreen
from zconsole.ui.screens.disks.disk_table import DisksTable


def flat(text: str) -> str:
    return " ".join(text.split())


async def test_m_mutes_a_disks_smart_with_a_reason_and_m_again_unmutes(
        tmp_path: Path) -> None:
    app = wizard_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_disks(app, pilot)
        await first_smart_poll(app, pilot)
        await pilot.pause()
        await select(app, pilot, "sdm")
        smart = app.session.smart
        table = app.screen.query_one(DisksTable)
        level, word = table.health_words("sdm")
        assert level is Severity.WARNING and "pending" in word, word
        found = smart.of_disk("sdm")
        assert found and all(f.severity is Severity.WARNING for f in found)
        before = app.current.verdict_at()
        assert any(f.subject == "sdm" for f in before.findings)

        await pilot.press("m")
        await until(pilot, lambda: isinstance(app.screen, MuteScreen), "the reason asked")
        await pilot.press(*"on the RMA shelf")
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, MuteScreen), "back on Disks")
        await pilot.pause()
        kept = MuteStore(tmp_path / MUTES_FILE).load(str(app.reading.host))
        assert sorted((m.kind, m.subject, m.reason) for m in kept) == sorted(
            (f.kind, "sdm", "on the RMA shelf") for f in found)
        assert table.health_words("sdm") == (None, "muted")
        assert "Muted: on the RMA shelf" in flat(smart_text(app))
        after = app.current.verdict_at()
        assert not any(f.subject == "sdm" for f in after.findings)
        assert {f.kind for f, _ in after.muted if f.subject == "sdm"} == {f.kind for f in found}
        # another disk's finding is untouched
        assert table.health_words("sdb")[0] is Severity.WARNING

        await pilot.press("m")  # every finding muted: unmute
        await pilot.pause()
        assert not isinstance(app.screen, MuteScreen)
        assert MuteStore(tmp_path / MUTES_FILE).load(str(app.reading.host)) == ()
        assert table.health_words("sdm")[0] is Severity.WARNING
        assert any(f.subject == "sdm" for f in app.current.verdict_at().findings)


async def test_m_on_a_disk_with_nothing_to_mute_says_so(tmp_path: Path) -> None:
    app = wizard_app(tmp_path)
    notes: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await open_disks(app, pilot)
        await first_smart_poll(app, pilot)
        real = app.notify

        def note(message: str, *a: Any, **kw: Any) -> None:
            notes.append(message)
            real(message, *a, **kw)

        app.notify = note  # type: ignore[method-assign]
        await select(app, pilot, "sdh")
        await pilot.press("m")
        await pilot.pause()
        assert not isinstance(app.screen, MuteScreen)
        assert notes == ["Nothing to mute on sdh: no SMART finding."]
        assert not (tmp_path / MUTES_FILE).exists()
