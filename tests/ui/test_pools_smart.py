"""Issue 30 on the Pools screen: a leaf whose disk has a SMART finding says it in its NOTE
in a word or two ("▲ 48 pending"); its healthy peer says nothing."""

from __future__ import annotations

from tests.ui.conftest import make_app, settle
from zconsole.ui.screens.pools.vdev_table import VdevTable


def rows_of(app: object) -> dict[str, str]:
    out: dict[str, str] = {}
    for table in app.screen.query(VdevTable):  # type: ignore[attr-defined]
        for k in table.rows:
            out[str(k.value)] = " ".join(str(c) for c in table.get_row(k))
    return out


def row_of(rows: dict[str, str], leaf_end: str) -> str:
    [row] = [text for key, text in rows.items() if key.endswith(leaf_end)]
    return row


async def test_the_leaf_note_says_its_smart_in_a_word() -> None:
    app = make_app("showcase", "2.3")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        rows = rows_of(app)
        assert "▲ 48 pending" in row_of(rows, "PN2334PBJ4K7XT")  # the dying disk (sdb)
        assert "▲ 312 CRC" in row_of(rows, "PN2334PBJ9M3QT")  # the bad cable (sdc)
        assert "pending" not in row_of(rows, "PN2334PBJ1A2BT")  # its healthy peer
