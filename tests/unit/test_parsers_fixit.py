"""The fix-it parsers on the real outputs of the Debian 12 host guest
(tests/fixtures/host/<state>/, see SOURCES.md there): sshd -T, sshd_config with its drop-ins
and where each line stands, the journal's logins and their phases, systemd-analyze and
networkctl; and hand-made shapes for the rules the captures do not show."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zconsole.parsers.errors import ParseError
from zconsole.parsers.journal import logins_from_journal, parse_journal
from zconsole.parsers.netplan import parse_netplan_get
from zconsole.parsers.sshd import parse_sshd_config, parse_sshd_T
from zconsole.parsers.systemd import (
    parse_blame,
    parse_critical_chain,
    parse_exec_start,
    parse_networkctl_list,
    parse_startup,
    parse_unit_cat,
    timespan,
)

HOST = Path(__file__).resolve().parents[1] / "fixtures" / "host"
MAIN = "/etc/ssh/sshd_config"
DROPINS = "/etc/ssh/sshd_config.d"


def text(state: str, name: str) -> str:
    return (HOST / state / name).read_text()


def sshd_files(state: str) -> dict[str, str]:
    """The main file and the drop-ins as the guest had them in `state`."""
    files = {MAIN: text(state, "sshd_config")}
    for name in text(state, "sshd_config.d.ls").split():
        files[f"{DROPINS}/{name}"] = text(state, f"sshd_config.d/{name}")
    return files


# ----------------------------------------------------------------------------- sshd -T

def test_sshd_t_clean_debian_defaults() -> None:
    t = parse_sshd_T(text("clean", "sshd-T.txt"))
    assert t["usedns"] == ("no",)
    assert t["usepam"] == ("yes",)
    assert t["kbdinteractiveauthentication"] == ("no",)
    assert t["listenaddress"] == ("[::]:22", "0.0.0.0:22")  # several values kept in order
    assert t["permitrootlogin"] == ("without-password",)


def test_sshd_t_with_connection_applies_the_match_block() -> None:
    everyone = parse_sshd_T(text("sshd-auth-methods", "sshd-T.txt"))
    client = parse_sshd_T(text("sshd-auth-methods", "sshd-T-C.txt"))
    assert everyone["gssapiauthentication"] == client["gssapiauthentication"] == ("yes",)
    assert everyone["hostbasedauthentication"] == ("no",)
    assert client["hostbasedauthentication"] == ("yes",)
    assert everyone["kerberosauthentication"] == ("no",)
    assert client["kerberosauthentication"] == ("yes",)


def test_sshd_t_refuses_what_is_not_its_output() -> None:
    with pytest.raises(ParseError):
        parse_sshd_T("")
    with pytest.raises(ParseError):
        parse_sshd_T("sshd: no hostkeys available -- exiting.\n")


# ------------------------------------------------------------------------ sshd_config

def test_config_clean_include_matches_nothing() -> None:
    src = parse_sshd_config(MAIN, sshd_files("clean"))
    assert src.files == (MAIN,)
    inc = src.origin("include")
    assert inc is not None and inc.where == f"{MAIN}:12"
    assert inc.value == f"{DROPINS}/*.conf"
    assert src.origin("usedns") is None  # only `#UseDNS no`: the default applies
    pam = src.origin("usepam")
    assert pam is not None and pam.value == "yes" and pam.match is None


def test_config_provenance_of_the_auth_fault() -> None:
    """GSSAPI in a drop-in (read where the Include stands, line 12 of the main file),
    KbdInteractive in the main file, Hostbased inside a Match block and Kerberos written
    after it: inside the block too."""
    src = parse_sshd_config(MAIN, sshd_files("sshd-auth-methods"))
    assert src.files == (MAIN, f"{DROPINS}/40-zc-auth.conf")
    gss = src.origin("GSSAPIAuthentication")
    assert gss is not None and gss.where == f"{DROPINS}/40-zc-auth.conf:2"
    assert gss.value == "yes"
    kbd = src.origin("kbdinteractiveauthentication")
    assert kbd is not None and kbd.where == f"{MAIN}:62" and kbd.value == "yes"
    assert src.origin("hostbasedauthentication") is None  # not for every client
    (hb,) = src.in_match("hostbasedauthentication")
    assert hb.where == f"{MAIN}:127" and hb.match == "Match Address 10.0.2.0/24"
    (krb,) = src.in_match("kerberosauthentication")
    assert krb.where == f"{MAIN}:128" and krb.match == "Match Address 10.0.2.0/24"
    # the drop-in's line comes before every line of the main file after the Include
    order = [c.where for c in src.lines]
    assert order.index(gss.where) < order.index(kbd.where)


def test_config_first_value_wins_and_dropins_in_name_order() -> None:
    files = {
        MAIN: "Include /etc/ssh/sshd_config.d/*.conf\nUseDNS no\n",
        f"{DROPINS}/50-cloud.conf": "UseDNS yes\n",
        f"{DROPINS}/00-zconsole.conf": "usedns=no\n",
        f"{DROPINS}/README": "UseDNS yes\n",  # not *.conf: not read
    }
    src = parse_sshd_config(MAIN, files)
    first = src.origin("usedns")
    assert first is not None and first.where == f"{DROPINS}/00-zconsole.conf:1"
    assert [c.where for c in src.all_of("usedns")] == [
        f"{DROPINS}/00-zconsole.conf:1", f"{DROPINS}/50-cloud.conf:1", f"{MAIN}:2"]


def test_config_match_in_a_dropin_ends_with_the_dropin() -> None:
    files = {
        MAIN: "Include /etc/ssh/sshd_config.d/*.conf\nUseDNS yes\n",
        f"{DROPINS}/10-a.conf": "Match User backup\n  X11Forwarding no\n",
        f"{DROPINS}/20-b.conf": "Match all\nPasswordAuthentication no\n",
    }
    src = parse_sshd_config(MAIN, files)
    x11 = src.all_of("x11forwarding")[0]
    assert x11.match == "Match User backup"
    usedns = src.origin("usedns")
    assert usedns is not None and usedns.where == f"{MAIN}:2" and usedns.match is None
    assert src.all_of("passwordauthentication")[0].match == "Match all"


def test_config_include_cycle_and_explosion_are_bounded() -> None:
    files = {MAIN: "Include /etc/ssh/sshd_config.d/*.conf\n",
             f"{DROPINS}/a.conf": "Include /etc/ssh/sshd_config.d/a.conf\nUseDNS yes\n"}
    src = parse_sshd_config(MAIN, files)
    assert any("includes itself" in p for p in src.problems)
    many = {MAIN: "Include /etc/ssh/sshd_config.d/*.conf\n" * 5_000,
            f"{DROPINS}/a.conf": "UseDNS yes\n" * 50}
    with pytest.raises(ParseError):
        parse_sshd_config(MAIN, many)


# ---------------------------------------------------------------------------- journal

def test_journal_clean_logins_and_their_phases() -> None:
    lines = parse_journal(text("clean", "journal-all.txt"))
    assert lines[0].ident == "sshd" and lines[0].pid == 451
    assert lines[0].stamp == "2026-11-23T17:13:27.501448+0000"
    logins = logins_from_journal(lines)
    assert [lg.pid for lg in logins] == [451, 458]
    lg = logins[0]
    assert (lg.user, lg.addr, lg.method, lg.uid) == ("root", "10.0.2.2", "publickey", 0)
    assert lg.reverse_at is None and lg.connected_at is None  # LogLevel INFO
    # session opened -> logind's New session 4 -> Started session-4.scope
    assert (lg.session_id, lg.session_at) == ("4", pytest.approx(lg.opened_at + 0.403853))
    assert lg.setup_seconds == pytest.approx(28.154892 - 27.581003, abs=1e-4)
    assert lg.session_failed is None and lg.manager_started is None


def test_journal_scope_before_new_session() -> None:
    """slow-reverse-dns, second login: `Started session-8.scope` was logged 42 ms before
    logind's `New session 8`; both still belong to sshd[649]'s login."""
    logins = logins_from_journal(parse_journal(text("slow-reverse-dns", "journal-all.txt")))
    lg = next(lg for lg in logins if lg.pid == 649)
    assert lg.session_id == "8" and lg.scope_at is not None and lg.session_at is not None
    assert lg.scope_at < lg.session_at
    assert [j.message for j in lg.reverse_lines] == [
        "reverse mapping checking getaddrinfo for slow-client.example [10.0.2.2] failed."]
    assert lg.accepted_at is not None and lg.reverse_at is not None


def test_journal_slow_user_manager_phase() -> None:
    """slow-user-manager: New session 9 of zcop, then user@1000.service starts (the drop-in's
    sleep 25 under TCG: 35 s), then the scope; the login waited for it."""
    (lg,) = logins_from_journal(parse_journal(text("slow-user-manager", "journal-all.txt")))
    assert (lg.user, lg.uid, lg.session_id) == ("zcop", 1000, "9")
    assert lg.manager_started is not None
    start, end = lg.manager_started
    assert end - start == pytest.approx(35.227327, abs=1e-4)
    assert lg.setup_seconds == pytest.approx(7.496356 + 60 - 27.645645, abs=1e-4)


def test_journal_rejects_other_formats() -> None:
    with pytest.raises(ParseError):
        parse_journal("Nov 23 12:55:05 hostvm sshd[592]: Accepted publickey for root\n")
    assert parse_journal("-- No entries --\n") == ()


def test_journal_continuation_lines_join_their_message() -> None:
    lines = parse_journal("2026-11-23T17:13:27.5+0000 h sshd[1]: first\n  second\n")
    assert lines[0].message == "first\nsecond"


# ---------------------------------------------------------------------------- systemd

def test_timespans() -> None:
    assert timespan("2min 359ms") == pytest.approx(120.359)
    assert timespan("1.085s") == pytest.approx(1.085)
    assert timespan("1h 2min 3.5s") == pytest.approx(3723.5)
    assert timespan("12us") == pytest.approx(12e-6)
    assert timespan("12µs") == pytest.approx(12e-6)
    assert timespan("soon") is None


def test_startup_clean() -> None:
    s = parse_startup(text("clean", "systemd-analyze.txt"))
    assert s.phase("kernel") == pytest.approx(56.896)
    assert s.phase("userspace") == pytest.approx(130.137)
    assert s.total == pytest.approx(187.033)
    with pytest.raises(ParseError):
        parse_startup("Bootup is not yet finished (org.freedesktop.systemd1.Manager."
                      "FinishTimestampMonotonic=0).\n")


def test_blame_clean() -> None:
    b = parse_blame(text("clean", "blame.txt"))
    assert (b[0].unit, b[0].seconds) == ("systemd-udev-settle.service", pytest.approx(59.942))
    assert all(e.unit != "systemd-networkd-wait-online.service" for e in b)  # did not run


def test_critical_chain_clean() -> None:
    chain = parse_critical_chain(text("clean", "critical-chain-network-online.txt"))
    assert chain[0].unit == "network.target" and chain[0].at == pytest.approx(118.826)
    assert chain[1].unit == "networking.service" and chain[1].took == pytest.approx(12.422)
    assert chain[1].depth == chain[0].depth + 1
    assert any(c.unit.startswith("run-credentials-systemd\\x2d") for c in chain)


def test_networkctl_clean() -> None:
    links = parse_networkctl_list(text("clean", "networkctl-list.txt"))
    assert [(ln.name, ln.operational, ln.setup) for ln in links] == [
        ("lo", "carrier", "unmanaged"), ("lan0", "routable", "configured"),
        ("lan1", "off", "unmanaged")]


def test_netplan_clean() -> None:
    devs = parse_netplan_get(text("clean", "netplan-get.txt"))
    assert devs["lan0"].section == "ethernets" and devs["lan0"].flag("dhcp4")


# ------------------------------------------------------------------------------- fuzz

SAMPLES = sorted(p.read_text()[:4000] for p in HOST.glob("*/*") if p.is_file()
                 and p.suffix != ".json" and p.stat().st_size)
FUZZ_PARSERS = {
    "sshd-T": parse_sshd_T,
    "sshd-config": lambda t: parse_sshd_config(MAIN, {MAIN: t, f"{DROPINS}/a.conf": t}),
    "journal": lambda t: logins_from_journal(parse_journal(t)),
    "startup": parse_startup, "blame": parse_blame, "chain": parse_critical_chain,
    "networkctl": parse_networkctl_list, "netplan": parse_netplan_get,
}


@pytest.mark.parametrize("kind", sorted(FUZZ_PARSERS))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_model_or_parse_error(kind: str, data: st.DataObject) -> None:
    """Arbitrary text, and a captured output with a slice replaced by arbitrary text."""
    base = data.draw(st.sampled_from(SAMPLES))
    cut = data.draw(st.integers(0, len(base)))
    junk = data.draw(st.text(max_size=80))
    for text in (junk, base[:cut] + junk + base[cut + len(junk):]):
        try:
            FUZZ_PARSERS[kind](text)
        except ParseError:
            pass


# ---------------------------------------------------------------- the wait-online hang

def test_wait_online_hang_boot_figures() -> None:
    """Rebooted into the wait-online-hang recipe: wait-online ran 2 min and timed out."""
    s = parse_startup(text("wait-online-hang", "systemd-analyze.txt"))
    assert s.total == pytest.approx(297.461)
    blame = parse_blame(text("wait-online-hang", "blame.txt"))
    assert (blame[0].unit, blame[0].text) == ("systemd-networkd-wait-online.service",
                                              "2min 4.289s")
    assert blame[0].seconds == pytest.approx(124.289)
    chain = parse_critical_chain(text("wait-online-hang", "critical-chain-network-online.txt"))
    assert (chain[0].unit, chain[0].depth) == ("network-online.target", 0)
    assert chain[0].at == pytest.approx(201.462)
    links = {ln.name: ln for ln in parse_networkctl_list(text("wait-online-hang",
                                                              "networkctl-list.txt"))}
    assert (links["lan1"].operational, links["lan1"].setup) == ("no-carrier", "configuring")
    assert [n for n, ln in links.items() if ln.setup == "configuring"] == ["lan1"]
    journal = parse_journal(text("wait-online-hang", "journal-wait-online.txt"))
    assert journal[1].message == "Timeout occurred while waiting for network connectivity."
    assert journal[1].at - journal[0].at == pytest.approx(123.918466, abs=1e-5)


def test_wait_online_hang_netplan() -> None:
    devs = parse_netplan_get(text("wait-online-hang", "netplan-get.txt"))
    assert devs["lan1"].flag("dhcp4") and not devs["lan1"].flag("optional")
    assert devs["lan0"].keys == {}
    assert devs["br0"].interfaces == ("lan0",)  # addresses and routes are not read
    assert devs["br100"].interfaces == ("br0.100",)
    assert devs["br0.100"].keys == {"id": "100", "link": "br0"}


def test_a_process_id_taken_again_after_a_reboot_is_a_new_login() -> None:
    """Two boots in one window: the host guest's frozen-logind capture (sshd[794]), then its
    reverse-DNS capture after a reboot, with its first login's sshd[440] renumbered 794 (the
    pid a process gets after a reboot is anyone's). Two logins, not one that took 17
    minutes; the first, whose session failed, does not take the later `New session` line."""
    host = Path(__file__).resolve().parents[1] / "fixtures" / "host"
    later = (host / "slow-reverse-dns-2" / "journal-login.txt").read_text()
    assert "sshd[794]" not in later and "sshd[440]: Accepted" in later
    text = ((host / "frozen-logind" / "journal-all.txt").read_text()
            + later.replace("sshd[440]", "sshd[794]"))
    logins = [lg for lg in logins_from_journal(parse_journal(text)) if lg.pid == 794]
    assert len(logins) == 2, logins
    first, second = logins
    assert first.session_failed == "Connection timed out"
    assert first.session_at is None
    assert first.setup_seconds is not None and 120 < first.setup_seconds < 122
    assert second.session_failed is None and second.session_at is not None
    assert second.accepted_at is not None and first.accepted_at is not None
    assert second.accepted_at > first.accepted_at


def test_systemctl_cat_of_a_user_manager_with_a_drop_in() -> None:
    """slow-user-manager-3: the packages' unit, their 10-login-barrier.conf, the recipe's
    drop-in; each file's lines as written (its own comments kept, the blank line systemctl
    puts between files dropped)."""
    text = (HOST / "slow-user-manager-3" / "systemctl-cat-user@1000.service.txt").read_text()
    files = parse_unit_cat(text)
    assert [f.path for f in files] == [
        "/lib/systemd/system/user@.service",
        "/usr/lib/systemd/system/user@.service.d/10-login-barrier.conf",
        "/etc/systemd/system/user@.service.d/50-zc-slow.conf"]
    assert [(f.vendor, f.dropin) for f in files] == [(True, False), (True, True),
                                                     (False, True)]
    assert files[2].lines == ("# zconsole fault recipe: a slow user manager", "[Service]",
                              "ExecStartPre=/bin/sleep 25")
    assert files[0].lines[-1] == "OOMScoreAdjust=100"
    with pytest.raises(ParseError):
        parse_unit_cat("[Service]\nExecStart=/bin/true\n")


# --------------------------------------------------------------- systemctl show ExecStart

def test_exec_start_from_the_guest() -> None:
    """As the host guest printed it, with the other properties around it (clean: never ran;
    wait-online-hang: ran and failed)."""
    wait = ("/lib/systemd/systemd-networkd-wait-online",)
    for state in ("clean", "clean-2", "clean-3", "wait-online-hang"):
        assert parse_exec_start(text(state, "show-wait-online.txt")) == (wait,), state


def test_exec_start_of_a_drop_in_and_of_none() -> None:
    line = ("ExecStart={ path=/lib/systemd/systemd-networkd-wait-online ; argv[]=/lib/systemd/"
            "systemd-networkd-wait-online --interface=br0 --interface=br100 ; "
            "ignore_errors=no ; start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; code=(null) ; "
            "status=0/0 }")
    assert parse_exec_start(f"Result=success\n{line}\nDropInPaths=/x.conf\n") == (
        ("/lib/systemd/systemd-networkd-wait-online", "--interface=br0",
         "--interface=br100"),)
    assert parse_exec_start("Result=success\nExecStart=\nActiveState=inactive\n") == ()
    assert parse_exec_start("ActiveState=inactive\n") == ()
    for bad in ("ExecStart=/bin/true\n", "ExecStart={ path=/bin/true ; }\n",
                "ExecStart={ path=/bin/true ; argv[]= ; ignore_errors=no }\n"):
        with pytest.raises(ParseError):
            parse_exec_start(bad)
