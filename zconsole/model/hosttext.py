"""The one sanitising step for text that came from a host or a paste.

Everything a host says is hostile input: pool and dataset names, serials, models, mountpoints,
interface names, command output and error text. Before any of it reaches a terminal — the
console's widgets, `zconsole parse`, `zconsole plan`, a notification, the audit log viewer — it
goes through `visible()`: control characters and escape sequences are never passed on; they are
shown as visible escapes (`\\x1b`, `\\u202e`), so the operator sees that they are there and
exactly what they are, and nothing is interpreted (no OSC 52 clipboard write, no retitled pane,
no cursor movement, no reordered text).

The raw value is kept unchanged in the model: a command zconsole runs on a device uses the
device's real name (argv, never a shell string), and its preview shows that name through
`visible()`. Markup is a separate concern: host text is appended to Textual/Rich content as
plain text, never parsed as markup (`ui/kit`).

What is escaped:
- C0 controls (U+0000-U+001F) except the line breaks of multi-line text, DEL (U+007F) and C1
  controls (U+0080-U+009F, including the 8-bit CSI U+009B and OSC U+009D);
- the bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069) and the
  implicit marks (U+200E, U+200F, U+061C) that can make text display in another order than it
  is read ("Trojan Source");
- zero-width and invisible formatting characters that hide what a name is (U+200B-U+200D,
  U+2060-U+2064, U+FEFF), and the line/paragraph separators U+2028/U+2029.
Tabs become one space in single-line text (a table cell) and stay in multi-line text.
"""

from __future__ import annotations

import re

_UNSAFE = (r"\x00-\x08\x0b-\x1f\x7f-\x9f"
           r"\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff")
_SINGLE = re.compile(f"[{_UNSAFE}\\t\\n\\r]")
_MULTI = re.compile(f"[{_UNSAFE}\\r]")


def _escape(m: re.Match[str]) -> str:
    ch = m.group(0)
    if ch == "\t":
        return " "
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: object, *, multiline: bool = False) -> str:
    """`text` with every control, escape and invisible formatting character shown as a visible
    escape. Single-line by default: line breaks become `\\n` too (a name is one line)."""
    s = text if isinstance(text, str) else str(text)
    if multiline:
        s = s.replace("\r\n", "\n")
    return (_MULTI if multiline else _SINGLE).sub(_escape, s)


def is_clean(text: str, *, multiline: bool = False) -> bool:
    """True when `visible(text)` would not change it."""
    return (_MULTI if multiline else _SINGLE).search(text) is None


_JSON_UNSAFE = re.compile(f"[{_UNSAFE}]")


def json_safe(json_text: str) -> str:
    """JSON text (from `json.dumps(..., ensure_ascii=False)`) with every character `visible()`
    would escape written as a JSON `\\uXXXX` escape instead: still valid JSON, the same
    values, nothing a terminal would interpret (json.dumps leaves DEL, C1 and bidi raw)."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", json_text)


def name_trap(name: str) -> str | None:
    """Why an operator could mistake `name` for another (None: it reads as it is): a space
    other than U+0020 (no-break, thin, ideographic), an invisible format character (zero
    width, bidi), or letters of two scripts (a Cyrillic а in a Latin name)."""
    import unicodedata

    scripts: dict[str, str] = {}
    for ch in name:
        cat = unicodedata.category(ch)
        if (cat == "Zs" and ch != " ") or cat == "Cf":
            return f"holds U+{ord(ch):04X} {unicodedata.name(ch, 'an unnamed character')}"
        if cat.startswith("L"):
            script = unicodedata.name(ch, "?").split(" ")[0]
            scripts.setdefault(script, ch)
    if len(scripts) > 1:
        (a, ca), (b, cb) = list(scripts.items())[:2]
        return (f"mixes {a.title()} and {b.title()} letters ('{ca}' U+{ord(ca):04X}, "
                f"'{cb}' U+{ord(cb):04X})")
    return None


def name_key(name: str) -> str:
    """`name` as it looks: the same key for names an operator cannot tell apart (NFKC,
    case folded, white space folded)."""
    import unicodedata

    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())
