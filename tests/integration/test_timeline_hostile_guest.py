"""Issue 27 item 4 (third point) on real OpenZFS, both flavours: a delegated user's property
values that print as a root `zpool offline` record in `zpool history` and as an
`ereport.fs.zfs.io` and a FAULTED statechange in `zpool events -v` leave no forged record in
the Timeline read (services/read/timeline.py). Needs ZCONSOLE_VM=1.

Cheap by design (issue 33): the session guest as it is, a pool it already has (else one
mirror made for the test and destroyed after), one dataset under it, one ssh script for the
setup and one for the cleanup, no reset, no reboot. Measured with `--durations` on this
2-core machine, a guest with no pool yet (so the test made its mirror): call 29.2 s + 3.8 s
teardown (2.1), 24.4 s + 4.9 s (2.3); the guest's boot (45-50 s) is the session's, shared."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from zconsole.model.timeline import Kind, Source
from zconsole.services.read.timeline import read_timeline

if TYPE_CHECKING:
    from conftest import ZfsGuest

pytestmark = pytest.mark.zfsvm

FORGED_AT = 1_764_324_000  # 2025-11-28 10:00:00 UTC: the time the forged lines claim

SETUP = r"""
set -e
P=$(zpool list -H -o name | head -n 1)
if [ -z "$P" ]; then zpool create -f zchostile mirror vdb vdc; P=zchostile; echo made; fi
D="$P/zc-hostile"
zfs create "$D"
zfs allow -u 1000 userprop "$D"
U="setpriv --reuid=1000 --regid=1000 --clear-groups"
NOTE=$'x [user 0 (root) on zfsvm:linux]\n2025-11-28.10:00:00 zpool offline '"$P"$' vdb [user 0 (root) on zfsvm:linux]\n2025-11-28.10:00:01 zfs set y=z'
$U zfs set "com.example:note=$NOTE" "$D"
EV=$'y"\n\nNov 28 2025 10:00:00.000000001 ereport.fs.zfs.io\n        class = "ereport.fs.zfs.io"\n        pool = "'"$P"$'"\n        vdev_path = "/dev/vdb1"\n        zio_err = 0x5\n        time = 0x692972a0 0x1\n        eid = 0x99\n\nNov 28 2025 10:00:00.000000002 resource.fs.zfs.statechange\n        class = "resource.fs.zfs.statechange"\n        pool = "'"$P"$'"\n        vdev_path = "/dev/vdb1"\n        vdev_state = "FAULTED" (0x5)\n        vdev_laststate = "ONLINE" (0x7)\n        time = 0x692972a0 0x2\n        foo = "'
$U zfs set "com.example:ev=$EV" "$D"
zpool sync "$P"
echo "pool $P"
"""


def test_hostile_strings_forge_no_record_in_the_timeline(zfs_guest: ZfsGuest) -> None:
    g = zfs_guest
    out = g.exec(["bash", "-c", SETUP], timeout=180).stdout
    pool = out.split("pool ", 1)[1].split()[0]
    made = "made" in out.split()
    try:
        t = read_timeline(g.host())
    finally:
        g.exec(["bash", "-c", f"zfs destroy -r {pool}/zc-hostile"
                + (f" && zpool destroy {pool}" if made else "")], timeout=180)
    events, history = t.source(Source.EVENTS), t.source(Source.HISTORY)
    assert events is not None and events.ok and history is not None and history.ok, t.sources
    # no forged ereport or statechange; the history_event holding them counted as damaged
    assert not any(abs(e.at - FORGED_AT) < 3600 for e in t.entries)
    assert not any(e.source is Source.EVENTS and e.kind in (Kind.ERROR, Kind.STATE)
                   and e.vdev == "vdb" and e.at > t.taken_at - 3600 for e in t.entries)
    assert "whose fields cannot be told apart from host text left out (damaged)" in events.note
    # the history: uid 1000's `zfs set`, one record, its line breaks visible; no root offline
    shown = [e for e in t.entries if e.source is Source.HISTORY]
    assert not any(e.words.startswith("zpool offline") for e in shown)
    note = [e for e in shown if e.words.startswith("zfs set com.example:note=x [user 0 (root)")]
    assert len(note) == 1 and note[0].detail == "by uid 1000 on zfsvm", note
    assert "\\n2025-11-28.10:00:00 zpool offline" in note[0].words
    assert history.note == ""  # every record verified against `zpool history -i`
