"""The problems panel every screen shares: what could not be read, and how old the data is."""

from __future__ import annotations

from textual.widgets import Static

from zconsole.model.reading import HostReading
from zconsole.services import fmt
from zconsole.ui.kit.text import Hanging, Para, para


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
        lines: list[Para] = []
        if error:
            lines.append(para(f"The last refresh failed: {error}", "✖ "))
            if reading is not None:
                lines.append(para(f"Data on screen is from {fmt.age(now - reading.taken_at)}.",
                                  "  "))
        if reading is not None:
            for name, part in reading.failures:
                lines.append(para(f"{name}: {part.error} (tried {fmt.age(part.age(now))}"
                                  f"{'; needs root' if part.needs_root else ''})", "✖ "))
        self.display = bool(lines)
        self.update(Hanging(*lines))
