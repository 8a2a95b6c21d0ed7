"""Pure functions from command output (text or JSON) to model objects. No I/O, no clock."""

from zconsole.parsers.errors import ParseError

__all__ = ["ParseError"]
