"""Small tools with fixed answers: `uname [-r]`, `hostname [-I]`, `id -u`, `true`, `date
[+FORMAT]` (the machine's clock, in UTC: the demo host's time zone). Any other argument gives
`PROGRAM: invalid option` (exit 1)."""

from __future__ import annotations

import datetime as dt

from zconsole.hosts.demo.tools._common import Context, Handler, Out


def _invalid(program: str) -> Out:
    return 1, "", f"{program}: invalid option\n"


def uname(ctx: Context, argv: list[str]) -> Out:
    if argv == ["-r"]:
        return 0, ctx.machine.kernel + "\n", ""
    if argv == []:
        return 0, "Linux\n", ""
    return _invalid("uname")


def hostname(ctx: Context, argv: list[str]) -> Out:
    """`hostname`; `hostname -I`: every address of the links that are up, loopback and
    IPv6 link-local left out, as net-tools prints them (space after each)."""
    if argv == []:
        return 0, ctx.machine.hostname + "\n", ""
    if argv == ["-I"]:
        addrs = [a for link in ctx.machine.links if link.up
                 for a, _ in [*link.addrs, *link.addrs6]
                 if not a.startswith(("fe80:", "127.")) and a != "::1"]
        return 0, "".join(a + " " for a in addrs) + "\n", ""
    return _invalid("hostname")


def id_(ctx: Context, argv: list[str]) -> Out:
    if argv == ["-u"]:
        return 0, ("0\n" if ctx.root else "1000\n"), ""
    return _invalid("id")


def true(ctx: Context, argv: list[str]) -> Out:
    return 0, "", ""


def date(ctx: Context, argv: list[str]) -> Out:
    """`date` and `date +FORMAT` (strftime's conversions; %Z reads UTC)."""
    t = dt.datetime.fromtimestamp(int(ctx.now), dt.timezone.utc)
    if argv == []:
        return 0, t.strftime("%a %b %e %H:%M:%S UTC %Y") + "\n", ""
    if len(argv) == 1 and argv[0].startswith("+"):
        fmt = argv[0][1:].replace("%s", str(int(ctx.now)))
        return 0, t.strftime(fmt) + "\n", ""
    return 1, "", f"date: invalid date '{argv[0]}'\n"


HANDLERS: dict[str, Handler] = {"uname": uname, "hostname": hostname, "id": id_, "true": true,
                                "date": date}
