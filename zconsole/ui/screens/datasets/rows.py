"""The rows of the dataset tree: datasets depth-first with tree guides, the opened dataset's
snapshots right after it, each snapshot's clones under it. Pure: no Textual."""

from __future__ import annotations

from dataclasses import dataclass

from zconsole.model.dataset import Dataset
from zconsole.model.reading import Part
from zconsole.services.read.datasets import DatasetTree, short_snapshot


@dataclass(frozen=True)
class TreeRow:
    """One line of the tree: a dataset, a snapshot, a clone drawn under its origin, or a note.

    `key` is the dataset or snapshot name (clone rows: "clone:" + snapshot + ">" + clone;
    notes: "note:" + dataset). `target` is the dataset a clone row points to.
    """

    key: str
    kind: str  # "dataset" | "snapshot" | "clone" | "note"
    guide: str
    label: str
    dataset: Dataset | None = None
    target: str | None = None
    level: str = ""  # "", "muted", "warn", "bad"
    note: str = ""

    @property
    def name(self) -> str:
        """The dataset or snapshot this row stands for (a clone row: the clone)."""
        if self.kind == "clone" and self.target:
            return self.target
        if self.kind == "note" and self.target:
            return self.target
        return self.key


@dataclass(frozen=True)
class OpenState:
    """The opened dataset's snapshot listing: loading, loaded (part ok) or failed."""

    dataset: str
    part: Part[tuple[Dataset, ...]] | None  # None while loading


def _guide(lead: str, last: bool) -> str:
    return lead + ("└─ " if last else "├─ ")


def _child_lead(lead: str, last: bool) -> str:
    return lead + ("   " if last else "│  ")


def snapshot_clones(tree: DatasetTree, snap: Dataset) -> tuple[str, ...]:
    """Clones of a snapshot: from origins (authoritative) plus the possibly truncated
    `clones` column."""
    out = list(tree.clones_of.get(snap.name, ()))
    out.extend(c for c in snap.clones if c not in out)
    return tuple(out)


def build_rows(tree: DatasetTree, opened: OpenState | None) -> list[TreeRow]:
    """Datasets depth-first with tree guides; the opened dataset's snapshots (and the clones
    made from each) come right after it, before its child datasets."""
    rows: list[TreeRow] = []

    def visit(name: str, lead: str, last: bool, root: bool) -> None:
        ds = tree.datasets[name]
        is_open = opened is not None and opened.dataset == name
        marker = "▾ " if is_open else "▸ "
        guide = "" if root else _guide(lead, last)
        label = marker + (name if root else name.rsplit("/", 1)[-1])
        note = ""
        if ds.origin:
            note = f"clone of {ds.origin}"
        held = tree.origin_snapshots.get(name, ())
        if held:
            note = (note + "; " if note else "") + (
                f"{len(held)} held by clones" if note else
                f"{len(held)} snapshot{'s' if len(held) != 1 else ''} held by clones")
        rows.append(TreeRow(name, "dataset", guide, label, ds, level="", note=note))
        lead_next = "" if root else _child_lead(lead, last)
        kids = tree.children.get(name, ())
        if is_open and opened is not None:
            rows.extend(_snapshot_rows(tree, opened, lead_next, bool(kids)))
        for i, c in enumerate(kids):
            visit(c, lead_next, i == len(kids) - 1, False)

    for r in tree.roots:
        visit(r, "", True, True)
    return rows


def _snapshot_rows(tree: DatasetTree, opened: OpenState, lead: str, more_after: bool
                   ) -> list[TreeRow]:
    name = opened.dataset
    part = opened.part
    if part is None:
        return [TreeRow(f"note:{name}", "note", _guide(lead, not more_after),
                        f"… listing the snapshots of {name}", target=name, level="muted")]
    if not part.ok or part.value is None:
        return [TreeRow(f"note:{name}", "note", _guide(lead, not more_after),
                        f"✖ could not list the snapshots: {part.error}", target=name,
                        level="bad")]
    snaps = part.value
    if not snaps:
        return [TreeRow(f"note:{name}", "note", _guide(lead, not more_after),
                        "no snapshots", target=name, level="muted")]
    out: list[TreeRow] = []
    n = len(snaps)
    for i, s in enumerate(snaps):
        last = i == n - 1 and not more_after
        clones = snapshot_clones(tree, s)
        note = (f"held: {len(clones)} clone{'s' if len(clones) != 1 else ''}"
                if clones else "")
        out.append(TreeRow(s.name, "snapshot", _guide(lead, last),
                           "@" + short_snapshot(s.name), s, level="warn" if clones else "",
                           note=note))
        sub = _child_lead(lead, last)
        for j, c in enumerate(clones):
            out.append(TreeRow(f"clone:{s.name}>{c}", "clone",
                               _guide(sub, j == len(clones) - 1),
                               f"⤷ clone {c} (origin {s.name})", target=c, level="warn"))
    return out

