"""The demo's programs, one module per program family; `PROGRAMS` maps a program name to
its handler and is what `DemoHost.run` looks a command up in.

| module | programs |
|---|---|
| `zpool` | zpool (status, list, iostat, get, set, attach, replace, detach, online, ...) |
| `zfs` | zfs (list, get, set, snapshot, destroy, clone, promote, send, receive, ...) |
| `block` | udevadm, lsblk, dd |
| `smart` | smartctl (`--json --all` reads; state in `..machine.smart`) |
| `net` | ip, bridge |
| `misc` | uname, hostname, id, true |
| `_common` | what they share: `Context`, `Usage`, `parse`, `deny`, `each`, `subcommands` |
| `_zpool_log` | what a successful `zpool` change leaves in the pool's history and events |

To add a program (say `systemctl`), write one module here with a `HANDLERS` dict
(`{"systemctl": systemctl}`); its state goes in `..machine`, its output format in `..render`.
Every module here whose name does not start with `_` is loaded: there is nothing to register.
"""

from __future__ import annotations

import importlib
import pkgutil

from zconsole.hosts.demo.tools._common import Handler


def _load() -> dict[str, Handler]:
    programs: dict[str, Handler] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for name, handler in module.HANDLERS.items():
            if name in programs:
                raise RuntimeError(f"demo program {name!r} is defined twice ({info.name})")
            programs[name] = handler
    return programs


PROGRAMS: dict[str, Handler] = _load()
