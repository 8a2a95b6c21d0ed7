"""What an operator's login finds after the README's offline install (wheel + wheelhouse made
on the operator's machine, scp, pip install --no-index): shared by the upgrade install of the
host group (test_hostvm_console.py) and the new-venv install of the host-slow guest
(test_hostvm_console_install.py)."""

from __future__ import annotations

from pathlib import Path

import zconsole

from .guest import HostGuest


def assert_installed_offline(g: HostGuest, venv: str, run_dir: Path) -> None:
    """zconsole of this checkout on PATH from `venv`, installed from the wheelhouse alone (no
    index: the guest has no way out), with its dependencies."""
    out = g.exec("command -v zconsole && zconsole --version").stdout.split()
    assert out[0] == "/usr/local/bin/zconsole"
    assert out[-1] == zconsole.__version__
    assert g.exec("readlink /usr/local/bin/zconsole").stdout.strip() == f"{venv}/bin/zconsole"
    # the wheelhouse is what pip installed from, with no index: psutil's compiled wheel too
    wheels = g.exec("ls /root/wheelhouse").stdout.split()
    assert any(w.startswith("psutil-") and "manylinux" in w for w in wheels), wheels
    assert any(w.startswith(f"zconsole-{zconsole.__version__}-") for w in wheels), wheels
    freeze = g.exec(f"{venv}/bin/pip freeze --all").stdout
    for dist in ("textual", "psutil", "pyudev", "plumbum", "zconsole"):
        assert dist in freeze.lower(), freeze
    # and the guest really has no way out: the install had no index to reach
    assert "restrict=on" in (run_dir / "qemu.cmdline").read_text()
