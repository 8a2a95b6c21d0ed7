"""`zconsole check --mute KIND:SUBJECT --reason TEXT` (and `--unmute KIND:SUBJECT`): the
operator's "I know, and here is why" from the command line, for the findings the console's
Advice screen cannot show (issue 30: a SMART kind of `services/health/severity.MUTABLE`,
such as `smart-crc:sdc` for a cable they know about, or `smart-counters:sdb` for a disk
already scheduled for replacement).

The mute is kept where the console's `m` keeps it (`hosts.journal.MuteStore`, per host, by
the host's label, the name its readings go by, with its reason) before the host is read, so
a host that does not answer keeps it too; the same check's verdict, the console, Fleet and
the metrics leave it out alike. A
kind that is not mutable (a FAILED disk, a pool's health) is refused before anything is
read.
"""

from __future__ import annotations

import argparse

from zconsole.hosts.base import Host, HostError


def add_options(pc: argparse.ArgumentParser) -> None:
    pc.add_argument("--mute", action="append", default=[], metavar="KIND:SUBJECT",
                    help="mute a finding on this host with --reason (a slow disk, advice, "
                         "smart-crc, smart-counters, smart-self-test, smart-wear; never a "
                         "failed disk), then check")
    pc.add_argument("--unmute", action="append", default=[], metavar="KIND:SUBJECT",
                    help="take a mute back, then check")
    pc.add_argument("--reason", default="", metavar="TEXT",
                    help="why the muted finding is fine on this host (kept and shown)")


def split(text: str) -> tuple[str, str]:
    kind, sep, subject = text.partition(":")
    if not sep or not kind.strip() or not subject.strip():
        raise ValueError(f"{text!r}: give KIND:SUBJECT, e.g. smart-crc:sdc")
    return kind.strip(), subject.strip()


def refusal(args: argparse.Namespace) -> str | None:
    """Why the mutes asked cannot be made (None: they can), before anything is read."""
    from zconsole.services.health.severity import mutable

    asked = list(getattr(args, "mute", None) or ())
    undo = list(getattr(args, "unmute", None) or ())
    try:
        pairs = [split(t) for t in (*asked, *undo)]
    except ValueError as e:
        return str(e)
    if asked and not " ".join(str(getattr(args, "reason", "")).split()):
        return "--mute needs --reason: it is what the next admin reads"
    for kind, _subject in pairs[:len(asked)]:
        if not mutable(kind):
            return (f"{kind} cannot be muted: only a slow disk, advice and the SMART kinds an "
                    "admin can knowingly live with (smart-crc, smart-counters, "
                    "smart-self-test, smart-wear); a failed disk is never muted")
    return None


def host_label(host: Host) -> str:
    """The name a host's readings, and so its mutes, go by (`HostReading.host`)."""
    try:
        return str(host.label)
    except HostError:
        return "host"


def apply(host: Host, host_name: str, args: argparse.Namespace, now: float) -> str | None:
    """Keep the mutes asked for `host_name` (after `refusal` said none); the error when the
    store could not be written."""
    asked = list(getattr(args, "mute", None) or ())
    undo = list(getattr(args, "unmute", None) or ())
    if not asked and not undo:
        return None
    from zconsole.hosts.journal import MuteStore
    from zconsole.model.advice import Mute

    store = MuteStore.default(simulated=bool(getattr(host, "simulated", False)))
    reason = " ".join(str(getattr(args, "reason", "")).split())
    try:
        for text in undo:
            store.unmute(host_name, *split(text))
        for text in asked:
            kind, subject = split(text)
            store.mute(host_name, Mute(kind, subject, reason, now))
    except (OSError, ValueError) as e:
        return str(e)
    return None
