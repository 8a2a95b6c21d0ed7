"""Evaluate a plan's `Predicate`s against a fresh reading of the host.

The engine knows no domain: a predicate kind is a function registered in `PREDICATES` by the
domain that uses it (`services/ops/zfs/predicates.py` registers vdev_present, no_scan,
pool_property, ...; fix-its will register theirs beside it):

    @predicate_kind("unit_active")
    def unit_active(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
        ...  # read through ev.host (ev.reading(...) to read once per round); raise ReadFailed

A predicate answers (holds?, sentence saying what was seen). A read that fails never counts as
"holds": the function raises `ReadFailed` and the outcome is `unknown`, its sentence says what
could not be read. Domains register when `zconsole.services.ops` is imported (its
`__init__` imports each domain package), so every kind is known before a plan runs.

`Evaluator` evaluates many predicates with one reading per source: `ev.reading(key, read)`
reads at most once until `fresh()` (the runner calls it before every poll); `ev.kept` holds
what a domain keeps for the evaluator's whole life (the ZFS version, resolved paths).
`evaluate(host, predicate)` is the one-off form.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from zconsole.hosts.base import Host
from zconsole.model.plan import Predicate

DEFAULT_TIMEOUT = 30.0

T = TypeVar("T")


@dataclass(frozen=True)
class Outcome:
    """One evaluation. `unknown` is True when the host could not be read: `ok` is then
    False, and nothing may be concluded from it."""

    predicate: Predicate
    ok: bool
    detail: str
    unknown: bool = False


class ReadFailed(Exception):
    """A source could not be read; str() says which and why."""


PredicateFn = Callable[["Evaluator", Predicate], "tuple[bool, str]"]
PREDICATES: dict[str, PredicateFn] = {}

V = TypeVar("V")


def register_in(table: dict[str, V], what: str, names: tuple[str, ...], item: V) -> V:
    """Put `item` in `table` under each of `names`; a name holds one item (the engine's
    tables: predicate kinds here, wait activities in `watch.py`)."""
    for name in names:
        if table.get(name, item) is not item:
            raise ValueError(f"{what} {name!r} is registered twice")
        table[name] = item
    return item


def predicate_kind(*kinds: str) -> Callable[[PredicateFn], PredicateFn]:
    """Register the decorated function for each of `kinds` (a kind has one function)."""
    return lambda fn: register_in(PREDICATES, "predicate kind", kinds, fn)


class Evaluator:
    """Evaluates predicates on one host, reading each source at most once until `fresh()`."""

    def __init__(self, host: Host, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.host = host
        self.timeout = timeout
        self.kept: dict[str, Any] = {}  # a domain's readings for the evaluator's life
        self._round: dict[str, Any] = {}  # readings (or ReadFailed texts) until fresh()

    def fresh(self) -> None:
        """Forget this round's readings: the next evaluation reads the host again."""
        self._round.clear()

    def reading(self, key: str, read: Callable[[], T]) -> T:
        """`read()` at most once per round under `key`; a ReadFailed is remembered too (and
        raised again) until `fresh()`."""
        if key not in self._round:
            try:
                self._round[key] = (True, read())
            except ReadFailed as e:
                self._round[key] = (False, str(e))
        ok, value = self._round[key]
        if not ok:
            raise ReadFailed(value)
        return cast(T, value)

    def check(self, p: Predicate) -> Outcome:
        fn = PREDICATES.get(p.kind)
        if fn is None:
            return Outcome(p, False, f"unknown predicate kind {p.kind!r}: zconsole cannot "
                                     "evaluate it")
        try:
            ok, detail = fn(self, p)
        except ReadFailed as e:
            return Outcome(p, False, str(e), unknown=True)
        except KeyError as e:
            return Outcome(p, False, f"predicate {p.kind} lacks the parameter {e}",
                           unknown=True)
        return Outcome(p, ok, detail)

    def check_all(self, preds: Iterable[Predicate]) -> list[Outcome]:
        return [self.check(p) for p in preds]


def evaluate(host: Host, predicate: Predicate, *, timeout: float = DEFAULT_TIMEOUT
             ) -> tuple[bool, str]:
    """(holds?, what was seen). A failed read is (False, why it could not look)."""
    out = Evaluator(host, timeout=timeout).check(predicate)
    return out.ok, out.detail
