"""The hosts file (`hosts.toml`): good files, malformed ones (an error naming the file and the
line, never a traceback), hostile names and destinations; `--host a --host b` and the demo
fleet."""

from __future__ import annotations

from pathlib import Path

import pytest

from zconsole.cli.main import main
from zconsole.hosts.fleet import (
    SILENT,
    HostEntry,
    HostsFileError,
    default_hosts_path,
    demo_fleet,
    from_destinations,
    load_hosts,
    make_host,
    parse_hosts,
)
from zconsole.hosts.silent import SilentHost

GOOD = """\
# storage hosts
[[host]]
name = "nas1"
ssh = "root@nas1.example.org"
ssh_config = "~/.ssh/config.storage"
tags = ["prod", "rack-a"]

[[host]]
name = "lab"
demo = "degraded"

[[host]]
name = "gone"
demo = "no-answer"
"""


def error(text: str) -> str:
    with pytest.raises(HostsFileError) as e:
        parse_hosts(text, "/etc/h.toml")
    return str(e.value)


def test_a_good_file_gives_its_hosts_in_order() -> None:
    nas1, lab, gone = parse_hosts(GOOD)
    assert nas1 == HostEntry("nas1", ssh="root@nas1.example.org",
                             ssh_config="~/.ssh/config.storage", tags=("prod", "rack-a"),
                             line=2)
    assert lab == HostEntry("lab", demo="degraded", line=8)
    assert gone.demo == SILENT and gone.line == 12
    assert parse_hosts("") == ()
    assert parse_hosts("# nothing yet\n") == ()


def test_the_default_path_follows_xdg() -> None:
    assert default_hosts_path({"XDG_CONFIG_HOME": "/cfg", "HOME": "/home/a"}) == \
        "/cfg/zconsole/hosts.toml"
    assert default_hosts_path({"HOME": "/home/a"}) == "/home/a/.config/zconsole/hosts.toml"


def test_load_reads_the_file_and_says_when_there_is_none(tmp_path: Path) -> None:
    f = tmp_path / "hosts.toml"
    f.write_text(GOOD)
    assert [e.name for e in load_hosts(str(f))] == ["nas1", "lab", "gone"]
    with pytest.raises(HostsFileError, match="no such hosts file"):
        load_hosts(str(tmp_path / "missing.toml"))


@pytest.mark.parametrize(("text", "where", "says"), [
    ("[[host]]\nname = \"a\"\nssh = root@a\n", ":3:", "not valid TOML"),
    ("[[host]]\nname = \"a\"\nssh = \"a\"\n[[host]\n", ":4:", "not valid TOML"),
    ("[[host]]\nssh = \"a\"\n", ":1:", "needs a name"),
    ("[[host]]\nname = \"a\"\n", ":1:", "exactly one of ssh"),
    ("[[host]]\nname = \"a\"\nssh = \"a\"\ndemo = \"healthy\"\n", ":1:", "exactly one of"),
    ("[[host]]\nname = \"a\"\nssh = \"a\"\n\n[[host]]\nname = \"b\"\nport = 22\nssh = \"b\"\n",
     ":7:", "unknown key 'port'"),
    ("[[host]]\nname = \"a\"\nssh = \"a\"\n[[host]]\nname = \"a\"\nssh = \"b\"\n", ":5:",
     "used twice (first at line 1)"),
    ("[[host]]\nname = \"a\"\nssh = \"a\"\ntags = \"prod\"\n", ":4:", "tags must be a list"),
    ("[[host]]\nname = 7\nssh = \"a\"\n", ":2:", "name must be a string"),
    ("[[host]]\nname = \"a\"\ndemo = \"nope\"\n", ":3:", "unknown demo scenario 'nope'"),
    ("[[host]]\nname = \"a\"\ndemo = \"healthy\"\nssh_config = \"x\"\n", ":4:",
     "ssh_config is for an ssh host"),
    ("hosts = []\n", ":1:", "unknown table or key 'hosts'"),
    ("[host]\nname = \"a\"\n", "", "[[host]] tables"),
])
def test_a_malformed_file_names_the_line(text: str, where: str, says: str) -> None:
    msg = error(text)
    assert msg.startswith("/etc/h.toml" + where), msg
    assert says in msg, msg


@pytest.mark.parametrize(("name", "says"), [
    ("evil\x1b[31m", "control characters"),
    ("two\nlines", "control characters"),
    ("x" * 65, "longer than 64"),
    ("   ", "name is empty"),
])
def test_hostile_names_are_refused_and_shown_escaped(name: str, says: str) -> None:
    escaped = "".join(f"\\u{ord(c):04x}" if ord(c) < 32 else c for c in name)
    text = f'[[host]]\nname = "{escaped}"\nssh = "a"\n'
    msg = error(text)
    assert says in msg
    assert "\x1b" not in msg and "\n" not in msg  # the error itself is safe to print


@pytest.mark.parametrize("dest", ["-oProxyCommand=touch /tmp/x", "a b", "a;b", "",
                                  "root@-x", "a\\u0007"])
def test_an_ssh_destination_is_never_an_option_or_a_shell(dest: str) -> None:
    msg = error(f'[[host]]\nname = "h"\nssh = "{dest}"\n')
    assert msg.startswith("/etc/h.toml:3:") or "ssh is empty" in msg
    assert "\x07" not in msg


def test_a_name_that_looks_like_markup_is_kept_as_it_is() -> None:
    (e,) = parse_hosts('[[host]]\nname = "[b]nas[/b] ✓"\nssh = "nas"\n')
    assert e.name == "[b]nas[/b] ✓"


def test_binary_and_huge_files_are_refused_with_their_line(tmp_path: Path) -> None:
    f = tmp_path / "h.toml"
    f.write_bytes(b'[[host]]\nname = "a\xff"\n')
    with pytest.raises(HostsFileError, match=r"h\.toml:2: not UTF-8"):
        load_hosts(str(f))
    f.write_bytes(b"#" * (2 << 20))
    with pytest.raises(HostsFileError, match="larger than"):
        load_hosts(str(f))


def test_a_bad_hosts_file_stops_the_console_with_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "h.toml"
    f.write_text('[[host]]\nname = "a"\nssh = "-oProxyCommand=x"\n')
    assert main(["--hosts", str(f)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"zconsole: {f}:3: not a host to ssh to") and "Traceback" not in err


def test_several_host_options_and_the_demo_fleet() -> None:
    a, b = from_destinations(["root@a", "b", "root@a"], "cfg")
    assert (a.name, a.ssh, a.ssh_config, b.name) == ("root@a", "root@a", "cfg", "b")
    fleet = demo_fleet()
    assert [e.demo for e in fleet][-1] == SILENT and len(fleet) >= 3
    hosts = [make_host(e) for e in fleet]
    assert isinstance(hosts[-1], SilentHost) and hosts[-1].simulated
    assert [h.label for h in hosts[:2]] == ["demo: showcase", "demo: degraded"]


@pytest.mark.parametrize(("name", "says"), [
    ("nas\u00a01", "U+00A0 NO-BREAK SPACE"),
    ("nas1\u200b", "control characters"),  # invisible: refused as before
    ("n\u0430s1", "mixes Latin and Cyrillic letters"),  # a Cyrillic а
    ("\u202enas1", "control characters"),
    ("ceph-\u03a9", "mixes Latin and Greek letters"),
])
def test_a_name_that_could_be_mistaken_for_another_is_refused(name: str, says: str) -> None:
    """Issue 27 item 7: names that differ from another only by a homoglyph or a no-break
    space were accepted; Fleet and `check` name hosts by them."""
    msg = error(f'[[host]]\nname = "{name}"\nssh = "a"\n')
    assert says in msg and "/etc/h.toml:2:" in msg


def test_names_an_operator_cannot_tell_apart_are_one_name() -> None:
    msg = error('[[host]]\nname = "nas1"\nssh = "a"\n\n[[host]]\nname = "NAS1"\nssh = "b"\n')
    assert "is used twice (first at line 1)" in msg
    fullwidth = error('[[host]]\nname = "nas1"\nssh = "a"\n\n[[host]]\nname = "ｎａｓ１"\n'
                      'ssh = "b"\n')
    assert "is used twice" in fullwidth
    ok = parse_hosts('[[host]]\nname = "склад-1"\nssh = "a"\n')  # one script: fine
    assert ok[0].name == "склад-1"
