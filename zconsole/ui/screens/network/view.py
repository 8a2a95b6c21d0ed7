"""The network view: findings first, then each bridge as a tree of its ports and the VLANs
on top of it (with the bridges on those VLANs), then every other interface.

Rendering is plain Rich Text built from a `NetworkView`, so the same lines read the same in
a snapshot, over tmux, and when copied into a chat during an incident.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual.containers import Vertical
from textual.widgets import Static

from zconsole.model.finding import Severity
from zconsole.model.network import Bridge, IfKind, Interface, NetworkView
from zconsole.services import fmt
from zconsole.ui.kit.levels import LEVEL_SYMBOL
from zconsole.ui.kit.text import fit

# The link state word -> level (symbol and colour); the word is always printed.
LINK_LEVEL = {"UP": "ok", "DOWN": "off", "NO-CARRIER": "bad", "LOWERLAYERDOWN": "bad",
              "NOTPRESENT": "bad", "DORMANT": "warn", "TESTING": "warn", "UNKNOWN": "warn"}
SEVERITY_SYMBOL = {Severity.CRITICAL: "✖", Severity.WARNING: "▲", Severity.INFO: "•"}
SEVERITY_LEVEL = {Severity.CRITICAL: "bad", Severity.WARNING: "warn", Severity.INFO: "ok"}
WIDE = 110  # from this width on, MAC addresses and operstate get their own columns


def link_state(state: str, colours: Mapping[str, str], width: int = 0) -> Text:
    level = LINK_LEVEL.get(state, "warn")
    symbol = "?" if state == "UNKNOWN" else LEVEL_SYMBOL[level]
    return Text(f"{symbol} {state}".ljust(width), style=colours.get(f"health-{level}", ""))


def carrier_word(c: bool | None) -> str:
    return "yes" if c is True else "no" if c is False else "?"


def kind_word(i: Interface) -> str:
    if i.kind is IfKind.VLAN:
        vid = "?" if i.vlan_id is None else str(i.vlan_id)
        return f"VLAN {vid} on {i.parent or '?'}"
    if i.kind is IfKind.OTHER and i.info_kind:
        return i.info_kind
    return i.kind.value


def addresses(i: Interface, limit: int | None = None) -> str:
    addrs = [str(a) for a in i.addresses]
    if limit is not None and len(addrs) > limit:
        addrs = addrs[:limit] + [f"+{len(addrs) - limit} more"]
    return ", ".join(addrs)


def fit_addresses(i: Interface, room: int) -> str:
    """As many whole addresses as fit in `room` columns, then "+N more"."""
    addrs = [str(a) for a in i.addresses]
    for n in range(len(addrs), 0, -1):
        text = ", ".join(addrs[:n]) + (f", +{len(addrs) - n} more" if n < len(addrs) else "")
        if len(text) <= room:
            return text
    return fit(addrs[0], room) if addrs else ""


def _default_vlans_only(b: Bridge, name: str) -> bool:
    v = b.vlans_of(name)
    return not v or (len(v) == 1 and v[0].vid == 1 and v[0].vid_end is None)


def findings_text(view: NetworkView, colours: Mapping[str, str]) -> Text:
    t = Text()
    for f in view.findings:
        if t:
            t.append("\n")
        level = SEVERITY_LEVEL[f.severity]
        style = colours.get(f"health-{level}", "") if f.severity is not Severity.INFO else ""
        t.append(f"{SEVERITY_SYMBOL[f.severity]} {f.message}", style=style)
    return t


def bridge_text(view: NetworkView, b: Bridge, colours: Mapping[str, str], width: int) -> Text:
    """One bridge: a header line, then its ports (←) and the VLANs on it (→), as a tree."""
    br = view.get(b.name)
    t = Text()
    t.append(b.name, style="bold")
    t.append("  bridge  ")
    if br is None:
        t.append("? not found")
        return t
    t.append_text(link_state(br.state, colours))
    t.append(f"  MTU {br.mtu if br.mtu is not None else '?'}")
    t.append(f"  carrier {carrier_word(br.carrier)}")
    if br.operstate != br.state:
        t.append(f"  operstate {br.operstate}")
    if br.addresses:
        t.append("\n   " + addresses(br))
    elif br.admin_up is not False and view.source == "ip":
        t.append("\n   no address", style=colours.get("muted", ""))
    vlans_on = [i for i in view.interfaces if i.kind is IfKind.VLAN and i.parent == b.name]
    rows: list[tuple[str, Interface]] = [("port", p) for p in
                                         (view.get(n) for n in b.ports) if p is not None]
    rows += [("vlan", v) for v in vlans_on]
    if not rows:
        t.append("\n└─ no ports", style=colours.get("health-warn", ""))
        return t
    name_w = max(8, min(16, max(len(i.name) for _, i in rows)))
    for n, (role, i) in enumerate(rows):
        last = n == len(rows) - 1
        t.append("\n" + ("└─ " if last else "├─ "))
        t.append("← " if role == "port" else "→ ")
        t.append(fit(i.name, name_w).ljust(name_w + 1), style="bold")
        t.append_text(link_state(i.state, colours, 14))
        mtu = "?" if i.mtu is None else str(i.mtu)
        mismatch = (role == "port" and br.mtu is not None and i.mtu is not None
                    and i.mtu != br.mtu)
        t.append(f"MTU {mtu}", style=colours.get("health-warn", "") if mismatch else "")
        t.append("≠ " if mismatch else "  ",
                 style=colours.get("health-warn", "") if mismatch else "")
        t.append(" " * max(0, 5 - len(mtu)))
        used = 3 + 2 + name_w + 1 + 14 + 4 + len(mtu) + 2 + max(0, 5 - len(mtu))
        detail: list[str] = []
        if role == "port":
            detail.append(kind_word(i))
            if not _default_vlans_only(b, i.name):
                detail.append("VLANs " + ", ".join(str(v) for v in b.vlans_of(i.name)))
        else:
            detail.append(f"VLAN {i.vlan_id if i.vlan_id is not None else '?'}")
            tops = [u for u in i.upper if u != b.name]
            if tops:
                detail.append("port of " + ", ".join(tops))
        if i.addresses:
            detail.append(addresses(i, limit=2))
        if width >= WIDE and i.mac:
            detail.append(i.mac)
        t.append(fit(" · ".join(detail), max(10, width - used - 4)),
                 style=colours.get("muted", ""))
    return t


def shown_in_bridges(view: NetworkView) -> set[str]:
    names: set[str] = set()
    for b in view.bridges:
        names.add(b.name)
        names.update(b.ports)
    names.update(i.name for i in view.interfaces
                 if i.kind is IfKind.VLAN and i.parent in view.bridge_names)
    return names


def others_text(view: NetworkView, colours: Mapping[str, str], width: int) -> Text:
    """Every interface that is not a bridge, a bridge port or a VLAN on a bridge."""
    skip = shown_in_bridges(view)
    rows = [i for i in view.interfaces if i.name not in skip]
    wide = width >= WIDE
    t = Text()
    if not rows:
        t.append("no other interfaces", style=colours.get("muted", ""))
        return t
    name_w = max(6, min(16, max(len(i.name) for i in rows)))
    kind_w = max(4, min(18, max(len(kind_word(i)) for i in rows)))
    head = f"{'NAME'.ljust(name_w + 1)}{'KIND'.ljust(kind_w + 1)}{'STATE'.ljust(14)}" \
           f"{'MTU'.ljust(6)}{'CARRIER'.ljust(8)}"
    if wide:
        head += f"{'OPERSTATE'.ljust(15)}{'MAC'.ljust(18)}"
    head += "ADDRESSES"
    t.append(head, style="bold")
    used = len(head) - len("ADDRESSES")
    for i in rows:
        t.append("\n")
        t.append(fit(i.name, name_w).ljust(name_w + 1), style="bold")
        t.append(fit(kind_word(i), kind_w).ljust(kind_w + 1))
        t.append_text(link_state(i.state, colours, 14))
        t.append(("?" if i.mtu is None else str(i.mtu)).ljust(6))
        t.append(carrier_word(i.carrier).ljust(8))
        if wide:
            t.append(i.operstate.ljust(15))
            t.append((i.mac or "-").ljust(18))
        t.append(fit_addresses(i, max(10, width - used - 2)) or "-")
    return t


class NetworkPanel(Vertical):
    """Summary, findings, failed reads, bridges, other interfaces."""

    DEFAULT_CSS = """
    NetworkPanel {
        height: auto;
    }
    NetworkPanel .net-summary {
        color: $muted;
        height: auto;
    }
    NetworkPanel .net-findings {
        height: auto;
        margin: 1 0 0 0;
    }
    NetworkPanel .net-problems {
        height: auto;
        color: $health-bad;
    }
    NetworkPanel .net-notes {
        height: auto;
        color: $muted;
    }
    NetworkPanel .net-heading {
        text-style: bold;
        color: $primary;
        margin: 1 0 0 0;
        height: 1;
    }
    NetworkPanel #net-bridges {
        height: auto;
    }
    NetworkPanel .net-bridge {
        height: auto;
        margin: 0 0 1 0;
    }
    NetworkPanel #net-others-heading {
        margin: 0;
    }
    NetworkPanel .net-others {
        height: auto;
    }
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._last: tuple[NetworkView | None, str | None, float, float | None] | None = None

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static("reading the network…", classes="net-summary", id="net-summary")
        yield Static(classes="net-findings", id="net-findings")
        yield Static(classes="net-problems", id="net-problems")
        yield Static(classes="net-notes", id="net-notes")
        yield Static("Bridges", classes="net-heading", id="net-bridges-heading")
        yield Vertical(id="net-bridges", classes="net-bridge-list")
        yield Static("Other interfaces", classes="net-heading", id="net-others-heading")
        yield Static(classes="net-others", id="net-others")

    def on_resize(self) -> None:
        if self._last is not None:
            self.show(*self._last)

    def show(self, view: NetworkView | None, error: str | None, now: float,
             error_at: float | None = None) -> None:
        """`view` is the last good read (None before the first); `error` says why the
        latest read failed, if it did."""
        self._last = (view, error, now, error_at)
        colours = self.app.get_css_variables()
        width = max(40, self.app.size.width - 4)
        problems: list[str] = []
        if error:
            tried = f" (tried {fmt.age(now - error_at)})" if error_at is not None else ""
            problems.append(f"✖ The network could not be read: {error}{tried}")
            if view is not None:
                problems.append(f"  The data below is from {fmt.age(now - view.taken_at)}.")
        summary = self.query_one("#net-summary", Static)
        if view is None:
            summary.update("reading the network…" if not error else "no network data")
            self._problems(problems)
            for wid in ("#net-findings", "#net-notes", "#net-others"):
                self.query_one(wid, Static).update("")
            self.query_one("#net-bridges-heading").display = False
            self.query_one("#net-others-heading").display = False
            self._bridges(view, colours, width)
            return
        how = "ip -j" if view.source == "ip" else "/sys/class/net"
        summary.update(f"{len(view.interfaces)} interfaces · {len(view.bridges)} bridges · "
                       f"read with {how} {fmt.age(now - view.taken_at)}")
        findings = findings_text(view, colours)
        if not view.findings and view.bridges:
            findings = Text("✔ every bridge has a working port and no MTU mismatch",
                            style=colours.get("health-ok", ""))
        self.query_one("#net-findings", Static).update(findings)
        self.query_one("#net-findings").display = bool(findings)
        problems += [f"✖ {p}" for p in view.problems]
        self._problems(problems)
        notes = self.query_one("#net-notes", Static)
        notes.update(Text("\n".join(f"• {n}" for n in view.notes)))
        notes.display = bool(view.notes)
        self.query_one("#net-bridges-heading").display = True
        self.query_one("#net-bridges-heading", Static).update(
            "Bridges" if view.bridges else "Bridges: none on this host")
        self._bridges(view, colours, width)
        self.query_one("#net-others-heading").display = True
        self.query_one("#net-others", Static).update(others_text(view, colours, width))

    def _problems(self, lines: list[str]) -> None:
        w = self.query_one("#net-problems", Static)
        w.update(Text("\n".join(lines)))
        w.display = bool(lines)

    def _bridges(self, view: NetworkView | None, colours: Mapping[str, str],
                 width: int) -> None:
        box = self.query_one("#net-bridges", Vertical)
        blocks = list(box.query(".net-bridge").results(Static))
        wanted = list(view.bridges) if view is not None else []
        for n, b in enumerate(wanted):
            text = bridge_text(view, b, colours, width) if view is not None else Text()
            if n < len(blocks):
                blocks[n].update(text)
            else:
                box.mount(Static(text, classes="net-bridge"))
        for stale in blocks[len(wanted):]:
            stale.remove()
