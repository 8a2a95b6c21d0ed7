"""tools/testvm: the SMART disks of the OpenZFS guests (issue 30): an ATA disk (QEMU `ide-hd` on
an AHCI controller, serial, model, 7200 rpm) and an NVMe disk (`-device nvme`, serial), on
the QEMU command line beside the virtio disks; smartctl and the AHCI/NVMe modules in the
image; none of it in the host guest. No guest is started."""

from __future__ import annotations

from pathlib import Path

from tests.paths import load_testvm


def _argv(inst: object, tmp_path: Path) -> list[str]:
    return inst._qemu_argv("qemu-system-x86_64", tmp_path, 2222, False)  # type: ignore[attr-defined]


def _devices(argv: list[str]) -> list[str]:
    return [argv[i + 1] for i, a in enumerate(argv) if a == "-device"]


def test_zfs_guest_has_an_ata_disk_on_ahci_and_an_nvme_disk(tmp_path: Path) -> None:
    tv = load_testvm()
    inst = tv.Instance(tv.FLAVOURS["2.3"], run_dir=tmp_path)
    argv = _argv(inst, tmp_path)
    devices = _devices(argv)
    assert "ahci,id=ahci0" in devices
    ata = next(d for d in devices if d.startswith("ide-hd,"))
    opts = dict(o.split("=", 1) for o in ata.split(",")[1:])
    assert opts == {"bus": "ahci0.0", "drive": "drv-sata0", "id": "sata0",
                    "serial": "zfsvm-sata0", "model": "QEMU SMART HDD", "rotation_rate": "7200"}
    assert "nvme,id=nvme0,drive=drv-nvme0,serial=zfsvm-nvme0" in devices
    # the AHCI controller comes before its disk; each disk has its drive (an image file)
    assert devices.index("ahci,id=ahci0") < devices.index(ata)
    drives = [argv[i + 1] for i, a in enumerate(argv) if a == "-drive"]
    for name in ("sata0", "nvme0"):
        assert any(d.startswith(f"if=none,id=drv-{name},file={tmp_path}/disks/{name}.img,")
                   for d in drives), drives
    # the virtio pool disks are all still there
    assert [d.split("id=")[-1] for d in devices if d.startswith("virtio-blk-pci")] == [
        "scratch", "vdb", "vdc", "vdd", "vde", "vdf", "vdg"]
    assert inst.smart_disk_paths() == {
        "sata0": "/dev/disk/by-id/ata-QEMU_SMART_HDD_zfsvm-sata0",
        "nvme0": "/dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_zfsvm-nvme0"}


def test_their_images_are_made_at_start(tmp_path: Path) -> None:
    tv = load_testvm()
    inst = tv.Instance(tv.FLAVOURS["2.1"], run_dir=tmp_path)
    (tmp_path / "disks").mkdir()
    inst._prepare_disks(tmp_path, keep_disks=False)
    for name, size in inst.smart_disks.items():
        img = tmp_path / "disks" / f"{name}.img"
        assert img.stat().st_size == size and img.stat().st_blocks == 0  # sparse


def test_the_host_guest_has_no_smart_disks(tmp_path: Path) -> None:
    tv = load_testvm()
    inst = tv.HostInstance(tv.FLAVOURS["host"], run_dir=tmp_path)
    devices = _devices(_argv(inst, tmp_path))
    assert not [d for d in devices if d.startswith(("ahci", "ide-hd", "nvme"))], devices
    assert inst.smart_disk_paths() == {}


def test_the_image_has_smartctl_and_the_ahci_and_nvme_modules() -> None:
    """What the image is built with (part of its key): the modules in §5.1's load order, the
    CRC algorithms first, and smartctl from Debian 12's own smartmontools (7.3)."""
    tv = load_testvm()
    mods = tv.GUEST_MODULES
    assert {"sd_mod", "ahci", "nvme", "crct10dif_generic", "crc64_rocksoft_generic"} <= set(mods)
    assert mods.index("crct10dif_generic") < mods.index("sd_mod")
    assert (tv.SMART_PACKAGE, tv.SMART_SUITE) == ("smartmontools", "bookworm/main")
    rcs = (tv.GUEST_DIR / "rcS").read_text()
    assert "crct10dif_generic crc64_rocksoft_generic sd_mod ahci nvme" in rcs
