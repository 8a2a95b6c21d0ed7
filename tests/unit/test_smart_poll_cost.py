"""A SMART poll stays linear in the disks (bench/smart_cost.py): the due list is made once
per poll, not once per batch of the watch's limit (a thousand disks made it 125 times), and a
refresh of healthy disks walks no leaf for the slow-disk sentence's SMART clause."""

from __future__ import annotations

import time

import pytest

from zconsole.hosts.demo import DemoHost
from zconsole.services.read import smart as read_smart
from zconsole.services.read.inventory import read_inventory
from zconsole.services.smart_follow import SmartFollow


def test_a_poll_makes_the_due_list_once(monkeypatch: pytest.MonkeyPatch) -> None:
    host = DemoHost("big100", clock=lambda: 1_800_000_000.0, seed=0)
    inventory = read_inventory(host)
    whole = [d for d in inventory.devices if d.kind == "disk"]
    assert len(whole) > 10 * read_smart.POLL_LIMIT
    calls = []
    due = read_smart.SmartWatch.due

    def counted(self: read_smart.SmartWatch, disks: object) -> object:
        calls.append(1)
        return due(self, disks)  # type: ignore[arg-type]

    monkeypatch.setattr(read_smart.SmartWatch, "due", counted)
    follow = SmartFollow(host, time.time)
    read = follow.poll(inventory)
    assert sorted(read) == sorted(d.name for d in whole)  # every disk, in one poll
    assert len(calls) == 1


def test_healthy_disks_give_no_clause_and_walk_no_leaf() -> None:
    host = DemoHost("big100", clock=lambda: 1_800_000_000.0, seed=0)
    follow = SmartFollow(host, time.time)
    follow.poll(read_inventory(host))

    def never(pool: str, leaf: object) -> str | None:
        raise AssertionError("a leaf was walked")

    assert follow.clauses([object()], never) == {}  # type: ignore[list-item]
