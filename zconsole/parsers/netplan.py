"""`netplan get`: the merged netplan YAML, read only as far as the boot panel needs it.

netplan prints block-style YAML with two-space indents: `network:`, then device sections
(`ethernets:`, `bridges:`, `vlans:`, `bonds:` ...), device ids under them and each device's
keys under that. This reads the scalar keys of each device (`dhcp4: true`,
`optional: true`, `link: br0`) and its `interfaces` list; nested mappings (`match:`,
`routes:`) are skipped. It is not a YAML parser and never needs to be one: a line it cannot
place is an error, never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from zconsole.parsers.errors import ParseError, parser

SOURCE = "netplan get"
SECTIONS = ("ethernets", "bridges", "vlans", "bonds", "wifis", "tunnels", "vrfs", "modems",
            "dummy-devices", "virtual-ethernets", "nm-devices")


@dataclass(frozen=True)
class NetplanDevice:
    name: str
    section: str  # ethernets, bridges ...
    keys: dict[str, str] = field(default_factory=dict)
    interfaces: tuple[str, ...] = ()

    def flag(self, key: str) -> bool:
        return self.keys.get(key, "").strip().strip("\"'").lower() == "true"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _unquote(s: str) -> str:
    s = s.strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "\"'":
        return s[1:-1]
    return s


@parser(SOURCE)
def parse_netplan_get(text: str) -> dict[str, NetplanDevice]:
    """Device id -> its scalar keys and interfaces (merged from every netplan file)."""
    devices: dict[str, NetplanDevice] = {}
    section: str | None = None
    section_indent = -1
    dev: str | None = None
    dev_indent = -1
    keys: dict[str, str] = {}
    ifaces: list[str] = []
    in_ifaces = -1  # the indent of an `interfaces:` key whose list follows

    def close() -> None:
        if dev is not None and section is not None:
            devices[dev] = NetplanDevice(dev, section, dict(keys), tuple(ifaces))

    saw_network = False
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        ind = _indent(raw)
        line = raw.strip()
        if ind == 0:
            close()
            dev, section = None, None
            if line != "network:" and not line.startswith("network: "):
                raise ParseError(SOURCE, "not under `network:`", n, raw)
            saw_network = True
            continue
        if section is not None and ind <= section_indent:
            close()
            dev, section = None, None
        if section is None:
            key = line.partition(":")[0]
            if key in SECTIONS and line.endswith(":"):
                section, section_indent = key, ind
            continue
        if dev is not None and ind <= dev_indent:
            close()
            dev = None
        if dev is None:
            if line.endswith(": {}"):  # a device with no settings of its own
                name = _unquote(line[:-4])
                devices[name] = NetplanDevice(name, section)
                continue
            if not line.endswith(":"):
                raise ParseError(SOURCE, "a device id line must end in ':'", n, raw)
            dev, dev_indent = _unquote(line[:-1]), ind
            keys, ifaces, in_ifaces = {}, [], -1
            continue
        if in_ifaces >= 0 and ind >= in_ifaces and line.startswith("- "):
            ifaces.append(_unquote(line[2:]))
            continue
        in_ifaces = -1
        if line.startswith("- ") or line == "-":
            continue  # an item of a list not read here (addresses:, routes:)
        if ind != dev_indent + 2 and ind != dev_indent + 4:
            continue  # deeper: inside a nested mapping (match:, routes:, nameservers:)
        if ind == dev_indent + 4:
            continue
        key, colon, value = line.partition(":")
        if not colon:
            raise ParseError(SOURCE, "not a `key: value` line", n, raw)
        value = value.strip()
        if key == "interfaces":
            if value.startswith("[") and value.endswith("]"):
                ifaces.extend(_unquote(v) for v in value[1:-1].split(",") if v.strip())
            elif not value:
                in_ifaces = ind
            continue
        if value:
            keys[key] = _unquote(value)
    close()
    if not saw_network and text.strip():
        raise ParseError(SOURCE, "no `network:` mapping")
    return devices
