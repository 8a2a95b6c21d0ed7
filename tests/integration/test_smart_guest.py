"""Real SMART on both OpenZFS guests (issue 30): QEMU's emulated ATA disk (`ide-hd` on an
AHCI controller) and its NVMe disk, in a pool, read by zconsole over ssh with the guest's own
smartctl 7.3 (Debian 12's), beside the virtio disks that have no SMART.

What QEMU 7.2 answers (smart-facts.md §5.2, §5.3): the ATA disk a fixed attribute table
(5 Reallocated_Sector_Ct raw 0, 190 Airflow_Temperature_Cel 31 °C), self-tests that complete
at once ("Completed without error", lifetime hours 4660); the NVMe disk a health log with
temperature 50 °C and critical_warning 0 (its available spare 0 equals its threshold 0: not a
wear finding), and a critical warning set from QEMU's monitor (`qom-set ...
smart_critical_warning`, §5.5) that the next read sees.

Cheap by design (issue 33): the zfs group's session guests, no new guest, no reboot; one ssh
script for the setup; the rest is what zconsole itself runs (one smartctl per disk). Needs
ZCONSOLE_VM=1.

Measured 2026-11-29 (`--durations=0`, machine loaded by other helpers' runs), seconds of the
test's call / of clean_guest's reset before + after: zfs23 39.9 / ~13 + ~20, zfs21 44.9 /
~14 + ~38 (each teardown figure includes the guest's stop, the test ran alone).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from console_on_guest import open_screen
from vmguest import until

from zconsole.model.finding import Severity
from zconsole.model.smart import Protocol, Unread
from zconsole.services.health.smart import judge_smart
from zconsole.services.health.smart_words import NOT_YET
from zconsole.services.read.smart import read_smart
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.screens.disks.disk_table import DisksTable
from zconsole.ui.screens.disks.screen import DisksScreen

if TYPE_CHECKING:
    from conftest import ZfsGuest

pytestmark = pytest.mark.zfsvm

POOL = "smartp"
ATA_TEMPERATURE = 31  # QEMU's attribute 190: "31 (Min/Max 31/31)"
NVME_TEMPERATURE = 50  # QEMU's NVMe health log: 323 K
NVME_QOM = "/machine/peripheral/nvme0"


def _kernel_names(guest: ZfsGuest) -> dict[str, str]:
    """One ssh round trip: the SMART disks in a mirror, and their kernel names."""
    ata, nvme = guest.smart_disks["sata0"], guest.smart_disks["nvme0"]
    out = guest.exec(f"zpool create -f {POOL} mirror {ata} {nvme} && "
                     f"basename $(readlink -f {ata}) && basename $(readlink -f {nvme})").stdout
    sata, nvme_ns = out.split()
    return {"sata0": sata, "nvme0": nvme_ns}


async def test_smart_of_the_ata_and_nvme_disks_and_no_smart_on_virtio(
        clean_guest: ZfsGuest) -> None:
    """The console on the guest over ssh: its session's SMART follow (the watch and its
    judgement, as `check` runs it too) reads the ATA disk's attributes and the NVMe disk's
    health log, both healthy (no finding), each virtio disk "no SMART" and never an error;
    the Disks screen's HEALTH column says so. Then a short self-test started on the ATA disk
    is in its self-test log at the next read, and a critical warning raised on the NVMe
    controller is read and judged CRITICAL, and gone once cleared."""
    guest = clean_guest
    names = _kernel_names(guest)
    sata, nvme_ns = names["sata0"], names["nvme0"]
    host = guest.host()
    app = ZConsoleApp(host, refresh_interval=3600)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, "2", 0)
        assert isinstance(screen, DisksScreen)
        table = screen.query_one(DisksTable)
        follow = app.session.smart
        # the first SMART poll runs a second after the first refresh, in a worker
        await until(pilot, lambda: follow.polled_at is not None and all(
            table.health_words(n)[1] != NOT_YET for n in (sata, nvme_ns, "vdb")),
            "the first SMART poll on the Disks screen", 300)
        cells = {name: table.health_words(name) for name in (sata, nvme_ns, "vdb", "vdg")}
        assert cells == {sata: (Severity.OK, "ok"), nvme_ns: (Severity.OK, "ok"),
                         "vdb": (None, "no SMART"), "vdg": (None, "no SMART")}, cells
        shown = {str(k.value): " ".join(str(c) for c in table.get_row(k)) for k in table.rows}
        assert "ok" in shown[sata] and "ok" in shown[nvme_ns] and "no SMART" in shown["vdb"]
        snap = app.reading
        assert snap is not None and snap.disks.value is not None
        inventory = snap.disks.value
    states = follow.states()
    whole = {d.name for d in inventory.whole_disks()}
    assert {sata, nvme_ns} <= whole and set(states) == whole, (sorted(states), whole)

    ata = states[sata].reading
    assert ata is not None, states[sata]
    assert ata.protocol is Protocol.ATA and ata.device == f"/dev/{sata}"
    assert (ata.model, ata.serial, ata.rotation_rate) == ("QEMU SMART HDD", "zfsvm-sata0", 7200)
    assert ata.passed is True and ata.version == (7, 3)
    realloc, airflow = ata.attr(5), ata.attr(190)
    assert realloc is not None and (realloc.name, realloc.raw) == ("Reallocated_Sector_Ct", 0)
    assert airflow is not None and airflow.raw_string.startswith(f"{ATA_TEMPERATURE} ")
    assert ata.temperature is not None and ata.temperature.current == ATA_TEMPERATURE

    nvme = states[nvme_ns].reading
    assert nvme is not None, states[nvme_ns]
    assert nvme.protocol is Protocol.NVME and nvme.device == "/dev/nvme0"
    assert (nvme.model, nvme.serial) == ("QEMU NVMe Ctrl", "zfsvm-nvme0")
    assert nvme.nvme is not None and nvme.nvme.critical_warning == 0 and nvme.passed is True
    assert nvme.nvme.temperature == NVME_TEMPERATURE
    assert nvme.temperature is not None and nvme.temperature.current == NVME_TEMPERATURE
    # healthy disks: nothing to say (QEMU's NVMe spare 0 at threshold 0 is not "wearing out")
    assert follow.findings == (), follow.findings

    virtio = sorted(n for n in whole if n.startswith("vd"))
    assert virtio == ["vda", "vdb", "vdc", "vdd", "vde", "vdf", "vdg"]
    for name in virtio:
        s = states[name]
        assert s.reading is None and s.error == "", s
        assert s.unread is not None and s.unread.unread is Unread.NO_SMART, s
        assert s.words == "no SMART"

    # a short self-test on the ATA disk: QEMU logs it at once; the next read has it
    guest.exec(["smartctl", "-t", "short", f"/dev/{sata}"])
    disk = inventory.device(sata)
    assert disk is not None
    after = read_smart(host, disk)
    assert after.self_tests, after
    newest = after.self_tests[0]
    assert (newest.kind, newest.status, newest.passed) == ("short", "Completed without error",
                                                           True)
    assert newest.hours == 4660 and judge_smart(after, disk=sata) == ()

    # the NVMe controller raises "reliability degraded" (bit 2): read and judged CRITICAL
    nvme_disk = inventory.device(nvme_ns)
    assert nvme_disk is not None
    guest.monitor(f"qom-set {NVME_QOM} smart_critical_warning 4")
    try:
        warned = read_smart(host, nvme_disk)
    finally:
        guest.monitor(f"qom-set {NVME_QOM} smart_critical_warning 0")
    assert warned.nvme is not None and warned.nvme.critical_warning == 4, warned
    assert warned.passed is False and warned.exit_status == 8
    found = judge_smart(warned, disk=nvme_ns, pool=POOL)
    assert [f.kind for f in found] == ["smart-nvme-critical"], found
    assert found[0].severity is Severity.CRITICAL
    assert "NVM subsystem reliability degraded" in found[0].message
    cleared = read_smart(host, nvme_disk)
    assert cleared.nvme is not None and cleared.nvme.critical_warning == 0 and cleared.passed
