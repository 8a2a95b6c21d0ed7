"""A command zconsole may run: an argv tuple, never a shell string."""

from __future__ import annotations

import shlex
from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    """`argv` runs; with `then`, its output is piped into each following argv in turn
    (`zfs send ... | zfs receive ...`), still without any shell: the host connects the
    processes itself.

    `diff`: for a command that changes a file, the change as a unified diff (difflib) of the
    file's text before and after, made when the plan was built. It is shown with the command
    and recorded in the audit log's intent record; it is never run."""

    argv: tuple[str, ...]
    purpose: str
    writes: bool = False
    then: tuple[tuple[str, ...], ...] = ()
    diff: str = ""

    def __post_init__(self) -> None:
        for argv in (self.argv, *self.then):
            if not argv or not all(isinstance(a, str) for a in argv):
                raise ValueError(f"a command is a non-empty tuple of strings, got {argv!r}")

    @property
    def pipeline(self) -> tuple[tuple[str, ...], ...]:
        return (self.argv, *self.then)

    def display(self) -> str:
        """How the operator sees it: exactly what will run, quoted as a shell would need."""
        return " | ".join(shlex.join(a) for a in self.pipeline)
