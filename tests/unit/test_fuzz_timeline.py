"""tools/fuzz_timeline.py, the Timeline's end-to-end fuzzing harness (issue 27), run for a few
inputs per source so that it stays green; and what it found."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from zconsole.model.hosttext import is_clean
from zconsole.ui.screens.timeline.panel import Filters, filters_line

TOOL = Path(__file__).resolve().parents[2] / "tools" / "fuzz_timeline.py"


def harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fuzz_timeline", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_timeline"] = module
    spec.loader.exec_module(module)
    return module


def test_a_few_inputs_per_source_come_out_read_or_shown_unreadable() -> None:
    fuzz = harness()
    results = fuzz.run(40, 5, ("events", "history", "audit"), quiet=True)
    for source, counts in results.items():
        assert sum(counts.values()) == 40, source
        assert counts["failure"] == 0, (source, counts)
    # the mutations reach both outcomes: sources read, and sources shown as unreadable
    assert results["events"]["could not be read (error shown)"] > 0
    assert results["history"]["could not be read (error shown)"] > 0
    assert sum(n for k, n in results["events"].items() if k.startswith("read")) > 0


def test_the_same_seed_gives_the_same_outcomes() -> None:
    fuzz = harness()
    assert fuzz.run(15, 11, ("events",), quiet=True) == fuzz.run(15, 11, ("events",),
                                                                  quiet=True)


def test_the_real_inputs_render_clean() -> None:
    """Unmutated, every real input reads and every line drawn of it is clean."""
    fuzz = harness()
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        bases = fuzz.bases(Path(tmp))
        assert len(bases) >= 7
        for b in bases:
            what, why = fuzz.one(b, "audit", Path(tmp) / "audit.jsonl")
            assert why is None and what == "read", (b.name, why)


def test_a_pool_name_with_a_line_break_stays_on_the_filters_line() -> None:
    """Found by the harness: an event's `pool` string can hold a line break (OpenZFS prints
    string values raw), and the filters line drew it as a line of its own."""
    line = filters_line(Filters(pool="tank\nvdb ONLINE")).plain
    assert "\n" not in line and is_clean(line)
    assert "tank\\x0avdb ONLINE" in line


def test_a_zone_offset_no_clock_can_have_is_not_a_zone() -> None:
    """Found by tools/fuzz_timeline.py: `date +%z` answering +6100 was taken as an offset of
    61 h, and as_tz() raised ValueError: the whole Timeline read failed. It is no zone."""
    fuzz = harness()
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        b = fuzz.bases(Path(tmp))[0]
        from dataclasses import replace

        what, why = fuzz.one(replace(b, zone="+6100 CET\n"), "zone", Path(tmp) / "a.jsonl")
        if why is not None:
            raise ValueError(why)
        assert what.startswith("zone")


@pytest.mark.parametrize(("stamp", "zone"), [("0001-01-01.00:00:00", "+0100 CET\n"),
                                             ("9999-12-31.23:59:59", "-0100 X\n")])
def test_a_history_record_no_clock_can_show_is_an_unreadable_entry(stamp: str,
                                                                   zone: str) -> None:
    """Found by the harness: a `zpool history` record dated 0001-01-01 (at UTC+1) or
    9999-12-31 (at UTC-1) made the screen's `datetime.fromtimestamp` raise ValueError ("year
    0 is out of range"). It is drawn as an entry whose time is unreadable."""
    from dataclasses import replace

    fuzz = harness()
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        b = next(x for x in fuzz.bases(Path(tmp)) if x.name == "guest-zfs-2.3.2-incident")
        first = "2026-11-26.02:10:40"
        assert b.history_il is not None and first in b.history_il
        mutated = replace(b, history_il=b.history_il.replace(first, stamp, 1), zone=zone)
        what, why = fuzz.one(mutated, "history", Path(tmp) / "audit.jsonl")
        assert why is None and what.startswith("read")
        from zconsole.services.read.timeline import read_timeline
        from zconsole.ui.screens.timeline.panel import entry_lines, sources_text

        t = read_timeline(fuzz.FuzzHost(mutated))
        drawn = entry_lines(t.entries, t.zone, 100, None, 0).plain
        assert "── time out of range (unreadable) ──" in drawn
        assert "--:--:-- command  tank" in drawn or "--:--:-- internal tank" in drawn
        if stamp.startswith("0001"):
            assert "back to a time out of range (unreadable)" in sources_text(t, 0).plain
