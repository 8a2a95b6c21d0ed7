"""The Disks table: one row per whole disk (role, size, media, I/O), its partitions under it
when expanded (enter)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from rich.style import Style
from rich.text import Text

from zconsole.model.disk import DiskIo
from zconsole.model.finding import Severity
from zconsole.model.hosttext import visible
from zconsole.services import fmt
from zconsole.services.health.smart_words import NOT_YET
from zconsole.services.read.disks import DiskRow
from zconsole.ui.kit.filter import row_text
from zconsole.ui.kit.levels import LevelTable
from zconsole.ui.kit.text import fit, plain_text, spark

WIDE = 110  # from this terminal width on, the table also shows type, aqu, r/s and w/s
SPARKS = 140  # ... and from this one busy history (the detail panel draws it in any case)
HISTORY_CELLS = 12
# Below WIDE the queue size (AQU) makes room for SERIAL, and the media TYPE for HEALTH (the
# disk's SMART in a word): the detail panel shows both (aqu-sz, media).
COLUMNS = ("DISK", "SERIAL", "ROLE", "HEALTH", "SIZE", "BUSY", "AWAIT r/w")
WIDE_COLUMNS = ("AQU", "R/S", "W/S")
SPARK_COLUMNS = ("BUSY HISTORY",)
HEALTH_WIDTH = 12  # "▲ 48 pending", "asleep", "no SMART", "not read yet"
SERIAL_WIDE = 20  # the most a serial is given on a wide terminal (cut in the middle beyond)
SERIAL_NARROW = 10  # below WIDE: "…" and the last 9 characters, the end the label shows,
# when ROLE keeps its 16 cells (else down to SERIAL_MIN: HEALTH's widest words at 80)
SERIAL_MIN = 6  # the SERIAL header's width
ROLE_WANT = 36  # ROLE keeps this (a whole role sentence, mostly) before SERIAL grows past
# SERIAL_NARROW

# A disk role's level (services.read.disks.ROLE_LOOK) -> the colour it is shown in.
ROLE_COLOUR = {"ok": "ok", "warn": "warn", "bad": "bad", "off": "muted", "free": "primary"}
HEALTH_COLOUR: dict[Severity | None, str] = {
    Severity.OK: "ok", Severity.WARNING: "warn", Severity.CRITICAL: "bad",
    Severity.UNKNOWN: "warn"}


def columns(terminal_width: int) -> tuple[str, ...]:
    """The table's headers for a terminal this wide."""
    if terminal_width < WIDE:
        return COLUMNS
    return (*COLUMNS[:5], "TYPE", *COLUMNS[5:], *WIDE_COLUMNS,
            *(SPARK_COLUMNS if terminal_width >= SPARKS else ()))


def io_cells(io: DiskIo | None, wide: bool, history: Sequence[float], sparks: bool = True
             ) -> list[str | Text]:
    if io is None:
        cells: list[str | Text] = ["-", "-"]
        if wide:
            cells += ["-", "-", "-"]
    else:
        cells = [f"{io.util_pct:.0f}%", f"{fmt.ms(io.r_await_ms)}/{fmt.ms(io.w_await_ms)}"]
        if wide:
            cells += [f"{io.aqu_sz:.2f}", f"{io.r_s:.0f}", f"{io.w_s:.0f}"]
    if wide and sparks:
        cells.append(spark(history, HISTORY_CELLS, 100.0) or "-")
    return cells


def health_width(words: Iterable[str]) -> int:
    """The HEALTH column's width: its longest cell (symbol included), at least its header
    and at most HEALTH_WIDTH."""
    return max(len("HEALTH"), min(HEALTH_WIDTH, max((len(w) for w in words), default=0)))


def _fixed(terminal_width: int, health: int = HEALTH_WIDTH) -> int:
    """The cells every column but SERIAL and ROLE takes: each with 2 padding (DISK 9,
    HEALTH 12, SIZE 6, BUSY 4, AWAIT 9; wide adds TYPE 4, AQU 4, R/S 5, W/S 5, then history
    12), plus SERIAL's and ROLE's padding, body padding and scrollbars 4."""
    cols = columns(terminal_width)
    extra = {"TYPE": 4, "AQU": 4, "R/S": 5, "W/S": 5, "BUSY HISTORY": HISTORY_CELLS}
    return ((9 + health + 6 + 4 + 9) + sum(extra.get(c, 0) for c in cols)
            + len(cols) * 2 + 4)


def serial_width(terminal_width: int, longest: int, health: int = HEALTH_WIDTH) -> int:
    """Room for the SERIAL column: the longest serial listed, up to SERIAL_WIDE cells, once
    ROLE has ROLE_WANT; SERIAL_NARROW at least (the detail panel shows it whole)."""
    fixed = _fixed(terminal_width, health)
    left = terminal_width - fixed - ROLE_WANT
    narrow = min(SERIAL_NARROW, terminal_width - fixed - 16)
    return max(SERIAL_MIN, min(longest, SERIAL_WIDE, max(narrow, left)))


def serial_cell(serial: str | None, width: int) -> Text:
    """A disk's serial (host text, control characters shown as escapes) in `width` cells:
    a cut one keeps its end, the part the label's barcode line and `by-id` name end with."""
    if not serial:
        return Text("-")
    text = visible(serial)
    if len(text) > width:
        text = fit(text, width, "middle") if width >= 16 else "…" + text[-(width - 1):]
    return plain_text(text)


def role_width(terminal_width: int, serial: int = SERIAL_MIN,
               health: int = HEALTH_WIDTH) -> int:
    """Room for the ROLE column: what the other columns leave, 16 to 48 cells."""
    return max(16, min(48, terminal_width - _fixed(terminal_width, health) - serial))


class DisksTable(LevelTable):
    """The table; enter toggles the partitions of the disk under the cursor."""

    serial_room = SERIAL_MIN  # the SERIAL column's width, set by the screen from its rows
    sparks = False  # whether the busy history column is shown (set by the screen)
    # each disk's SMART in a word (services/health/smart_words.disk_word), set by the screen
    health: Mapping[str, tuple[Severity | None, str]] = {}

    def role_cell(self, row: DiskRow, width: int) -> Text:
        style = self.level_style(ROLE_COLOUR.get(row.role_level, ""))
        if row.slow is not None:
            factor = f" {row.slow.factor:.1f}×" if row.slow.factor is not None else ""
            slow = f"{row.slow.severity.symbol} SLOW{factor} "  # the symbol of its sentence
            level = "bad" if row.slow.severity is Severity.CRITICAL else "warn"
            t = Text()
            t.append(slow, style=self.level_style(level) + Style(bold=True))
            t.append_text(plain_text(fit(row.role_detail, width - len(slow)), style))
            return t
        t = plain_text(row.role_symbol + " ", style)
        t.append_text(plain_text(fit(row.role_sentence, width - 2), style))
        return t

    def health_words(self, name: str) -> tuple[Severity | None, str]:
        level, word = self.health.get(name, (None, NOT_YET))
        if level in (Severity.WARNING, Severity.CRITICAL, Severity.UNKNOWN):
            word = f"{level.symbol} {word}"  # a word and a symbol, never colour alone
        return level, word

    def health_cell(self, name: str) -> Text:
        level, word = self.health_words(name)
        return self.level_text(fit(word, HEALTH_WIDTH), HEALTH_COLOUR.get(level, "muted"))

    def disk_cells(self, row: DiskRow, *, wide: bool, room: int, expanded: bool
                   ) -> list[str | Text]:
        marker = "▾ " if expanded else ("▸ " if row.partitions else "  ")
        return [plain_text(marker + row.name), serial_cell(row.disk.serial, self.serial_room),
                self.role_cell(row, room), self.health_cell(row.name),
                fmt.size(row.disk.size_bytes, short=True),
                *([plain_text(row.media or "-")] if wide else []),
                *io_cells(row.io, wide, row.busy_series, self.sparks)]

    def row_words(self, row: DiskRow, *, wide: bool, room: int) -> str:
        """What `/` looks for in a disk: its row and its partitions' rows as shown, and its
        whole name and serial (a cell may cut them)."""
        cells = [*self.disk_cells(row, wide=wide, room=room, expanded=False),
                 *(c for _, p in self.partition_rows(row, wide=wide, room=room) for c in p)]
        return f"{row_text(cells)} {row.name} {visible(row.disk.serial or '')}"

    def partition_rows(self, row: DiskRow, *, wide: bool, room: int
                       ) -> list[tuple[str, list[str | Text]]]:
        out: list[tuple[str, list[str | Text]]] = []
        for i, p in enumerate(row.partitions):
            lead = "└ " if i == len(row.partitions) - 1 else "├ "
            cells: list[str | Text] = [plain_text("  " + lead + p.name), "",
                                       self.level_text(fit(p.use, room), "muted"), "",
                                       fmt.size(p.size_bytes, short=True), "", ""]
            if wide:
                cells += ["", "", "", "", *([""] if self.sparks else [])]
            out.append((f"part:{p.name}", cells))
        return out
