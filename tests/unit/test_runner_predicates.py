"""services.predicates against the demo host (2.1 text and 2.3 JSON status) and a host whose
reads fail: every kind, the sentence saying what was seen, never 'holds' when it could not
look."""

from __future__ import annotations

import pytest

from tests.unit.test_services_fakehost import FakeHost
from zconsole.hosts.base import CommandFailed, Result
from zconsole.hosts.demo import DemoHost
from zconsole.model.plan import predicate
from zconsole.services.ops.engine.predicates import Evaluator, evaluate

T0 = 1795302000.0
A0 = "ata-HGST_HUS724040ALE640_PN2334PBJ1A2BT"
FAST1 = "nvme-WD_BLACK_SN770_1TB_22517D805678"  # resilvering in showcase's fast pool


@pytest.fixture(params=["2.1", "2.3"])
def host(request: pytest.FixtureRequest) -> DemoHost:
    return DemoHost("showcase", request.param, lambda: T0)


@pytest.mark.parametrize("kind,params,ok,detail", [
    ("vdev_present", {"pool": "tank", "name": A0}, True, f"{A0} is in tank (ONLINE)"),
    ("vdev_present", {"pool": "tank", "name": f"/dev/disk/by-id/{A0}-part1"}, True,
     f"{A0} is in tank (ONLINE)"),
    ("vdev_present", {"pool": "tank", "name": f"/dev/disk/by-id/{A0}"}, True,
     f"{A0} is in tank (ONLINE)"),
    ("vdev_present", {"pool": "tank", "name": "sdh"}, False, "sdh is not in tank"),
    ("vdev_absent", {"pool": "tank", "name": "sdh"}, True, "sdh is not in tank"),
    ("vdev_absent", {"pool": "tank", "name": A0}, False, f"{A0} is still in tank (ONLINE)"),
    ("vdev_state", {"pool": "tank", "name": A0, "state": "ONLINE"}, True, f"{A0} is ONLINE"),
    ("vdev_state", {"pool": "fast", "name": FAST1, "state": "ONLINE"}, False,
     f"{FAST1} is ONLINE but still resilvering"),
    ("vdev_state", {"pool": "tank", "name": "sdh", "state": "ONLINE"}, False,
     "sdh is not in tank (expected ONLINE)"),
    ("container_present", {"pool": "tank", "type": "mirror"}, True,
     f"mirror-0 ({A0} + ata-HGST_HUS724040ALE640_PN2334PBJ4K7XT), mirror-1 "
     "(ata-HGST_HUS724040ALE640_PN2334PBJ9M3QT + ata-HGST_HUS724040ALE640_PN2334PBJ2C8WT), "
     "mirror-2 (ata-INTEL_SSDSC2BB080G4_BTWL4123456Z080BGN + "
     "ata-INTEL_SSDSC2BB080G4_BTWL4123457A080BGN) in tank"),
    ("container_absent", {"pool": "tank", "type": "replacing"}, True,
     "no replacing vdev in tank"),
    ("container_present", {"pool": "tank", "type": "replacing"}, False,
     "no replacing vdev in tank"),
    ("no_scan", {"pool": "tank"}, True, "no scrub or resilver running in tank"),
    ("no_scan", {"pool": "fast"}, False, "fast: resilver in progress (20 %)"),
    ("pool_property", {"pool": "tank", "property": "autoexpand", "value": "off"}, True,
     "autoexpand of tank is off"),
    ("pool_property", {"pool": "tank", "property": "autoexpand", "value": "on"}, False,
     "autoexpand of tank is off (expected on)"),
    ("dataset_property", {"dataset": "tank", "property": "compression", "value": "nope"},
     False, "compression of tank is lz4 (expected nope)"),
    ("pool_size_at_least", {"pool": "tank", "bytes": "1000"}, True,
     "tank SIZE is 7971459301376 bytes (at least 1000)"),
    ("pool_size_at_least", {"pool": "tank", "bytes": str(8 << 40)}, False,
     f"tank SIZE is 7971459301376 bytes, expected at least {8 << 40}"),
    ("teleport", {"pool": "tank"}, False, "unknown predicate kind 'teleport': zconsole "
                                          "cannot evaluate it"),
])
def test_every_kind(host: DemoHost, kind: str, params: dict[str, str], ok: bool,
                    detail: str) -> None:
    assert evaluate(host, predicate(kind, "d", **params)) == (ok, detail)


@pytest.mark.parametrize("kind", ["vdev_absent", "vdev_errors", "pool_leftovers"])
def test_missing_pool_is_unknown_not_absent(host: DemoHost, kind: str) -> None:
    """Every ZFS predicate on a pool that is not imported is unknown, with the one sentence
    (the replace-failed report and counters said `False, "nopool is not imported"`)."""
    out = Evaluator(host).check(predicate(kind, "d", pool="nopool", name="sdh", counts="0/0/0"))
    assert (out.ok, out.unknown) == (False, True)
    assert out.detail == "pool nopool is not imported (zpool status does not list it)"


def test_missing_parameter_is_said() -> None:
    host = DemoHost("showcase", "2.3", lambda: T0)
    out = Evaluator(host).check(predicate("vdev_absent", "d", pool="tank"))
    assert out.unknown and out.detail == "predicate vdev_absent lacks the parameter 'name'"


def test_failed_reads_never_hold() -> None:
    fail = CommandFailed(Result(("zpool", "status", "-j", "--json-int"), 1, "",
                                "The ZFS modules are not loaded.\n", 0.1))
    host = FakeHost(commands={
        ("zfs", "version"): "zfs-2.3.2-2~bpo12+2\nzfs-kmod-2.3.2-2~bpo12+2\n",
        ("zpool", "status", "-j", "--json-int"): fail,
        ("zpool", "get", "-H", "-p", "autoexpand", "tank"): (1, "", "cannot open 'tank': "
                                                                "no such pool\n"),
    }, files={"/sys/module/zfs/version": "2.3.2-2~bpo12+2\n"})
    ev = Evaluator(host)
    for p in (predicate("vdev_absent", "d", pool="tank", name="sdh"),
              predicate("no_scan", "d", pool="tank"),
              predicate("container_absent", "d", pool="tank", type="replacing")):
        out = ev.check(p)
        assert (out.ok, out.unknown) == (False, True)
        assert out.detail.startswith("could not read zpool status: zpool status -j --json-int "
                                     "failed (exit 1): The ZFS modules are not loaded.")
    out = ev.check(predicate("pool_property", "d", pool="tank", property="autoexpand",
                             value="off"))
    assert (out.ok, out.unknown) == (False, True)
    assert out.detail == ("could not read autoexpand of pool tank: zpool get -H -p autoexpand "
                          "tank failed (exit 1): cannot open 'tank': no such pool")


def test_one_status_read_per_fresh(host: DemoHost) -> None:
    calls: list[tuple[str, ...]] = []
    real = host.run

    def spy(argv, **kw):  # type: ignore[no-untyped-def]
        calls.append(tuple(argv))
        return real(argv, **kw)

    host.run = spy  # type: ignore[method-assign]
    ev = Evaluator(host)
    ev.check_all([predicate("no_scan", "d", pool="tank"),
                  predicate("vdev_present", "d", pool="tank", name=A0),
                  predicate("container_absent", "d", pool="tank", type="replacing")])
    statuses = [c for c in calls if c[:2] == ("zpool", "status")]
    assert len(statuses) == 1
    ev.fresh()
    ev.check(predicate("no_scan", "d", pool="tank"))
    assert len([c for c in calls if c[:2] == ("zpool", "status")]) == 2
    assert len([c for c in calls if c == ("zfs", "version")]) == 1  # version read once
