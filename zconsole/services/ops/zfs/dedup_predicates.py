"""The predicate kinds of the dedup-off rewrite and its cleanup (registered with the engine on
import; `predicates.py` lists them in its `KINDS`).

  snapshots_copied (source, copy)   every dataset and snapshot of the `source` tree has its
                                    twin (same relative name) in the `copy` tree
  tree_unmounted (dataset)          no filesystem of the tree is mounted
  dataset_absent (dataset)          `zfs list` says the dataset does not exist
  no_holds (dataset)                no snapshot of the tree has a user hold (`userrefs` 0):
                                    `zfs destroy -r` of a tree with a held snapshot fails
                                    partway, after destroying the rest (OpenZFS 2.3 guest)

Snapshot names are compared, not guids: a received snapshot keeps its guid in OpenZFS, but
the names are what the operator reads and what `zfs send -R` recreates.
"""

from __future__ import annotations

from zconsole.hosts.base import DEFAULT_TIMEOUT, CommandFailed, Host, HostError
from zconsole.model.plan import Predicate
from zconsole.parsers.errors import ParseError
from zconsole.parsers.props import parse_get
from zconsole.services.ops.engine.predicates import Evaluator, ReadFailed, predicate_kind

KINDS = ("snapshots_copied", "tree_unmounted", "dataset_absent", "no_holds")
_SHOWN = 5


def tree_names(ev: Evaluator, top: str) -> set[str]:
    """Every filesystem, volume and snapshot of `top`'s tree, named relative to `top`
    (`""` is top itself, `/child`, `@snap`, `/child@snap`)."""
    argv = ["zfs", "list", "-H", "-o", "name", "-t", "filesystem,volume,snapshot", "-r", top]
    try:
        text = ev.host.run(argv, timeout=ev.timeout).stdout
    except HostError as e:
        raise ReadFailed(f"could not list {top} and its snapshots: {e}") from None
    out: set[str] = set()
    for line in text.split("\n"):
        name = line.rstrip("\r")
        if name == top or name.startswith((top + "/", top + "@")):
            out.add(name[len(top):])
    if "" not in out:
        raise ReadFailed(f"zfs list did not list {top}")
    return out


@predicate_kind("snapshots_copied")
def snapshots_copied(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    source, copy = p.param("source"), p.param("copy")
    have, want = tree_names(ev, copy), tree_names(ev, source)
    missing = sorted(want - have)
    snaps = sum(1 for n in want if "@" in n)
    if missing:
        shown = ", ".join(copy + m for m in missing[:_SHOWN])
        more = f" and {len(missing) - _SHOWN} more" if len(missing) > _SHOWN else ""
        return False, f"{copy} lacks {len(missing)} of {source}'s datasets/snapshots: " \
                      f"{shown}{more}"
    return True, (f"every dataset and snapshot of {source} ({len(want) - snaps} dataset(s), "
                  f"{snaps} snapshot(s)) is in {copy}")


@predicate_kind("tree_unmounted")
def tree_unmounted(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    top = p.param("dataset")
    argv = ["zfs", "get", "-H", "-p", "-r", "-t", "filesystem", "mounted", top]
    try:
        rows = parse_get(ev.host.run(argv, timeout=ev.timeout).stdout)
    except (HostError, ParseError) as e:
        raise ReadFailed(f"could not read which filesystems of {top} are mounted: {e}"
                         ) from None
    mounted = [r.name for r in rows if r.value == "yes"]
    if mounted:
        return False, "still mounted: " + ", ".join(mounted[:_SHOWN])
    return True, f"no filesystem of {top} is mounted ({len(rows)} checked)"


@predicate_kind("dataset_absent")
def dataset_absent(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    name = p.param("dataset")
    try:
        ev.host.run(["zfs", "list", "-H", "-o", "name", name], timeout=ev.timeout)
    except CommandFailed as e:
        if "does not exist" in e.stderr:
            return True, f"{name} does not exist"
        raise ReadFailed(f"could not ask zfs about {name}: {e}") from None
    except HostError as e:
        raise ReadFailed(f"could not ask zfs about {name}: {e}") from None
    return False, f"{name} still exists"


def held_snapshots(host: Host, top: str, timeout: float = DEFAULT_TIMEOUT) -> list[str]:
    """The snapshots of `top`'s tree with user holds (`zfs holds` lists their tags)."""
    argv = ["zfs", "get", "-H", "-p", "-r", "-t", "snapshot", "userrefs", top]
    rows = parse_get(host.run(argv, timeout=timeout).stdout)
    return [r.name for r in rows if r.value not in ("0", "-")]


@predicate_kind("no_holds")
def no_holds(ev: Evaluator, p: Predicate) -> tuple[bool, str]:
    top = p.param("dataset")
    try:
        held = held_snapshots(ev.host, top, ev.timeout)
    except (HostError, ParseError) as e:
        raise ReadFailed(f"could not read the holds of {top}'s snapshots: {e}") from None
    if held:
        return False, "held (zfs holds): " + ", ".join(held[:_SHOWN])
    return True, f"no snapshot of {top} is held"
