"""clean_guest's before-reset decision (tests/integration/guest_reuse.py): skipped only right
after a clean_guest test on the same session guest whose after-reset passed, nothing else on
that guest since. The calls below are the ones conftest's fixture and hooks make, in pytest's
order: clean_guest setup (`skip_reset`), its teardown (`left_blank` once the reset passed),
a guest-taking fixture ending (`touched`), the test's whole teardown over (`ended`)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from tests.paths import load_integration

reuse: Any = load_integration("guest_reuse")


def clean_test(b: Any, guest: str, test: str, *, reset_after_ok: bool = True,
               teardown_ok: bool = True) -> bool:
    """One clean_guest test on `guest`: whether its before-reset was skipped."""
    skipped = b.skip_reset(guest)
    if reset_after_ok:
        b.left_blank(guest, test)
    b.ended(guest, test, teardown_ok=teardown_ok and reset_after_ok)
    return bool(skipped)


def test_the_first_clean_test_resets_the_next_ones_do_not() -> None:
    b = reuse.BlankGuests()
    assert [clean_test(b, "2.3", f"t{i}") for i in range(4)] == [False, True, True, True]
    assert b.skipped == {"2.3": 3}


def test_another_test_on_the_guest_in_between_keeps_the_reset() -> None:
    b = reuse.BlankGuests()
    clean_test(b, "2.3", "t1")
    b.ended("2.3", "reads-only", teardown_ok=True)  # zfs_guest without clean_guest
    assert clean_test(b, "2.3", "t2") is False
    assert clean_test(b, "2.3", "t3") is True


def test_a_test_on_the_other_guest_changes_nothing_here() -> None:
    b = reuse.BlankGuests()
    clean_test(b, "2.1", "a1")
    clean_test(b, "2.3", "b1")
    b.ended("2.3", "b-reads", teardown_ok=True)
    assert clean_test(b, "2.1", "a2") is True
    assert clean_test(b, "2.3", "b2") is False


def test_a_failed_after_reset_or_teardown_keeps_the_reset() -> None:
    b = reuse.BlankGuests()
    clean_test(b, "2.1", "t1", reset_after_ok=False)  # the reset raised: no mark
    assert clean_test(b, "2.1", "t2") is False
    clean_test(b, "2.1", "t3", teardown_ok=False)  # reset passed, another finalizer failed
    assert clean_test(b, "2.1", "t4") is False
    assert clean_test(b, "2.1", "t5") is True


def test_a_guest_fixture_ending_after_the_reset_keeps_the_reset() -> None:
    """A fixture set up before clean_guest (or a module's, ending with its last test) is torn
    down after the after-reset: what it does there is not known to leave the guest blank."""
    b = reuse.BlankGuests()
    b.skip_reset("2.3")
    b.left_blank("2.3", "t1")
    b.touched()
    b.ended("2.3", "t1", teardown_ok=True)
    assert clean_test(b, "2.3", "t2") is False


def test_a_setup_that_failed_before_clean_guest_keeps_the_reset() -> None:
    """A test whose setup failed (or was skipped) before clean_guest ran: its teardown still
    ends it as the guest's last test, with no mark of its own."""
    b = reuse.BlankGuests()
    clean_test(b, "2.3", "t1")
    b.ended("2.3", "t2", teardown_ok=True)
    assert clean_test(b, "2.3", "t3") is False


def test_a_rerun_after_the_after_reset_starts_blank() -> None:
    """pytest-rerunfailures: the failed attempt's teardown reset the guest; its rerun is the
    same test id, the guest's last test, and finds it blank (a freshly reset guest)."""
    b = reuse.BlankGuests()
    clean_test(b, "2.3", "t1")
    assert clean_test(b, "2.3", "t1") is True


def test_the_guest_a_test_item_uses() -> None:
    def item(names: tuple[str, ...], params: dict[str, str] | None) -> Any:
        callspec = None if params is None else SimpleNamespace(params=params)
        return SimpleNamespace(fixturenames=names, callspec=callspec)

    assert reuse.session_guest(item(("request", "zfs_guest", "clean_guest"),
                                    {"zfs_guest": "2.1"})) == "2.1"
    assert reuse.session_guest(item(("host_guest",), None)) is None
    assert reuse.session_guest(item(("zfs_guest_23",), {"other": "x"})) is None
    assert reuse.session_guest(item(("zfs_guest",), {"other": "x"})) is None
