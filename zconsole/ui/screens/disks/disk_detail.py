"""The selected disk: its role and why, the newest I/O figures with their history, its
SMART (disk_smart.py), its identity, partitions and holders."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import Label, Sparkline, Static

from zconsole.model.reading import DiskState
from zconsole.services import fmt
from zconsole.services.read.disks import DiskRow
from zconsole.ui.kit.levels import LEVEL_STYLE
from zconsole.ui.kit.text import Hanging, Para, para, plain
from zconsole.ui.screens.disks.disk_table import ROLE_COLOUR

MUTED = LEVEL_STYLE["muted"]
LABEL = 11  # width of the labels on the left


def _unknown(what: str, source: str) -> str:
    return f"- ({what} not reported by {source})"


def labelled(label: str, value: str | Content) -> Para:
    """`serial     WD-WCC7K1234567`: a muted label, the value wrapping under itself."""
    return para(value, Content.styled(f"{label:<{LABEL}}", MUTED))


def detail_head(row: DiskRow) -> Hanging:
    """Title, slow-disk sentence, role reasons and the newest I/O figures."""
    level = LEVEL_STYLE.get(ROLE_COLOUR.get(row.role_level, ""), "")
    parts: list[Content | str] = [plain(row.name, "bold")]
    if row.disk.preferred_id:
        parts.append(plain(f" ({row.disk.preferred_id})"))
    parts.append("  ")
    parts.append(plain(f"{row.role_symbol} {row.role_word}", f"{level} bold".strip()))
    if row.state is DiskState.IN_POOL:
        parts.append(plain(f"  {row.pool}, {row.vdev}"))
    items: list[Content | Para] = [Content.assemble(*parts)]
    if row.slow is not None:
        items.append(para(row.slow.message, "▲ ", f"{LEVEL_STYLE['warn']} bold"))
    items += [labelled("role" if i == 0 else "", reason) for i, reason in enumerate(row.reasons)]
    io = row.io
    if io is None:
        items.append(labelled("I/O", f"- ({(row.io_missing or 'unknown').split(':')[0]})"))
    else:
        items.append(labelled("I/O", Content(
            f"over {io.interval_s:.0f} s: busy {io.util_pct:.0f}%  r_await "
            f"{fmt.ms(io.r_await_ms)} ms  w_await {fmt.ms(io.w_await_ms)} ms  "
            f"aqu-sz {io.aqu_sz:.2f}")))
        items.append(labelled("", Content(
            f"{io.r_s:.1f} r/s  {io.w_s:.1f} w/s  {io.rkb_s:.0f} kB/s read  "
            f"{io.wkb_s:.0f} kB/s written")))
    return Hanging(*items)


def _identity(row: DiskRow, source: str) -> list[tuple[str, str]]:
    """(label, value) lines: how to find the disk (by-id, by-path, serial, model, wwn)."""
    d = row.disk
    lines: list[tuple[str, str]] = []
    if d.by_id:
        lines.append(("by-id", d.by_id[0]))
        lines.extend(("", other) for other in d.by_id[1:])
    else:
        lines.append(("by-id", "- (no /dev/disk/by-id link for this disk)"))
    lines.append(("by-path", ", ".join(d.by_path) if d.by_path else
                  "- (no /dev/disk/by-path link for this disk)"))
    lines.append(("serial", d.serial or _unknown("serial", source)))
    model = d.model or _unknown("model", source)
    if d.model and d.vendor and d.vendor.strip() and d.vendor.strip() != "ATA":
        model = f"{d.model} (vendor {d.vendor.strip()})"
    lines.append(("model", model))
    if d.wwn:
        lines.append(("wwn", d.wwn))
    return lines


def _hardware(row: DiskRow, source: str) -> list[tuple[str, str]]:
    """(label, value) lines: size, media and sector sizes."""
    d = row.disk
    size = (f"{fmt.size(d.size_bytes, short=True)} ({d.size_bytes:,} bytes)"
            if d.size_bytes is not None else _unknown("size", source))
    if d.rotational is None:
        media = _unknown("queue/rotational", source)
    else:
        media = (f"{row.media} (kernel: rotational)" if d.rotational else
                 f"{row.media} (kernel: non-rotational)")
    if d.transport:
        media += f", transport {d.transport}"
    if d.logical_sector is None or d.physical_sector is None:
        sectors = _unknown("sector size", source)
    else:
        sectors = (f"{d.logical_sector} B logical / {d.physical_sector} B physical "
                   f"({row.sector_format})")
    return [("size", size), ("media", media), ("sectors", sectors)]


def _contents(row: DiskRow) -> list[tuple[str, str]]:
    """(label, value) lines: the zpool name, partitions, signature, mounts, holders."""
    d = row.disk
    lines: list[tuple[str, str]] = []
    if row.state is DiskState.IN_POOL and row.leaf:
        lines.append(("zpool name", row.leaf))
    if row.partitions:
        lines.extend(("partitions" if i == 0 else "",
                      f"{p.name:<10} {fmt.size(p.size_bytes, short=True):>7}  {p.use}")
                     for i, p in enumerate(row.partitions))
    else:
        lines.append(("partitions", "none"))
    own = []
    if d.fs_type:
        own.append(f"signature {d.fs_type} on the whole disk")
    if d.mountpoints:
        own.append("mounted at " + ", ".join(d.mountpoints))
    if own:
        lines.append(("whole disk", "; ".join(own)))
    lines.append(("holders", ", ".join(d.holders) if d.holders
                  else "none (no dm/md on the disk)"))
    return lines


def detail_text(row: DiskRow, source: str) -> Hanging:
    """Identity, partitions and holders of one disk."""
    return Hanging(*(labelled(label, value) for label, value in
                     (*_identity(row, source), *_hardware(row, source), *_contents(row))))


class DiskDetail(VerticalScroll, can_focus=True):
    """Everything known about the selected disk."""

    DEFAULT_CSS = """
    DiskDetail {
        height: 1fr;
        min-height: 6;
        border-top: solid $panel;
    }
    DiskDetail:focus {
        border-top: solid $primary;
    }
    DiskDetail #detail-text, DiskDetail #detail-smart {
        height: auto;
    }
    DiskDetail .spark-row {
        height: 1;
    }
    DiskDetail .spark-label {
        width: 11;
        color: $muted;
    }
    DiskDetail Sparkline {
        width: 1fr;
        max-width: 60;
        margin: 0 1 0 0;
    }
    DiskDetail Sparkline > .sparkline--max-color {
        color: $primary;
    }
    DiskDetail Sparkline > .sparkline--min-color {
        color: $primary 30%;
    }
    DiskDetail .spark-note {
        width: auto;
        color: $muted;
    }
    """

    SERIES = (("spark-busy", "busy %"), ("spark-r", "r_await ms"), ("spark-w", "w_await ms"))

    def compose(self) -> ComposeResult:
        yield Static(id="detail-head")
        yield Static(id="detail-smart")
        yield Label("", id="spark-empty", classes="spark-note")
        for sid, label in self.SERIES:
            with Horizontal(classes="spark-row"):
                yield Label(label, classes="spark-label")
                yield Sparkline([], id=sid)
                yield Label("", id=f"{sid}-note", classes="spark-note")
        yield Static(id="detail-text")

    def show(self, row: DiskRow, source: str, smart: Sequence[Content | Para] = ()) -> None:
        self.query_one("#detail-head", Static).update(detail_head(row))
        self.query_one("#detail-smart", Static).update(Hanging(*smart))
        self.query_one("#detail-text", Static).update(detail_text(row, source))
        empty = not (row.busy_series or row.r_await_series or row.w_await_series)
        note = self.query_one("#spark-empty", Label)
        note.update("history    - (no intervals yet)" if empty else "")
        note.display = empty
        for spark_row in self.query(".spark-row"):
            spark_row.display = not empty
        for sid, series, unit in (("spark-busy", row.busy_series, "%"),
                                  ("spark-r", row.r_await_series, " ms"),
                                  ("spark-w", row.w_await_series, " ms")):
            self._series(sid, series, unit)

    def _series(self, sid: str, series: Sequence[float], unit: str) -> None:
        spark = self.query_one(f"#{sid}", Sparkline)
        note = self.query_one(f"#{sid}-note", Label)
        if not series:
            spark.data = []
            spark.display = False
            note.update("- (no history yet)")
            return
        spark.data = list(series)
        spark.styles.width = min(len(series), 48)
        spark.display = True

        def figure(v: float) -> str:
            return f"{v:.0f}%" if unit == "%" else f"{fmt.ms(v)}{unit}"

        note.update(plain(f"{len(series)} intervals, max {figure(max(series))}, "
                          f"now {figure(series[-1])}"))
