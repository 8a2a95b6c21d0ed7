"""The demo machines: one module per scenario, each with `DESCRIPTION`, `ORDER` (its place
in `--demo list`) and `build(seed, now) -> Machine`; what they share is in `_builder`.

To add a scenario, copy the closest one (say `degraded.py`) to a new module here: every
module whose name does not start with `_` is loaded, named after its file (or its `NAME`).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable

from zconsole.hosts.demo.machine import Machine, zlog
from zconsole.hosts.demo.scenarios._builder import mark_dedup_owners

Build = Callable[[int, float], Machine]


def _load() -> tuple[dict[str, str], dict[str, Build]]:
    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        found.append((module.ORDER, getattr(module, "NAME", info.name), module))
    found.sort(key=lambda f: (f[0], f[1]))
    descriptions: dict[str, str] = {}
    builders: dict[str, Build] = {}
    for _, name, module in found:
        if name in builders:
            raise RuntimeError(f"demo scenario {name!r} is defined twice")
        descriptions[name] = module.DESCRIPTION
        builders[name] = module.build
    return descriptions, builders


SCENARIOS, BUILDERS = _load()
"""Scenario name -> one-line description, and name -> builder, in menu order."""


def list_scenarios() -> list[tuple[str, str]]:
    return list(SCENARIOS.items())


def build(scenario: str, seed: int, now: float, zfs_version: str = "2.3") -> Machine:
    try:
        builder = BUILDERS[scenario]
    except KeyError:
        raise ValueError(
            f"unknown demo scenario {scenario!r}; choose one of: {', '.join(SCENARIOS)}"
        ) from None
    m = builder(seed, now)
    mark_dedup_owners(m)
    zlog.backfill(m, now, zfs_version)
    return m
