"""services.dedup: the DDT read per version (2.1 per-entry sizes vs 2.3 totals), the datasets
with dedup on, RAM at stake, failed reads kept as failures; the demo's table stays consistent
(entries = histogram blocks) while it shrinks."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.fakes import Clock
from zconsole.hosts.base import CommandFailed, Result
from zconsole.hosts.demo import DemoHost
from zconsole.hosts.journal import AuditLog, PlanStore
from zconsole.model.plan import CheckLevel, Plan
from zconsole.parsers.zpool_status import parse_zpool_status
from zconsole.services.ops.engine.runner import PlanRunner
from zconsole.services.ops.operation import PlanRequest
from zconsole.services.ops.zfs import dedup_cleanup, dedup_off
from zconsole.services.ops.zfs.dedup_rewrite import MARKER, SNAPSHOT_PREFIX, old_name, stamp
from zconsole.services.read.dedup import followers, read_dedup, roots, shrink_sentence

T0 = 1795302000.0


def demo(scenario: str, version: str) -> DemoHost:
    return DemoHost(scenario, version, clock=lambda: T0)


@pytest.mark.parametrize("version,totals", [("2.1", False), ("2.3", True)])
def test_ddt_sizes_per_version(version: str, totals: bool) -> None:
    r = read_dedup(demo("showcase", version), "tank")
    assert r.ddt is not None and r.ddt.sizes_are_totals is totals
    assert r.entries == 1176735
    # 2.1 prints 331 B / 144 B per entry; 2.3 prints the totals (371M / 162M)
    assert r.ram_bytes is not None and 160 << 20 < r.ram_bytes < 170 << 20
    assert r.disk_bytes is not None and 360 << 20 < r.disk_bytes < 380 << 20
    lines = r.lines()
    assert lines[0].startswith("Dedup table (DDT) of tank: 1,176,735 entries")
    assert ("OpenZFS 2.1 prints per-entry sizes: 331 B on disk and 144 B in core per entry"
            in lines[0]) is (version == "2.1")
    assert ("OpenZFS 2.3 prints totals" in lines[0]) is totals
    assert "% of the ARC's maximum" in lines[1]
    assert r.dedupratio == pytest.approx(1.46)
    assert (r.table_size is not None) is totals  # dedup_table_size exists from 2.3
    assert r.histogram[0].startswith("bucket")
    assert r.errors == ()


def test_datasets_roots_and_followers() -> None:
    r = read_dedup(demo("showcase", "2.3"), "tank")
    assert [(d.name, d.set_here, d.kind) for d in r.datasets] == [
        ("tank/vm", True, "filesystem"),
        ("tank/vm/debian12", False, "volume"),
        ("tank/vm/debian12-test", False, "volume"),
        ("tank/vm/debian12-test2", False, "volume"),
        ("tank/vm/win11", False, "volume")]
    assert r.datasets[1].inherited_from == "tank/vm"
    assert [d.name for d in roots(r)] == ["tank/vm"]
    assert [d.name for d in roots(r, ["tank/vm/win11", "tank/vm"])] == ["tank/vm"]
    assert [d.name for d in roots(r, ["tank/vm/win11"])] == ["tank/vm/win11"]
    assert len(followers(r, "tank/vm")) == 4
    with pytest.raises(ValueError, match="tank/home"):
        roots(r, ["tank/home"])


def test_no_dedup_at_all() -> None:
    r = read_dedup(demo("healthy", "2.1"), "tank")
    assert r.entries == 0 and r.datasets == ()
    assert r.lines()[0] == "tank has no DDT entries: nothing is deduplicated."


class Failing:
    """A demo host whose `zpool status -D` fails: the failure is kept, nothing is guessed."""

    def __init__(self) -> None:
        self.inner = demo("showcase", "2.3")

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def run(self, argv: Sequence[str], **kw: object) -> Result:
        if list(argv[:3]) == ["zpool", "status", "-D"]:
            raise CommandFailed(Result(tuple(argv), 1, "", "internal error: out of memory", 0))
        return self.inner.run(argv, **kw)  # type: ignore[arg-type]


def test_failed_read_is_reported_not_guessed() -> None:
    r = read_dedup(Failing(), "tank")  # type: ignore[arg-type]
    assert r.ddt is None and r.ram_bytes is None
    assert any("zpool status -D -p tank" in e and "out of memory" in e for e in r.errors)
    assert r.lines()[0] == "The dedup table of tank could not be read."
    assert r.datasets  # the other reads still answered


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_demo_table_shrinks_consistently_when_deduplicated_data_is_destroyed(
        version: str) -> None:
    h = demo("showcase", version)
    before = read_dedup(h, "tank")
    h.run(["zfs", "destroy", "tank/vm/win11"])
    after = read_dedup(h, "tank")
    assert before.entries is not None and after.entries is not None
    assert 0 < after.entries < before.entries
    # `zpool status -D`: DDT entries equal the histogram's allocated blocks
    text = h.run(["zpool", "status", "-D", "tank"]).stdout
    pool = parse_zpool_status(text, ddt_sizes_are_totals=version == "2.3")[0]
    assert pool.ddt is not None and pool.ddt.entries == after.entries
    assert shrink_sentence(before, after).startswith(
        f"DDT of tank: {before.entries:,} -> {after.entries:,} entries (")
    # destroying everything that was written deduplicated empties the table
    h.run(["zfs", "destroy", "-r", "tank/vm"])
    assert "dedup: no DDT entries" in h.run(["zpool", "status", "-D", "tank"]).stdout
    # data written without dedup does not touch the table
    h2 = demo("showcase", version)
    n = read_dedup(h2, "tank").entries
    h2.run(["zfs", "destroy", "-r", "tank/home/bob"])
    assert read_dedup(h2, "tank").entries == n


# ------------------------------------------------------- the rewrite keeps the old copy (#26)


def _run(h: DemoHost, plan: Plan, tmp: Path) -> str:
    c = Clock(T0)
    runner = PlanRunner(h, plan, audit=AuditLog(tmp / "audit.jsonl"),
                        store=PlanStore(tmp / "plans"), operator="test", clock=c,
                        sleep=c.sleep, poll_interval=5)
    return runner.run(lambda e: None).status


def _tree(h: DemoHost, top: str, kind: str = "filesystem,volume,snapshot") -> list[str]:
    out = h.run(["zfs", "list", "-H", "-o", "name", "-t", kind, "-r", top]).stdout.split()
    return sorted(n[len(top):] for n in out)


def _get(h: DemoHost, prop: str, name: str) -> str:
    return h.run(["zfs", "get", "-H", "-p", "-o", "value", prop, name]).stdout.strip()


def _rewrite(h: DemoHost, *names: str) -> Plan:
    return dedup_off.plan_cli(h, PlanRequest("tank", (), {"rewrite": list(names)}))


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_rewrite_keeps_the_old_copy_and_every_snapshot(version: str, tmp_path: Path) -> None:
    """Issue 26 item 5: the run never destroys; the copy has every snapshot, dedup=off; the
    old copy stays read-only, unmounted, marked; the cleanup is a plan of its own."""
    h = demo("dedup", version)
    before = read_dedup(h, "tank")
    snaps = _tree(h, "tank/backup")
    assert len(snaps) == 15  # the filesystem and its 14 nightlies
    plan = _rewrite(h, "tank/backup")
    assert not plan.blocked
    assert not [a for a in plan.argv_list() if "destroy" in a]
    assert [s.confirmation for s in plan.steps] == [None] * len(plan.steps)
    copy = [s for s in plan.steps if s.id == "rewrite-1-copy"][0].command
    assert copy is not None and copy.argv[:3] == ("zfs", "send", "-R")
    assert copy.then == (("zfs", "receive", "-u", "-o", "dedup=off", "-x", "readonly",
                          "tank/backup.zconsole-dedup-new"),)
    assert _run(h, plan, tmp_path / "run") == "done"
    old = old_name("tank/backup", plan.created_at)
    rewrite = f"@{SNAPSHOT_PREFIX}{stamp(plan.created_at)}"
    assert _tree(h, "tank/backup") == sorted(snaps + [rewrite])
    assert _tree(h, old) == sorted(snaps + [rewrite])
    assert (_get(h, "dedup", "tank/backup"), _get(h, "readonly", "tank/backup"),
            _get(h, "mounted", "tank/backup")) == ("off", "off", "yes")
    assert (_get(h, "readonly", old), _get(h, "mounted", old), _get(h, "mountpoint", old),
            _get(h, MARKER, old)) == ("on", "no", "none", "tank/backup")
    # the old blocks are all still there: the table has not shrunk
    assert read_dedup(h, "tank").entries == before.entries
    cleanup = dedup_cleanup.plan_cli(h, PlanRequest("tank", (old,)))
    assert not cleanup.blocked
    assert cleanup.argv_list()[0] == ("zfs", "destroy", "-r", old)
    destroy = cleanup.steps[0]
    assert destroy.confirmation is not None and destroy.confirmation.expected == old
    assert {p.kind for p in destroy.prechecks} >= {"snapshots_copied", "dataset_property"}
    assert _run(h, cleanup, tmp_path / "cleanup") == "done"
    after = read_dedup(h, "tank")
    assert before.entries is not None and after.entries is not None
    assert after.entries < before.entries
    assert old not in h.run(["zfs", "list", "-H", "-o", "name"]).stdout.split()
    assert _tree(h, "tank/backup") == sorted(snaps + [rewrite])


def test_rewrite_carries_children_clones_and_hides_old_volumes(tmp_path: Path) -> None:
    """showcase tank/vm: four volumes, snapshots and clones inside the tree travel with -R
    (the clones stay clones of the copy's snapshots); the old volumes get volmode=none."""
    h = demo("showcase", "2.3")
    every = _tree(h, "tank/vm")
    plan = _rewrite(h, "tank/vm")
    assert not plan.blocked, [c for c in plan.checks if c.blocking]
    assert _run(h, plan, tmp_path) == "done"
    old = old_name("tank/vm", plan.created_at)
    rewrite = f"@{SNAPSHOT_PREFIX}{stamp(plan.created_at)}"
    kids = [n for n in every if "@" not in n]
    assert _tree(h, "tank/vm") == sorted(every + [k + rewrite for k in kids])
    assert _tree(h, old) == _tree(h, "tank/vm")
    assert _get(h, "origin", "tank/vm/debian12-test") == "tank/vm/debian12@golden"
    assert _get(h, "origin", f"{old}/debian12-test") == f"{old}/debian12@golden"
    for k in kids[1:]:
        assert _get(h, "volmode", old + k) == "none"
        assert _get(h, "volmode", "tank/vm" + k) == "default"
        assert _get(h, "dedup", "tank/vm" + k) == "off"


def test_rewrite_refusals_and_what_does_not_travel() -> None:
    h = demo("showcase", "2.3")
    nested = _rewrite(h, "tank/vm", "tank/vm/win11")
    assert "rewrite-nested" in [c.name for c in nested.checks if c.blocking]
    clone = _rewrite(h, "tank/vm/debian12-test")  # a clone of a snapshot outside it
    assert [c.name for c in clone.checks if c.blocking] == ["rewrite-clones"]
    origin = _rewrite(h, "tank/vm/debian12")  # its snapshots have clones outside it
    warn = [c for c in origin.checks if c.name == "rewrite-clones"]
    assert not origin.blocked and warn[0].level is CheckLevel.WARN
    assert "tank/vm/debian12-test" in warn[0].detail
    snaps = [c for c in origin.checks if c.name == "rewrite-snapshots"][0]
    assert "bookmarks" in snaps.detail and "holds" in snaps.detail


def test_cleanup_destroys_only_an_old_copy_the_rewrite_marked(tmp_path: Path) -> None:
    h = demo("showcase", "2.3")
    plain = dedup_cleanup.plan_cli(h, PlanRequest("tank", ("tank/vm/win11",)))
    assert plain.blocked and plain.steps == ()
    h.run(["zfs", "rename", "tank/vm/win11", "tank/vm/x.zconsole-dedup-old-20261121"])
    lookalike = dedup_cleanup.plan_cli(
        h, PlanRequest("tank", ("tank/vm/x.zconsole-dedup-old-20261121",)))
    assert lookalike.blocked and "not an old copy" in lookalike.checks[0].detail
    # a clone outside the old copy still depends on it: blocked, never -R
    plan = _rewrite(h, "tank/vm/debian12")
    assert _run(h, plan, tmp_path / "run") == "done"
    old = old_name("tank/vm/debian12", plan.created_at)
    assert _get(h, "origin", "tank/vm/debian12-test") == f"{old}@golden"
    held = dedup_cleanup.plan_cli(h, PlanRequest("tank", (old,)))
    assert [c.name for c in held.checks if c.blocking] == ["old-copy-clones"]


def test_cleanup_stops_before_destroying_when_the_copy_lost_a_snapshot(tmp_path: Path
                                                                      ) -> None:
    """Between the rewrite and the cleanup a snapshot of the copy was destroyed: the
    precheck sees it and nothing of the old copy is destroyed."""
    h = demo("dedup", "2.3")
    plan = _rewrite(h, "tank/backup")
    assert _run(h, plan, tmp_path / "run") == "done"
    old = old_name("tank/backup", plan.created_at)
    cleanup = dedup_cleanup.plan_cli(h, PlanRequest("tank", (old,)))
    h.run(["zfs", "destroy", "tank/backup@nightly-03"])
    kept = _tree(h, old)
    assert _run(h, cleanup, tmp_path / "cleanup") == "failed"
    assert _tree(h, old) == kept and "@nightly-03" in kept


def test_rewrite_stops_with_the_original_in_place_when_the_copy_fails(tmp_path: Path
                                                                     ) -> None:
    """The copy's name was taken between preview and run: the first rewrite step's
    precheck sees it before anything changes (not even readonly=on); and if the receive
    fails anyway, the run stops there with the original in place (read-only)."""
    h = demo("dedup", "2.3")
    plan = _rewrite(h, "tank/backup")
    h.run(["zfs", "clone", "tank/backup@nightly-00", "tank/backup.zconsole-dedup-new"])
    assert _run(h, plan, tmp_path / "taken") == "failed"
    assert _get(h, "mounted", "tank/backup") == "yes"
    assert _get(h, "readonly", "tank/backup") == "off"
    unchecked = dataclasses.replace(plan, steps=tuple(
        dataclasses.replace(s, prechecks=()) for s in plan.steps))
    assert _run(h, unchecked, tmp_path / "receive") == "failed"
    assert _get(h, "mounted", "tank/backup") == "yes"
    assert _get(h, "readonly", "tank/backup") == "on"
    assert not [n for n in h.run(["zfs", "list", "-H", "-o", "name"]).stdout.split()
                if "dedup-old" in n]


def test_demo_replication_stream_is_faithful() -> None:
    """zfs send -R | zfs receive -o/-x: the descendants inherit the -o value and the -x
    property (zfs-receive(8)); snapshots after the named one do not travel; guids kept."""
    h = demo("showcase", "2.3")
    h.run(["zfs", "set", "dedup=verify", "readonly=on", "tank/vm/win11"])
    h.run(["zfs", "snapshot", "-r", "tank/vm@one"])
    h.run(["zfs", "snapshot", "tank/vm/win11@later"])
    h.run_pipeline([["zfs", "send", "-R", "tank/vm@one"],
                    ["zfs", "receive", "-u", "-o", "dedup=off", "-x", "readonly", "tank/c"]])
    assert "/win11@one" in _tree(h, "tank/c") and "/win11@later" not in _tree(h, "tank/c")
    assert h.run(["zfs", "get", "-H", "-o", "value,source", "dedup", "tank/c/win11"]
                 ).stdout.split() == ["off", "inherited", "from", "tank/c"]
    assert _get(h, "readonly", "tank/c/win11") == "off"
    assert _get(h, "mounted", "tank/c") == "no"
    assert _get(h, "guid", "tank/c@one") == _get(h, "guid", "tank/vm@one")


def test_cleanup_refuses_held_snapshots_at_preview_and_right_before_the_destroy(
        tmp_path: Path) -> None:
    """A held snapshot: on the 2.3 guest `zfs destroy -r` destroyed the rest of the old
    tree and then failed. The cleanup blocks on a hold it sees, and a hold placed after
    the preview stops the run before anything is destroyed."""
    h = demo("dedup", "2.3")
    plan = _rewrite(h, "tank/backup")
    assert _run(h, plan, tmp_path / "run") == "done"
    old = old_name("tank/backup", plan.created_at)
    snap = h.machine.find_snapshot(f"{old}@nightly-05")
    assert snap is not None
    snap.userrefs = 1  # what `zfs hold keep OLD@nightly-05` leaves
    held = dedup_cleanup.plan_cli(h, PlanRequest("tank", (old,)))
    blocking = [c for c in held.checks if c.blocking]
    assert [c.name for c in blocking] == ["old-copy-holds"]
    assert f"{old}@nightly-05" in blocking[0].detail
    snap.userrefs = 0
    cleanup = dedup_cleanup.plan_cli(h, PlanRequest("tank", (old,)))
    assert not cleanup.blocked
    snap.userrefs = 1  # held again between the preview and the run
    kept = _tree(h, old)
    assert _run(h, cleanup, tmp_path / "cleanup") == "failed"
    assert _tree(h, old) == kept


def test_rewrite_refuses_an_encrypted_dataset() -> None:
    """zfs send -R of an encrypted dataset needs -w (a raw stream, the blocks kept as
    they are): the rewrite refuses it instead of failing after readonly and the snapshot."""
    h = demo("dedup", "2.3")
    assert not _rewrite(h, "tank/backup").blocked
    h.machine.datasets["tank/backup"].props["encryption"] = "aes-256-gcm"
    plan = _rewrite(h, "tank/backup")
    assert [c.name for c in plan.checks if c.blocking] == ["rewrite-state"]
    assert "encrypted" in [c for c in plan.checks if c.blocking][0].detail


def test_the_dedup_wizard_offers_the_cleanup_later_never_by_default(tmp_path: Path) -> None:
    """After a rewrite, the D wizard asks about the old copies first; its first (default)
    answer keeps them; choosing one builds the dedup-off-cleanup plan and nothing else."""
    from zconsole.services.read.collect import collect
    from zconsole.ui.wizards.flows import FLOWS

    h = demo("dedup", "2.3")
    assert FLOWS["dedup-off"]().next_stage(collect(h), {"pool": "tank"}).key == "datasets"
    plan = _rewrite(h, "tank/backup")
    assert _run(h, plan, tmp_path) == "done"
    old = old_name("tank/backup", plan.created_at)
    reading = collect(h)
    flow = FLOWS["dedup-off"]()
    stage = flow.next_stage(reading, {"pool": "tank"})
    assert stage is not None and stage.key == "cleanup"
    assert [o.value for o in stage.options] == ["", old]
    keep = flow.next_stage(reading, {"pool": "tank", "cleanup": ""})
    assert keep is not None and keep.key == "datasets"
    assert flow.next_stage(reading, {"pool": "tank", "cleanup": old}) is None
    cleanup = flow.build(h, reading, {"pool": "tank", "cleanup": old}, False)
    assert cleanup.kind == "dedup-off-cleanup" and not cleanup.blocked
    assert cleanup.argv_list()[0] == ("zfs", "destroy", "-r", old)
