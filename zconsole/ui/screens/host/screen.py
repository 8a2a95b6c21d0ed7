"""Host: the fix-it panels. Why SSH logins are slow and why the boot waits for the network,
each with its verdict, evidence and the fixes narrowest first (shown, not applied).

The screen reads the host itself (`services.read.fixit`), when it is first shown and then
at most once a minute: the reads are heavier than a refresh (the journal, `sshd -T`,
`systemd-analyze`, a timed name lookup).
"""

from __future__ import annotations

import os
from functools import partial

from textual.app import ComposeResult

from zconsole.hosts.base import Host
from zconsole.model.fixit import Diagnosis
from zconsole.services.health.fixit import diagnose_boot, diagnose_ssh
from zconsole.services.read.fixit import client_from_ssh_connection, read_boot, read_ssh
from zconsole.ui.kit.reading import PartFailed, PartLoaded
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.screens.host.fixit_panel import FixitPanel
from zconsole.ui.state import ViewState

REREAD = 60.0  # s between the screen's own reads while it is shown
PANELS = {"ssh": "Slow SSH logins", "boot": "Boot waiting for the network"}


def ssh_diagnosis(host: Host) -> Diagnosis:
    """The SSH panel's read and judgement. On the host itself (zconsole run in the
    operator's SSH session) the client address is the session's own."""
    client = None
    if host.kind == "local":
        client = client_from_ssh_connection(os.environ.get("SSH_CONNECTION"))
    return diagnose_ssh(read_ssh(host, client))


def boot_diagnosis(host: Host) -> Diagnosis:
    return diagnose_boot(read_boot(host))


class HostScreen(ZScreen):
    MODE = "host"
    TITLE = "Host"
    KEY = "6"

    class Loaded(PartLoaded[Diagnosis]):
        """A panel was read and judged (`key`: ssh or boot)."""

    def __init__(self, name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.diagnoses: dict[str, Diagnosis] = {}
        self.errors: dict[str, str] = {}
        self.read_at: dict[str, float] = {}
        self.reads = 0
        self._asked: float | None = None
        self._now = 0.0

    def compose_body(self) -> ComposeResult:
        for key, title in PANELS.items():
            yield FixitPanel(title, id=f"fix-{key}")

    def on_mount(self) -> None:
        self._redraw()

    def show_state(self, state: ViewState) -> None:
        self._now = state.now
        self._redraw()
        if self._asked is None or state.now - self._asked >= REREAD:
            self.read_all(state.now)

    def read_all(self, now: float) -> None:
        self._asked = now
        host = self.console_app.host
        self.read(self.Loaded, partial(ssh_diagnosis, host), group="fixit-ssh", key="ssh",
                  asked_at=now)
        self.read(self.Loaded, partial(boot_diagnosis, host), group="fixit-boot",
                  key="boot", asked_at=now)

    def focus_panel(self, key: str) -> None:
        """Scroll the panel into view (the palette's "Fix slow SSH logins" / "Fix slow
        boot")."""
        panel = self.query_one(f"#fix-{key}", FixitPanel)
        panel.scroll_visible(top=True, animate=False)

    def on_host_screen_loaded(self, message: Loaded) -> None:
        self.diagnoses[message.key] = message.value
        self.errors.pop(message.key, None)
        self.read_at[message.key] = message.asked_at
        self.reads += 1
        self._redraw()

    def on_part_failed(self, message: PartFailed) -> None:
        self.errors[message.key] = message.error
        self.reads += 1
        self._redraw()

    def _redraw(self) -> None:
        if not self.is_mounted:
            return
        now = max(self._now, self.console_app.clock())
        for key in PANELS:
            self.query_one(f"#fix-{key}", FixitPanel).show(
                self.diagnoses.get(key), self.errors.get(key), self.read_at.get(key), now)
