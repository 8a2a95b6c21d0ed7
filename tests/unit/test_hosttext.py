"""The one sanitising step: nothing a host prints reaches the terminal as a control code."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from zconsole.model.hosttext import is_clean, visible

OSC52 = "\x1b]52;c;Y3VybCBodHRwOi8vZS52aWwveCB8IHNo\x1b\\"


def test_clipboard_write_is_shown_not_sent() -> None:
    shown = visible(f"WDC WD40EFRX{OSC52}")
    assert "\x1b" not in shown
    assert shown == "WDC WD40EFRX\\x1b]52;c;Y3VybCBodHRwOi8vZS52aWwveCB8IHNh\\x1b\\".replace(
        "IHNh", "IHNo")


def test_titles_cursor_moves_and_8bit_csi_are_escaped() -> None:
    assert visible("\x1b]0;owned\x07tank") == "\\x1b]0;owned\\x07tank"
    assert visible("sd\x1b[2Ja") == "sd\\x1b[2Ja"
    assert visible("a\x9b31mb") == "a\\x9b31mb"
    assert visible("x\x7fy\x00") == "x\\x7fy\\x00"


def test_bidi_and_invisible_characters_are_shown() -> None:
    assert visible("tank\u202egpj.exe") == "tank\\u202egpj.exe"
    assert visible("sd\u200ba") == "sd\\u200ba"
    assert visible("\ufeffname") == "\\ufeffname"


def test_single_and_multi_line() -> None:
    assert visible("a\nb\tc") == "a\\x0ab c"
    assert visible("a\r\nb\tc\x1b", multiline=True) == "a\nb\tc\\x1b"


def test_ordinary_text_is_untouched() -> None:
    for s in ("tank/home@2026-11-23", "ata-WDC_WD40EFRX-68N32N0_WD-WCC7K0XXXXXX", "über 4 TB ✔",
              "/dev/disk/by-path/pci-0000:00:1f.2-ata-1"):
        assert visible(s) == s and is_clean(s)


@given(st.text())
def test_no_control_character_survives(text: str) -> None:
    out = visible(text)
    assert is_clean(out)
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in out)
    multi = visible(text, multiline=True)
    assert not any((ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F for c in multi)
