"""DemoHost: a simulated ZFS machine that answers real commands in real formats.

See `zconsole.hosts.demo.host` for the time model and `scenarios` for the machines.
"""

from zconsole.hosts.demo.host import DemoHost
from zconsole.hosts.demo.scenarios import SCENARIOS, list_scenarios

__all__ = ["SCENARIOS", "DemoHost", "list_scenarios"]
