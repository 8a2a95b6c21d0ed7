"""`zconsole` entry point.

    zconsole                         the console on this machine (demo host when no ZFS here)
    zconsole --demo [SCENARIO]       the console on the built-in demo host
    zconsole --host user@box         the console on a remote host over ssh
    zconsole --host a --host b       several hosts (the Fleet screen); --hosts [FILE]: a hosts
                                     file; --demo-fleet: several demo hosts; --tag T:
                                     only the hosts tagged T
    zconsole parse KIND [FILE|-]     render output pasted from another host (--json: the model)
    zconsole capture --host H DIR    record every read command's output into a fixture dir
    zconsole plan KIND POOL ... --dry-run   print a disk operation's plan (nothing runs)
"""

from __future__ import annotations

import argparse
import gc
import os
import sys

from zconsole import __version__, reader_gone, terminal_columns
from zconsole.cli.commands import COMMANDS, load

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:
    from collections.abc import Sequence

    from zconsole.hosts.base import Host
    from zconsole.hosts.fleet import HostEntry
    from zconsole.services.fleet import Member

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
REFRESH_MIN, REFRESH_MAX = 0.5, 3600.0


class _Version(argparse.Action):
    """`--version`: prints the version as it is, without a help formatter (whose width
    lookup imports shutil, and its compressors with it)."""

    def __init__(self, option_strings: list[str], dest: str, **kw: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show program's version number "
                         "and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f"zconsole {__version__}")
        parser.exit()


def _formatter(prog: str) -> argparse.HelpFormatter:
    """argparse's formatter at the width it would choose itself (COLUMNS, else the
    terminal's, else 80; less 2), found without importing shutil."""
    return argparse.HelpFormatter(prog, width=terminal_columns() - 2)


def render_help(columns: int) -> str:
    """`zconsole --help` as argparse prints it in a terminal `columns` wide: what
    tools/write_help.py stores in zconsole/cli/help.txt for `zconsole.__main__`."""
    parser = build_parser([])
    parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=columns - 2)
    return parser.format_help()


def _seconds(text: str) -> float:
    """`--refresh`: a number of seconds a refresh can take turns at (0 would refresh without
    a pause, a negative one never)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not REFRESH_MIN <= value <= REFRESH_MAX:  # NaN fails both
        raise argparse.ArgumentTypeError(
            f"{text} s: the refresh interval is from {REFRESH_MIN:g} to {REFRESH_MAX:g} seconds")
    return value


def unknown_option(parser: argparse.ArgumentParser, argv: Sequence[str]) -> str | None:
    """The first `--word` before the subcommand that is no option of zconsole's (nor an
    abbreviation argparse would take), said as such: argparse alone reports the word after
    it as an invalid COMMAND (`--hots x`: "invalid choice: 'x'")."""
    known = {s for action in parser._actions for s in action.option_strings}
    for word in argv:
        if word == "--" or word in COMMANDS:
            return None  # a subcommand's options are its own parser's to judge
        name = word.split("=", 1)[0]
        if name.startswith("--") and not any(k.startswith(name) for k in known):
            import difflib

            close = difflib.get_close_matches(name, sorted(known), n=1)
            return f"unknown option {name}" + (f" (did you mean {close[0]}?)" if close else "")
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line. A subcommand's own parser (whose module may import much of
    zconsole) is built only when that subcommand is named: the others get a bare entry with
    their help line from `COMMANDS`, so `zconsole --help`, `--version` and the console
    import none of them."""
    words = set(sys.argv[1:] if argv is None else argv)
    p = argparse.ArgumentParser(
        prog="zconsole", formatter_class=_formatter,
        description="A terminal operations console for Linux hosts running OpenZFS.",
    )
    p.add_argument("--version", action=_Version)
    where = p.add_mutually_exclusive_group()
    where.add_argument("--host", metavar="[USER@]HOST", action="append",
                       help="look at a remote host over ssh (your ~/.ssh/config applies); "
                            "again for several hosts (the Fleet screen, key 9)")
    where.add_argument("--hosts", metavar="FILE", nargs="?", const="",
                       help="look at every host of a hosts file (default "
                            "$XDG_CONFIG_HOME/zconsole/hosts.toml; README: its format)")
    where.add_argument("--demo-fleet", action="store_true",
                       help="several demo hosts, one of them never answering (Fleet screen)")
    where.add_argument("--demo", metavar="SCENARIO", nargs="?", const="showcase",
                       help="use the built-in demo host; SCENARIO 'list' lists them")
    where.add_argument("--local", action="store_true",
                       help="look at this machine even without OpenZFS (its disks and network "
                            "are real; the ZFS screens say ZFS is missing)")
    p.add_argument("--tag", metavar="TAG", action="append",
                   help="with --hosts or --demo-fleet: only the hosts that carry this tag "
                        "(again: every tag given)")
    p.add_argument("--ssh-config", metavar="FILE", help="extra ssh config file for --host")
    p.add_argument("--zfs-version", choices=("2.1", "2.3"), default="2.3",
                   help="OpenZFS version the demo host imitates (default 2.3)")
    p.add_argument("--theme", default=None, help="theme name (dark, light, high-contrast)")
    p.add_argument("--read-only", action="store_true",
                   help="hide every write action (for screen sharing)")
    p.add_argument("--refresh", type=_seconds, default=5.0, metavar="SECONDS",
                   help=f"refresh interval, {REFRESH_MIN:g} to {REFRESH_MAX:g} (default 5)")
    p.add_argument("--demo-state", metavar="DIR",
                   help="keep the demo host's machine, audit log, plans and muted advice in "
                        "DIR, so a rehearsal killed midway resumes (default: this run's own, "
                        "gone when it ends)")

    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name, line in COMMANDS.items():
        if name in words:
            load(name).add_parser(sub)
        else:
            sub.add_parser(name, help=line, add_help=False)  # not named: never parses
    return p


def choose_host(args: argparse.Namespace) -> tuple[Host, str | None]:
    """The host to look at, and a notice for the operator (why the demo host was chosen)."""
    from zconsole.hosts.factory import Target, make_host

    if args.host:
        from zconsole.cli.commands._target import one_destination

        dest = one_destination(args.host, "console shows")
        assert dest is not None
        return make_host(Target.ssh(dest, ssh_config=args.ssh_config)), None
    if args.demo:
        return make_host(Target.demo(args.demo, zfs_version=args.zfs_version,
                                     rehearse=True)), None
    local = make_host(Target.local())
    if getattr(args, "local", False) or has_zfs(local):
        return local, None
    return (make_host(Target.demo("showcase", zfs_version=args.zfs_version, rehearse=True)),
            "No OpenZFS on this machine: showing the built-in demo host "
            "(zconsole --local shows this machine's own disks and network).")


def make_fleet(entries: Sequence[HostEntry], zfs_version: str) -> list[Member]:
    """One Member (a Host and its session) per entry, in the file's order."""
    from zconsole.hosts.factory import make_host
    from zconsole.services.fleet import Member

    return [Member.of(e.name, make_host(e, zfs_version=zfs_version), e.tags) for e in entries]


def has_zfs(host: Host) -> bool:
    from zconsole.hosts.base import HostError

    try:
        host.read_text("/sys/module/zfs/version")
        return True
    except HostError:
        pass
    try:
        host.run(["zpool", "version"], timeout=10, check=False)
        return True
    except HostError:
        return False


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # `zconsole parse ... | head`: the reader went away
        return reader_gone()


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser(argv)
    wrong = unknown_option(parser, sys.argv[1:] if argv is None else argv)
    if wrong is not None:
        parser.error(wrong)
    args, extra = parser.parse_known_args(argv)
    if args.command == "parse":
        extra = load("parse").take_back_file(args, extra)
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.demo_state:
        from zconsole.hosts.journal import DEMO_STATE_ENV

        os.environ[DEMO_STATE_ENV] = os.path.abspath(os.path.expanduser(args.demo_state))
    elif args.demo is not None:
        from zconsole.hosts.journal import remove_demo_state_on_signals

        remove_demo_state_on_signals()  # this run's own demo state: not left on a hang-up
    if args.command:
        code: int = load(args.command).run(args)
        return code
    # The console's start-up imports Textual and zconsole and builds its screens: hundreds of
    # thousands of objects that all live as long as the console, among which the cyclic
    # garbage collector runs hundreds of collections that free nothing. It is held until the
    # first reading is on screen (ZConsoleApp, collector_held), then frozen and let go.
    gc.disable()
    try:
        return _console(args)
    finally:
        gc.enable()


def _console(args: argparse.Namespace) -> int:
    from zconsole.hosts.base import HostError
    from zconsole.model.hosttext import visible

    if args.demo == "list":
        from zconsole.hosts.demo import list_scenarios

        scenarios = list_scenarios()
        width = max(len(name) for name, _ in scenarios)
        for name, text in scenarios:
            print(f"{name:{width}}  {text}")
        return EXIT_OK
    if args.theme is not None:
        from zconsole.ui.themes import theme_names

        if args.theme not in (names := theme_names()):
            print(f"zconsole: no theme {visible(args.theme)!r}; the themes are "
                  f"{', '.join(names)}", file=sys.stderr)
            return EXIT_USAGE
    from zconsole.cli.commands._target import fleet_entries
    from zconsole.hosts.fleet import HostsFileError

    try:
        entries = fleet_entries(args, "console")
        if entries is not None:
            if not entries:
                raise HostsFileError("the hosts file has no [[host]]")
            fleet = make_fleet(entries, args.zfs_version)
            host, notice = fleet[0].host, None
        else:
            fleet = None
            host, notice = choose_host(args)
    except (HostError, KeyError, ValueError) as e:
        print(f"zconsole: {visible(str(e))}", file=sys.stderr)
        return EXIT_ERROR
    if not sys.stdout.isatty() and not os.environ.get("ZCONSOLE_FORCE_UI"):
        print("zconsole: the console needs a terminal (stdout is not a tty)", file=sys.stderr)
        return EXIT_USAGE
    from zconsole.ui.app import ZConsoleApp

    app = ZConsoleApp(host, notice=notice, theme_name=args.theme, read_only=args.read_only,
                      refresh_interval=args.refresh, collector_held=True, fleet=fleet)
    app.run()
    return EXIT_OK
