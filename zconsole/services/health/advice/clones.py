"""Snapshots kept only by a clone: the clone made from a rotated snapshot outlived the rotation.

- advice-clone-origin (INFO): a clone's origin snapshot carries a rotation label in its name
  (frequent, hourly, daily, weekly, monthly: zfs-auto-snapshot's `zfs-auto-snap_daily-...`,
  sanoid's `autosnap_..._daily`, `daily-2026-10-02`) and is older than twice the window
  zfs-auto-snapshot keeps of that label (Debian's cron files: frequent 4 x 15 min, hourly
  24, daily 31, weekly 8, monthly 12), so only the clone keeps it. Snapshots without a label
  (`@golden`, `@before-upgrade`: templates and hand-made ones) are never judged: a clone of
  a template is how templates are meant to be used.

Why it matters: the snapshot cannot be destroyed while the clone exists, so the rotation
skips it (or fails on it at every run), and every block its dataset has changed since stays
allocated (the snapshot's `used`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from zconsole.model.advice import Advice, DatasetProps
from zconsole.model.finding import Severity
from zconsole.services import fmt

HOUR, DAY = 3600.0, 86400.0
# a label's keep window (zfs-auto-snapshot's defaults), in seconds
KEEP: Mapping[str, float] = {"frequent": 4 * 900.0, "hourly": 24 * HOUR, "daily": 31 * DAY,
                             "weekly": 8 * 7 * DAY, "monthly": 365 * DAY}
MARGIN = 2.0  # judged past MARGIN x the window: a host that keeps longer is not told off
_LABEL = re.compile(r"(?<![a-z])(frequent|hourly|daily|weekly|monthly)(?![a-z])")


def rotation_label(snapshot: str) -> str | None:
    """The rotation label in a snapshot's name (after the @), or None."""
    m = _LABEL.search(snapshot.partition("@")[2].lower())
    return m.group(1) if m else None


def judge_clones(props: tuple[DatasetProps, ...] | None,
                 origins: tuple[DatasetProps, ...] | None, now: float) -> Iterator[Advice]:
    if not props or not origins:
        return
    clones: dict[str, list[DatasetProps]] = {}
    for p in props:
        origin = p.value("origin")
        if origin and "@" in origin:
            clones.setdefault(origin, []).append(p)
    for snap in origins:
        label = rotation_label(snap.name)
        created = snap.number("creation")
        if label is None or created is None or snap.name not in clones:
            continue
        age = now - created
        if age <= MARGIN * KEEP[label]:
            continue
        kids = clones[snap.name]
        used = snap.number("used")
        names = ", ".join(k.name for k in kids[:3]) + (
            f" and {len(kids) - 3} more" if len(kids) > 3 else "")
        yield Advice(
            "advice-clone-origin", Severity.INFO, snap.name,
            f"{snap.name}, {'an' if label == 'hourly' else 'a'} {label} snapshot "
            f"{fmt.duration(age, coarse=True)} old, is kept "
            f"only by its {'clone' if len(kids) == 1 else 'clones'} {names}",
            why="A clone depends on the snapshot it was made from: the snapshot cannot be "
                "destroyed while the clone exists, so the rotation that made it skips it (or "
                "fails on it at every run), and every block its dataset has changed since "
                "stays allocated.",
            cost="zfs promote CLONE makes the clone independent (the snapshot, and the older "
                 "ones, then belong to the clone and the rotation no longer sees them); or "
                 "destroy the clone if nobody uses it. The Datasets screen shows what depends "
                 "on what before either.",
            evidence=tuple(x for x in (
                *(f"origin of: {k.name} ({fmt.size(k.number('referenced') or 0)} referenced)"
                  for k in kids[:5]),
                f"created: {fmt.duration(age, coarse=True)} ago",
                None if used is None else
                f"used: {fmt.size(used)} (freed once the snapshot can go)",
                f"label: {label} (zfs-auto-snapshot keeps "
                f"{fmt.duration(KEEP[label], coarse=True)} of them)",
                None if snap.number("userrefs") in (None, 0) else
                f"userrefs: {snap.value('userrefs')} (zfs hold)",
            ) if x is not None),
            pool=snap.name.split("/", 1)[0].split("@", 1)[0])
