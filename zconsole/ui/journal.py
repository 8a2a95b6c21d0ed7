"""Where the console keeps a host's journal: the audit log, saved plans and mutes.

On the operator's machine: `state_dir()` (`$ZCONSOLE_STATE_DIR`, `$XDG_STATE_HOME/zconsole`
or `~/.local/state/zconsole`). Rehearsals on the demo host keep theirs in `demo_state_dir()`
(this run's own unless `--demo-state DIR` names a place), never mixed with real hosts'
history. A module of its own because the refresh worker reads the mutes from here at the
first refresh: importing the wizards for it would put the whole operation registry on the
first frame's path.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zconsole.hosts.base import Host
    from zconsole.hosts.journal import MuteStore
    from zconsole.model.advice import Mute
    from zconsole.ui.app import ZConsoleApp


def journal_dir(app: ZConsoleApp, host: Host | None = None) -> Path:
    """Where the audit log and saved plans of `host` (default: the one on screen) live."""
    from zconsole.hosts.journal import demo_state_dir, state_dir

    explicit = getattr(app, "state_directory", None)
    if explicit is not None:
        return Path(explicit)
    return demo_state_dir() if (host if host is not None else app.host).simulated else state_dir()


def read_mutes(app: ZConsoleApp, host: Host, hostname: str) -> tuple[Mute, ...] | None:
    """The host's mutes (the file `check` reads, as `m` keeps it), read in the refresh
    worker so that the monitor judges them in for every face. None when unreadable (the
    Advice screen says why)."""
    from zconsole.hosts.journal import MUTES_FILE, MuteStore, demo_state_made

    if (host.simulated and getattr(app, "state_directory", None) is None
            and not demo_state_made()):
        return ()  # this run's demo state is made at its first write: nothing muted yet
    try:
        return MuteStore(journal_dir(app, host) / MUTES_FILE).load(hostname)
    except (OSError, ValueError):
        return None


def keep_mutes(app: ZConsoleApp, change: Callable[[MuteStore], None],
               mutes: tuple[Mute, ...]) -> bool:
    """The operator muted or unmuted: `change` writes it to the host's mutes file (the one
    `check` reads), then every face judges the host with `mutes` (Pools, Fleet, check, the
    metrics). False, and the operator told why, when the file could not be written."""
    from zconsole.hosts.journal import MUTES_FILE, MuteStore

    try:
        change(MuteStore(journal_dir(app) / MUTES_FILE))
    except (OSError, ValueError) as e:
        app.notify_plain(f"Could not keep it: {e}", severity="error")
        return False
    app.set_mutes(app.current, mutes)
    return True
