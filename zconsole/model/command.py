"""A command zconsole may run: an argv tuple, never a shell string."""

from __future__ import annotations

import shlex
from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    argv: tuple[str, ...]
    purpose: str
    writes: bool = False

    def __post_init__(self) -> None:
        if not self.argv or not all(isinstance(a, str) for a in self.argv):
            raise ValueError(f"a command is a non-empty tuple of strings, got {self.argv!r}")

    def display(self) -> str:
        """How the operator sees it: exactly what will run, quoted as a shell would need."""
        return shlex.join(self.argv)
