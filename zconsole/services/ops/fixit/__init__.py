"""The fix-it domain: plans that change a host's system configuration (sshd, systemd's
wait-online), run by the same engine as the disk operations.

    common.py      what they share: the backup (`cp -a`) and restore of a file, the change
                   as a unified diff (in the preview and the audit intent), FixRunner (the
                   rollback of a half-applied fix), the applied fixes an undo is built from,
                   what an undo re-checks (the file byte for byte as the fix left it)
    lines.py       a file's text as the fixes count it (lines end at \n only, as sed and
                   sshd's), its sha256, the diff, the sed script that names what it deletes
    predicates.py  the predicate kinds these plans use (file lines, sshd's effective values,
                   a fresh login's time), registered with the engine on import
    ssh.py         "fix-ssh": the reverse-DNS cause (`UseDNS yes`), its automatic rollback
                   and its undo (each a plan)
    boot.py        "fix-boot": the boot held by wait-online; netplan `optional: true`, the
                   wait-online `--interface=` and `--any` drop-ins, ifupdown's allow-hotplug, the mask (last
                   resort); each with its rollback and undo; effective at the next boot
    boot_facts.py  what fix-boot reads of the host (BootFacts) and which fix applies where
    boot_steps.py  fix-boot's steps per fix (netplan, ifupdown, mask) and what they share
    ssh_auth.py    "fix-ssh-auth": an authentication method switched off (GSSAPI, Kerberos,
                   keyboard-interactive, host-based) by a drop-in that wins for every client
                   and, repeating each Match line, for the clients of each Match block
    ssh_lockout.py fix-ssh-auth's refusal when a method off could lock someone out (an
                   AuthenticationMethods line names it, or last week's logins used it)
    boot_choice.py fix-boot's fixes to choose from (the Host screen's list), with costs
    session.py     "fix-session": the session setup's causes (logind not answering: its
                   restart; a slow user manager's drop-in: its removal, with undo)
"""

from zconsole.services.ops.fixit import boot, common, predicates, session, ssh, ssh_auth

__all__ = ["boot", "common", "predicates", "session", "ssh", "ssh_auth"]
