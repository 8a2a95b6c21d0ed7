"""fix-ssh-auth's refusal when switching a method off could lock someone out (issue 26,
item 9), which `sshd -t` cannot see (it checks the syntax, not who can still log in):

* an `AuthenticationMethods` line, global or in a Match block, names the method
  (sshd_config(5), AuthenticationMethods: the methods a user must complete to be let in,
  each comma-separated list in order, one of the space-separated lists; Match: the lines
  after it apply to the clients it matches): a user whose every list needs a method sshd
  no longer offers cannot log in at all. `keyboard-interactive` is
  KbdInteractiveAuthentication (and its alias ChallengeResponseAuthentication),
  `gssapi-with-mic` GSSAPIAuthentication, `hostbased` HostbasedAuthentication;
  KerberosAuthentication checks a password (the `password` method): it has no name of its
  own there;
* sshd's journal of the last week shows logins that used it (`Accepted
  keyboard-interactive/pam for USER from ...`, or `Partial ...` for one step of a chain).

Each is a blocking check naming whom it locks out (every user, the users or the group a
Match line names, the users the journal shows) and the file:line or the journal line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from zconsole.hosts.base import Host, HostError
from zconsole.model.fixit import ConfigLine, JournalLine, SshdSources
from zconsole.model.plan import Check, CheckLevel
from zconsole.parsers.errors import ParseError
from zconsole.parsers.journal import login_lines, parse_journal_json
from zconsole.services.health.fixit import AUTH_KEYS
from zconsole.services.read.fixit import login_journal

# what AuthenticationMethods (and sshd's `Accepted METHOD` lines) call each method
# (sshd_config(5): "keyboard-interactive", "gssapi-with-mic", "hostbased"; Kerberos checks
# a password: it has no name of its own there)
AUTH_NAMES = {"kbdinteractiveauthentication": "keyboard-interactive",
              "gssapiauthentication": "gssapi-with-mic",
              "hostbasedauthentication": "hostbased"}
USED_SINCE = "-168h"  # the logins looked at: the last week of the journal
_USED = re.compile(r"(Accepted|Partial) (\S{1,64}) for (\S{1,255}) from (\S{1,255})")


def _in_methods(value: str, name: str) -> bool:
    """`value` (an AuthenticationMethods line: space-separated lists of comma-separated
    methods, each maybe `method:submethod`) names `name`."""
    return any(m.split(":", 1)[0].lower() == name
               for chain in value.split() for m in chain.split(","))


def who(match: str | None) -> str:
    """Whom a line applies to, in words: every user, or what its Match line names."""
    if match is None:
        return "every user"
    words = match.split()[1:]
    said = {"user": "users {}", "group": "members of group {}", "address": "clients from {}",
            "host": "clients from host {}", "localaddress": "connections to {}",
            "localport": "connections to port {}"}
    parts: list[str] = []
    i = 0
    while i < len(words):
        crit = words[i].lower()
        if crit == "all" or i + 1 >= len(words):
            parts.append("every user")
            i += 1
            continue
        parts.append(said.get(crit, crit + " {}").format(words[i + 1]))
        i += 2
    return " and ".join(parts) or "every user"


def required_by(sources: SshdSources, method: str) -> list[ConfigLine]:
    """The AuthenticationMethods lines (global or in a Match block) that name `method`."""
    name = AUTH_NAMES.get(method)
    if name is None:
        return []
    return [c for c in sources.all_of("authenticationmethods") if _in_methods(c.value, name)]


def used_by(journal: Sequence[JournalLine], method: str) -> dict[str, list[JournalLine]]:
    """user -> sshd's lines of the logins that used `method` (`Accepted` or, one step of
    a chain, `Partial`)."""
    name = AUTH_NAMES.get(method)
    out: dict[str, list[JournalLine]] = {}
    if name is None:
        return out
    for j in journal:
        m = _USED.match(j.message)
        if m is not None and m.group(2).split("/", 1)[0].lower() == name:
            out.setdefault(m.group(3), []).append(j)
    return out


def lockout(method: str, sources: SshdSources, journal: Sequence[JournalLine] | None
            ) -> list[Check]:
    """Why switching `method` off could lock someone out (blocking checks), or a warning
    when the journal could not be read."""
    name, auth = AUTH_KEYS[method], AUTH_NAMES.get(method)
    out: list[Check] = []
    lines = required_by(sources, method)
    if lines:
        said = "; ".join(f"{c.where}: `AuthenticationMethods {c.value}`"
                         + (f" inside `{c.match}`" if c.match else "")
                         + f" ({who(c.match)})" for c in lines)
        out.append(Check("authentication-methods", False, CheckLevel.BLOCK,
                         f"{name} off would lock out {', '.join(who(c.match) for c in lines)}"
                         f": {said} requires {auth}, which sshd would no longer offer. "
                         "`sshd -t` cannot see this. Change those lines first"))
    if journal is None:
        if auth is not None:
            out.append(Check("recent-logins", False, CheckLevel.WARN,
                             "sshd's journal could not be read: whether anyone logged in "
                             f"with {auth} lately is not known"))
        return out
    used = used_by(journal, method)
    if used:
        users = ", ".join(f"{u} ({len(js)} login{'s' if len(js) > 1 else ''}, last: "
                          f"{js[-1].text})" for u, js in used.items())
        out.append(Check("recent-logins", False, CheckLevel.BLOCK,
                         f"{name} off would lock out {', '.join(used)}: the journal of the "
                         f"last week shows logins with {auth}: {users}"))
    return out


def read_journal(host: Host) -> tuple[JournalLine, ...] | None:
    """sshd's journal of the last week (the lines that say how each login authenticated),
    None when it could not be read."""
    try:
        r = host.run(list(login_journal(USED_SINCE)), check=False)
        if r.returncode != 0:
            return None
        return login_lines(parse_journal_json(r.stdout)[0])[0]  # sshd's own, not forged
    except (HostError, OSError, ParseError):
        return None
