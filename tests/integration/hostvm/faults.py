"""Host faults, each with an undo, for the Debian 12 host guest (tools/testvm --flavour host).

Every recipe changes only the guest, and all its traffic stays on the guest's loopback or on
QEMU's restricted user network: no other address is ever a target.

    from hostvm import faults
    fault = faults.make("slow-reverse-dns", guest)      # or faults.SlowReverseDns(guest)
    fault.apply()
    fault.cause()      # {"sshd UseDNS": "yes", ...}: what an operator (or a fix-it panel) finds
    fault.undo()       # back to the guest as built; safe to call twice, or without apply()

    with faults.applied("frozen-logind", guest) as fault:   # undo() on the way out, always
        ...

| name                | what                                                      | costs      |
|---------------------|-----------------------------------------------------------|------------|
| slow-reverse-dns    | resolver on 127.0.0.2 answering late (or never), resolv.conf | each login +2 lookups |
|                     | pointing at it, `UseDNS yes` in an sshd_config.d drop-in   |            |
| slow-user-manager   | user@.service drop-in `ExecStartPre=/bin/sleep 25`        | first login of a user +25 s |
| frozen-logind       | `kill -STOP systemd-logind` (pam_systemd waits 2 min)     | each login +120 s |
| sshd-auth-methods   | GSSAPI (drop-in), KbdInteractive (main file), Hostbased (in | more methods offered |
|                     | a Match block), Kerberos (after the Match: belongs to it)  |            |
| wait-online-hang    | netplan: br0 over lan0 (10.0.2.15/24 static), VLAN br0.100, bridge br100, and lan1 | boot +2 min (needs reboot) |
|                     | (no cable) with dhcp4; a unit that wants network-online    |            |
| ifupdown-dhcp-hang  | /etc/network/interfaces.d: `auto lan1` + `inet dhcp`, no cable | boot, and ssh, wait for dhclient (needs reboot) |

`apply()`/`undo()` of the two boot faults only write files; the test reboots (`guest.reboot()`)
to see the symptom, and reboots again after `undo()`: `needs_reboot` says so.
Backups of changed guest files are kept in /var/lib/zc-faults/ until undo().
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, ClassVar

from hostvm.guest import HostGuest

BACKUP_DIR = "/var/lib/zc-faults"

# Waits until sshd (reloaded with SIGHUP, which re-executes it) listens again.
_SSHD_RELOAD = """
sshd -t
systemctl reload ssh
sleep 1
for i in $(seq 1 100); do ss -Hltn 'sport = :22' | grep -q LISTEN && break; sleep 0.1; done
"""


class Fault:
    """One fault recipe on one guest."""

    name: ClassVar[str] = ""
    needs_reboot: ClassVar[bool] = False

    def __init__(self, guest: HostGuest) -> None:
        self.guest = guest
        self.applied = False  # apply() ran and undo() did not since

    def apply(self) -> None:
        """Put the fault in place (for needs_reboot recipes: reboot to see it)."""
        self.applied = True  # first: a half-applied fault must still be undone
        self._apply()

    def undo(self) -> None:
        """Back to the guest as built; safe twice, or without apply()."""
        self._undo()
        self.applied = False

    def _apply(self) -> None:
        raise NotImplementedError

    def _undo(self) -> None:
        raise NotImplementedError

    def cause(self) -> dict[str, str]:
        """The cause as the guest shows it now (settings, process states, unit files)."""
        raise NotImplementedError

    def _sh(self, script: str, timeout: float = 120.0) -> str:
        return self.guest.exec("set -e\n" + script, timeout=timeout).stdout

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.guest!r})"


# --------------------------------------------------------------------------- slow reverse DNS

SLOWDNS_PY = r'''#!/usr/bin/python3
"""zconsole fault recipe: a DNS server on 127.0.0.2:53 that answers late, or never.

PTR queries get slow-client.example, anything else NXDOMAIN, each after ZC_SLOWDNS_DELAY
seconds ("never": no answer at all). Listens on the loopback only."""
import os
import socket
import struct
import threading
import time

DELAY = os.environ.get("ZC_SLOWDNS_DELAY", "3")
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.bind(("127.0.0.2", 53))


def name_at(data, i):
    labels = []
    while data[i]:
        labels.append(data[i + 1:i + 1 + data[i]].decode("ascii", "replace"))
        i += data[i] + 1
    return ".".join(labels), i + 1


def encode(name):
    return b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\0"


def answer(data, addr):
    try:
        name, end = name_at(data, 12)
        qtype, _ = struct.unpack(">HH", data[end:end + 4])
    except (IndexError, struct.error):
        return
    print(f"query {name} type {qtype} from {addr}", flush=True)
    if DELAY == "never":
        return
    time.sleep(float(DELAY))
    question = data[12:end + 4]
    rd = data[2] & 1
    if qtype == 12:
        rdata = encode("slow-client.example")
        head = data[:2] + bytes([0x80 | rd, 0x80]) + struct.pack(">HHHH", 1, 1, 0, 0)
        rr = b"\xc0\x0c" + struct.pack(">HHIH", 12, 1, 60, len(rdata)) + rdata
        sock.sendto(head + question + rr, addr)
    else:
        head = data[:2] + bytes([0x80 | rd, 0x83]) + struct.pack(">HHHH", 1, 0, 0, 0)
        sock.sendto(head + question, addr)


while True:
    packet, peer = sock.recvfrom(512)
    threading.Thread(target=answer, args=(packet, peer), daemon=True).start()
'''

SLOWDNS_UNIT = """[Unit]
Description=zconsole fault recipe: DNS on 127.0.0.2 answering late ({delay})

[Service]
Environment=ZC_SLOWDNS_DELAY={delay}
ExecStart=/usr/bin/python3 /usr/local/sbin/zc-slowdns.py
"""


class SlowReverseDns(Fault):
    """sshd looks up the client's name (UseDNS yes) with a resolver that answers late.

    delay: seconds before each answer (glibc waits 5 s and then retries, so a delay of 5 s
    or more doubles each lookup), or "never"."""

    name = "slow-reverse-dns"
    DROPIN = "/etc/ssh/sshd_config.d/50-zc-usedns.conf"

    def __init__(self, guest: HostGuest, delay: float | str = 3) -> None:
        super().__init__(guest)
        self.delay = str(delay)

    def _apply(self) -> None:
        g = self.guest
        g.write_file("/usr/local/sbin/zc-slowdns.py", SLOWDNS_PY, "0755")
        g.write_file("/etc/systemd/system/zc-slowdns.service",
                     SLOWDNS_UNIT.format(delay=self.delay))
        self._sh(f"""
mkdir -p {BACKUP_DIR}
[ -e {BACKUP_DIR}/resolv.conf ] || cp -a /etc/resolv.conf {BACKUP_DIR}/resolv.conf
systemctl daemon-reload
systemctl restart zc-slowdns
for i in $(seq 1 100); do ss -Hlun 'sport = :53' | grep -q 127.0.0.2 && break; sleep 0.1; done
echo "nameserver 127.0.0.2" > /etc/resolv.conf
printf '# zconsole fault recipe: sshd looks up every client name\\nUseDNS yes\\n' > {self.DROPIN}
{_SSHD_RELOAD}""")

    def _undo(self) -> None:
        self._sh(f"""
rm -f {self.DROPIN}
{_SSHD_RELOAD}
systemctl stop zc-slowdns 2>/dev/null || true
rm -f /etc/systemd/system/zc-slowdns.service /usr/local/sbin/zc-slowdns.py
systemctl daemon-reload
if [ -e {BACKUP_DIR}/resolv.conf ]; then
  cp -a {BACKUP_DIR}/resolv.conf /etc/resolv.conf && rm -f {BACKUP_DIR}/resolv.conf
fi""")

    def cause(self) -> dict[str, str]:
        eff = self.guest.sshd_effective()
        ns = self.guest.exec("grep -h '^nameserver' /etc/resolv.conf", check=False).stdout
        return {
            "sshd UseDNS": eff.get("usedns", "?"),
            "nameservers": " ".join(line.split()[1] for line in ns.splitlines() if line.split()),
            "resolver": self.guest.exec("systemctl is-active zc-slowdns", check=False)
            .stdout.strip(),
        }


# --------------------------------------------------------------------------- slow session setup

class SlowUserManager(Fault):
    """The user's systemd instance (user@UID.service) takes `delay` seconds to start;
    pam_systemd's CreateSession (and so the login) waits for it. Only a login that finds no
    session of the same user pays it: close other sessions, wait UserStopDelaySec (10 s)."""

    name = "slow-user-manager"
    DROPIN = "/etc/systemd/system/user@.service.d/50-zc-slow.conf"

    def __init__(self, guest: HostGuest, delay: float = 25) -> None:
        super().__init__(guest)
        self.delay = delay

    def _apply(self) -> None:
        self.guest.write_file(
            self.DROPIN,
            "# zconsole fault recipe: a slow user manager\n"
            f"[Service]\nExecStartPre=/bin/sleep {self.delay:g}\n")
        self._sh("systemctl daemon-reload")

    def _undo(self) -> None:
        self._sh(f"rm -f {self.DROPIN}\nrmdir --ignore-fail-on-non-empty "
                 f"/etc/systemd/system/user@.service.d 2>/dev/null || true\n"
                 "systemctl daemon-reload")

    def cause(self) -> dict[str, str]:
        out = self.guest.exec("systemctl show user@0.service -p DropInPaths -p ExecStartPre",
                              check=False).stdout
        props = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
        return {
            "user@0 drop-ins": props.get("DropInPaths", ""),
            "user@0 ExecStartPre": props.get("ExecStartPre", ""),
        }


class FrozenLogind(Fault):
    """systemd-logind stopped (SIGSTOP): pam_systemd's CreateSession call times out after
    2 min on systemd 252 (not the 25 s D-Bus default). With systemd's service watchdogs
    switched off (`systemctl service-watchdogs no`, a runtime switch): logind's own (3 min)
    would kill and restart it, healing the fault behind a test's back; as a logind hung while
    its watchdog is still fed, the case the restart fix is for. The undo lets it go on
    (SIGCONT) and switches the watchdogs back on."""

    name = "frozen-logind"

    def _apply(self) -> None:
        self._sh("systemctl service-watchdogs no\nkill -STOP $(pidof systemd-logind)")

    def _undo(self) -> None:
        self._sh("pid=$(pidof systemd-logind) && kill -CONT $pid\n"
                 "systemctl service-watchdogs yes")

    def cause(self) -> dict[str, str]:
        out = self.guest.exec("ps -o stat= -C systemd-logind", check=False).stdout.strip()
        dogs = self.guest.exec("systemctl service-watchdogs", check=False).stdout.strip()
        return {"systemd-logind process state": out or "not running",
                "service watchdogs": dogs or "?"}


# --------------------------------------------------------------------------- sshd auth methods

AUTH_DROPIN = "/etc/ssh/sshd_config.d/40-zc-auth.conf"
AUTH_MATCH = """
# zconsole fault recipe: a Match block, and a setting written after it. sshd reads every line
# up to the next Match (or the end of the file) as part of the block, however it is indented.
Match Address 10.0.2.0/24
    HostbasedAuthentication yes
KerberosAuthentication yes
"""


class SshdAuthMethods(Fault):
    """Authentication methods an admin switched on: GSSAPI in a drop-in, keyboard-interactive
    in the main file, hostbased inside a Match block, Kerberos after the Match block (so it
    belongs to the block, applying only to matching clients: here QEMU's 10.0.2.0/24)."""

    name = "sshd-auth-methods"

    def _apply(self) -> None:
        self.guest.write_file(
            AUTH_DROPIN,
            "# zconsole fault recipe: GSSAPI switched on in a drop-in\nGSSAPIAuthentication yes\n")
        self._sh(f"""
mkdir -p {BACKUP_DIR}
[ -e {BACKUP_DIR}/sshd_config ] || cp -a /etc/ssh/sshd_config {BACKUP_DIR}/sshd_config
sed -i 's/^#*KbdInteractiveAuthentication .*/KbdInteractiveAuthentication yes/' /etc/ssh/sshd_config
grep -q '^KbdInteractiveAuthentication yes' /etc/ssh/sshd_config
cat >> /etc/ssh/sshd_config <<'EOF'
{AUTH_MATCH}EOF
{_SSHD_RELOAD}""")

    def _undo(self) -> None:
        self._sh(f"""
rm -f {AUTH_DROPIN}
if [ -e {BACKUP_DIR}/sshd_config ]; then
  cp -a {BACKUP_DIR}/sshd_config /etc/ssh/sshd_config && rm -f {BACKUP_DIR}/sshd_config
fi
{_SSHD_RELOAD}""")

    def cause(self) -> dict[str, str]:
        g = self.guest
        match = g.sshd_effective()
        everyone = g.sshd_effective(None)
        keys = ["gssapiauthentication", "kbdinteractiveauthentication",
                "hostbasedauthentication", "kerberosauthentication"]
        out = {f"{k} (client 10.0.2.2)": match.get(k, "?") for k in keys}
        out.update({f"{k} (global)": everyone.get(k, "?") for k in keys})
        return out

    def offered_methods(self) -> str:
        """What the server offers this machine's ssh client (from 'Permission denied (...)')."""
        import re
        import subprocess

        argv = self.guest.ssh_argv("true")
        argv[-2:-2] = ["-o", "PreferredAuthentications=none", "-o", "LogLevel=ERROR"]
        proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=120)
        m = re.search(r"Permission denied \(([^)]*)\)", proc.stderr)
        return m.group(1) if m else f"(no answer: {proc.stderr.strip()})"


# --------------------------------------------------------------------------- boot hangs

FAULT_NETPLAN = """# zconsole fault recipe: the seed's layout (br0 over lan0, VLAN br0.100, bridge br100)
# plus lan1, a port with no cable and dhcp4: systemd-networkd-wait-online waits for it.
network:
  version: 2
  renderer: networkd
  ethernets:
    lan0: {}
    lan1:
      dhcp4: true
  bridges:
    br0:
      interfaces: [lan0]
      # QEMU's user network, written out: ssh is forwarded to 10.0.2.15, and a bridge asking
      # QEMU's DHCP with its own MAC gets another address (ssh never came back that way)
      addresses: [10.0.2.15/24]
      routes:
        - to: default
          via: 10.0.2.2
    br100:
      interfaces: [br0.100]
      addresses: [192.168.100.1/24]
  vlans:
    br0.100:
      id: 100
      link: br0
"""

NEEDS_ONLINE_UNIT = """# zconsole fault recipe: stands for what wants the network online at boot (NFS mounts,
# docker, cloud-init ...). Nothing in a minimal bookworm does, so wait-online never ran.
[Unit]
Description=zconsole fault recipe: a service that needs the network online
Wants=network-online.target
After=network-online.target

[Service]
Type=oneshot
ExecStart=/bin/true
RemainAfterExit=yes

[Install]
WantedBy=multi-user.target
"""

NETPLAN_FILE = "/etc/netplan/01-hostvm.yaml"
NEEDS_ONLINE = "/etc/systemd/system/zc-needs-online.service"


class WaitOnlineHang(Fault):
    """Boot waits ~2 min for systemd-networkd-wait-online: a DHCP port without carrier stays
    'configuring', and a unit pulls in network-online.target. Reboot to see it."""

    name = "wait-online-hang"
    needs_reboot = True

    def _apply(self) -> None:
        self._sh(f"""
mkdir -p {BACKUP_DIR}
[ -e {BACKUP_DIR}/01-hostvm.yaml ] || cp -a {NETPLAN_FILE} {BACKUP_DIR}/01-hostvm.yaml
""")
        self.guest.write_file(NETPLAN_FILE, FAULT_NETPLAN, "0600")
        self.guest.write_file(NEEDS_ONLINE, NEEDS_ONLINE_UNIT)
        self._sh("netplan generate\nsystemctl daemon-reload\nsystemctl enable zc-needs-online.service")

    def _undo(self) -> None:
        self._sh(f"""
if [ -e {BACKUP_DIR}/01-hostvm.yaml ]; then
  cp -a {BACKUP_DIR}/01-hostvm.yaml {NETPLAN_FILE} && rm -f {BACKUP_DIR}/01-hostvm.yaml
fi
systemctl disable zc-needs-online.service 2>/dev/null || true
rm -f {NEEDS_ONLINE}
netplan generate
systemctl daemon-reload""")

    def cause(self) -> dict[str, str]:
        g = self.guest
        wait = g.unit_seconds("systemd-networkd-wait-online.service")
        links = g.exec("networkctl list --no-legend --no-pager", check=False).stdout
        wanted = g.exec("systemctl list-dependencies --reverse --plain --no-pager "
                        "network-online.target", check=False).stdout
        return {
            "wait-online seconds (blame)": "did not run" if wait is None else f"{wait:.1f}",
            "links configuring": " ".join(line.split()[1] for line in links.splitlines()
                                          if "configuring" in line) or "none",
            "wants network-online.target": " ".join(
                w.strip() for w in wanted.splitlines()[1:] if w.strip()) or "nothing",
        }


IFUPDOWN_FILE = "/etc/network/interfaces.d/zc-lan1"


class IfupdownDhcpHang(Fault):
    """Debian's ifupdown with a cable-less DHCP port. `auto lan1`: networking.service runs
    `ifup -a`, which waits for dhclient to give up, and network.target (so ssh.service) waits
    for it. `allow-hotplug lan1`: ifup@lan1.service runs on the udev event, apart from boot.
    Reboot to see it."""

    name = "ifupdown-dhcp-hang"
    needs_reboot = True

    def __init__(self, guest: HostGuest, stanza: str = "auto") -> None:
        super().__init__(guest)
        if stanza not in ("auto", "allow-hotplug"):
            raise ValueError(f"stanza must be auto or allow-hotplug, not {stanza!r}")
        self.stanza = stanza

    def _apply(self) -> None:
        self.guest.write_file(
            IFUPDOWN_FILE,
            f"# zconsole fault recipe: a port with no cable, on DHCP\n{self.stanza} lan1\n"
            "iface lan1 inet dhcp\n")

    def _undo(self) -> None:
        self._sh(f"ifdown --force lan1 >/dev/null 2>&1 || true\nrm -f {IFUPDOWN_FILE}")

    def cause(self) -> dict[str, str]:
        g = self.guest
        networking = g.unit_seconds("networking.service")
        conf = g.exec(f"cat {IFUPDOWN_FILE} 2>/dev/null | grep -v '^#'", check=False).stdout
        return {
            "networking.service seconds (blame)":
                "did not run" if networking is None else f"{networking:.1f}",
            "interfaces.d": " / ".join(line.strip() for line in conf.splitlines()) or "none",
        }


# --------------------------------------------------------------------------- registry

RECIPES: dict[str, type[Fault]] = {
    cls.name: cls
    for cls in (SlowReverseDns, SlowUserManager, FrozenLogind, SshdAuthMethods, WaitOnlineHang,
                IfupdownDhcpHang)
}


def make(name: str, guest: HostGuest, **options: Any) -> Fault:
    """A recipe by name (see RECIPES), not yet applied."""
    return RECIPES[name](guest, **options)


def apply(name: str, guest: HostGuest, **options: Any) -> Fault:
    fault = make(name, guest, **options)
    fault.apply()
    return fault


def undo(fault: Fault) -> None:
    fault.undo()


@contextlib.contextmanager
def applied(name: str, guest: HostGuest, **options: Any) -> Iterator[Fault]:
    """apply(), and undo() on the way out whatever happens (no reboot: see needs_reboot)."""
    fault = make(name, guest, **options)
    try:
        fault.apply()
        yield fault
    finally:
        fault.undo()
