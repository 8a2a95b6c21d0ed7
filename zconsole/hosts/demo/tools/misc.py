"""Small tools with fixed answers: `uname [-r]`, `hostname`, `id -u`, `true`. Any other
argument gives `PROGRAM: invalid option` (exit 1)."""

from __future__ import annotations

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
    if argv == []:
        return 0, ctx.machine.hostname + "\n", ""
    return _invalid("hostname")


def id_(ctx: Context, argv: list[str]) -> Out:
    if argv == ["-u"]:
        return 0, ("0\n" if ctx.root else "1000\n"), ""
    return _invalid("id")


def true(ctx: Context, argv: list[str]) -> Out:
    return 0, "", ""


HANDLERS: dict[str, Handler] = {"uname": uname, "hostname": hostname, "id": id_, "true": true}
