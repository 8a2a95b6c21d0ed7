"""`sleep NUMBER[SUFFIX]...` (GNU coreutils): pause for the sum of the times given (s, m, h,
d; a fraction allowed). On the demo, time passes as `zpool wait`'s does: the tests' instant
machine jumps ahead, a rehearsal waits on the wall clock (`Context.wait_until`). What the
plan runner's `hurry` of a SMART self-test asks (services/ops/smart/watch.py).
"""

from __future__ import annotations

import re

from zconsole.hosts.demo.tools._common import Context, Handler, Out

_TIME = re.compile(r"^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$")
_UNIT = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def sleep(ctx: Context, argv: list[str]) -> Out:
    if not argv:
        return 1, "", "sleep: missing operand\nTry 'sleep --help' for more information.\n"
    total = 0.0
    for a in argv:
        m = _TIME.match(a)
        if m is None:
            return 1, "", (f"sleep: invalid time interval '{a}'\n"
                           "Try 'sleep --help' for more information.\n")
        total += float(m.group(1)) * _UNIT[m.group(2)]
    end = ctx.now + total
    if ctx.wait_until is not None:
        ctx.wait_until(lambda t: end if t < end else None)
    else:
        ctx.fast_forward(end)
    return 0, "", ""


HANDLERS: dict[str, Handler] = {"sleep": sleep}
