"""`zpool get -H -p ...` and `zfs get -H -p ...` -> PropertyValue rows.

Format: the default `-o` fields are name, property, value, source, separated by one TAB.
Traps:
* values and sources may contain spaces (`mountpoint=/srv/my data`,
  `inherited from tank/a`), so never split on whitespace. A user property value may even
  contain a TAB; then the row has more than 4 fields and everything between the property and
  the last field is rejoined as the value.
* `-` is a real value for many properties (e.g. `expandsize` 0, `origin` of a non-clone) and
  the `source` of read-only properties is `-`; both are kept as the string `-`.
* Without `-p`, sizes are human strings ("793M") and ratios carry `x` ("3.00x").
* `zfs get -H` with `-o` other than the default four columns is not this parser's job.
"""

from __future__ import annotations

from collections.abc import Iterable

from zconsole.model.dataset import PropertyValue
from zconsole.parsers.errors import ParseError, parser

SOURCE = "zfs/zpool get"


@parser(SOURCE)
def parse_get(text: str) -> list[PropertyValue]:
    rows: list[PropertyValue] = []
    for line_no, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) < 4:
            raise ParseError(SOURCE, f"row has {len(fields)} fields, expected 4 "
                             "(name, property, value, source)", line_no, line)
        name, prop = fields[0], fields[1]
        if not name or not prop:
            raise ParseError(SOURCE, "empty name or property", line_no, line)
        value = "\t".join(fields[2:-1])
        rows.append(PropertyValue(name=name, property=prop, value=value, source=fields[-1]))
    return rows


def props_by_name(rows: Iterable[PropertyValue]) -> dict[str, dict[str, str]]:
    """{dataset or pool name: {property: value}}; a repeated property keeps the last value."""
    out: dict[str, dict[str, str]] = {}
    for r in rows:
        out.setdefault(r.name, {})[r.property] = r.value
    return out
