"""Only for `ui/wizards/choices.py` (owned by another branch), which still imports
`human_bytes` from here. Every other screen formats sizes with `services.fmt.size`; this goes
once that file does too."""

from __future__ import annotations

from zconsole.services import fmt


def human_bytes(n: int | None) -> str:
    """`fmt.size(n, short=True)`: '12.1G'."""
    return fmt.size(n, short=True)
