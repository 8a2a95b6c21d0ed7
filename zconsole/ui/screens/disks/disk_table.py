"""The Disks table: one row per whole disk (role, size, media, I/O), its partitions under it
when expanded (enter)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.style import Style
from rich.text import Text

from zconsole.model.disk import DiskIo
from zconsole.model.finding import Severity
from zconsole.services import fmt
from zconsole.services.read.disks import DiskRow
from zconsole.ui.kit.filter import row_text
from zconsole.ui.kit.levels import LevelTable
from zconsole.ui.kit.text import fit, plain_text, spark

WIDE = 110  # from this terminal width on, the table also shows r/s, w/s and busy history
HISTORY_CELLS = 12
COLUMNS = ("DISK", "ROLE", "SIZE", "TYPE", "BUSY", "AWAIT r/w", "AQU")
WIDE_COLUMNS = ("R/S", "W/S", "BUSY HISTORY")

# A disk role's level (services.read.disks.ROLE_LOOK) -> the colour it is shown in.
ROLE_COLOUR = {"ok": "ok", "warn": "warn", "bad": "bad", "off": "muted", "free": "primary"}


def io_cells(io: DiskIo | None, wide: bool, history: Sequence[float]) -> list[str | Text]:
    if io is None:
        cells: list[str | Text] = ["-", "-", "-"]
        if wide:
            cells += ["-", "-"]
    else:
        cells = [f"{io.util_pct:.0f}%", f"{fmt.ms(io.r_await_ms)}/{fmt.ms(io.w_await_ms)}",
                 f"{io.aqu_sz:.2f}"]
        if wide:
            cells += [f"{io.r_s:.0f}", f"{io.w_s:.0f}"]
    if wide:
        cells.append(spark(history, HISTORY_CELLS, 100.0) or "-")
    return cells


def role_width(terminal_width: int, wide: bool) -> int:
    """Room for the ROLE column: what the other columns leave, 20 to 48 cells."""
    # Cells plus 2 padding each: DISK 9, SIZE 6, TYPE 4, BUSY 4, AWAIT 9, AQU 4; ROLE's
    # own padding 2; body padding and scrollbars 4. Wide adds R/S 5, W/S 5, history 12.
    fixed = (9 + 6 + 4 + 4 + 9 + 4) + 6 * 2 + 2 + 4
    if wide:
        fixed += 5 + 5 + 12 + 3 * 2
    return max(20, min(48, terminal_width - fixed))


class DisksTable(LevelTable):
    """The table; enter toggles the partitions of the disk under the cursor."""

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

    def disk_cells(self, row: DiskRow, *, wide: bool, room: int, expanded: bool
                   ) -> list[str | Text]:
        marker = "▾ " if expanded else ("▸ " if row.partitions else "  ")
        return [plain_text(marker + row.name), self.role_cell(row, room),
                fmt.size(row.disk.size_bytes, short=True), plain_text(row.media or "-"),
                *io_cells(row.io, wide, row.busy_series)]

    def row_words(self, row: DiskRow, *, wide: bool, room: int) -> str:
        """What `/` looks for in a disk: its row and its partitions' rows as shown, and its
        whole name (a cell may cut it)."""
        cells = [*self.disk_cells(row, wide=wide, room=room, expanded=False),
                 *(c for _, p in self.partition_rows(row, wide=wide, room=room) for c in p)]
        return f"{row_text(cells)} {row.name}"

    def partition_rows(self, row: DiskRow, *, wide: bool, room: int
                       ) -> list[tuple[str, list[str | Text]]]:
        out: list[tuple[str, list[str | Text]]] = []
        for i, p in enumerate(row.partitions):
            lead = "└ " if i == len(row.partitions) - 1 else "├ "
            cells: list[str | Text] = [plain_text("  " + lead + p.name),
                                       self.level_text(fit(p.use, room), "muted"),
                                       fmt.size(p.size_bytes, short=True), "", "", "", ""]
            if wide:
                cells += ["", "", ""]
            out.append((f"part:{p.name}", cells))
        return out
