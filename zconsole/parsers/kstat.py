"""The kstat text format of /proc/spl/kstat/zfs/* (arcstats, zil, ...): name -> integer.

A header line (`18 1 0x01 147 39984 13429029570 78990487020`: kid, type, flags, number of
entries, data size, then the kstat's creation and snapshot times in ns since boot), a column
header `name type data`, then one `name type value` line per statistic, whitespace-aligned.
Types: 4 = uint64, 3 = int64, 1/2 = int32/uint32. Other types (7: a string, such as an
objset's `dataset_name`) are skipped. Linear in the input.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from zconsole.parsers.errors import ParseError

_HEADER = re.compile(r"[0-9]+ [0-9]+ 0x[0-9a-fA-F]+( [0-9]+)*", re.ASCII)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)
_SIGNED = re.compile(r"-?[0-9]+", re.ASCII)
_UNSIGNED = re.compile(r"[0-9]+", re.ASCII)
_INT_TYPES = {"1": _SIGNED, "2": _UNSIGNED, "3": _SIGNED, "4": _UNSIGNED}


class Kstat(NamedTuple):
    """The integer statistics of one kstat file, and how old the snapshot is."""

    fields: dict[str, int]
    age_s: float | None  # snapshot time minus creation time (header), None without a header


def parse_kstat(text: str, source: str) -> Kstat:
    """The integer statistics of one kstat file; ParseError (naming `source`) otherwise."""
    fields: dict[str, int] = {}
    age: float | None = None
    for line_no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if _HEADER.fullmatch(line):
            nums = line.split()
            if len(nums) == 7 and int(nums[6]) >= int(nums[5]):
                age = (int(nums[6]) - int(nums[5])) / 1e9
            continue
        if line.split() == ["name", "type", "data"]:
            continue
        parts = line.split()
        if len(parts) != 3 or not _NAME.fullmatch(parts[0]):
            raise ParseError(source, "expected `name type value`", line_no, raw)
        name, kind, value = parts
        pattern = _INT_TYPES.get(kind)
        if pattern is None:
            if not _UNSIGNED.fullmatch(kind):
                raise ParseError(source, f"bad kstat type {kind!r}", line_no, raw)
            continue  # a non-integer kstat type: not used by zconsole
        if not pattern.fullmatch(value):
            raise ParseError(source, f"bad value {value!r} for type {kind}", line_no, raw)
        fields[name] = int(value)  # a repeated name keeps the last value
    if not fields:
        raise ParseError(source, "no statistics found")
    return Kstat(fields, age)
