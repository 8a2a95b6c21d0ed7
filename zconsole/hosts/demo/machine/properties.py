"""Dataset properties: their defaults (inherited or not), alias names, inheritance, the
mountpoint a filesystem gets, and `zfs set` with ZFS's checks and refusals. How a value is
printed (`zfs get`, `zfs list`) is in `render.zfs`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zconsole.hosts.demo.machine.common import CmdError

if TYPE_CHECKING:
    from zconsole.hosts.demo.machine.datasets import Dataset
    from zconsole.hosts.demo.machine.state import Machine


INHERITABLE_DEFAULTS: dict[str, str] = {
    "compression": "off",
    "atime": "on",
    "relatime": "on",
    "dedup": "off",
    "recordsize": "128K",
    "sync": "standard",
    "checksum": "on",
    "xattr": "on",
    "acltype": "off",
    "copies": "1",
    "readonly": "off",
    "primarycache": "all",
    "secondarycache": "all",
    "logbias": "latency",
    "snapdir": "hidden",
    "redundant_metadata": "all",
    "dnodesize": "legacy",
    "special_small_blocks": "0",
    "devices": "on",
    "exec": "on",
    "setuid": "on",
    "sharenfs": "off",
    "sharesmb": "off",
    "volmode": "default",
    "snapdev": "hidden",
    "overlay": "on",
    "encryption": "off",
    "keylocation": "none",
    "keyformat": "none",
    "pbkdf2iters": "0",
}


NOT_INHERITED: dict[str, str] = {
    "quota": "none",
    "refquota": "none",
    "reservation": "none",
    "refreservation": "none",
    "canmount": "on",
    "filesystem_limit": "none",
    "snapshot_limit": "none",
    "volblocksize": "16K",
}


ALIASES = {"avail": "available", "refer": "referenced", "usedsnap": "usedbysnapshots",
           "usedds": "usedbydataset", "usedchild": "usedbychildren",
           "usedrefreserv": "usedbyrefreservation", "compress": "compression",
           "ratio": "compressratio", "refratio": "refcompressratio", "lused": "logicalused",
           "lrefer": "logicalreferenced", "recsize": "recordsize", "volblock": "volblocksize",
           "reserv": "reservation", "refreserv": "refreservation", "rdonly": "readonly"}


def canonical(prop: str) -> str:
    return ALIASES.get(prop, prop)


def inherited(m: Machine, ds: Dataset, prop: str) -> tuple[str, str]:
    """(value, source) walking up to the pool's root dataset."""
    if prop in ds.props:
        return ds.props[prop], "local"
    cur = ds.parent
    while cur is not None:
        parent = m.datasets.get(cur)
        if parent is not None and prop in parent.props:
            return parent.props[prop], f"inherited from {cur}"
        cur = parent.parent if parent is not None else None
    return INHERITABLE_DEFAULTS[prop], "default"


def mountpoint(m: Machine, ds: Dataset) -> tuple[str, str]:
    """(value, source) of a filesystem's mountpoint: local, inherited from the
    nearest ancestor that sets one (with the rest of the name appended), or
    /POOL/NAME."""
    if "mountpoint" in ds.props:
        return ds.props["mountpoint"], "local"
    cur = ds.parent
    suffix = ds.name.split("/", 1)[1] if "/" in ds.name else ""
    while cur is not None:
        parent = m.datasets.get(cur)
        if parent is not None and "mountpoint" in parent.props:
            rest = ds.name[len(cur) + 1:]
            return parent.props["mountpoint"].rstrip("/") + "/" + rest, f"inherited from {cur}"
        cur = parent.parent if parent is not None else None
    return "/" + ds.pool + ("/" + suffix if suffix else ""), "default"


BOOL_ZFS = {"atime", "relatime", "readonly", "devices", "exec", "setuid", "overlay",
            "canmount"}


RO_ZFS = {"used", "available", "referenced", "compressratio", "refcompressratio", "type",
          "creation", "createtxg", "guid", "origin", "clones", "usedbysnapshots",
          "usedbydataset", "usedbychildren", "usedbyrefreservation", "written", "logicalused",
          "logicalreferenced", "mounted", "objsetid", "snapshot_count", "filesystem_count",
          "version", "utf8only", "normalization", "casesensitivity", "encryption",
          "keystatus", "volblocksize"}


CHOICES_ZFS = {
    "dedup": {"on", "off", "verify", "sha256", "sha256,verify", "sha512", "skein",
              "blake3", "edonr,verify"},
    "compression": {"on", "off", "lz4", "lzjb", "gzip", "zle", "zstd", "zstd-fast"}
    | {f"gzip-{i}" for i in range(1, 10)} | {f"zstd-{i}" for i in range(1, 20)},
    "sync": {"standard", "always", "disabled"},
    "logbias": {"latency", "throughput"},
    "primarycache": {"all", "none", "metadata"},
    "secondarycache": {"all", "none", "metadata"},
    "snapdir": {"hidden", "visible"},
    "xattr": {"on", "off", "sa", "dir"},
    "acltype": {"off", "noacl", "nfsv4", "posix", "posixacl"},
    "checksum": {"on", "off", "fletcher2", "fletcher4", "sha256", "sha512", "skein",
                 "edonr", "blake3", "noparity"},
    "copies": {"1", "2", "3"},
    "redundant_metadata": {"all", "most", "some", "none"},
}


SIZES_ZFS = {"quota", "refquota", "reservation", "refreservation", "volsize",
             "special_small_blocks", "recordsize"}


def zfs_set(m: Machine, name: str, prop: str, val: str) -> None:
    prop = ALIASES.get(prop, prop)
    err = f"cannot set property for '{name}'"
    if "@" in name:
        snap = m.find_snapshot(name)
        if snap is None:
            raise CmdError(1, f"cannot open '{name}': dataset does not exist")
        if ":" not in prop:
            raise CmdError(1, f"{err}: this property can not be modified for snapshots")
        return
    ds = m.datasets.get(name)
    if ds is None:
        raise CmdError(1, f"cannot open '{name}': dataset does not exist")
    if prop in RO_ZFS:
        raise CmdError(1, f"{err}: '{prop}' is readonly")
    if ":" in prop:
        ds.props[prop] = val
        return
    if prop in BOOL_ZFS:
        ok = {"on", "off", "noauto"} if prop == "canmount" else {"on", "off"}
        if val not in ok:
            raise CmdError(1, f"{err}: '{prop}' must be one of '{' | '.join(sorted(ok))}'")
    elif prop in CHOICES_ZFS:
        if val not in CHOICES_ZFS[prop]:
            raise CmdError(1, f"{err}: invalid property value '{val}' for '{prop}'")
    elif prop in SIZES_ZFS:
        if val != "none" and not _is_size(val):
            raise CmdError(1, f"bad numeric value '{val}'")
    elif prop == "mountpoint":
        if not (val.startswith("/") or val in ("none", "legacy")):
            raise CmdError(1, f"{err}: 'mountpoint' must be an absolute path, 'none', or "
                              "'legacy'")
    elif prop not in INHERITABLE_DEFAULTS and prop not in NOT_INHERITED:
        raise CmdError(2, f"cannot set property for '{name}': invalid property '{prop}'")
    if prop == "volsize" and ds.type == "volume":
        ds.volsize = _size(val)
        return
    ds.props[prop] = val
    if ds.type == "filesystem" and prop == "mountpoint":
        ds.mounted = val not in ("none", "legacy")  # zfs unmounts / remounts at once
    if ds.type == "filesystem" and prop == "canmount" and val == "off":
        ds.mounted = False


def size_bytes(v: str) -> int:
    """A size as `zfs set` takes it (`10G`, `1.5T`, `512`) in bytes."""
    return _size(v)


def _is_size(v: str) -> bool:
    try:
        _size(v)
    except ValueError:
        return False
    return True


def _size(v: str) -> int:
    units = {"": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40,
             "P": 1 << 50}
    s = v.upper().rstrip("B") if len(v) > 1 and v.upper().endswith("B") else v.upper()
    num = s.rstrip("KMGTP")
    unit = s[len(num):]
    if not num or unit not in units:
        raise ValueError(v)
    return int(float(num) * units[unit])
