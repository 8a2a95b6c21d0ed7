#!/usr/bin/env python3
"""Throw-away QEMU guests with real OpenZFS (2.1.11 or 2.3.2) for zconsole tests.

Stdlib only, Python 3.10+.  Run as root on a Debian 12 (bookworm) host.

    python3 tools/testvm/testvm.py build   --flavour 2.3
    python3 tools/testvm/testvm.py start   --flavour 2.3
    python3 tools/testvm/testvm.py exec    --flavour 2.3 -- zpool status -p
    python3 tools/testvm/testvm.py monitor --flavour 2.3 'info block'
    python3 tools/testvm/testvm.py status  --flavour 2.3
    python3 tools/testvm/testvm.py stop    --flavour 2.3

The guest kernel is Debian's linux-image-6.1.0-<abi>-amd64; zfs/spl modules are built
from the zfs-dkms source of the flavour against that kernel's headers; the userland comes
from zfsutils-linux of the same version.  Nothing ZFS-related is installed on the host:
the .debs are unpacked with ``dpkg -x``.  See README.md beside this file.

Also importable (tests/integration/conftest.py does so): see ``build``,
``Instance`` and ``BuildError``/``VMError``.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import fcntl
import hashlib
import json
import lzma
import os
import re
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO

HERE = Path(__file__).resolve().parent
GUEST_DIR = HERE / "guest"

ALIAS = "zfsvm"
ARC_MAX = 536870912
DEFAULT_MEM_MB = 2048
DEFAULT_SMP = 2
SSH_READY_TIMEOUT = 240.0
STOP_TIMEOUT = 30.0

# Disks attached to every guest: name -> size in bytes.  vda is the scratch disk
# (ext4 on /scratch); vdb..vdg are for pools.  Serial zfsvm-<name> gives
# /dev/disk/by-id/virtio-zfsvm-<name>.
GiB = 1024**3
SCRATCH_DISK = ("scratch", 4 * GiB)
POOL_DISKS: dict[str, int] = {
    "vdb": 1 * GiB,
    "vdc": 1 * GiB,
    "vdd": 1 * GiB,
    "vde": 1 * GiB,
    "vdf": 2 * GiB,
    "vdg": 2 * GiB,
}
# Fresh disks (Instance.insert_disk): a new blank image hot-plugged with its own name, serial
# and size, like a new disk inserted in a bay; reset() unplugs them and deletes their images.
# Their names and serials are recorded in the run directory (FRESH_DISKS_FILE), so a reset by
# another process (the CLI) finds them. virtio-blk serials are at most 20 bytes.
FRESH_DISKS_FILE = "fresh-disks.json"
FRESH_NAME = re.compile(r"[a-z][a-z0-9]{0,11}")
FRESH_SERIAL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,19}")
RESERVED_DEVICE_IDS = frozenset({SCRATCH_DISK[0], "root", "nic0", "nic1"})

APT_SOURCES_FILE = Path("/etc/apt/sources.list.d/zconsole-testvm.sources")
APT_SOURCES = """\
# Written by zconsole tools/testvm/testvm.py: OpenZFS lives in contrib; 2.3.x in
# bookworm-backports (used only with -t bookworm-backports for the zfs packages).
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: contrib
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main contrib
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""

# Host packages needed to build the guest (never the zfs ones: those are unpacked).
HOST_BUILD_PACKAGES = [
    "kmod",  # depmod/modprobe for the module closure; kmod binary for the guest
    "busybox-static",
    "dropbear-bin",
    "openssh-client",
    "iproute2",
    "util-linux",
    "e2fsprogs",
    "gdisk",
    "parted",
    "make",
    "gcc",
    "libc6-dev",
    "binutils",
    "libgcc-s1",
    "bash",
    "coreutils",
    "grep",
    "sed",
    "findutils",
    "procps",
    "mount",
]
QEMU_PACKAGE = "qemu-system-x86"

# Kernel modules put into the guest (plus their dependency closure).
GUEST_MODULES = [
    "virtio_pci",
    "virtio_blk",
    "virtio_net",
    "virtio_rng",
    "ext4",
    "crc32c_generic",
    "crc32c-intel",
    "bridge",
    "8021q",
    "veth",
    "dummy",
    "bonding",
    "zfs",
    "spl",
    # SMART disks (issue 30): an ide-hd on AHCI (sd_mod, libata, ahci) and an NVMe
    # controller. crc-t10dif and crc64-rocksoft (sd_mod -> t10-pi) find their algorithm
    # through the crypto API, not a module dependency: the generic ones are named here.
    "crct10dif_generic",
    "crc64_rocksoft_generic",
    "sd_mod",
    "ahci",
    "nvme",
]

# udev rules copied into the guest (from the udev package and from zfsutils-linux).
UDEV_RULES = [
    "50-udev-default.rules",
    "60-block.rules",
    "60-persistent-storage.rules",
    "80-drivers.rules",
    "60-zvol.rules",
    "69-vdev.rules",
    "90-zfs.rules",
]

# Host binaries copied into the guest with their ldd closure (first existing path wins).
HOST_BINARIES = [
    "/usr/bin/bash",
    "/usr/bin/kmod",
    "/usr/sbin/ip",
    "/usr/sbin/bridge",
    "/usr/bin/lsblk",
    "/usr/sbin/blkid",
    "/usr/sbin/wipefs",
    "/usr/sbin/blockdev",
    "/usr/sbin/mke2fs",
    "/usr/sbin/sgdisk",
    "/usr/sbin/parted",
    "/usr/sbin/partprobe",
    "/usr/bin/dd",
    "/usr/sbin/dropbear",
    "/usr/bin/dropbearkey",
    "/usr/bin/dbclient",
]
# Host packages whose executables all go into the guest, so commands behave as on a real
# Debian host (GNU options) rather than as busybox applets.
HOST_TOOL_PACKAGES = ["coreutils", "grep", "sed", "findutils", "procps", "mount", "util-linux"]
KMOD_LINKS = ["modprobe", "insmod", "rmmod", "lsmod", "modinfo", "depmod"]
ZFS_USERLAND = [
    "sbin/zpool",
    "sbin/zfs",
    "sbin/zdb",
    "sbin/zstream",
    "sbin/zhack",
    "sbin/mount.zfs",
    "sbin/zgenhostid",
    "sbin/zfs_ids_to_path",
    "sbin/zvol_wait",
    "lib/udev/zvol_id",
    "lib/udev/vdev_id",
]


# smartctl for the SMART disks of the ZFS guests (issue 30): the binary alone from Debian 12's
# own smartmontools .deb (unpacked, never installed here; its drive database is built in).
SMART_PACKAGE = "smartmontools"
SMART_SUITE = "bookworm/main"  # 7.3, as a Debian 12 host has it (not bookworm-backports' 7.4)


@dataclasses.dataclass(frozen=True)
class Flavour:
    name: str  # "2.1" / "2.3" / "host"
    zfs_version: str  # upstream version, e.g. "2.3.2"
    target_release: str | None  # apt -t for the zfs packages only
    kind: str = "zfs"  # "zfs": busybox initramfs guest; "host": full Debian 12 system

    @property
    def tag(self) -> str:
        if self.kind == "host":
            return "hostvm"
        return "zfs" + self.name.replace(".", "")

    @property
    def key_prefix(self) -> str:
        """Cache directory names of this flavour's builds start with this."""
        return "hostvm_" if self.kind == "host" else ""


FLAVOURS: dict[str, Flavour] = {
    "2.1": Flavour("2.1", "2.1.11", None),
    "2.3": Flavour("2.3", "2.3.2", "bookworm-backports"),
    # A real Debian 12 storage host (systemd, OpenSSH, netplan, ...) with OpenZFS 2.3.2:
    # see "The host flavour" below and README.md.
    "host": Flavour("host", "2.3.2", "bookworm-backports", kind="host"),
}


# Libraries built from the zfs-linux source: unpacked per flavour, never installed on the host.
ZFS_LIB_RE = re.compile(r"lib(nvpair|uutil|zfs|zpool|zfsbootenv|zfs_core)\d*linux$")


class VMError(RuntimeError):
    """Starting, stopping or talking to a guest failed."""


class BuildError(VMError):
    """Building the guest failed; ``log`` names the build log."""

    def __init__(self, message: str, log: Path | None = None) -> None:
        self.log = log
        super().__init__(message + (f" (build log: {log})" if log else ""))


# --------------------------------------------------------------------------- paths


def cache_root() -> Path:
    env = os.environ.get("ZCONSOLE_VM_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "zconsole-testvm"


def run_root() -> Path:
    env = os.environ.get("ZCONSOLE_VM_RUN_ROOT")
    return Path(env) if env else Path("/tmp") / f"zconsole-testvm-{os.getuid()}"


def default_run_dir(flavour: Flavour) -> Path:
    return run_root() / flavour.tag


# What runs a guest, never what builds its image: left out of the image's key, so that a change
# to how a guest is started, reset or driven (tests change these often) keeps the cached
# images (issue 33: a stable key). Anything not named here is part of the key.
RUNTIME_DEFINITIONS = frozenset({
    "ensure_qemu", "hardware_kvm", "free_port", "pid_alive", "_in_run_dir", "Instance",
    "HostInstance", "make_instance", "install_zconsole", "_has_setuptools",
    "GuestCommandError", "parse_bytes", "main",
})


def _build_source(text: str | None = None) -> bytes:
    """This file's text (or `text`) without the top-level definitions in RUNTIME_DEFINITIONS."""
    text = Path(__file__).resolve().read_text() if text is None else text
    lines = text.splitlines(keepends=True)
    drop: set[int] = set()
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and \
                node.name in RUNTIME_DEFINITIONS:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            drop.update(range(first - 1, node.end_lineno or node.lineno))
    return "".join(ln for i, ln in enumerate(lines) if i not in drop).encode()


def scripts_hash() -> str:
    """Hash of everything that shapes the guest image: guest/*, and this file less the code
    that only runs guests (RUNTIME_DEFINITIONS)."""
    h = hashlib.sha256()
    h.update(b"tools/testvm/testvm.py (build part)\0" + _build_source() + b"\0")
    for p in sorted(p for p in GUEST_DIR.rglob("*") if p.is_file()):
        h.update(p.relative_to(HERE).as_posix().encode() + b"\0")
        h.update(p.read_bytes() + b"\0")
    return h.hexdigest()[:12]


def content_hash(flavour: Flavour) -> str:
    """What a build's key ends with: the scripts, and for the host flavour also zconsole's
    dependency list (its venv is made at build time)."""
    if flavour.kind == "host":
        deps = hashlib.sha256("\n".join(zconsole_dependencies()).encode()).hexdigest()[:6]
        return f"{scripts_hash()}-{deps}"
    return scripts_hash()


def build_key(abi: str, flavour: Flavour) -> str:
    return f"{flavour.key_prefix}{abi}_zfs-{flavour.zfs_version}_{content_hash(flavour)}"


def is_build_of(flavour: Flavour, path: Path) -> bool:
    """Whether a cache entry (any scripts hash) is a build of this flavour."""
    name = path.name
    if ".tmp-" in name or not path.is_dir():
        return False
    if flavour.key_prefix:
        if not name.startswith(flavour.key_prefix):
            return False
        name = name[len(flavour.key_prefix) :]
    elif not name[:1].isdigit():  # another flavour's prefix (hostvm_...), or modules/ etc.
        return False
    return f"_zfs-{flavour.zfs_version}_" in name


def find_cached_build(flavour: Flavour) -> Path | None:
    """Newest complete build for this flavour and the current scripts, or None."""
    suffix = f"_zfs-{flavour.zfs_version}_{content_hash(flavour)}"
    root = cache_root()
    if not root.is_dir():
        return None
    found = [
        p
        for p in root.iterdir()
        if is_build_of(flavour, p) and p.name.endswith(suffix) and (p / "COMPLETE").is_file()
    ]
    if not found:
        return None

    def abi_num(p: Path) -> tuple[int, ...]:
        abi = p.name[len(flavour.key_prefix) :].split("_")[0]
        return tuple(int(x) for x in re.findall(r"\d+", abi))

    return max(found, key=abi_num)


@contextlib.contextmanager
def cache_lock(name: str, log: Log | None = None) -> Iterator[None]:
    """An exclusive lock on one part of the cache (a flavour's build, the module compile, the
    host root filesystem): two builds of the same thing (two test sessions, or a CI pre-build
    and the test fixture) wait for each other instead of racing in the same work directory."""
    locks = cache_root() / "locks"
    locks.mkdir(parents=True, exist_ok=True)
    with open(locks / f"{name}.lock", "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if log:
                log.step(f"waiting for another build holding the {name} lock")
            t0 = time.monotonic()
            fcntl.flock(fh, fcntl.LOCK_EX)
            if log:
                log.step(f"got the {name} lock after {time.monotonic() - t0:.1f}s")
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


# --------------------------------------------------------------------------- logging/run


class Log:
    """Build log: every command's output goes to the file, progress also to stderr."""

    def __init__(self, path: Path, quiet: bool = False) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.quiet = quiet
        self.fh: IO[str] = open(path, "a", encoding="utf-8", errors="replace")
        self.t0 = time.monotonic()

    def step(self, msg: str) -> None:
        line = f"[testvm +{time.monotonic() - self.t0:6.1f}s] {msg}"
        self.fh.write(line + "\n")
        self.fh.flush()
        if not self.quiet:
            print(line, file=sys.stderr, flush=True)

    def run(
        self,
        argv: Sequence[str | os.PathLike[str]],
        *,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        capture: bool = False,
        check: bool = True,
    ) -> str:
        cmd = [str(a) for a in argv]
        self.fh.flush()
        start = self.path.stat().st_size
        self.fh.write(f"$ {shlex.join(cmd)}" + (f"   (in {cwd})" if cwd else "") + "\n")
        self.fh.flush()
        full_env = dict(os.environ, **(env or {}))
        if capture:
            proc = subprocess.run(
                cmd, cwd=cwd, env=full_env, stdout=subprocess.PIPE, stderr=self.fh, text=True
            )
            out = proc.stdout
        else:
            proc = subprocess.run(
                cmd, cwd=cwd, env=full_env, stdout=self.fh, stderr=subprocess.STDOUT, text=True
            )
            out = ""
        self.fh.flush()
        if check and proc.returncode != 0:
            with open(self.path, "rb") as fh:
                fh.seek(start)
                lines = fh.read().decode(errors="replace").splitlines()[1:]
            tail = " | ".join(line.strip() for line in lines[-4:] if line.strip())
            raise BuildError(
                f"command failed (rc {proc.returncode}): {shlex.join(cmd)}"
                + (f": {tail}" if tail else ""),
                self.path,
            )
        return out

    def close(self) -> None:
        self.fh.close()


APT_ENV = {"DEBIAN_FRONTEND": "noninteractive"}
# Heavy build steps (module compile, mmdebstrap, mke2fs) run niced: the machine is shared.
NICE = ["nice", "-n", os.environ.get("ZCONSOLE_VM_BUILD_NICE", "10")]
APT_OPTS = ["-q", "-o", "DPkg::Lock::Timeout=300", "-o", "APT::Sandbox::User=root"]
_apt_updated = False


def apt_update(log: Log) -> None:
    global _apt_updated
    if _apt_updated:
        return
    with cache_lock("apt", log):
        if not APT_SOURCES_FILE.exists() or APT_SOURCES_FILE.read_text() != APT_SOURCES:
            log.step(f"writing {APT_SOURCES_FILE} (bookworm contrib + bookworm-backports)")
            APT_SOURCES_FILE.write_text(APT_SOURCES)
        log.step("apt-get update")
        log.run(["apt-get", *APT_OPTS, "update"], env=APT_ENV)
    _apt_updated = True


def apt_get(log: Log, args: list[str], *, cwd: Path | None = None,
            env: dict[str, str] | None = None) -> None:
    """One apt-get command, holding the cache's apt lock. The guests are built in parallel
    (one pytest worker per guest): `apt-get update` fails at once on the lists lock another
    worker's update holds (DPkg::Lock::Timeout waits only for the dpkg lock); seen on a cold
    machine, where every guest but the first was skipped."""
    with cache_lock("apt", log):
        log.run(["apt-get", *APT_OPTS, *args], cwd=cwd, env=env)


def apt_install(log: Log, packages: Iterable[str]) -> None:
    pkgs = sorted(set(packages))
    missing = [p for p in pkgs if not dpkg_installed(p)]
    if not missing:
        return
    apt_update(log)
    log.step("apt-get install " + " ".join(missing))
    apt_get(log, ["install", "-y", "--no-install-recommends", *missing], env=APT_ENV)


def dpkg_installed(pkg: str) -> bool:
    proc = subprocess.run(
        ["dpkg-query", "-W", "-f=${db:Status-Status}", pkg],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    return proc.returncode == 0 and proc.stdout.strip() == "installed"


def apt_show_field(log: Log, pkg_spec: str, field: str) -> str:
    out = log.run(["apt-cache", "show", "--no-all-versions", pkg_spec], capture=True)
    m = re.search(rf"^{field}: (.*(?:\n .*)*)", out, re.M)
    return m.group(1).replace("\n", " ") if m else ""


def parse_depends(value: str) -> list[tuple[str, str | None]]:
    """'a (= 1), b | c, d' -> [(a, '= 1'), (b, None), (d, None)] (first alternative)."""
    result = []
    for part in value.split(","):
        first = part.split("|")[0].strip()
        if not first:
            continue
        m = re.match(r"([a-z0-9.+-]+)(?::\S+)?\s*(?:\(([^)]*)\))?", first)
        if m:
            result.append((m.group(1), m.group(2)))
    return result


# --------------------------------------------------------------------------- build


@dataclasses.dataclass
class Resolved:
    abi: str  # e.g. 6.1.0-56-amd64
    zfs_deb_version: str  # e.g. 2.3.2-2~bpo12+2
    zfs_libs: list[str]  # libzfs6linux, ... (same source package)
    zfs_lib_host_deps: list[str]  # ordinary bookworm libraries they link against
    udev_version: str


def resolve_versions(log: Log, flavour: Flavour) -> Resolved:
    abi_override = os.environ.get("ZCONSOLE_VM_KERNEL_ABI")
    if abi_override:
        abi = abi_override
    else:
        deps = parse_depends(apt_show_field(log, "linux-image-amd64", "Depends"))
        names = [n for n, _ in deps if re.fullmatch(r"linux-image-6\.1\.0-\d+-amd64", n)]
        if not names:
            raise BuildError(
                "cannot find the bookworm 6.1 kernel (linux-image-amd64 depends)", log.path
            )
        abi = names[0].removeprefix("linux-image-")

    madison = log.run(["apt-cache", "madison", "zfsutils-linux"], capture=True)
    versions = []
    for line in madison.splitlines():
        cols = [c.strip() for c in line.split("|")]
        if len(cols) >= 3 and cols[1].split("-")[0] == flavour.zfs_version:
            suite = cols[2]
            if flavour.target_release and flavour.target_release not in suite:
                continue
            versions.append(cols[1])
    if not versions:
        raise BuildError(
            f"no zfsutils-linux {flavour.zfs_version} in the apt lists "
            f"(is {APT_SOURCES_FILE} in place and apt-get update done?)",
            log.path,
        )
    deb_version = versions[0]  # madison lists newest first

    zfs_libs: list[str] = []
    host_deps: set[str] = set()
    todo = [f"zfsutils-linux={deb_version}"]
    seen: set[str] = set()
    while todo:
        spec = todo.pop()
        if spec in seen:
            continue
        seen.add(spec)
        for name, constraint in parse_depends(apt_show_field(log, spec, "Depends")):
            same_source = bool(constraint and deb_version in constraint) or bool(
                ZFS_LIB_RE.match(name)
            )
            if same_source:
                if name not in zfs_libs:
                    zfs_libs.append(name)
                todo.append(f"{name}={deb_version}")
            elif name.startswith("lib") and name not in ("libc6",):
                host_deps.add(name)

    udev_version = log.run(["apt-cache", "policy", "udev"], capture=True)
    m = re.search(r"Candidate: (\S+)", udev_version)
    if not m or m.group(1) == "(none)":
        raise BuildError("no udev candidate in apt", log.path)
    return Resolved(abi, deb_version, zfs_libs, sorted(host_deps), m.group(1))


def download_debs(
    log: Log, dest: Path, specs: list[str], target_release: str | None = None
) -> list[Path]:
    dest.mkdir(parents=True, exist_ok=True)
    need = []
    found: list[Path] = []
    for spec in specs:
        name, _, ver = spec.partition("=")
        pattern = f"{name}_{ver.replace(':', '%3a')}_*.deb" if ver else f"{name}_*.deb"
        hits = sorted(dest.glob(pattern))
        if hits:  # unversioned specs are only used for ABI-named kernel packages
            found.append(hits[-1])
        else:
            need.append(spec)
    if need:
        log.step("apt-get download " + " ".join(need))
        extra = ["-t", target_release] if target_release else []
        apt_get(log, [*extra, "download", *need], cwd=dest)
        for spec in need:
            name, _, ver = spec.partition("=")
            pattern = f"{name}_{ver.replace(':', '%3a')}_*.deb" if ver else f"{name}_*.deb"
            hits = sorted(dest.glob(pattern))
            if not hits:
                raise BuildError(f"download of {spec} produced no .deb in {dest}", log.path)
            found.append(hits[-1])
    return found


def download_smartctl(log: Log, debs: Path, dest: Path) -> Path:
    """smartctl unpacked from Debian 12's smartmontools .deb (SMART_SUITE's version)."""
    madison = log.run(["apt-cache", "madison", SMART_PACKAGE], capture=True)
    versions = [
        cols[1]
        for cols in ([c.strip() for c in line.split("|")] for line in madison.splitlines())
        if len(cols) >= 3 and SMART_SUITE in cols[2]
    ]
    if not versions:
        raise BuildError(f"no {SMART_PACKAGE} in {SMART_SUITE} in the apt lists", log.path)
    (deb,) = download_debs(log, debs, [f"{SMART_PACKAGE}={versions[0]}"])
    dest.mkdir(parents=True, exist_ok=True)
    log.run(["dpkg", "-x", deb, dest])
    smartctl = dest / "usr" / "sbin" / "smartctl"
    if not smartctl.is_file():
        raise BuildError(f"no usr/sbin/smartctl in {deb.name}", log.path)
    log.step(f"smartctl from {deb.name}")
    return smartctl


def extract_vmlinux(bzimage: Path, out: Path) -> None:
    """The uncompressed ELF kernel from a XZ bzImage (like scripts/extract-vmlinux)."""
    data = bzimage.read_bytes()
    magic = b"\xfd7zXZ\x00"
    pos = data.find(magic)
    while pos != -1:
        try:
            elf = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(data[pos:])
        except lzma.LZMAError:
            elf = b""
        if elf.startswith(b"\x7fELF"):
            out.write_bytes(elf)
            return
        pos = data.find(magic, pos + 1)
    raise VMError(f"no XZ-compressed ELF found in {bzimage}")


def ldd_closure(paths: Iterable[Path], ld_library_path: str) -> list[tuple[Path, str]]:
    """(source file, destination absolute path) pairs for the shared libraries of paths."""
    result: dict[str, Path] = {}
    env = dict(os.environ, LD_LIBRARY_PATH=ld_library_path)
    for p in paths:
        proc = subprocess.run(
            ["ldd", str(p)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
        )
        if "not a dynamic executable" in proc.stdout or "statically linked" in proc.stdout:
            continue
        for line in proc.stdout.splitlines():
            line = line.strip()
            if "not found" in line:
                raise VMError(f"ldd {p}: {line}")
            m = re.match(r"(?:\S+ => )?(/\S+) \(0x", line)
            if m:
                result.setdefault(m.group(1), Path(m.group(1)))
    return [(src, dst) for dst, src in result.items()]


class ImageTree:
    """A staging directory that becomes the initramfs (merged-/usr layout)."""

    def __init__(self, root: Path) -> None:
        if root.exists():
            shutil.rmtree(root)
        self.root = root
        for d in [
            "usr/bin",
            "usr/sbin",
            "usr/lib/x86_64-linux-gnu",
            "usr/lib64",
            "etc",
            "root/.ssh",
            "proc",
            "sys",
            "dev",
            "run",
            "tmp",
            "var",
            "mnt",
            "scratch",
        ]:
            (root / d).mkdir(parents=True, exist_ok=True)
        for link, target in [
            ("bin", "usr/bin"),
            ("sbin", "usr/sbin"),
            ("lib", "usr/lib"),
            ("lib64", "usr/lib64"),
        ]:
            (root / link).symlink_to(target)
        (root / "var/run").symlink_to("../run")
        (root / "var/tmp").symlink_to("../tmp")

    def path(self, dest: str | Path) -> Path:
        return self.root / str(dest).lstrip("/")

    def add_file(self, src: Path, dest: str | Path, mode: int | None = None) -> None:
        target = self.path(dest)
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists() or target.is_symlink():
            target.unlink()
        shutil.copyfile(src.resolve(), target)
        target.chmod(
            mode if mode is not None else (stat.S_IMODE(src.resolve().stat().st_mode) or 0o644)
        )

    def add_text(self, dest: str, text: str, mode: int = 0o644) -> None:
        target = self.path(dest)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        target.chmod(mode)

    def add_symlink(self, dest: str, target: str, replace: bool = False) -> None:
        link = self.path(dest)
        if link.exists() or link.is_symlink():
            if not replace:
                return
            link.unlink()
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(target)


def write_cpio(root: Path, out: Path) -> None:
    """Write root as an uncompressed newc cpio archive (all files owned by root)."""
    ino = 1
    with open(out, "wb") as fh:

        def entry(
            name: str, mode: int, data: bytes = b"", rdev: tuple[int, int] = (0, 0), nlink: int = 1
        ) -> None:
            nonlocal ino
            nb = name.encode() + b"\0"
            fields = [ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rdev[0], rdev[1], len(nb), 0]
            fh.write(b"070701" + b"".join(b"%08X" % f for f in fields))
            fh.write(nb)
            fh.write(b"\0" * ((-(110 + len(nb))) % 4))
            fh.write(data)
            fh.write(b"\0" * ((-len(data)) % 4))
            ino += 1

        paths = sorted(root.rglob("*"), key=lambda p: p.relative_to(root).as_posix())
        for p in paths:
            rel = p.relative_to(root).as_posix()
            st = p.lstat()
            if stat.S_ISLNK(st.st_mode):
                entry(rel, stat.S_IFLNK | 0o777, os.readlink(p).encode())
            elif stat.S_ISDIR(st.st_mode):
                entry(rel, stat.S_IFDIR | stat.S_IMODE(st.st_mode), nlink=2)
            elif stat.S_ISREG(st.st_mode):
                entry(rel, stat.S_IFREG | stat.S_IMODE(st.st_mode), p.read_bytes())
        entry("dev/console", stat.S_IFCHR | 0o600, rdev=(5, 1))
        entry("TRAILER!!!", 0)


def build(flavour: Flavour, *, refresh: bool = False, quiet: bool = False) -> Path:
    """Build (or find cached) kernel + initramfs + keys; return the cache directory."""
    if not refresh:
        cached = find_cached_build(flavour)
        if cached:
            return cached
    if os.geteuid() != 0:
        raise BuildError(
            "building the ZFS test guest needs root (apt-get install, dpkg -x as root)"
        )
    if shutil.which("apt-get") is None or shutil.which("dpkg") is None:
        raise BuildError(
            "building the ZFS test guest needs a Debian host (apt-get and dpkg not found)"
        )

    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(root).free
    if free < 3 * GiB:
        raise BuildError(f"not enough free space under {root}: {free // (1024**2)} MiB, need 3 GiB")
    log_path = root / "logs" / f"build-{flavour.tag}.log"
    with cache_lock(f"build-{flavour.tag}"):
        if not refresh:  # another process may have built it while we waited for the lock
            cached = find_cached_build(flavour)
            if cached:
                return cached
        if log_path.exists():
            log_path.replace(log_path.with_suffix(".log.old"))
        log = Log(log_path, quiet=quiet)
        try:
            return _build_cached(flavour, log)
        except BuildError:
            raise
        except (OSError, VMError, subprocess.SubprocessError) as exc:
            log.step(f"FAILED: {exc}")
            raise BuildError(f"building the {flavour.name} guest failed: {exc}", log_path) from exc
        finally:
            log.close()


def _build_cached(flavour: Flavour, log: Log) -> Path:
    """The cache entry for what apt resolves for `flavour` today (after `apt update`): found
    there, or built (`_build`, `_build_host` for the host flavour)."""
    t_start = time.monotonic()
    host = flavour.kind == "host"
    what = (f"the Debian 12 host guest, OpenZFS {flavour.zfs_version}" if host
            else f"OpenZFS {flavour.zfs_version} guest")
    log.step(f"building {what} (scripts {scripts_hash()})")
    apt_update(log)
    res = resolve_versions(log, flavour)
    key = build_key(res.abi, flavour)
    out = cache_root() / key
    if (out / "COMPLETE").is_file():
        log.step(f"already built: {out}")
        return out
    return (_build_host if host else _build)(flavour, log, res, out, t_start)


def _manifest_head(flavour: Flavour, res: Resolved, out: Path) -> dict[str, object]:
    """What every build's manifest.json starts with."""
    return {
        "key": out.name,
        "flavour": flavour.name,
        "zfs_version": flavour.zfs_version,
        "zfs_deb_version": res.zfs_deb_version,
        "kernel_abi": res.abi,
    }


def _emptied(path: Path) -> Path:
    """`path` as a new empty directory (whatever was there is removed)."""
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


def _install_keys(staging: Path, keys: Path, host_key_line: str) -> None:
    """The operator's ssh key pair and the guest's host key line, next to the image."""
    shutil.copy2(keys / "id_ed25519", staging / "id_ed25519")
    shutil.copy2(keys / "id_ed25519.pub", staging / "id_ed25519.pub")
    (staging / "id_ed25519").chmod(0o600)
    (staging / "known_host_key").write_text(host_key_line + "\n")


def _publish(log: Log, flavour: Flavour, staging: Path, out: Path, work: Path,
             manifest: dict[str, object], t_start: float) -> Path:
    """The staged build with its manifest, marked COMPLETE and moved to `out`; the work
    directory removed and older builds pruned."""
    (staging / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    (staging / "COMPLETE").write_text("ok\n")
    if out.exists():
        shutil.rmtree(out)
    staging.rename(out)
    shutil.rmtree(work, ignore_errors=True)
    prune_builds(log, flavour, out)
    log.step(f"built {out} in {time.monotonic() - t_start:.1f}s")
    return out


def _build(flavour: Flavour, log: Log, res: Resolved, out: Path, t_start: float) -> Path:
    key = out.name
    log.step(
        f"kernel {res.abi}, zfs {res.zfs_deb_version} ({', '.join(res.zfs_libs)}), udev {res.udev_version}"
    )

    work = _emptied(cache_root() / "work" / key)

    apt_install(log, HOST_BUILD_PACKAGES + [f"linux-headers-{res.abi}"] + res.zfs_lib_host_deps)

    debs = cache_root() / "debs"
    t0 = time.monotonic()
    kernel_debs = download_debs(log, debs, [f"linux-image-{res.abi}"])
    zfs_specs = [
        f"{p}={res.zfs_deb_version}" for p in ["zfs-dkms", "zfsutils-linux", *res.zfs_libs]
    ]
    zfs_debs = download_debs(log, debs, zfs_specs, flavour.target_release)
    udev_debs = download_debs(
        log, debs, [f"{p}={res.udev_version}" for p in ["udev", "libudev1", "libsystemd-shared"]]
    )
    smartctl = download_smartctl(log, debs, work / "smartmontools")
    log.step(f"downloads done in {time.monotonic() - t0:.1f}s")

    kroot = work / "kernel"
    zroot = work / "zfs"
    uroot = work / "udev"
    for deb_list, dest in [(kernel_debs, kroot), (zfs_debs, zroot), (udev_debs, uroot)]:
        dest.mkdir(parents=True, exist_ok=True)
        for deb in deb_list:
            log.run(["dpkg", "-x", deb, dest])

    # -- zfs/spl modules for the guest kernel (what DKMS would do, by hand)
    modules = build_zfs_modules(log, flavour, res, zroot, work / "zfs-build")

    # -- keys
    ssh_dir = work / "keys"
    ssh_dir.mkdir()
    log.run(
        [
            "ssh-keygen",
            "-q",
            "-t",
            "ed25519",
            "-N",
            "",
            "-C",
            f"zconsole-testvm-{flavour.tag}",
            "-f",
            ssh_dir / "id_ed25519",
        ]
    )
    log.run(["dropbearkey", "-t", "ed25519", "-f", ssh_dir / "dropbear_ed25519_host_key"])
    host_pub = log.run(
        ["dropbearkey", "-y", "-f", ssh_dir / "dropbear_ed25519_host_key"], capture=True
    )
    m = re.search(r"^(ssh-ed25519 \S+)", host_pub, re.M)
    if not m:
        raise BuildError("cannot read the dropbear host public key", log.path)
    host_key_line = m.group(1)

    # -- initramfs
    t0 = time.monotonic()
    tree = assemble_image(log, flavour, res, work, kroot, zroot, uroot, modules, ssh_dir,
                          extra_executables=[(smartctl, "/usr/sbin/smartctl")])
    staging = _emptied(cache_root() / f"{key}.tmp-{os.getpid()}")
    write_cpio(tree.root, staging / "initrd.img")
    extract_vmlinux(kroot / "boot" / f"vmlinuz-{res.abi}", staging / "vmlinux")
    _install_keys(staging, ssh_dir, host_key_line)
    log.step(
        f"image assembled in {time.monotonic() - t0:.1f}s "
        f"(initrd {(staging / 'initrd.img').stat().st_size // 1024**2} MiB)"
    )
    manifest = {
        **_manifest_head(flavour, res, out),
        "udev_version": res.udev_version,
        "scripts_hash": scripts_hash(),
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "build_seconds": round(time.monotonic() - t_start, 1),
    }
    return _publish(log, flavour, staging, out, work, manifest, t_start)


def prune_builds(log: Log, flavour: Flavour, keep: Path) -> None:
    for old in cache_root().iterdir():
        if old != keep and is_build_of(flavour, old):
            log.step(f"pruning superseded build {old.name}")
            shutil.rmtree(old, ignore_errors=True)


def build_zfs_modules(
    log: Log, flavour: Flavour, res: Resolved, zroot: Path, build_dir: Path
) -> list[Path]:
    # The compiled modules depend only on the kernel ABI and the zfs-dkms version, so they
    # are cached apart from the image (editing these scripts must not cost a recompile).
    mod_cache = module_cache_dir(res)
    if (mod_cache / "COMPLETE").is_file():
        kos = sorted(mod_cache.glob("*.ko"))
        log.step(f"using cached modules {mod_cache}: {' '.join(k.stem for k in kos)}")
        return kos
    # the 2.3 flavour and the host flavour share these modules: one compiles, the other waits
    with cache_lock(f"modules-{mod_cache.name}", log):
        if (mod_cache / "COMPLETE").is_file():
            kos = sorted(mod_cache.glob("*.ko"))
            log.step(f"using modules built meanwhile {mod_cache}")
            return kos
        return _compile_zfs_modules(log, flavour, res, zroot, build_dir, mod_cache)


# The Debian kernel is built with CONFIG_DEBUG_INFO, so kbuild compiles every object with -g;
# the modules are stripped of it right after (strip --strip-debug), and BTF is skipped for
# modules built out of tree (no vmlinux in the headers). `-g0` last on the command line
# spares the compiler the DWARF: for zfs 2.3.2's `make -j2` on 2 cores, 202 s of CPU instead
# of 258 (user + sys, /usr/bin/time, 2026-11-28; configure unchanged at 105 s).
MODULE_KCFLAGS = "-g0"


def module_cache_dir(res: Resolved) -> Path:
    return cache_root() / "modules" / f"{res.abi}_zfs-{res.zfs_deb_version}"


def _compile_zfs_modules(
    log: Log, flavour: Flavour, res: Resolved, zroot: Path, build_dir: Path, mod_cache: Path
) -> list[Path]:
    src = zroot / "usr" / "src" / f"zfs-{flavour.zfs_version}"
    if not (src / "configure").is_file():
        raise BuildError(f"no zfs module source in {src}", log.path)
    shutil.copytree(src, build_dir, symlinks=True)
    headers_obj = Path(f"/usr/src/linux-headers-{res.abi}")
    headers_src = Path("/usr/src/linux-headers-" + res.abi.removesuffix("-amd64") + "-common")
    if not headers_obj.is_dir():
        raise BuildError(f"kernel headers missing: {headers_obj}", log.path)
    t0 = time.monotonic()
    log.step(f"configuring zfs {flavour.zfs_version} modules for {res.abi}")
    log.run(
        [
            *NICE,
            "env", f"KCFLAGS={MODULE_KCFLAGS}",
            "./configure",
            "--disable-dependency-tracking",
            "--prefix=/usr",
            "--with-config=kernel",
            f"--with-linux={headers_src if headers_src.is_dir() else headers_obj}",
            f"--with-linux-obj={headers_obj}",
        ],
        cwd=build_dir,
    )
    log.step(
        f"configure done in {time.monotonic() - t0:.1f}s; make -j{os.cpu_count() or 2} (several minutes)"
    )
    t1 = time.monotonic()
    log.run([*NICE, "env", f"KCFLAGS={MODULE_KCFLAGS}", "make", f"-j{os.cpu_count() or 2}"],
            cwd=build_dir)
    kos = sorted((build_dir / "module").rglob("*.ko"))
    names = {k.stem for k in kos}
    if not {"zfs", "spl"} <= names:
        raise BuildError(f"module build produced {sorted(names)}, expected zfs and spl", log.path)
    for ko in kos:
        log.run(["strip", "--strip-debug", ko])
    log.step(f"modules built in {time.monotonic() - t1:.1f}s: {' '.join(sorted(names))}")
    if mod_cache.exists():
        shutil.rmtree(mod_cache)
    mod_cache.mkdir(parents=True)
    for ko in kos:
        shutil.copyfile(ko, mod_cache / ko.name)
    (mod_cache / "COMPLETE").write_text("ok\n")
    (mod_cache / "build.json").write_text(json.dumps(
        {"configure_and_make_seconds": round(time.monotonic() - t0, 1),
         "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}) + "\n")
    return sorted(mod_cache.glob("*.ko"))


def assemble_image(
    log: Log,
    flavour: Flavour,
    res: Resolved,
    work: Path,
    kroot: Path,
    zroot: Path,
    uroot: Path,
    modules: list[Path],
    keys: Path,
    extra_executables: Sequence[tuple[Path, str]] = (),
) -> ImageTree:
    abi = res.abi
    tree = ImageTree(work / "initramfs")

    # kernel modules: put the zfs ones into the unpacked kernel tree, depmod it, take the
    # closure of what the guest needs, then depmod the image.
    kmods = kroot / "lib" / "modules" / abi
    extra = kmods / "updates" / "zfs"
    extra.mkdir(parents=True, exist_ok=True)
    for ko in modules:
        shutil.copyfile(ko, extra / ko.name)
    log.run(["depmod", "-b", kroot, abi])
    wanted: set[Path] = set()
    for mod in GUEST_MODULES:
        out = log.run(
            ["modprobe", "-d", kroot, "-S", abi, "--show-depends", mod], capture=True, check=False
        )
        for line in out.splitlines():
            m = re.match(r"insmod (\S+)", line)
            if m:
                wanted.add(Path(m.group(1)))
    if not any(p.name == "zfs.ko" for p in wanted):
        raise BuildError("module closure lacks zfs.ko", log.path)
    for ko in sorted(wanted):
        rel = ko.resolve().relative_to(kroot.resolve())
        tree.add_file(ko, "/usr/" + rel.as_posix(), 0o644)
    for f in ["modules.order", "modules.builtin", "modules.builtin.modinfo"]:
        if (kmods / f).exists():
            tree.add_file(kmods / f, f"/usr/lib/modules/{abi}/{f}", 0o644)
    log.run(["depmod", "-b", tree.root, abi])
    log.step(f"{len(wanted)} kernel modules in the image")

    # binaries
    executables: list[tuple[Path, str]] = []
    for b in HOST_BINARIES:
        p = Path(b)
        if not p.exists():
            raise BuildError(f"host binary missing: {p}", log.path)
        executables.append((p, "/usr/" + b.removeprefix("/usr/").lstrip("/")))
    for pkg in HOST_TOOL_PACKAGES:
        listing = log.run(["dpkg", "-L", pkg], capture=True)
        for line in listing.splitlines():
            p = Path(line)
            if (
                p.parent.as_posix() in ("/bin", "/sbin", "/usr/bin", "/usr/sbin")
                and p.is_file()
                and not p.is_symlink()
                and os.access(p, os.X_OK)
            ):
                dest = "/usr/" + line.removeprefix("/usr/").lstrip("/")
                if all(d != dest for _, d in executables):
                    executables.append((p, dest))
    for zrel in ZFS_USERLAND:
        zp = zroot / zrel
        if not zp.exists():
            log.step(f"note: {zrel} not in zfsutils-linux {res.zfs_deb_version}")
            continue
        executables.append((zp, "/usr/" + zrel))
    # systemd-udevd is a symlink to udevadm (which dispatches on its name)
    executables.append((uroot / "bin/udevadm", "/usr/bin/udevadm"))
    # 60-persistent-storage.rules runs these for sd* disks (ID_SERIAL, the by-id ata-... link
    # of the SMART guests' ATA disk, as on a real host)
    for helper in ("ata_id", "scsi_id"):
        executables.append((uroot / "lib/udev" / helper, f"/usr/lib/udev/{helper}"))
    executables.extend(extra_executables)
    for src, dest in executables:
        tree.add_file(src, dest, 0o755)
    tree.add_file(Path("/usr/bin/busybox"), "/usr/bin/busybox", 0o755)

    # libraries: the unpacked zfs/udev libraries take precedence over the host's
    lib_dirs = []
    for r in (zroot, uroot):
        for d in [
            "lib/x86_64-linux-gnu",
            "usr/lib/x86_64-linux-gnu",
            "usr/lib/x86_64-linux-gnu/systemd",
            "lib/systemd",
            "usr/lib/systemd",
        ]:
            if (r / d).is_dir():
                lib_dirs.append(str(r / d))
    libs = ldd_closure([tree.path(d) for _, d in executables], ":".join(lib_dirs))
    for src, dest in libs:
        dest_s = str(dest)
        for r in (zroot, uroot):
            if dest_s.startswith(str(r) + "/"):
                dest_s = "/" + dest_s[len(str(r)) + 1 :]
        tree.add_file(src, dest_s, 0o755)
    libgcc = Path("/usr/lib/x86_64-linux-gnu/libgcc_s.so.1")
    tree.add_file(libgcc, "/usr/lib/x86_64-linux-gnu/libgcc_s.so.1", 0o644)  # zfs send needs it
    log.step(f"{len(executables)} executables, {len(libs)} libraries")

    tree.add_symlink("/usr/lib/systemd/systemd-udevd", "../../bin/udevadm")
    for name in KMOD_LINKS:
        tree.add_symlink(f"/usr/sbin/{name}", "../bin/kmod", replace=True)
    tree.add_symlink("/usr/bin/zpool", "../sbin/zpool")
    tree.add_symlink("/usr/bin/zfs", "../sbin/zfs")
    tree.add_symlink("/usr/sbin/zstreamdump", "zstream")
    tree.add_symlink("/usr/bin/sh", "busybox", replace=True)
    applets = subprocess.run(
        ["/usr/bin/busybox", "--list-full"], stdout=subprocess.PIPE, text=True, check=True
    )
    for applet in applets.stdout.split():
        dest = "/usr/" + applet.removeprefix("usr/")
        if not tree.path(dest).exists() and not tree.path(dest).is_symlink():
            depth = dest.count("/") - 1
            tree.add_symlink(dest, "../" * (depth - 1) + "bin/busybox")
    tree.add_symlink("/init", "usr/bin/busybox", replace=True)
    tree.add_symlink("/usr/sbin/init", "../bin/busybox", replace=True)

    # udev rules and config
    rules_src = {
        "60-zvol.rules": zroot,
        "69-vdev.rules": zroot,
        "90-zfs.rules": zroot,
    }
    for rule in UDEV_RULES:
        base = rules_src.get(rule, uroot)
        tree.add_file(base / "lib/udev/rules.d" / rule, f"/usr/lib/udev/rules.d/{rule}", 0o644)
    tree.add_text("/etc/udev/udev.conf", "udev_log=err\n")

    # zfs configuration and zpool.d scripts (zpool status -c)
    for sub in ["etc/zfs", "usr/lib/zfs-linux/zpool.d", "usr/share/zfs/compatibility.d"]:
        if (zroot / sub).is_dir():
            shutil.copytree(zroot / sub, tree.path(sub), symlinks=True, dirs_exist_ok=True)

    # guest scripts and configuration
    for name, dest, mode in [
        ("inittab", "/etc/inittab", 0o644),
        ("rcS", "/etc/init.d/rcS", 0o755),
        ("rc.shutdown", "/etc/init.d/rc.shutdown", 0o755),
        ("profile", "/etc/profile", 0o644),
    ]:
        tree.add_file(GUEST_DIR / name, dest, mode)
    tree.add_text(
        "/etc/passwd",
        "root:x:0:0:root:/root:/bin/bash\nsshd:x:100:65534::/run/sshd:/usr/sbin/nologin\n",
    )
    tree.add_text("/etc/shadow", "root:*:19000:0:99999:7:::\n", 0o600)
    tree.add_text("/etc/group", "root:x:0:\ndisk:x:6:\ntty:x:5:\nnogroup:x:65534:\n")
    tree.add_text("/etc/shells", "/bin/sh\n/bin/bash\n/usr/bin/bash\n")
    tree.add_text("/etc/hostname", "zfsvm\n")
    tree.add_text("/etc/hosts", "127.0.0.1 localhost\n127.0.1.1 zfsvm\n")
    tree.add_text(
        "/etc/nsswitch.conf", "passwd: files\ngroup: files\nshadow: files\nhosts: files\n"
    )
    tree.add_text(
        "/etc/zfsvm-release", f"flavour={flavour.name}\nzfs={res.zfs_deb_version}\nkernel={abi}\n"
    )
    tree.add_symlink("/etc/mtab", "/proc/self/mounts")
    tree.add_file(
        keys / "dropbear_ed25519_host_key", "/etc/dropbear/dropbear_ed25519_host_key", 0o600
    )
    tree.add_file(keys / "id_ed25519.pub", "/root/.ssh/authorized_keys", 0o600)
    tree.path("root").chmod(0o700)
    tree.path("root/.ssh").chmod(0o700)
    tree.path("tmp").chmod(0o1777)
    return tree


# --------------------------------------------------------------------------- instances


def ensure_qemu(log_path: Path | None = None) -> str:
    """Path of qemu-system-x86_64, installing qemu-system-x86 with apt if missing."""
    exe = shutil.which("qemu-system-x86_64")
    if exe:
        return exe
    if os.geteuid() != 0:
        raise VMError("qemu-system-x86_64 not found and not root to install qemu-system-x86")
    log = Log(log_path or cache_root() / "logs" / "qemu-install.log", quiet=True)
    try:
        try:
            apt_get(log, ["install", "-y", "--no-install-recommends", QEMU_PACKAGE],
                    env=APT_ENV)
        except BuildError:
            apt_update(log)
            apt_get(log, ["install", "-y", "--no-install-recommends", QEMU_PACKAGE],
                    env=APT_ENV)
    except BuildError as exc:
        raise VMError(f"cannot install {QEMU_PACKAGE}: {exc}") from exc
    finally:
        log.close()
    exe = shutil.which("qemu-system-x86_64")
    if not exe:
        raise VMError(f"{QEMU_PACKAGE} installed but qemu-system-x86_64 not on PATH")
    return exe


def hardware_kvm() -> bool:
    """True only for real hardware KVM (kvm_pvm, the nested kind here, fails Debian kernels)."""
    return (
        Path("/sys/module/kvm_intel").exists() or Path("/sys/module/kvm_amd").exists()
    ) and os.access("/dev/kvm", os.R_OK | os.W_OK)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie child of ours counts as dead
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[-1].split()[0] != "Z"
    except OSError:
        return False


def _in_run_dir(name: str) -> property:
    """An Instance property: the file `name` in its run directory."""
    return property(lambda self: self.run_dir / name, doc=f"run_dir / {name!r}")


class Instance:
    """One guest: its run directory holds disks, sockets, logs, ssh_config and state."""

    # The CPU a guest emulated by TCG is given (ZCONSOLE_VM_CPU says otherwise, for trials):
    # QEMU's `max`. Nehalem (no AVX) was tried for issue 33 on 2026-11-29: the OpenZFS 2.3
    # guest's pool writes and scrubs took less guest CPU (AVX runs through TCG helpers), but a
    # cold clean-clone run took 62 minutes instead of 49.5 with every group's guest CPU 35-50 %
    # higher (zfs2.3 1 140 s against 793), and on the host guest 100 `/bin/true` cost 3.7 guest
    # CPU s against 2.6 with max, 20 `python3 -c pass` 5.2 against 3.5: the processes and
    # logins the tests are made of cost more than the checksums saved. Without PCID (Nehalem
    # has none) every address-space switch flushes TCG's soft TLB, a likely reason.
    TCG_CPU = "max"

    alias = ALIAS  # the ssh Host name in ssh_config (and HostKeyAlias)
    serial_prefix = "zfsvm"  # pool disk serials: <prefix>-vdb -> /dev/disk/by-id/virtio-<prefix>-vdb
    # SMART disks (issue 30), beside the virtio pool disks that have no SMART: an ATA disk
    # (QEMU ide-hd on an AHCI controller: ATA attributes, the self-test log, self-tests that
    # complete at once) and an NVMe disk (the SMART/health log). name -> size; plugged at
    # start (never hot-plugged), wiped by reset(). Their guest paths: smart_disk_paths().
    # 3 GiB, larger than every pool disk: a wizard offers the disk nearest the members' size
    # first, so the tests' choices among vdb..vdg stay what they were.
    smart_disks: dict[str, int] = {"sata0": 3 * GiB, "nvme0": 3 * GiB}
    SMART_ATA_MODEL = "QEMU SMART HDD"  # IDENTIFY model (at most 40 bytes)
    SMART_NVME_MODEL = "QEMU NVMe Ctrl"  # what QEMU's NVMe controller calls itself

    def __init__(self, flavour: Flavour, run_dir: Path | None = None) -> None:
        self.flavour = flavour
        self.run_dir = (run_dir or default_run_dir(flavour)).resolve()
        self.disks: dict[str, int] = dict(POOL_DISKS)

    # paths
    ssh_config = _in_run_dir("ssh_config")
    console_log = _in_run_dir("console.log")
    qmp_socket = _in_run_dir("qmp.sock")
    monitor_socket = _in_run_dir("monitor.sock")
    state_file = _in_run_dir("instance.json")

    def state(self) -> dict[str, object]:
        try:
            return json.loads(self.state_file.read_text())
        except (OSError, ValueError):
            return {}

    def pid(self) -> int | None:
        pid = self.state().get("pid")
        return pid if isinstance(pid, int) and pid_alive(pid) else None

    def running(self) -> bool:
        return self.pid() is not None

    def console_tail(self, lines: int = 40) -> str:
        try:
            text = self.console_log.read_text(errors="replace")
        except OSError:
            return "(no console log)"
        return "\n".join(text.splitlines()[-lines:])

    # lifecycle
    def start(
        self, build_dir: Path, *, timeout: float = SSH_READY_TIMEOUT, keep_disks: bool = False
    ) -> float:
        """Boot the guest from a built cache directory; return seconds until ssh was ready."""
        if self.running():
            raise VMError(f"an instance is already running in {self.run_dir} (pid {self.pid()})")
        qemu = ensure_qemu()
        self.run_dir.mkdir(parents=True, exist_ok=True)
        for stale in [
            "qmp.sock",
            "monitor.sock",
            "console.sock",
            "ssh.ctl",
            "console.log",
            "qemu.log",
            FRESH_DISKS_FILE,  # a new QEMU has none of the previous one's fresh disks
        ]:
            (self.run_dir / stale).unlink(missing_ok=True)
        disk_dir = self.run_dir / "disks"
        disk_dir.mkdir(exist_ok=True)
        self._prepare_disks(build_dir, keep_disks)

        kvm = hardware_kvm()
        t0 = time.monotonic()
        for attempt in range(3):
            port = free_port()
            argv = self._qemu_argv(qemu, build_dir, port, kvm)
            (self.run_dir / "qemu.cmdline").write_text(shlex.join(argv) + "\n")
            with open(self.run_dir / "qemu.log", "ab") as qlog:
                proc = subprocess.Popen(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=qlog,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            time.sleep(0.5)
            if proc.poll() is None:
                self._after_spawn()
                break
            qlog_text = (self.run_dir / "qemu.log").read_text(errors="replace")
            if "hostfwd" not in qlog_text or attempt == 2:
                raise VMError(f"qemu exited at once (rc {proc.returncode}): {qlog_text[-2000:]}")
        self._proc = proc
        state = {
            "pid": proc.pid,
            "port": port,
            "flavour": self.flavour.name,
            "build_dir": str(build_dir),
            "accel": "kvm" if kvm else "tcg",
            "started_at": time.time(),
        }
        self.state_file.write_text(json.dumps(state, indent=2) + "\n")
        self._write_ssh_config(build_dir, port)

        deadline = t0 + timeout
        while True:
            if proc.poll() is not None:
                raise VMError(
                    f"guest qemu exited (rc {proc.returncode}) before ssh was ready; "
                    f"console log {self.console_log}:\n{self.console_tail()}"
                )
            try:  # a probe that waits for the banner past 30 s: not up yet (see reboot)
                probe = subprocess.run(
                    [
                        "ssh",
                        "-F",
                        str(self.ssh_config),
                        "-o",
                        "ControlMaster=no",
                        "-o",
                        "ConnectTimeout=5",
                        self.alias,
                        "true",
                    ],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    timeout=30,
                )
                ok, last_error = probe.returncode == 0, probe.stderr.decode(errors="replace")
            except subprocess.TimeoutExpired:
                ok, last_error = False, "no ssh banner within 30 s"
            if ok:
                break
            if time.monotonic() > deadline:
                self.kill()
                raise VMError(
                    f"guest not reachable by ssh after {timeout:.0f}s "
                    f"(last ssh error: {last_error.strip()}); "
                    f"console log {self.console_log}:\n{self.console_tail()}"
                )
            time.sleep(0.5)
        ready = time.monotonic() - t0
        self._start_master()
        state["ready_seconds"] = round(ready, 1)
        self.state_file.write_text(json.dumps(state, indent=2) + "\n")
        return ready

    def _start_master(self) -> None:
        # a persistent master connection, started with stdio detached, so later ssh calls
        # are fast and nobody's captured pipes get inherited by the master
        subprocess.run(
            [
                "ssh",
                "-F",
                str(self.ssh_config),
                "-o",
                "ControlMaster=yes",
                "-o",
                "ControlPersist=yes",
                "-f",
                "-N",
                self.alias,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=30,
        )

    def _prepare_disks(self, build_dir: Path, keep_disks: bool) -> None:
        """Fresh sparse disk images (kept with keep_disks)."""
        self._blank_images([SCRATCH_DISK, *self.disks.items(), *self.smart_disks.items()],
                           keep_disks)

    def smart_serial(self, name: str) -> str:
        return f"{self.serial_prefix}-{name}"

    def smart_disk_paths(self) -> dict[str, str]:
        """The SMART disks' /dev/disk/by-id paths in the guest (udev's 60-persistent-storage:
        ata-MODEL_SERIAL, nvme-MODEL_SERIAL, spaces as underscores): name -> path."""
        models = {"ata": self.SMART_ATA_MODEL, "nvme": self.SMART_NVME_MODEL}
        paths = {}
        for name in self.smart_disks:
            bus = "nvme" if name.startswith("nvme") else "ata"
            ident = f"{models[bus]}_{self.smart_serial(name)}".replace(" ", "_")
            paths[name] = f"/dev/disk/by-id/{bus}-{ident}"
        return paths

    def _smart_disk_args(self) -> list[str]:
        """An AHCI controller with the ATA disk (a 7200 rpm disk: rotation_rate) and an NVMe
        controller with its disk (its namespace 1)."""
        argv: list[str] = []
        if any(not n.startswith("nvme") for n in self.smart_disks):
            argv += ["-device", "ahci,id=ahci0"]
        port = 0
        for name in self.smart_disks:
            argv += ["-drive", self._drive_opts(name)]
            serial = self.smart_serial(name)
            if name.startswith("nvme"):
                argv += ["-device", f"nvme,id={name},drive=drv-{name},serial={serial}"]
            else:
                argv += ["-device", f"ide-hd,bus=ahci0.{port},drive=drv-{name},id={name},"
                         f"serial={serial},model={self.SMART_ATA_MODEL},rotation_rate=7200"]
                port += 1
        return argv

    def _blank_images(self, disks: Sequence[tuple[str, int]], keep_disks: bool) -> None:
        """disks/NAME.img, sparse, of each size (an existing one kept with keep_disks)."""
        for name, size in disks:
            img = self.run_dir / "disks" / f"{name}.img"
            if not keep_disks:
                img.unlink(missing_ok=True)
            if not img.exists():
                with open(img, "wb") as fh:
                    fh.truncate(size)

    def _after_spawn(self) -> None:
        """Called once QEMU runs (the host guest starts paused and is resumed here)."""

    @staticmethod
    def _machine_args(name: str, kvm: bool) -> list[str]:
        """QEMU's name, accelerator, machine, CPUs and memory, no default devices or display."""
        accel = (
            ["-accel", "kvm", "-cpu", "host"]
            if kvm
            else ["-accel", "tcg,thread=multi,tb-size=512",
                  "-cpu", os.environ.get("ZCONSOLE_VM_CPU", "").strip() or Instance.TCG_CPU]
        )
        # One vCPU unless KVM or ZCONSOLE_VM_SMP says otherwise (issue 33): under TCG on a
        # loaded 2-core machine a second vCPU thread is mostly a lock holder descheduled
        # while the other spins on its lock. Measured 2026-11-29 at load 18-21 (a CI run
        # beside), the 2.3 guest's boot and a pool create/write/scrub/destroy, twice each
        # way: 11 and 6-7 CPU s with one vCPU, 14-15 and 10 with two; the work's wall
        # 20 s against 39-40. With KVM the vCPUs are real CPUs: two, as before.
        smp = os.environ.get("ZCONSOLE_VM_SMP", "").strip() or (str(DEFAULT_SMP) if kvm else "1")
        return ["-name", name, *accel, "-machine", "pc", "-smp", smp,
                "-m", str(DEFAULT_MEM_MB), "-nodefaults", "-display", "none"]

    def _boot_args(self, build_dir: Path, append: str) -> list[str]:
        """The build's kernel and initrd with `append` (and ZCONSOLE_VM_KERNEL_ARGS, for
        trying a kernel parameter); the serial console (logged), the monitor and QMP on
        sockets in the run directory."""
        r = self.run_dir
        append = " ".join([append, *os.environ.get("ZCONSOLE_VM_KERNEL_ARGS", "").split()])
        return [
            "-kernel",
            str(build_dir / "vmlinux"),
            "-initrd",
            str(build_dir / "initrd.img"),
            "-append",
            append,
            "-chardev",
            f"socket,id=ser0,path={r / 'console.sock'},server=on,wait=off,logfile={r / 'console.log'}",
            "-serial",
            "chardev:ser0",
            "-monitor",
            f"unix:{r / 'monitor.sock'},server=on,wait=off",
            "-qmp",
            f"unix:{r / 'qmp.sock'},server=on,wait=off",
        ]

    def _qemu_argv(self, qemu: str, build_dir: Path, port: int, kvm: bool) -> list[str]:
        append = f"console=ttyS0 panic=-1 quiet loglevel=4 zfs.zfs_arc_max={ARC_MAX}"
        argv = [
            qemu,
            *self._machine_args(f"zfsvm-{self.flavour.tag}", kvm),
            "-no-reboot",
            "-no-user-config",
            *self._boot_args(build_dir, append),
            "-netdev",
            f"user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:{port}-:22",
            "-device",
            "virtio-net-pci,netdev=n0",
            "-device",
            "virtio-rng-pci",
        ]
        name, _ = SCRATCH_DISK
        argv += self._disk_args(name)
        for name in self.disks:
            argv += self._disk_args(name)
        argv += self._smart_disk_args()
        return argv

    def _drive_opts(self, name: str) -> str:
        img = self.run_dir / "disks" / f"{name}.img"
        return f"if=none,id=drv-{name},file={img},format=raw,cache=unsafe,discard=unmap"

    def _device_opts(self, name: str) -> str:
        return f"virtio-blk-pci,drive=drv-{name},serial={self.serial_prefix}-{name},id={name}"

    def _disk_args(self, name: str) -> list[str]:
        return ["-drive", self._drive_opts(name), "-device", self._device_opts(name)]

    def _write_ssh_config(self, build_dir: Path, port: int) -> None:
        # own copies, so a rebuilt (and pruned) cache entry cannot break a running instance
        key = self.run_dir / "id_ed25519"
        key.unlink(missing_ok=True)
        shutil.copyfile(build_dir / "id_ed25519", key)
        key.chmod(0o600)
        known = self.run_dir / "known_hosts"
        key_line = (build_dir / "known_host_key").read_text().strip()
        known.write_text(f"{self.alias} {key_line}\n")
        self.ssh_config.write_text(
            f"""# zconsole test guest ({self.flavour.tag}); use: ssh -F {self.ssh_config} {self.alias} CMD
Host {self.alias}
    HostName 127.0.0.1
    Port {port}
    User root
    IdentityFile {key}
    IdentitiesOnly yes
    HostKeyAlias {self.alias}
    UserKnownHostsFile {known}
    GlobalKnownHostsFile /dev/null
    StrictHostKeyChecking yes
    CheckHostIP no
    BatchMode yes
    PasswordAuthentication no
    KbdInteractiveAuthentication no
    GSSAPIAuthentication no
    ControlMaster auto
    ControlPath {self.run_dir / "ssh.ctl"}
    ControlPersist 30m
    ConnectTimeout 10
    ServerAliveInterval 10
    ServerAliveCountMax 6
    LogLevel ERROR
"""
        )

    def stop(self, timeout: float = STOP_TIMEOUT) -> str:
        """Clean shutdown (the guest exports its pools), then kill if it does not end."""
        pid = self.pid()
        if pid is None:
            self._close_master()
            return "not running"
        how = "poweroff"
        try:
            self.exec("poweroff", check=False, timeout=10)
        except (VMError, subprocess.TimeoutExpired):
            pass
        if not self._wait_exit(pid, timeout):
            how = "quit"
            try:
                self.monitor("quit")
            except (OSError, VMError):
                pass
            if not self._wait_exit(pid, 5):
                how = "kill"
                self.kill()
        self._close_master()
        return how

    def kill(self) -> None:
        pid = self.pid()
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._wait_exit(pid, 5)
        self._close_master()

    def _wait_exit(self, pid: int, timeout: float) -> bool:
        proc = getattr(self, "_proc", None)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc is not None and proc.pid == pid:
                if proc.poll() is not None:
                    return True
            elif not pid_alive(pid):
                return True
            time.sleep(0.2)
        return False

    def _close_master(self) -> None:
        if (self.run_dir / "ssh.ctl").exists() and self.ssh_config.exists():
            subprocess.run(
                ["ssh", "-F", str(self.ssh_config), "-O", "exit", self.alias],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=10,
            )

    # talking to the guest
    def exec(
        self,
        command: str | Sequence[str],
        *,
        check: bool = True,
        timeout: float | None = 120.0,
        input: str | bytes | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run a command in the guest over ssh. A list is quoted for the remote shell."""
        if not self.ssh_config.exists():
            raise VMError(f"no ssh_config in {self.run_dir}: is the guest started?")
        remote = command if isinstance(command, str) else shlex.join(command)
        argv = ["ssh", "-F", str(self.ssh_config), self.alias, remote]
        data = input.decode() if isinstance(input, bytes) else input
        proc = subprocess.run(
            argv,
            input=data,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=None if data is not None else subprocess.DEVNULL,
        )
        if check and proc.returncode != 0:
            raise GuestCommandError(proc.returncode, remote, proc.stdout, proc.stderr)
        return proc

    def qmp(
        self, command: str, arguments: dict[str, object] | None = None, timeout: float = 30.0
    ) -> object:
        """One QMP command over the QMP socket; returns its 'return' value."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(str(self.qmp_socket))
            f = s.makefile("rwb")

            def recv() -> dict[str, object]:
                while True:
                    line = f.readline()
                    if not line:
                        raise VMError("QMP connection closed")
                    msg = json.loads(line)
                    if "event" not in msg:
                        return msg

            recv()  # greeting
            for cmd, args in [("qmp_capabilities", None), (command, arguments)]:
                req: dict[str, object] = {"execute": cmd}
                if args:
                    req["arguments"] = args
                f.write(json.dumps(req).encode() + b"\n")
                f.flush()
                resp = recv()
                if "error" in resp:
                    raise VMError(f"QMP {cmd}: {resp['error']}")
            return resp.get("return")

    def monitor(self, command: str) -> str:
        """An HMP (human monitor) command, e.g. 'device_del vdd' or 'info block'."""
        out = self.qmp("human-monitor-command", {"command-line": command})
        return out if isinstance(out, str) else json.dumps(out)

    def attached_disks(self) -> set[str]:
        """Names of the pool disks currently plugged in (QEMU's view)."""
        out = self.qmp("qom-list", {"path": "/machine/peripheral"})
        names = {p["name"] for p in out} if isinstance(out, list) else set()
        return {d for d in self.disks if d in names}

    def replug(self, name: str) -> None:
        """Re-attach a pool disk removed with device_del (same image, serial, id)."""
        blocks = self.qmp("query-block")
        have_drive = isinstance(blocks, list) and any(
            b.get("device") == f"drv-{name}" for b in blocks
        )
        if not have_drive:
            self.monitor(f"drive_add 0 {self._drive_opts(name)}")
        out = self.monitor(f"device_add {self._device_opts(name)}")
        if out.strip():
            raise VMError(f"device_add {name}: {out.strip()}")

    # fresh disks: a new disk inserted in a bay (a new image, serial and size)
    fresh_disks_file = _in_run_dir(FRESH_DISKS_FILE)

    def fresh_disks(self) -> dict[str, dict[str, object]]:
        """The fresh disks inserted since the start: name -> {"size", "serial", "image"}."""
        try:
            data = json.loads(self.fresh_disks_file.read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _save_fresh(self, disks: dict[str, dict[str, object]]) -> None:
        tmp = self.fresh_disks_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(disks, indent=2, sort_keys=True) + "\n")
        tmp.replace(self.fresh_disks_file)

    def _serials_in_use(self) -> set[str]:
        pool = {f"{self.serial_prefix}-{d}" for d in self.disks}
        fresh = {str(v.get("serial")) for v in self.fresh_disks().values()}
        return pool | fresh | {f"{self.serial_prefix}-{d}" for d in RESERVED_DEVICE_IDS}

    def insert_disk(self, name: str, size: int, serial: str | None = None,
                    physical_sector: int | None = None) -> str:
        """Hot-plug a fresh blank disk: a new sparse image disks/NAME.img of `size` bytes,
        QEMU drive drv-NAME and device id NAME, serial `serial` (default <prefix>-NAME), so
        the guest sees a disk it never saw (by-id virtio-SERIAL; the kernel gives it the
        lowest free vdX name, which may be the one a pulled disk left). `physical_sector`
        (e.g. 4096): the physical block size the disk reports, its logical one staying 512
        (a 512e disk). Returns the by-id path. Pull it with `device_del NAME` (monitor);
        reset() removes it for good."""
        if not FRESH_NAME.fullmatch(name):
            raise VMError(f"fresh disk name {name!r}: want [a-z][a-z0-9]{{0,11}}")
        if name in self.disks or name in RESERVED_DEVICE_IDS or name in self.fresh_disks():
            raise VMError(f"fresh disk name {name!r} is taken")
        serial = serial if serial is not None else f"{self.serial_prefix}-{name}"
        if not FRESH_SERIAL.fullmatch(serial):
            raise VMError(f"fresh disk serial {serial!r}: want 1-20 of [A-Za-z0-9._-]")
        if serial in self._serials_in_use():
            raise VMError(f"fresh disk serial {serial!r} is already in use")
        if size <= 0 or size % 512:
            raise VMError(f"fresh disk size {size}: want a positive multiple of 512 bytes")
        img = self.run_dir / "disks" / f"{name}.img"
        img.unlink(missing_ok=True)
        with open(img, "wb") as fh:
            fh.truncate(size)
        disks = self.fresh_disks()
        disks[name] = {"size": size, "serial": serial, "image": str(img)}
        self._save_fresh(disks)  # before plugging: a reset removes even a half-done insert
        out = self.monitor(f"drive_add 0 {self._fresh_drive_opts(name)}")
        if "OK" not in out:
            raise VMError(f"drive_add {name}: {out.strip()}")
        if physical_sector is not None and physical_sector not in (512, 4096, 8192, 16384):
            raise VMError(f"physical sector {physical_sector}: want 512, 4096, 8192 or 16384")
        sector = f",physical_block_size={physical_sector}" if physical_sector else ""
        out = self.monitor(
            f"device_add virtio-blk-pci,drive=drv-{name},serial={serial},id={name}{sector}"
        )
        if out.strip():
            raise VMError(f"device_add {name}: {out.strip()}")
        return f"/dev/disk/by-id/virtio-{serial}"

    def _fresh_drive_opts(self, name: str) -> str:
        img = self.run_dir / "disks" / f"{name}.img"
        return f"if=none,id=drv-{name},file={img},format=raw,cache=unsafe,discard=unmap"

    def _peripherals(self) -> set[str]:
        out = self.qmp("qom-list", {"path": "/machine/peripheral"})
        return {p["name"] for p in out} if isinstance(out, list) else set()

    def _drives(self) -> set[str]:
        blocks = self.qmp("query-block")
        return {str(b.get("device")) for b in blocks} if isinstance(blocks, list) else set()

    def remove_fresh_disks(self, timeout: float = 30.0) -> list[str]:
        """Unplug every fresh disk (waiting until QEMU let it go), drop its drive and delete
        its image: the guest is left with its usual disks. Returns the names removed."""
        disks = self.fresh_disks()
        if not disks:
            return []
        plugged = self._peripherals()
        for name in disks:
            if name in plugged:
                # an unplug already in flight answers with an error: waited for below
                self.monitor(f"device_del {name}")
        deadline = time.monotonic() + timeout
        while set(disks) & self._peripherals():
            if time.monotonic() > deadline:
                left = sorted(set(disks) & self._peripherals())
                raise VMError(f"unplug of the fresh disks {left} never completed")
            time.sleep(0.3)
        drives = self._drives()
        for name in disks:
            # a drive made by drive_add goes with its device; one never attached stays
            if f"drv-{name}" in drives:
                self.monitor(f"drive_del drv-{name}")
            (self.run_dir / "disks" / f"{name}.img").unlink(missing_ok=True)
        self.fresh_disks_file.unlink(missing_ok=True)
        return sorted(disks)

    def _image_written(self, name: str) -> bool:
        """Whether the disk image of pool disk `name` has any block allocated."""
        try:
            return (self.run_dir / "disks" / f"{name}.img").stat().st_blocks > 0
        except OSError:
            return True  # unknown: wipe it

    def _pool_disks_in_guest(self) -> tuple[set[str], set[str]]:
        """(pool disks the guest does not have, pool disks it has under another kernel name
        than their own: zfsvm-vdb at /dev/vdh)."""
        by_id = f"/dev/disk/by-id/virtio-{self.serial_prefix}"
        probe = " ".join(
            f'if [ -e {by_id}-{d} ]; then [ "$(readlink -f {by_id}-{d})" = /dev/{d} ] '
            f"|| echo misnamed:{d}; else echo gone:{d}; fi;"
            for d in self.disks
        )
        words = self.exec(probe, timeout=30).stdout.split()
        return ({w[5:] for w in words if w.startswith("gone:")},
                {w[9:] for w in words if w.startswith("misnamed:")})

    def reset(self, timeout: float = 120.0) -> None:
        """Destroy all pools, re-plug unplugged disks, wipe labels on the pool disks."""
        # Fresh disks go first: one may hold the kernel name (vdX) of a pulled pool disk,
        # which gets it back only once the fresh disk is gone.
        self.remove_fresh_disks()
        # Pools go next: a pool that held a pulled disk keeps its kernel name (vdX) taken
        # until ZFS lets go, and a disk plugged back meanwhile got another name.
        self.exec("for p in $(zpool list -H -o name 2>/dev/null); do "
                  'zpool destroy -f "$p" || exit 1; done', timeout=timeout)
        gone_in_guest, misnamed = self._pool_disks_in_guest()
        # A disk whose device_del is still in flight is gone in the guest but still known to
        # QEMU (the guest ejects it only after tearing the block device down): wait for QEMU.
        # A disk under another kernel name than its own is unplugged too, and plugged back
        # below, in order, when the names are free again.
        for name in sorted(misnamed):
            self.monitor(f"device_del {name}")
        leaving = gone_in_guest | misnamed
        deadline = time.monotonic() + 30
        while leaving & self.attached_disks():
            if time.monotonic() > deadline:
                raise VMError(
                    f"unplug of {sorted(leaving & self.attached_disks())} never completed"
                )
            time.sleep(0.3)
        for name in self.disks:
            if name not in self.attached_disks():
                self.replug(name)
        by_id = f"/dev/disk/by-id/virtio-{self.serial_prefix}"
        # A disk whose image has no block allocated holds only zeros (the wipe below ends with
        # blkdiscard, which QEMU turns into holes; a read allocates nothing): no label, no
        # signature, nothing to wipe. Every test's pools and writes are synced first (the
        # destroys above and `sync` here), so an allocation is never missed. Wiping the six
        # disks took about half of a reset's 16 s on a loaded 2-core machine (issue 33).
        self.exec("sync", timeout=timeout)
        written = [f"{by_id}-{d}" for d in self.disks if self._image_written(d)]
        smart = self.smart_disk_paths()
        written += [smart[d] for d in self.smart_disks if self._image_written(d)]
        links = " ".join(written)
        script = f"""
set -u
for i in $(seq 1 100); do
  missing=""
  for d in {" ".join(self.disks)}; do [ -e {by_id}-$d ] || missing="$missing $d"; done
  [ -z "$missing" ] && break
  sleep 0.2
done
[ -n "$missing" ] && echo "disks not back:$missing" >&2
# tests name the pool disks by their kernel names: each must be back under its own
renamed=""
for d in {" ".join(self.disks)}; do
  [ -e {by_id}-$d ] && [ "$(readlink -f {by_id}-$d)" != /dev/$d ] && renamed="$renamed $d"
done
[ -n "$renamed" ] && echo "disks back under another kernel name:$renamed" >&2
for p in $(zpool list -H -o name 2>/dev/null); do zpool destroy -f "$p" || exit 1; done
for link in {links}; do
  dev=$(readlink -f "$link") || continue
  # give the blocks back: QEMU (discard=unmap) punches holes in the disk file, so a suite
  # that fills pools all day does not fill the machine's /tmp (a full /tmp pauses the guests).
  # A disk so discarded reads zeros: no label, no signature. Only when a signature is still
  # there (the discard did not zero) are the labels cleared one by one and wiped: that took
  # 3.9 + 1.3 of a reset's 10 CPU s after two pools (issue 33).
  blkdiscard -f "$dev" >/dev/null 2>&1 || blkdiscard "$dev" >/dev/null 2>&1
  if [ -n "$(wipefs -i "$dev" 2>&1)" ]; then
    for part in "$dev"?*; do [ -b "$part" ] && zpool labelclear -f "$part" >/dev/null 2>&1; done
    zpool labelclear -f "$dev" >/dev/null 2>&1
    wipefs -q -a "$dev" >/dev/null 2>&1 || {{ sleep 1; wipefs -q -a "$dev"; }}
  fi
  blockdev --rereadpt "$dev" 2>/dev/null
done
rm -rf /scratch/* 2>/dev/null
fstrim /scratch >/dev/null 2>&1
udevadm settle --timeout=30
[ -z "$(zpool list -H -o name 2>/dev/null)" ] && [ -z "$missing" ] && [ -z "$renamed" ]
"""
        self.exec(script, timeout=timeout)


# --------------------------------------------------------------------------- host flavour
#
# A real Debian 12 storage host: a full bookworm system made by mmdebstrap from Debian
# packages (systemd, udev, dbus, logind, OpenSSH, netplan with networkd, ifupdown, avahi,
# python3 ...) plus OpenZFS 2.3.2 userland from bookworm-backports and the zfs/spl modules
# compiled for the guest kernel (the same module cache as the 2.3 flavour). The root file
# system is an ext4 image booted by Debian's own initramfs; pool disks as in the ZFS guests.
# Two layers are cached apart: the mmdebstrap root file system (a tar keyed by the package
# list and versions, the slow step) and the image made from it (keyed by these scripts).

HOST_ALIAS = "hostvm"
HOST_ROOT_BYTES = 6 * GiB
HOST_STOP_TIMEOUT = 60.0
# lan0 carries the operator's ssh (QEMU user network, restrict=on, hostfwd on 127.0.0.1);
# lan1 is a second port whose link is down from power-on (no cable): fault recipes use it.
HOST_MACS = {"lan0": "52:54:00:12:34:56", "lan1": "52:54:00:12:34:57"}
# Bump to force a new root file system (it is otherwise keyed by packages and versions).
HOST_ROOTFS_FORMAT = 1
HOST_PACKAGES = [
    "initramfs-tools",
    "zstd",
    "systemd",
    "systemd-sysv",
    "udev",
    "dbus",
    "libpam-systemd",
    "openssh-server",
    "netplan.io",
    "iproute2",
    "bridge-utils",
    "vlan",
    "ifupdown",
    "isc-dhcp-client",
    "avahi-daemon",
    "libnss-mdns",
    "python3",
    "python3-venv",
    "tmux",
    "ncurses-term",
    "sudo",
    "bind9-dnsutils",
    "procps",
    "psmisc",
    "less",
    "strace",
    "e2fsprogs",
    "kmod",
    "util-linux",
    "gdisk",
    "parted",
]
MMDEBSTRAP_OPTS = [
    "--variant=important",
    "--components=main,contrib",
    '--aptopt=Acquire::Retries "3"',
    # no manuals or translations in a test image (also spares the man-db trigger)
    "--dpkgopt=path-exclude=/usr/share/man/*",
    "--dpkgopt=path-exclude=/usr/share/locale/*",
    "--dpkgopt=path-include=/usr/share/locale/locale.alias",
    "--dpkgopt=path-exclude=/usr/share/doc/*",
    "--dpkgopt=path-include=/usr/share/doc/*/copyright",
]
# Timers that would wake up during tests and try to reach the network (there is none). The
# daily logrotate and dpkg-db-backup timers too: a guest restored from the build's booted
# snapshot (below) sets its clock forward to today, which would fire them at once.
HOST_MASKED_UNITS = [
    "apt-daily.timer",
    "apt-daily-upgrade.timer",
    "man-db.timer",
    "e2scrub_all.timer",
    "fstrim.timer",
    "logrotate.timer",
    "dpkg-db-backup.timer",
]
HOST_FILES: dict[str, tuple[str, int]] = {
    "etc/hostname": ("hostvm\n", 0o644),
    "etc/hosts": ("127.0.0.1\tlocalhost\n127.0.1.1\thostvm\n::1\tlocalhost ip6-localhost\n", 0o644),
    "etc/fstab": ("/dev/vda / ext4 errors=remount-ro 0 1\n", 0o644),
    # Nothing answers on 127.0.0.1:53, so a lookup fails at once instead of waiting for a
    # black hole; the slow-DNS fault recipe points this file at its own resolver.
    "etc/resolv.conf": ("nameserver 127.0.0.1\n", 0o644),
    "etc/default/locale": ("LANG=C.UTF-8\n", 0o644),
    "etc/modprobe.d/zfs.conf": (f"options zfs zfs_arc_max={ARC_MAX}\n", 0o644),
    "etc/network/interfaces": (
        "# lo only: lan0 is netplan's (networkd); ifupdown fault recipes add interfaces.d/*\n"
        "source /etc/network/interfaces.d/*\n\nauto lo\niface lo inet loopback\n",
        0o644,
    ),
    "etc/netplan/01-hostvm.yaml": (
        "# zconsole host guest: lan0 is the operator's link (QEMU user network, restrict=on).\n"
        "# lan1 (no cable) is left alone here; the fault recipes configure it.\n"
        "network:\n  version: 2\n  renderer: networkd\n  ethernets:\n    lan0:\n"
        "      dhcp4: true\n",
        0o600,
    ),
    "etc/systemd/network/10-lan0.link": (
        f"[Match]\nMACAddress={HOST_MACS['lan0']}\n\n[Link]\nName=lan0\n",
        0o644,
    ),
    "etc/systemd/network/10-lan1.link": (
        f"[Match]\nMACAddress={HOST_MACS['lan1']}\n\n[Link]\nName=lan1\n",
        0o644,
    ),
}


def host_mirrors() -> tuple[str, str]:
    """(Debian archive, security archive) URIs as apt is set up on this machine."""
    uris: list[str] = []
    files = [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]
    for f in files:
        if f.suffix not in (".list", ".sources") or not f.is_file() or f == APT_SOURCES_FILE:
            continue
        text = f.read_text(errors="replace")
        uris += re.findall(r"^\s*(?:deb\s+(?:\[[^\]]*\]\s+)?|URIs:\s*)(\S+)", text, re.M)
    debian = next((u for u in uris if u.rstrip("/").endswith("/debian")), "")
    security = next((u for u in uris if u.rstrip("/").endswith("/debian-security")), "")
    if not debian:
        m = re.search(r"^URIs: (\S+)", APT_SOURCES, re.M)
        debian = m.group(1) if m else ""
    if not security:
        security = debian.rstrip("/") + "-security"
    return debian, security


def host_rootfs_spec(res: Resolved) -> tuple[list[str], list[str], str]:
    """(packages, apt source lines, cache hash) of the host's root file system."""
    # zfs-zed is left out: it depends on zfs-modules | zfs-dkms, and the modules here are
    # compiled apart (as DKMS would) and dropped into updates/zfs, not packaged.
    zfs = [f"{p}={res.zfs_deb_version}" for p in ["zfsutils-linux", *res.zfs_libs]]
    packages = [*HOST_PACKAGES, f"linux-image-{res.abi}", *zfs]
    debian, security = host_mirrors()
    suites = [
        (debian, "bookworm"),
        (debian, "bookworm-updates"),
        (security, "bookworm-security"),
        (debian, "bookworm-backports"),
    ]
    sources = [f"deb {uri} {suite} main contrib" for uri, suite in suites]
    spec = [HOST_ROOTFS_FORMAT, MMDEBSTRAP_OPTS, packages, [s for _, s in suites]]
    digest = hashlib.sha256(json.dumps(spec).encode()).hexdigest()[:12]
    return packages, sources, digest


def ensure_host_rootfs(log: Log, res: Resolved) -> Path:
    """The mmdebstrap root file system as a tar (cached; a few minutes to make)."""
    packages, sources, digest = host_rootfs_spec(res)
    rootfs_dir = cache_root() / "rootfs"
    tar = rootfs_dir / f"{res.abi}_zfs-{res.zfs_deb_version}_{digest}.tar"
    if tar.is_file():
        log.step(f"using cached root file system {tar}")
        return tar
    with cache_lock("rootfs", log):
        if tar.is_file():
            return tar
        apt_install(log, ["mmdebstrap"])
        rootfs_dir.mkdir(parents=True, exist_ok=True)
        tmp = rootfs_dir / f"tmp-{os.getpid()}.tar"  # mmdebstrap picks the format by extension
        tmp.unlink(missing_ok=True)
        t0 = time.monotonic()
        log.step(f"mmdebstrap bookworm: {len(packages)} packages asked for (a few minutes)")
        try:
            log.run(
                [
                    *NICE,
                    "mmdebstrap",
                    *MMDEBSTRAP_OPTS,
                    "--include=" + ",".join(packages),
                    "bookworm",
                    tmp,
                    *sources,
                ],
                env={"TMPDIR": str(rootfs_dir)},
            )
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        tmp.rename(tar)
        seconds = round(time.monotonic() - t0, 1)
        tar.with_suffix(".json").write_text(json.dumps(
            {"mmdebstrap_seconds": seconds, "packages": packages,
             "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}, indent=1) + "\n")
        log.step(f"root file system made in {seconds:.1f}s ({tar.stat().st_size // 1024**2} MiB tar)")
        for old in rootfs_dir.glob("*.tar"):
            if old != tar:
                log.step(f"pruning superseded root file system {old.name}")
                old.unlink(missing_ok=True)
                old.with_suffix(".json").unlink(missing_ok=True)
    return tar


def host_zfs_modules(log: Log, flavour: Flavour, res: Resolved, work: Path) -> list[Path]:
    """zfs/spl modules for the guest kernel: cached, or compiled as the 2.3 flavour does."""
    mod_cache = module_cache_dir(res)
    if not (mod_cache / "COMPLETE").is_file():
        apt_install(
            log, ["make", "gcc", "libc6-dev", "binutils", "kmod", f"linux-headers-{res.abi}"]
        )
        debs = download_debs(
            log, cache_root() / "debs", [f"zfs-dkms={res.zfs_deb_version}"], flavour.target_release
        )
        zroot = work / "zfs"
        zroot.mkdir(parents=True, exist_ok=True)
        for deb in debs:
            log.run(["dpkg", "-x", deb, zroot])
        return build_zfs_modules(log, flavour, res, zroot, work / "zfs-build")
    return build_zfs_modules(log, flavour, res, work / "unused", work / "unused-build")


def _build_host(flavour: Flavour, log: Log, res: Resolved, out: Path, t_start: float) -> Path:
    key = out.name
    log.step(f"kernel {res.abi}, zfs {res.zfs_deb_version}")
    work = _emptied(cache_root() / "work" / key)
    apt_install(log, ["mmdebstrap", "e2fsprogs", "openssh-client", "kmod", "tar", "zstd"])

    t0 = time.monotonic()
    tar = ensure_host_rootfs(log, res)
    t_rootfs = time.monotonic() - t0
    t0 = time.monotonic()
    modules = host_zfs_modules(log, flavour, res, work)
    t_modules = time.monotonic() - t0

    t0 = time.monotonic()
    root = work / "rootfs"
    root.mkdir()
    log.run([*NICE, "tar", "-C", root, "--numeric-owner", "--xattrs", "--xattrs-include=*", "-xpf", tar])
    keys = work / "keys"
    keys.mkdir()
    log.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "zconsole-testvm-hostvm",
         "-f", keys / "id_ed25519"]
    )
    customize_host_root(log, res, root, modules, keys / "id_ed25519.pub")
    t_venv = time.monotonic()
    preinstall_dependencies(log, root, work / "wheelhouse")
    log.step(f"zconsole's dependencies installed in {GUEST_VENV} in {time.monotonic() - t_venv:.1f}s")
    host_pub = (root / "etc/ssh/ssh_host_ed25519_key.pub").read_text().split()
    versions = log.run(
        ["dpkg-query", f"--admindir={root / 'var/lib/dpkg'}", "-W", "-f=${Package} ${Version}\\n",
         "systemd", "openssh-server", "netplan.io", "ifupdown", "avahi-daemon", "python3",
         "zfsutils-linux", "dbus", "tmux"],
        capture=True,
    )
    packages_installed = log.run(
        ["dpkg-query", f"--admindir={root / 'var/lib/dpkg'}", "-W", "-f=${db:Status-Abbrev}\\n"],
        capture=True,
    ).count("ii")

    staging = _emptied(cache_root() / f"{key}.tmp-{os.getpid()}")
    extract_vmlinux(root / "boot" / f"vmlinuz-{res.abi}", staging / "vmlinux")
    initrd = root / "boot" / f"initrd.img-{res.abi}"
    if not initrd.is_file():
        raise BuildError(f"mmdebstrap made no initramfs ({initrd})", log.path)
    shutil.copyfile(initrd, staging / "initrd.img")
    img = staging / "root.img"
    with open(img, "wb") as fh:
        fh.truncate(HOST_ROOT_BYTES)
    log.run([*NICE, "mke2fs", "-q", "-t", "ext4", "-L", "hostvm-root", "-d", root, img])
    _install_keys(staging, keys, f"{host_pub[0]} {host_pub[1]}")
    t_image = time.monotonic() - t0
    log.step(
        f"image assembled in {t_image:.1f}s (root.img {img.stat().st_blocks * 512 // 1024**2} MiB "
        f"used of {HOST_ROOT_BYTES // GiB} GiB, {packages_installed} packages)"
    )
    t0 = time.monotonic()
    snapshot = snapshot_host_boot(log, flavour, staging, work)
    t_snapshot = time.monotonic() - t0
    manifest = {
        **_manifest_head(flavour, res, out),
        "packages": dict(line.split(" ", 1) for line in versions.splitlines() if " " in line),
        "packages_installed": packages_installed,
        "rootfs": tar.name,
        "scripts_hash": scripts_hash(),
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "build_seconds": round(time.monotonic() - t_start, 1),
        "modules_seconds": round(t_modules, 1),
        "rootfs_seconds": round(t_rootfs, 1),
        "image_seconds": round(t_image, 1),
        "snapshot_seconds": round(t_snapshot, 1),
        "snapshot": snapshot,
        # what the cached layers cost when they were made (null: not recorded)
        "cold_rootfs_seconds": _json_field(tar.with_suffix(".json"), "mmdebstrap_seconds"),
        "cold_modules_seconds": _json_field(
            module_cache_dir(res) / "build.json", "configure_and_make_seconds"),
    }
    return _publish(log, flavour, staging, out, work, manifest, t_start)


# The host guest's first boot, once, at build time (issue: boot-to-ssh). A boot of this image
# under TCG is 65-75 CPU s on a quiet machine (kernel and initramfs ~17 s, udev coldplug and
# its settle ~19 s, which zfs-load-module requires and zfs-mount, before local-fs.target, waits
# for; then the basic and multi-user units), 260-273 s of wall in a loaded CI run where three
# host guests boot at once. Every start from a cache entry booted the same image the same way,
# so the build boots it once (the same QEMU argv, lan1 unplugged), waits for systemd's
# `running`, lets the probe's login end, and saves the paused guest with QEMU's migration
# (`hoststate.zst`, the RAM of the booted system) beside the booted root disk
# (`root-booted.img`). `HostInstance.start` restores that (a few CPU s), sets the guest's clock
# to now, and falls back to a real boot when the snapshot is missing, does not match this
# QEMU and argv, or fails; reboots are always real boots. ZCONSOLE_VM_HOST_RESTORE=0: boot.
HOST_STATE = "hoststate.zst"
HOST_BOOTED_ROOT = "root-booted.img"
HOST_SNAPSHOT_META = "snapshot.json"
# after the probe's last logout: root's user@0.service stops 10 s later (UserStopDelaySec)
SNAPSHOT_SETTLE_S = 20.0


def host_restore_wanted() -> bool:
    return os.environ.get("ZCONSOLE_VM_HOST_RESTORE", "1").strip() != "0"


def qemu_version(qemu: str) -> str:
    out = subprocess.run([qemu, "--version"], capture_output=True, text=True, timeout=30)
    return out.stdout.splitlines()[0].strip() if out.stdout else ""


def snapshot_host_boot(log: Log, flavour: Flavour, staging: Path, work: Path
                       ) -> dict[str, object] | None:
    """Boot the staged image once and save the booted guest (see HOST_STATE); its record
    for the manifest, or None when it could not be made (starts then boot, as before)."""
    if not host_restore_wanted() or shutil.which("zstd") is None:
        log.step("no booted snapshot: ZCONSOLE_VM_HOST_RESTORE=0 or no zstd")
        return None
    # under the run root, not the cache: ssh's ControlPath and QEMU's sockets live in the run
    # directory, and a Unix socket's path is at most 108 bytes
    inst = HostInstance(flavour, run_root() / f"snapshot-{os.getpid()}")
    files = [staging / HOST_STATE, staging / HOST_BOOTED_ROOT, staging / HOST_SNAPSHOT_META]
    try:
        log.step("booting the image once for the booted snapshot")
        ready = inst.start(staging, timeout=900.0)
        booted = inst.exec("systemctl is-system-running --wait", check=False, timeout=900)
        state = booted.stdout.strip() or f"(no answer: {booted.stderr.strip()})"
        analyze = inst.exec("systemd-analyze", check=False, timeout=300).stdout.strip()
        if state != "running":
            failed = inst.exec("systemctl --failed --no-legend", check=False, timeout=120).stdout
            raise VMError(f"the first boot ended {state!r}, not 'running': {failed.strip()}")
        inst._close_master()
        time.sleep(SNAPSHOT_SETTLE_S)
        saved = inst.save_state(staging / HOST_STATE)
        inst.kill()
        log.run(["cp", "--sparse=always", inst.run_dir / "disks" / "root.img",
                 staging / HOST_BOOTED_ROOT])
        meta: dict[str, object] = {
            "qemu": qemu_version(ensure_qemu()),
            "shape": inst.argv_shape(staging),
            "boot_to_ssh_seconds": round(ready, 1),
            "save_seconds": saved,
            "systemd_analyze": analyze.splitlines()[0] if analyze else "",
            "state_bytes": (staging / HOST_STATE).stat().st_size,
        }
        (staging / HOST_SNAPSHOT_META).write_text(json.dumps(meta, indent=1) + "\n")
        log.step(f"booted snapshot saved: boot-to-ssh {ready:.1f}s, {meta['systemd_analyze']}")
        return meta
    except (VMError, OSError, subprocess.SubprocessError) as exc:
        log.step(f"no booted snapshot (starts will boot): {exc}")
        if inst.running():
            inst.kill()
        for f in files:
            f.unlink(missing_ok=True)
        return None
    finally:
        shutil.rmtree(inst.run_dir, ignore_errors=True)


def _json_field(path: Path, key: str) -> object:
    try:
        return json.loads(path.read_text()).get(key)
    except (OSError, ValueError, AttributeError):
        return None


def customize_host_root(
    log: Log, res: Resolved, root: Path, modules: list[Path], client_pub: Path
) -> None:
    """Configure the unpacked root file system (no chroot needed)."""

    def put(rel: str, text: str, mode: int) -> None:
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists() or target.is_symlink():
            target.unlink()
        target.write_text(text)
        target.chmod(mode)

    for rel, (text, mode) in HOST_FILES.items():
        put(rel, text, mode)
    put(
        "etc/zconsole-hostvm-release",
        f"flavour=host\nzfs={res.zfs_deb_version}\nkernel={res.abi}\n",
        0o644,
    )
    ssh_dir = root / "root/.ssh"
    ssh_dir.mkdir(parents=True, exist_ok=True)
    ssh_dir.chmod(0o700)
    put("root/.ssh/authorized_keys", client_pub.read_text(), 0o600)
    (root / "var/log/journal").mkdir(parents=True, exist_ok=True)
    for unit in HOST_MASKED_UNITS:
        link = root / "etc/systemd/system" / unit
        if link.exists() or link.is_symlink():
            link.unlink()
        link.symlink_to("/dev/null")
    # zfs/spl modules where DKMS would put them; depmod the image's kernel tree
    kmods = root / "usr/lib/modules" / res.abi
    if not kmods.is_dir():
        raise BuildError(f"no kernel modules for {res.abi} in the root file system", log.path)
    updates = kmods / "updates" / "zfs"
    updates.mkdir(parents=True, exist_ok=True)
    for ko in modules:
        shutil.copyfile(ko, updates / ko.name)
        (updates / ko.name).chmod(0o644)
    log.run(["depmod", "-b", root, res.abi])
    log.step(f"{len(modules)} zfs modules added to {res.abi}; files written")


def zconsole_dependencies() -> list[str]:
    """The `dependencies = [...]` of the checkout's pyproject.toml (stdlib only: no tomllib
    on Python 3.10)."""
    text = (HERE.parents[1] / "pyproject.toml").read_text()
    m = re.search(r"^dependencies\s*=\s*\[(.*?)\]", text, re.S | re.M)
    if not m:
        raise BuildError("no dependencies = [...] in pyproject.toml")
    return re.findall(r'"([^"]+)"', m.group(1))


def download_wheelhouse(dest: Path, requirements: Sequence[str | os.PathLike[str]],
                        python_version: str, python: str | None = None) -> list[str]:
    """`pip download` of manylinux/pure wheels for the guest's Python; the pip argv."""
    platforms = [a for p in WHEEL_PLATFORMS for a in ("--platform", p)]
    return [python or sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:",
            "--python-version", python_version, *platforms, "-d", str(dest),
            *map(str, requirements)]


def preinstall_dependencies(log: Log, root: Path, wheelhouse: Path) -> None:
    """The operator's first install, done once at build time with the guest's own python3 (in a
    chroot of the image, at native speed): a venv at GUEST_VENV with zconsole's dependencies
    from a wheelhouse, `pip install --no-index`. Each test session then installs only the
    zconsole wheel of the checkout into it (install_zconsole), as an upgrade would."""
    deps = zconsole_dependencies()
    guest_py = log.run(["chroot", root, "/usr/bin/python3", "-c",
                        "import sys; print('%d.%d' % sys.version_info[:2])"], capture=True).strip()
    log.run(download_wheelhouse(wheelhouse, deps, guest_py))
    inside = root / "root" / "wheelhouse-deps"
    shutil.copytree(wheelhouse, inside)
    env = ["env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8", "HOME=/root"]
    log.run([*NICE, "chroot", root, *env, "/usr/bin/python3", "-m", "venv", GUEST_VENV])
    log.run([*NICE, "chroot", root, *env, f"{GUEST_VENV}/bin/pip", "install", "-q",
             "--no-index", "--find-links", "/root/wheelhouse-deps", *deps])
    shutil.rmtree(inside)


class HostInstance(Instance):
    """The host flavour: root disk image copied per start, two NICs, systemd's reboot works."""

    alias = HOST_ALIAS
    serial_prefix = "hostvm"
    smart_disks: dict[str, int] = {}  # the host guest's disks are virtio only
    # the booted snapshot this start restores (HOST_STATE in the build), None: a real boot
    _restore: Path | None = None
    restore_note = ""  # why the last start booted instead of restoring ("" when it restored)

    def start(
        self, build_dir: Path, *, timeout: float = SSH_READY_TIMEOUT, keep_disks: bool = False
    ) -> float:
        """Restore the build's booted snapshot when there is a usable one (a few CPU s instead
        of a boot's 65-75 under TCG), else boot; seconds until ssh answered."""
        self._restore, self.restore_note = None, ""
        why = "keep_disks" if keep_disks else self._snapshot_unusable(build_dir)
        if why:
            self.restore_note = why
            return super().start(build_dir, timeout=timeout, keep_disks=keep_disks)
        self._restore = build_dir / HOST_STATE
        t0 = time.monotonic()
        try:
            ready = super().start(build_dir, timeout=min(timeout, 300.0), keep_disks=False)
            # the saved guest's clock stopped when it was saved: now, as NTP would set it
            self.exec(f"date -u -s @{time.time():.3f} >/dev/null", timeout=120)
        except (VMError, OSError, subprocess.SubprocessError) as exc:
            self.restore_note = f"restore failed ({exc}); booted instead"
            if self.running():
                self.kill()
            self._restore = None
            left = max(timeout - (time.monotonic() - t0), 60.0)
            return super().start(build_dir, timeout=left, keep_disks=False)
        finally:
            if self._restore is not None:
                st = self.state()
                st["restored_from"] = str(self._restore)
                self.state_file.write_text(json.dumps(st, indent=2) + "\n")
        return ready

    def argv_shape(self, build_dir: Path) -> list[str]:
        """This instance's QEMU argv for `build_dir` without what differs from start to
        start (run directory, build directory, ssh port, -incoming): what a saved guest
        must match to be restored."""
        restore, self._restore = self._restore, None
        try:
            argv = self._qemu_argv(ensure_qemu(), build_dir, 0, hardware_kvm())
        finally:
            self._restore = restore
        run, build = str(self.run_dir), str(build_dir)
        return [re.sub(r"127\.0\.0\.1:\d+-", "127.0.0.1:PORT-",
                       a.replace(run, "@RUN").replace(build, "@BUILD")) for a in argv[1:]]

    def _snapshot_unusable(self, build_dir: Path) -> str:
        """Why the build's booted snapshot cannot be restored here ("" when it can)."""
        if not host_restore_wanted():
            return "ZCONSOLE_VM_HOST_RESTORE=0"
        if not all((build_dir / f).is_file()
                   for f in (HOST_STATE, HOST_BOOTED_ROOT, HOST_SNAPSHOT_META)):
            return "no booted snapshot in the build"
        if shutil.which("zstd") is None:
            return "no zstd"
        try:
            meta = json.loads((build_dir / HOST_SNAPSHOT_META).read_text())
        except (OSError, ValueError):
            return "unreadable snapshot.json"
        if meta.get("qemu") != qemu_version(ensure_qemu()):
            return f"snapshot made by {meta.get('qemu')!r}"
        if meta.get("shape") != self.argv_shape(build_dir):
            return "QEMU argv differs from the snapshot's (accelerator, CPU, kernel args ...)"
        return ""

    def save_state(self, path: Path, timeout: float = 600.0) -> float:
        """Pause the guest and save it (QEMU migration, zstd) to `path`; the seconds taken."""
        t0 = time.monotonic()
        tmp = path.with_name(path.name + ".part")
        tmp.unlink(missing_ok=True)
        path.unlink(missing_ok=True)
        self.qmp("stop")
        self.qmp("migrate-set-parameters", {"max-bandwidth": 64 * GiB})
        cmd = f"zstd -q -1 -o {shlex.quote(str(tmp))} && mv {shlex.quote(str(tmp))} {shlex.quote(str(path))}"
        self.qmp("migrate", {"uri": f"exec:{cmd}"})
        self._await_migration("saving the guest", lambda: self.qmp("query-migrate"),
                              timeout, 0.5, path.is_file)
        return round(time.monotonic() - t0, 1)

    def _await_migration(self, what: str, look: Callable[[], object], timeout: float,
                         every: float, also: Callable[[], bool] = lambda: True) -> None:
        """Poll QEMU's migration (`look`: its query-migrate answer) until it completed and
        `also()` holds; VMError when it failed, was cancelled or took over `timeout`."""
        deadline = time.monotonic() + timeout
        while True:
            info = look()
            status = info.get("status") if isinstance(info, dict) else None
            if status == "completed" and also():
                return
            if status in ("failed", "cancelled"):
                raise VMError(f"{what} failed: {info}")
            if time.monotonic() > deadline:
                raise VMError(f"{what} took over {timeout:.0f}s: {info}")
            time.sleep(every)

    def _qemu_argv(self, qemu: str, build_dir: Path, port: int, kvm: bool) -> list[str]:
        argv = self._boot_argv(qemu, build_dir, port, kvm)
        if self._restore is not None:
            argv += ["-incoming", f"exec:zstd -dcq {shlex.quote(str(self._restore))}"]
        return argv

    def _prepare_disks(self, build_dir: Path, keep_disks: bool) -> None:
        root = self.run_dir / "disks" / "root.img"
        if not keep_disks:
            root.unlink(missing_ok=True)
        if not root.exists():
            # a restored guest goes on from its booted root disk
            src = build_dir / (HOST_BOOTED_ROOT if self._restore is not None else "root.img")
            subprocess.run(["cp", "--sparse=always", str(src), str(root)], check=True)
        self._blank_images(list(self.disks.items()), keep_disks)

    def _after_spawn(self) -> None:
        if self._restore is not None:
            self._wait_incoming()
        # QEMU started paused (-S): take lan1's cable out before the guest ever sees a
        # carrier, then run. The link stays down across guest reboots.
        deadline = time.monotonic() + 20
        while True:
            try:
                self.monitor("set_link nic1 off")
                break
            except (OSError, VMError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        self.qmp("cont")

    def _wait_incoming(self, timeout: float = 300.0) -> None:
        """Until QEMU has loaded the saved guest (it stays paused: -S)."""
        def look() -> object:
            try:
                return self.qmp("query-migrate")
            except (ConnectionRefusedError, VMError) as exc:  # QEMU gave up and exited
                raise VMError(f"restoring the saved guest failed: {exc}; "
                              f"{(self.run_dir / 'qemu.log').read_text(errors='replace')[-1000:]}"
                              ) from exc
            except OSError:  # the socket is not there yet
                return {}

        self._await_migration("restoring the saved guest", look, timeout, 0.2)

    def _boot_argv(self, qemu: str, build_dir: Path, port: int, kvm: bool) -> list[str]:
        root = self.run_dir / "disks" / "root.img"
        argv = [
            qemu,
            *self._machine_args("hostvm", kvm),
            "-no-user-config",
            "-S",
            *self._boot_args(build_dir, "root=/dev/vda rw console=ttyS0 panic=-1 quiet"),
            "-drive",
            f"if=none,id=drv-root,file={root},format=raw,cache=unsafe,discard=unmap",
            "-device",
            "virtio-blk-pci,drive=drv-root,serial=hostvm-root,id=root",
        ]
        for name in self.disks:
            argv += self._disk_args(name)
        argv += [
            "-netdev",
            f"user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:{port}-:22",
            "-device",
            f"virtio-net-pci,netdev=n0,mac={HOST_MACS['lan0']},id=nic0",
            "-netdev",
            "user,id=n1,restrict=on",
            "-device",
            f"virtio-net-pci,netdev=n1,mac={HOST_MACS['lan1']},id=nic1",
            "-device",
            "virtio-rng-pci",
        ]
        return argv

    def stop(self, timeout: float = HOST_STOP_TIMEOUT) -> str:
        return super().stop(timeout)

    def boot_id(self) -> str:
        return self.exec("cat /proc/sys/kernel/random/boot_id", timeout=30).stdout.strip()

    def reboot(self, timeout: float = SSH_READY_TIMEOUT) -> float:
        """`systemctl reboot` in the guest (QEMU keeps running, lan1 stays unplugged); returns
        the seconds until ssh answers on the new boot. Boot may still be going on then: see
        wait_booted()."""
        before = self.boot_id()
        t0 = time.monotonic()
        try:
            self.exec("systemctl reboot", check=False, timeout=20)
        except subprocess.TimeoutExpired:
            pass
        self._close_master()
        deadline = t0 + timeout
        while True:
            # QEMU's port forward accepts the connection while the guest's sshd is not up
            # (or is held back, as ifupdown's networking.service holds ssh.service): the
            # probe can then wait for the banner past its own timeout. That is "not back
            # yet", like a refused connection, not a failure (seen on a loaded CI run).
            try:
                probe = subprocess.run(
                    ["ssh", "-F", str(self.ssh_config), "-o", "ControlMaster=no", "-o",
                     "ControlPath=none", "-o", "ConnectTimeout=5", self.alias,
                     "cat /proc/sys/kernel/random/boot_id"],
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    text=True,
                    timeout=60,
                )
                back = probe.returncode == 0 and probe.stdout.strip() not in ("", before)
            except subprocess.TimeoutExpired:
                back = False
            if back:
                break
            if not self.running():
                raise VMError(f"guest exited during reboot; console:\n{self.console_tail()}")
            if time.monotonic() > deadline:
                raise VMError(
                    f"guest not back on ssh {timeout:.0f}s after reboot; "
                    f"console:\n{self.console_tail()}"
                )
            time.sleep(0.5)
        ready = time.monotonic() - t0
        self._start_master()
        return ready

    def wait_booted(self, timeout: float = 600.0) -> str:
        """Wait until systemd has finished booting; its state (running, degraded, ...)."""
        proc = self.exec("systemctl is-system-running --wait", check=False, timeout=timeout)
        return proc.stdout.strip()


def make_instance(flavour: Flavour, run_dir: Path | None = None) -> Instance:
    return HostInstance(flavour, run_dir) if flavour.kind == "host" else Instance(flavour, run_dir)


# --------------------------------------------------------------------------- zconsole on the host

WHEEL_PLATFORMS = ["manylinux2014_x86_64", "manylinux_2_17_x86_64", "manylinux_2_28_x86_64"]
GUEST_VENV = "/opt/zconsole"
CHECKOUT_FILES = ["pyproject.toml", "README.md", "LICENSE", "MANIFEST.in", "setup.cfg", "zconsole"]


def install_zconsole(
    inst: Instance,
    checkout: Path,
    python: str | None = None,
    say: bool = True,
    fresh_venv: bool = False,
    venv: str = GUEST_VENV,
    byte_compile: bool = True,
) -> dict[str, float]:
    """Install zconsole in the guest as an operator would on a host without internet (the
    README's procedure): on this machine, the project's wheel (`pip wheel --no-deps`) and its
    dependencies for the guest's Python (`pip download`, manylinux wheels) into one
    wheelhouse; scp it over; in the guest, `pip install --no-index --find-links` into the venv.
    The host image already has the venv with the dependencies (made at build time the same
    way: preinstall_dependencies), so by default this is an upgrade of zconsole alone;
    fresh_venv=True (or a venv path the image lacks) makes the venv in the guest first, the
    whole first-time procedure under emulation. byte_compile=False: pip writes no .pyc files
    (PIP_COMPILE=0 in its environment, the typed command unchanged). Returns the seconds of
    each step."""
    py = python or sys.executable
    times: dict[str, float] = {}

    def step(name: str, argv: Sequence[str | os.PathLike[str]]) -> str:
        t0 = time.monotonic()
        proc = subprocess.run([str(a) for a in argv], capture_output=True, text=True)
        times[name] = round(time.monotonic() - t0, 1)
        if proc.returncode != 0:
            raise VMError(
                f"{name} failed (rc {proc.returncode}): {shlex.join(map(str, argv))}\n"
                f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
            )
        if say:
            print(f"[install-zconsole] {name}: {times[name]}s", file=sys.stderr, flush=True)
        return str(proc.stdout)

    guest_py = inst.exec(
        "python3 -c 'import sys; print(\"%d.%d\" % sys.version_info[:2])'", timeout=60
    ).stdout.strip()
    wheelhouse = inst.run_dir / "wheelhouse"
    src = inst.run_dir / "src"
    for d in (wheelhouse, src):
        if d.exists():
            shutil.rmtree(d)
    src.mkdir(parents=True)
    # a clean copy of what the wheel is made of (keeps build/ and *.egg-info out of the checkout)
    for name in CHECKOUT_FILES:
        p = checkout / name
        if p.is_dir():
            shutil.copytree(p, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        elif p.is_file():
            shutil.copy2(p, src / name)
    # without build isolation when setuptools is at hand (no download of the build backend)
    isolation = ["--no-build-isolation"] if _has_setuptools(py) else []
    step("wheel", [py, "-m", "pip", "wheel", "-q", "--no-deps", *isolation, "-w", wheelhouse, src])
    wheels = sorted(wheelhouse.glob("zconsole-*.whl"))
    if not wheels:
        raise VMError(f"pip wheel made no zconsole wheel in {wheelhouse}")
    step("download", download_wheelhouse(wheelhouse, [wheels[-1]], guest_py, py))
    ssh_cfg = str(inst.ssh_config)
    inst.exec("rm -rf /root/wheelhouse", timeout=60)
    step("copy", ["scp", "-q", "-r", "-F", ssh_cfg, str(wheelhouse), f"{inst.alias}:/root/"])
    has_venv = inst.exec(f"test -x {venv}/bin/python", check=False, timeout=60).returncode == 0
    t0 = time.monotonic()
    if fresh_venv or not has_venv:
        inst.exec(f"rm -rf {venv} && python3 -m venv {venv}", timeout=1200)
    times["venv"] = round(time.monotonic() - t0, 1)
    t0 = time.monotonic()
    # PIP_COMPILE=0, not PIP_NO_COMPILE=1: pip 23.0.1 (Debian 12) reads the latter through
    # strtobool into its store_false option, so "1" means compile on (measured, 2026-12-01)
    env = [] if byte_compile else ["env", "PIP_COMPILE=0"]
    pip = [f"{venv}/bin/pip", "install", "-q", "--no-index", "--find-links", "/root/wheelhouse",
           "zconsole"]
    inst.exec([*env, *pip], timeout=1200)
    inst.exec(["ln", "-sf", f"{venv}/bin/zconsole", "/usr/local/bin/zconsole"], timeout=60)
    times["pip_install"] = round(time.monotonic() - t0, 1)
    if say:
        print(f"[install-zconsole] venv {times['venv']}s, pip install {times['pip_install']}s",
              file=sys.stderr, flush=True)
    times["wheelhouse_files"] = float(len(list(wheelhouse.glob("*.whl"))))
    return times


def _has_setuptools(python: str) -> bool:
    """setuptools that can make wheels (its own bdist_wheel, >= 70.1, or the wheel package)."""
    code = (
        "import setuptools\n"
        "try:\n    import setuptools.command.bdist_wheel\n"
        "except ImportError:\n    import wheel.bdist_wheel\n"
    )
    probe = subprocess.run([python, "-c", code], capture_output=True)
    return probe.returncode == 0


class GuestCommandError(subprocess.CalledProcessError):
    def __str__(self) -> str:
        def tail(s: str | None) -> str:
            s = (s or "").strip()
            return s[-2000:] if s else "(empty)"

        return (
            f"guest command exited {self.returncode}: {self.cmd}\n"
            f"--- stdout:\n{tail(self.stdout)}\n--- stderr:\n{tail(self.stderr)}"
        )


# --------------------------------------------------------------------------- CLI


def parse_bytes(text: str) -> int:
    """'1073741824', '512M', '1G' (powers of 1024) -> bytes."""
    m = re.fullmatch(r"\s*(\d+)\s*([KMG]?)i?B?\s*", text, re.IGNORECASE)
    if m is None:
        raise VMError(f"size {text!r}: want bytes or a K/M/G suffix")
    return int(m.group(1)) * 1024 ** " KMG".index(m.group(2).upper() or " ")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="testvm.py", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--flavour",
            "--flavor",
            choices=sorted(FLAVOURS),
            default="2.3",
            help="2.1, 2.3: busybox guests with OpenZFS; host: a full Debian 12 host (2.3.2)",
        )
        p.add_argument(
            "--run-dir",
            type=Path,
            default=None,
            help="instance run directory (default $ZCONSOLE_VM_RUN_ROOT or /tmp/zconsole-testvm-UID, /zfsNN)",
        )

    p = sub.add_parser("build", help="build (or reuse) the cached guest image")
    common(p)
    p.add_argument(
        "--refresh", action="store_true", help="re-resolve the kernel ABI via apt even if cached"
    )
    p = sub.add_parser("start", help="boot a guest (building it first if needed)")
    common(p)
    p.add_argument("--no-build", action="store_true")
    p.add_argument("--keep-disks", action="store_true", help="reuse existing disk images")
    p.add_argument("--timeout", type=float, default=SSH_READY_TIMEOUT)
    p = sub.add_parser("stop", help="clean shutdown (pools exported), then kill")
    common(p)
    p.add_argument("--timeout", type=float, default=STOP_TIMEOUT)
    p = sub.add_parser("exec", help="run a command in the guest: exec -- CMD ARGS")
    common(p)
    p.add_argument("command", nargs=argparse.REMAINDER)
    p = sub.add_parser("status", help="print instance state as JSON")
    common(p)
    p = sub.add_parser("monitor", help="run a QEMU HMP command, e.g. 'device_del vdd'")
    common(p)
    p.add_argument("command", nargs="+")
    p = sub.add_parser("reset", help="destroy pools, wipe disks, re-plug removed disks")
    common(p)
    p = sub.add_parser(
        "insert-disk",
        help="hot-plug a fresh blank disk (new image, serial and size); reset removes it",
    )
    common(p)
    p.add_argument("name", help="QEMU device id, [a-z][a-z0-9]{0,11}, e.g. new1")
    p.add_argument("size", help="bytes, or with a K/M/G suffix (powers of 1024)")
    p.add_argument("--serial", default=None, help="default: <prefix>-NAME (zfsvm-new1)")
    p = sub.add_parser("reboot", help="host flavour: systemctl reboot, wait for ssh and boot end")
    common(p)
    p = sub.add_parser(
        "install-zconsole",
        help="install zconsole in the guest from a checkout, offline (wheel + wheelhouse, pip)",
    )
    common(p)
    p.add_argument("--checkout", type=Path, default=HERE.parents[1], help="default: this repo")
    p.add_argument("--python", default=sys.executable, help="python whose pip makes the wheels")
    p.add_argument("--fresh-venv", action="store_true",
                   help="make the venv in the guest too (the image has one with the dependencies)")

    args = ap.parse_args(argv)
    flavour = FLAVOURS[args.flavour]
    inst = make_instance(flavour, args.run_dir)
    try:
        if args.cmd == "build":
            t0 = time.monotonic()
            out = build(flavour, refresh=args.refresh)
            print(f"{out}  ({time.monotonic() - t0:.1f}s)")
        elif args.cmd == "start":
            t0 = time.monotonic()
            bdir = find_cached_build(flavour)
            if bdir is None:
                if args.no_build:
                    raise VMError(f"no cached build for {flavour.tag} under {cache_root()}")
                bdir = build(flavour)
            ready = inst.start(bdir, timeout=args.timeout, keep_disks=args.keep_disks)
            print(
                f"READY {flavour.tag}: boot-to-ssh {ready:.1f}s, start total {time.monotonic() - t0:.1f}s"
            )
            if isinstance(inst, HostInstance):
                print(f"  booted: {inst.restore_note}" if inst.restore_note
                      else "  restored from the build's booted snapshot (ZCONSOLE_VM_HOST_RESTORE=0: boot)")
            print(f"  ssh -F {inst.ssh_config} {inst.alias} CMD")
        elif args.cmd == "stop":
            t0 = time.monotonic()
            how = inst.stop(args.timeout)
            print(f"stopped ({how}) in {time.monotonic() - t0:.1f}s")
        elif args.cmd == "exec":
            cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
            if not cmd:
                ap.error("exec needs a command")
            remote = cmd[0] if len(cmd) == 1 else shlex.join(cmd)
            proc = inst.exec(remote, check=False, timeout=None)
            sys.stdout.write(proc.stdout)
            sys.stderr.write(proc.stderr)
            return proc.returncode
        elif args.cmd == "status":
            st = inst.state()
            st.update(
                running=inst.running(),
                run_dir=str(inst.run_dir),
                ssh_config=str(inst.ssh_config),
                cached_build=str(find_cached_build(flavour) or ""),
            )
            print(json.dumps(st, indent=2))
            return 0 if st["running"] else 3
        elif args.cmd == "monitor":
            print(inst.monitor(" ".join(args.command)), end="")
        elif args.cmd == "reset":
            inst.reset()
        elif args.cmd == "insert-disk":
            print(inst.insert_disk(args.name, parse_bytes(args.size), args.serial))
        elif args.cmd == "reboot":
            if not isinstance(inst, HostInstance):
                ap.error("reboot is for --flavour host (the ZFS guests run with -no-reboot)")
            ready = inst.reboot()
            state = inst.wait_booted()
            print(f"back on ssh after {ready:.1f}s; system {state}")
        elif args.cmd == "install-zconsole":
            times = install_zconsole(inst, args.checkout, args.python, fresh_venv=args.fresh_venv)
            print(json.dumps(times))
            print(f"  ssh -F {inst.ssh_config} -t {inst.alias} zconsole")
    except VMError as exc:
        print(f"testvm: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
