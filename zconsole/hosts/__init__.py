"""Hosts: the only code that touches a machine (commands, files, clock)."""

from zconsole.hosts.base import (
    CommandFailed,
    CommandNotFound,
    CommandTimedOut,
    Host,
    HostError,
    HostUnreachable,
    PathNotFound,
    PermissionDenied,
    Result,
)

__all__ = [
    "CommandFailed",
    "CommandNotFound",
    "CommandTimedOut",
    "Host",
    "HostError",
    "HostUnreachable",
    "PathNotFound",
    "PermissionDenied",
    "Result",
]
