"""The self-test's two predicates (services/ops/smart/watch.py) over one disk in the three
states a look can find it in: no test runs and none is new in the log; a test runs; its
result is new in the log. `self_test_started` holds in the last two (a short test can be
over before the first look), `self_test_logged` only in the last, its sentence the result."""

from __future__ import annotations

from tests.unit.test_runner import SimClock
from zconsole.hosts.demo import DemoHost
from zconsole.model.plan import predicate
from zconsole.services.ops.engine.predicates import evaluate

SDB = "/dev/sdb"  # showcase: the dying disk; its log holds one short test (passed), and the
# next one fails at the LBA its extended test failed at


def looks(host: DemoHost) -> tuple[tuple[bool, str], tuple[bool, str]]:
    """(self_test_started, self_test_logged) of a short test, the one logged entry seen."""
    params = {"device": SDB, "test": "short", "since_hours": "", "seen": "1", "minutes": "2"}
    return (evaluate(host, predicate("self_test_started", "", **params)),
            evaluate(host, predicate("self_test_logged", "", **params)))


def test_started_holds_while_it_runs_and_when_it_is_over_logged_only_when_over() -> None:
    host = DemoHost("showcase", clock=SimClock())
    assert looks(host) == ((False, "no self-test runs and none new in the log"),
                           (False, "no self-test runs and no new result in the log yet"))
    host.run(["smartctl", "-t", "short", SDB])
    (started, running), (logged, still) = looks(host)
    assert started and running.startswith("a self-test runs, ")
    assert (logged, still) == (False, running)
    host.run(["sleep", "180"])  # the drive's 2 minutes pass (the demo moves its clock)
    (started, over), (logged, result) = looks(host)
    assert started and over.startswith("already over: FAILED: Completed: read failure at LBA ")
    assert logged and result.startswith("short self-test FAILED: ")
    assert over.removeprefix("already over: ") == result.removeprefix("short self-test ")
