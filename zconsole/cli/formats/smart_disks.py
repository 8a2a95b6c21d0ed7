"""Each disk's SMART state in a check's output (issue 30): read (with the kinds of its
findings), or why not — "no SMART" (virtio, a USB bridge, SMART unavailable), "asleep, not
read", "needs root", "smartctl missing" (which package) — said once per disk as a fact,
never as an error and never raising the exit code (the findings do that).

`disks_json` is the JSON's `"disks"` list; `disks_text` the plugin text's lines after the
findings (only the disks that were not read: a read disk speaks through its findings; a
reason every disk shares, smartctl missing or not root, is said once for the host).
From the `Report`'s `smart` (the session's `DiskSmart` per disk) and its reading's disk roles.
"""

from __future__ import annotations

from zconsole.model.hosttext import json_safe, visible
from zconsole.model.smart import Unread
from zconsole.services.monitor.report import Report

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zconsole.services.read.smart import DiskSmart

READ, NOT_READ, NOT_YET = "read", "not-read", "not-read-yet"
_HOST_WIDE = (Unread.MISSING, Unread.NOT_ROOT)


def _states(v: Report) -> list[DiskSmart]:
    states: tuple[DiskSmart, ...] = getattr(v, "smart", ()) or ()
    return sorted(states, key=lambda s: s.disk)


def state_of(s: DiskSmart) -> tuple[str, str]:
    """(state, its words): "read", an `Unread` value ("asleep", "no-smart", ...),
    "not-read" (the last attempt failed: a timeout, output not understood) or
    "not-read-yet"."""
    if s.error:
        return NOT_READ, s.words
    if s.unread is not None and s.unread.unread is not None:
        detail = s.unread.unread_detail
        words = s.unread.unread.words
        return s.unread.unread.value, f"{words}; {detail}" if detail else words
    return (READ, "") if s.reading is not None else (NOT_YET, s.words)


def _pools(v: Report) -> dict[str, str]:
    r = v.reading
    inv = r.disks.value if r is not None and r.disks.ok else None
    return {role.disk: role.pool for role in inv.roles if role.pool} if inv else {}


def disks_json(v: Report) -> list[dict[str, object]]:
    pools = _pools(v)
    kinds: dict[str, list[str]] = {}
    for f in (*v.findings, *(f for f, _m in v.muted)):
        if f.kind.startswith("smart-"):
            kinds.setdefault(f.subject, []).append(f.kind)
    out: list[dict[str, object]] = []
    for s in _states(v):
        state, words = state_of(s)
        r = s.reading
        out.append({
            "disk": json_safe(s.disk), "id": json_safe(s.by_id) if s.by_id else None,
            "pool": json_safe(pools[s.disk]) if s.disk in pools else None,
            "state": state, "words": json_safe(words),
            "findings": sorted(set(kinds.get(s.disk, ()))),
            "read_at": s.read_at,
            "model": json_safe(r.model) if r is not None and r.model else None,
            "serial": json_safe(r.serial) if r is not None and r.serial else None})
    return out


def disks_text(v: Report) -> list[str]:
    states = _states(v)
    said = [(s, *state_of(s)) for s in states]
    unread = [(s, state, words) for s, state, words in said if state != READ]
    if not unread:
        return []
    shared = {state for _s, state, _w in unread}
    if len(unread) == len(states) and len(shared) == 1 \
            and shared <= {u.value for u in _HOST_WIDE}:
        return [f"• SMART not read: {visible(unread[0][2])}"]
    out = []
    for s, _state, words in unread:
        who = f"{visible(s.disk)} ({visible(s.by_id)})" if s.by_id else visible(s.disk)
        out.append(f"• SMART of {who}: {visible(words)}")
    return out
