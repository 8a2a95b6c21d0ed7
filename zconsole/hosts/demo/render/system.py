"""How the demo's system programs print (formats of the Debian 12 host guest's captures in
tests/fixtures/host/), and the machine every scenario starts from: the clean guest's sshd
settings and config file, its boot figures and links, a few quick logins in the journal.

SSHD_T and SSHD_CONFIG are the clean guest's `sshd -T` and /etc/ssh/sshd_config as captured
(tests/fixtures/host/clean/sshd-T.txt and sshd_config: Debian 12's vendor file)."""

from __future__ import annotations

import datetime as dt

from zconsole.hosts.demo.machine import Machine
from zconsole.hosts.demo.machine.system import JournalEntry, Lookup, System

SSHD_T = """\
port 22
addressfamily any
listenaddress [::]:22
listenaddress 0.0.0.0:22
usepam yes
logingracetime 120
x11displayoffset 10
maxauthtries 6
maxsessions 10
clientaliveinterval 0
clientalivecountmax 3
requiredrsasize 1024
streamlocalbindmask 0177
unusedconnectiontimeout none
permitrootlogin without-password
ignorerhosts yes
ignoreuserknownhosts no
hostbasedauthentication no
hostbasedusesnamefrompacketonly no
pubkeyauthentication yes
kerberosauthentication no
kerberosorlocalpasswd yes
kerberosticketcleanup yes
gssapiauthentication no
gssapicleanupcredentials yes
gssapikeyexchange no
gssapistrictacceptorcheck yes
gssapistorecredentialsonrekey no
gssapikexalgorithms gss-group14-sha256-,gss-group16-sha512-,gss-nistp256-sha256-,gss-curve25519-sha256-,gss-group14-sha1-,gss-gex-sha1-
passwordauthentication yes
kbdinteractiveauthentication no
printmotd no
printlastlog yes
x11forwarding yes
x11uselocalhost yes
permittty yes
permituserrc yes
strictmodes yes
tcpkeepalive yes
permitemptypasswords no
compression yes
gatewayports no
usedns no
allowtcpforwarding yes
allowagentforwarding yes
disableforwarding no
allowstreamlocalforwarding yes
streamlocalbindunlink no
fingerprinthash SHA256
exposeauthinfo no
pidfile /run/sshd.pid
modulifile /etc/ssh/moduli
xauthlocation /usr/bin/xauth
ciphers chacha20-poly1305@openssh.com,aes128-ctr,aes192-ctr,aes256-ctr,aes128-gcm@openssh.com,aes256-gcm@openssh.com
macs umac-64-etm@openssh.com,umac-128-etm@openssh.com,hmac-sha2-256-etm@openssh.com,hmac-sha2-512-etm@openssh.com,hmac-sha1-etm@openssh.com,umac-64@openssh.com,umac-128@openssh.com,hmac-sha2-256,hmac-sha2-512,hmac-sha1
banner none
forcecommand none
chrootdirectory none
trustedusercakeys none
revokedkeys none
securitykeyprovider internal
authorizedprincipalsfile none
versionaddendum none
authorizedkeyscommand none
authorizedkeyscommanduser none
authorizedprincipalscommand none
authorizedprincipalscommanduser none
hostkeyagent none
kexalgorithms sntrup761x25519-sha512,sntrup761x25519-sha512@openssh.com,curve25519-sha256,curve25519-sha256@libssh.org,ecdh-sha2-nistp256,ecdh-sha2-nistp384,ecdh-sha2-nistp521,diffie-hellman-group-exchange-sha256,diffie-hellman-group16-sha512,diffie-hellman-group18-sha512,diffie-hellman-group14-sha256
casignaturealgorithms ssh-ed25519,ecdsa-sha2-nistp256,ecdsa-sha2-nistp384,ecdsa-sha2-nistp521,sk-ssh-ed25519@openssh.com,sk-ecdsa-sha2-nistp256@openssh.com,rsa-sha2-512,rsa-sha2-256
hostbasedacceptedalgorithms ssh-ed25519-cert-v01@openssh.com,ecdsa-sha2-nistp256-cert-v01@openssh.com,ecdsa-sha2-nistp384-cert-v01@openssh.com,ecdsa-sha2-nistp521-cert-v01@openssh.com,sk-ssh-ed25519-cert-v01@openssh.com,sk-ecdsa-sha2-nistp256-cert-v01@openssh.com,rsa-sha2-512-cert-v01@openssh.com,rsa-sha2-256-cert-v01@openssh.com,ssh-ed25519,ecdsa-sha2-nistp256,ecdsa-sha2-nistp384,ecdsa-sha2-nistp521,sk-ssh-ed25519@openssh.com,sk-ecdsa-sha2-nistp256@openssh.com,rsa-sha2-512,rsa-sha2-256
hostkeyalgorithms ssh-ed25519-cert-v01@openssh.com,ecdsa-sha2-nistp256-cert-v01@openssh.com,ecdsa-sha2-nistp384-cert-v01@openssh.com,ecdsa-sha2-nistp521-cert-v01@openssh.com,sk-ssh-ed25519-cert-v01@openssh.com,sk-ecdsa-sha2-nistp256-cert-v01@openssh.com,rsa-sha2-512-cert-v01@openssh.com,rsa-sha2-256-cert-v01@openssh.com,ssh-ed25519,ecdsa-sha2-nistp256,ecdsa-sha2-nistp384,ecdsa-sha2-nistp521,sk-ssh-ed25519@openssh.com,sk-ecdsa-sha2-nistp256@openssh.com,rsa-sha2-512,rsa-sha2-256
pubkeyacceptedalgorithms ssh-ed25519-cert-v01@openssh.com,ecdsa-sha2-nistp256-cert-v01@openssh.com,ecdsa-sha2-nistp384-cert-v01@openssh.com,ecdsa-sha2-nistp521-cert-v01@openssh.com,sk-ssh-ed25519-cert-v01@openssh.com,sk-ecdsa-sha2-nistp256-cert-v01@openssh.com,rsa-sha2-512-cert-v01@openssh.com,rsa-sha2-256-cert-v01@openssh.com,ssh-ed25519,ecdsa-sha2-nistp256,ecdsa-sha2-nistp384,ecdsa-sha2-nistp521,sk-ssh-ed25519@openssh.com,sk-ecdsa-sha2-nistp256@openssh.com,rsa-sha2-512,rsa-sha2-256
loglevel INFO
syslogfacility AUTH
authorizedkeysfile .ssh/authorized_keys .ssh/authorized_keys2
hostkey /etc/ssh/ssh_host_rsa_key
hostkey /etc/ssh/ssh_host_ecdsa_key
hostkey /etc/ssh/ssh_host_ed25519_key
acceptenv LANG
acceptenv LC_*
authenticationmethods any
subsystem sftp /usr/lib/openssh/sftp-server
maxstartups 10:30:100
persourcemaxstartups none
persourcenetblocksize 32:128
permittunnel no
ipqos lowdelay throughput
rekeylimit 0 0
permitopen any
permitlisten any
permituserenvironment no
pubkeyauthoptions none
"""

SSHD_CONFIG = """\

# This is the sshd server system-wide configuration file.  See
# sshd_config(5) for more information.

# This sshd was compiled with PATH=/usr/local/bin:/usr/bin:/bin:/usr/games

# The strategy used for options in the default sshd_config shipped with
# OpenSSH is to specify options with their default value where
# possible, but leave them commented.  Uncommented options override the
# default value.

Include /etc/ssh/sshd_config.d/*.conf

#Port 22
#AddressFamily any
#ListenAddress 0.0.0.0
#ListenAddress ::

#HostKey /etc/ssh/ssh_host_rsa_key
#HostKey /etc/ssh/ssh_host_ecdsa_key
#HostKey /etc/ssh/ssh_host_ed25519_key

# Ciphers and keying
#RekeyLimit default none

# Logging
#SyslogFacility AUTH
#LogLevel INFO

# Authentication:

#LoginGraceTime 2m
#PermitRootLogin prohibit-password
#StrictModes yes
#MaxAuthTries 6
#MaxSessions 10

#PubkeyAuthentication yes

# Expect .ssh/authorized_keys2 to be disregarded by default in future.
#AuthorizedKeysFile	.ssh/authorized_keys .ssh/authorized_keys2

#AuthorizedPrincipalsFile none

#AuthorizedKeysCommand none
#AuthorizedKeysCommandUser nobody

# For this to work you will also need host keys in /etc/ssh/ssh_known_hosts
#HostbasedAuthentication no
# Change to yes if you don't trust ~/.ssh/known_hosts for
# HostbasedAuthentication
#IgnoreUserKnownHosts no
# Don't read the user's ~/.rhosts and ~/.shosts files
#IgnoreRhosts yes

# To disable tunneled clear text passwords, change to no here!
#PasswordAuthentication yes
#PermitEmptyPasswords no

# Change to yes to enable challenge-response passwords (beware issues with
# some PAM modules and threads)
KbdInteractiveAuthentication no

# Kerberos options
#KerberosAuthentication no
#KerberosOrLocalPasswd yes
#KerberosTicketCleanup yes
#KerberosGetAFSToken no

# GSSAPI options
#GSSAPIAuthentication no
#GSSAPICleanupCredentials yes
#GSSAPIStrictAcceptorCheck yes
#GSSAPIKeyExchange no

# Set this to 'yes' to enable PAM authentication, account processing,
# and session processing. If this is enabled, PAM authentication will
# be allowed through the KbdInteractiveAuthentication and
# PasswordAuthentication.  Depending on your PAM configuration,
# PAM authentication via KbdInteractiveAuthentication may bypass
# the setting of "PermitRootLogin prohibit-password".
# If you just want the PAM account and session checks to run without
# PAM authentication, then enable this but set PasswordAuthentication
# and KbdInteractiveAuthentication to 'no'.
UsePAM yes

#AllowAgentForwarding yes
#AllowTcpForwarding yes
#GatewayPorts no
X11Forwarding yes
#X11DisplayOffset 10
#X11UseLocalhost yes
#PermitTTY yes
PrintMotd no
#PrintLastLog yes
#TCPKeepAlive yes
#PermitUserEnvironment no
#Compression delayed
#ClientAliveInterval 0
#ClientAliveCountMax 3
#UseDNS no
#PidFile /run/sshd.pid
#MaxStartups 10:30:100
#PermitTunnel no
#ChrootDirectory none
#VersionAddendum none

# no default banner path
#Banner none

# Allow client to pass locale environment variables
AcceptEnv LANG LC_*

# override default of no subsystems
Subsystem	sftp	/usr/lib/openssh/sftp-server

# Example of overriding settings on a per-user basis
#Match User anoncvs
#	X11Forwarding no
#	AllowTcpForwarding no
#	PermitTTY no
#	ForceCommand cvs server
"""

CHAIN_LEGEND = ('The time when unit became active or started is printed after the "@" '
                'character.\nThe time the unit took to start is printed after the "+" '
                'character.\n\n')
JOURNAL_HINT = ("Hint: You are currently not seeing messages from other users and the system.\n"
                "      Users in groups 'adm', 'systemd-journal' can see all messages.\n"
                "      Pass -q to turn off this notice.\n"
                "No journal files were opened due to insufficient permissions.\n")
# /etc/pam.d/common-session up to the line the guest's `grep -n pam_systemd` printed
# (24:session\toptional\tpam_systemd.so ); the lines before it are left blank here
COMMON_SESSION = "\n" * 23 + "session\toptional\tpam_systemd.so \n"
KEY = "ED25519 SHA256:H2ymBbBofMwobA0c50MEPZiJ16EC5bAEmF3LwQTCLEo"


def journal_line(hostname: str, e: JournalEntry) -> str:
    """`-o short-iso-precise`: 2026-11-23T17:13:27.501448+0000 HOST IDENT[PID]: MESSAGE."""
    t = dt.datetime.fromtimestamp(e.at, dt.timezone.utc)
    return f"{t.strftime('%Y-%m-%dT%H:%M:%S.%f+0000')} {hostname} {e.ident}[{e.pid}]: {e.message}"


def networkctl_list(links: list[tuple[int, str, str, str, str]]) -> str:
    """`networkctl list`: columns as wide as their longest cell, then `N links listed.`"""
    head = ("IDX", "LINK", "TYPE", "OPERATIONAL", "SETUP")
    rows = [(str(i), n, t, o, s) for i, n, t, o, s in links]
    w = [max(len(r[c]) for r in [head, *rows]) for c in range(5)]
    out = [" ".join([head[0].rjust(w[0]), *(head[c].ljust(w[c]) for c in range(1, 4)),
                     head[4]])]
    out += [" ".join([r[0].rjust(w[0]), *(r[c].ljust(w[c]) for c in range(1, 4)), r[4]])
            for r in rows]
    return "\n".join(out) + f"\n\n{len(rows)} links listed.\n"


def parse_t(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        k, _, v = line.partition(" ")
        out.setdefault(k, []).append(v)
    return out


WORKSTATION = "192.168.10.31"  # the operator's workstation: the demo's logins come from it


def login(at: float, pid: int, session: int, *, user: str = "root", uid: int = 0,
          addr: str = WORKSTATION, port: int = 54572, reverse: str | None = None,
          auth: float = 0.08, setup: float = 0.40, logind_pid: int = 405,
          manager: float | None = None, failed: str | None = None) -> list[JournalEntry]:
    """One login as the guest's journal shows it (clean: Accepted, session opened, logind's
    New session, the scope). `reverse`: the name a slow PTR answer gave, logged `auth`
    seconds before Accepted (UseDNS yes). `manager`: the user's manager (user@UID.service)
    started for this login and took that long (the scope starts after it). `failed`:
    pam_systemd's "Failed to create session: FAILED" `setup` seconds after the session
    opened (logind did not answer: no New session, no scope)."""
    out = []
    t = at
    if reverse is not None:
        out.append(JournalEntry(t, "ssh.service", "sshd", pid,
                                f"reverse mapping checking getaddrinfo for {reverse} [{addr}] "
                                "failed."))
        t += auth
    out.append(JournalEntry(t, "ssh.service", "sshd", pid,
                            f"Accepted publickey for {user} from {addr} port {port} ssh2: "
                            f"{KEY}"))
    t += 0.08
    out.append(JournalEntry(t, "ssh.service", "sshd", pid,
                            f"pam_unix(sshd:session): session opened for user {user}(uid={uid}) "
                            "by (uid=0)"))
    t += setup
    if failed is not None:
        out.append(JournalEntry(t, "ssh.service", "sshd", pid,
                                f"pam_systemd(sshd:session): Failed to create session: "
                                f"{failed}"))
        return out
    out.append(JournalEntry(t, "systemd-logind.service", "systemd-logind", logind_pid,
                            f"New session {session} of user {user}."))
    if manager is not None:
        unit = f"user@{uid}.service"
        out.append(JournalEntry(t + 0.05, unit, "systemd", 1,
                                f"Starting {unit} - User Manager for UID {uid}..."))
        t += 0.05 + manager
        out.append(JournalEntry(t, unit, "systemd", 1,
                                f"Started {unit} - User Manager for UID {uid}."))
    out.append(JournalEntry(t + 0.17, f"session-{session}.scope", "systemd", 1,
                            f"Started session-{session}.scope - Session {session} of User "
                            f"{user}."))
    return out


def recent_logins(now: float, *, auth: float, reverse: str | None = None,
                  addr: str = WORKSTATION) -> list[JournalEntry]:
    """Three root logins from `addr` over the last hour (sessions 12 to 14), each `auth`
    seconds in authentication (after the PTR answer `reverse`, when given)."""
    out: list[JournalEntry] = []
    for n, (ago, pid, port) in enumerate(((3300, 2211, 50412), (1900, 2290, 50988),
                                          (420, 2377, 51630))):
        out += login(now - ago, pid, 12 + n, addr=addr, port=port, reverse=reverse, auth=auth)
    return out


def clean_host(m: Machine, hostname: str) -> System:
    """`m` named `hostname`, with the clean guest's system (`clean_system`) as its own: the
    start of a scenario about the host rather than its pools. Returns the system to change."""
    m.hostname = hostname
    m.system = clean_system(m)
    return m.system


def clean_system(m: Machine) -> System:
    """The clean guest (Debian's defaults: UseDNS no, wait-online not wanted), two quick
    logins of the last hour, and this machine's links as networkd would list them."""
    now = m.last
    s = System(sshd=parse_t(SSHD_T))
    s.journal = login(now - 1800, 451, 4) + login(now - 600, 458, 5, port=48298)
    s.lookups = {f"hosts {WORKSTATION}": Lookup("", 2, 0.02),
                 "hosts 127.0.0.1": Lookup("127.0.0.1       localhost\n", 0, 0.001)}
    s.startup = ("Startup finished in 3.902s (kernel) + 9.137s (userspace) = 13.039s \n"
                 "graphical.target reached after 8.844s in userspace.\n")
    s.blame = [("4.547s", "systemd-networkd.service"), ("2.945s", "dev-nvme0n1p2.device"),
               ("1.304s", "zfs-load-module.service"), ("1.022s", "networking.service"),
               ("0.787s", "systemd-journald.service")]
    s.chain = ("└─network.target @8.826s\n"
               "  └─systemd-networkd.service @4.279s +4.547s\n"
               "    └─systemd-udevd.service @2.114s +1.310s\n")
    s.links = []
    for ln in sorted(m.links, key=lambda ln: ln.ifindex):
        if ln.name == "lo":
            s.links.append((ln.ifindex, "lo", "loopback", "carrier", "unmanaged"))
            continue
        state = ("enslaved" if ln.master else "routable" if ln.up and ln.carrier
                 else "no-carrier" if ln.up else "off")
        s.links.append((ln.ifindex, ln.name, ln.kind or "ether", state,
                        "configured" if ln.up else "unmanaged"))
    s.enabled = {"systemd-networkd-wait-online.service": "enabled-runtime",
                 "ssh.service": "enabled", "ssh.socket": "disabled"}
    s.active = {"systemd-logind.service": "active", "dbus.service": "active",
                "ssh.service": "active"}
    s.netplan = ("network:\n  version: 2\n  renderer: networkd\n  ethernets:\n    eno1:\n"
                 "      dhcp4: true\n")
    for path, text in (("/etc/ssh/sshd_config", SSHD_CONFIG),
                       ("/etc/resolv.conf", "nameserver 192.168.10.1\n")):
        m.files.setdefault(path, text)
    return s
