"""One value kept per Host object, for as long as that object lives: what a read keeps
between readings of the same host (a boot's record, netplan's answer). Reads run on several
threads (the console's workers, `check --hosts`), so a lock guards the map; a host that
cannot be referenced weakly keeps nothing."""

from __future__ import annotations

import threading
import weakref
from typing import Generic, TypeVar

from zconsole.hosts.base import Host

T = TypeVar("T")


class PerHost(Generic[T]):
    def __init__(self) -> None:
        self._by_host: weakref.WeakKeyDictionary[Host, T] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def get(self, host: Host) -> T | None:
        with self._lock:
            try:
                return self._by_host.get(host)
            except TypeError:
                return None

    def put(self, host: Host, value: T) -> None:
        with self._lock:
            try:
                self._by_host[host] = value
            except TypeError:
                pass

    def forget(self, host: Host) -> None:
        with self._lock:
            try:
                self._by_host.pop(host, None)
            except TypeError:
                pass
