"""`zconsole exporter`: the hosts' metrics served over HTTP for Prometheus (`/metrics`).

    zconsole exporter                          # this machine, on 127.0.0.1:9939
    zconsole exporter --hosts [FILE]           # every host of a hosts file (hosts/fleet.py)
    zconsole exporter --host root@nas1 --host root@nas2
    zconsole exporter --demo-fleet --listen 127.0.0.1:0   # the demo fleet, any free port

The headless monitor (services/monitor) follows the hosts: one refresh loop per host, on a
thread of its own, every `--refresh` seconds, each read with its deadline (`--timeout`). A
scrape reads only what the monitor holds (services/monitor/metrics.py, a prometheus_client
collector): it never waits for a host, and a host that does not answer is `zconsole_up 0`
with its UNKNOWN findings while the others are served. `zconsole_reading_age_seconds` says how
old each host's `zpool status` is; one older than the refresh interval plus twice the timeout
is said as not read (the monitor's `stale_after`). SMART (`--smart`, on by default) is read
on a thread of its own at the console's cadence (each whole disk every 30 min with
`smartctl -n standby`: no disk is woken; a host that does not answer is not asked), never by
a scrape (services/monitor/metrics_smart.py).

It listens on 127.0.0.1 unless `--listen ADDR:PORT` says otherwise (the metrics name hosts,
pools and disks: expose them on purpose). 9939 is a choice of ours: Prometheus's port
allocation list (9100-9999) has been full since 2023. Every path answers with the metrics
(prometheus_client's WSGI app); requests are not logged. It runs until SIGINT or SIGTERM.
docs/zconsole-exporter.service is a systemd unit for it.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Any

from zconsole.cli.commands._target import add_fleet_options, add_target_options

DEFAULT_PORT = 9939
DEFAULT_LISTEN = f"127.0.0.1:{DEFAULT_PORT}"
DEFAULT_REFRESH = 30.0
DEFAULT_TIMEOUT = 20.0

TYPE_CHECKING = False
if TYPE_CHECKING:
    from wsgiref.simple_server import WSGIServer

    from zconsole.services.monitor.loop import Monitor


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    pe = sub.add_parser(
        "exporter", help="serve the hosts' metrics over HTTP for Prometheus (/metrics)",
        description="Follow the host (or every host of a hosts file) in the background and "
                    "serve its metrics, findings and verdicts for Prometheus.")
    add_target_options(pe, "exporter", "export")
    add_fleet_options(pe, "exporter", "export")
    pe.add_argument("--demo-fleet", dest="exporter_demo_fleet", action="store_true",
                    help="several demo hosts, one of them never answering")
    pe.add_argument("--listen", default=DEFAULT_LISTEN, metavar="ADDR:PORT",
                    help=f"where to listen (default {DEFAULT_LISTEN}; port 0: any free one)")
    pe.add_argument("--refresh", dest="exporter_refresh", type=float, default=None,
                    metavar="SECONDS", help=f"read each host every SECONDS (default "
                                            f"{DEFAULT_REFRESH:g})")
    pe.add_argument("--smart", dest="exporter_smart", action=argparse.BooleanOptionalAction,
                    default=True, help="read each whole disk's SMART at its own slow cadence "
                    "(smartctl -n standby, each disk every 30 min, never on a scrape; "
                    "default: on)")
    pe.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                    help=f"deadline of each read (default {DEFAULT_TIMEOUT:g})")


def listen_address(value: str) -> tuple[str, int]:
    """`ADDR:PORT` (`[::1]:PORT` for IPv6) as (address, port); ValueError when it is not."""
    addr, sep, port = value.rpartition(":")
    addr = addr[1:-1] if addr.startswith("[") and addr.endswith("]") else addr
    if not sep or not addr or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"--listen {value!r}: give ADDR:PORT, e.g. {DEFAULT_LISTEN}")
    return addr, int(port)


def monitor_for(args: argparse.Namespace, refresh: float) -> Monitor:
    """The monitor of the hosts named: `--hosts`/`--demo-fleet`/several `--host`, else one
    (`--host`, `--demo`, or this machine). HostsFileError (a ValueError) when the hosts file
    cannot be used."""
    from zconsole.cli.commands._target import fleet_entries, target_host
    from zconsole.hosts import factory
    from zconsole.services.monitor.loop import Monitor
    from zconsole.services.monitor.member import Member

    # a `zpool status` older than a refresh and a whole read (twice the deadline: `zfs
    # version`, then the reads) is said as not read: UNKNOWN, never the last known state
    mon = Monitor(stale_after=refresh + 2 * args.timeout + 5)
    entries = fleet_entries(args, "exporter")
    if entries is None:
        host = target_host(args, "exporter")
        mon.add(Member.of(str(host.label), host, timeout=args.timeout))
        return mon
    if not entries:
        raise ValueError("the hosts file has no [[host]]")
    zfs_version = getattr(args, "exporter_zfs_version", None) or args.zfs_version
    for e in entries:
        mon.add(Member.of(e.name, factory.make_host(e, zfs_version=zfs_version), e.tags,
                          timeout=args.timeout))
    return mon


def serve(monitor: Monitor, addr: str, port: int) -> tuple[WSGIServer, threading.Thread]:
    """The metrics of `monitor` served on addr:port by a thread per request (prometheus_client's
    WSGI app over a private registry), from a daemon thread; stop with `stop`."""
    import socket
    from socketserver import ThreadingMixIn
    from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

    from prometheus_client import make_wsgi_app

    from zconsole.services.monitor.metrics import registry_of, seen_of_member

    class Quiet(WSGIRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass  # a line per scrape on stderr is noise in a journal

    class Server(ThreadingMixIn, WSGIServer):
        daemon_threads = True
        address_family = socket.AF_INET6 if ":" in addr else socket.AF_INET

    registry = registry_of(lambda: [seen_of_member(monitor, m) for m in list(monitor.members)])
    httpd = make_server(addr, port, make_wsgi_app(registry), Server, handler_class=Quiet)
    t = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.2},
                         daemon=True, name="exporter http")
    t.start()
    return httpd, t


def stop(httpd: WSGIServer, t: threading.Thread) -> None:
    httpd.shutdown()
    httpd.server_close()
    t.join(timeout=5)


def run(args: argparse.Namespace) -> int:
    if getattr(args, "exporter_demo_fleet", False):
        args.demo_fleet = True
    refresh = args.exporter_refresh if args.exporter_refresh is not None else DEFAULT_REFRESH
    if refresh <= 0 or args.timeout <= 0:
        sys.stderr.write("zconsole exporter: --refresh and --timeout must be above 0\n")
        return 2
    try:
        addr, port = listen_address(args.listen)
        monitor = monitor_for(args, refresh)
    except (ValueError, OSError) as e:
        from zconsole.model.hosttext import visible

        sys.stderr.write(f"zconsole exporter: {visible(str(e))}\n")
        return 2
    done = threading.Event()

    def end(_sig: int, _frame: object) -> None:
        done.set()

    # before the address is said: a SIGTERM right after it still ends cleanly
    before = {sig: signal.signal(sig, end) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        return _serve_until(done, monitor, addr, port, refresh, args.listen,
                            smart=bool(getattr(args, "exporter_smart", True)))
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def _serve_until(done: threading.Event, monitor: Monitor, addr: str, port: int,
                 refresh: float, listen: str, *, smart: bool = True) -> int:
    try:
        httpd, t = serve(monitor, addr, port)
    except OSError as e:
        sys.stderr.write(f"zconsole exporter: cannot listen on {listen}: {e.strerror}\n")
        return 2
    monitor.start(interval=refresh, smart=smart)
    shown = f"[{addr}]" if ":" in addr else addr
    n = len(monitor.members)
    sys.stdout.write(f"zconsole exporter: serving http://{shown}:{httpd.server_port}/metrics "
                     f"for {n} host{'s' if n != 1 else ''}, each read every {refresh:g} s\n")
    sys.stdout.flush()
    while not done.wait(1.0):
        pass
    stop(httpd, t)
    monitor.stop(timeout=1.0)  # a read in flight is a daemon thread: it ends with us
    return 0
