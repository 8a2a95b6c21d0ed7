"""Host: the fix-it panels. Why SSH logins are slow and why the boot waits for the network,
each with its verdict, evidence and the fixes narrowest first.

The SSH panel's verdicts that a plan fixes (a warning whose fix names its plan: the reverse
DNS lookup, `services.ops.fixit.ssh`; logind not answering or a slow user manager's drop-in,
`services.ops.fixit.session`) and the boot panel's wait-online verdict
(`services.ops.fixit.boot`) each offer their narrowest fix as a plan (`f`: the wizard screen:
every command, typed confirmation, run with automatic rollback); a fix applied from this
console offers its undo (`u`, itself a plan; a logind restart has none). When both panels offer one, `f` and `u` act on the panel last chosen (the palette's
"Fix slow SSH logins" / "Fix slow boot"), else on the first. `--read-only` offers neither.

A boot fix takes effect at the next boot: the boot panel is judged with the last boot fix
applied and not undone (`services.health.fixit_boot`): pending before a reboot, then "took
120.0 s before the fix, 0.4 s this boot: fixed" or "did not help".

The screen reads the host itself (`services.read.fixit`), when it is first shown and then
at most once a minute: the reads are heavier than a refresh (the journal, `sshd -T`,
`systemd-analyze`, a timed name lookup). Back from a fix or an undo, it reads again the
panel that was fixed, at once; the other panel's reading stands, with its age, until its
minute is up (neither panel's fixes change what the other reads).
"""

from __future__ import annotations

import os
import time
from functools import partial

from textual.app import ComposeResult
from textual.binding import Binding

from zconsole.hosts.base import Host, HostError
from zconsole.model.finding import Severity
from zconsole.model.fixit import AppliedBootFix, Diagnosis
from zconsole.model.plan import Plan
from zconsole.parsers.errors import ParseError
from zconsole.services.health.boot import diagnose_boot
from zconsole.services.health.fixit import diagnose_ssh
from zconsole.services.ops.fixit.boot_choice import FixChoice
from zconsole.services.read.fixit import client_from_ssh_connection, read_boot, read_ssh
from zconsole.ui.kit.reading import PartFailed, PartLoaded
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.screens.host.fixit_panel import FixitPanel
from zconsole.ui.state import ViewState

REREAD = 60.0  # s between the screen's own reads while it is shown
PANELS = {"ssh": "Slow SSH logins", "boot": "Boot waiting for the network"}
PALETTE = {"ssh": "Fix slow SSH logins", "boot": "Fix slow boot"}
# the boot verdicts a fix-boot plan fixes (the Host screen's `f`)
BOOT_FIXABLE = ("boot-wait-online", "boot-will-wait", "boot-ifupdown")


JOURNAL_SINCE = "-2h"  # the logins judged: the last two hours of the journal


def offer(kind: str) -> str:
    """What `f` does for the fix-it `kind`, in its registry entry's words."""
    from zconsole.services.ops import registry

    spec = registry.fixit(kind)
    return spec.offer if spec is not None else f"apply {kind} as a plan"


def panel_fixit(panel: str) -> str | None:
    """The fix-it kind the registry puts on `panel` (the first, in table order)."""
    from zconsole.services.ops import registry

    return next((op.kind for op in registry.fixits()
                 if op.fixit is not None and op.fixit.panel == panel), None)


def ssh_diagnosis(host: Host, since: str = JOURNAL_SINCE) -> Diagnosis:
    """The SSH panel's read and judgement. On the host itself (zconsole run in the
    operator's SSH session) the client address is the session's own. `since`: the logins
    judged (journalctl's form; the app's `fixit_since` when set)."""
    client = None
    if host.kind == "local":
        client = client_from_ssh_connection(os.environ.get("SSH_CONNECTION"))
    return diagnose_ssh(read_ssh(host, client, since=since))


def boot_diagnosis(host: Host, applied: AppliedBootFix | None = None) -> Diagnosis:
    """The boot panel's read and judgement; `applied`: the last boot fix applied from this
    console and not undone (judged against this boot)."""
    return diagnose_boot(read_boot(host), applied)


def boot_panel(host: Host, applied: AppliedBootFix | None = None, *, fixes: bool = True
               ) -> tuple[Diagnosis, tuple[FixChoice, ...]]:
    """The boot panel's read and judgement, and, when its verdict is one a fix-boot plan
    fixes (and `fixes`: this console may change the host), the fixes to choose from (read
    from the same boot reading: netplan's version, ifupdown's files, the drop-in)."""
    r = read_boot(host)
    d = diagnose_boot(r, applied)
    if not fixes or d.verdict.severity is not Severity.WARNING or \
            d.verdict.kind not in BOOT_FIXABLE:
        return d, ()
    from zconsole.services.ops.fixit.boot_choice import read_choices

    try:
        return d, read_choices(host, r)
    except (HostError, OSError, ParseError):
        return d, ()  # `f` plans the diagnosis' choice, as before


class HostScreen(ZScreen):
    BINDINGS = [
        Binding("f", "fix", "Fix"),
        Binding("u", "undo_fix", "Undo fix"),
    ]

    class Loaded(PartLoaded[Diagnosis]):
        """A panel was read and judged (`key`: ssh or boot)."""

    class BootLoaded(PartLoaded[tuple[Diagnosis, tuple[FixChoice, ...]]]):
        """The boot panel was read and judged, with the fixes to choose from."""

    def __init__(self, name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.diagnoses: dict[str, Diagnosis] = {}
        self.errors: dict[str, str] = {}
        self.read_at: dict[str, float] = {}
        self.reads = 0
        self.reads_of: dict[str, int] = {}  # the answers each panel's reads gave (a test's)
        self._asked: float | None = None  # when every panel was last read
        self._stale: set[str] = set()  # panels to read again now (back from their fix)
        self._now = 0.0
        # fixes applied from this console and not undone, per panel, oldest first
        self.applied: dict[str, list[Plan]] = {key: [] for key in PANELS}
        self.boot_applied: AppliedBootFix | None = None  # the last one, as the panel judges it
        self.current: str | None = None  # the panel last chosen (the palette's entries)
        self.boot_choices: tuple[FixChoice, ...] = ()  # the boot's fixes, `f` lists them

    def compose_body(self) -> ComposeResult:
        for key, title in PANELS.items():
            yield FixitPanel(title, id=f"fix-{key}")

    def on_mount(self) -> None:
        self._redraw()

    def show_state(self, state: ViewState) -> None:
        self._now = state.mono  # the console's monotonic clock: the panels' ages count on it
        self._find_applied()
        self._redraw()
        if self._asked is None or state.mono - self._asked >= REREAD:
            self.read_all(state.mono)
        elif self._stale:
            self.read_all(state.mono, keys=tuple(self._stale))

    def read_all(self, now: float, keys: tuple[str, ...] = tuple(PANELS)) -> None:
        """Read the panels `keys` (every panel: the minute's read starts again)."""
        if set(keys) >= set(PANELS):
            self._asked = now
        self._stale.difference_update(keys)
        host = self.console_app.host
        if "ssh" in keys:
            since = getattr(self.console_app, "fixit_since", None) or JOURNAL_SINCE
            self.read(self.Loaded, partial(ssh_diagnosis, host, since), group="fixit-ssh",
                      key="ssh", asked_at=now)
        if "boot" in keys:
            self.read(self.BootLoaded, partial(boot_panel, host, self.boot_applied,
                                               fixes=not self.console_app.read_only),
                      group="fixit-boot", key="boot", asked_at=now)

    def reread(self) -> None:
        """Read the panels again now (after the demo's reboot)."""
        self._find_applied()
        self.read_all(max(self._now, self.console_app.mono()))

    def focus_panel(self, key: str) -> None:
        """Scroll the panel into view (the palette's "Fix slow SSH logins" / "Fix slow
        boot"); `f` and `u` then act on it."""
        self.current = key
        self._redraw()
        panel = self.query_one(f"#fix-{key}", FixitPanel)
        panel.scroll_visible(top=True, animate=False)

    def on_host_screen_boot_loaded(self, message: BootLoaded) -> None:
        self.boot_choices = message.value[1]
        self.on_host_screen_loaded(self.Loaded(message.value[0], key=message.key,
                                               asked_at=message.asked_at))

    def on_host_screen_loaded(self, message: Loaded) -> None:
        self.diagnoses[message.key] = message.value
        self.errors.pop(message.key, None)
        self.read_at[message.key] = self.console_app.mono()  # when its answer arrived
        self.reads += 1
        self.reads_of[message.key] = self.reads_of.get(message.key, 0) + 1
        self._redraw()

    def on_part_failed(self, message: PartFailed) -> None:
        self.errors[message.key] = message.error
        self.reads += 1
        self.reads_of[message.key] = self.reads_of.get(message.key, 0) + 1
        self._redraw()

    def _redraw(self) -> None:
        if not self.is_mounted:
            return
        now = max(self._now, self.console_app.mono())
        for key in PANELS:
            self.query_one(f"#fix-{key}", FixitPanel).show(
                self.diagnoses.get(key), self.errors.get(key), self.read_at.get(key), now,
                offers=self._offers(key))
        self.refresh_bindings()

    # -- the fix as a plan, and its undo ------------------------------------------------------
    def _find_applied(self) -> None:
        """Every fix-it kind of the registry, on its panel: the fixes applied and not undone
        (`Fixit.applied`); the boot panel also judges the last boot fix after a reboot."""
        self.applied = {key: [] for key in PANELS}
        self.boot_applied = None
        if self.console_app.read_only:
            return
        from zconsole.services.ops import registry
        from zconsole.services.ops.fixit import boot
        from zconsole.ui.wizards.backend import store_for

        label = str(self.console_app.host.label)
        applied: dict[str, list[Plan]] = {key: [] for key in PANELS}
        try:
            store = store_for(self.console_app)
            for op in registry.fixits():
                assert op.fixit is not None
                applied.setdefault(op.fixit.panel, []).extend(op.fixit.applied(store, label))
            records = boot.applied_records(store, label)
        except OSError:
            return
        self.applied = {key: sorted(plans, key=lambda p: p.created_at)
                        for key, plans in applied.items()}
        self.boot_applied = boot.as_applied(records[-1]) if records else None

    def fix_kind(self, key: str = "ssh") -> str | None:
        """The fix-it plan kind the panel's verdict offers (fix-ssh or fix-session for the
        SSH panel, fix-boot), None when its verdict is not a cause a plan fixes."""
        d = self.diagnoses.get(key)
        if d is None:
            return None
        if key == "ssh" and d.verdict.severity is not Severity.WARNING:
            # no cause of a slow login: an authentication method on is the one fix offered
            return next((f.plan for f in d.fixes if f.plan == "fix-ssh-auth"), None) \
                if d.verdict.severity is Severity.OK else None
        if d.verdict.severity is not Severity.WARNING:
            return None
        if key == "boot":
            return panel_fixit("boot") if d.verdict.kind in BOOT_FIXABLE else None
        return next((f.plan for f in d.fixes if f.plan), None)

    def fix_offered(self, key: str = "ssh") -> bool:
        """The panel's verdict is a cause a fix-it fixes (a warning), and this console may
        change the host."""
        return not self.console_app.read_only and self.fix_kind(key) is not None

    def _target(self, keys: list[str]) -> str | None:
        if not keys:
            return None
        return self.current if self.current in keys else keys[0]

    def fix_target(self) -> str | None:
        """The panel `f` fixes: the one chosen last if it offers a fix, else the first."""
        return self._target([k for k in PANELS if self.fix_offered(k)])

    def undo_target(self) -> str | None:
        if self.console_app.read_only:
            return None
        return self._target([k for k in PANELS if self.applied[k]])

    def _offers(self, key: str) -> list[str]:
        out = []
        kind = self.fix_kind(key)
        if kind is not None and self.fix_offered(key):
            how = "f" if self.fix_target() == key else f"f, after the palette's {PALETTE[key]!r}"
            out.append(f"{how}: {offer(kind)}")
        for p in self.applied[key][-1:]:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(p.created_at))
            how = "u" if self.undo_target() == key else f"u, after the palette's {PALETTE[key]!r}"
            what = dict(p.params).get("what") if key == "boot" else None
            if what:  # the boot fix: what it changed, in its own words
                out.append(f"{how}: undo: {what}, as applied on {when}")
            else:
                f = dict(p.params).get("file", "?")
                out.append(f"{how}: undo: restore {f} as it was on {when}")
        return out

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "fix":
            return self.fix_target() is not None
        if action == "undo_fix":
            return self.undo_target() is not None
        return True

    def action_fix(self) -> None:
        """The panel's fix-it, whatever its kind: its registry entry gives the flow and the
        plan (`open_fix`)."""
        key = self.fix_target()
        kind = self.fix_kind(key) if key is not None else None
        if key is None or kind is None:
            return
        from zconsole.ui.wizards.fixit import open_fix

        self._stale.add(key)  # back from the wizard: read the fixed panel again
        open_fix(self.console_app, kind,
                 fix_choices=self.boot_choices if key == "boot" else ())

    def action_undo_fix(self) -> None:
        """The undo of the panel's last applied fix, whatever its kind (`Fixit.undo`)."""
        key = self.undo_target()
        if key is None:
            return
        from zconsole.ui.wizards.fixit import open_fix

        fix = self.applied[key][-1]
        self._stale.add(key)
        open_fix(self.console_app, fix.kind, undo_of=fix)
