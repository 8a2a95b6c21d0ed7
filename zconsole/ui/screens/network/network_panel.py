"""The Network screen's body: findings first, then each bridge as a tree of its ports and the
VLANs on top of it (with the bridges on those VLANs), then every other interface.

Rendering is plain text built from a `NetworkView`, so the same lines read the same in a
snapshot, over tmux, and when copied into a chat during an incident. Interface names,
addresses and MACs are host text (`kit.text.plain`); colours are theme variables.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from zconsole.model.finding import Severity
from zconsole.model.network import Bridge, IfKind, Interface, NetworkView
from zconsole.services import fmt
from zconsole.ui.kit.levels import LEVEL_STYLE, LEVEL_SYMBOL, SEVERITY_LEVEL
from zconsole.ui.kit.text import Hanging, Para, fit, para, plain

# The link state word -> level (symbol and colour); the word is always printed.
LINK_LEVEL = {"UP": "ok", "DOWN": "off", "NO-CARRIER": "bad", "LOWERLAYERDOWN": "bad",
              "NOTPRESENT": "bad", "DORMANT": "warn", "TESTING": "warn", "UNKNOWN": "warn"}
WIDE = 110  # from this width on, MAC addresses and operstate get their own columns
MUTED = LEVEL_STYLE["muted"]
WARN = LEVEL_STYLE["warn"]


def link_state(state: str, width: int = 0) -> Content:
    level = LINK_LEVEL.get(state, "warn")
    symbol = "?" if state == "UNKNOWN" else LEVEL_SYMBOL[level]
    return plain(f"{symbol} {state}".ljust(width), LEVEL_STYLE[level])


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


def findings_text(view: NetworkView) -> Hanging:
    return Hanging(*(para(f.message, f"{f.severity.symbol} ",
                          "" if f.severity is Severity.INFO
                          else LEVEL_STYLE[SEVERITY_LEVEL[f.severity]])
                     for f in view.findings))


def bridge_head(view: NetworkView, b: Bridge) -> tuple[list[Content | str], Interface | None]:
    """A bridge's header line (name, state, MTU, carrier) and its address line."""
    br = view.get(b.name)
    parts: list[Content | str] = [plain(b.name, "bold"), "  bridge  "]
    if br is None:
        parts.append("? not found")
        return parts, None
    parts.append(link_state(br.state))
    parts.append(f"  MTU {br.mtu if br.mtu is not None else '?'}")
    parts.append(f"  carrier {carrier_word(br.carrier)}")
    if br.operstate != br.state:
        parts.append(plain(f"  operstate {br.operstate}"))
    if br.addresses:
        parts.append(plain("\n   " + addresses(br)))
    elif br.admin_up is not False and view.source == "ip":
        parts.append(Content.styled("\n   no address", MUTED))
    return parts, br


def member_line(b: Bridge, br: Interface, role: str, i: Interface, last: bool, name_w: int,
                width: int) -> list[Content | str]:
    """One port (←) or VLAN on the bridge (→): name, state, MTU (≠ when it differs from the
    bridge's), and what it is."""
    parts: list[Content | str] = ["\n" + ("└─ " if last else "├─ "),
                                  "← " if role == "port" else "→ ",
                                  plain(fit(i.name, name_w).ljust(name_w + 1), "bold"),
                                  link_state(i.state, 14)]
    mtu = "?" if i.mtu is None else str(i.mtu)
    mismatch = role == "port" and br.mtu is not None and i.mtu is not None and i.mtu != br.mtu
    parts.append(Content.styled(f"MTU {mtu}", WARN if mismatch else ""))
    parts.append(Content.styled("≠ ", WARN) if mismatch else "  ")
    parts.append(" " * max(0, 5 - len(mtu)))
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
    parts.append(plain(fit(" · ".join(detail), max(10, width - used - 4)), MUTED))
    return parts


def bridge_text(view: NetworkView, b: Bridge, width: int) -> Content:
    """One bridge: a header line, then its ports (←) and the VLANs on it (→), as a tree."""
    parts, br = bridge_head(view, b)
    if br is None:
        return Content.assemble(*parts)
    vlans_on = [i for i in view.interfaces if i.kind is IfKind.VLAN and i.parent == b.name]
    rows: list[tuple[str, Interface]] = [("port", p) for p in
                                         (view.get(n) for n in b.ports) if p is not None]
    rows += [("vlan", v) for v in vlans_on]
    if not rows:
        parts.append(Content.styled("\n└─ no ports", WARN))
        return Content.assemble(*parts)
    name_w = max(8, min(16, max(len(i.name) for _, i in rows)))
    for n, (role, i) in enumerate(rows):
        parts += member_line(b, br, role, i, n == len(rows) - 1, name_w, width)
    return Content.assemble(*parts)


def shown_in_bridges(view: NetworkView) -> set[str]:
    names: set[str] = set()
    for b in view.bridges:
        names.add(b.name)
        names.update(b.ports)
    names.update(i.name for i in view.interfaces
                 if i.kind is IfKind.VLAN and i.parent in view.bridge_names)
    return names


def others_text(view: NetworkView, width: int) -> Content:
    """Every interface that is not a bridge, a bridge port or a VLAN on a bridge."""
    skip = shown_in_bridges(view)
    rows = [i for i in view.interfaces if i.name not in skip]
    wide = width >= WIDE
    if not rows:
        return Content.styled("no other interfaces", MUTED)
    name_w = max(6, min(16, max(len(i.name) for i in rows)))
    kind_w = max(4, min(18, max(len(kind_word(i)) for i in rows)))
    head = f"{'NAME'.ljust(name_w + 1)}{'KIND'.ljust(kind_w + 1)}{'STATE'.ljust(14)}" \
           f"{'MTU'.ljust(6)}{'CARRIER'.ljust(8)}"
    if wide:
        head += f"{'OPERSTATE'.ljust(15)}{'MAC'.ljust(18)}"
    head += "ADDRESSES"
    parts: list[Content | str] = [Content.styled(head, "bold")]
    used = len(head) - len("ADDRESSES")
    for i in rows:
        parts += ["\n", plain(fit(i.name, name_w).ljust(name_w + 1), "bold"),
                  plain(fit(kind_word(i), kind_w).ljust(kind_w + 1)), link_state(i.state, 14),
                  ("?" if i.mtu is None else str(i.mtu)).ljust(6),
                  carrier_word(i.carrier).ljust(8)]
        if wide:
            parts += [plain(i.operstate.ljust(15)), plain((i.mac or "-").ljust(18))]
        parts.append(plain(fit_addresses(i, max(10, width - used - 2)) or "-"))
    return Content.assemble(*parts)


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

    def __init__(self, *, name: str | None = None, id: str | None = None,
                 classes: str | None = None, disabled: bool = False) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._last: tuple[NetworkView | None, str | None, float, float | None,
                          float | None] | None = None

    def compose(self) -> ComposeResult:
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
             error_at: float | None = None, seen: float | None = None) -> None:
        """`view` is the last good read (None before the first); `error` says why the
        latest read failed, if it did. `now`, `error_at` and `seen` (when `view` arrived)
        are the console's monotonic clock: ages on one clock, never the host's."""
        self._last = (view, error, now, error_at, seen)
        view_age = fmt.age(now - seen if seen is not None else 0.0)
        width = max(40, self.app.size.width - 4)
        problems: list[Para] = []
        if error:
            tried = f" (tried {fmt.age(now - error_at)})" if error_at is not None else ""
            problems.append(para(f"The network could not be read: {error}{tried}", "✖ "))
            if view is not None:
                problems.append(para(f"The data below is from {view_age}.",
                                     "  "))
        summary = self.query_one("#net-summary", Static)
        if view is None:
            summary.update("reading the network…" if not error else "no network data")
            self._problems(problems)
            for wid in ("#net-findings", "#net-notes", "#net-others"):
                self.query_one(wid, Static).update("")
            self.query_one("#net-bridges-heading").display = False
            self.query_one("#net-others-heading").display = False
            self._bridges(view, width)
            return
        how = "ip -j" if view.source == "ip" else "/sys/class/net"
        summary.update(plain(f"{len(view.interfaces)} interfaces · {len(view.bridges)} "
                             f"bridges · read with {how} {view_age}"))
        findings = self.query_one("#net-findings", Static)
        if not view.findings and view.bridges:
            findings.update(Content.styled("✔ every bridge has a working port and no MTU "
                                           "mismatch", LEVEL_STYLE["ok"]))
        else:
            findings.update(findings_text(view))
        findings.display = bool(view.findings or view.bridges)
        problems += [para(p, "✖ ") for p in view.problems]
        self._problems(problems)
        notes = self.query_one("#net-notes", Static)
        notes.update(Hanging(*(para(n, "• ") for n in view.notes)))
        notes.display = bool(view.notes)
        self.query_one("#net-bridges-heading").display = True
        self.query_one("#net-bridges-heading", Static).update(
            "Bridges" if view.bridges else "Bridges: none on this host")
        self._bridges(view, width)
        self.query_one("#net-others-heading").display = True
        self.query_one("#net-others", Static).update(others_text(view, width))

    def _problems(self, lines: list[Para]) -> None:
        w = self.query_one("#net-problems", Static)
        w.update(Hanging(*lines))
        w.display = bool(lines)

    def _bridges(self, view: NetworkView | None, width: int) -> None:
        box = self.query_one("#net-bridges", Vertical)
        blocks = list(box.query(".net-bridge").results(Static))
        wanted = list(view.bridges) if view is not None else []
        for n, b in enumerate(wanted):
            text = bridge_text(view, b, width) if view is not None else Content()
            if n < len(blocks):
                blocks[n].update(text)
            else:
                box.mount(Static(text, classes="net-bridge"))
        for stale in blocks[len(wanted):]:
            stale.remove()
