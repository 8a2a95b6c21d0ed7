"""Network tools: `ip -j link|addr` and `bridge -j vlan` (JSON only, as zconsole asks).
Their formats are in `render.net`."""

from __future__ import annotations

from zconsole.hosts.demo.render.net import bridge_vlan, ip_addr, ip_link
from zconsole.hosts.demo.tools._common import Context, Handler, Out


def ip(ctx: Context, argv: list[str]) -> Out:
    flags = [a for a in argv if a.startswith("-")]
    words = [a for a in argv if not a.startswith("-")]
    if "-j" not in flags and "-json" not in flags:
        return 1, "", "the demo answers only ip -j (JSON)\n"
    details = "-d" in flags or "-details" in flags
    if words[:1] in (["link"], ["l"]) and words[1:] in ([], ["show"]):
        return 0, ip_link(ctx.machine, details), ""
    if words[:1] in (["addr"], ["a"], ["address"]) and words[1:] in ([], ["show"]):
        return 0, ip_addr(ctx.machine), ""
    return 255, "", f'Object "{words[0] if words else ""}" is unknown, try "ip help".\n'


def bridge(ctx: Context, argv: list[str]) -> Out:
    flags = [a for a in argv if a.startswith("-")]
    words = [a for a in argv if not a.startswith("-")]
    if "-j" in flags and words[:1] == ["vlan"] and words[1:] in ([], ["show"]):
        return 0, bridge_vlan(ctx.machine), ""
    return 255, "", f'Command "{" ".join(words)}" is unknown, try "bridge help".\n'


HANDLERS: dict[str, Handler] = {"ip": ip, "bridge": bridge}
