"""The machine in the real tools' formats, one module per output family. Pure functions of
the `Machine` (and the time): nothing here changes it.

| module | what it prints |
|---|---|
| `status` | `zpool status`, text (2.1 and 2.3) and JSON (`-j`) |
| `list` | `zpool list [-v]`, `zpool get` |
| `iostat` | `zpool iostat [-v] [-l] [interval [count]]` |
| `zfs` | `zfs list`, `zfs get` (one function per property) |
| `block` | udev properties and database, `lsblk -J`, /dev and /sys/class/block |
| `net` | `ip -j link/addr`, `bridge -j vlan`, /sys/class/net |
| `proc` | /proc/spl/kstat/zfs/arcstats and zil, /proc/diskstats, /proc/mounts, /proc/swaps |
| `tree` | `Tree`, the virtual filesystem `block` and `net` fill |

A new program's output format goes in a new module here, called by its handler in `..tools`.
"""
