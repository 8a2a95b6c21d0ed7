"""Vdev types from vdev names, as both `zpool status` forms name them (`mirror-1`,
`raidz2-0`, `draid1:4d:1s:6c-0`, `spare-3`, a file's path). A module of its own: the JSON
status parser needs only this of the text form's config table (`zpool_status_config`), and a
host that speaks JSON never loads the text parser (the console's first frame, issue 28).
"""

from __future__ import annotations

import re

_MIRROR = re.compile(r"^mirror(?:-[0-9]+)?$")
_RAIDZ = re.compile(r"^raidz(?P<p>[1-3])?(?:-[0-9]+)?$")
_DRAID = re.compile(r"^draid(?P<p>[1-3])?(?::[0-9]+[a-z])*-[0-9]+$")
_DSPARE = re.compile(r"^draid[1-3]-[0-9]+-[0-9]+$")
_REPLACING = re.compile(r"^replacing-[0-9]+$")
_SPARE = re.compile(r"^spare-[0-9]+$")
_INDIRECT = re.compile(r"^indirect-[0-9]+$")


def vdev_type_from_name(name: str) -> tuple[str, int | None]:
    """`raidz2-0` -> ('raidz', 2), `mirror-1` -> ('mirror', None), `/tank/f1` -> ('file',
    None)."""
    if _MIRROR.match(name):
        return "mirror", None
    m = _RAIDZ.match(name)
    if m:
        return "raidz", int(m.group("p") or 1)
    if _DSPARE.match(name):
        return "dspare", None
    m = _DRAID.match(name)
    if m:
        return "draid", int(m.group("p") or 1)
    if _REPLACING.match(name):
        return "replacing", None
    if _SPARE.match(name):
        return "spare", None
    if _INDIRECT.match(name):
        return "indirect", None
    if name.startswith("/") and not name.startswith("/dev/"):
        return "file", None
    return "disk", None
