"""The console's SMART poll: after a host's refresh, when its session says SMART is due
(`SmartFollow.due`: a first poll, a disk asked for, a minute since the last), one background
worker reads what is due (`HostSession.poll_smart`) and the screens are shown the result.

Started in a thread, the first time `FIRST_DELAY_S` after the refresh that made it due
(later polls `AFTER_FRAME_S` after it, once the frame that shows it is drawn): the first
frame neither waits for nor imports the SMART read (tests/ui/test_first_frame_imports.py,
bench first_frame), and a refresh never reads SMART.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zconsole.services.monitor.member import Member
    from zconsole.ui.app import ZConsoleApp

FIRST_DELAY_S = 1.0  # the UI tests set 0 (tests/ui/conftest.py)
AFTER_FRAME_S = 0.05  # later polls: a few frames after the refresh that made them due


def poll_if_due(app: ZConsoleApp, m: Member) -> None:
    """Start `m`'s SMART poll when it is due and none is on its way."""
    smart = m.session.smart
    if smart.pending or not smart.due(m.session.clock()):
        return
    smart.pending = True
    # On the app's own timer, never `call_after_refresh`: Textual keeps that callback with the
    # screen active when it is posted, to run after that screen's next repaint, and a screen a
    # modal covers first (the resume offer at start-up) is not repainted: the poll never
    # started and `pending` stayed set (the resume-offer pictures, 1 run in 3 under load).
    delay = AFTER_FRAME_S if smart.started or FIRST_DELAY_S <= 0 else FIRST_DELAY_S
    app.set_timer(delay, partial(_start, app, m))


def _start(app: ZConsoleApp, m: Member) -> None:
    app.run_worker(partial(_poll, app, m), thread=True, exit_on_error=False,
                   group=f"smart-{id(m)}", name=f"SMART of {m.name}")


def _poll(app: ZConsoleApp, m: Member) -> None:
    smart = m.session.smart
    try:
        m.session.poll_smart()
        smart.error = ""
    except Exception as e:  # noqa: BLE001 - SMART never takes the console down
        smart.error = f"{type(e).__name__}: {e}"[:200]
    try:
        app.call_from_thread(_landed, app, m)
    except RuntimeError:  # the app is closing
        smart.pending = False


def _landed(app: ZConsoleApp, m: Member) -> None:
    """The poll ended: every face judges with the new findings (the Member's verdict is
    judged again because they changed)."""
    m.session.smart.pending = False
    screen = app.active_screen
    if screen is None:
        return
    state = app.view_state()
    if m is app.current:
        screen.show_state(state)
    else:
        screen.member_refreshed(state)
