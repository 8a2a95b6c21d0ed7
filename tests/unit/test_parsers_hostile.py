"""Hostile input for every parser: a model or ParseError, and work linear in the input.

The shapes come from the adversarial review (issue "Trust nothing the host says"): huge digit
runs (int() refuses 4 300+ digits; float() overflows), a 10 000-digit `scan:` line (took 15-21 s
before the scan patterns were guarded), very long lines, deep JSON nesting (RecursionError),
non-ASCII digits (`'²'.isdigit()` is True). Work is counted by `tests.workmeter` (Python lines
run in the parsers + characters handed to the regex engine), never by a clock.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import paths
from tests.unit.test_parsers_fuzz import PARSERS, _samples
from tests.workmeter import WorkMeter, restart_safe, work_of
from zconsole.parsers import systemd
from zconsole.parsers.blockdev import parse_lsblk_json
from zconsole.parsers.errors import ParseError
from zconsole.parsers.iproute import (
    parse_bridge_vlan,
    parse_ip_addr,
    parse_ip_link,
    parse_proc_net_vlan,
)
from zconsole.parsers.journal import logins_from_journal, parse_journal, parse_journal_json
from zconsole.parsers.netplan import parse_netplan_get
from zconsole.parsers.sshd import parse_sshd_config, parse_sshd_T
from zconsole.parsers.zpool_iostat import parse_zpool_iostat
from zconsole.parsers.zpool_list import parse_zpool_list
from zconsole.parsers.zpool_status import parse_zpool_status
from zconsole.parsers.zpool_status_json import parse_zpool_status_json

FIX = paths.PARSERS
STATUS_TEXTS = sorted((FIX / "zpool-status").glob("*.txt"))

# Linear: at most K work units per input character, plus a constant. Measured on the
# fixtures: at most ~8 per character (zpool status, whose lines each go through a few
# patterns); K leaves room without letting a per-line rescan (hundreds per char) through.
K, B = 25, 5_000

ALL: dict[str, tuple[Callable[[str], Any], list[str]]] = {
    kind: (fn, _samples(folder)) for kind, (fn, folder) in PARSERS.items()}
ALL["zpool-status"] = (parse_zpool_status, [p.read_text() for p in STATUS_TEXTS])

# the fix-it parsers, on every state captured on the host guest (tests/fixtures/host/)
HOST = Path(__file__).resolve().parents[1] / "fixtures" / "host"
SSHD_MAIN, SSHD_DROPIN = "/etc/ssh/sshd_config", "/etc/ssh/sshd_config.d/a.conf"


def _host_samples(*patterns: str) -> list[str]:
    return sorted({p.read_text() for pat in patterns for p in HOST.glob(f"*/{pat}")
                   if p.stat().st_size})


def _sshd_config(t: str) -> Any:
    # the text is both the main file and a drop-in its Include pulls in (and which
    # includes itself, when the text has the Include line)
    return parse_sshd_config(SSHD_MAIN, {SSHD_MAIN: t, SSHD_DROPIN: t})


ALL["sshd-T"] = (parse_sshd_T, _host_samples("sshd-T*.txt"))
ALL["sshd-config"] = (_sshd_config, _host_samples("sshd_config", "sshd_config.d/*"))
ALL["journal-logins"] = (lambda t: logins_from_journal(parse_journal(t)),
                         _host_samples("journal-*.txt"))
ALL["journal-json-logins"] = (lambda t: logins_from_journal(parse_journal_json(t)[0]),
                              _host_samples("journal-*.json"))
ALL["systemd-analyze"] = (systemd.parse_startup, _host_samples("systemd-analyze.txt"))
ALL["systemd-analyze-blame"] = (systemd.parse_blame, _host_samples("blame.txt"))
ALL["critical-chain"] = (systemd.parse_critical_chain, _host_samples("critical-chain-*.txt"))
ALL["networkctl-list"] = (systemd.parse_networkctl_list, _host_samples("networkctl-list*.txt"))
ALL["netplan-get"] = (parse_netplan_get, _host_samples("netplan-get.txt"))
ALL["systemctl-cat"] = (systemd.parse_unit_cat, _host_samples("systemctl-cat-*.txt"))
ALL["systemctl-show-exec"] = (systemd.parse_exec_start, _host_samples("show-wait-online.txt"))


def shapes(base: str) -> Iterator[tuple[str, str]]:
    yield "digit-runs", re.sub(r"[0-9]+", lambda m: "9" * 20_000, base, count=20)
    yield "long-line", base + "\n" + ("9a 9/ 9% x:y\t" * 15_000) + "\n"
    yield "spaces", base.replace(" ", " " * 400, 50)
    yield "repeated", base * 40
    yield "non-ascii-digits", base.replace("1", "٣").replace("2", "²")
    yield "nul-and-controls", base.replace(" ", "\x00\x1b[2J", 30)


def _assert_contract(parse: Callable[[str], Any], text: str, what: str) -> int:
    work, error = work_of(parse, text)
    assert error is None or isinstance(error, ParseError), \
        f"{what}: {type(error).__name__}: {error}"
    assert work <= K * len(text) + B, f"{what}: work {work} for {len(text)} characters"
    return work


def spread(samples: list[str], n: int = 10) -> list[str]:
    """At most n samples spread over the (content-sorted) list, first and last included: the
    human forms sort first, the scripted ones last, and both must be covered."""
    if len(samples) <= n:
        return samples
    step = (len(samples) - 1) / (n - 1)
    return [samples[round(i * step)] for i in range(n)]


@pytest.mark.parametrize("kind", sorted(ALL))
def test_hostile_shapes_keep_the_contract_in_linear_work(kind: str) -> None:
    parse, samples = ALL[kind]
    for i, base in enumerate(spread(samples)):
        for shape, text in shapes(base):
            _assert_contract(parse, text, f"{kind} sample {i} {shape}")


def test_a_ten_thousand_digit_scan_line_is_read_in_linear_work() -> None:
    base = next(p.read_text() for p in STATUS_TEXTS if "scan: resilver in progress"
                in p.read_text())
    small = base.replace("scan: ", "scan: resilver in progress since " + "9" * 1_000 + " ", 1)
    big = base.replace("scan: ", "scan: resilver in progress since " + "9" * 10_000 + " ", 1)
    w_small = _assert_contract(parse_zpool_status, small, "1 000 digits")
    w_big = _assert_contract(parse_zpool_status, big, "10 000 digits")
    # ten times the digits, about ten times the work (a quadratic pattern gives ~100x)
    assert w_big <= 12 * w_small


@pytest.mark.parametrize(("name", "old"), [
    ("belgianbeer-freebsd-remove-evacuation-in-progress.txt", "158M copied out of"),
    ("issue16803-truenas-expand-over-100pct-head-fragment.txt", "12.8T / 12.8T copied"),
])
def test_ten_thousand_digit_expand_and_remove_lines_are_linear(name: str, old: str) -> None:
    base = (FIX / "zpool-status" / name).read_text()
    assert old in base
    small = base.replace(old, "9" * 1_000 + " " + old)
    big = base.replace(old, "9" * 10_000 + " " + old)
    w_small = _assert_contract(parse_zpool_status, small, "1 000 digits")
    w_big = _assert_contract(parse_zpool_status, big, "10 000 digits")
    assert w_big <= 12 * w_small


def test_many_distinct_rows_in_one_human_report_are_linear() -> None:
    """Thousands of pool rows in one iostat report and vdev rows in one list: every row is
    checked against the report's pools once (a set), never against every earlier one."""
    iostat = (FIX / "zpool-iostat" / "issue3633-zol-iostat-pool-1-3-old-header.txt").read_text()
    head, row = "\n".join(iostat.splitlines()[:3]), iostat.splitlines()[3]
    for n in (1_000, 10_000):
        text = head + "\n" + "\n".join(row.replace("backup", f"p{i:<5}", 1)
                                        for i in range(n)) + "\n"
        _assert_contract(parse_zpool_iostat, text, f"{n} pools")
    listing = (FIX / "zpool-list" / "belgianbeer-freebsd-list-v-mirror-da0p4.txt").read_text()
    lines = listing.splitlines()
    text = "\n".join(lines[:3] + [lines[3].replace("da0p4", f"d{i:<4}") for i in range(10_000)])
    _assert_contract(parse_zpool_list, text, "10 000 vdev rows")


JSON_PARSERS: dict[str, Callable[[str], Any]] = {
    "zpool-status-json": lambda t: parse_zpool_status_json(t, now=1795302100),
    "lsblk": parse_lsblk_json, "ip-link": parse_ip_link, "ip-addr": parse_ip_addr,
    "bridge-vlan": parse_bridge_vlan,
}


@pytest.mark.parametrize("kind", sorted(JSON_PARSERS))
@pytest.mark.parametrize("nesting", ["[" * 100_000, '{"a":' * 100_000, '{"pools":' * 50_000])
def test_deep_json_nesting_is_a_parse_error(kind: str, nesting: str) -> None:
    work, error = work_of(JSON_PARSERS[kind], nesting)
    assert isinstance(error, ParseError), f"{kind}: {error!r}"


@pytest.mark.parametrize("kind", sorted(JSON_PARSERS))
def test_huge_numbers_in_json_are_parse_errors_or_dropped(kind: str) -> None:
    huge = "9" * 5_000
    for text in (f'{{"pools": {{"t": {{"name": "t", "state": "ONLINE", "vdevs": {{}}, '
                 f'"error_count": {huge}}}}}}}',
                 f'[{{"ifname": "eth0", "mtu": {huge}, "ifindex": 1}}]',
                 f'{{"blockdevices": [{{"name": "sda", "size": {huge}}}]}}', f"1e{huge}"):
        _assert_contract(JSON_PARSERS[kind], text, kind)


def test_proc_net_vlan_refuses_non_ascii_vlan_ids() -> None:
    text = ("VLAN Dev name    | VLAN ID\nName-Type: VLAN_NAME_TYPE_RAW_PLUS_VID_NO_PAD\n"
            "eth0.100       | ²  | eth0\n")
    _assert_contract(parse_proc_net_vlan, text, "vlan config")


def test_every_pattern_a_parser_searches_with_cannot_restart_inside_a_run() -> None:
    """The 10 000-digit `scan:` line took 15-21 s because `X / T scanned` was searched with a
    pattern that begins `[0-9]+`: the engine restarted at every digit and rescanned the rest of
    the run. Every pattern a parser uses with search/sub/finditer/split must start at a
    certain place (anchor, look-behind guard or literal)."""
    meter = WorkMeter()
    for _kind, (parse, samples) in sorted(ALL.items()):
        for base in samples:
            work_of(parse, base, meter)
    for path in STATUS_TEXTS:
        work_of(parse_zpool_status, path.read_text(), meter)
    assert meter.searched, "the meter saw no search: it is not wired to the parsers"
    unsafe = sorted(name for name, p in meter.searched.items() if not restart_safe(p))
    assert unsafe == []
