"""The header every screen shares: host, versions, refresh age, badges and the screen tabs."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Label

from zconsole.hosts.base import Host
from zconsole.model.reading import HostReading
from zconsole.services import fmt
from zconsole.ui.kit.text import plain, update_if_changed

SAY_REFRESHING_AFTER = 1.0  # seconds


class HeaderBar(Widget):
    """Host, versions, refresh age, and the DEMO / READ-ONLY / NOT ROOT badges."""

    def compose(self) -> ComposeResult:
        # READ-ONLY only in a read-only console (it stays one); NOT ROOT mounted the first
        # time a reading says so (`show`): hidden labels are work in every first frame
        with Horizontal(classes="first"):
            yield Label("", id="facts")
            yield Label("DEMO", id="badge-demo", classes="badge")
            if getattr(self.app, "read_only", False):
                yield Label("READ-ONLY", id="badge-ro", classes="badge")
        with Horizontal(classes="second"):
            yield Label("", id="refresh")
            yield Label("", id="tabs")

    def _badge(self, badge_id: str, text: str, shown: bool) -> None:
        """Show or hide a badge; one not made yet is mounted after the others when shown."""
        made = self.query(f"#{badge_id}")
        if made:
            made.first().display = shown
        elif shown:
            self.query_one(".first", Horizontal).mount(
                Label(text, id=badge_id, classes="badge"))

    def show(self, *, host: Host, reading: HostReading | None, now: float,
             refreshing_since: float | None, paused: bool, read_only: bool,
             error: str | None, title: str = "",
             tabs: Sequence[tuple[str, str]] = (), name: str | None = None) -> None:
        """`name`: the host's name in the hosts file, shown before its ssh destination
        when they differ ("nas1 (root@10.0.0.5)")."""
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
        badges = (len(" DEMO ") + 1 if host.kind == "demo" else 0) + \
            (len(" READ-ONLY ") + 1 if read_only else 0) + \
            (len(" NOT ROOT ") + 1 if reading is not None and not reading.is_root else 0)
        room = self.app.size.width - 2 - badges
        # Drop whole facts from the end rather than cut one in the middle (a truncated
        # "kernel 6.1.0-2" reads like a different version).
        while len(parts) > 2 and len(" · ".join(parts)) > room:
            parts.pop()
        facts = " · ".join(parts)
        update_if_changed(self.query_one("#facts", Label), facts, lambda: plain(facts),
                          layout=False)
        self.query_one("#badge-demo").display = host.kind == "demo"
        self._badge("badge-ro", "READ-ONLY", read_only)
        self._badge("badge-notroot", "NOT ROOT", reading is not None and not reading.is_root)
        if reading is None:
            status = "reading the host…"
        else:
            status = f"refreshed {fmt.age(now - reading.taken_at)}"
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
        # the two lines' labels have a fixed size (app.tcss): a new text needs no layout
        update_if_changed(self.query_one("#refresh", Label), status, lambda: plain(status),
                          layout=False)
        # Every tab with its name when that leaves the refresh line room to say its age;
        # else the keys alone and the name of this screen's tab.
        full = sum(len(name) + 5 for _, name in tabs)
        compact = full + len("refreshed 10 min ago") > self.app.size.width - 2

        def strip() -> Text:
            out = Text()
            for key, name in tabs:
                out.append(" ")
                here = name == title
                label = f" {key} {name} " if here or not compact else f" {key}"
                out.append(label, style="reverse bold" if here else "")
            return out

        update_if_changed(self.query_one("#tabs", Label), (tuple(tabs), title, compact), strip)
