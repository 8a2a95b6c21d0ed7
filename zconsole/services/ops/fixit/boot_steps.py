"""fix-boot's steps, one builder per fix (the netplan edit, the ifupdown edit, the mask) and
what they share (the re-check of the stuck links, the typed confirmation, daemon-reload). The
wait-online drop-ins' steps and the plans themselves are in boot.py."""

from __future__ import annotations

from collections.abc import Sequence

from zconsole.hosts.base import Host, HostError
from zconsole.model.command import Command
from zconsole.model.plan import Check, CheckLevel, Confirmation, Plan, Predicate, Step, predicate
from zconsole.services.ops.fixit import common
from zconsole.services.ops.fixit.boot_facts import (
    CONFIRM,
    DAEMON_RELOAD,
    DROPIN_FIXES,
    HOTPLUG_LIST,
    IFUPDOWN,
    MASK,
    MASK_LINK,
    NETPLAN,
    NETPLAN_FILE,
    NETPLAN_HINT,
    UNIT,
    BootFacts,
    netplan_devices,
    sed_escape,
    stuck_links,
    with_optional,
)
from zconsole.services.ops.fixit.predicates import lines_beyond


def link_prechecks(links: Sequence[str]) -> tuple[Predicate, ...]:
    """The re-check right before the write: each link is still there, still configuring."""
    return tuple(predicate("link_setup", f"networkctl still shows {ln} configuring",
                           name=ln, setup="configuring") for ln in links)


def fix_confirmation(fix: str) -> Confirmation:
    return Confirmation(f"This changes how the host boots (at the next boot). Type "
                        f"{CONFIRM[fix]!r} to go on:", CONFIRM[fix])


def _key(section: str, link: str) -> str:
    """netplan's dotted key for the link's `optional` (a dot in a name is escaped: br0\\.100)."""
    return f"{section}.{link.replace('.', chr(92) + '.')}.optional"


def netplan_get(section: str, link: str) -> tuple[str, ...]:
    return ("netplan", "get", _key(section, link))


def netplan_steps(facts: BootFacts, links: Sequence[str], backup: str) -> list[Step]:
    devs = netplan_devices(facts) or {}
    steps: list[Step] = []
    if facts.netplan_file is not None:
        steps.append(common.backup_step(NETPLAN_FILE, backup, what=f"{NETPLAN_FILE}"))
    merged = facts.reading.netplan.value or ""
    for n, ln in enumerate(links):
        section = devs[ln].section
        after = with_optional(merged, ln)
        steps.append(Step(
            id="write" if n == 0 else f"write-{ln}",
            title=f"Mark {ln} optional in netplan ({NETPLAN_FILE})",
            explanation=(f"`netplan set` writes {section}.{ln} with `optional: true` into "
                         f"{NETPLAN_FILE} (netplan ≥ 0.106 copies {ln}'s whole definition "
                         "there; no other file is changed). The diff is of `netplan get`, the "
                         "merged configuration."),
            command=Command(("netplan", "set", f"--origin-hint={NETPLAN_HINT}",
                             f"{_key(section, ln)}=true"), f"mark {ln} optional",
                            writes=True,
                            diff=common.unified_diff("/etc/netplan (netplan get)", merged,
                                                     after)),
            prechecks=link_prechecks([ln]),
            confirmation=fix_confirmation(NETPLAN) if n == 0 else None))
        merged = after
    steps.append(Step(
        id="validate", title="Validate: netplan generate",
        explanation="netplan reads every file and renders networkd's files under /run (what "
                    "the next boot renders too); it refuses a configuration it cannot "
                    "read. No `netplan apply`: no link is touched now.",
        command=Command(("netplan", "generate"), "validate and render netplan's "
                        "configuration", writes=True)))
    steps.append(Step(
        id="prove", title="Prove the merged value: netplan get",
        explanation="`netplan get` prints the configuration merged from every file.",
        postchecks=tuple(predicate("command_line", f"netplan get "
                                   f"{_key(devs[ln].section, ln)} prints true",
                                   argv="\t".join(netplan_get(devs[ln].section, ln)),
                                   line="true", want="yes") for ln in links)))
    return steps


def ifupdown_steps(link: str, file: str, line: int, backup: str, before: str) -> list[Step]:
    old, new = f"auto {link}", f"allow-hotplug {link}"
    expr = f"{line}s/^{sed_escape(old)}$/{sed_escape(new)}/"
    after = common.replace_line(before, line, new)
    return [
        common.backup_step(file, backup, what=file),
        Step(id="write", title=f"{file}:{line}: `{old}` → `{new}`",
             explanation=(f"ifup -a (networking.service, at boot) no longer waits for {link}; "
                          "udev brings it up when its cable is plugged in. The sed expression "
                          "only acts on that line, and only if it still reads exactly that."),
             command=Command(("sed", "-i", "-e", expr, file), f"{old} → {new}", writes=True,
                             diff=common.unified_diff(file, before, after)),
             prechecks=(common.not_symlink(file),
                        predicate("file_line", f"{file}:{line} still reads {old!r}",
                                  path=file, line=str(line), text=old),
                        common.file_is(file, before, "what the preview read"),
                        predicate("path_exists", f"{link} still exists",
                                  path=f"/sys/class/net/{link}", want="yes")),
             postchecks=(predicate("file_line", f"{file}:{line} reads {new!r}", path=file,
                                   line=str(line), text=new),
                         common.file_is(file, after, "the preview's result")),
             confirmation=fix_confirmation(IFUPDOWN)),
        Step(id="validate", title="Validate: ifquery --list --allow=hotplug",
             explanation="ifupdown reads its files as it will at boot and lists the "
                         "interfaces udev brings up.",
             command=Command(HOTPLUG_LIST, "list the allow-hotplug interfaces"),
             postchecks=(predicate("command_line", f"ifquery lists {link} as allow-hotplug",
                                   argv="\t".join(HOTPLUG_LIST), line=link, want="yes"),)),
    ]


def mask_steps() -> list[Step]:
    return [Step(
        id="mask", title=f"systemctl mask {UNIT}",
        explanation=(f"links {MASK_LINK} to /dev/null: the unit never starts (netplan's "
                     "generator re-enables it at every boot, so `disable` would not stick)."),
        command=Command(("systemctl", "mask", UNIT), "mask wait-online", writes=True),
        prechecks=(predicate("path_exists", f"{MASK_LINK} does not exist (no local unit "
                             "file to shadow)", path=MASK_LINK, want="no"),),
        postchecks=(predicate("command_line", f"systemctl is-enabled {UNIT} says masked",
                              argv=f"systemctl\tis-enabled\t{UNIT}", line="masked",
                              want="yes"),),
        confirmation=fix_confirmation(MASK))]


def daemon_reload_step(step_id: str = "reload") -> Step:
    return Step(id=step_id, title="systemctl daemon-reload",
                explanation="systemd reads the unit files again (nothing is started or "
                            "stopped).",
                command=Command(DAEMON_RELOAD, "reload systemd's unit files", writes=True))


# ------------------------------------------------------------ what the undo re-checks


def fix_left(fix: str, lines: Sequence[str], facts: BootFacts, file: str,
          line: int) -> tuple[tuple[str, str], ...]:
    """What the fix leaves in its file (the undo re-checks it): the drop-in's text, or the
    ifupdown file with its line changed; nothing for netplan's file (netplan writes it)."""
    if fix in DROPIN_FIXES:
        return common.left_params(common.lines_text(lines), None)
    if fix == NETPLAN:  # netplan writes the file: the lines it may hold afterwards
        devs = netplan_devices(facts) or {}
        allowed = {"network:", "version: 2", "optional: true", *(
            x.strip() for x in common.text_lines(facts.netplan_file or ""))}
        for ln in stuck_links(facts):
            allowed |= {f"{ln}:", *((f"{devs[ln].section}:",) if ln in devs else ())}
        return (("netplan_lines", "\t".join(sorted(x for x in allowed if x))),)
    if fix == IFUPDOWN and file in facts.ifupdown:
        before = facts.ifupdown[file]
        link = dict(enumerate(common.text_lines(before), 1)).get(line, "").split()[-1:]
        return common.left_params(common.replace_line(
            before, line, f"allow-hotplug {''.join(link)}"), before)
    return ()


def netplan_refusal(host: Host, fix: Plan) -> Check | None:
    """The netplan fix's undo, read now: refused when its file holds lines `netplan set`
    did not write for zconsole (a hand edit since; netplan writes the file itself, so no
    byte-for-byte record of it exists)."""
    p = dict(fix.params)
    file = p.get("file", "")
    try:
        text = host.read_text(file)
    except (HostError, OSError):
        return None  # gone, or unread: the run re-checks right before
    extra = lines_beyond(text, set(p.get("netplan_lines", "").split("\t")))
    if not extra:
        return None
    return Check("undo-changed", False, CheckLevel.BLOCK,
                 f"{file} holds lines `netplan set` did not write for zconsole ("
                 + "; ".join(repr(x) for x in extra[:5]) + "): someone changed it since; the "
                 "undo would lose that, so it refuses. The file now:\n" + text)
