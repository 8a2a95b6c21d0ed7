"""The simulated machine: its state and the changes commands make to it, one module per subject.

| module | what lives there |
|---|---|
| `state` | `Machine`: the whole host, lookups across its parts, its clock (`advance`) |
| `common` | size units, `stable_int`, `jitter`, `CmdError` (a refusal: exit code and stderr) |
| `disks` | disks, partitions, I/O load and counters, `zpool labelclear` |
| `pools` | vdev trees, pools, dedup tables, space arithmetic, `zpool set`, `zpool clear` |
| `vdevs` | attach, replace, detach, online, offline |
| `scans` | scrubs and resilvers: progress, start, pause, cancel, completion |
| `datasets` | datasets, snapshots, snapshot series; rename, mount, unmount |
| `properties` | dataset property defaults, inheritance, mountpoints, `zfs set` |
| `snapshots` | `zfs snapshot`, `destroy`, `clone`, `promote` |
| `streams` | `zfs send`, `zfs receive` |
| `arc` | the ARC and its counters |
| `net` | network links |

A new subject (systemd units, sshd settings) is a new module here plus a field on `Machine`;
the commands that read or change it live in `..tools`, its file formats in `..render`.
"""

from zconsole.hosts.demo.machine.common import CmdError
from zconsole.hosts.demo.machine.state import Machine

__all__ = ["CmdError", "Machine"]
