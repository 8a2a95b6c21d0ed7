"""The fix-it domain: plans that change a host's system configuration (sshd now; systemd's
wait-online next), run by the same engine as the disk operations.

    predicates.py  the predicate kinds these plans use (file lines, sshd's effective values,
                   a fresh login's time), registered with the engine on import
    ssh.py         "fix-ssh": the reverse-DNS cause (`UseDNS yes`), its automatic rollback
                   and its undo (each a plan)
"""

from zconsole.services.ops.fixit import predicates, ssh

__all__ = ["predicates", "ssh"]
