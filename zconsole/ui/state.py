"""What every screen is given after each refresh (the UI's read-only view of the host)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from zconsole.hosts.base import Host
from zconsole.model.finding import Finding
from zconsole.model.reading import HostReading

if TYPE_CHECKING:
    from zconsole.model.advice import Mute
    from zconsole.services.read.pools import LeafMetrics
    from zconsole.services.read.progress import ScanEstimate
    from zconsole.services.read.sampling import LeafKey, Sampler, SampleResult
    from zconsole.services.smart_follow import SmartFollow


@dataclass(frozen=True)
class ViewState:
    """The latest refresh. `snapshot` is None until the first refresh completed.

    `forced` counts the operator's own refreshes: a screen that keeps a costly listing
    between timed refreshes lists it again when this number moves.

    `sampler` keeps the history (per-disk DiskIo, ARC deltas) for sparklines; `sample` is the
    newest interval. `now` is the app's wall clock when the state was handed out (frozen in
    tests), `mono` its monotonic clock then: every age is `mono` less a `seen` stamp
    (`Part.age`, `HostReading.age`), never `now` less a host time.
    """

    host: Host
    reading: HostReading | None
    findings: tuple[Finding, ...]
    sample: SampleResult | None
    sampler: Sampler | None
    now: float
    read_only: bool
    last_error: str | None = None
    scan_estimates: Mapping[str, tuple[ScanEstimate, ...]] = field(default_factory=dict)
    leaves: Mapping[LeafKey, LeafMetrics] = field(default_factory=dict)
    forced: int = 0  # how many refreshes the operator asked for (ctrl+r / F5) so far
    mono: float = 0.0  # the console's monotonic clock when the state was handed out
    # what the operator muted on this host (Advice screen, `m`): the monitor's, so that the
    # Pools to-do line judges as Fleet, `check` and the metrics do
    mutes: tuple[Mute, ...] = ()
    # the disks' SMART as the session follows it (read at its own cadence, not per refresh)
    smart: SmartFollow | None = None
