"""`m` on the Disks screen: mute a disk's SMART findings, or unmute them (issue 30 §4).

The SMART findings an admin can knowingly live with (a cable they know about: CRC errors;
the counters of a disk already scheduled for replacement; an old failed self-test; wear)
are muted through the one mute mechanism (`severity.MUTABLE`, `hosts.journal.MuteStore`,
`check --mute`), as the Advice screen's `m` mutes advice: with a reason, kept, and judged
in by every face (Pools, Fleet, `check`, the metrics). A FAILED disk, an NVMe critical
warning and a disk too hot now are never muted (`severity.MUTABLE`). On the Disks screen a
muted finding stays in sight, dimmed, with its reason: HEALTH says "muted" when every
finding of the disk is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from zconsole.model.advice import Mute
from zconsole.model.finding import Finding
from zconsole.services.health.severity import mutable, muted_by

if TYPE_CHECKING:
    from zconsole.ui.app import ZConsoleApp

MUTED_WORD = "muted"


def live(findings: Sequence[Finding], mutes: Sequence[Mute]) -> tuple[Finding, ...]:
    """The findings no mute of the operator's covers (what the HEALTH column judges)."""
    return tuple(f for f in findings if muted_by(f, mutes) is None)


def toggle_mute(app: ZConsoleApp, disk: str, redraw: Callable[[], None]) -> None:
    """`m` on `disk`: mute its SMART findings that can be (one reason for them all), or,
    when each of them is muted already, unmute them; say so when there is nothing to mute.
    `redraw`: the screen shows the change (once kept)."""
    from zconsole.hosts.journal import MuteStore
    from zconsole.ui.journal import keep_mutes
    from zconsole.ui.kit.mute import MuteScreen

    follow = app.session.smart
    found = follow.of_disk(disk)
    can = [f for f in found if mutable(f.kind)]
    if not can:
        why = ("what SMART says of it (failed, a critical warning, too hot) is never muted"
               if found else "no SMART finding")
        app.notify_plain(f"Nothing to mute on {disk}: {why}.", severity="warning")
        return
    mutes = app.current.mutes
    host = str(app.reading.host) if app.reading is not None else str(app.host.label)
    open_ = [f for f in can if muted_by(f, mutes) is None]
    if not open_:
        def unmute(store: MuteStore) -> None:
            for f in can:
                store.unmute(host, f.kind, f.subject)

        if keep_mutes(app, unmute, tuple(m for m in mutes if not any(m.matches(f)
                                                                     for f in can))):
            redraw()
            app.notify_plain(f"{disk}: SMART unmuted.")
        return

    def muted(reason: str | None) -> None:
        if not reason:
            return
        now = app.clock()
        new = tuple(Mute(f.kind, f.subject, reason, now) for f in open_)

        def mute(store: MuteStore) -> None:
            for m in new:
                store.mute(host, m)

        kept = tuple(m for m in mutes if not any(m.matches(f) for f in open_))
        if keep_mutes(app, mute, (*kept, *new)):
            redraw()
            app.notify_plain(f"{disk}: SMART muted ({reason}).")

    app.push_screen(MuteScreen(f"{disk}: " + " ".join(f.message for f in open_)), muted)
