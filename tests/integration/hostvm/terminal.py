"""A real terminal on this machine: tmux runs a command (`ssh -t hostvm zconsole`), tests read
the screen with `capture-pane -p` and type with `send-keys`, like an operator at a terminal.

Each Terminal has its own tmux server (`tmux -L <name>`), so nobody else's tmux is touched;
the pane stays after the command exits (remain-on-exit), so its last screen can be read.
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

_counter = itertools.count(1)

TMUX_CONF = """\
set -g remain-on-exit on
set -g status off
set -g default-terminal tmux-256color
set -g history-limit 2000
set -g escape-time 0
"""

Needle = str | re.Pattern[str] | Callable[[str], bool]


class PaneTimeout(AssertionError):
    """What was awaited never showed up; the message holds the pane as it was."""


def _matches(needle: Needle, text: str) -> bool:
    if isinstance(needle, str):
        return needle in text
    if isinstance(needle, re.Pattern):
        return needle.search(text) is not None
    return bool(needle(text))


def _describe(needle: Needle) -> str:
    if isinstance(needle, str):
        return repr(needle)
    if isinstance(needle, re.Pattern):
        return f"/{needle.pattern}/"
    return getattr(needle, "__name__", "a condition")


class Terminal:
    """One tmux pane of width x height running argv."""

    def __init__(self, argv: Sequence[str], width: int = 120, height: int = 40,
                 env: dict[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.width = width
        self.height = height
        self.env = env or {}
        self.server = f"zc-hostvm-{os.getpid()}-{next(_counter)}"
        self.started_at: float | None = None
        self._conf: Path | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def _tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        argv = ["tmux", "-L", self.server]
        if self._conf is not None:
            argv += ["-f", str(self._conf)]
        return subprocess.run([*argv, *args], capture_output=True, text=True, check=check,
                              timeout=30)

    def start(self) -> Terminal:
        fd, conf = tempfile.mkstemp(prefix="zc-tmux-", suffix=".conf")
        with os.fdopen(fd, "w") as fh:
            fh.write(TMUX_CONF)
        self._conf = Path(conf)
        command = shlex.join(self.argv)
        if self.env:
            command = "env " + " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env.items()) \
                + " " + command
        self.started_at = time.monotonic()
        self._tmux("new-session", "-d", "-s", "main", "-x", str(self.width),
                   "-y", str(self.height), command)
        return self

    def close(self) -> None:
        self._tmux("kill-server", check=False)
        if self._conf is not None:
            self._conf.unlink(missing_ok=True)

    def __enter__(self) -> Terminal:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading ---------------------------------------------------------------------------
    def text(self) -> str:
        """The screen as the operator sees it now (plain text, one line per row)."""
        return self._tmux("capture-pane", "-p", "-t", "main").stdout

    def dead(self) -> bool:
        """True when the command in the pane has exited."""
        out = self._tmux("display-message", "-p", "-t", "main", "#{pane_dead}", check=False)
        return out.stdout.strip() == "1"

    def wait_for(self, needle: Needle, timeout: float = 60.0, what: str | None = None,
                 poll: float = 0.25) -> str:
        """Wait until the screen contains needle (a string, a regex or a predicate on the
        text); return the screen. On timeout, or when the command exits first, fail with the
        screen's text."""
        deadline = time.monotonic() + timeout
        text = ""
        while True:
            text = self.text()
            if _matches(needle, text):
                return text
            if self.dead():
                text = self.text()
                if _matches(needle, text):
                    return text
                raise PaneTimeout(
                    f"the command exited before {what or _describe(needle)} showed up; "
                    f"last screen:\n{text}")
            if time.monotonic() > deadline:
                raise PaneTimeout(
                    f"{what or _describe(needle)} did not show up within {timeout:.0f} s; "
                    f"screen:\n{text}")
            time.sleep(poll)

    def wait_gone(self, needle: Needle, timeout: float = 60.0, what: str | None = None) -> str:
        """Wait until the screen no longer contains needle; return the screen."""
        return self.wait_for(lambda t: not _matches(needle, t), timeout,
                             what or f"the screen without {_describe(needle)}")

    # -- typing ----------------------------------------------------------------------------
    def press(self, *keys: str) -> None:
        """tmux key names: 'a', 'Enter', 'Down', 'Escape', 'C-c', '1' ..."""
        for key in keys:
            self._tmux("send-keys", "-t", "main", key)
            time.sleep(0.05)

    def type(self, text: str) -> None:
        """Literal text, as typed."""
        self._tmux("send-keys", "-t", "main", "-l", text)
