"""DemoHost: a simulated Linux machine with OpenZFS that answers real commands in the real
formats of OpenZFS 2.1 and 2.3, and evolves with its clock.

Where things live (each folder's `__init__` lists its modules):

- `host.py`: `DemoHost`, the Host protocol over the simulation (time model, files);
  `record.py`: the machine kept beside the plans (`--demo-state DIR`) and rebuilt;
- `tools/`: one module per program family (zpool, zfs, block, net, misc): argv in, answer
  out. A new program (systemctl, journalctl, sshd) is one new module there;
- `machine/`: the simulated state and its changes, one module per subject (pools, vdevs,
  disks, datasets, ...). New state (systemd units) is a module there plus a `Machine` field;
- `render/`: the machine in the tools' output formats and the virtual file tree;
- `scenarios/`: one module per demo machine; a new scenario is one new file there;
- `getopt.py`, `fmt.py`: glibc getopt and OpenZFS's number and time formats.
"""

from zconsole.hosts.demo.host import DemoHost
from zconsole.hosts.demo.scenarios import SCENARIOS, list_scenarios

__all__ = ["SCENARIOS", "DemoHost", "list_scenarios"]
