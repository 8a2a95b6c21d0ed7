"""What a successful `zpool` change leaves behind in the demo host: its `zpool history`
record and the `zpool events` it raises (attach, replace, detach, online, offline, scrub,
clear), as OpenZFS logs them (machine/zlog.py), so the Timeline shows what the operator did."""

from __future__ import annotations

from zconsole.hosts.demo.machine import scans, zlog
from zconsole.hosts.demo.machine.pools import Pool, Vdev
from zconsole.hosts.demo.tools._common import Context, Handler, Out


def _leaf(pool: Pool, name: str) -> Vdev | None:
    short = name.rsplit("/", 1)[-1]
    for v in pool.root.walk():
        if v.is_leaf and (v.name() == short or v.disk == short or v.path == name):
            return v
    return None


def _remember(sub: str, ctx: Context, argv: list[str], at: float) -> None:
    """The history record and events a successful `zpool SUB` leaves (machine/zlog.py)."""
    m = ctx.machine
    args = [a for a in argv if not a.startswith("-")]
    names = args if sub == "scrub" else args[:1]
    for name in names:
        pool = m.pools.get(name)
        if pool is None:
            continue
        zlog.command(m, pool, at, ["zpool", sub, *argv])
        if sub == "scrub":
            if "-s" in argv:
                zlog.event(m, at, "sysevent.fs.zfs.scrub_abort", pool)
                zlog.internal(m, pool, at, "scan aborted", "errors=0")
            elif "-p" in argv:
                zlog.event(m, at, "sysevent.fs.zfs.scrub_paused", pool)
            else:
                zlog.scan_started(m, pool, at, True)
        elif sub in ("replace", "attach") and len(args) >= 2:
            new = _leaf(pool, args[-1])
            old = args[1]
            if new is not None:
                zlog.internal(m, pool, at, "vdev attach",
                              f"{'replace' if sub == 'replace' else 'attach'} "
                              f"vdev={new.path} for vdev={old}")
                zlog.event(m, at, "sysevent.fs.zfs.vdev_attach", pool, zlog.vdev_fields(new))
                if not scans.is_deferred(pool, new):  # a deferred one starts when its turn comes
                    zlog.scan_started(m, pool, at, False)
                zlog.config_sync(m, pool, at)
        elif sub == "detach" and len(args) >= 2:
            zlog.internal(m, pool, at, "detach", f"vdev={args[1]}")
            zlog.config_sync(m, pool, at)
        elif sub in ("offline", "online") and len(args) >= 2:
            for dev in args[1:]:
                leaf = _leaf(pool, dev)
                if leaf is None:
                    continue
                if sub == "online":
                    zlog.event(m, at, "sysevent.fs.zfs.vdev_online", pool,
                               zlog.vdev_fields(leaf))
                    zlog.statechange(m, at, pool, leaf, leaf.state, "OFFLINE")
                else:
                    zlog.statechange(m, at, pool, leaf, "OFFLINE", "ONLINE")
        elif sub == "clear":
            leaf = _leaf(pool, args[1]) if len(args) >= 2 else None
            zlog.event(m, at, "sysevent.fs.zfs.vdev_clear", pool,
                       zlog.vdev_fields(leaf if leaf is not None else pool.root))


def logged(sub: str, handler: Handler) -> Handler:
    """`handler`, leaving in the pool's history and events what it did when it succeeded."""

    def run(ctx: Context, argv: list[str]) -> Out:
        at = ctx.now
        out = handler(ctx, argv)
        if out[0] == 0:
            _remember(sub, ctx, argv, at)
        return out

    return run
