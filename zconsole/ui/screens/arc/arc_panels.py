"""The ARC screen's body: one compact panel per area (size bar, hit ratio with its trend, demand vs
prefetch, MRU/MFU, L2ARC, memory throttle), each with its plain sentence, and a table of the
figures. Everything shown comes from `services.read.arc.ArcReport`; this module only draws it.

The hit-ratio trend is drawn on a fixed 0-100 % scale, one bar per refresh. Textual's
`Sparkline` rescales to the min..max of its data, which would draw a 97.1 -> 97.4 % wobble
as a collapse; on a screen shared during an incident that is worse than no trend at all.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Container, Vertical
from textual.content import Content
from textual.widgets import Static

from zconsole.services import fmt
from zconsole.services.health.arc import ArcArea, ArcReport
from zconsole.ui.kit.levels import LEVEL_STYLE, LEVEL_SYMBOL, LevelTable
from zconsole.ui.kit.text import plain, spark

BAR_WIDTH = 40  # at most; narrower when the panel is (the legend follows on the same line)
BAR_LEGEND = 34
SPARK_WIDTH = 40
TABLE_COLUMNS = ("FIGURE", "VALUE", "FIELD SET")
# From this body width on, the figures table sits beside the panels instead of below them.
WIDE_FROM = 106


def size_bar(size_of_max: float | None, target_of_max: float | None,
             width: int = BAR_WIDTH) -> tuple[str, str]:
    """(filled, rest) of a bar whose full width is c_max: `█` up to the size, `┃` at the
    target (c), `░` for the room left up to c_max."""
    if size_of_max is None:
        return "", "░" * width
    fill = max(0, min(width, round(size_of_max * width)))
    cells = ["█"] * fill + ["░"] * (width - fill)
    if target_of_max is not None:
        at = max(0, min(width - 1, round(target_of_max * width) - 1))
        cells[at] = "┃"
    text = "".join(cells)
    return text[:fill], text[fill:]


def area_title(area: ArcArea) -> Content:
    title = Content.styled(area.title, "bold")
    if not area.state:
        return title
    symbol = LEVEL_SYMBOL.get(area.level, "?")
    return Content.assemble(title, "  ", Content.styled(f"{symbol} {area.state}",
                                                        LEVEL_STYLE.get(area.level, "")))


def size_picture(report: ArcReport, width: int) -> Content:
    filled, rest = size_bar(report.size_of_max, report.target_of_max, width)
    return Content.assemble((filled, LEVEL_STYLE["primary"]), (rest, LEVEL_STYLE["muted"]),
                            (f" size {fmt.pct(report.size_of_max)} of c_max, ┃ target",
                             LEVEL_STYLE["muted"]))


def hits_picture(report: ArcReport) -> Content:
    if not report.hit_series:
        return Content.styled("(no intervals yet)", LEVEL_STYLE["muted"])
    return Content.assemble((spark(report.hit_series, SPARK_WIDTH, 1.0), LEVEL_STYLE["primary"]),
                            ("  0-100 %, one bar per refresh, · no reads",
                             LEVEL_STYLE["muted"]))


class ArcPanel(Static):
    """One area: the title with its state word and symbol, an optional picture line, the
    sentence."""

    DEFAULT_CSS = """
    ArcPanel {
        height: auto;
        margin: 0 0 1 0;
    }
    """

    def __init__(self, key: str) -> None:
        super().__init__(id=f"arc-{key}", classes="arc-panel")
        self.key = key
        self.sentence = ""

    def show(self, area: ArcArea, picture: Content | None = None) -> None:
        self.sentence = area.sentence
        lines = [area_title(area)]
        if picture is not None:
            lines.append(picture)
        lines.append(plain(area.sentence))
        self.update(Content("\n").join(lines))


class ArcView(Container):
    """All ARC panels and the figures table. `show(report)` redraws from one report."""

    DEFAULT_CSS = """
    ArcView {
        height: auto;
        layout: vertical;
    }
    ArcView .arc-notice {
        height: auto;
        color: $health-warn;
        margin: 0 0 1 0;
    }
    ArcView .arc-unreadable {
        height: auto;
        color: $health-bad;
    }
    ArcView #arc-panels {
        height: auto;
    }
    ArcView #arc-figures {
        height: auto;
        width: auto;
        margin: 0 0 1 0;
    }
    ArcView .arc-caption {
        height: auto;
        color: $muted;
    }
    ArcView.-wide {
        layout: horizontal;
    }
    ArcView.-wide #arc-panels {
        width: 1fr;
        margin: 0 2 0 0;
    }
    ArcView.-wide #arc-side {
        width: auto;
        height: auto;
    }
    ArcView #arc-side {
        height: auto;
    }
    """

    AREAS = ("size", "hits", "demand", "lists", "l2arc", "throttle")

    def compose(self) -> ComposeResult:
        with Vertical(id="arc-panels"):
            yield Static("", classes="arc-notice", id="arc-notice")
            yield Static("", classes="arc-unreadable", id="arc-unreadable")
            for key in self.AREAS:
                yield ArcPanel(key)
        with Vertical(id="arc-side"):
            yield Static("", classes="arc-caption", id="arc-figures-caption")
            table = LevelTable(id="arc-figures", show_cursor=False, zebra_stripes=False)
            table.can_focus = False
            yield table

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width >= WIDE_FROM, "-wide")

    def on_mount(self) -> None:
        table = self.table
        table.add_columns(*TABLE_COLUMNS)
        self._set_readable(False)
        self.query_one("#arc-unreadable", Static).update("ARC: waiting for the first refresh.")
        self.query_one("#arc-notice", Static).display = False

    @property
    def table(self) -> LevelTable:
        return self.query_one("#arc-figures", LevelTable)

    def _set_readable(self, readable: bool) -> None:
        for p in self.query(ArcPanel):
            p.display = readable
        self.query_one("#arc-side").display = readable
        self.query_one("#arc-unreadable").display = not readable

    def show(self, report: ArcReport) -> None:
        notice = self.query_one("#arc-notice", Static)
        notice.display = report.notice is not None
        notice.update(plain(f"✖ {report.notice}") if report.notice else "")
        if not report.readable:
            self._set_readable(False)
            area = report.areas[0]
            self.query_one("#arc-unreadable", Static).update(Content("\n").join(
                [area_title(area), plain(area.sentence, LEVEL_STYLE.get(area.level, ""))]))
            return
        self._set_readable(True)
        for area in report.areas:
            picture: Content | None = None
            if area.key == "size":
                room = self.query_one("#arc-panels").size.width - BAR_LEGEND
                width = BAR_WIDTH if room <= 0 else max(16, min(BAR_WIDTH, room))
                picture = size_picture(report, width)
            elif area.key == "hits":
                picture = hits_picture(report)
            self.query_one(f"#arc-{area.key}", ArcPanel).show(area, picture)
        caption = f"ARC figures · field set {report.family or 'unknown'}"
        if report.stale and report.data_age is not None:
            caption += " · from an older reading"
        self.query_one("#arc-figures-caption", Static).update(caption)
        table = self.table
        table.clear()
        for row in report.rows:
            table.add_row(row.label, Text(row.value, justify="right"),
                          table.level_text(row.only, "muted"), key=row.label)
