"""Shared widgets: the header bar with badges, the problems panel, state rendering."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Label, Static

from zconsole.hosts.base import Host
from zconsole.model.finding import Severity
from zconsole.model.reading import HostReading
from zconsole.services.health.levels import state_severity

# Every state is a word AND a symbol; colour only reinforces it. The judgement (how bad a
# state is) is services.health.levels'; this is only the colour each severity gets.
SEVERITY_LEVEL = {Severity.OK: "ok", Severity.INFO: "off", Severity.WARNING: "warn",
                  Severity.CRITICAL: "bad", Severity.UNKNOWN: "warn"}
LEVEL_SYMBOL = {"ok": "✔", "warn": "▲", "bad": "✖", "off": "○"}


def state_level(state: str) -> str:
    return SEVERITY_LEVEL[state_severity(state)]


def state_text(state: str, colours: Mapping[str, str]) -> Text:
    severity = state_severity(state)
    level = SEVERITY_LEVEL[severity]
    symbol = severity.symbol if severity is Severity.UNKNOWN else LEVEL_SYMBOL[level]
    return Text(f"{symbol} {state}", style=colours.get(f"health-{level}", ""))


def human_bytes(n: int | None) -> str:
    if n is None:
        return "-"
    value = float(n)
    for unit in ("B", "K", "M", "G", "T", "P"):
        if abs(value) < 1024 or unit == "P":
            return f"{value:.0f}{unit}" if unit == "B" else f"{value:.1f}{unit}"
        value /= 1024
    return f"{value:.1f}E"


def human_duration(seconds: int) -> str:
    """4581 -> '1 h 16 min', 660 -> '11 min', 183845 -> '2 d 3 h'."""
    s = max(0, int(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min"
    if s < 86400:
        return f"{s // 3600} h {s % 3600 // 60:02d} min"
    return f"{s // 86400} d {s % 86400 // 3600} h"


def human_age(seconds: float) -> str:
    s = int(max(0, seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min"
    return f"{s // 3600} h {s % 3600 // 60} min"


class HeaderBar(Widget):
    """Host, versions, refresh age, and the DEMO / READ-ONLY / NOT ROOT badges."""

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Label("", id="facts")
            yield Label("DEMO", id="badge-demo", classes="badge")
            yield Label("READ-ONLY", id="badge-ro", classes="badge")
            yield Label("NOT ROOT", id="badge-notroot", classes="badge")
        with Horizontal(classes="second"):
            yield Label("", id="refresh")
            yield Label("", id="tabs")

    def show(self, *, host: Host, reading: HostReading | None, now: float,
             refreshing_since: float | None, paused: bool, read_only: bool,
             error: str | None, title: str = "",
             tabs: Sequence[tuple[str, str]] = ()) -> None:
        parts = [f"zconsole · {title}" if title else "zconsole", host.label]
        if reading is not None:
            z = reading.zfs
            if z.present and z.version:
                parts.append("OpenZFS " + ".".join(str(n) for n in z.version))
            elif z.present and z.userland:
                parts.append(f"OpenZFS {z.userland}")
            else:
                parts.append(z.message)
            if reading.kernel.value:
                parts.append(f"kernel {reading.kernel.value}")
        badges = (len(" DEMO ") + 1 if host.simulated else 0) + \
            (len(" READ-ONLY ") + 1 if read_only else 0) + \
            (len(" NOT ROOT ") + 1 if reading is not None and not reading.is_root else 0)
        room = self.app.size.width - 2 - badges
        # Drop whole facts from the end rather than cut one in the middle (a truncated
        # "kernel 6.1.0-2" reads like a different version).
        while len(parts) > 2 and len(" · ".join(parts)) > room:
            parts.pop()
        self.query_one("#facts", Label).update(" · ".join(parts))
        self.query_one("#badge-demo").display = host.simulated
        self.query_one("#badge-ro").display = read_only
        self.query_one("#badge-notroot").display = (reading is not None
                                                     and not reading.is_root)
        if reading is None:
            status = "reading the host…"
        else:
            status = f"refreshed {human_age(now - reading.taken_at)} ago"
        if refreshing_since is not None and reading is not None:
            status += f" · refreshing for {human_age(now - refreshing_since)}"
        if paused:
            status += " · PAUSED (p to resume)"
        if error:
            status += f" · last refresh failed: {error}"
        if reading is not None and not reading.is_root and reading.limitations:
            status += " · not root: " + "; ".join(reading.limitations)
        self.query_one("#refresh", Label).update(status)
        strip = Text()
        for key, name in tabs:
            strip.append(" ")
            strip.append(f" {key} {name} ", style="reverse bold" if name == title else "")
        self.query_one("#tabs", Label).update(strip)


class ProblemsPanel(Static):
    """What could not be read, and how old the data on screen is."""

    def show(self, reading: HostReading | None, error: str | None, now: float) -> None:
        lines: list[str] = []
        if error:
            lines.append(f"✖ The last refresh failed: {error}")
            if reading is not None:
                lines.append(f"  Data on screen is from {human_age(now - reading.taken_at)} "
                             "ago.")
        if reading is not None:
            for name, part in reading.failures:
                lines.append(f"✖ {name}: {part.error} (tried {human_age(part.age(now))} ago"
                             f"{'; needs root' if part.needs_root else ''})")
        self.display = bool(lines)
        self.update(Text("\n".join(lines)))
