"""Host: the fix-it panels. Why SSH logins are slow and why the boot waits for the network,
each with its verdict, evidence and the fixes narrowest first.

The SSH panel's reverse-DNS verdict (`ssh-usedns`, a warning) offers its narrowest fix as a
plan (`f`: the wizard screen: every command, typed confirmation, run with automatic
rollback; `services.ops.fixit.ssh`); a fix applied from this console offers its undo (`u`,
itself a plan). `--read-only` offers neither.

The screen reads the host itself (`services.read.fixit`), when it is first shown and then
at most once a minute: the reads are heavier than a refresh (the journal, `sshd -T`,
`systemd-analyze`, a timed name lookup).
"""

from __future__ import annotations

import os
import time
from functools import partial

from textual.app import ComposeResult
from textual.binding import Binding

from zconsole.hosts.base import Host
from zconsole.model.finding import Severity
from zconsole.model.fixit import Diagnosis
from zconsole.model.plan import Plan
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

    BINDINGS = [
        Binding("f", "fix_ssh", "Fix SSH"),
        Binding("u", "undo_fix", "Undo fix"),
    ]

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
        self.applied: list[Plan] = []  # fixes applied from this console, not undone

    def compose_body(self) -> ComposeResult:
        for key, title in PANELS.items():
            yield FixitPanel(title, id=f"fix-{key}")

    def on_mount(self) -> None:
        self._redraw()

    def show_state(self, state: ViewState) -> None:
        self._now = state.now
        self._find_applied()
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
                self.diagnoses.get(key), self.errors.get(key), self.read_at.get(key), now,
                offers=self._offers(key))
        self.refresh_bindings()

    # -- the fix as a plan, and its undo ------------------------------------------------------
    def _find_applied(self) -> None:
        if self.console_app.read_only:
            self.applied = []
            return
        from zconsole.services.ops.fixit.ssh import applied_fixes
        from zconsole.ui.wizards.backend import store_for

        try:
            self.applied = applied_fixes(store_for(self.console_app),
                                         str(self.console_app.host.label))
        except OSError:
            self.applied = []

    def fix_offered(self) -> bool:
        d = self.diagnoses.get("ssh")
        return (not self.console_app.read_only and d is not None
                and d.verdict.kind == "ssh-usedns" and d.verdict.severity is Severity.WARNING)

    def _offers(self, key: str) -> list[str]:
        if key != "ssh":
            return []
        out = []
        if self.fix_offered():
            out.append("f: apply the first fix as a plan: every command shown first, typed "
                       "confirmation, validated (sshd -t, sshd -T), reloaded, verified by a "
                       "fresh login, rolled back if that fails; undo later with u")
        for p in self.applied[-1:]:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(p.created_at))
            f = dict(p.params).get("file", "?")
            out.append(f"u: undo: restore {f} as it was on {when}")
        return out

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "fix_ssh":
            return self.fix_offered()
        if action == "undo_fix":
            return bool(self.applied) and not self.console_app.read_only
        return True

    def action_fix_ssh(self) -> None:
        if not self.fix_offered():
            return
        from zconsole.services.ops.fixit.ssh import plan_for
        from zconsole.ui.wizards.fixit import open_fix

        self._asked = None  # back from the wizard: read the panels again
        open_fix(self.console_app, plan_for)

    def action_undo_fix(self) -> None:
        if self.console_app.read_only or not self.applied:
            return
        from zconsole.services.ops.fixit.ssh import undo_plan
        from zconsole.ui.wizards.fixit import open_fix

        fix = self.applied[-1]
        self._asked = None
        open_fix(self.console_app, lambda host: undo_plan(fix, now=host.now()), undo=True)
