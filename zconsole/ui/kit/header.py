"""The header every screen shares: host, versions, refresh age, badges and the screen tabs.

One widget draws both lines. It was a bar of two rows of labels (seven widgets), and each
widget is styled, laid out and drawn on its own: about 6 ms of the first frame (issue 11).
The look is the labels' (`app.tcss`): the facts in bold with the badges at the end of the
first line, the refresh line muted with the tabs at the end of the second.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.text import Text
from textual.widget import Widget

from zconsole.hosts.base import Host
from zconsole.model.hosttext import visible
from zconsole.model.reading import HostReading
from zconsole.services import fmt

SAY_REFRESHING_AFTER = 1.0  # seconds

# The tab strip's short names, where a full strip leaves the refresh line no room (80 columns):
# "1Pools 2Disks 3Data …", htop's way ("F1Help F2Setup"): the key in the tabs' key style,
# the name right after it. A title not here is short already.
SHORT_TITLES = {"Datasets": "Data", "Network": "Net", "Timeline": "Time", "Advice": "Adv"}
STATUS_ROOM = len("refreshed 10 min ago")  # the least the refresh line keeps beside the tabs

BADGES = {"demo": "DEMO", "ro": "READ-ONLY", "notroot": "NOT ROOT"}
"""Each badge's name (its component class: `header--badge-NAME`) and text, in the order
they stand at the end of the first line."""


class HeaderBar(Widget):
    """Host, versions, refresh age, the DEMO / READ-ONLY / NOT ROOT badges and the tabs."""

    COMPONENT_CLASSES = {
        "header--facts", "header--refresh", "header--tabs",
        *(f"header--badge-{name}" for name in BADGES),
    }

    def __init__(self, *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.facts = ""  # what the first line says (host text shown visibly: plain)
        self.status = ""  # the refresh line
        self.badges: tuple[str, ...] = ()  # the names of the badges shown, in order
        # the tabs, this screen's title, and how they are written: "full", "short", "keys"
        self._tabs: tuple[tuple[tuple[str, str], ...], str, str] = ((), "", "full")
        self._shown: object = None

    @property
    def tabs(self) -> str:
        """The tab strip as it reads."""
        return self._strip().plain

    def badge_text(self, name: str) -> str:
        return BADGES[name]

    def show(self, *, host: Host, reading: HostReading | None, now: float,
             refreshing_since: float | None, paused: bool, read_only: bool,
             error: str | None, title: str = "",
             tabs: Sequence[tuple[str, str]] = (), name: str | None = None) -> None:
        """`name`: the host's name in the hosts file, shown before its ssh destination
        when they differ ("nas1 (root@10.0.0.5)"). `now` is the console's monotonic clock
        (`ViewState.mono`): the reading's age and the refresh's are counted on it, and how far
        the host's own clock is off is said beside them ("host clock 1 h 0 min behind")."""
        where = host.label if not name or name == host.label else f"{name} ({host.label})"
        parts = [f"zconsole · {title}" if title else "zconsole", where]
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
        shown = (("demo",) if host.kind == "demo" else ()) + \
            (("ro",) if read_only else ()) + \
            (("notroot",) if reading is not None and reading.reached and not reading.is_root
             else ())
        room = self.app.size.width - 2 - self._badges_width(shown)
        # Drop whole facts from the end rather than cut one in the middle (a truncated
        # "kernel 6.1.0-2" reads like a different version).
        while len(parts) > 2 and len(" · ".join(parts)) > room:
            parts.pop()
        facts = visible(" · ".join(parts))
        if reading is None:
            status = "reading the host…"
        else:
            status = f"refreshed {fmt.age(reading.age(now))}"
            off = fmt.clock_offset(reading.clock_offset)
            if off:
                status += f" · {off}"
        if (refreshing_since is not None and reading is not None
                and now - refreshing_since >= SAY_REFRESHING_AFTER):
            # a refresh that ends within a second is not announced: the line would change
            # twice per refresh (and the screen be drawn twice) to say nothing
            status += f" · refreshing for {fmt.duration(now - refreshing_since)}"
        if paused:
            status += " · PAUSED (p to resume)"
        if error:
            status += f" · last refresh failed: {error}"
        if reading is not None and not reading.is_root and reading.limitations:
            status += " · not root: " + "; ".join(reading.limitations)
        # Every tab with its name when that leaves the refresh line room to say what it
        # says (its age at the least); else short names; else the keys alone and the name
        # of this screen's tab: "PAUSED" or a failed refresh matters more than the other
        # tabs' names.
        room = self.app.size.width - 2 - max(len(status), STATUS_ROOM)
        style = next((s for s in ("full", "short")
                      if self._strip((tuple(tabs), title, s)).cell_len <= room), "keys")
        self.facts, self.status, self.badges = facts, visible(status), shown
        self._tabs = (tuple(tabs), title, style)
        key = (self.facts, self.status, self.badges, self._tabs)
        if key != self._shown:  # two lines of a fixed height: drawn again, never laid out
            self._shown = key
            self.refresh()

    @staticmethod
    def _badges_width(names: Sequence[str]) -> int:
        """Cells the badges take: a cell of the bar, then the text padded by a cell."""
        return sum(cell_len(BADGES[n]) + 3 for n in names)

    def _strip(self, shown: tuple[tuple[tuple[str, str], ...], str, str] | None = None
               ) -> Text:
        tabs, title, style = shown or self._tabs
        out = Text()
        for key, name in tabs:
            if name == title:
                out.append(" ")
                short = SHORT_TITLES.get(name, name) if style == "short" else name
                out.append(f" {key} {short} ", style="reverse bold")
            elif style == "full":
                out.append(f"  {key} {name} ")
            elif style == "short":
                out.append(" ")
                out.append(key, style="bold underline")
                out.append(SHORT_TITLES.get(name, name))
            else:
                out.append(f"  {key}")
        return out

    def render(self) -> Text:
        width = self.content_size.width
        first = Text(self.facts, style=self.get_component_rich_style("header--facts"),
                     no_wrap=True, overflow="crop", end="")
        first.truncate(max(0, width - self._badges_width(self.badges)), pad=True)
        for name in self.badges:
            first.append(" ")
            first.append(f" {BADGES[name]} ",
                         self.get_component_rich_style(f"header--badge-{name}"))
        tabs = self._strip()
        tabs.stylize_before(self.get_component_rich_style("header--tabs"))
        second = Text(self.status, style=self.get_component_rich_style("header--refresh"),
                      no_wrap=True, overflow="crop", end="")
        second.truncate(max(0, width - tabs.cell_len), pad=True)
        second.append_text(tabs)
        out = Text(no_wrap=True, overflow="crop", end="")
        out.append_text(first)
        out.append("\n")
        out.append_text(second)
        return out
