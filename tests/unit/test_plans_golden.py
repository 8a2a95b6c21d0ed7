"""Plans byte for byte: `zconsole plan ... --dry-run` for every kind, its errors and `--help`;
and the plans the wizards build from their answers (`Flow.build`), printed the same way.

The expected outputs in tests/fixtures/plan_dry_run/ were captured on the commit before the
operation registry (4e06d88) and must not change with refactoring: the printed plan is what an
operator reviews before a wizard runs it. Plan ids and creation times are random and are
replaced by placeholders. To capture them again after a deliberate change of the output:
`PYTHONPATH=. python tests/unit/test_plans_golden.py` (then read the diff).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from pathlib import Path

import pytest

from zconsole.cli.main import main

GOLDEN = Path(__file__).resolve().parent.parent / "fixtures" / "plan_dry_run"

SHOWCASE_A = "ata-HGST_HUS724040ALE640_PN2334PBJ1A2BT"
SHOWCASE_C = "ata-HGST_HUS724040ALE640_PN2334PBJ2C8WT"
DEGRADED_FAULTED = "ata-ST4000VN008-2DR166_ZGY8C3D4"

CASES: dict[str, tuple[str, ...]] = {
    # attach: ready, blocked, needs confirmation (and forced), usage, no such pool
    "attach-2.1": ("--demo", "showcase", "--zfs-version", "2.1", "plan", "attach", "tank",
                   "mirror-1", "sdh", "--dry-run"),
    "attach-2.3": ("--demo", "showcase", "--zfs-version", "2.3", "plan", "attach", "tank",
                   "mirror-1", "sdh", "--dry-run"),
    "attach-leaf": ("--demo", "showcase", "plan", "attach", "fast",
                    "nvme-WD_BLACK_SN770_1TB_22517D801234", "nvme3n1", "--dry-run"),
    "attach-blocked": ("--demo", "showcase", "plan", "attach", "tank", "mirror-0", "sdi",
                       "--dry-run"),
    "attach-confirm": ("--demo", "showcase", "plan", "attach", "tank", "mirror-0", "sdl",
                       "--dry-run"),
    "attach-force": ("--demo", "showcase", "plan", "attach", "tank", "mirror-0", "sdl",
                     "--dry-run", "--force"),
    "attach-json": ("--demo", "showcase", "plan", "attach", "tank", "mirror-1", "sdh",
                    "--dry-run", "--json"),
    "attach-usage": ("--demo", "showcase", "plan", "attach", "tank", "x", "--dry-run"),
    "attach-no-pool": ("--demo", "showcase", "plan", "attach", "nopool", "x", "sdh",
                       "--dry-run"),
    "attach-raidz-target": ("--demo", "showcase", "plan", "attach", "tank", "sdz", "sdh",
                            "--dry-run"),
    # detach
    "detach": ("--demo", "showcase", "plan", "detach", "tank", SHOWCASE_C, "--dry-run"),
    "detach-json": ("--demo", "showcase", "plan", "detach", "tank", SHOWCASE_C, "--dry-run",
                    "--json"),
    "detach-unknown": ("--demo", "showcase", "plan", "detach", "tank", "x", "--dry-run"),
    "detach-degraded-last": ("--demo", "degraded", "plan", "detach", "tank",
                             "ata-ST4000VN008-2DR166_ZGY8A1B2", "--dry-run"),
    "detach-resilvering": ("--demo", "resilvering", "plan", "detach", "tank",
                           "ata-WDC_WD40EFRX-68N32N0_WD-WCC7K3RRRRR9", "--dry-run"),
    "detach-usage": ("--demo", "showcase", "plan", "detach", "tank", "--dry-run"),
    # replace
    "replace-healthy": ("--demo", "showcase", "plan", "replace", "tank", SHOWCASE_A, "sdh",
                        "--dry-run"),
    "replace-faulted-2.1": ("--demo", "degraded", "--zfs-version", "2.1", "plan", "replace",
                            "tank", DEGRADED_FAULTED, "sdg", "--dry-run", "--on-site"),
    "replace-faulted-2.3": ("--demo", "degraded", "--zfs-version", "2.3", "plan", "replace",
                            "tank", DEGRADED_FAULTED, "sdg", "--dry-run"),
    "replace-missing": ("--demo", "degraded", "plan", "replace", "tank",
                        "15712766684991486900", "sdh", "--dry-run", "--on-site", "--force"),
    "replace-unknown": ("--demo", "degraded", "plan", "replace", "tank", "x", "y",
                        "--dry-run"),
    "replace-usage": ("--demo", "degraded", "plan", "replace", "tank", "x", "--dry-run"),
    # replace to grow
    "grow-2.1": ("--demo", "grow", "--zfs-version", "2.1", "plan", "replace-grow", "tank",
                 "mirror-0", "sdc", "sdd", "--dry-run"),
    "grow-2.3": ("--demo", "grow", "--zfs-version", "2.3", "plan", "replace-grow", "tank",
                 "mirror-0", "sdc", "sdd", "--dry-run"),
    "grow-autoexpand-remote": ("--demo", "grow", "plan", "replace-grow", "tank", "mirror-0",
                               "sdc", "sdd", "--expand", "autoexpand", "--remote",
                               "--dry-run"),
    "grow-one-disk": ("--demo", "grow", "plan", "replace-grow", "tank", "mirror-0", "sdc",
                      "--dry-run"),
    "grow-twice": ("--demo", "grow", "plan", "replace-grow", "tank", "mirror-0", "sdc", "sdc",
                   "--dry-run"),
    "grow-unknown-vdev": ("--demo", "grow", "plan", "replace-grow", "tank", "mirror-9", "sdc",
                          "sdd", "--dry-run"),
    "grow-usage": ("--demo", "grow", "plan", "replace-grow", "tank", "mirror-0", "--dry-run"),
    "grow-json": ("--demo", "grow", "plan", "replace-grow", "tank", "mirror-0", "sdc", "sdd",
                  "--dry-run", "--json"),
    # dedup off
    "dedup-off": ("--demo", "dedup", "plan", "dedup-off", "tank", "--dry-run"),
    "advice-compression": ("--demo", "advice", "plan", "advice", "tank", "advice-compression",
                           "--dry-run"),
    "advice-slog-idle": ("--demo", "advice", "--zfs-version", "2.1", "plan", "advice",
                         "scratch", "advice-slog-idle", "--dry-run"),
    "advice-not-advised": ("--demo", "healthy", "plan", "advice", "tank", "advice-atime",
                           "--dry-run"),
    "dedup-off-rewrite-2.1": ("--demo", "dedup", "--zfs-version", "2.1", "plan", "dedup-off",
                              "tank", "--rewrite", "tank/backup", "--dry-run"),
    "dedup-off-rewrite-2.3": ("--demo", "dedup", "--zfs-version", "2.3", "plan", "dedup-off",
                              "tank", "tank/vm", "--rewrite", "tank/vm", "--dry-run"),
    "dedup-off-showcase": ("--demo", "showcase", "plan", "dedup-off", "tank", "tank/vm",
                           "--rewrite", "tank/vm", "--rewrite", "tank/nothing", "--dry-run"),
    "dedup-off-none": ("--demo", "grow", "plan", "dedup-off", "tank", "--dry-run"),
    "dedup-off-bad-dataset": ("--demo", "dedup", "plan", "dedup-off", "tank", "tank/none",
                              "--dry-run"),
    "dedup-off-json": ("--demo", "dedup", "plan", "dedup-off", "tank", "--rewrite",
                       "tank/backup", "--dry-run", "--json"),
    # issue 26, item 5: the cleanup destroys only an old copy the rewrite marked
    "dedup-off-cleanup-not-old": ("--demo", "showcase", "plan", "dedup-off-cleanup", "tank",
                                  "tank/vm/win11", "--dry-run"),
    # replace-failed: the same bay (the bay plan; a disk ZFS lost; the last good copy), a
    # free bay, the same bay after the swap, a hot spare returned or kept
    "replace-failed-same-bay": ("--demo", "degraded", "plan", "replace-failed", "tank",
                                DEGRADED_FAULTED, "--bay", "same", "--dry-run"),
    "replace-failed-same-bay-gone": ("--demo", "degraded", "plan", "replace-failed", "tank",
                                     "15712766684991486900", "--bay", "same", "--dry-run"),
    "replace-failed-same-bay-last-copy": ("--demo", "degraded", "plan", "replace-failed",
                                          "tank", "ata-ST4000VN008-2DR166_ZGY8A1B2", "--bay",
                                          "same", "--dry-run"),
    "replace-failed-free-bay": ("--demo", "degraded", "plan", "replace-failed", "tank",
                                DEGRADED_FAULTED, "sdh", "--after", "clear-scrub",
                                "--dry-run"),
    "replace-failed-same-bay-new": ("--demo", "degraded", "plan", "replace-failed", "tank",
                                    DEGRADED_FAULTED, "sdh", "--bay", "same", "--dry-run"),
    "replace-failed-spare-return": ("--demo", "degraded-spare", "plan", "replace-failed",
                                    "tank", DEGRADED_FAULTED, "sdh", "--dry-run"),
    "replace-failed-spare-keep": ("--demo", "degraded-spare", "plan", "replace-failed",
                                  "tank", DEGRADED_FAULTED, "sdh", "--keep-spare",
                                  "--dry-run"),
    "replace-failed-usage": ("--demo", "degraded", "plan", "replace-failed", "tank",
                             "--dry-run"),
    # the fix-its: the boot held by wait-online (the narrowest fix, the others on request)
    "fix-boot": ("--demo", "slow-boot", "plan", "fix-boot", "--dry-run"),
    "fix-boot-any": ("--demo", "slow-boot", "plan", "fix-boot", "--fix", "wait-online-any",
                     "--dry-run"),
    "fix-boot-interface": ("--demo", "slow-boot", "plan", "fix-boot", "--fix",
                           "wait-online-interface", "--dry-run"),
    "fix-boot-mask": ("--demo", "slow-boot", "plan", "fix-boot", "--fix", "mask",
                      "--dry-run"),
    "fix-boot-ifupdown-blocked": ("--demo", "slow-boot", "plan", "fix-boot", "--fix",
                                  "ifupdown-hotplug", "--dry-run"),
    "fix-boot-healthy": ("--demo", "healthy", "plan", "fix-boot", "--dry-run"),
    # the session setup: a slow user manager's drop-in, a logind that does not answer
    "fix-session-dropin": ("--demo", "slow-session", "plan", "fix-session", "--dry-run"),
    "fix-session-logind": ("--demo", "frozen-logind", "plan", "fix-session", "--dry-run"),
    "fix-session-healthy": ("--demo", "healthy", "plan", "fix-session", "--dry-run"),
    # an authentication method off: for every client, and in a Match block (its line repeated)
    "fix-ssh-auth": ("--demo", "ssh-auth", "plan", "fix-ssh-auth", "--dry-run"),
    "fix-ssh-auth-match": ("--demo", "ssh-auth", "plan", "fix-ssh-auth", "--method",
                           "hostbasedauthentication", "--dry-run"),
    "fix-ssh-auth-healthy": ("--demo", "healthy", "plan", "fix-ssh-auth", "--dry-run"),
    # issue 26, item 9: a Match block requires the method, the journal shows it used
    "fix-ssh-auth-lockout": ("--demo", "ssh-auth-lockout", "plan", "fix-ssh-auth",
                             "--dry-run"),
    "fix-boot-json": ("--demo", "slow-boot", "plan", "fix-boot", "--dry-run", "--json"),
    # a SMART self-test (issue 30): ready, long, blocked (NVMe on smartctl 7.3, in a
    # resilvering pool), usage
    "self-test": ("--demo", "showcase", "plan", "self-test", "sdb", "--dry-run"),
    "self-test-long-json": ("--demo", "showcase", "plan", "self-test", "sda", "--long",
                            "--dry-run", "--json"),
    "self-test-nvme-blocked": ("--demo", "showcase", "plan", "self-test", "nvme2n1",
                               "--dry-run"),
    "self-test-usage": ("--demo", "showcase", "plan", "self-test", "--dry-run"),
    # the command itself
    "no-dry-run": ("--demo", "showcase", "plan", "detach", "tank", "x"),
    "help": ("plan", "--help"),
    "main-help": ("--help",),
    "unknown-kind": ("--demo", "showcase", "plan", "explode", "tank", "--dry-run"),
}


GROW_1 = "ata-WDC_WD10EFRX-68FYTN0_WD-WCC4J1GROW01"
GROW_2 = "ata-WDC_WD10EFRX-68FYTN0_WD-WCC4J1GROW02"

# wizard kind, demo scenario, answers, force
WIZARD_CASES: dict[str, tuple[str, str, dict[str, str], bool]] = {
    "wizard-attach": ("attach", "showcase", {
        "target": "tank\tata-HGST_HUS724040ALE640_PN2334PBJ9M3QT", "disk": "sdh"}, False),
    "wizard-attach-force": ("attach", "showcase", {
        "target": f"tank\t{SHOWCASE_A}", "disk": "sdl"}, True),
    "wizard-detach": ("detach", "showcase", {"member": f"tank\t{SHOWCASE_C}"}, False),
    "wizard-grow": ("replace-grow", "grow", {
        "vdev": "tank\tmirror-0", f"new:{GROW_1}": "sdc", f"new:{GROW_2}": "sdd",
        "expand": "online-e", "site": "on-site"}, False),
    "wizard-grow-reversed-remote": ("replace-grow", "grow", {
        "vdev": "tank\tmirror-0", f"new:{GROW_2}": "sdc", f"new:{GROW_1}": "sdd",
        "expand": "autoexpand", "site": "remote"}, True),
    "wizard-grow-missing-one": ("replace-grow", "grow", {
        "vdev": "tank\tmirror-0", f"new:{GROW_2}": "sdd"}, False),
    "wizard-replace-failed-bay": ("replace-failed", "degraded", {
        "old": f"tank\t{DEGRADED_FAULTED}", "bay": "same", "spare": "return",
        "after": "scrub"}, False),
    "wizard-replace-failed-free": ("replace-failed", "degraded", {
        "old": f"tank\t{DEGRADED_FAULTED}", "bay": "free", "disk": "sdh",
        "after": "clear-scrub"}, False),
    "wizard-dedup-off": ("dedup-off", "dedup", {"pool": "tank", "datasets": "",
                                                  "rewrite": ""}, False),
    "wizard-dedup-off-rewrite": ("dedup-off", "dedup", {
        "pool": "tank", "datasets": "tank/vm\ntank/backup", "rewrite": "tank/backup"}, False),
    "wizard-self-test-long": ("self-test", "showcase", {"disk": "sdb", "test": "long"}, False),
}


def _normalise(text: str) -> str:
    text = re.sub(r"\b[0-9a-f]{32}\b", "<id>", text)
    text = re.sub(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
                  "<boot id>", text)  # the host's boot id (fix-boot records it)
    # a fix-it's backup is named after its plan's id
    text = re.sub(r"/var/backups/zconsole-[0-9a-f]{12}-", "/var/backups/zconsole-<id>-", text)
    # the demo's journal is stamped from the clock (fix-ssh-auth-lockout quotes its lines)
    text = re.sub(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+\+0000\b", "<stamp>", text)
    # the dedup-off rewrite names its snapshot and old copy after the plan's date
    text = re.sub(r"zconsole-(rewrite|dedup-old)-\d{8}\b", r"zconsole-\1-<date>", text)
    return re.sub(r'"created_at": [0-9.e+]+', '"created_at": <time>', text)


def run_case(argv: tuple[str, ...]) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(list(argv))
        except SystemExit as e:  # argparse: --help and usage errors
            rc = e.code if isinstance(e.code, int) else 1
    return _normalise(f"$ zconsole {' '.join(argv)}\nexit {rc}\n--- stdout\n{out.getvalue()}"
                      f"--- stderr\n{err.getvalue()}")


def run_wizard_case(kind: str, scenario: str, answers: dict[str, str], force: bool) -> str:
    from zconsole.cli.commands.plan import render
    from zconsole.hosts.demo import DemoHost
    from zconsole.ui.wizards.flows import FLOWS

    plan = FLOWS[kind]().build(DemoHost(scenario), None, answers, force)
    return _normalise(f"wizard {kind} on {scenario}, force {force}: {answers!r}\n"
                      + render(plan))


@pytest.fixture(autouse=True)
def _fixed_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")  # argparse wraps --help to the terminal width


@pytest.mark.parametrize("name", sorted(CASES))
def test_dry_run_output_is_unchanged(name: str) -> None:
    expected = (GOLDEN / f"{name}.txt").read_text(encoding="utf-8")
    assert run_case(CASES[name]) == expected


@pytest.mark.parametrize("name", sorted(WIZARD_CASES))
def test_wizard_plans_are_unchanged(name: str) -> None:
    expected = (GOLDEN / f"{name}.txt").read_text(encoding="utf-8")
    assert run_wizard_case(*WIZARD_CASES[name]) == expected


def _capture() -> None:
    os.environ["COLUMNS"] = "100"
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name, argv in CASES.items():
        (GOLDEN / f"{name}.txt").write_text(run_case(argv), encoding="utf-8")
        print(f"wrote {name}.txt", file=sys.stderr)
    for name, case in WIZARD_CASES.items():
        (GOLDEN / f"{name}.txt").write_text(run_wizard_case(*case), encoding="utf-8")
        print(f"wrote {name}.txt", file=sys.stderr)


if __name__ == "__main__":
    _capture()
