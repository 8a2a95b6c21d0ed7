"""The Advice screen (key 8, palette "Screen: Advice"): the advisor's findings grouped by
severity, each opening on enter into its reason, cost, command and evidence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from tests.ui.conftest import make_app, settle
from tests.ui.test_wizards import audit, body_text, confirm_all, until, wizard_app
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.kit.header import HeaderBar
from zconsole.ui.screens.advice.advice_panel import AdviceItem
from zconsole.ui.screens.advice.screen import AdviceScreen
from zconsole.ui.wizards.phases.base import Phase
from zconsole.ui.wizards.screen import WizardScreen


@pytest.fixture(autouse=True)
def _own_state_dir(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the operator's muted advice."""
    monkeypatch.setenv("ZCONSOLE_STATE_DIR", str(tmp_path / "state"))


async def open_advice(app: ZConsoleApp, pilot: Any, *, patience: float = 10.0) -> AdviceScreen:
    await settle(app, pilot)
    await pilot.press("8")
    screen = app.screen
    assert isinstance(screen, AdviceScreen)
    for _ in range(round(patience / 0.01)):
        if screen.reads and screen.settled():
            break
        await pilot.pause(0.01)
    else:
        raise AssertionError("the advice was never read")
    await pilot.pause()
    return screen


def headings(screen: AdviceScreen) -> list[str]:
    return [str(w.render()) for w in screen.query(".advice-heading").results(Static)]


def items(screen: AdviceScreen) -> list[str]:
    return [i.body().plain for i in screen.query(AdviceItem)]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_key_8_shows_the_advice_grouped_by_severity(size: tuple[int, int]) -> None:
    app = make_app("advice")
    async with app.run_test(size=size) as pilot:
        screen = await open_advice(app, pilot)
        assert headings(screen) == ["▲ WARNING  Worth fixing (9)", "• INFO  Worth knowing (9)"]
        shown = items(screen)
        assert shown[0] == ("▸ ▲ scratch is a single disk and relies on copies=2 "
                            "(set on scratch/photos)")
        # the one scale's capacity level (health/severity.py), as `zconsole check` says it
        assert shown[5] == "▸ ▲ scratch is 86 % full"
        assert shown[6] == "▸ ▲ scratch was last scrubbed 80 d ago"
        assert shown[7] == ("▸ ▲ tank has no log device and its fsyncs wait for spinning "
                            "disks: 23.0 log blocks a second on average among tank, vmstore")
        assert shown[8] == ("▸ ▲ vmstore has no log device and its fsyncs wait for spinning "
                            "disks: 23.0 log blocks a second on average among tank, vmstore")
        assert shown[9] == "▸ • tank: mirror-0 is 86 % full, mirror-1 12 %"
        assert len(shown) == 18
        assert "Advice" in screen.query_one(HeaderBar).facts


async def focused_scrub(app: Any, pilot: Any) -> AdviceItem:
    """The Advice screen open, the focus on the scrub-age finding."""
    screen = await open_advice(app, pilot)
    scrub = [i for i in screen.query(AdviceItem) if i.advice.kind == "advice-scrub"][0]
    scrub.focus()
    return scrub


async def test_enter_opens_the_why_and_closes_it_again() -> None:
    app = make_app("advice")
    async with app.run_test(size=(80, 24)) as pilot:
        scrub = await focused_scrub(app, pilot)
        await pilot.press("enter")
        await pilot.pause()
        lines = scrub.body().plain.splitlines()
        assert lines[0] == "▾ ▲ scratch was last scrubbed 80 d ago"
        assert lines[1].startswith("    why  Only a scrub reads every block")
        assert lines[2].startswith("   cost  A scrub reads the whole pool")
        assert lines[3] == "    run  zpool scrub scratch  (x: preview, confirm, run)"
        assert lines[4:] == ["   read  last scrub finished: 80 d ago", "   read  limit: 5 weeks"]
        # the opened item is as tall as its wrapped text at 80 columns
        assert scrub.size.height == len(scrub.body().lines(scrub.content_size.width)) > 5
        await pilot.press("space")
        await pilot.pause()
        assert scrub.body().plain == "▸ ▲ scratch was last scrubbed 80 d ago"


async def test_an_opened_item_stays_open_across_a_refresh() -> None:
    app = make_app("advice")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_advice(app, pilot)
        first = screen.query(AdviceItem).first()
        first.focus()
        await pilot.press("enter")
        app.action_refresh()
        await settle(app, pilot)
        for _ in range(500):
            if screen.reads >= 2 and screen.settled():
                break
            await pilot.pause(0.01)
        assert screen.reads >= 2
        assert screen.query(AdviceItem).first().open


async def test_the_healthy_host_has_only_its_uncompressed_media() -> None:
    app = make_app("healthy", "2.1")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_advice(app, pilot)
        assert headings(screen) == ["• INFO  Worth knowing (1)"]
        assert items(screen) == ["▸ • compression is off on 1 dataset holding 2.3 TiB "
                                 "(set on tank/media)"]


async def test_hostile_names_are_shown_as_text() -> None:
    app = make_app("hostile")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_advice(app, pilot)
        for item in screen.query(AdviceItem):
            item.action_why()
        await pilot.pause()
        text = "\n".join(items(screen))
        assert "\x1b" not in text  # escapes are shown as \x1b, never sent
        assert "(the default on pool tank\\x1b]0;owned\\x07)" in text
        assert "tank\\x1b]0;owned\\x07/home[bold red]: compression=off" in text  # not markup


async def test_arrows_move_between_findings() -> None:
    app = make_app("advice")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_advice(app, pilot)
        found = list(screen.query(AdviceItem))
        found[0].focus()
        await pilot.press("down", "down")
        assert app.focused is found[2]
        await pilot.press("up")
        assert app.focused is found[1]
        await pilot.press("enter")
        assert found[1].open and not found[0].open


async def test_m_mutes_with_a_kept_reason_and_unmutes(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from textual.widgets import Input

    from zconsole.hosts.journal import MuteStore, demo_state_dir
    from zconsole.ui.kit.mute import MuteScreen

    app = make_app("advice")
    async with app.run_test(size=(80, 24)) as pilot:
        await focused_scrub(app, pilot)
        screen = app.screen
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, MuteScreen)
        await pilot.press("enter")  # no reason: nothing muted
        assert isinstance(app.screen, MuteScreen)
        app.screen.query_one(Input).value = "scratch is rebuilt every month"
        await pilot.press("enter")
        for _ in range(200):
            if "○ MUTED  Muted here (1)" in headings(screen):
                break
            await pilot.pause(0.01)
        assert headings(screen) == ["▲ WARNING  Worth fixing (8)", "• INFO  Worth knowing (9)",
                                    "○ MUTED  Muted here (1)"]
        muted = [i for i in screen.query(AdviceItem) if i.muted is not None]
        assert [i.body().plain for i in muted] == [
            "▸ ▲ scratch was last scrubbed 80 d ago\n  muted  scratch is rebuilt every month"]
        kept = MuteStore(demo_state_dir() / "advice-mutes.json").load(str(app.host.label))
        assert [(m.kind, m.subject, m.reason) for m in kept] == [
            ("advice-scrub", "scratch", "scratch is rebuilt every month")]
        # the monitor judges with it at once: Pools, Fleet, check and the metrics alike
        assert app.current.mutes == kept and app.view_state().mutes == kept
        muted[0].focus()
        await pilot.press("m")
        for _ in range(200):
            if len(headings(screen)) == 2:
                break
            await pilot.pause(0.01)
        assert headings(screen)[0] == "▲ WARNING  Worth fixing (9)"
        assert MuteStore(demo_state_dir() / "advice-mutes.json").load(
            str(app.host.label)) == ()
        assert app.current.mutes == () and app.view_state().mutes == ()


async def test_mutes_kept_before_the_start_are_read_with_the_first_refresh() -> None:
    """The console judges with the host's mutes from its first reading on (the file `check`
    reads too), not only after the Advice screen was opened."""
    from zconsole.hosts.journal import MuteStore, demo_state_dir
    from zconsole.model.advice import Mute

    app = make_app("showcase")
    mute = Mute("slow-disk", "sdx", "an SMR disk, replaced on Friday", 7.0)
    MuteStore(demo_state_dir() / "advice-mutes.json").mute(str(app.host.label), mute)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert app.current.mutes == (mute,)
        assert app.view_state().mutes == (mute,)


async def test_x_runs_the_command_as_a_plan_and_the_advice_goes(tmp_path: Path) -> None:
    """`x` on a finding with a command: judged again, the wizard's preview (the command, why,
    cost, how to take it back), the typed dataset name, the audit log; back on the screen the
    host is read again and the advice is gone."""
    app = wizard_app(tmp_path, "advice")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_advice(app, pilot)
        [atime] = [i for i in screen.query(AdviceItem) if i.advice.kind == "advice-atime"]
        atime.focus()
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, WizardScreen), "the wizard")
        wz = app.screen
        assert isinstance(wz, WizardScreen)
        await until(pilot, lambda: wz.phase is Phase.PREVIEW, "the preview", tries=1500)
        preview = body_text(wz)
        assert "zfs set relatime=on tank/mail" in preview, preview
        assert "Why: With atime=on and relatime=off every read" in preview
        assert "To take it back: zfs set relatime=off tank/mail" in preview
        assert await confirm_all(wz, pilot) == ["tank/mail"]
        await until(pilot, lambda: wz.phase is Phase.RESULT, "the result", tries=1500)
        assert "✔ Done." in body_text(wz), body_text(wz)
        host = app.host
        assert host.run(["zfs", "get", "-H", "-o", "value", "relatime", "tank/mail"]
                        ).stdout.strip() == "on"
        assert [r["argv"] for r in audit(tmp_path) if r["event"] == "command"] == [
            ["zfs", "set", "relatime=on", "tank/mail"]]
        reads = screen.reads
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is screen, "the Advice screen")
        await until(pilot, lambda: screen.reads > reads and screen.settled(),
                    "the advice judged again", tries=1500)
        assert not [i for i in screen.query(AdviceItem) if i.advice.kind == "advice-atime"]
        assert len(items(screen)) == 17


async def test_x_without_a_command_or_read_only_runs_nothing(tmp_path: Path) -> None:
    """Without a command `x` says so; a read-only console does not offer `x` at all (the
    footer shows only keys that work, as Pools shows no wizard key)."""
    from zconsole.ui.kit.footer import ZFooter

    for read_only, kind, said in (
            (False, "advice-ashift", "This advice has no command zconsole would run"),
            (True, "advice-atime", "")):
        app = wizard_app(tmp_path, "advice", read_only=read_only)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_advice(app, pilot)
            [item] = [i for i in screen.query(AdviceItem) if i.advice.kind == kind]
            item.focus()
            await pilot.pause()
            offered = {k.description for k in screen.query_one(ZFooter).keys}
            assert ("Run as a plan" in offered) is not read_only, offered
            await pilot.press("x")
            await pilot.pause()
            assert app.screen is screen
            assert not said or any(said in str(n.message) for n in app._notifications), \
                [n.message for n in app._notifications]
            if read_only:
                await pilot.press("enter")
                await pilot.pause()
                assert "(x: preview" not in item.body().plain
                assert "    run  zfs set relatime=on tank/mail" in item.body().plain
        assert audit(tmp_path) == []


def test_without_zfs_nothing_is_judged_and_it_says_why(tmp_path: Any) -> None:
    import dataclasses

    from zconsole.hosts.demo import DemoHost
    from zconsole.hosts.journal import MuteStore
    from zconsole.model.reading import ZfsInfo, ZfsPresence
    from zconsole.services.read.collect import collect
    from zconsole.ui.screens.advice.screen import judge

    host = DemoHost("advice")
    reading = dataclasses.replace(collect(host), zfs=ZfsInfo(
        ZfsPresence.NOT_INSTALLED, "OpenZFS is not installed on nas1: there is no zfs command."))
    advice, mutes, note = judge(host, reading, MuteStore(tmp_path / "m.json"))
    assert advice == [] and mutes == ()
    assert note == "Nothing judged: OpenZFS is not installed on nas1: there is no zfs command."
