"""Issue 12 on real OpenZFS (each same-bay replace on one flavour, the expansion on both), through
the screens: the on-site replace of a failed disk, with the operator's hands played by QEMU hot-
plug (tools/testvm: `device_del` to pull a disk, `replug` to put it back, `insert_disk` for a
fresh disk with a serial and a size the guest never saw), and the raidz expansion of the attach
wizard (2.3; 2.1 says it cannot).

Pilot drives `ZConsoleApp(guest.host(), ...)` over the guest's SshHost as an operator would:
the Pools screen, the cursor on the failed leaf, `r`, the answers, the typed serials. Every
sentence the screen says is asserted, and what ZFS did is asserted with `zpool status` in the
guest. Guest time is kept small (1 GiB disks, tens of MiB of data). Needs ZCONSOLE_VM=1.

The guest's pool disks are vdb..vde (1 GiB) and vdf, vdg (2 GiB), serials zfsvm-<name>, by-id
virtio-zfsvm-<name>; the pools are made of by-id names, as on a real host. A fresh disk takes
the lowest free kernel name, so the new disk in vdc's bay is /dev/vdc again, with another serial.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from textual.widgets import Static
from vmguest import ONE_FLOW, until

from tests.ui.test_hostile_host import screen_text
from tests.ui.test_wizards import body_text
from zconsole.model.pool import ScanState
from zconsole.parsers.zpool_status import parse_zpool_status
from zconsole.parsers.zpool_status_json import parse_zpool_status_json
from zconsole.services import fmt
from zconsole.ui.app import ZConsoleApp
from zconsole.ui.screens.pools.pool_block import PoolBlock
from zconsole.ui.wizards.phases.base import Phase
from zconsole.ui.wizards.resume import ResumeScreen
from zconsole.ui.wizards.screen import WizardScreen

if TYPE_CHECKING:
    from conftest import ZfsGuest

pytestmark = pytest.mark.zfsvm

BY_ID = "/dev/disk/by-id/virtio-zfsvm-"
GiB = 1024**3
PARAMS = "/sys/module/zfs/parameters/"


# --------------------------------------------------------------------------- the console




def console(g: ZfsGuest, state: Path) -> ZConsoleApp:
    app = ZConsoleApp(g.host(), refresh_interval=3600, state_directory=str(state))
    app.wizard_poll_interval = 0.5  # type: ignore[attr-defined]
    return app


def progress(screen: WizardScreen) -> str:
    return str(screen.query_one("#wz-progress-text", Static).render())


def operator_text(screen: WizardScreen) -> str:
    return str(screen.query_one("#wz-operator", Static).render())


def audit(state: Path) -> list[dict[str, Any]]:
    path = state / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def commands(state: Path) -> list[list[str]]:
    return [r["argv"] for r in audit(state) if r["event"] == "command" and r["writes"]]


async def first_refresh(app: ZConsoleApp, pilot: Any) -> None:
    await until(pilot, lambda: app.reading is not None and app.refresh_started is None,
                "the first refresh")
    await pilot.pause(0.3)


async def cursor_to(app: ZConsoleApp, pilot: Any, pool: str, key: str) -> None:
    """The Pools screen's cursor on the row `key` of `pool`'s table."""
    block = next((b for b in app.screen.query(PoolBlock) if b.pool_name == pool), None)
    assert block is not None, (pool, app.reading.pool_status if app.reading else None,
                               app.session.last_error)
    block.table.focus()
    await pilot.pause()
    for _ in range(12):
        if block.table.cursor_key == key:
            return
        await pilot.press("down")
    raise AssertionError(f"no row {key} in {pool}: at {block.table.cursor_key}")


async def wizard_on(app: ZConsoleApp, pilot: Any, pool: str, row: str, key: str
                    ) -> WizardScreen:
    """The cursor on `row` of `pool`'s table, `key` pressed: the wizard it opens."""
    await cursor_to(app, pilot, pool, row)
    await pilot.press(key)
    await until(pilot, lambda: isinstance(app.screen, WizardScreen), "the wizard")
    screen = app.screen
    assert isinstance(screen, WizardScreen)
    return screen


async def asked(pilot: Any, screen: WizardScreen, key: str) -> None:
    await until(pilot, lambda: screen.phase is Phase.CHOOSE and screen.stage is not None
                and screen.stage.key == key, f"the question {key!r}")


async def previewed(pilot: Any, screen: WizardScreen, title: str) -> None:
    await until(pilot, lambda: screen.phase is Phase.PREVIEW and screen.plan is not None
                and title in screen.plan.title, f"the preview of {title!r}")


async def typed(pilot: Any, screen: WizardScreen, serial: str) -> None:
    """Enter on the preview, then the typed confirmation (a wrong word first: refused)."""
    await pilot.press("enter")
    assert screen.phase is Phase.CONFIRM, screen.phase
    assert screen.pending[0].expected == serial, screen.pending[0]
    await pilot.press(*"wrong", "enter")
    assert screen.phase is Phase.CONFIRM and screen.runner is None
    await pilot.press(*serial, "enter")


# ------------------------------------------------------------------------------ the guest


def status(g: ZfsGuest, pool: str) -> str:
    return g.exec(["zpool", "status", pool]).stdout


def pool_now(g: ZfsGuest, pool: str) -> Any:
    """`zpool status` as the console parses it on this version (JSON on 2.3, text on 2.1)."""
    if g.flavour == "2.3":
        (p,) = parse_zpool_status_json(
            g.exec(["zpool", "status", "-j", "--json-int", "-p", pool]).stdout)
    else:
        (p,) = parse_zpool_status(g.exec(["zpool", "status", "-p", pool]).stdout)
    return p


def gone_in_guest(g: ZfsGuest, name: str, serial: str) -> None:
    """Pull: `device_del` the QEMU device and wait until the guest let the disk go."""
    g.monitor(f"device_del {name}")
    deadline = time.monotonic() + 120
    while g.exec(["test", "-e", f"/dev/disk/by-id/virtio-{serial}"], check=False).returncode == 0:
        assert time.monotonic() < deadline, f"{serial} still in the guest 120 s after device_del"
        time.sleep(0.3)


def write(g: ZfsGuest, pool: str, mib: int, name: str = "blob") -> None:
    g.exec(f"dd if=/dev/urandom of=/{pool}/{name} bs=1M count={mib} status=none && sync",
           timeout=300)


def unlabelled(g: ZfsGuest, by_id: str) -> bool:
    """Nothing was written: no ZFS label, no partition table, no signature."""
    labels = g.exec(["zdb", "-l", by_id], check=False)
    sigs = g.exec(["wipefs", "-n", "-O", "TYPE", "--noheadings", by_id]).stdout.strip()
    return "LABEL 0" not in labels.stdout and "pool_guid" not in labels.stdout and not sigs


def timed(label: str, t0: float) -> None:
    print(f"\n{label}: {time.monotonic() - t0:.1f} s", flush=True)


# --------------------------------------------------------- 1. a mirror, the same bay


@pytest.mark.zfs_flavours("2.3", why=ONE_FLOW)
async def test_same_bay_replace_of_a_faulted_mirror_member(clean_guest: ZfsGuest,
                                                           tmp_path: Path) -> None:
    """A 3-way mirror whose vdc went bad for real (overwritten while exported: 255 checksum
    errors in the scrub) and was faulted as zed would (`zpool offline -f`: FAULTED); the same
    bay through the screens: offline, the activity blink (no ledmon in the guest), the wrong
    disk pulled and put back, a disk too small refused, the console killed while it waits for
    the new disk and resumed, the typed serial, the resilver and the scrub (the default:
    vdd's checksum counters, evidence of another disk's trouble, are never cleared by the
    replace; issue 26)."""
    g, pool, t0 = clean_guest, "zcrep", time.monotonic()
    old = "virtio-zfsvm-vdc"
    g.exec(["zpool", "create", "-f", "-O", "compression=off", pool, "mirror",
            f"{BY_ID}vdb", f"{BY_ID}vdc", f"{BY_ID}vdd"])
    write(g, pool, 32)
    g.exec(["zpool", "export", pool])
    # the failure: vdc's data area overwritten (its labels kept: the first 4 MiB and the last
    # MiB of the partition), and 1 MiB in every 8 of vdd's (the counters a clear resets
    # afterwards), found by a scrub; vdb holds every copy
    g.exec("dd if=/dev/zero of=/dev/vdc1 bs=1M seek=4 count=1000 oflag=direct status=none")
    g.exec("for i in $(seq 4 8 1000); do dd if=/dev/zero of=/dev/vdd1 bs=1M seek=$i count=1 "
           "oflag=direct status=none; done")
    g.exec(["zpool", "import", "-d", "/dev/disk/by-id", pool])
    g.exec(["zpool", "scrub", "-w", pool], timeout=300)
    g.exec(["zpool", "offline", "-f", pool, old])  # zed's "too many errors", as zed does it
    before = status(g, pool)
    assert re.search(rf"{old}\s+FAULTED\s+0\s+0\s+\d+", before), before
    assert re.search(r"virtio-zfsvm-vdd\s+ONLINE\s+0\s+0\s+[1-9]", before), before

    state = tmp_path
    app = console(g, state)
    async with app.run_test(size=(120, 40)) as pilot:
        await first_refresh(app, pilot)
        screen = await wizard_on(app, pilot, pool, f"{pool}:vdevs:mirror-0/{old}", "r")
        assert screen.chosen["old"] == f"{pool}\t{old}"  # the cursor's disk, not asked again
        await asked(pilot, screen, "bay")
        assert screen.stage is not None
        same = next(o for o in screen.stage.options if o.value == "same")
        assert "zpool offline" in same.detail, same
        screen.choose("same")
        await asked(pilot, screen, "after")
        assert screen.stage is not None
        first = screen.stage.options[0]
        assert first.value == "scrub", first  # the default touches no counter
        others = next(o for o in screen.stage.options if o.value == "clear-others-scrub")
        assert "virtio-zfsvm-vdd" in others.detail, others  # offered, with its evidence
        screen.choose("scrub")
        await previewed(pilot, screen, "step 1 of 2")
        text = body_text(screen)
        assert f"zpool offline {pool} {old}" in text, text
        assert "While the bay is empty" in text
        assert "ledctl is not installed" in text  # the locate method, said as a check
        await typed(pilot, screen, "zfsvm-vdc")  # the serial of the disk to pull
        await until(pilot, lambda: screen.operator_step is not None, "the find step")
        op = operator_text(screen)
        # the locate method: the activity blink (no ledmon in the guest), and where it is
        assert "serial zfsvm-vdc" in op and "Press i to make its activity LED blink" in op, op
        assert f"dd if={BY_ID}vdc of=/dev/null" in body_text(screen)
        # locate: i makes the disk's activity LED blink (steady reads, read-only)
        await pilot.press("i")
        await until(pilot, lambda: "identify finished" in body_text(screen), "the blink", 300)
        assert "identify finished" in body_text(screen) and "(exit 0)" in body_text(screen)
        await pilot.press("o")
        await until(pilot, lambda: "Waiting for vdc with serial zfsvm-vdc to be pulled"
                    in progress(screen), "the watch")
        assert commands(state) == [["zpool", "offline", pool, old]]
        after_offline = status(g, pool)
        # OpenZFS shows the fault over the offline (vdev_open checks the fault first)
        assert re.search(rf"{old}\s+(OFFLINE|FAULTED)", after_offline), after_offline

        # the wrong disk: vdb, a healthy member, is pulled instead
        gone_in_guest(g, "vdb", "zfsvm-vdb")
        await until(pilot, lambda: "WRONG DISK" in progress(screen), "the alarm")
        said = progress(screen)
        assert "serial zfsvm-vdb" in said and "Put it back" in said, said
        back = f"zpool online {pool} virtio-zfsvm-vdb"
        assert back in said, said
        assert "WRONG DISK" in body_text(screen)
        assert screen.phase is Phase.RUN and len(commands(state)) == 1  # nothing else done
        # the way back, as the screen says: put it back, then zpool online
        g.replug("vdb")
        g.exec(["udevadm", "settle"])
        g.exec(back.split())
        await until(pilot, lambda: "WRONG DISK" not in progress(screen)
                    and "Waiting for vdc" in progress(screen), "the alarm to end")

        # the right disk
        gone_in_guest(g, "vdc", "zfsvm-vdc")
        await until(pilot, lambda: "vdc with serial zfsvm-vdc is gone" in progress(screen)
                    and "Insert the new disk" in progress(screen), "the pull seen")
        # a new disk too small: refused with the reason, nothing written to it
        small = g.insert_disk("small", GiB // 2)
        await until(pilot, lambda: "REFUSED" in progress(screen), "the refusal")
        said = progress(screen)
        # (its kernel name is whichever was free: vdb came back as another vdX)
        assert re.search(r"A new disk appeared: vd[a-z]+, [^,]+, serial zfsvm-small", said), said
        assert "too small" in said and "nothing was written to it" in said, said
        assert screen.phase is Phase.RUN and len(commands(state)) == 1
        assert unlabelled(g, small)
        gone_in_guest(g, "small", "zfsvm-small")
        await until(pilot, lambda: "REFUSED" not in progress(screen)
                    and "Insert the new disk" in progress(screen), "waiting for the new disk")
    # the console is killed while it waits for the new disk: the plan stays in flight
    print(f"\n[mirror {g.flavour}] console killed while waiting, at "
          f"{time.monotonic() - t0:.1f} s", flush=True)

    app2 = console(g, state)
    async with app2.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app2.screen, ResumeScreen)
                    and bool(app2.screen.query(Static)), "the resume offer")
        await pilot.pause(0.1)
        offer = " ".join(str(w.render()) for w in app2.screen.query(Static))
        assert "1 operation in flight on this host" in offer, offer
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app2.screen, WizardScreen), "the wizard")
        w = app2.screen
        assert isinstance(w, WizardScreen)
        await previewed(pilot, w, "step 1 of 2")
        text = body_text(w)
        assert "Resuming:" in text and "zfsvm-vdc is gone" in text, text
        await pilot.press("enter")  # the offline ran already: not asked, not run again
        await until(pilot, lambda: "Insert the new disk" in progress(w), "watching again")
        new = g.insert_disk("new1", GiB)
        await previewed(pilot, w, "step 2 of 2")
        text = body_text(w)
        assert f"zpool replace {pool} {old} {new}" in text, text
        assert "zpool clear" not in text and f"zpool scrub {pool}" in text, text
        await typed(pilot, w, "zfsvm-new1")  # the new disk's serial
        await until(pilot, lambda: w.phase is Phase.RESULT, "the result", 900)
        text = body_text(w)
        assert "✔ Done." in text, text

    final = pool_now(g, pool)
    out = status(g, pool)
    leaves = {v.name: v.state for _, _, v in final.walk() if v.is_leaf}
    assert leaves == {"virtio-zfsvm-vdb": "ONLINE", "virtio-zfsvm-new1": "ONLINE",
                      "virtio-zfsvm-vdd": "ONLINE"}, out
    assert final.state == "ONLINE" and "replacing" not in out, out
    assert "scrub repaired 0B" in out and "with 0 errors" in out, out
    # vdd's checksum errors from the first scrub are still counted: nobody chose to clear them
    assert re.search(r"virtio-zfsvm-vdd\s+ONLINE\s+0\s+0\s+[1-9]", out), out
    runs = audit(state)
    assert commands(state) == [
        ["zpool", "offline", pool, old],
        ["zpool", "replace", pool, old, new],
        ["zpool", "scrub", pool],
    ]
    assert all(r["exit_code"] == 0 for r in runs if r["event"] == "command")
    # resumed, never restarted: one plan-start per plan, a plan-continue after the restart
    starts = [r["plan_id"] for r in runs if r["event"] == "plan-start"]
    assert len(starts) == len(set(starts)) == 2, starts
    bay_id = starts[0]
    assert [r["start_at"] for r in runs if r["event"] == "plan-continue"
            and r["plan_id"] == bay_id][-1] > 0
    print(f"[mirror {g.flavour}] audit log: {state / 'audit.jsonl'}")
    timed(f"[mirror {g.flavour}] same-bay replace through the screens", t0)


# ----------------------------------------------------- 2. a raidz2 and its hot spare


@pytest.mark.zfs_flavours("2.1", why=ONE_FLOW)
async def test_same_bay_replace_with_a_spare_in_use(clean_guest: ZfsGuest,
                                                    tmp_path: Path) -> None:
    """A raidz2 with a hot spare: vdd is pulled for real (REMOVED at the next write) and the
    spare put in by hand (`zpool replace POOL OLD SPARE`: INUSE); the same bay through the
    screens (ZFS lost the disk: no offline, found by elimination), the new disk in vdd's bay,
    and the spare back to AVAIL."""
    g, pool, t0 = clean_guest, "zcrz", time.monotonic()
    old, spare = "virtio-zfsvm-vdd", "virtio-zfsvm-vdf"
    g.exec(["zpool", "create", "-f", "-O", "compression=off", pool, "raidz2",
            *(f"{BY_ID}{d}" for d in ("vdb", "vdc", "vdd", "vde")), "spare", f"{BY_ID}vdf"])
    write(g, pool, 24)
    gone_in_guest(g, "vdd", "zfsvm-vdd")
    write(g, pool, 8, "more")  # ZFS notices at the next write
    deadline = time.monotonic() + 120
    while not re.search(rf"{old}\s+(REMOVED|UNAVAIL|FAULTED)", status(g, pool)):
        assert time.monotonic() < deadline, status(g, pool)
        write(g, pool, 1, "poke")
    g.exec(["zpool", "replace", pool, old, f"/dev/disk/by-id/{spare}"])
    g.exec(["zpool", "wait", "-t", "resilver", pool], timeout=600)
    before = status(g, pool)
    assert re.search(rf"{spare}\s+INUSE", before), before

    state = tmp_path
    app = console(g, state)
    async with app.run_test(size=(120, 40)) as pilot:
        await first_refresh(app, pilot)
        block = next(b for b in app.screen.query(PoolBlock) if b.pool_name == pool)
        key = next(str(k.value) for k in block.table.rows if str(k.value).endswith(f"/{old}"))
        screen = await wizard_on(app, pilot, pool, key, "r")
        assert screen.chosen["old"] == f"{pool}\t{old}"
        await asked(pilot, screen, "bay")
        screen.choose("same")
        await asked(pilot, screen, "spare")
        assert screen.stage is not None and "virtio-zfsvm-vdf" in screen.stage.question
        screen.choose("return")
        await asked(pilot, screen, "after")
        screen.choose("scrub")
        await previewed(pilot, screen, "step 1 of 2")
        text = body_text(screen)
        assert "zpool offline" not in text  # ZFS lost it already
        assert "find it by elimination" in text, text
        await pilot.press("enter")  # no command in the bay plan: nothing to confirm
        await until(pilot, lambda: screen.operator_step is not None, "the find step")
        op = operator_text(screen)
        assert "Find the missing disk (its old name ends in serial zfsvm-vdd)" in op, op
        # every other disk in the machine stays, the SMART disks (tools/testvm: an ATA disk
        # on AHCI, an NVMe disk) and the scratch disk too: the operator tells the missing one
        # by a serial absent from this list, so it names all of them, pool member or not
        assert ("Find it by elimination: these serials stay in the machine: zfsvm-nvme0, "
                "zfsvm-sata0, zfsvm-scratch, zfsvm-vdb, zfsvm-vdc, zfsvm-vde, zfsvm-vdf, "
                "zfsvm-vdg.") in op, op
        await pilot.press("o")
        await until(pilot, lambda: "Insert the new disk" in progress(screen), "the watch")
        new = g.insert_disk("new2", GiB)  # in vdd's bay: the guest names it vdd again
        await until(pilot, lambda: "A new disk appeared: vdd" in body_text(screen)
                    or "step 2 of 2" in (screen.plan.title if screen.plan else ""),
                    "the new disk seen")
        await previewed(pilot, screen, "step 2 of 2")
        text = body_text(screen)
        assert f"zpool replace {pool} {old} {new}" in text, text
        assert "goes back to the spares (AVAIL)" in text, text
        await typed(pilot, screen, "zfsvm-new2")
        await until(pilot, lambda: screen.phase is Phase.RESULT, "the result", 900)
        text = body_text(screen)
        assert "✔ Done." in text and f"{spare} is an AVAIL spare again" in text, text

    out = status(g, pool)
    assert re.search(rf"{spare}\s+AVAIL", out) and old not in out, out
    final = pool_now(g, pool)
    leaves = {v.name: v.state for _, _, v in final.walk() if v.is_leaf}
    assert leaves["virtio-zfsvm-new2"] == "ONLINE" and final.state == "ONLINE", out
    assert "scrub repaired 0B" in out and "with 0 errors" in out, out
    assert commands(state) == [["zpool", "replace", pool, old, new], ["zpool", "scrub", pool]]
    timed(f"[raidz2 {g.flavour}] same-bay replace, spare back to AVAIL", t0)


# ------------------------------------------------- 3. raidz expansion (attach wizard)


async def test_raidz_expansion_through_the_attach_wizard(clean_guest: ZfsGuest,
                                                         tmp_path: Path) -> None:
    """2.3: `a` on a raidz1, the expansion's progress on the wizard's screen as `zpool status`
    says it (held still with raidz_expand_max_reflow_bytes), to the end. 2.1: the wizard says
    the version cannot."""
    g, pool, t0 = clean_guest, "zcexp", time.monotonic()
    g.exec(["zpool", "create", "-f", "-O", "compression=off", pool, "raidz1",
            *(f"{BY_ID}{d}" for d in ("vdb", "vdc", "vdd"))])
    app = console(g, tmp_path)
    if g.flavour == "2.3":
        write(g, pool, 32)
        # the expansion stops after 8 MiB reflowed, until the parameter is 0 again
        g.exec(f"echo {8 * 1024**2} > {PARAMS}raidz_expand_max_reflow_bytes")
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await first_refresh(app, pilot)
            screen = await wizard_on(app, pilot, pool, f"{pool}:vdevs:raidz1-0", "a")
            await asked(pilot, screen, "target")
            assert screen.stage is not None
            opt = next(o for o in screen.stage.options if "raidz1-0" in o.label)
            assert "raidz expansion, 3 disks → 4" in opt.label, opt
            if g.flavour != "2.3":
                assert not opt.enabled
                assert opt.detail == "raidz expansion needs OpenZFS 2.3 (this host: 2.1.11)"
                shown = screen_text(app)  # what the terminal shows: the option, greyed
                assert "raidz expansion, 3 disks → 4" in shown, shown
                assert "raidz expansion needs OpenZFS 2.3 (this host: 2.1.11)" in shown, shown
                timed(f"[expand {g.flavour}] the wizard says 2.1 cannot", t0)
                return
            assert opt.enabled and "one expansion at a time" in opt.detail
            screen.choose(opt.value)
            await asked(pilot, screen, "disk")
            assert screen.stage is not None
            assert screen.stage.options[0].value == "vde", screen.stage.options
            screen.choose("vde")
            await until(pilot, lambda: screen.phase is Phase.PREVIEW, "the preview", 120)
            argv = ("zpool", "attach", pool, "raidz1-0", f"{BY_ID}vde")
            assert screen.plan is not None and screen.plan.argv_list() == [argv]
            text = body_text(screen)
            assert " ".join(argv) in text and "data-to-parity ratio" in text, text
            await typed(pilot, screen, "zfsvm-vde")
            # held: the figure on the screen is the one of `zpool status` in the same moment
            await until(pilot, lambda: progress(screen).startswith("expand "),
                        "the expansion on screen", 300)
            held, exp = None, None
            for _ in range(120):
                exp = pool_now(g, pool).expand
                pct = exp.percent_done if exp is not None else None
                if pct is not None and pct == held and \
                        progress(screen).startswith(f"expand {pct:.1f}%"):
                    break
                held = pct
                await pilot.pause(2)
            else:
                raise AssertionError(f"never held: {status(g, pool)} / {progress(screen)}")
            assert exp is not None and held is not None
            said = progress(screen)
            line = next(x for x in status(g, pool).splitlines() if "% done" in x)
            print(f"\n[expand 2.3] screen: {said!r}\n[expand 2.3] zpool status: {line.strip()!r}")
            # the same figures: percent, bytes copied of the total (zpool's own words)
            assert f"{held:.2f}% done" in line, line
            assert said.startswith(f"expand {held:.1f}% · "
                                   f"{fmt.size(exp.copied_bytes, short=True)} of "
                                   f"{fmt.size(exp.total_bytes, short=True)}"), said
            g.exec(f"echo 0 > {PARAMS}raidz_expand_max_reflow_bytes")
            await until(pilot, lambda: screen.phase is Phase.RESULT, "the result", 900)
            assert "✔ Done." in body_text(screen), body_text(screen)
    finally:
        if g.flavour == "2.3":
            g.exec(f"echo 0 > {PARAMS}raidz_expand_max_reflow_bytes", check=False)
    out = status(g, pool)
    assert "expanded raidz1-0" in out or "expand: expansion of raidz1-0" in out, out
    p = pool_now(g, pool)
    assert p.expand is not None and p.expand.state is ScanState.FINISHED, p.expand
    assert "virtio-zfsvm-vde" in out
    timed(f"[expand {g.flavour}] raidz expansion through the attach wizard", t0)
