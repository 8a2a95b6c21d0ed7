"""Advice: what an experienced ZFS admin would point out on this host, and why.

After each refresh the screen reads the advisor's few extra properties itself
(`services/read/advice.py`, in a worker) and judges them with `services/health/advice`;
the panel (`advice_panel.py`) groups the findings by severity, each opening on enter into
its reason, its cost, the command and the evidence. `m` mutes a finding on this host with
a reason that is kept (`hosts.journal.MuteStore`, in zconsole's state directory) and shown
beside it, or unmutes it. `x` on a finding with a command opens it as a plan in the wizard
(preview, typed confirmation, re-checks, audit log), judged again on a fresh reading first;
nothing here runs a command by itself. `/` narrows the findings to those whose line holds
every word typed (`kit/filter.py`): the words hold across refreshes, escape clears them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widget import Widget

from zconsole.hosts.base import Host
from zconsole.hosts.journal import MUTES_FILE, MuteStore
from zconsole.model.advice import Advice, Mute
from zconsole.model.reading import HostReading
from zconsole.services.health.advice import advise, split_muted
from zconsole.services.read.advice import read_advice
from zconsole.ui.journal import journal_dir, keep_mutes
from zconsole.ui.kit.filter import open_filter
from zconsole.ui.kit.mute import MuteScreen
from zconsole.ui.kit.reading import PartFailed, PartLoaded
from zconsole.ui.screens.advice.advice_panel import AdviceItem, AdvicePanel
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.state import ViewState

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zconsole.services.read.smart import DiskSmart

GROUP = "advice"


def judge(host: Host, reading: HostReading, store: MuteStore,
          smart: tuple[DiskSmart, ...] = ()) -> tuple[list[Advice], tuple[Mute, ...], str]:
    """The advice (with the SMART advice of `smart`, the session's watch as it was when
    asked), the host's mutes and a note on what could not be judged (blocking: a worker
    runs it)."""
    inputs = read_advice(host, reading)
    notes = []
    if not reading.zfs.present:
        notes.append(f"Nothing judged: {reading.zfs.message}")
    if inputs.props is not None and not inputs.props.ok:
        notes.append(f"Dataset settings not judged: {inputs.props.source} failed "
                     f"({inputs.props.error}).")
    try:
        mutes = store.load(str(reading.host))
    except ValueError as e:
        mutes = ()
        notes.append(f"Muted advice not applied: {e}")
    found = advise(inputs)
    if smart:
        from zconsole.services.health.advice.smart import smart_advice

        found = sorted([*found, *smart_advice(smart, reading.disks.value)],
                       key=lambda a: -a.severity.rank)
    return found, mutes, " ".join(notes)


class AdviceScreen(ZScreen):
    MAIN = "AdviceItem"  # the first finding; the arrows move between them
    BINDINGS = [Binding("slash", "filter", "Find", show=False)]

    class Loaded(PartLoaded[tuple[list[Advice], tuple[Mute, ...], str]]):
        """The advice was judged."""

    def __init__(self, name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.advice: list[Advice] | None = None
        self.mutes: tuple[Mute, ...] = ()
        self.note = ""
        self.reads = 0
        self._read_of: HostReading | None = None
        self._ran = False  # `x` opened the wizard: read the host again on the way back

    def compose_body(self) -> ComposeResult:
        yield AdvicePanel(classes="advice")

    def show_state(self, state: ViewState) -> None:
        """Judged again when the reading changed (the host's settings are read with it)."""
        reading = state.reading
        if reading is None or reading is self._read_of:
            return
        self._read_of = reading
        smart = tuple(self.console_app.session.smart.states().values())
        self.read(self.Loaded, partial(judge, state.host, reading, self.store(), smart),
                  group=GROUP, asked_at=state.now)

    def store(self) -> MuteStore:
        return MuteStore(journal_dir(self.console_app) / MUTES_FILE)

    @property
    def host_label(self) -> str:
        reading = self._read_of
        return str(reading.host) if reading is not None else str(self.console_app.host.label)

    async def on_advice_screen_loaded(self, message: Loaded) -> None:
        self.advice, self.mutes, self.note = message.value
        self.reads += 1
        await self.redraw()

    async def on_part_failed(self, message: PartFailed) -> None:
        self.reads += 1
        self.note = f"The advice could not be read: {message.error}"
        await self.redraw()

    async def redraw(self) -> None:
        said, muted = split_muted(self.advice or (), self.mutes)
        await self.query_one(AdvicePanel).show(said if self.advice is not None else None,
                                               self.note, muted)
        self.keep_focus()  # on arrival, the first finding

    # -- `/` -------------------------------------------------------------------------------
    def action_filter(self) -> None:
        panel = self.query_one(AdvicePanel)
        was = self.focused

        def back() -> Widget | None:  # the finding that had the focus, else the first one
            if isinstance(was, AdviceItem) and was.is_attached:
                return was
            return next(iter(panel.query(AdviceItem)), None)

        def redraw() -> None:  # a key typed: the findings drawn again, after those before
            self.run_worker(self.redraw(), group="advice-filter", exclusive=False)

        open_filter(panel.filter, anchor=panel, back=back, redraw=redraw)

    def on_key(self, event: events.Key) -> None:
        """Escape on a finding clears the `/` words, as escape in their bar does."""
        if event.key == "escape" and self.query_one(AdvicePanel).filter.clear():
            event.stop()

    # -- running a command ---------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A read-only console offers no `x` (as Pools offers no wizard): the footer shows
        only keys that work."""
        return not (action == "run_advice" and self.console_app.read_only)

    def action_run_advice(self) -> None:
        """`x` on a finding: its command as a plan, in the wizard."""
        item = self.focused
        if not isinstance(item, AdviceItem):
            return
        a = item.advice
        if self.console_app.read_only:
            self.notify("Read-only console (--read-only): nothing is run from here.",
                        markup=False)
            return
        if a.action is None:
            self.notify("This advice has no command zconsole would run: read its cost.",
                        markup=False)
            return
        from zconsole.ui.wizards.fixit import open_advice

        self._ran = True
        open_advice(self.console_app, a.kind, a.action.pool, a.subject)

    def on_screen_resume(self, event: events.ScreenResume | None = None) -> None:
        if self._ran:  # back from the wizard: a new reading, judged again
            self._ran = False
            self.console_app.action_refresh()
        super().on_screen_resume(event)

    # -- muting --------------------------------------------------------------------------
    def action_mute(self) -> None:
        """`m` on a finding: mute it with a reason, or unmute a muted one."""
        item = self.focused
        if not isinstance(item, AdviceItem):
            return
        a = item.advice
        if item.muted is not None:
            self._store_change(lambda s: s.unmute(self.host_label, a.kind, a.subject),
                               tuple(m for m in self.mutes if not m.matches(a)))
            return

        def muted(reason: str | None) -> None:
            if reason:
                mute = Mute(a.kind, a.subject, reason, self.console_app.clock())
                self._store_change(lambda s: s.mute(self.host_label, mute),
                                   (*(m for m in self.mutes if not m.matches(a)), mute))

        self.app.push_screen(MuteScreen(a.message), muted)

    def _store_change(self, change: Callable[[MuteStore], None],
                      mutes: tuple[Mute, ...]) -> None:
        if not keep_mutes(self.console_app, change, mutes):
            return
        self.mutes = mutes
        self.run_worker(self.redraw(), group="advice-redraw", exclusive=True)


