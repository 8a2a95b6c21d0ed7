"""Import hygiene: only the ui imports Textual; model and parsers touch no OS library."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

NON_UI = [
    "zconsole.model",
    "zconsole.parsers",
    "zconsole.hosts",
    "zconsole.hosts.local",
    "zconsole.hosts.ssh",
    "zconsole.hosts.replay",
    "zconsole.services",
]


def _modules_under(package: str) -> list[str]:
    base = ROOT / package.replace(".", "/")
    return sorted(
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for p in base.rglob("*.py")
    )


@pytest.mark.parametrize("layer", ["zconsole.model", "zconsole.parsers", "zconsole.hosts",
                                   "zconsole.services"])
def test_layer_imports_no_textual_at_runtime(layer: str) -> None:
    mods = _modules_under(layer)
    assert mods, f"no modules found under {layer}"
    code = (
        "import importlib, sys\n"
        f"for m in {mods!r}: importlib.import_module(m)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    assert out.stdout.strip() == "", f"{layer} pulled in {out.stdout.strip()}"


def test_model_and_parsers_import_no_os_libraries() -> None:
    mods = _modules_under("zconsole.model") + _modules_under("zconsole.parsers")
    code = (
        "import importlib, sys\n"
        f"for m in {mods!r}: importlib.import_module(m)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('plumbum', 'pyudev', 'psutil', 'textual') or m.startswith('zconsole.hosts'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    assert out.stdout.strip() == ""


# beside this interpreter (a venv's bin/, also when that is not on PATH), else on PATH
LINT_IMPORTS = next((str(p) for p in (Path(sys.executable).parent / "lint-imports",)
                     if p.exists()), shutil.which("lint-imports"))


@pytest.mark.skipif(LINT_IMPORTS is None, reason="import-linter not installed")
def test_import_linter_contracts_hold() -> None:
    assert LINT_IMPORTS is not None
    out = subprocess.run([LINT_IMPORTS, "--no-cache"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
