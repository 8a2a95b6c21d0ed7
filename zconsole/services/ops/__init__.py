"""Operations: plans and their execution.

    registry.py   every operation kind, in one table (start here to add one)
    operation.py  the shape of an entry: title, help, CLI arguments, plan functions, wizard
    engine/       runs any plan (runner, resume, plan_io, predicates, watch, refusals) and
                  knows no domain: domains register their predicate kinds, watches and
                  refusal explanations with it
    zfs/          the ZFS domain: one module per kind, its checks, its registrations
    fixit/        the fix-its (sshd now): plans that change system configuration
    smart/        a disk's own firmware: the SMART self-test (`smartctl -t`) and its watch

Importing this package imports every domain, so their registrations are in place before any
plan is evaluated, run or resumed (the engine itself never imports a domain; an
import-linter contract in pyproject.toml keeps it so). A new domain (`fixit/`, for sshd and
systemd) is one more import here.
"""

from zconsole.services.ops import (  # each domain registers with the engine on import
    fixit,
    smart,
    zfs,
)

__all__ = ["fixit", "smart", "zfs"]
