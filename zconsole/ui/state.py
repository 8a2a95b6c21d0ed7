"""What every screen is given after each refresh (the UI's read-only view of the host)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from zconsole.hosts.base import Host
from zconsole.model.finding import Finding
from zconsole.model.snapshot import HostSnapshot

if TYPE_CHECKING:
    from zconsole.services.sampling import Sampler, SampleResult


@dataclass(frozen=True)
class ViewState:
    """The latest refresh. `snapshot` is None until the first refresh completed.

    `sampler` keeps the history (per-disk DiskIo, ARC deltas) for sparklines; `sample` is the
    newest interval. `now` is the app clock when the state was handed out (frozen in tests).
    """

    host: Host
    snapshot: HostSnapshot | None
    findings: tuple[Finding, ...]
    sample: SampleResult | None
    sampler: Sampler | None
    now: float
    read_only: bool
    last_error: str | None = None
