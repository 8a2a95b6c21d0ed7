"""The read-only command catalogue: exact argv, never shell strings, nothing that writes."""

from __future__ import annotations

import pytest

from zconsole.parsers.zfs_list import DEFAULT_COLUMNS, SNAPSHOT_COLUMNS
from zconsole.services.read import catalogue as C


def test_exact_argv() -> None:
    assert C.zfs_version() == ("zfs", "version")
    assert C.zpool_status(True) == ("zpool", "status", "-j", "--json-int")
    assert C.zpool_status(False) == ("zpool", "status", "-p")
    assert C.zpool_list() == ("zpool", "list", "-H", "-p", "-v")
    assert C.zpool_iostat_latency(2) == ("zpool", "iostat", "-v", "-l", "-H", "-p", "-y", "2", "1")
    assert C.zfs_list_datasets() == ("zfs", "list", "-H", "-p", "-t", "filesystem,volume", "-o",
                                     ",".join(DEFAULT_COLUMNS))
    assert C.zfs_list_snapshots("tank/data") == (
        "zfs", "list", "-H", "-p", "-t", "snapshot", "-d", "1", "-o", ",".join(SNAPSHOT_COLUMNS),
        "tank/data")
    assert C.zpool_get_all("tank") == ("zpool", "get", "-H", "-p", "all", "tank")
    assert C.udevadm_export_db() == ("udevadm", "info", "--export-db")
    assert C.lsblk_json() == (
        "lsblk", "-J", "-b", "-o",
        "NAME,KNAME,PKNAME,TYPE,SIZE,ROTA,LOG-SEC,PHY-SEC,MODEL,SERIAL,WWN,VENDOR,TRAN,FSTYPE,"
        "LABEL,MOUNTPOINT")
    assert C.ARCSTATS == "/proc/spl/kstat/zfs/arcstats"
    assert C.DISKSTATS == "/proc/diskstats"
    assert C.ZFS_MODULE_VERSION == "/sys/module/zfs/version"


def test_dataset_listing_never_lists_all_snapshots() -> None:
    argv = C.zfs_list_datasets()
    assert argv[argv.index("-t") + 1] == "filesystem,volume"
    snaps = C.zfs_list_snapshots("tank")
    assert snaps[snaps.index("-d") + 1] == "1"


def test_catalogue_is_read_only_argv_tuples() -> None:
    cmds = C.read_only_commands(pools=["tank"], datasets=["tank/data"])
    assert all(isinstance(c.argv, tuple) and not c.writes for c in cmds)
    assert all(C.is_read_only(c.argv) for c in cmds)
    assert all(C.is_read_only(c.argv) for c in C.READ_ONLY_COMMANDS)
    # both status forms are in the fixed catalogue the capture tool iterates
    argvs = {c.argv for c in C.READ_ONLY_COMMANDS}
    assert C.zpool_status(True) in argvs and C.zpool_status(False) in argvs
    assert {f.path for f in C.READ_ONLY_FILES} >= {C.ARCSTATS, C.DISKSTATS,
                                                    C.ZFS_MODULE_VERSION}


@pytest.mark.parametrize("argv", [
    ("zpool", "destroy", "tank"),
    ("zfs", "destroy", "-r", "tank"),
    ("zpool", "get", "-H", "-p", "all", "-o"),
    ("zpool", "iostat", "-v", "-l", "-H", "-p", "-y", "0", "1"),
    ("zfs", "list", "-H", "-p", "-t", "snapshot", "-o", "name"),
])
def test_is_read_only_refuses_anything_else(argv: tuple[str, ...]) -> None:
    assert not C.is_read_only(argv)


@pytest.mark.parametrize("name", ["", "-r", "--all"])
def test_option_like_names_are_refused(name: str) -> None:
    with pytest.raises(ValueError):
        C.zpool_get_all(name)
    with pytest.raises(ValueError):
        C.zfs_list_snapshots(name)


def test_iostat_interval_must_be_positive() -> None:
    with pytest.raises(ValueError):
        C.zpool_iostat_latency(0)


def test_snapshot_name_scan_is_in_the_read_only_catalogue() -> None:
    from zconsole.services.read import catalogue as C

    argv = C.zfs_list_snapshot_names(["tank/a", "tank/b"])
    assert argv[-2:] == ("tank/a", "tank/b") and "used" not in argv[9]
    assert C.is_read_only(argv)
    assert not C.is_read_only(("zfs", "destroy", "-r", "tank/a"))
    import pytest

    with pytest.raises(ValueError):
        C.zfs_list_snapshot_names(["-r"])
