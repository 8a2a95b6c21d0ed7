"""blame's figure for one unit from its timestamps (tests/integration/hostvm/guest.py
blame_seconds, what HostGuest.unit_seconds and the boot faults' cause() say): systemd 252's
arithmetic (src/analyze/analyze-time-data.c) on `systemctl show` output captured in the host
guest, against the figure `systemd-analyze blame` gave for the same unit in the same boot
(tests/fixtures/host/SOURCES.md, "blame-timestamps")."""

from __future__ import annotations

from typing import Any

import pytest

from tests.paths import FIXTURES, load_integration

guest: Any = load_integration("hostvm.guest")
CAPTURED = FIXTURES / "host" / "blame-timestamps"
# what `systemd-analyze blame` said in the faulty boot of that capture (its host figures)
BLAMED = {"faulty-wait-online.txt": 121.482, "faulty-networking.txt": 70.654}


def show(name: str) -> str:
    return (CAPTURED / name).read_text()


def test_a_unit_that_did_not_run_has_no_line_in_blame() -> None:
    """The clean boot: nothing wanted network-online.target, wait-online never started
    (its InactiveExit timestamp 0): blame lists no line for it."""
    assert guest.blame_seconds(show("clean-wait-online.txt")) is None


@pytest.mark.parametrize("name", sorted(BLAMED))
def test_blames_figure_to_the_microsecond_it_cuts_to_the_millisecond(name: str) -> None:
    """wait-online timed out (failed: never active, blamed until it went inactive);
    networking.service waited for dhclient and went active (blamed until then)."""
    secs = guest.blame_seconds(show(name))
    assert secs is not None
    assert -1e-6 <= secs - BLAMED[name] < 1e-3, (secs, BLAMED[name])


def test_the_properties_are_read_by_name_not_by_order() -> None:
    text = show("faulty-wait-online.txt")
    shuffled = "".join(reversed(text.splitlines(keepends=True)))
    assert guest.blame_seconds(shuffled) == guest.blame_seconds(text)


def test_an_output_without_the_timestamps_is_refused() -> None:
    with pytest.raises(ValueError, match="not `systemctl show`"):
        guest.blame_seconds(show("faulty-wait-online.txt").splitlines()[0])
