"""Where the tests' fixtures are, the one loader of a parser fixture's text, and the one
loader of tools/testvm/testvm.py (a script, not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PARSERS = FIXTURES / "parsers"  # one folder per source: PARSERS / "zpool-status" / NAME
CAPTURES = FIXTURES / "capture"  # ReplayHost captures: CAPTURES / "zfs-VER" / STATE


def parser_text(source: str, name: str) -> str:
    """The text of the parser fixture `tests/fixtures/parsers/SOURCE/NAME`."""
    return (PARSERS / source / name).read_text()


TESTVM_PY = Path(__file__).resolve().parents[1] / "tools" / "testvm" / "testvm.py"


def load_testvm() -> ModuleType:
    """tools/testvm/testvm.py as the module `zconsole_testvm` (loaded once per process)."""
    name = "zconsole_testvm"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, TESTVM_PY)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


INTEGRATION = Path(__file__).resolve().parent / "integration"


def load_integration(name: str) -> ModuleType:
    """A module of the guest tests' harness (tests/integration: `guest_reuse`, `hostvm.guest`)
    as those tests import it: tests/integration is no package, and pytest puts it on sys.path
    for its conftest; a unit test run without it appends it here."""
    if str(INTEGRATION) not in sys.path:
        sys.path.append(str(INTEGRATION))
    return importlib.import_module(name)
