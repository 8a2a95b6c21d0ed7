"""The blast-radius panel: what the selected dataset or snapshot is, and what `zfs destroy -r`
/ `-R` would take with it, in plain sentences (counts first, names after)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from textual.content import Content
from textual.widgets import Static

from zconsole.model.dataset import Dataset
from zconsole.model.reading import Part
from zconsole.services import fmt
from zconsole.services.read.datasets import (
    BlastRadius,
    DatasetTree,
    ScanResult,
    blast_radius,
    dataset_of,
    short_snapshot,
)
from zconsole.ui.kit.levels import LEVEL_STYLE
from zconsole.ui.kit.text import Hanging, para, plain
from zconsole.ui.screens.datasets.rows import TreeRow, snapshot_clones

MAX_NAMES = 6


def names_sentence(names: Sequence[str], limit: int = MAX_NAMES) -> str:
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f" and {len(names) - limit} more"


def _dataset_word(n: int) -> str:
    return f"{n:,} filesystem{'' if n == 1 else 's'}/volume{'' if n == 1 else 's'}"


def _unknown_tail(r: BlastRadius) -> str:
    out = ""
    if r.unlisted:
        if len(r.unlisted) == 1:
            out += f" and all snapshots of {r.unlisted[0]} (not listed yet)"
        else:
            out += (f" and all snapshots of {len(r.unlisted)} datasets not listed yet "
                    f"({names_sentence(r.unlisted, 3)})")
    if r.maybe:
        out += (f", plus @{short_snapshot(r.target)} in each of {fmt.plural(len(r.maybe), 'dataset')}"
                f" below if it exists there (their snapshots are not listed: press a to scan)")
    return out


def refusal_sentence(r: BlastRadius) -> str:
    held = list(r.blockers.items())
    extra = [x for x in r.use_R if "@" not in x]
    ask = (f"zfs would ask for -R to also destroy {names_sentence(extra)}"
           + ((" and its snapshots." if len(extra) == 1 else " and their snapshots.")
              if extra else "."))
    if len(held) == 1 and held[0][0] == r.target:
        # the snapshot's own line already names the clones that hold it
        return f"zfs destroy -r {r.target} would be refused; {ask}"
    if len(held) == 1:
        snap, clones = held[0]
        why = (f"{snap} cannot be destroyed: {fmt.plural(len(clones), 'clone')} "
               f"depend{'s' if len(clones) == 1 else ''} on it: {names_sentence(clones)}")
    else:
        parts = [f"{s} ({names_sentence(c, 2)})" for s, c in held[:3]]
        more = f" and {len(held) - 3} more" if len(held) > 3 else ""
        why = (f"{fmt.plural(len(held), 'snapshot')} cannot be destroyed because clones depend "
               f"on them: " + "; ".join(parts) + more)
    return f"zfs destroy -r {r.target} would be refused: {why}. {ask}"


def destroy_sentence(r: BlastRadius, small: BlastRadius | None = None) -> str:
    """'zfs destroy -R tank/a@s1 would also destroy: ...' for a snapshot, or the full list
    for a dataset. Plain words, counts first, names after. With `small` (the -r radius of
    the same target, not refused), an -R radius that adds nothing says so in one line."""
    if (small is not None and not small.refused and r.mode == "-R" and not r.clones
            and r.datasets == small.datasets and r.snapshots == small.snapshots):
        if "@" in r.target:
            return f"zfs destroy -R {r.target} would destroy the same: no clone depends on it."
        return (f"zfs destroy -R {r.target} would destroy the same: no clone outside it "
                "depends on it.")
    if "@" in r.target:
        others = [s for s in r.snapshots if s != r.target]
        if r.mode == "-r":
            if not others and not r.maybe:
                return f"zfs destroy -r {r.target} would destroy only this snapshot."
            return (f"zfs destroy -r {r.target} would destroy {fmt.plural(len(r.snapshots), 'snapshot')}"
                    f": {names_sentence(r.snapshots)}{_unknown_tail(r)}.")
        extra_snaps = others
        if not r.datasets and not extra_snaps and not r.maybe:
            return (f"zfs destroy -R {r.target} would destroy only this snapshot "
                    "(no clones depend on it).")
        bits = []
        if r.datasets:
            bits.append(f"{_dataset_word(len(r.datasets))} made from it "
                        f"({names_sentence(r.datasets)})")
        if extra_snaps:
            bits.append(f"{fmt.plural(len(extra_snaps), 'snapshot')} ({names_sentence(extra_snaps)})")
        body = " and ".join(bits) if bits else "nothing listed so far"
        return f"zfs destroy -R {r.target} would also destroy: {body}{_unknown_tail(r)}."
    own = [d for d in r.datasets if d not in r.clones]
    s = (f"zfs destroy {r.mode} {r.target} would destroy {_dataset_word(len(r.datasets))}"
         f" and {fmt.plural(len(r.snapshots), 'snapshot')}{' listed' if r.unlisted else ''}")
    if r.kept:  # a pool's root: zfs destroy skips it (zpool destroy removes a pool)
        s += f", not {r.target} (the pool's root)"
        if own:
            s += f": below it {names_sentence(own)}"
    elif len(own) > 1:
        s += f": {r.target} and below it {names_sentence(own[1:])}"
    if r.clones:
        s += f"; through clones also {names_sentence(r.clones)}"
    return s + _unknown_tail(r) + "."


@dataclass(frozen=True)
class Known:
    """What the Datasets screen knows when the panel is drawn: the tree, this refresh's
    snapshot listings and radius names, and the last scan."""

    tree: DatasetTree
    now: float  # the console's monotonic clock: ages count from the `seen` stamps
    loaded: Mapping[str, Part[tuple[Dataset, ...]]]  # this refresh's listings
    loaded_names: Mapping[str, tuple[str, ...]]  # the names of those listed
    radius_names: Mapping[str, tuple[str, ...]]  # this refresh, names only
    radius_errors: tuple[str, ...]
    scan: ScanResult | None
    opened: Part[tuple[Dataset, ...]] | None  # the opened dataset's listing
    scan_seen: float = 0.0  # the console's monotonic clock when `scan` arrived

    def names(self) -> dict[str, tuple[str, ...]]:
        """Snapshot names per dataset: a scan (older), then this refresh's listings."""
        known: dict[str, tuple[str, ...]] = {}
        if self.scan is not None:
            known.update(self.scan.names)
        known.update(self.radius_names)
        known.update(self.loaded_names)
        return known


def describe(row: TreeRow, known: Known) -> tuple[list[tuple[str, str]], list[str]]:
    """(level, sentence) lines about the row and its blast radius, and the datasets whose
    snapshot names the -R radius lacks (the screen may list them)."""
    tree = known.tree
    lines: list[tuple[str, str]] = []
    name = row.name
    if row.kind == "note":
        part = known.opened
        if part is not None and not part.ok:
            lines.append(("bad", f"Could not list the snapshots of {name}: {part.error} "
                                 f"(tried {fmt.age(part.age(known.now))}). "
                                 "The blast radius below counts them as not listed."))
        else:
            lines.append(("muted", row.label))
    if ("@" not in name and name not in tree) or ("@" in name and dataset_of(name) not in tree):
        return lines, []
    if row.kind in ("dataset", "clone"):
        lines.append(("", dataset_summary(name, known)))
    elif row.kind == "snapshot" and row.dataset is not None:
        clones = snapshot_clones(tree, row.dataset)
        s = (f"{name} · used {fmt.size(row.dataset.used, short=True)} · refer "
             f"{fmt.size(row.dataset.refer, short=True)}")
        if clones:
            lines.append(("bad", s + f" · cannot destroy: {fmt.plural(len(clones), 'clone')} "
                                 f"depend{'s' if len(clones) == 1 else ''} on it: "
                                 f"{names_sentence(clones)}"))
        else:
            lines.append(("", s + " · no clones depend on it"))
    names = known.names()
    try:
        small, big = (blast_radius(tree, name, mode, names) for mode in ("-r", "-R"))
    except KeyError:
        return lines, []
    lines.append(("bad", refusal_sentence(small)) if small.refused
                 else ("warn", destroy_sentence(small)))
    lines.append(("warn", destroy_sentence(big, small)))
    if known.radius_errors:
        lines.append(("bad", "Some snapshot lists could not be read: "
                             + "; ".join(known.radius_errors[:2])))
    src = names_source(big, known)
    if src:
        lines.append(("muted", src))
    return lines, list(dict.fromkeys(big.unlisted + big.maybe))


def names_source(r: BlastRadius, known: Known) -> str:
    """Which snapshot names come from the (older) scan, and how old it is."""
    scan = known.scan
    if scan is None:
        return ""
    involved = set(r.datasets) | {dataset_of(s) for s in r.snapshots}
    from_scan = [d for d in involved if d in scan.names and d not in known.loaded
                 and d not in known.radius_names]
    if not from_scan:
        return ""
    return (f"Snapshot names of {fmt.plural(len(from_scan), 'dataset')} come from the scan "
            f"{fmt.age(known.now - known.scan_seen)} (a to scan again).")


def dataset_summary(name: str, known: Known) -> str:
    """`tank/a · filesystem · used 1.2G · avail 3.7T · mountpoint /tank/a · 12 snapshots
    (listed 3 s ago) · ...`: the whole name, mountpoint and origin of the row under the
    cursor, which the table's cells may cut."""
    tree = known.tree
    d = tree.datasets[name]
    s = f"{name} · {d.type} · used {fmt.size(d.used, short=True)}"
    if d.avail is not None:
        s += f" · avail {fmt.size(d.avail, short=True)}"
    for word, limit, spent, what in (("quota", d.quota, d.used, "used"),
                                     ("refquota", d.refquota, d.refer, "referenced")):
        if limit:  # how full, which the QUOTA/REFQUOTA cells say only by their colour
            full = f" ({fmt.pct(spent / limit)} {what})" if spent is not None else ""
            s += f" · {word} {fmt.size(limit, short=True)}{full}"
    if d.mountpoint:  # whole here: the MOUNTPOINT column may cut it or be left out
        s += f" · mountpoint {d.mountpoint}"
    if d.origin:
        s += f" · clone of {d.origin}"
    part = known.loaded.get(name)
    if part is not None and part.ok and part.value is not None:
        s += (f" · {fmt.plural(len(part.value), 'snapshot')} "
              f"(listed {fmt.age(part.age(known.now))})")
    elif part is not None and not part.ok:
        s += f" · snapshots could not be listed: {part.error}"
    elif name in known.radius_names:
        s += f" · {fmt.plural(len(known.radius_names[name]), 'snapshot')}"
    elif known.scan is not None and name in known.scan.names:
        s += f" · {fmt.plural(len(known.scan.names[name]), 'snapshot')} (scan)"
    else:
        s += " · snapshots not listed yet (Enter opens it)"
    held = tree.held_snapshots(name)
    if held:
        s += (f" · {fmt.plural(len(held), 'snapshot')} held by clones: "
              + "; ".join(f"@{k.split('@', 1)[1]} → {names_sentence(v, 2)}"
                          for k, v in list(held.items())[:3]))
    return s


class RadiusPanel(Static):
    """What the selection is, and what `zfs destroy -r` / `-R` would take with it."""

    DEFAULT_CSS = """
    RadiusPanel {
        height: auto;
        max-height: 9;
        border-top: solid $panel;
        padding: 0 0;
        overflow-y: auto;
    }
    """

    def show_lines(self, lines: Iterable[tuple[str, str]]) -> None:
        """(level, sentence) pairs: "ok", "warn" and "bad" lead with their symbol in their
        colour; "muted" sentences are muted; "" plain."""
        out = []
        for level, sentence in lines:
            symbol = {"ok": "✔ ", "warn": "▲ ", "bad": "✖ "}.get(level, "")
            out.append(para(plain(sentence, LEVEL_STYLE["muted"] if level == "muted" else ""),
                            Content.styled(symbol, LEVEL_STYLE.get(level, ""))))
        self.update(Hanging(*out))

