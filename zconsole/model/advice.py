"""The advisor's findings: what an experienced ZFS admin would point out on a host, and why.

An `Advice` is a `Finding` (`as_finding()`: the same kind, severity, subject, sentence,
evidence and pool, for `zconsole check` and the problems panel) with what an admin adds when
they say it: the reason in one or two plain sentences (`why`), what fixing it costs or
cannot do (`cost`), and the exact command where a safe one exists (`action`, as data; `command`
is its argv as the operator reads it). The advisor never runs anything: the Advice screen's
`x` turns an action into a plan (`services/ops/zfs/advice.py`) that runs through the same
preview, typed confirmation, re-checks and audit log as the disk wizards. Advice is at most WARNING, never CRITICAL: it is about how
a host is set up, not about data being lost.

`AdviceInputs` is what the advisor judges: the console's reading plus the one extra
read-only read it needs (`services/read/advice.py`: dataset properties, the DDT of pools that
deduplicate, the ZIL counters).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field

from zconsole.model.finding import Finding, Severity
from zconsole.model.pool import DedupSummary
from zconsole.model.reading import HostReading, Part

# Advice is never worse than this (module docstring).
ADVICE_CEILING = Severity.WARNING


# AdviceAction.verb
SET, SCRUB, REMOVE = "set", "scrub", "remove"


@dataclass(frozen=True)
class AdviceAction:
    """What the advice's command does, as data: the plan that runs it is built from this,
    never from text.

    - SET: `zfs set PROP=VALUE TARGET` (a dataset); `before` is the value judged as
      `zfs get -H -p` prints it (re-checked before the change), `after` the new value as it
      prints it (recordsize 16K: 16384); `was_local`: `before` was set on TARGET (the way
      back sets it again) rather than its default (the way back is `zfs inherit`);
    - SCRUB: `zpool scrub TARGET` (a pool);
    - REMOVE: `zpool remove TARGET DEVICE`, a cache or log device (`role`) of pool TARGET.
    """

    verb: str
    target: str
    prop: str = ""
    value: str = ""
    before: str = ""
    after: str = ""
    device: str = ""
    role: str = ""
    was_local: bool = True

    @property
    def argv(self) -> tuple[str, ...]:
        if self.verb == SET:
            return ("zfs", "set", f"{self.prop}={self.value}", self.target)
        if self.verb == SCRUB:
            return ("zpool", "scrub", self.target)
        if self.verb == REMOVE:
            return ("zpool", "remove", self.target, self.device)
        raise ValueError(f"unknown advice action {self.verb!r}")

    @property
    def pool(self) -> str:
        return self.target.split("/")[0]

    @classmethod
    def set(cls, dataset: str, prop: str, value: str, *, before: str,
            after: str | None = None, was_local: bool = True) -> AdviceAction:
        return cls(SET, dataset, prop, value, before, value if after is None else after,
                   was_local=was_local)

    @classmethod
    def scrub(cls, pool: str) -> AdviceAction:
        return cls(SCRUB, pool)

    @classmethod
    def remove(cls, pool: str, device: str, role: str) -> AdviceAction:
        return cls(REMOVE, pool, device=device, role=role)


@dataclass(frozen=True)
class Advice:
    kind: str  # e.g. "advice-ashift"
    severity: Severity  # INFO or WARNING
    subject: str  # a pool, vdev, disk or dataset name (host text: shown as plain text)
    message: str  # one plain sentence: what is set up how
    why: str  # the reason, one or two sentences
    cost: str  # what fixing it costs, or cannot do
    evidence: tuple[str, ...] = ()  # the values read, "name: value"
    action: AdviceAction | None = None  # the command where a safe one exists
    pool: str | None = None

    @property
    def command(self) -> str | None:
        """The action's argv as the operator reads (and could paste) it."""
        return None if self.action is None else shlex.join(self.action.argv)

    def __post_init__(self) -> None:
        if self.severity.rank > ADVICE_CEILING.rank:
            raise ValueError(f"advice is at most {ADVICE_CEILING.name}: {self.kind}")

    def as_finding(self) -> Finding:
        return Finding(self.kind, self.severity, self.subject, self.message,
                       evidence=self.evidence, pool=self.pool)


@dataclass(frozen=True)
class Mute:
    """The operator's "I know, and here is why" for one finding on one host: the finding is
    (kind, subject); the reason is kept with it and shown beside it. `at`: epoch seconds."""

    kind: str
    subject: str
    reason: str
    at: float

    def matches(self, found: Advice | Finding) -> bool:
        return (self.kind, self.subject) == (found.kind, found.subject)


@dataclass(frozen=True)
class DatasetProps:
    """The properties the advisor reads of one filesystem or volume, as `zfs get -H -p`
    printed them: property -> (value, source)."""

    name: str
    type: str  # filesystem or volume
    values: Mapping[str, tuple[str, str]] = field(default_factory=dict)

    def value(self, prop: str) -> str | None:
        got = self.values.get(prop)
        return got[0] if got is not None else None

    def source(self, prop: str) -> str | None:
        got = self.values.get(prop)
        return got[1] if got is not None else None

    def number(self, prop: str) -> int | None:
        v = self.value(prop)
        return int(v) if v is not None and v.isdigit() else None

    @property
    def pool(self) -> str:
        return self.name.split("/", 1)[0]


@dataclass(frozen=True)
class ZilStats:
    """/proc/spl/kstat/zfs/zil: the host's ZFS intent log counters, summed over every pool
    since the module loaded (`age_s` ago, from the kstat's header). A log block goes to a
    pool's separate log device (`slog_blocks`) or, without one, to its ordinary vdevs
    (`normal_blocks`); each is one write the caller of fsync/O_SYNC waited for."""

    fields: Mapping[str, int]
    age_s: float | None = None

    def get(self, name: str) -> int | None:
        return self.fields.get(name)

    @property
    def commits(self) -> int | None:
        return self.fields.get("zil_commit_count")

    @property
    def slog_blocks(self) -> int | None:
        return self.fields.get("zil_itx_metaslab_slog_count")

    @property
    def normal_blocks(self) -> int | None:
        return self.fields.get("zil_itx_metaslab_normal_count")


@dataclass(frozen=True)
class AdviceInputs:
    """Everything the advisor judges. `props` and `ddt` are the advisor's own read (a Part:
    it may have failed, and then the findings that need it are not judged); `ddt` holds the
    `zpool status -D` summary of the pools with deduplicated data."""

    reading: HostReading
    props: Part[tuple[DatasetProps, ...]] | None = None
    ddt: Mapping[str, DedupSummary] = field(default_factory=dict)
    zil: Part[ZilStats] | None = None
    # the snapshots clones were made from (creation, used, userrefs), None: no clone
    origins: Part[tuple[DatasetProps, ...]] | None = None
