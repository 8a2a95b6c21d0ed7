"""Issue 32: a first `./dev run` printed about 60 lines of setuptools warnings (the licence
as a TOML table, then the editable finder's "careful with folders of the same name"), which
a first-time user reads as "something broke". The editable wheel `./dev` installs is built
here with the backend pyproject.toml names, and nothing it says may be a warning."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_editable_install_builds_without_a_warning(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "zconsole", src / "zconsole",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path / "wheel"
    out.mkdir()
    code = ("import sys; from setuptools import build_meta as b; "
            f"print(b.build_editable({str(out)!r}))")
    done = subprocess.run([sys.executable, "-W", "default", "-c", code], cwd=src,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr
    assert "Warning" not in said and "deprecated" not in said, said
    wheel = out / done.stdout.strip().splitlines()[-1]
    with zipfile.ZipFile(wheel) as z:
        pth = [n for n in z.namelist() if n.endswith(".pth")]
        assert pth, z.namelist()  # a plain path entry, not the import finder's module
        assert z.read(pth[0]).decode().strip() == str(src)
        meta = next(n for n in z.namelist() if n.endswith("METADATA"))
        assert "License-Expression: MIT" in z.read(meta).decode()
