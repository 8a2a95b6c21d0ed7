"""The advisor: what an experienced ZFS admin would point out on this host, and why.

Pure: `advise(inputs)` judges what `services/read/advice.py` and the console's reading
hold, and returns `Advice` (model/advice.py) worst first. Each module's docstring lists its
findings with their thresholds; the thresholds are named constants with their reason.

    layout    ashift, mixed media in a vdev, vdev imbalance, copies as redundancy
    datasets  compression, atime, xattr, recordsize, dedup, snapshot sprawl
    upkeep    pool capacity, scrub age, L2ARC hit ratio
    slog      an idle log device, sync writes on HDD pools without one (the ZIL counters)
    clones    a rotated snapshot kept only by its clone
"""

from __future__ import annotations

from collections.abc import Iterable

from zconsole.model.advice import Advice, AdviceInputs, Mute
from zconsole.services.health.advice.clones import judge_clones
from zconsole.services.health.advice.datasets import judge_datasets
from zconsole.services.health.advice.layout import judge_layout
from zconsole.services.health.advice.slog import judge_slog
from zconsole.services.health.advice.upkeep import SCRUB_WEEKS, judge_upkeep

__all__ = ["SCRUB_WEEKS", "advise", "split_muted"]


def advise(inputs: AdviceInputs, *, scrub_weeks: int = SCRUB_WEEKS) -> list[Advice]:
    """Every piece of advice for one host, worst first (then in the order judged)."""
    reading = inputs.reading
    if not reading.zfs.present:
        return []
    props = inputs.props.value if inputs.props is not None and inputs.props.ok else None
    out = [*judge_layout(reading, props), *judge_datasets(reading, props, inputs.ddt),
           *judge_upkeep(reading, scrub_weeks=scrub_weeks),
           *judge_slog(reading, inputs.zil.value if inputs.zil is not None else None),
           *judge_clones(props, inputs.origins.value if inputs.origins is not None else None,
                         reading.taken_at)]
    return sorted(out, key=lambda a: -a.severity.rank)


def split_muted(advice: Iterable[Advice], mutes: Iterable[Mute]
                ) -> tuple[list[Advice], list[tuple[Advice, Mute]]]:
    """(advice still said, advice the operator muted with its Mute), each in order."""
    mutes = list(mutes)
    said: list[Advice] = []
    muted: list[tuple[Advice, Mute]] = []
    for a in advice:
        m = next((m for m in mutes if m.matches(a)), None)
        if m is None:
            said.append(a)
        else:
            muted.append((a, m))
    return said, muted
