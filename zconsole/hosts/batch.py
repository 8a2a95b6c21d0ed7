"""Many small files or directories of a host in one command instead of one command each.

The disk inventory reads a dozen sysfs attributes of every block device that udev knows and
lsblk does not list (an empty loop device; every device where there is no udev database).
Over SSH each `cat` is a round trip and a process on the host: a Debian host with its eight
empty loop devices answered 109 commands for one full inventory, about 16 s of CPU on an
emulated guest where the steady refresh needs 1.5 (issue 33). A host that reads in one round
trip (`SshHost`: `grep -H` of every file, `find` of every directory) offers `read_texts` and
`list_dirs`; any other host is asked file by file, as before (`read_texts`, `list_dirs` here).

What comes back is the host's text, kept raw as `read_text` keeps it: a line of output is
only ever taken for the path it starts with, so one file's content cannot pose as another's.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from zconsole.hosts.base import Host, HostError

BATCH = 200  # paths per command: far below any argument-length limit


def chunks(paths: Sequence[str], size: int = BATCH) -> Iterator[Sequence[str]]:
    for i in range(0, len(paths), size):
        yield paths[i:i + size]


def batchable(path: str) -> bool:
    """A path whose lines of output cannot be mistaken for another's: absolute, and without
    the separators the output uses (`:` after grep's file name, a newline between lines)."""
    return path.startswith("/") and ":" not in path and "\n" not in path


def read_texts(host: Host, paths: Sequence[str]) -> dict[str, str]:
    """path -> text of each file that could be read and is not empty (sysfs leaves an
    attribute a device lacks empty or absent: both mean "not known")."""
    batch = getattr(host, "read_texts", None)
    return dict(batch(paths)) if batch is not None else each_text(host, paths)


def each_text(host: Host, paths: Sequence[str]) -> dict[str, str]:
    """`read_texts` one file at a time (`host.read_text`)."""
    out: dict[str, str] = {}
    for path in paths:
        try:
            text = host.read_text(path)
        except HostError:
            continue
        if text:
            out[path] = text
    return out


def list_dirs(host: Host, paths: Sequence[str]) -> dict[str, list[str]]:
    """path -> sorted entries of each directory that could be listed (an empty one too)."""
    batch = getattr(host, "list_dirs", None)
    return dict(batch(paths)) if batch is not None else each_dir(host, paths)


def each_dir(host: Host, paths: Sequence[str]) -> dict[str, list[str]]:
    """`list_dirs` one directory at a time (`host.list_dir`)."""
    out: dict[str, list[str]] = {}
    for path in paths:
        try:
            out[path] = sorted(host.list_dir(path))
        except HostError:
            continue
    return out


def grep_argv(paths: Sequence[str]) -> list[str]:
    """Every line of every file, each prefixed with its file's name (`-H`), binary content
    as text (`-a`), unreadable and missing files silently left out (`-s`)."""
    return ["grep", "-s", "-a", "-H", "", "--", *paths]


def decode_grep(stdout: str, paths: Sequence[str]) -> dict[str, str]:
    """The files' texts from `grep_argv`'s output (each line "PATH:LINE")."""
    wanted = set(paths)
    lines: dict[str, list[str]] = {}
    for line in stdout.split("\n"):
        path, sep, rest = line.partition(":")
        if sep and path in wanted:
            lines.setdefault(path, []).append(rest)
    return {path: "\n".join(got) + "\n" for path, got in lines.items()}


def find_argv(paths: Sequence[str]) -> list[str]:
    """Every entry of every directory, one "DIR/NAME" a line (a missing one: on stderr)."""
    return ["find", *paths, "-mindepth", "1", "-maxdepth", "1"]


def _complained_of(stderr: str) -> set[str]:
    """The paths `find` could not list: "find: '/p': No such file..." (GNU), "find: /p: ..."
    (BusyBox)."""
    out = set()
    for line in stderr.split("\n"):
        if line.startswith("find: ") and ": " in line[6:]:
            out.add(line[6:].rsplit(": ", 1)[0].strip("'‘’"))
    return out


def decode_find(stdout: str, paths: Sequence[str], stderr: str) -> dict[str, list[str]]:
    """The directories' entries from `find_argv`'s output; a directory `find` complained of
    on its stderr is left out, as `list_dir` would have failed on it."""
    failed = _complained_of(stderr)
    out: dict[str, list[str]] = {p: [] for p in paths if p not in failed}
    for line in stdout.split("\n"):
        parent, sep, name = line.rpartition("/")
        if sep and name and parent in out:
            out[parent].append(name)
    return {p: sorted(names) for p, names in out.items()}
