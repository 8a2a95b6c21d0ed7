"""The one exception parsers raise."""

from __future__ import annotations


class ParseError(ValueError):
    """Input that cannot be read as the expected format.

    `source` names the format (e.g. "zpool status"), `line_no` (1-based) and `line` point at the
    offending input where there is one.
    """

    def __init__(self, source: str, message: str, line_no: int | None = None,
                 line: str | None = None) -> None:
        self.source = source
        self.line_no = line_no
        self.line = line
        where = f" (line {line_no}: {line!r})" if line_no is not None else ""
        super().__init__(f"{source}: {message}{where}")
