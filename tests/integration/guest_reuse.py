"""Whether a session guest is still blank from the last test's after-reset (conftest's
clean_guest and its hooks).

clean_guest resets the guest before and after its test. Right after a clean_guest test whose
after-reset passed, with nothing else on that guest since, the before-reset repeats the reset
of a blank guest: the `zpool destroy` loop, the by-id probe, `blkdiscard` + `wipefs` of each
disk, `fstrim /scratch`, `udevadm settle` (2.1 guest CPU s quiet, 3-5 in a loaded CI run; in
collection order 30 of the 40 clean_guest tests directly follow another on the same guest,
2026-12-01). The before-reset is skipped only then:

- the last test that used the guest (its teardown over: `ended`) is the one whose clean_guest
  after-reset passed (`left_blank`);
- nothing in that test's teardown failed, and no fixture that takes the guest ended after the
  after-reset (`touched`: a fixture set up before clean_guest is torn down after it; a module
  fixture ends with the last test of its module).

Any other test on the guest in between, a failed teardown, a skipped or failed setup: the
reset runs. A guest is named by its OpenZFS flavour (the zfs_guest parameter).
"""

from __future__ import annotations

from typing import Any


def session_guest(item: Any) -> str | None:
    """The session guest (zfs_guest's flavour) a test item uses, None when it uses none."""
    callspec = getattr(item, "callspec", None)
    if "zfs_guest" not in getattr(item, "fixturenames", ()) or callspec is None:
        return None
    flavour = callspec.params.get("zfs_guest")
    return None if flavour is None else str(flavour)


class BlankGuests:
    """What the tests of one process left on each session guest."""

    def __init__(self) -> None:
        self._last: dict[str, str] = {}  # guest -> the last test that used it (teardown over)
        self._blank: dict[str, str] = {}  # guest -> the test whose after-reset left it blank
        self.skipped: dict[str, int] = {}  # guest -> before-resets skipped

    def left_blank(self, guest: str, test: str) -> None:
        """clean_guest's after-reset of `test` on `guest` passed."""
        self._blank[guest] = test

    def touched(self) -> None:
        """A fixture that takes a guest ended (after an after-reset, maybe): no guest is
        known blank."""
        self._blank.clear()

    def ended(self, guest: str, test: str, *, teardown_ok: bool) -> None:
        """`test`, which used `guest`, is over (its teardown ran; teardown_ok: without an
        error)."""
        self._last[guest] = test
        if not teardown_ok or self._blank.get(guest) != test:
            self._blank.pop(guest, None)

    def is_blank(self, guest: str) -> bool:
        """The last test that used `guest` left it blank."""
        last = self._last.get(guest)
        return last is not None and self._blank.get(guest) == last

    def skip_reset(self, guest: str) -> bool:
        """Whether clean_guest's before-reset can go (counted when it can)."""
        if not self.is_blank(guest):
            return False
        self.skipped[guest] = self.skipped.get(guest, 0) + 1
        return True
