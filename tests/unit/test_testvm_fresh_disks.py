"""tools/testvm: a fresh disk inserted in a running guest (`Instance.insert_disk`: a new blank
image, serial and size hot-plugged with drive_add + device_add) and removed again by
`reset()` before the pool disks are plugged back, against a fake QEMU monitor (no guest)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.paths import load_testvm


class FakeQemu:
    """QMP as testvm uses it: qom-list of /machine/peripheral, query-block, HMP drive_add /
    device_add / device_del (the unplug completes one look later, taking its drive_add drive
    with it, as QEMU does once the guest let go) / drive_del."""

    def __init__(self, devices: list[str]) -> None:
        self.devices = {d: f"drv-{d}" for d in devices}
        self.drives = {f"drv-{d}" for d in devices}
        self.unplugging: set[str] = set()
        self.hmp: list[str] = []
        self.serials: dict[str, str] = {}

    def qmp(self, command: str, arguments: dict[str, Any] | None = None,
            timeout: float = 30.0) -> object:
        if command == "qom-list":
            for dev in self.unplugging:  # the guest acknowledged the unplug meanwhile
                self.drives.discard(self.devices.pop(dev))
            self.unplugging.clear()
            return [{"name": d, "type": "child<virtio-blk-pci>"} for d in self.devices]
        if command == "query-block":
            return [{"device": d} for d in sorted(self.drives)]
        assert command == "human-monitor-command" and arguments is not None
        line = str(arguments["command-line"])
        self.hmp.append(line)
        verb, _, rest = line.partition(" ")
        opts = dict(o.partition("=")[::2] for o in rest.split(",")) if "=" in rest else {}
        if verb == "drive_add":
            self.drives.add(rest.split(" ", 1)[1].split("id=")[1].split(",")[0])
            return "OK\r\n"
        if verb == "device_add":
            assert opts["drive"] in self.drives
            self.devices[opts["id"]] = opts["drive"]
            self.serials[opts["id"]] = opts["serial"]
            return ""
        if verb == "device_del":
            assert rest in self.devices
            self.unplugging.add(rest)
            return ""
        if verb == "drive_del":
            self.drives.discard(rest)
            return ""
        raise AssertionError(f"unexpected HMP command {line!r}")


@pytest.fixture
def testvm() -> ModuleType:
    return load_testvm()


class Guest:
    """What the guest's probe of its pool disks answers (`gone:vdc misnamed:vdb`)."""

    probe = ""


@pytest.fixture
def guest(testvm: ModuleType, tmp_path: Path) -> tuple[Any, FakeQemu, list[str]]:
    inst = testvm.Instance(testvm.FLAVOURS["2.3"], tmp_path / "run")
    (inst.run_dir / "disks").mkdir(parents=True)
    qemu = FakeQemu(["scratch", *inst.disks])
    scripts: list[str] = []

    def exec_(command: Any, **kw: Any) -> subprocess.CompletedProcess[str]:
        scripts.append(str(command))
        out = Guest.probe if "misnamed:" in str(command) else ""
        return subprocess.CompletedProcess(command, 0, out, "")

    inst.qmp = qemu.qmp
    inst.exec = exec_
    return inst, qemu, scripts


def test_insert_disk_plugs_a_new_image_with_its_own_serial_and_size(
        testvm: ModuleType, guest: tuple[Any, FakeQemu, list[str]]) -> None:
    inst, qemu, _ = guest
    small = 512 * 1024**2
    assert inst.insert_disk("new1", small) == "/dev/disk/by-id/virtio-zfsvm-new1"
    assert inst.insert_disk("new2", 1024**3, serial="ZNEW-0002") == \
        "/dev/disk/by-id/virtio-ZNEW-0002"
    img = inst.run_dir / "disks" / "new1.img"
    assert img.stat().st_size == small and img.stat().st_blocks == 0  # sparse, blank
    assert qemu.hmp[:2] == [
        f"drive_add 0 if=none,id=drv-new1,file={img},format=raw,cache=unsafe,discard=unmap",
        "device_add virtio-blk-pci,drive=drv-new1,serial=zfsvm-new1,id=new1",
    ]
    assert qemu.serials == {"new1": "zfsvm-new1", "new2": "ZNEW-0002"}
    # recorded in the run directory, so another process (the CLI's reset) finds them
    recorded = json.loads((inst.run_dir / "fresh-disks.json").read_text())
    assert {n: (d["size"], d["serial"]) for n, d in recorded.items()} == {
        "new1": (small, "zfsvm-new1"), "new2": (1024**3, "ZNEW-0002")}
    assert set(testvm.Instance(inst.flavour, inst.run_dir).fresh_disks()) == {"new1", "new2"}


@pytest.mark.parametrize("name, serial, size, why", [
    ("vdd", None, 1024**3, "taken"),  # a pool disk's id
    ("scratch", None, 1024**3, "taken"),
    ("new1", None, 1024**3, "taken"),  # inserted already
    ("New 1", None, 1024**3, "want"),
    ("new9", "zfsvm-vdc", 1024**3, "in use"),  # a pool disk's serial: by-id must differ
    ("new9", "zfsvm-new1", 1024**3, "in use"),
    ("new9", "x" * 21, 1024**3, "want"),  # virtio-blk serials hold 20 bytes
    ("new9", "a,id=vdb", 1024**3, "want"),  # never smuggled into the device options
    ("new9", None, 1000, "multiple of 512"),
])
def test_insert_disk_refuses_names_serials_and_sizes_that_clash(
        testvm: ModuleType, guest: tuple[Any, FakeQemu, list[str]],
        name: str, serial: str | None, size: int, why: str) -> None:
    inst, qemu, _ = guest
    inst.insert_disk("new1", 1024**3)
    before = list(qemu.hmp)
    with pytest.raises(testvm.VMError, match=why):
        inst.insert_disk(name, size, serial)
    assert qemu.hmp == before  # nothing plugged


def test_reset_removes_fresh_disks_before_the_pulled_pool_disk_comes_back(
        guest: tuple[Any, FakeQemu, list[str]]) -> None:
    inst, qemu, scripts = guest
    qemu.qmp("human-monitor-command", {"command-line": "device_del vdd"})  # pulled
    inst.insert_disk("small", 512 * 1024**2)
    inst.insert_disk("new1", 1024**3)
    qemu.qmp("human-monitor-command", {"command-line": "device_del small"})  # pulled too
    qemu.qmp("qom-list")  # both unplugs done
    qemu.hmp.clear()
    inst.reset()
    # the fresh disk still in is unplugged, the pulled one's drive (it went with its
    # device) is not deleted twice; then vdd gets its kernel name back
    assert qemu.hmp[0] == "device_del new1"
    assert qemu.hmp.index("device_del new1") < next(
        i for i, c in enumerate(qemu.hmp) if c.startswith("device_add") and "id=vdd" in c)
    assert not any(c.startswith("drive_del") for c in qemu.hmp)
    assert set(qemu.devices) == {"scratch", *inst.disks}
    assert not list((inst.run_dir / "disks").glob("*.img"))
    assert inst.fresh_disks() == {}
    assert not (inst.run_dir / "fresh-disks.json").exists()
    # the guest script checks each pool disk is back under its own kernel name
    assert "another kernel name" in scripts[-1]
    assert "zpool destroy" in scripts[0]


def test_reset_plugs_a_disk_back_under_its_own_kernel_name(
        guest: tuple[Any, FakeQemu, list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    """vdb was pulled while a pool held it open (its name vdb stays taken until ZFS lets go)
    and plugged back: the guest named it vdh. Once the pools are gone reset unplugs it, and
    plugs it back with vdc (pulled) in order, so each gets its own name."""
    inst, qemu, scripts = guest
    qemu.qmp("human-monitor-command", {"command-line": "device_del vdc"})
    monkeypatch.setattr(Guest, "probe", "misnamed:vdb\ngone:vdc\n")
    qemu.hmp.clear()
    inst.reset()
    assert "zpool destroy" in scripts[0]  # the pools let go of the names first
    assert qemu.hmp[0] == "device_del vdb"
    adds = [c.split("id=")[-1] for c in qemu.hmp if c.startswith("device_add")]
    assert adds == ["vdb", "vdc"]
    assert set(qemu.devices) == {"scratch", *inst.disks}


def test_a_fresh_disk_whose_device_never_came_loses_its_drive(
        guest: tuple[Any, FakeQemu, list[str]]) -> None:
    inst, qemu, _ = guest
    inst.insert_disk("new1", 1024**3)
    del qemu.devices["new1"]  # device_add failed after drive_add: the drive is left
    assert inst.remove_fresh_disks() == ["new1"]
    assert "drive_del drv-new1" in qemu.hmp and "drv-new1" not in qemu.drives


def test_parse_bytes(testvm: ModuleType) -> None:
    assert [testvm.parse_bytes(t) for t in ("4096", "512M", "1G", "1GiB", "64k")] == [
        4096, 512 * 1024**2, 1024**3, 1024**3, 65536]
    with pytest.raises(testvm.VMError):
        testvm.parse_bytes("1T")


def test_reset_wipes_only_the_disks_the_guest_wrote(
        guest: tuple[Any, FakeQemu, list[str]]) -> None:
    """An image with no block allocated holds only zeros (the last wipe ended in blkdiscard,
    which QEMU turns into holes): reset leaves it alone, after a `sync` in the guest so that
    nothing still in its cache is missed; a written one gets labelclear, wipefs, blkdiscard."""
    inst, _, scripts = guest
    for name in [*inst.disks, *inst.smart_disks]:
        with open(inst.run_dir / "disks" / f"{name}.img", "wb") as fh:
            fh.truncate(1024**3)  # sparse: as start() makes them
    for name in ("vdc", "sata0"):
        with open(inst.run_dir / "disks" / f"{name}.img", "r+b") as fh:
            fh.seek(512 * 1024)
            fh.write(b"\x01" * 4096)  # a label the guest wrote
    inst.reset()
    assert "sync" in scripts
    wipe = scripts[-1].splitlines()
    at = next(i for i, ln in enumerate(wipe) if "dev=$(readlink -f" in ln)
    # the SMART disks (issue 30) by their by-id names: the ATA one was written, the NVMe not
    assert wipe[at - 1] == ("for link in /dev/disk/by-id/virtio-zfsvm-vdc "
                            "/dev/disk/by-id/ata-QEMU_SMART_HDD_zfsvm-sata0; do"), wipe[at - 1]
    # every pool disk is still checked to be back, under its own kernel name
    wipe = scripts[-1]
    assert wipe.count(" ".join(inst.disks)) == 2  # the "back" and "own name" loops


def test_the_image_key_leaves_out_the_code_that_only_runs_guests(testvm: ModuleType) -> None:
    """Issue 33: a change to how a guest is started, reset or driven keeps the cached images;
    a change to what builds them does not."""
    text = Path(testvm.__file__).read_text()
    base = testvm._build_source(text)
    reset = text.replace('"""Destroy all pools, re-plug unplugged disks',
                         '"""Destroy every pool, re-plug unplugged disks', 1)
    assert reset != text and testvm._build_source(reset) == base
    built = text.replace('"""Build (or find cached) kernel + initramfs',
                         '"""Build (or find in the cache) kernel + initramfs', 1)
    assert built != text and testvm._build_source(built) != base
    # every name left out is a definition of the file (a rename cannot leave a stale name)
    import ast
    names = {n.name for n in ast.parse(text).body
             if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    assert testvm.RUNTIME_DEFINITIONS <= names
    assert not {"build", "_build", "_build_host", "assemble_image"} & testvm.RUNTIME_DEFINITIONS


@pytest.mark.parametrize(("option", "env", "tcg", "kvm", "asked"), [
    # one vCPU under TCG (a second one costs CPU a loaded CI machine does not have), two
    # with KVM
    ("-smp", "ZCONSOLE_VM_SMP", "1", "KVM_SMP", "2"),
    # QEMU's max under TCG (Nehalem, tried, made a cold run 62 minutes instead of 49.5: its
    # processes cost a third more), the host's CPU with KVM
    ("-cpu", "ZCONSOLE_VM_CPU", "max", "host", "Nehalem"),
])
def test_guest_machine_under_tcg_and_kvm_or_as_asked(
        monkeypatch: pytest.MonkeyPatch, option: str, env: str, tcg: str, kvm: str,
        asked: str) -> None:
    """Issue 33: each guest's vCPUs and CPU model, by accelerator; the environment chooses
    (for trials). Neither is part of the image key."""
    tv = load_testvm()
    monkeypatch.delenv(env, raising=False)

    def value(on_kvm: bool) -> str:
        args = tv.Instance._machine_args("g", on_kvm)
        return str(args[args.index(option) + 1])

    key = tv.build_key("6.1.0-56-amd64", tv.FLAVOURS["2.3"])
    assert (value(False), value(True)) == (tcg, str(tv.DEFAULT_SMP) if kvm == "KVM_SMP" else kvm)
    monkeypatch.setenv(env, asked)
    assert value(False) == asked
    assert tv.build_key("6.1.0-56-amd64", tv.FLAVOURS["2.3"]) == key
