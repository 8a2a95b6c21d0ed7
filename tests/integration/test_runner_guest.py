"""The plan runner against real OpenZFS in the QEMU guest (both flavours; needs ZCONSOLE_VM=1).

A replace (vdb -> vdf in a mirror) planned by `services.build_replace`, run by
`PlanRunner` in a separate Python process over SSH; that process is killed with SIGKILL in the
middle of the resilver; a new "console" (this test) finds the plan with `find_resumable`,
checks ZFS carried on by itself, and resumes the watch to the end. The audit log is then read
back: one record per executed command, fsynced JSON lines.

Making the resilver slow enough to kill it in the middle (documented here because the
numbers matter):
* ~400 MiB of incompressible data are written to the pool first (/dev/urandom);
* in the guest, /sys/module/zfs/parameters/zfs_scan_vdev_limit is set to 16384 (bytes of scan
  I/O in flight per leaf vdev; default 4 MiB in 2.1 / 16 MiB in 2.3) and
  zfs_resilver_min_time_ms to 1 (default 3000), both restored afterwards;
* QEMU throttles writes to the new disk to 6 MiB/s (HMP
  `block_set_io_throttle drv-vdf 0 0 BPS 0 0 0`, removed afterwards), so the pace does not
  depend on how busy the machine running the guest is.
With all three the resilver of the 400 MiB took 70-75 s in the TCG guest (both flavours,
measured 2026-11-22); the kernel knobs alone were not measured separately.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from conftest import ZfsGuest

pytestmark = pytest.mark.zfsvm

REPO = Path(__file__).resolve().parents[2]
DATA_MIB = 400
THROTTLE_BPS = 6 * 1024 * 1024  # writes to the new disk: 400 MiB take a minute or more
PARAMS = {"zfs_scan_vdev_limit": "16384", "zfs_resilver_min_time_ms": "1"}
RESULTS = Path(os.environ.get("ZCONSOLE_RUNNER_GUEST_REPORT", "/tmp/zconsole-runner-guest"))

CHILD = r"""
import json, sys
from zconsole.hosts.ssh import SshHost
from zconsole.hosts.journal import AuditLog, PlanStore
from zconsole.services.ops.engine.plan_io import plan_from_dict
from zconsole.services.ops.engine.runner import PlanRunner, WaitProgress

ssh_config, state, plan_file = sys.argv[1:4]
with open(plan_file) as f:
    plan = plan_from_dict(json.load(f))
host = SshHost(destination="zfsvm", ssh_config=ssh_config)
runner = PlanRunner(host, plan, audit=AuditLog(state + "/audit.jsonl"),
                    store=PlanStore(state + "/plans"), operator="first-console",
                    poll_interval=1.0)

def on_event(e):
    d = {"type": type(e).__name__}
    if isinstance(e, WaitProgress):
        d.update(percent=e.percent, scanning=e.scanning, detail=e.detail,
                 done=e.done_bytes, total=e.total_bytes, own_eta=e.own_eta_s,
                 zpool_eta=e.zpool_eta_s)
    print(json.dumps(d), flush=True)

res = runner.run(on_event)
print(json.dumps({"type": "result", "status": res.status, "message": res.message}), flush=True)
"""


def _param(g: ZfsGuest, name: str) -> str:
    return g.exec(["cat", f"/sys/module/zfs/parameters/{name}"]).stdout.strip()


def _set_param(g: ZfsGuest, name: str, value: str) -> None:
    g.exec(f"echo {value} > /sys/module/zfs/parameters/{name}")


def _status(g: ZfsGuest) -> str:
    return g.exec(["zpool", "status", "-p", "tank"]).stdout


def test_replace_killed_mid_resilver_then_resumed(clean_guest: ZfsGuest, tmp_path: Path
                                                  ) -> None:
    from zconsole.hosts.journal import AuditLog, PlanStore
    from zconsole.model.plan import StepStatus
    from zconsole.services.ops.engine.plan_io import plan_to_dict
    from zconsole.services.ops.engine.resume import find_resumable
    from zconsole.services.ops.engine.runner import PlanRunner, RunEvent, WaitProgress
    from zconsole.services.ops.zfs.replace import build_replace
    from zconsole.services.read.collect import collect

    g = clean_guest
    times: dict[str, float] = {}
    t0 = time.monotonic()
    g.exec(["zpool", "create", "-f", "tank", "mirror", "vdb", "vdc"])
    g.exec(f"dd if=/dev/urandom of=/tank/blob bs=1M count={DATA_MIB} status=none && sync",
           timeout=900)
    times["write data"] = time.monotonic() - t0

    saved = {k: _param(g, k) for k in PARAMS}
    host = g.host()
    state = tmp_path / "state"
    child: subprocess.Popen[str] | None = None
    try:
        for k, v in PARAMS.items():
            _set_param(g, k, v)
        g.monitor(f"block_set_io_throttle drv-vdf 0 0 {THROTTLE_BPS} 0 0 0")

        snap = collect(host)
        plan = build_replace(snap, "tank", "vdb", "vdf")
        assert not plan.blocked, [c.detail for c in plan.checks if c.blocking]
        assert plan.argv_list()[0] == ("zpool", "replace", "tank", "vdb",
                                       "/dev/disk/by-id/virtio-zfsvm-vdf")
        plan_file = tmp_path / "plan.json"
        plan_file.write_text(json.dumps(plan_to_dict(plan)))

        # --- the first console: runs the plan, killed mid-resilver --------------------------
        t1 = time.monotonic()
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(g.ssh_config), str(state), str(plan_file)],
            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert child.stdout is not None
        seen: list[dict[str, Any]] = []
        killed_at: dict[str, Any] | None = None
        for line in child.stdout:
            ev = json.loads(line)
            seen.append(ev)
            if ev["type"] == "WaitProgress" and ev["scanning"] and (ev["percent"] or 0) > 0 \
                    and len([e for e in seen if e["type"] == "WaitProgress"]) >= 3:
                killed_at = ev
                child.send_signal(signal.SIGKILL)
                break
            if ev["type"] in ("result", "RunFailed"):
                break
        child.wait(30)
        times["first console, until killed"] = time.monotonic() - t1
        assert killed_at is not None, (seen, child.stderr.read() if child.stderr else "")
        assert child.returncode == -signal.SIGKILL
        assert 0 < killed_at["percent"] < 90, killed_at

        # ZFS carried on without the console
        text = _status(g)
        assert "resilver in progress" in text and "replacing-0" in text, text

        # --- the next console: finds it, resumes the watch ----------------------------------
        store = PlanStore(state / "plans")
        found = find_resumable(host, store)
        assert len(found) == 1, store.problems
        res = found[0]
        assert res.plan == plan and res.phase == "wait"
        assert res.plan.steps[res.next_index].wait is not None
        assert res.sentence.startswith(f"{plan.title}: resilver in progress (")
        assert res.sentence.endswith("%), continue watching?")
        assert res.outcomes[0].status is StepStatus.DONE

        events: list[RunEvent] = []
        t2 = time.monotonic()
        runner = PlanRunner(host, res.plan, audit=AuditLog(state / "audit.jsonl"),
                            store=store, operator="second-console", poll_interval=1.0)
        result = runner.run(events.append, start_at=res.next_index, outcomes=res.outcomes)
        times["resumed watch to the end"] = time.monotonic() - t2
        assert result.status == "done", result.message
        progress = [e for e in events if isinstance(e, WaitProgress)]
        assert progress and progress[0].scanning and not progress[-1].scanning
        pcts = [p.percent for p in progress if p.percent is not None]
        assert pcts and pcts[0] >= killed_at["percent"] - 0.5
        assert all(p.total_bytes and p.done_bytes is not None for p in progress if p.scanning)
        own = [p.own_eta_s for p in progress if p.scanning and p.own_eta_s is not None]
        assert own, "zconsole's own ETA never appeared"

        text = _status(g)
        assert "replacing" not in text and "vdb" not in text.split("config:")[1]
        assert "virtio-zfsvm-vdf" in text
        assert store.in_flight() == [] and find_resumable(host, store) == []

        # --- the audit log: every command once, complete JSON lines -------------------------
        raw = (state / "audit.jsonl").read_text()
        assert raw.endswith("\n")
        records = [json.loads(x) for x in raw.splitlines()]
        commands = [r for r in records if r["event"] == "command"]
        assert [c["argv"] for c in commands] == [
            ["zpool", "replace", "tank", "vdb", "/dev/disk/by-id/virtio-zfsvm-vdf"]]
        assert commands[0]["exit_code"] == 0 and commands[0]["operator"] == "first-console"
        assert records[-1]["event"] == "plan-end"
        assert {r["operator"] for r in records} == {"first-console", "second-console"}

        RESULTS.mkdir(parents=True, exist_ok=True)
        report = {"flavour": g.flavour, "times_s": {k: round(v, 1) for k, v in times.items()},
                  "killed_at_percent": killed_at["percent"], "resume_sentence": res.sentence,
                  "progress": [{"elapsed_s": round(p.elapsed_s, 1), "percent": p.percent,
                                "done": p.done_bytes, "total": p.total_bytes,
                                "zpool_eta_s": p.zpool_eta_s, "own_eta_s": p.own_eta_s}
                               for p in progress[::10]],
                  "audit": records}
        (RESULTS / f"zfs{g.flavour.replace('.', '')}.json").write_text(
            json.dumps(report, indent=1))
        print(json.dumps(report["times_s"]), res.sentence)
    finally:
        if child is not None and child.poll() is None:
            child.kill()
            child.wait(10)
        try:
            g.monitor("block_set_io_throttle drv-vdf 0 0 0 0 0 0")
        finally:
            for k, v in saved.items():
                _set_param(g, k, v)
