"""A screen's own read of the host: one call starts it in a worker, one handler receives it.

Most screens only draw the shared refresh (`ZScreen.show_state`). A screen that must read
more itself (the Network screen's `ip -j` calls, a dataset's snapshot listing) calls
`ZScreen.read(Loaded, fn)`: `fn()` runs in a thread worker of that screen's group, and the
screen receives `Loaded(value)` (a `PartLoaded` subclass it declares, so the handler is named
after it and typed) or a `PartFailed`. A read that a newer one of its group replaced, or that
was cancelled with its screen, posts nothing.

    class NetworkScreen(ZScreen):
        class Loaded(PartLoaded[NetworkView]): ...

        def show_state(self, state):
            self.read(self.Loaded, partial(collect_network, state.host), group="network")

        def on_network_screen_loaded(self, message: Loaded) -> None: ...
        def on_part_failed(self, message: PartFailed) -> None: ...
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from textual.dom import DOMNode
from textual.message import Message
from textual.worker import Worker, get_current_worker

T = TypeVar("T")


class PartLoaded(Message, Generic[T]):
    """A screen-owned read finished. Declare one subclass per kind of read.

    `value` is what the read returned; `key` says what was read when one group reads
    several things (a dataset name); `asked_at` is the console clock when it was asked."""

    def __init__(self, value: T, *, key: str = "", asked_at: float = 0.0) -> None:
        super().__init__()
        self.value = value
        self.key = key
        self.asked_at = asked_at


class PartFailed(Message):
    """A screen-owned read raised. `group` is the read's worker group, `error` reads
    `ExceptionName: text` (host text: show it with `kit.text.plain`)."""

    def __init__(self, group: str, error: str, *, key: str = "", asked_at: float = 0.0
                 ) -> None:
        super().__init__()
        self.group = group
        self.error = error
        self.key = key
        self.asked_at = asked_at


def start_read(node: DOMNode, loaded: type[PartLoaded[T]], fn: Callable[[], T], *,
               group: str, key: str = "", asked_at: float = 0.0, exclusive: bool = True,
               description: str = "") -> Worker[None]:
    """Run `fn()` in a thread worker of `node`, then post `loaded(value)` or `PartFailed`
    to `node` unless the worker was cancelled meanwhile.

    This is what `@work(thread=True, exclusive=True, exit_on_error=False, group=...)` does,
    with the group chosen by the caller (the decorator fixes it when the class is defined).
    `exclusive`: a new read of the group cancels the one still running.
    """

    def read() -> None:
        worker = get_current_worker()
        try:
            value = fn()
        except Exception as e:  # noqa: BLE001 - a failed read reaches the screen, never kills the app
            if not worker.is_cancelled:
                node.post_message(PartFailed(group, f"{type(e).__name__}: {e}", key=key,
                                             asked_at=asked_at))
            return
        if not worker.is_cancelled:
            node.post_message(loaded(value, key=key, asked_at=asked_at))

    return node.run_worker(read, name=key or group, group=group, description=description,
                           exit_on_error=False, exclusive=exclusive, thread=True)
