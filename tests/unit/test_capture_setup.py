"""The capture states' setup scripts: one per state in tests/fixtures/capture/setup/, shared by
the OpenZFS versions (tools/capture_fixtures.py writes them; no guest needed here)."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
CAPTURE = REPO / "tests" / "fixtures" / "capture"


@pytest.fixture(scope="module")
def cf() -> ModuleType:
    name = "zconsole_capture_fixtures"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "tools" / "capture_fixtures.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_every_state_directory_links_to_its_shared_script() -> None:
    used = set()
    for link in sorted(CAPTURE.glob("zfs-*/*/setup.sh")):
        assert link.is_symlink(), link
        target = link.resolve()
        assert target == (CAPTURE / "setup" / f"{link.parent.name}.sh").resolve(), link
        used.add(target.name)
    assert used == {p.name for p in (CAPTURE / "setup").glob("*.sh")}


def test_sources_md_is_what_the_tool_writes(cf: ModuleType, tmp_path: Path) -> None:
    copy = tmp_path / "capture"
    shutil.copytree(CAPTURE, copy, symlinks=True)
    cf.write_sources(copy)
    assert (copy / "SOURCES.md").read_text() == (CAPTURE / "SOURCES.md").read_text()


def test_each_version_reads_back_what_it_ran(cf: ModuleType) -> None:
    runs = {
        "2.3.2": "zpool create tank vdb\n# recorded `x` -> guest-zfs-2.3.2-s-x.txt\n"
                 "# frozen at 38.21% done",
        "2.1.11": "zpool create tank vdb\nsync\n# recorded `x` -> guest-zfs-2.1.11-s-x.txt\n"
                  "# frozen at 37.92% done",
    }
    script = cf.merge_setups(runs)
    assert script.startswith(cf.SETUP_HEADER)
    assert script.removeprefix(cf.SETUP_HEADER) == (
        "zpool create tank vdb\n"
        "#[2.1.11] sync\n"
        "# recorded `x` -> guest-zfs-${ZFS_VERSION}-s-x.txt\n"
        "#[2.1.11] # frozen at 37.92% done\n"
        "#[2.3.2] # frozen at 38.21% done\n")
    for version, commands in runs.items():
        assert cf.setup_for(script, version) == commands
    assert cf.setup_for(cf.merge_setups({"2.3.2": runs["2.3.2"]}), "2.3.2") == runs["2.3.2"]


def test_folding_a_new_run_keeps_the_other_versions(cf: ModuleType, tmp_path: Path) -> None:
    for version in ("2.1.11", "2.3.2"):
        (tmp_path / f"zfs-{version}" / "s").mkdir(parents=True)
    cf.write_setup(tmp_path, "s", "2.1.11", "zpool create tank vdb\n# at 1% done")
    cf.write_setup(tmp_path, "s", "2.3.2", "zpool create tank vdb\n# at 2% done")
    cf.write_setup(tmp_path, "s", "2.1.11", "zpool create tank vdb\n# at 3% done")
    for version, pct in (("2.1.11", 3), ("2.3.2", 2)):
        link = tmp_path / f"zfs-{version}" / "s" / "setup.sh"
        assert link.is_symlink() and link.resolve() == (tmp_path / "setup" / "s.sh").resolve()
        assert cf.setup_for(link.read_text(), version) == f"zpool create tank vdb\n# at {pct}% done"
