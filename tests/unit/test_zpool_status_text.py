"""zpool status TEXT parser against real captured outputs (see fixtures SOURCES.md)."""

from __future__ import annotations

import re

import pytest

from tests.paths import PARSERS, parser_text
from zconsole.model.pool import Pool, ScanFunction, ScanState, Section, Vdev
from zconsole.parsers.errors import ParseError
from zconsole.parsers.vdev_names import vdev_type_from_name
from zconsole.parsers.zpool_status import parse_zpool_status
from zconsole.parsers.zpool_status_scan import (
    parse_ddt_line,
    parse_eta,
    parse_expand_text,
    parse_removal_text,
    parse_scan_text,
)


def load(name: str) -> str:
    return parser_text("zpool-status", name)


def in_first_top(p: Pool, index: int, name: str, kind: str) -> list[Vdev]:
    """The children of child `index` of the pool's first top-level vdev, a `name` of type
    `kind` (a replacing or spare container)."""
    container = p.vdevs[0].children[index]
    assert (container.name, container.type) == (name, kind)
    return list(container.children)


def one(name: str, **kw: bool) -> Pool:
    pools = parse_zpool_status(load(name), **kw)
    assert len(pools) == 1
    return pools[0]


def shape(vdevs: tuple[Vdev, ...]) -> list[object]:
    """Nested (name, type, state) tree for compact assertions."""
    out: list[object] = []
    for v in vdevs:
        if v.children:
            out.append((v.name, v.type, v.state, shape(v.children)))
        else:
            out.append((v.name, v.type, v.state))
    return out


def counters(v: Vdev | None) -> tuple[int | None, int | None, int | None]:
    assert v is not None
    return v.read_errors, v.write_errors, v.checksum_errors


# ------------------------------------------------------------------ OpenZFS 2.3.2 transcript


def test_232_attach_three_way_mirror() -> None:
    p = one("openzfs-2.3.2-attach-3way-mirror.txt")
    assert (p.name, p.state, p.status, p.action, p.errors) == (
        "tank", "ONLINE", None, None, "No known data errors")
    assert shape(p.vdevs) == [("mirror-0", "mirror", "ONLINE", [
        ("vdb", "disk", "ONLINE"), ("vdc", "disk", "ONLINE"), ("vdd", "disk", "ONLINE")])]
    assert p.root is not None and p.root.type == "root" and p.root.name == "tank"
    assert counters(p.root) == (0, 0, 0)
    assert p.scan is not None
    assert (p.scan.function, p.scan.state) == (ScanFunction.RESILVER, ScanState.FINISHED)
    assert p.scan.processed_bytes == 729 * 2**20 and p.scan.errors == 0
    assert p.scan.raw == "resilvered 729M in 00:00:04 with 0 errors on Sat Nov 21 23:00:00 2026"
    assert p.unparsed == () and p.logs == p.cache == p.spares == ()


@pytest.mark.parametrize(("name", "second"), [("openzfs-2.3.2-replace-vdb-vdf.txt", "vdc"),
                                              ("openzfs-2.3.2-replace-vdc-vdg.txt", "vdg")])
def test_232_replace_steps(name: str, second: str) -> None:
    p = one(name)
    assert [c.name for c in p.vdevs[0].children] == ["vdf", second]
    assert all(not c.resilvering for c in p.vdevs[0].children)
    assert p.scan is not None and p.scan.state is ScanState.FINISHED


def test_232_ddt_line_is_a_total() -> None:
    tail = load("openzfs-2.3.2-status-D-tail16.txt")
    with pytest.raises(ParseError):  # a `tail`: no pool: line
        parse_zpool_status(tail)
    line = next(ln for ln in tail.splitlines() if "DDT entries" in ln)
    d = parse_ddt_line(line, sizes_are_totals=True)
    assert d is not None
    assert (d.entries, d.size_on_disk, d.size_in_core) == (514, 166 * 1024, 74035)
    assert d.core_total_bytes == 74035  # 2.3: already a total


# ------------------------------------------------------------------ 2.0 - 2.3 from issues


def test_231_scrub_in_progress_and_paused_lines() -> None:
    # The reporter prefixed every line with "# "; as pasted it is not zpool output.
    raw = load("openzfs-2.3.1-issue17440-scrub-paused.commented.txt")
    with pytest.raises(ParseError):
        parse_zpool_status(raw)
    text = "\n".join(ln[2:] if ln.startswith("# ") else ln for ln in raw.splitlines()
                     if ln.startswith("# "))
    pools = parse_zpool_status(text)
    assert [p.name for p in pools] == ["tank1", "tank1", "tank1"]
    running, paused, again = (p.scan for p in pools)
    assert running is not None and paused is not None and again is not None
    assert running.state is ScanState.IN_PROGRESS and running.percent_done == 23.87
    assert running.eta_seconds == 13 * 3600 + 28 * 60 + 54
    assert running.issued_bytes == round(3.06 * 2**40)
    assert running.total_bytes == round(12.8 * 2**40)
    assert paused.state is ScanState.PAUSED and paused.function is ScanFunction.SCRUB
    assert paused.percent_done == 0.0 and paused.eta_seconds is None
    assert "scrub started on Sun Jun  8 12:43:45 2025" in paused.raw
    assert again.eta_seconds == 86400 + 14 * 3600 + 5 * 60 + 30  # "1 days 14:05:30"


def test_224_draid_spare_with_kilo_counter() -> None:
    p = one("openzfs-2.2.4-issue16979-draid-spare-kilo-count.excerpt.txt")
    assert p.state == "DEGRADED"
    draid = p.vdevs[0]
    assert (draid.name, draid.type, draid.parity) == ("draid2:11d:53c:1s-0", "draid", 2)
    spare = draid.children[0]
    assert (spare.type, spare.state) == ("spare", "DEGRADED")
    assert counters(spare) == (0, 1720, None)  # "0 1.68K" then cut off
    s = p.scan
    assert s is not None and s.function is ScanFunction.RESILVER
    assert (s.percent_done, s.eta_seconds) == (81.21, 7 * 3600 + 21 * 60 + 15)
    assert s.total_bytes == round(1.38 * 2**50) and s.issued_bytes == 144 * 2**40


def test_215_two_scan_lines_sequential_rebuild() -> None:
    p = one("openzfs-2.1.5-zfswatcher24-draid-rebuild-two-scans.excerpt.txt")
    assert len(p.scans) == 2 and p.scan is p.scans[0]
    scrub, rebuild = p.scans
    assert (scrub.function, scrub.state, scrub.processed_bytes) == (
        ScanFunction.SCRUB, ScanState.FINISHED, 0)
    assert rebuild.rebuild_vdev == "draid3:19d:24c:2s-0"
    assert (rebuild.function, rebuild.state) == (ScanFunction.RESILVER, ScanState.IN_PROGRESS)
    assert (rebuild.percent_done, rebuild.eta_seconds) == (92.97, 3 * 3600 + 22 * 60 + 35)
    assert rebuild.issued_bytes == 306 * 2**40  # "306T issued 1.95G/s" (no "at")
    kids = p.vdevs[0].children
    assert [k.name for k in kids] == ["0a-0", "0a-1", "0a-2", "0a-3"]
    assert all(k.resilvering and k.note == "(resilvering)" for k in kids)
    assert p.unparsed == ("\t    0a-4",)  # the excerpt's cut line


def test_21_faulted_too_many_errors() -> None:
    p = one("openzfs-2.1-issue15033-faulted-too-many-errors.excerpt.txt")
    raidz = p.vdevs[0]
    assert (raidz.type, raidz.parity, raidz.state) == ("raidz", 2, "DEGRADED")
    bad = raidz.children[2]
    assert (bad.state, counters(bad)) == ("FAULTED", (0, 19, 0))
    assert bad.note is not None and bad.note.startswith("too many errors")
    assert p.scan is not None and p.scan.eta_seconds == 22 * 60 + 23
    assert p.scan.percent_done == 69.46 and p.scan.processed_bytes == 103 * 2**30


def test_21_draid_rebuild_finished_and_files() -> None:
    p = one("openzfs-2.1-issue14881-draid-rebuilt-file-vdevs.excerpt.txt")
    assert p.status is not None and p.status.startswith("One or more devices are faulted")
    assert p.action == ("Replace the faulted device, or use 'zpool clear' to mark the device "
                        "repaired.")
    rebuild = p.scans[1]
    assert rebuild.rebuild_vdev == "draid1:10d:20c:1s-0"
    assert (rebuild.state, rebuild.processed_bytes) == (ScanState.FINISHED, 83456)
    files = p.vdevs[0].children
    assert [(f.type, f.path) for f in files] == [("file", "/root/test/files/file1"),
                                                 ("file", "/root/test/files/file2")]


def test_20_raidz3_days_eta() -> None:
    p = one("openzfs-2.0-issue11863-raidz3-days-eta.excerpt.txt")
    assert p.vdevs[0].parity == 3 and len(p.vdevs[0].children) == 8
    assert p.scan is not None and p.scan.eta_seconds == 19 * 3600 + 7 * 60 + 43
    assert p.scan.examined_bytes == 11 * 2**40 and p.scan.total_bytes == round(20.1 * 2**40)


def test_no_estimated_completion_time_guid_names_and_file() -> None:
    p = one("openzfs-issue16001-resilver-no-eta-guid-names.txt")
    assert p.scan is not None
    assert (p.scan.percent_done, p.scan.eta_seconds) == (0.0, None)
    assert p.scan.raw.endswith("0B resilvered, 0.00% done, no estimated completion time")
    top = p.vdevs[0]
    assert top.name == "11756750817815708724"
    assert [c.name for c in top.children] == ["1275799305023947155", "15641244010099601826",
                                              "/tmpfile"]
    assert top.children[2].type == "file"  # misaligned columns still parse


def test_special_class_with_trailing_blank() -> None:
    p = one("openzfs-checkmk475-special-trailing-space.excerpt.txt")
    assert p.see == "https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-9P"
    assert shape(p.special) == [("mirror-2", "mirror", "ONLINE", [
        ("ata-Samsung_SSD_860_QVO_1TB_S4CZNF0N459001M-part3", "disk", "ONLINE"),
        ("ata-Samsung_SSD_860_QVO_1TB_S4CZNF0N458919M-part3", "disk", "ONLINE")])]
    assert counters(p.special[0].children[0]) == (0, 5, 0)
    assert [sec for sec, d, v in p.walk() if d == 0] == [Section.DATA, Section.SPECIAL]


# ------------------------------------------------------------------ ZFS on Linux 0.6 - 0.8


def test_08_replacing_too_many_errors() -> None:
    p = one("zol-0.8-issue7537-replacing-too-many-errors.excerpt.txt")
    m0 = p.vdevs[0]
    assert shape((m0,)) == [("mirror-0", "mirror", "DEGRADED", [
        ("replacing-0", "replacing", "DEGRADED", [
            ("ata-WDC_WD3001FFSX-68JNUN0_WD-WCC13RYDLSH9", "disk", "OFFLINE"),
            ("sdh", "disk", "ONLINE")]),
        ("ata-WDC_WD3001FFSX-68JNUN0_WD-WCC13HETXXKA", "disk", "DEGRADED")])]
    assert m0.children[0].children[1].resilvering
    assert m0.children[1].note == "too many errors"
    assert p.scan is not None and p.scan.eta_seconds == 3600 + 24 * 60 + 38  # "0 days 01:24:38"
    assert [v.name for v in p.vdevs] == ["mirror-0", "mirror-1", "mirror-2"]


def test_08_replacing_was_dev() -> None:
    p = one("zol-0.8-issue840-replacing-was-dev.excerpt.txt")
    old, new = in_first_top(p, 3, "replacing-3", "replacing")
    assert (old.name, old.state) == ("9593279170455378102", "UNAVAIL")
    assert old.note == "was /dev/disk/by-id/ata-WDC_WD30EFRX-68AX9N0_WD-WCC1T1545830-part1"
    assert new.resilvering and not old.resilvering
    assert p.scan is not None and p.scan.eta_seconds == 21 * 3600 + 27 * 60 + 1
    # The cut last row has a state but no counters.
    last = p.vdevs[0].children[-1]
    assert (last.state, counters(last)) == ("ONLINE", (None, None, None))


def test_08dev_scrub_canceled_and_huge_eta() -> None:
    c = one("zol-0.8dev-issue7720-scrub-canceled.txt")
    assert c.scan is not None
    assert (c.scan.function, c.scan.state) == (ScanFunction.SCRUB, ScanState.CANCELED)
    r = one("zol-0.8dev-issue7720-scrub-days-eta.txt")
    assert r.scan is not None and r.scan.percent_done == 100.33
    assert r.scan.eta_seconds == 167416 * 86400 + 14 * 3600 + 45 * 60 + 42
    assert (r.scan.examined_bytes, r.scan.issued_bytes) == (
        round(1.18 * 2**30), round(1.19 * 2**30))


def test_07_scanned_out_of() -> None:
    p = one("zol-0.7-issue8715-scanned-out-of.excerpt.txt")
    s = p.scan
    assert s is not None
    assert (s.percent_done, s.eta_seconds) == (0.09, 547 * 3600 + 25 * 60)
    assert s.examined_bytes == round(85.5 * 2**30) and s.total_bytes == round(91.4 * 2**40)
    assert s.issued_bytes is None and s.processed_bytes == round(6.79 * 2**30)
    rep = p.vdevs[0].children[4]
    assert shape((rep,)) == [("replacing-4", "replacing", "DEGRADED", [
        ("sde", "disk", "UNAVAIL"), ("sde1", "disk", "ONLINE")])]
    assert [v.name for v in p.vdevs] == ["raidz2-0", "raidz2-1"]


def test_06_resilver_logs_cache() -> None:
    p = one("zol-0.6-issue3267-resilver-logs-cache.txt")
    s = p.scan
    assert s is not None and (s.percent_done, s.eta_seconds) == (0.39, 46 * 60)
    assert s.processed_bytes == 0 and s.total_bytes == 347 * 2**30
    assert shape(p.logs) == [("mirror-1", "mirror", "ONLINE", [
        ("sda3", "disk", "ONLINE"), ("sdb3", "disk", "ONLINE")])]
    assert shape(p.cache) == [("sda4", "disk", "ONLINE"), ("sdb4", "disk", "ONLINE")]
    assert p.status == ("One or more devices is currently being resilvered.  The pool will "
                        "continue to function, possibly in a degraded state.")


def test_06_spare_inuse_and_old_duration() -> None:
    p = one("zol-0.6.5.9-issue7577-spare-inuse.txt")
    assert len(p.spares) == 1
    sp = p.spares[0]
    assert (sp.name, sp.state, sp.note) == ("sdd", "INUSE", "currently in use")
    assert counters(sp) == (None, None, None)
    assert p.scan is not None and p.scan.processed_bytes == round(1.30 * 2**40)
    assert p.vdevs[0].parity == 2 and len(p.vdevs[0].children) == 6


def test_06_scan_is_slow_no_eta() -> None:
    p = one("zol-0.6-issue3087-scan-is-slow.excerpt.txt")
    assert p.scan is not None and p.scan.eta_seconds is None
    assert p.scan.percent_done == 0.57
    assert p.vdevs[0].children[-1].name == "replacing-8"
    assert counters(p.vdevs[0].children[-1]) == (0, None, None)


def test_06_scrub_repairing_notes() -> None:
    p = one("zol-0.6-issue2843-scrub-repairing.excerpt.txt")
    assert p.scan is not None and p.scan.function is ScanFunction.SCRUB
    assert p.scan.eta_seconds == 250 * 3600 + 55 * 60
    notes = [(c.checksum_errors, c.note) for c in p.vdevs[0].children]
    assert notes == [(2, "(repairing)"), (2, "(repairing)"), (1, "(repairing)"),
                     (1, "(repairing)")]
    assert not any(c.resilvering for c in p.vdevs[0].children)


def test_06_and_07_dedup_per_entry_sizes() -> None:
    a = one("zol-0.6-issue2414-dedup-D.txt")
    assert a.ddt is not None and not a.ddt.sizes_are_totals
    assert (a.ddt.entries, a.ddt.size_on_disk, a.ddt.size_in_core) == (3255693, 311, 179)
    assert a.ddt.core_total_bytes == 3255693 * 179
    b = one("zol-0.7-issue7323-dedup-D.txt")
    assert b.ddt is not None and b.ddt.entries == 2873 and b.scan is None  # none requested
    assert b.unparsed == ()


def test_06_four_space_table_and_legacy_status() -> None:
    p = one("zol-0.6-issue1391-legacy-cache-4space.txt")
    assert p.action is not None and p.action.endswith("feature flags.")
    assert shape(p.cache) == [("VolGroup00-l2arc", "disk", "ONLINE")]
    assert len(p.vdevs) == 1 and len(p.vdevs[0].children) == 2
    assert p.scan is not None and p.scan.processed_bytes == 34 * 1024


def test_06_single_space_scan_key() -> None:
    p = one("zol-0.6-issue1079-scrub-repaired.txt")
    assert p.scan is not None and p.scan.state is ScanState.FINISHED
    assert p.vdevs[0].type == "raidz" and len(p.vdevs[0].children) == 4


def test_file_vdevs_and_available_spare() -> None:
    p = one("libzetta-issue64-file-vdevs-spare-avail.txt")
    assert [(v.name, v.type, v.path) for v in p.vdevs] == [
        ("/vdevs/vdev0", "file", "/vdevs/vdev0")]
    assert [(v.name, v.state, v.read_errors) for v in p.spares] == [
        ("/vdevs/vdev1", "AVAIL", None)]


def test_multiple_pools_without_blank_lines() -> None:
    pools = parse_zpool_status(load("jc-zpool-status-v-multipool-noblank.txt"))
    assert [p.name for p in pools] == ["zhgstera6", "zint500", "zsam53"]
    assert pools[0].scan is not None and pools[0].scan.state is ScanState.CANCELED
    assert [p.vdevs[0].name for p in pools] == [
        "726060ALE614-K8JAPRGN:10", "ST3500418AS-5VMSTSSX:5", "Portable_SSD_T5-S49WNP0N120517B:8"]
    assert all(p.errors == "No known data errors" and p.unparsed == () for p in pools)


# ------------------------------------------------------------------ small pieces


# Not a whole `zpool status` as printed: a tail, the reporter's comment prefixes, a test-suite
# log prefix on every line, and the pieces of longer pastes ("fragment" in the name), checked
# one by one in their own tests.
NOT_WHOLE = ("openzfs-2.3.2-status-D-tail16.txt",
             "openzfs-2.3.1-issue17440-scrub-paused.commented.txt",
             "issue18319-zts-draid1-scrub-plus-resilvered-draid-line-ztslog-prefixed-head-"
             "fragment.txt")


def test_every_text_fixture_parses_with_values() -> None:
    names = sorted(f.name for f in (PARSERS / "zpool-status").glob("*.txt"))
    assert len(names) >= 45
    for name in names:
        if name in NOT_WHOLE or "fragment" in name or name.startswith("guest-") \
                and name.endswith("-series.txt"):
            continue
        for p in parse_zpool_status(load(name)):
            assert p.name and p.state in ("ONLINE", "DEGRADED", "FAULTED"), name
            assert p.vdevs and p.root is not None, name


def test_no_pools_and_healthy() -> None:
    assert parse_zpool_status("no pools available\n") == []
    assert parse_zpool_status("all pools are healthy\n") == []
    assert parse_zpool_status("pool 'tank' is healthy\n") == []
    for junk in ("", "hello\nworld\n", "{\"pools\": {}}"):
        with pytest.raises(ParseError):
            parse_zpool_status(junk)


def test_a_pasted_reports_colour_is_stripped_but_a_hosts_names_keep_every_byte() -> None:
    text = load("openzfs-2.3.2-attach-3way-mirror.txt").replace(
        " state: ONLINE", " \x1b[1mstate: \x1b[0m\x1b[32mONLINE\x1b[0m")
    assert parse_zpool_status(text, pasted=True)[0].state == "ONLINE"
    hostile = load("openzfs-2.3.2-attach-3way-mirror.txt").replace("mirror-0", "mirror-0\x1b[2J")
    names = [v.name for _, v in parse_zpool_status(hostile)[0].vdevs[0].walk()]
    assert "mirror-0\x1b[2J" in names


@pytest.mark.parametrize(("name", "expected"), [
    ("mirror-0", ("mirror", None)), ("raidz2-1", ("raidz", 2)), ("raidz1-0", ("raidz", 1)),
    ("raidz3-0", ("raidz", 3)), ("draid2:11d:53c:1s-0", ("draid", 2)),
    ("draid1-0-0", ("dspare", None)), ("replacing-4", ("replacing", None)),
    ("spare-0", ("spare", None)), ("/scratch/f1", ("file", None)),
    ("/dev/sdb", ("disk", None)), ("sde1", ("disk", None)), ("indirect-0", ("indirect", None)),
])
def test_vdev_types(name: str, expected: tuple[str, int | None]) -> None:
    assert vdev_type_from_name(name) == expected


@pytest.mark.parametrize(("text", "seconds"), [
    ("01:16:21", 4581), ("0 days 01:24:38", 5078), ("2 days 10:05:20", 209120),
    ("12h2m", 43320), ("no estimated completion time", None), ("", None)])
def test_eta(text: str, seconds: int | None) -> None:
    assert parse_eta(text) == seconds


def test_scan_none_requested_and_old_solaris_style() -> None:
    assert parse_scan_text("none requested") is None
    s = parse_scan_text("scrub repaired 6.50M in 32h44m with 0 errors on Fri Dec 19 16:34:14 "
                        "2014")
    assert s is not None and s.processed_bytes == round(6.5 * 2**20) and s.errors == 0


def test_ddt_no_entries() -> None:
    d = parse_ddt_line(" dedup: no DDT entries", sizes_are_totals=False)
    assert d is not None and d.entries == 0
    assert parse_ddt_line("dedup: garbage", sizes_are_totals=False) is None



# ------------------------------------------------------------------ long operations (issue 10)
# Real public pastes; "fragment" files are a piece of a longer paste (e.g. `| grep expand:`),
# so the `expand:` / `remove:` entry is read on its own with parse_expand_text /
# parse_removal_text, exactly as the whole-document parser reads it inside a pool block.

def entry(name: str, key: str) -> str:
    """The `key:` entry of a fragment: its first line's value plus continuation lines."""
    return load(name).split(f"{key}:", 1)[1]


def test_expand_in_progress_and_eta_fragment() -> None:
    e = parse_expand_text(entry("mtlynch-expand-in-progress-grep-fragment.txt", "expand"))
    assert e is not None and (e.vdev, e.state) == ("raidz2-0", ScanState.IN_PROGRESS)
    assert (e.copied_bytes, e.total_bytes, e.rate_bytes_per_s) == (563 * 1024, 588 * 1024,
                                                                   round(14.8 * 1024))
    assert (e.percent_done, e.eta_seconds, e.slow, e.exact) == (95.75, 1, False, False)
    big = parse_expand_text(entry("mtlynch-truenas-2.3.0-expand-28.5T-in-progress-fragment.txt",
                                  "expand"))
    assert big is not None and big.eta_seconds == 16 * 3600 + 36 * 60 + 3
    assert big.total_bytes == round(28.5 * 2**40) and big.percent_done == 0.06


def test_expand_over_100_percent_copy_is_slow() -> None:
    e = parse_expand_text(entry("mtlynch-expand-over-100pct-copy-is-slow-fragment.txt",
                                "expand"))
    assert e is not None and e.state is ScanState.IN_PROGRESS
    assert (e.percent_done, e.eta_seconds, e.slow) == (120.25, None, True)
    assert e.copied_bytes is not None and e.total_bytes is not None
    assert e.copied_bytes > e.total_bytes  # zpool's total is an estimate from the start
    p = one("issue16803-truenas-expand-over-100pct-head-fragment.txt")
    assert p.expand is not None and p.expand.slow and p.expand.percent_done == 100.25
    assert p.scan is not None and p.scan.state is ScanState.FINISHED  # the resilver before it
    q = one("issue18103-truenas-expand-stuck-scrub-canceled-head-fragment.txt")
    assert q.expand is not None and q.expand.percent_done == 100.93
    assert q.scan is not None and q.scan.state is ScanState.CANCELED
    assert q.unparsed == ()


def test_expand_finished() -> None:
    p = one("mtlynch-expand-finished-full-wide-usb-names.txt")
    e = p.expand
    assert e is not None and (e.vdev, e.state, e.percent_done) == ("raidz2-0",
                                                                   ScanState.FINISHED, 100.0)
    assert (e.copied_bytes, e.duration_seconds) == (743 * 1024, 123)
    assert p.scan is not None and p.scan.function is ScanFunction.SCRUB
    assert len(p.vdevs[0].children) == 7 and p.unparsed == ()
    assert p.vdevs[0].children[1].name.endswith("-0:0")  # 150-character names with colons
    f = parse_expand_text(entry("mtlynch-expand-finished-grep-fragment.txt", "expand"))
    assert f is not None and (f.copied_bytes, f.duration_seconds) == (944 * 1024, 137)


def test_remove_evacuation_in_progress_and_removing_leaf() -> None:
    p = one("belgianbeer-freebsd-remove-evacuation-in-progress.txt")
    r = p.removal
    assert r is not None and (r.vdev, r.state) == ("/dev/da0p4", ScanState.IN_PROGRESS)
    assert (r.copied_bytes, r.total_bytes) == (158 * 2**20, 698 * 2**20)
    assert (r.percent_done, r.eta_seconds, r.slow) == (22.57, 0, False)  # "0h0m to go"
    assert [(v.name, v.removing) for v in p.vdevs] == [("da0p4", True), ("da1p4", False)]
    assert p.vdevs[0].note == "(removing)" and p.unparsed == ()


def test_remove_completed_beside_a_running_resilver() -> None:
    p = one("belgianbeer-freebsd-remove-completed-resilver-in-progress.txt")
    r = p.removal
    assert r is not None and r.state is ScanState.FINISHED
    assert (r.vdev, r.vdev_index, r.copied_bytes, r.duration_seconds) == (
        None, 0, 698 * 2**20, 0)
    assert r.mapping_memory_bytes == round(10.1 * 1024)
    assert p.scan is not None and p.scan.state is ScanState.IN_PROGRESS
    assert p.scan.percent_done == 23.06 and p.unparsed == ()


@pytest.mark.parametrize("name", ["openzfs-commit-fd1c366-remove-line-after-tab-fragment.txt",
                                  "openzfs-commit-fd1c366-remove-line-before-4spaces-fragment.txt"])
def test_remove_completed_continuation_tab_or_spaces(name: str) -> None:
    r = parse_removal_text(entry(name, "remove"))
    assert r is not None and (r.state, r.vdev_index) == (ScanState.FINISHED, 0)
    assert (r.copied_bytes, r.duration_seconds, r.mapping_memory_bytes) == (
        282 * 2**30, 9 * 60, 776 * 1024)


def test_class_rows_with_their_own_state_are_classes() -> None:
    faulted = one("openzfs-docs-msg-K4-logs-faulted-bad-intent-log.txt")
    assert faulted.state == "FAULTED" and faulted.root is not None
    assert faulted.root.note == "bad intent log"
    assert shape(faulted.vdevs) == [("c3t2d0", "disk", "ONLINE")]  # not a data vdev `logs`
    assert shape(faulted.logs) == [("c5t3d0", "disk", "UNAVAIL")]
    (cls,) = faulted.classes
    assert (cls.section, cls.state, cls.note) == (Section.LOGS, "FAULTED", "bad intent log")
    assert (cls.read_errors, cls.write_errors, cls.checksum_errors) == (0, 0, 0)
    assert faulted.scan is None  # ` scrub: none requested`
    degraded = one("openzfs-docs-msg-K4-logs-degraded.txt")
    assert [(c.section, c.state) for c in degraded.classes] == [(Section.LOGS, "DEGRADED")]
    assert degraded.logs[0].note == "cannot open"
    online = one("openzfs-docs-msg-K4-logs-online-counters.txt")
    assert online.classes[0].state == "ONLINE" and shape(online.logs) == [
        ("c5t3d0", "disk", "ONLINE")]
    # the bare word (OpenZFS, illumos with trailing blanks) is a class with no row of its own
    illumos = one("omnios-pr1483-illumos-r151046-raidz2-logs-head-fragment.txt")
    assert illumos.classes == () and len(illumos.logs) == 2
    assert [v.name for v in illumos.vdevs] == ["raidz2-0", "raidz2-2"]


def test_draid_distributed_spares_are_spares_in_use() -> None:
    p = one("openzfs-docs-draid-howto-sequential-resilver-to-draid-spare.txt")
    old, dspare = in_first_top(p, 6, "spare-6", "spare")
    assert (old.name, old.state) == ("sdg", "UNAVAIL")
    assert (dspare.name, dspare.type, dspare.is_distributed_spare) == ("draid1-0-0", "dspare",
                                                                        True)
    assert dspare.resilvering
    (listed,) = p.spares
    assert (listed.name, listed.type, listed.state, listed.note) == (
        "draid1-0-0", "dspare", "INUSE", "currently in use")
    s = p.scan
    assert s is not None and s.is_rebuild and s.rebuild_vdev == "draid1:4d:11c:1s-0"
    assert (s.percent_done, s.issued_bytes) == (57.17, round(1.59 * 2**40))
    avail = one("openzfs-docs-draid-howto-created-avail-spare.txt")
    assert [(v.name, v.type, v.state) for v in avail.spares] == [("draid1-0-0", "dspare",
                                                                  "AVAIL")]
    heal = one("openzfs-docs-draid-howto-rebalance-healing-resilver.txt")
    spare = heal.vdevs[0].children[6]
    assert [c.type for c in spare.children] == ["replacing", "dspare"]
    assert heal.scan is not None and not heal.scan.is_rebuild  # a healing resilver


def test_zts_log_two_scan_lines_scrub_and_finished_rebuild() -> None:
    """Every line carries the test suite's log prefix (MANGLED as found): without it, a scrub
    line and a finished sequential rebuild of a dRAID vdev."""
    raw = load("issue18319-zts-draid1-scrub-plus-resilvered-draid-line-ztslog-prefixed-head-"
               "fragment.txt")
    with pytest.raises(ParseError):
        parse_zpool_status(raw)
    text = "\n".join(re.sub(r"^  [0-9:.]{11} ", "", ln) for ln in raw.splitlines())
    (p,) = parse_zpool_status(text)
    scrub, rebuild = p.scans
    assert (scrub.function, scrub.state) == (ScanFunction.SCRUB, ScanState.FINISHED)
    assert rebuild.rebuild_vdev == "draid1:2d:10c:5s-0" and rebuild.state is ScanState.FINISHED
    assert rebuild.processed_bytes == round(53.6 * 2**20)
    assert any(v.type == "dspare" and v.name == "draid1-0-3" for _, _, v in p.walk())


def test_draid_names_with_a_width_field() -> None:
    # config-only fragment (no pool: line), post-2.4 dRAID name `draid1:2d:4c:8w:1s-0`
    frag = load("openzfs-commit-d1b0a69-draid-failure-groups-config-fragment.txt")
    with pytest.raises(ParseError):
        parse_zpool_status(frag)
    name = next(w for w in frag.split() if w.startswith("draid1:"))
    assert vdev_type_from_name(name) == ("draid", 1)
    assert vdev_type_from_name("draid1-0-0") == ("dspare", None)


def test_logs_cache_spares_sections_zol065_fragment() -> None:
    p = one("issue3877-zol065-logs-cache-spares-head-fragment.txt")
    assert [v.name for v in p.logs] == ["ata-INTEL_SSDSA2M040G2GC_CVGB0375006V040NGN"]
    assert len(p.cache) == 1 and [(v.state, v.read_errors) for v in p.spares] == [
        ("AVAIL", None)]


@pytest.mark.parametrize("name", [
    "belgianbeer-freebsd-replacing-was-path.txt", "belgianbeer-freebsd-resilvering-gpt.txt",
    "mtlynch-resilver-replacing-no-estimate.txt",
    "openzfs-commit-b2255ed-draid2-special-spares-abbreviated.txt",
])
def test_other_public_samples(name: str) -> None:
    (p,) = parse_zpool_status(load(name))
    assert p.vdevs and p.root is not None
