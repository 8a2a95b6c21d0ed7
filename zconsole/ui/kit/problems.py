"""The problems panel every screen shares: what could not be read, and how old the data is."""

from __future__ import annotations

from textual.widgets import Static

from zconsole.model.reading import HostReading
from zconsole.services import fmt
from zconsole.ui.kit.text import Hanging, para, update_if_changed


class ProblemsPanel(Static):
    """What could not be read, and how old the data on screen is."""

    DEFAULT_CSS = """
    ProblemsPanel {
        height: auto;
        color: $health-bad;
        border: round $health-bad;
        padding: 0 1;
    }
    """

    def show(self, reading: HostReading | None, error: str | None, now: float) -> None:
        """`now`: the console's monotonic clock (`ViewState.mono`), the one ages count on."""
        items: list[tuple[str, str]] = []  # (text, lead) of each line
        if error:
            items.append((f"The last refresh failed: {error}", "✖ "))
            if reading is not None:
                items.append((f"Data on screen is from {fmt.age(reading.age(now))}.",
                              "  "))
        if reading is not None:
            for name, part in reading.failures:
                items.append((f"{name}: {part.error} (tried {fmt.age(part.age(now))}"
                               f"{'; needs root' if part.needs_root else ''})", "✖ "))
        self.display = bool(items)
        update_if_changed(self, tuple(items),
                          lambda: Hanging(*(para(text, lead) for text, lead in items)))
