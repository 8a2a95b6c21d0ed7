"""Advice: what an experienced ZFS admin would point out on this host, and why.

After each refresh the screen reads the advisor's few extra properties itself
(`services/read/advice.py`, in a worker) and judges them with `services/health/advice`;
the panel (`advice_panel.py`) groups the findings by severity, each opening on enter into
its reason, its cost, the command and the evidence. Nothing here runs a command.
"""

from __future__ import annotations

from functools import partial

from textual.app import ComposeResult

from zconsole.hosts.base import Host
from zconsole.model.advice import Advice
from zconsole.model.reading import HostReading
from zconsole.services.health.advice import advise
from zconsole.services.read.advice import read_advice
from zconsole.ui.kit.reading import PartFailed, PartLoaded
from zconsole.ui.screens.advice.advice_panel import AdvicePanel
from zconsole.ui.screens.base import ZScreen
from zconsole.ui.state import ViewState

GROUP = "advice"


def judge(host: Host, reading: HostReading) -> tuple[list[Advice], str]:
    """The advice and a note on what could not be judged (blocking: a worker runs it)."""
    inputs = read_advice(host, reading)
    note = ""
    if inputs.props is not None and not inputs.props.ok:
        note = (f"Dataset settings not judged: {inputs.props.source} failed "
                f"({inputs.props.error}).")
    return advise(inputs), note


class AdviceScreen(ZScreen):
    MODE = "advice"
    TITLE = "Advice"
    KEY = "8"

    class Loaded(PartLoaded[tuple[list[Advice], str]]):
        """The advice was judged."""

    def __init__(self, name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.advice: list[Advice] | None = None
        self.note = ""
        self.reads = 0
        self._read_of: HostReading | None = None

    def compose_body(self) -> ComposeResult:
        yield AdvicePanel(classes="advice")

    def show_state(self, state: ViewState) -> None:
        """Judged again when the reading changed (the host's settings are read with it)."""
        reading = state.reading
        if reading is None or reading is self._read_of:
            return
        self._read_of = reading
        self.read(self.Loaded, partial(judge, state.host, reading), group=GROUP,
                  asked_at=state.now)

    async def on_advice_screen_loaded(self, message: Loaded) -> None:
        self.advice, self.note = message.value
        self.reads += 1
        await self.query_one(AdvicePanel).show(self.advice, self.note)

    async def on_part_failed(self, message: PartFailed) -> None:
        self.reads += 1
        self.note = f"The advice could not be read: {message.error}"
        await self.query_one(AdvicePanel).show(self.advice, self.note)


