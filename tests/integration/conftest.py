"""Fixtures for tests against real OpenZFS in a throw-away QEMU guest (tools/testvm).

VM tests carry the ``zfsvm`` marker and use the ``zfs_guest`` fixture (both flavours) or
``zfs_guest_21`` / ``zfs_guest_23`` (one flavour).  They run only when asked:

* ``ZCONSOLE_VM=1`` (or ``--vm`` when this directory is on the pytest command line):
  build/boot the guests; if that is impossible the tests are SKIPPED with the cause,
  and the cause is repeated in the terminal summary.
* ``ZCONSOLE_REQUIRE_VM=1`` (CI): implies ZCONSOLE_VM=1, and a guest that cannot be
  built or started FAILS the tests instead.
* neither: VM tests are skipped ("VM tests not requested (set ZCONSOLE_VM=1)") and
  nothing is built.  Tests without the marker never trigger a build.

See tools/testvm/README.md.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

import pytest
from guest_reuse import BlankGuests, session_guest
from hostvm import faults
from hostvm.guest import HostGuest
from vmguest import VmGuest

from tests.paths import load_testvm

REPO = Path(__file__).resolve().parents[2]
TESTVM_PY = REPO / "tools" / "testvm" / "testvm.py"
FLAVOURS = ["2.1", "2.3"]
FLAVOUR_IDS = ["zfs21", "zfs23"]
VM_TEST_TIMEOUT = int(os.environ.get("ZCONSOLE_VM_TEST_TIMEOUT", "1800"))
NOT_REQUESTED = "VM tests not requested (set ZCONSOLE_VM=1)"

# flavour -> reason the guest is unavailable (recorded once, reused for every test)
_failures: dict[str, str] = {}
_timings: list[str] = []
# figures the host guest tests measured (login seconds with and without a fault, boot times):
# printed in the terminal summary, also attached to each test's report (record_property)
_host_figures: list[str] = []


def _truthy(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "yes", "true", "on"}


def vm_required() -> bool:
    return _truthy("ZCONSOLE_REQUIRE_VM")


def vm_requested(config: pytest.Config) -> bool:
    opt = False
    try:
        opt = bool(config.getoption("--vm"))
    except ValueError:  # option not registered (this conftest was not an initial one)
        pass
    return opt or _truthy("ZCONSOLE_VM") or vm_required()


def pytest_addoption(parser: pytest.Parser) -> None:
    try:
        parser.addoption(
            "--vm",
            action="store_true",
            default=False,
            help="run tests marked zfsvm (boots QEMU guests with real OpenZFS)",
        )
    except ValueError:  # already added by another conftest/plugin
        pass


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "zfsvm: needs a QEMU guest with real OpenZFS (tools/testvm); runs only with ZCONSOLE_VM=1",
    )
    config.addinivalue_line(
        "markers",
        "hostvm: needs the Debian 12 host guest (tools/testvm --flavour host); ZCONSOLE_VM=1",
    )
    config.addinivalue_line(
        "markers",
        "hostvm_slow: a host guest test of minutes (reboots, 2-minute timeouts); .ci/run runs it",
    )
    config.addinivalue_line(
        "markers",
        "zfs_flavours(*flavours, why): a zfs_guest test that runs on these OpenZFS flavours only",
    )


VM_MARKERS = ("zfsvm", "hostvm", "hostvm_slow")


def _is_vm_test(item: pytest.Item) -> bool:
    return any(item.get_closest_marker(m) is not None for m in VM_MARKERS)


# One rerun for guest tests, on a freshly reset guest: the guest is emulated (TCG) and shares
# two cores with the rest of the suite. The "exit 255 and no output" seen in CI runs is the
# ZFS guests' dropbear 2022.83 closing a session that overlaps another over one ControlMaster
# (mkj/dropbear#173): SshHost asks a read again (SessionLost), a write is not retried. A rerun
# is reported in the summary ("R" / "rerun"), so a flake stays visible; a real bug fails
# twice.
VM_RERUNS = int(os.environ.get("ZCONSOLE_VM_RERUNS", "1"))


# The host-slow group: a host guest for the minutes-long host tests that stall it, beside the
# host group's. Stop 25's CI ran four tests there, the boot test (2 963 s) last, and was the
# run's long pole at 3 906 s; with the boot test's third reboot gone and the frozen-logind
# recipe alone beside it, host-slow ended at 1 428 s of a 2 088 s run (the ZFS groups were
# then the longest). The rebooting test runs last on it (collection order: test_hostvm_faults
# before test_hostvm_fixit; checked at collection), and leaves the guest as it is.
REBOOTING_TESTS = ("test_boot_fixes_across_reboots",)
HOST_SLOW_TESTS = ("test_readme_install_into_a_new_venv", *REBOOTING_TESTS)


# The host-b group: a third host guest for the fix-it tests driven from this machine over ssh
# (the faults, the fix-its' plans, the undos), beside the host group's console tests, which
# need zconsole installed in their guest (host_zconsole). Most of these tests wait, not compute
# (a 25 s user manager, 3 s lookups, logins timed): issue 33's cold run of 2026-11-28 had the
# host group end last at 3 390 s with all of them in one guest.
# The cached run of 2026-11-29 03:28 (CPU table): host-slow ended last at 3 230 s with the
# frozen logind (two minutes of stalled logins, ~470 s loaded) beside the README install and
# the reboots, host-b at 2 072 s; the frozen logind now stalls host-b's guest instead (its
# tests run one after the other in that worker: nothing else logs in meanwhile).
HOST_B_MODULES = ("test_hostvm_faults.py", "test_hostvm_fixit.py", "test_hostvm_fixit_undo.py")


def guest_group(item: pytest.Item) -> str | None:
    """The guest a test runs on, as an xdist group: `./dev test` runs the suite in parallel
    workers (pytest-xdist, --dist loadgroup), and every test of one guest must run in the
    worker that booted it. The minutes-long host tests (a reboot, a 2-minute stall) get a
    host guest of their own, so they wait beside the rest of the suite instead of after it."""
    names = set(getattr(item, "fixturenames", ()))
    if "host_guest" in names:
        if any(name == getattr(item, "originalname", item.name) for name in HOST_SLOW_TESTS):
            if item.get_closest_marker("hostvm_slow") is None:
                # without the mark the test is rerun after a failure, on a guest its first
                # attempt left changed (CI, stop 21: the marks had slipped onto a helper)
                raise pytest.UsageError(f"{item.nodeid}: a host-slow test must be hostvm_slow")
            return "host-slow"
        return "host-b" if Path(str(item.path)).name in HOST_B_MODULES else "host"
    callspec = getattr(item, "callspec", None)
    if "zfs_guest" in names and callspec is not None and "zfs_guest" in callspec.params:
        return f"zfs{callspec.params['zfs_guest']}"
    for flavour in ("21", "23"):
        if f"zfs_guest_{flavour}" in names:
            return f"zfs{flavour[0]}.{flavour[1]}-s"
    return "vm-other" if _is_vm_test(item) else None


# Issue 33: a guest test runs on both OpenZFS flavours only where the flavours differ in what
# it proves (the reads: 2.1 text, 2.3 JSON; what zpool refuses or offers; the fields of
# arcstats). Where they do not (ssh, the harness, the console's locks and audit, one flow of
# several), `@pytest.mark.zfs_flavours("2.3", why="...")` keeps it on one flavour, and the
# flows are shared out between the two guests so that both are proven and neither waits.
# The pairs left out are counted in the terminal summary, never dropped silently.
_one_flavour: list[str] = []


def one_flavour_only(item: pytest.Item) -> bool:
    """Whether this parametrized guest test is on a flavour its zfs_flavours mark leaves out."""
    mark = item.get_closest_marker("zfs_flavours")
    callspec = getattr(item, "callspec", None)
    if mark is None or callspec is None or "zfs_guest" not in callspec.params:
        return False
    if not mark.kwargs.get("why") or not set(mark.args) <= set(FLAVOURS) or not mark.args:
        raise pytest.UsageError(f"{item.nodeid}: zfs_flavours needs flavours of {FLAVOURS} "
                                f"and a why= (got {mark.args} {mark.kwargs})")
    return callspec.params["zfs_guest"] not in mark.args


def _deselect_other_flavours(config: pytest.Config, items: list[pytest.Item]) -> None:
    left_out = [item for item in items if one_flavour_only(item)]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if item not in set(left_out)]
        _one_flavour.append(f"{len(left_out)} guest tests run on one OpenZFS flavour only "
                            "(zfs_flavours marks: the flavours do not differ in what they prove)")


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups off the markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _deselect_other_flavours(config, items)
    # The first VM test may build a guest (~5 min per flavour cold): lift pytest-timeout's
    # per-test limit for the VM tests of this directory only.
    here = Path(__file__).resolve().parent
    reruns = VM_RERUNS if config.pluginmanager.hasplugin("rerunfailures") else 0
    slow = [item for item in items if guest_group(item) == "host-slow"]
    rebooting = [item for item in slow if any(n in item.nodeid for n in REBOOTING_TESTS)]
    if rebooting and slow[-1] is not rebooting[-1]:
        raise pytest.UsageError("the rebooting host test must be the host-slow guest's last: "
                                f"{[item.nodeid for item in slow]}")
    for item in items:
        if (group := guest_group(item)) is not None:
            item.add_marker(pytest.mark.xdist_group(group))
        if _is_vm_test(item) and here in Path(str(item.path)).resolve().parents:
            if config.pluginmanager.hasplugin("timeout"):
                item.add_marker(pytest.mark.timeout(VM_TEST_TIMEOUT))
            # a rerun of a minutes-long host test (reboots, 2-minute stalls) costs too much
            if reruns and item.get_closest_marker("hostvm_slow") is None:
                item.add_marker(pytest.mark.flaky(reruns=reruns, reruns_delay=2))


def pytest_runtest_setup(item: pytest.Item) -> None:
    if _is_vm_test(item) and not vm_requested(item.config):
        pytest.skip(NOT_REQUESTED)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """In an xdist worker: hand the guests' timings, figures and failures to the controller,
    which prints them (tests/conftest.py: the controller never loads this conftest)."""
    out = getattr(session.config, "workeroutput", None)
    if out is not None:
        out["zconsole_vm"] = {"timings": _timings, "figures": _host_figures,
                              "failures": _failures, "one_flavour": _one_flavour}


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    for line in _one_flavour:
        terminalreporter.write_line(line)
    if _timings:
        terminalreporter.section("zfsvm guests")
        for line in _timings:
            terminalreporter.write_line(line)
    if _host_figures:
        terminalreporter.section("host guest figures (seconds; reported, not asserted)")
        for line in _host_figures:
            terminalreporter.write_line(line)
    if _failures:
        terminalreporter.section("zfsvm guests UNAVAILABLE", red=True, bold=True)
        verdict = "FAILED (ZCONSOLE_REQUIRE_VM=1)" if vm_required() else "SKIPPED"
        for flavour, reason in _failures.items():
            terminalreporter.write_line(
                f"WARNING: {_guest_name(flavour)} tests {verdict}: {reason}", red=True, bold=True
            )


def _load_testvm() -> ModuleType:
    return load_testvm()


class ZfsGuest(VmGuest):
    """A running OpenZFS guest.  ``exec`` runs commands over ssh, ``monitor`` talks to QEMU."""

    alias = "zfsvm"

    def __init__(self, flavour: str, instance: Any) -> None:
        super().__init__(instance)
        self.flavour = flavour

    @property
    def zfs_version(self) -> str:
        return {"2.1": "2.1.11", "2.3": "2.3.2"}[self.flavour]

    def host(self) -> Any:
        """zconsole's SSH host backend pointed at this guest."""
        from zconsole.hosts.ssh import SshHost  # lazy: written by another engineer

        return SshHost(destination=self.alias, ssh_config=str(self.ssh_config))

    def ssh_argv(self, *remote: str) -> list[str]:
        return ["ssh", "-F", str(self.ssh_config), self.alias, *remote]

    @property
    def smart_disks(self) -> dict[str, str]:
        """The disks with real SMART (tools/testvm: `sata0`, an ATA disk on AHCI; `nvme0`, an
        NVMe disk), by QEMU device id: their /dev/disk/by-id paths in the guest."""
        return dict(self._inst.smart_disk_paths())

    def __repr__(self) -> str:
        return f"ZfsGuest(flavour={self.flavour!r}, ssh_config={str(self.ssh_config)!r})"


def _guest_name(flavour: str) -> str:
    return "Debian 12 host guest" if flavour == "host" else f"OpenZFS {flavour} guest"


def _unavailable(flavour: str, reason: str) -> NoReturn:
    _failures[flavour] = reason
    what = _guest_name(flavour)
    if vm_required():
        pytest.fail(f"{what} unavailable (ZCONSOLE_REQUIRE_VM=1): {reason}", pytrace=False)
    pytest.skip(f"{what} unavailable: {reason}")


def _wanted(request: pytest.FixtureRequest, flavour: str) -> ModuleType:
    """tools/testvm, once VM tests were asked for and this flavour has not failed before
    (skips or fails the test otherwise)."""
    if not vm_requested(request.config):
        pytest.skip(NOT_REQUESTED)
    if flavour in _failures:
        _unavailable(flavour, _failures[flavour])
    return _load_testvm()


def _run_dir(name: str) -> Path:
    run_root = Path(os.environ.get("ZCONSOLE_VM_RUN_ROOT", f"/tmp/zconsole-testvm-{os.getuid()}"))
    return run_root / f"pytest-{os.getpid()}-{name}"


# Until a guest answers ssh. testvm's own default (240 s) is for a developer's machine; the
# suite boots four guests at once beside the unit and UI workers, and a loaded 2-core machine
# was seen taking 436 s. A hang guard, not a figure: the boot time is reported, never asserted.
BOOT_PATIENCE = float(os.environ.get("ZCONSOLE_VM_BOOT_TIMEOUT", "900"))


# Room a guest needs in its run directory: the disk files are sparse but the tests fill them
# (a 2.x guest ends near 2.7 GiB, a host guest's root copy alone is ~1.3 GiB). A full /tmp
# does not fail loudly: QEMU pauses the guest and every ssh times out at the banner.
RUN_ROOM_GIB = float(os.environ.get("ZCONSOLE_VM_MIN_FREE_GIB", "4"))


def _build_and_start(tv: ModuleType, fl: Any, inst: Any) -> tuple[float, float]:
    """Build the guest (or take it from the cache) and boot it: (build seconds, seconds until
    ssh answered)."""
    root = inst.run_dir.parent
    root.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(root).free / 2**30
    if free < RUN_ROOM_GIB:
        raise tv.VMError(
            f"only {free:.1f} GiB free in {root}, a guest needs {RUN_ROOM_GIB:.0f} GiB: "
            f"old run directories there can go (rm -rf {root}/pytest-*)"
        )
    t0 = time.monotonic()
    build_dir = tv.build(fl, quiet=True)
    t_build = time.monotonic() - t0
    t1 = time.monotonic()
    try:
        return t_build, inst.start(build_dir, timeout=BOOT_PATIENCE)
    except subprocess.TimeoutExpired:
        # testvm's ssh probe gives up after 30 s when sshd accepts but does not answer yet
        # (a guest starved of CPU): the guest is up and booting, so keep probing
        if not inst.running():
            raise
    while True:
        probe = subprocess.run(
            ["ssh", "-F", str(inst.ssh_config), "-o", "ControlMaster=no", "-o",
             "ConnectTimeout=5", inst.alias, "true"],
            stdin=subprocess.DEVNULL, capture_output=True, timeout=None)
        if probe.returncode == 0:
            break
        if time.monotonic() - t1 > BOOT_PATIENCE:
            inst.kill()
            raise tv.VMError(f"guest not reachable by ssh after {BOOT_PATIENCE:.0f} s")
        time.sleep(1)
    inst._start_master()
    return t_build, time.monotonic() - t1


def _drop_disks(inst: Any) -> None:
    """Delete a stopped guest's disk files (GiBs each; a CI run boots a dozen guests and a
    full /tmp pauses every guest still running); the logs stay for the report."""
    shutil.rmtree(inst.run_dir / "disks", ignore_errors=True)


def guest_cpu(pid: int | None) -> tuple[float, float] | None:
    """(CPU seconds, seconds alive) of a running QEMU, from /proc: what the guest cost the
    machine (issue 33), printed when it stops."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    tick = os.sysconf("SC_CLK_TCK")
    # after the command's ")": state is field 3, utime 14, stime 15, starttime 22
    return (int(fields[11]) + int(fields[12])) / tick, uptime - int(fields[19]) / tick


# The guests' CPU by test (issue 33: every guest test states its cost): the CPU seconds of
# this worker's guests, alive (`_live`) and stopped (`_spent`), read at the end of each phase
# of each test; the difference since the last phase is that phase's, handed to the
# controller in the report (user_properties "guest_cpu_s") for its group table. A worker's
# guests belong to its group, so what they spend between two tests is the next one's.
_live: dict[int, int] = {}  # id(inst) -> QEMU pid
_spent = [0.0]
_accounted = [0.0]


def guests_cpu_now() -> float:
    """CPU seconds of every guest this worker started: the stopped ones and the live ones."""
    return _spent[0] + sum((guest_cpu(pid) or (0.0, 0.0))[0] for pid in _live.values())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: Any) -> Iterator[None]:
    outcome = yield
    if not _live and _spent[0] == _accounted[0]:
        return  # no guest in this worker yet: nothing to say
    now = guests_cpu_now()
    report = outcome.get_result()
    report.user_properties.append(("guest_cpu_s", round(now - _accounted[0], 1)))
    _accounted[0] = now


def _stop(inst: Any, label: str) -> None:
    cost = guest_cpu(inst.pid())
    _live.pop(id(inst), None)
    if cost is not None:
        _spent[0] += cost[0]
    how = inst.stop()
    if cost is not None:
        _timings.append(f"{label}: guest used {cost[0]:.0f} CPU s in {cost[1]:.0f} s alive "
                        f"(run dir {inst.run_dir})")
    if how != "poweroff":
        _timings.append(f"{label}: guest stop needed {how}")


def _start_or_unavailable(tv: ModuleType, fl: Any, inst: Any, flavour: str) -> None:
    """Build (or find) the image and boot the guest, its seconds in the summary; a guest
    that cannot be had is killed, its disks dropped, and its tests skipped or failed."""
    reason = ""
    try:
        t_build, ready = _build_and_start(tv, fl, inst)
    except tv.BuildError as exc:
        reason = f"build failed: {exc}"
    except (tv.VMError, OSError, subprocess.SubprocessError) as exc:
        reason = f"start failed: {exc} (run dir {inst.run_dir})"
    if reason:
        if inst.running():
            inst.kill()
        _drop_disks(inst)
        _unavailable(flavour, reason)
    pid = inst.pid()
    if pid is not None:
        _live[id(inst)] = pid
    _timings.append(
        f"{_guest_name(flavour).removesuffix(' guest')}: build/cache {t_build:.1f}s, "
        f"boot-to-ssh {ready:.1f}s (run dir {inst.run_dir}, console {inst.console_log})")


def _boot(request: pytest.FixtureRequest, flavour: str, kind: str) -> Iterator[ZfsGuest]:
    tv = _wanted(request, flavour)
    fl = tv.FLAVOURS[flavour]
    inst = tv.Instance(fl, _run_dir(f"{kind}{fl.tag}"))
    _start_or_unavailable(tv, fl, inst, flavour)
    try:
        yield ZfsGuest(flavour, inst)
    finally:
        if kind == "p":
            _timings.append(f"OpenZFS {flavour}: {_blank.skipped.get(flavour, 0)} clean_guest "
                            "before-resets skipped (the guest left blank by the test before)")
        _stop(inst, f"OpenZFS {flavour}")
        _drop_disks(inst)


@pytest.fixture(scope="session", params=FLAVOURS, ids=FLAVOUR_IDS)
def zfs_guest(request: pytest.FixtureRequest) -> Iterator[ZfsGuest]:
    """A booted guest per flavour (2.1.11 and 2.3.2), shared by the whole session."""
    yield from _boot(request, request.param, "p")


# Both flavours in one test (the fleet of test_fleet_guest.py): a guest of each, booted in
# that test's worker and stopped with its module, not left idle beside the rest of the suite
@pytest.fixture(scope="module")
def zfs_guest_21(request: pytest.FixtureRequest) -> Iterator[ZfsGuest]:
    yield from _boot(request, "2.1", "s")


@pytest.fixture(scope="module")
def zfs_guest_23(request: pytest.FixtureRequest) -> Iterator[ZfsGuest]:
    yield from _boot(request, "2.3", "s")


# What the tests left on the session guests: clean_guest skips its before-reset where the
# test before on that guest was a clean_guest test whose after-reset passed (guest_reuse.py)
_blank = BlankGuests()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    ok = False
    try:
        yield
        ok = True
    finally:
        if (guest := session_guest(item)) is not None:
            _blank.ended(guest, item.nodeid, teardown_ok=ok)


def pytest_fixture_post_finalizer(fixturedef: pytest.FixtureDef[Any],
                                  request: pytest.FixtureRequest) -> None:
    """A fixture that takes the session guest (or the guest itself) ended: what it did in
    its teardown may follow clean_guest's after-reset."""
    if fixturedef.argname != "clean_guest" and (
            fixturedef.argname == "zfs_guest" or "zfs_guest" in fixturedef.argnames):
        _blank.touched()


@pytest.fixture
def clean_guest(request: pytest.FixtureRequest, zfs_guest: ZfsGuest) -> Iterator[ZfsGuest]:
    """zfs_guest, reset before and after the test (no pools, blank disks). The reset before
    is skipped where the last test on this guest was a clean_guest test whose reset after
    passed, with nothing on the guest since (guest_reuse.py): it would reset a blank guest."""
    if not _blank.skip_reset(zfs_guest.flavour):
        zfs_guest.reset()
    yield zfs_guest
    zfs_guest.reset()
    _blank.left_blank(zfs_guest.flavour, request.node.nodeid)


# --------------------------------------------------------------------------- host guest
#
# The Debian 12 storage host (tools/testvm --flavour host): one guest per session (per xdist
# group: `host`, and `host-slow` for the test that reboots it). zconsole is
# installed in it from this checkout as an operator would (wheel + offline wheelhouse, scp,
# venv, pip install --no-index) by `host_zconsole`, only where a test runs zconsole inside the
# guest: the others drive the console from this machine over SSH, and an install costs 80-150 s
# of a loaded CI run (stop 24). Tests marked `hostvm` (and the minutes-long `hostvm_slow`) use
# it; the same ZCONSOLE_VM / ZCONSOLE_REQUIRE_VM rules as `zfsvm`.


@pytest.fixture(scope="session")
def host_guest(request: pytest.FixtureRequest) -> Iterator[HostGuest]:
    """The booted host guest; shared by the whole session (zconsole inside it: `host_zconsole`)."""
    tv = _wanted(request, "host")
    fl = tv.FLAVOURS["host"]
    attach = os.environ.get("ZCONSOLE_HOSTVM_ATTACH", "").strip()
    if attach:
        # a developer's running guest (testvm.py start --flavour host; install-zconsole):
        # used as it is, zconsole not reinstalled, not stopped at the end
        inst = tv.HostInstance(fl, Path(attach))
        if not inst.running():
            _unavailable("host", f"ZCONSOLE_HOSTVM_ATTACH={attach}: no guest running there")
        _timings.append(f"Debian 12 host: attached to the running guest in {attach}")
        guest = HostGuest(inst, {})
        guest.attached = True
        yield guest
        return
    inst = tv.HostInstance(fl, _run_dir("host"))
    _start_or_unavailable(tv, fl, inst, "host")
    try:
        yield HostGuest(inst, {})
    finally:
        _stop(inst, "Debian 12 host")
        _drop_disks(inst)


@pytest.fixture(scope="session")
def host_zconsole(request: pytest.FixtureRequest, host_guest: HostGuest) -> HostGuest:
    """host_guest with zconsole installed in it from this checkout, once per session, as the
    README tells an operator on a host without internet: pip install --no-index from the
    wheelhouse, into the venv the image has (made at build time by the same procedure, at
    native speed: tools/testvm preinstall_dependencies), as an upgrade. The whole procedure
    into a new venv, under emulation, is test_hostvm_console_install.py on the host-slow
    guest (issue 33: 130 s of ensurepip and 120 s of pip under TCG off the host group)."""
    if host_guest.install_times or host_guest.attached:
        return host_guest
    tv = _wanted(request, "host")
    inst = host_guest._inst
    t1 = time.monotonic()
    try:
        installed = tv.install_zconsole(inst, REPO, say=False)
    except (tv.VMError, OSError, subprocess.SubprocessError) as exc:
        # the guest booted: a failed install is a failure of the test that needs it, not a
        # reason to skip (an operator's install command is what is under test)
        pytest.fail(f"zconsole install in the host guest failed: {exc} (run dir {inst.run_dir})")
    _timings.append(f"Debian 12 host: zconsole install {time.monotonic() - t1:.1f}s {installed}"
                    f" (run dir {inst.run_dir})")
    host_guest.install_times.update(installed)
    return host_guest


@pytest.fixture
def host_figures(request: pytest.FixtureRequest, record_property: Any) -> Any:
    """figure(name, value): keep a measured figure (seconds ...) in the test report and the
    terminal summary; tests assert causes, never these numbers."""

    def figure(name: str, value: object) -> None:
        record_property(name, value)
        _host_figures.append(f"{request.node.name}: {name} = {value}")

    return figure


@pytest.fixture
def clean_host(host_guest: HostGuest) -> Iterator[HostGuest]:
    """host_guest with no pools and blank pool disks, before and after the test."""
    host_guest.reset()
    yield host_guest
    host_guest.reset()


# --------------------------------------------------------------------------- fault fixtures
#
# One fixture per recipe of tests/integration/hostvm/faults.py. Each yields the recipe, NOT yet
# applied (so the test can measure before), and undoes it at teardown whatever happened; a
# boot fault that had been applied is also rebooted away, so the next test finds the guest as
# built. Use: `def test_x(slow_reverse_dns): slow_reverse_dns.apply(); ...`.


def _fault_fixture(guest: HostGuest, fault: faults.Fault) -> Iterator[faults.Fault]:
    try:
        yield fault
    finally:
        was_applied = fault.applied
        fault.undo()
        if was_applied and fault.needs_reboot:
            guest.reboot()
            guest.wait_booted()


@pytest.fixture
def slow_reverse_dns(host_guest: HostGuest) -> Iterator[faults.Fault]:
    """UseDNS yes + a resolver on 127.0.0.2 answering PTR after 3 s."""
    yield from _fault_fixture(host_guest, faults.SlowReverseDns(host_guest, delay=3))


@pytest.fixture
def slow_user_manager(host_guest: HostGuest) -> Iterator[faults.Fault]:
    """user@.service drop-in: ExecStartPre=/bin/sleep 25."""
    yield from _fault_fixture(host_guest, faults.SlowUserManager(host_guest, delay=25))


@pytest.fixture
def frozen_logind(host_guest: HostGuest) -> Iterator[faults.Fault]:
    """systemd-logind stopped with SIGSTOP (each login waits up to 2 min)."""
    yield from _fault_fixture(host_guest, faults.FrozenLogind(host_guest))


@pytest.fixture
def sshd_auth_methods(host_guest: HostGuest) -> Iterator[faults.Fault]:
    """GSSAPI / KbdInteractive / Hostbased (in a Match) / Kerberos (after the Match) on."""
    yield from _fault_fixture(host_guest, faults.SshdAuthMethods(host_guest))


@pytest.fixture
def wait_online_hang(host_guest: HostGuest) -> Iterator[faults.Fault]:
    """netplan br0/br0.100/br100 + cable-less lan1 on DHCP, a unit wanting network-online."""
    yield from _fault_fixture(host_guest, faults.WaitOnlineHang(host_guest))


@pytest.fixture
def ifupdown_dhcp_hang(host_guest: HostGuest) -> Iterator[faults.Fault]:
    """/etc/network/interfaces.d: `auto lan1` + `iface lan1 inet dhcp`, no cable."""
    yield from _fault_fixture(host_guest, faults.IfupdownDhcpHang(host_guest, stanza="auto"))
