"""Why the host refused: plain-language explanations of a failed command, from the domains.

The runner shows a refused command's stderr verbatim and, beside it, `explain(stderr)`. The
engine knows no tool's wording: each domain registers an explainer (`register_explainer`;
ZFS's is `services/ops/zfs/refusals.py::explain`), which returns None when it knows nothing
about the text. None from every explainer means "no explanation": nothing is guessed.
"""

from __future__ import annotations

from collections.abc import Callable

Explainer = Callable[[str], "str | None"]
EXPLAINERS: list[Explainer] = []


def register_explainer(fn: Explainer) -> Explainer:
    if fn not in EXPLAINERS:
        EXPLAINERS.append(fn)
    return fn


def explain(text: str) -> str | None:
    """What the refusal means and what to do (every explainer's words), or None."""
    found = [e for e in (fn(text) for fn in EXPLAINERS) if e]
    return " ".join(found) if found else None
