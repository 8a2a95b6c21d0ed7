"""The fix-it domain's predicate kinds, registered with the engine's evaluator.

Kinds (params):
  file_line (path, line, text)      line `line` (1-based) of `path` reads `text` exactly
  file_absent (path)                `path` does not exist
  file_sha256 (path, sha256[, text]) `path` is byte for byte the text whose sha256 is
                                    `sha256` (read through the host, hashed here); when not,
                                    the sentence shows the diff of `text` (what was expected)
                                    against the file now
  file_lines_within (path, lines)   every line of `path` that is not blank or a comment is,
                                    stripped, one of `lines` (tab-separated): a file another
                                    program wrote (netplan's) holds nothing but what the fix
                                    made it write (and what it held before); no file holds
  not_symlink (path)                `readlink -- path` prints nothing (exit 1): the file
                                    itself, not a link (a refusal names the link's target)
  files_equal (path, copy)          `cmp -s path copy`: the two files are byte for byte equal
  sshd_effective (key, value[, connection])
                                    `sshd -T` prints `key value` (the effective setting;
                                    with `connection`, `sshd -T -C connection`: for that
                                    client, its Match blocks applied)
  sshd_valid ()                     `sshd -t` accepts sshd's files as they are (exit 0)
  logind_answers (seconds, want)    `loginctl list-sessions` (a D-Bus call to systemd-logind)
                                    answers within `seconds` (want "yes", the default) or
                                    does not (want "no")
  login_fast (seconds)              a fresh `ssh -o BatchMode=yes ADDRESS true` from the host's
                                    own address (`hostname -I`) gets an answer from sshd
                                    within `seconds`, or no slower than one from localhost
                                    (which needs no name lookup) in the same round
  login_answers ([need])            a fresh `ssh -o BatchMode=yes localhost true` is answered
                                    by sshd (logged in, or the key refused): it still serves
                                    logins after a change that is not about their speed;
                                    need "login": only a login that succeeds holds (after an
                                    authentication change a refusal proves nothing)
  path_exists (path, want)          `test -e path` says it exists (want "yes") or not ("no"):
                                    directories and /sys/class/net/IFACE too
  command_line (argv, line, want)   the read-only `argv` (tab-separated) prints a line that
                                    reads `line` (want "yes") or none (want "no"), whatever
                                    its exit code (`systemctl is-enabled` of a masked unit
                                    exits 1)
  link_setup (name, setup)          `networkctl list` shows link `name` in setup state
                                    `setup` (configuring: wait-online still waits for it)
  unit_exec_start (unit, value)     `systemctl cat unit`: after every file and drop-in, in
                                    the order systemd applies them (`ExecStart=` empties the
                                    list), the one ExecStart left is `value`

A read that fails raises `ReadFailed`: the outcome is unknown, never "holds".
"""

from __future__ import annotations

from zconsole.hosts.base import HostError, PathNotFound, Result
from zconsole.model.plan import Predicate
from zconsole.parsers.errors import ParseError
from zconsole.parsers.systemd import parse_networkctl_list
from zconsole.services.ops.engine.predicates import Evaluator, ReadFailed, predicate_kind
from zconsole.services.ops.fixit.lines import sha256, text_lines, unified_diff

SSHD = "/usr/sbin/sshd"

#: the predicate kinds this domain registers with the engine
KINDS = ("file_line", "file_absent", "file_sha256", "file_lines_within", "not_symlink", "files_equal", "sshd_effective", "sshd_valid",
         "logind_answers", "login_fast", "login_answers", "path_exists", "command_line", "link_setup",
         "unit_exec_start")
# a fresh login from the host to itself: no key prompt, no host-key question, no file written
LOGIN_OPTIONS: tuple[str, ...] = (
    "-o", "BatchMode=yes", "-o", "ConnectTimeout=30",
    "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
    "-o", "LogLevel=ERROR")
# a login from the own address no slower than this times one from localhost, plus the
# slack, counts as fast (the two differ by a few tenths on an idle host)
BASE_FACTOR, BASE_SLACK = 1.5, 1.0
NSSWITCH = "/etc/nsswitch.conf"


def login_argv(target: str) -> tuple[str, ...]:
    return ("ssh", *LOGIN_OPTIONS, target, "true")
# sshd answered (the login itself may be refused: root has no key for itself)
ANSWERED = ("Permission denied",)


def _text(ev: Evaluator, path: str) -> str | None:
    def read() -> str | None:
        try:
            return ev.host.read_text(path)
        except PathNotFound:
            return None
        except (HostError, OSError) as e:
            raise ReadFailed(f"{path} could not be read: {e}") from None
    return ev.reading(f"file:{path}", read)


@predicate_kind("file_line")
def file_line(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    path, n, want = p.param("path"), int(p.param("line")), p.param("text")
    text = _text(ev, path)
    if text is None:
        return False, f"{path} does not exist"
    lines = text_lines(text)  # on \n only, as sed counts them
    got = lines[n - 1] if 0 < n <= len(lines) else None
    if got == want:
        return True, f"{path}:{n} reads {want!r}"
    return False, f"{path}:{n} reads {got!r}, not {want!r}" if got is not None \
        else f"{path} has {len(lines)} lines, no line {n}"


@predicate_kind("file_absent")
def file_absent(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    path = p.param("path")
    if _text(ev, path) is None:
        return True, f"{path} does not exist"
    return False, f"{path} exists"


@predicate_kind("file_sha256")
def file_sha256(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    path, want = p.param("path"), p.param("sha256")
    expected = dict(p.params).get("text")
    text = _text(ev, path)
    if text is None:
        return False, f"{path} does not exist"
    got = sha256(text)
    if got == want:
        return True, f"{path} is byte for byte as expected (sha256 {want[:12]}…)"
    said = f"{path} changed (sha256 {got[:12]}…, not {want[:12]}…)"
    if expected is None:
        return False, said
    diff = unified_diff(path, expected, text)
    return False, f"{said}; what changed since:\n{diff}" if diff else said


def lines_beyond(text: str, allowed: set[str]) -> list[str]:
    """The lines of `text` (stripped; not blank, not a comment) that are not in `allowed`."""
    return [x.strip() for x in text_lines(text)
            if x.strip() and not x.strip().startswith("#") and x.strip() not in allowed]


@predicate_kind("file_lines_within")
def file_lines_within(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    path, allowed = p.param("path"), set(p.param("lines").split("\t"))
    text = _text(ev, path)
    if text is None:
        return True, f"{path} does not exist"
    extra = lines_beyond(text, allowed)
    if not extra:
        return True, f"{path} holds only what the fix wrote"
    shown = "; ".join(repr(x) for x in extra[:5]) + (" …" if len(extra) > 5 else "")
    return False, f"{path} holds lines the fix did not write: {shown}"


@predicate_kind("not_symlink")
def not_symlink(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    path = p.param("path")
    r = _run(ev, ("readlink", "--", path))
    target = r.stdout.strip()
    if r.returncode == 0 and target:
        real = ev.host.realpath(path)
        to = target if real in ("", path, target) else f"{target} (resolved: {real})"
        return False, f"{path} is a symbolic link to {to}"
    if r.returncode in (0, 1):
        return True, f"{path} is not a symbolic link"
    raise ReadFailed(f"readlink {path}: exit {r.returncode} {r.stderr.strip()}")


def _run(ev: Evaluator, argv: tuple[str, ...]) -> Result:
    try:
        return ev.host.run(list(argv), timeout=ev.timeout, check=False)
    except HostError as e:
        raise ReadFailed(f"{' '.join(argv)} could not be run: {e}") from None


@predicate_kind("files_equal")
def files_equal(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    path, copy = p.param("path"), p.param("copy")
    r = _run(ev, ("cmp", "-s", path, copy))
    if r.returncode == 0:
        return True, f"{path} is byte for byte {copy}"
    if r.returncode == 1:
        return False, f"{path} differs from {copy}"
    raise ReadFailed(f"cmp {path} {copy}: exit {r.returncode} {r.stderr.strip()}")


def effective(ev: Evaluator, connection: str = "") -> dict[str, str]:
    """`sshd -T` (with `-C connection`: for that client, Match blocks applied) as keyword ->
    first value (read once per round)."""
    argv = (SSHD, "-T", *(("-C", connection) if connection else ()))
    shown = " ".join(argv)

    def read() -> dict[str, str]:
        r = _run(ev, argv)
        if r.returncode != 0:
            raise ReadFailed(f"{shown}: exit {r.returncode}: {r.stderr.strip()}")
        out: dict[str, str] = {}
        for line in r.stdout.splitlines():
            key, _, value = line.partition(" ")
            out.setdefault(key.lower(), value.strip())
        return out
    return ev.reading(shown, read)


@predicate_kind("sshd_effective")
def sshd_effective(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    key, want = p.param("key").lower(), p.param("value").lower()
    connection = dict(p.params).get("connection", "")
    shown = f"sshd -T -C {connection}" if connection else "sshd -T"
    got = effective(ev, connection).get(key)
    if got is not None and got.lower() == want:
        return True, f"{shown} shows `{key} {got}`"
    return False, f"{shown} shows `{key} {got}`" if got is not None \
        else f"{shown} does not show {key}"


SSHD_T: tuple[str, ...] = (SSHD, "-t")


def sshd_t_refusal(r: Result) -> str | None:
    """None when `sshd -t` accepted the files, else its words (the first line, and how
    many more there were)."""
    if r.returncode == 0:
        return None
    lines = [x.strip() for x in (r.stderr or r.stdout).splitlines() if x.strip()]
    more = f" (and {len(lines) - 1} more lines)" if len(lines) > 1 else ""
    return f"exit {r.returncode}: {lines[0] if lines else 'no output'}{more}"


@predicate_kind("sshd_valid")
def sshd_valid(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    refused = sshd_t_refusal(_run(ev, SSHD_T))
    if refused is None:
        return True, "sshd -t accepts sshd's files"
    return False, f"refused by sshd -t ({refused})"


LOGINCTL: tuple[str, ...] = ("loginctl", "--no-pager", "--no-legend", "list-sessions")


@predicate_kind("logind_answers")
def logind_answers(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    limit = float(p.param("seconds"))
    want = dict(p.params).get("want", "yes") == "yes"
    try:  # a logind that does not answer costs loginctl sd-bus's 25 s: let it say so
        r = ev.host.run(list(LOGINCTL), timeout=max(ev.timeout, 60.0), check=False)
    except HostError as e:
        raise ReadFailed(f"loginctl list-sessions could not be run: {e}") from None
    took = f"{r.duration:.1f} s"
    if r.returncode == 0 and r.duration <= limit:
        said = f"logind answered loginctl list-sessions in {took}"
        return want, said
    head = (r.stderr.strip().splitlines() or ["no output"])[0]
    said = (f"logind answered, but only after {took}" if r.returncode == 0 else
            f"loginctl list-sessions failed after {took} (exit {r.returncode}: {head})")
    return not want, said


def _login(ev: Evaluator, target: str) -> Result:
    return ev.reading(f"login:{target}", lambda: _run(ev, login_argv(target)))


def _answered(r: Result) -> bool:
    return r.returncode == 0 or any(s in r.stderr for s in ANSWERED)


def _own_address(ev: Evaluator) -> str | None:
    """The host's first address that is not loopback (`hostname -I`): a login from it makes
    sshd look its name up, unlike one from localhost (loopback's names are in /etc/hosts)."""
    def read() -> str | None:
        r = _run(ev, ("hostname", "-I"))
        words = [w for w in (r.stdout.split() if r.returncode == 0 else [])
                 if not w.startswith("127.") and w != "::1"]
        return next((w for w in words if ":" not in w), words[0] if words else None)
    return ev.reading("hostname -I", read)


def _loopback_from_files(ev: Evaluator) -> bool:
    """A login from localhost waits for no resolver: /etc/hosts names 127.0.0.1
    (`getent -s files hosts 127.0.0.1`) and NSS asks `files` first (the `hosts:` line of
    /etc/nsswitch.conf). Judged from what the host says, never from how long getent took: a
    loaded host is slow to run any command (CI, stop 25: getent took over 0.5 s)."""
    def read() -> bool:
        r = _run(ev, ("getent", "-s", "files", "hosts", "127.0.0.1"))
        if r.returncode != 0 or not r.stdout.split()[1:]:
            return False
        try:
            text = ev.host.read_text(NSSWITCH)
        except HostError:
            return False
        return nss_hosts_first(text) == "files"
    return ev.reading("getent -s files hosts 127.0.0.1", read)


def nss_hosts_first(text: str) -> str | None:
    """The first source of the `hosts:` line of nsswitch.conf text (None: no such line)."""
    for line in text_lines(text):
        words = line.split("#", 1)[0].split()
        if words and words[0] == "hosts:":
            return words[1] if len(words) > 1 else None
    return None


def _login_refused(r: Result, p: Predicate, source: str, took: str) -> str | None:
    """Why a fresh login from `source` proves nothing: it was not answered, or it was refused
    where the predicate needs a login that succeeds (`need=login`). None: it answered."""
    head = (r.stderr.strip().splitlines() or ["no output"])[0]
    if not _answered(r):
        return f"a fresh login from {source} failed after {took} (exit {r.returncode}: {head})"
    if r.returncode != 0 and dict(p.params).get("need") == "login":
        return (f"a fresh login from localhost was refused after {took} ({head}): after an "
                "authentication change only a login that succeeds proves that logins still "
                "work")
    return None


@predicate_kind("login_fast")
def login_fast(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    """A fresh login from the host's own address (sshd looks that one up while UseDNS is
    yes) is answered within `seconds`, or no slower than one from localhost (which needs no
    lookup) measured in the same round: a host that is slow as a whole (a loaded VM) logs
    in slowly either way, and that is not the lookup."""
    limit = float(p.param("seconds"))
    addr = _own_address(ev)
    r = _login(ev, addr or "localhost")
    took, source = f"{r.duration:.1f} s", addr or "localhost"
    refused = _login_refused(r, p, source, took)
    if refused is not None:
        return False, refused
    how = "logged in" if r.returncode == 0 else "sshd answered (the key was refused)"
    said = f"a fresh login from {source}: {how} in {took}"
    if r.duration <= limit:
        return True, said
    if addr is None or not _loopback_from_files(ev):
        return False, f"{said} (more than {limit:g} s)"
    base = _login(ev, "localhost")
    if _answered(base) and r.duration <= BASE_FACTOR * base.duration + BASE_SLACK:
        return True, (f"{said}, as fast as one from localhost ({base.duration:.1f} s), "
                      "which needs no name lookup: this host is slow as a whole, the lookup "
                      "no longer adds to it")
    return False, (f"{said} (more than {limit:g} s, and one from localhost, which needs no "
                   f"name lookup, took {base.duration:.1f} s)")


@predicate_kind("login_answers")
def login_answers(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    r = _login(ev, "localhost")
    took = f"{r.duration:.1f} s"
    refused = _login_refused(r, p, "localhost", took)
    if refused is not None:
        return False, refused
    how = "logged in" if r.returncode == 0 else "sshd answered (the key was refused)"
    return True, f"a fresh login from localhost: {how} in {took}"


@predicate_kind("path_exists")
def path_exists(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    path, want = p.param("path"), p.param("want") == "yes"
    r = _run(ev, ("test", "-e", path))
    if r.returncode not in (0, 1):
        raise ReadFailed(f"test -e {path}: exit {r.returncode} {r.stderr.strip()}")
    there = r.returncode == 0
    return there == want, f"{path} exists" if there else f"{path} does not exist"


@predicate_kind("command_line")
def command_line(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    argv = tuple(p.param("argv").split("\t"))
    line, want = p.param("line"), p.param("want") == "yes"
    r = ev.reading("run:" + p.param("argv"), lambda: _run(ev, argv))
    lines = [x.strip() for x in r.stdout.splitlines() if x.strip()]
    said = " ".join(argv)
    if r.returncode != 0 and not lines:
        head = (r.stderr.strip().splitlines() or ["no output"])[0]
        raise ReadFailed(f"{said}: exit {r.returncode}: {head}")
    got = line in lines
    shown = "; ".join(lines[:3]) + (" …" if len(lines) > 3 else "")
    if got == want:
        return True, f"{said} prints {shown!r}"
    return False, f"{said} prints {shown or 'nothing'!r}"


NETWORKCTL_LIST: tuple[str, ...] = ("networkctl", "list", "--no-pager")


@predicate_kind("link_setup")
def link_setup(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    name, want = p.param("name"), p.param("setup")

    def read() -> dict[str, tuple[str, str]]:
        r = _run(ev, NETWORKCTL_LIST)
        if r.returncode != 0:
            raise ReadFailed(f"networkctl list: exit {r.returncode}: {r.stderr.strip()}")
        try:
            return {ln.name: (ln.operational, ln.setup)
                    for ln in parse_networkctl_list(r.stdout)}
        except ParseError as e:
            raise ReadFailed(str(e)) from None
    links = ev.reading("networkctl list", read)
    if name not in links:
        return False, f"networkctl list shows no link {name}"
    operational, setup = links[name]
    return setup == want, f"networkctl list: {name} {operational} {setup}"


def exec_start(cat: str) -> list[str]:
    """The ExecStart= lines left after `systemctl cat`'s files, in the order shown (the
    order systemd applies them): an empty assignment clears the list."""
    out: list[str] = []
    for raw in text_lines(cat):
        line = raw.strip()
        if line.startswith("ExecStart="):
            value = line[len("ExecStart="):].strip()
            out = [] if not value else [*out, value]
    return out


@predicate_kind("unit_exec_start")
def unit_exec_start(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    unit, want = p.param("unit"), p.param("value")
    r = _run(ev, ("systemctl", "cat", "--no-pager", unit))
    if r.returncode != 0:
        raise ReadFailed(f"systemctl cat {unit}: exit {r.returncode}: {r.stderr.strip()}")
    got = exec_start(r.stdout)
    if got == [want]:
        return True, f"systemctl cat {unit}: ExecStart={want}"
    return False, (f"systemctl cat {unit}: ExecStart is {' ; '.join(got)!r}" if got
                   else f"systemctl cat {unit}: no ExecStart left")
