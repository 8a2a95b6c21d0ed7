"""The Pools screen's `action:` line (host text, shown literally) and its one line of what to
do for a DEGRADED/FAULTED pool, pointing at the replace key."""

from __future__ import annotations

import dataclasses

from tests.ui.conftest import make_app, settle
from zconsole.hosts.demo.host import DemoHost
from zconsole.services.health.replace import advice, candidates
from zconsole.services.read.collect import collect
from zconsole.ui.screens.pools.pool_block import pool_summary


def _entry():  # type: ignore[no-untyped-def]
    entry = collect(DemoHost("degraded", "2.3", clock=lambda: 1.7e9)).pool("tank")
    assert entry is not None and entry.status is not None
    return entry


def _text(summary, width: int = 200) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(line.plain for line in summary.lines(width))


def test_action_and_what_to_do_are_shown() -> None:
    entry = _entry()
    pool = entry.status
    todo = advice(pool, candidates(pool))
    text = _text(pool_summary(entry, todo=todo))
    assert (
        "action: Replace the faulted device, or use 'zpool clear' to mark the device "
        "repaired." in text
    )
    assert "➜ to do: Press r to replace ata-ST4000VN008-2DR166_ZGY8C3D4 (FAULTED, too many " \
           "errors; then 1 more); mirror-0 has no redundancy left." in text


def test_hostile_action_text_is_shown_literally() -> None:
    entry = _entry()
    evil = dataclasses.replace(entry.status, action="[b]x[/b] \x1b[2J\x07 done")
    text = _text(pool_summary(entry._replace(status=evil)))
    assert "action: [b]x[/b] \\x1b[2J\\x07 done" in text
    assert "\x1b" not in text and "\x07" not in text


async def test_pools_screen_points_at_r_and_read_only_says_so() -> None:
    app = make_app(scenario="degraded")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        shown = str(app.screen.query_one(".pool-summary").render())
        assert "Press r to replace" in shown
        # headed by the pool's level on the one scale: two mirrors down to one disk each
        assert "➜ ✖ CRITICAL, to do: Press r" in shown.replace("\n", " ")
    app = make_app(scenario="degraded", read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        shown = str(app.screen.query_one(".pool-summary").render())
        assert "read-only here, so not offered" in shown
