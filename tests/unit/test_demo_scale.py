"""The demo host stays linear on a big machine (`--demo big1000`): a SMART poll asks smartctl
once per disk, and each answer must not make the machine's indexes again or move a thousand
disks' counters (stop 37's CI: the Pools test of big1000 ran past its 300 s timeout on a
loaded machine; the poll alone was 13 s of CPU here, quadratic in the disks)."""

from __future__ import annotations

from tests.fakes import Clock
from zconsole.hosts.demo.host import DemoHost
from zconsole.hosts.demo.machine import state


def test_smartctl_answers_keep_the_machine_shape() -> None:
    clock = Clock(1_800_000_000.0)
    host = DemoHost("big1000", clock=clock, seed=0)
    machine = host.machine
    host.run(("zpool", "status", "-p"))
    index = machine._names_index()
    disks = sorted(machine.disks)[:50]
    for name in disks:
        clock.t += 0.01
        r = host.run(("smartctl", "--json", "--all", "-n", "standby", f"/dev/{name}"),
                     check=False)
        assert r.stdout.startswith("{"), (name, r)
    assert machine._names_index() is index  # not made again after each answer
    host.run(("zpool", "status", "-p"))
    assert machine._names_index() is not index  # any other program may change the shape


def test_counters_move_in_steps_and_lose_no_time() -> None:
    """Commands a few ms apart do not move every disk's counters; the next step counts the
    whole time since the last one."""
    t0 = 1_800_000_000.0
    small, big = (DemoHost("showcase", clock=Clock(t0), seed=0) for _ in range(2))
    for h in (small, big):
        h.machine.advance(t0)
    start = small.machine.last
    for i in range(1, 10):  # nine commands 10 ms apart
        small.machine.advance(t0 + i * 0.01)
        assert small.machine.last == start
    assert 0.09 < state.INTEGRATE_STEP_S
    small.machine.advance(t0 + 5.0)
    big.machine.advance(t0 + 5.0)
    assert small.machine.last == big.machine.last == t0 + 5.0
    for name, d in big.machine.disks.items():
        assert small.machine.disks[name].io == d.io, name
