"""fix-boot: the boot waits (2 min by default) for systemd-networkd-wait-online, held by a
link networkd is still `configuring` (a port with no cable that asks for DHCP). The fixes,
narrowest first, chosen from the diagnosis (which link, and whether netplan, ifupdown or
plain networkd defines it); each a plan the engine runs like any disk operation (exact argv,
re-checked right before the write, audited with the file's diff, verified, undoable):

* `netplan-optional` (netplan hosts): `netplan set --origin-hint=90-zconsole
  SECTION.IFACE.optional=true` for each stuck link, `netplan generate` validates (and
  renders networkd's files: netplan 1.0 `RequiredForOnline=no`, 1.1 leaves the link out of
  its wait-online drop-in), `netplan get` proves the merged value. netplan writes only
  `IFACE: {optional: true}` into /etc/netplan/90-zconsole.yaml (the other files are not
  touched; netplan merges it over them), so the undo removes that file (or restores its copy,
  if it existed); refused for a vlan (or tunnel, vrf...) on every netplan, whose
  definition is validated alone and lacks `link`/`id` there (0.106: `missing 'link'
  property`). Refused on
  netplan < 0.101 (no `netplan set`) and 0.105 (its --origin-hint ignored changes to a
  device defined in another file, LP: #1997467): the next fix is offered instead.
* `wait-online-interface`: the same drop-in as below, with `--interface=LINK` for each link
  networkd shows configured and routable now (the links that matter; several: all are
  waited for), so the stuck link no longer is; each is re-checked configured before the
  write. Narrower than `--any`, but a renamed or missing link waits the whole 2 min again.
* `wait-online-any`: the drop-in
  /etc/systemd/system/systemd-networkd-wait-online.service.d/90-zconsole-wait-online.conf
  (`ExecStart=` reset, then `--any`: online as soon as one link is), `systemctl
  daemon-reload`, `systemd-analyze verify` validates, `systemctl cat` proves the one
  ExecStart left is zconsole's. The undo removes the drop-in (and the directory if zconsole
  made it), then daemon-reload.
* `ifupdown-hotplug`: `auto IFACE` → `allow-hotplug IFACE` in the file that says it (after
  a `cp -a` backup; `sed` with an expression anchored on that line number and its exact
  text, which is re-checked right before); `ifquery --list --allow=hotplug` proves it.
* `mask` (last resort, never chosen by itself): `systemctl mask
  systemd-networkd-wait-online.service`; nothing then holds network-online.target back.

Every fix takes effect at the NEXT boot (wait-online is a oneshot that already ran): the
plan says so, records this boot's wait-online time in its params, and after a reboot the
boot panel compares (`services.health.fixit_boot`).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import NamedTuple

from zconsole.hosts.base import Host, HostError
from zconsole.hosts.journal import PlanStore
from zconsole.model.command import Command
from zconsole.model.fixit import AppliedBootFix
from zconsole.model.plan import (
    Check,
    CheckLevel,
    Plan,
    Step,
    predicate,
)
from zconsole.services.ops.engine.events import RunResult
from zconsole.services.ops.fixit import common
from zconsole.services.ops.fixit.boot_facts import (
    ANY,
    DROPIN,
    DROPIN_DIR,
    DROPIN_FIXES,
    DROPIN_LINES,
    EXEC_ANY,
    IFACE,
    IFUPDOWN,
    KIND,
    LOCK,
    MASK,
    MASK_LINK,
    NETPLAN,
    NETPLAN_FILE,
    NEXT_BOOT,
    ROLLBACK_KIND,
    UNDO_KIND,
    UNIT,
    VERIFY,
    BootFacts,
    applicable,
    choose,
    dropin_lines,
    exec_interfaces,
    ifupdown_candidates,
    ifupdown_held,
    ifupdown_lines,
    netplan_devices,
    read_facts,
    stuck_links,
    uplinks,
    wait_before,
    wait_limit,
    waits,
    would_wait,
)
from zconsole.services.ops.fixit.boot_facts import (
    FIXES as FIXES,  # boot.FIXES, named by the registry
)
from zconsole.services.ops.fixit.boot_facts import (
    sed_escape as sed_escape,  # boot.sed_escape, as it always was
)
from zconsole.services.ops.fixit.boot_steps import (
    daemon_reload_step,
    fix_confirmation,
    fix_left,
    ifupdown_steps,
    link_prechecks,
    mask_steps,
    netplan_get,
    netplan_refusal,
    netplan_steps,
)
from zconsole.services.ops.operation import PlanRequest

# ------------------------------------------------------------------------------ the plans


def _dropin_steps(facts: BootFacts, fix: str, links: Sequence[str],
                  ups: Sequence[str] = ()) -> list[Step]:
    """wait-online-any (`--any`) or wait-online-interface (`--interface=` for each of
    `ups`): the drop-in, daemon-reload, verify, and `systemctl cat` proving its ExecStart."""
    lines = DROPIN_LINES if fix == ANY else dropin_lines(fix, ups)
    value = lines[-1][len("ExecStart="):]
    why = ("online as soon as any one link is" if fix == ANY else
           f"online when {', '.join(ups)} {'is' if len(ups) == 1 else 'are'} (the links "
           "configured and routable now); no other link is waited for")
    steps: list[Step] = []
    if not facts.dropin_dir:
        steps.append(Step(
            id="mkdir", title=f"Make {DROPIN_DIR}",
            explanation="the drop-in directory of the unit; the undo removes it again.",
            command=Command(("mkdir", "-m", "0755", DROPIN_DIR), "make the drop-in "
                            "directory", writes=True),
            prechecks=(predicate("path_exists", f"{DROPIN_DIR} does not exist yet",
                                 path=DROPIN_DIR, want="no"),),
            postchecks=(predicate("path_exists", f"{DROPIN_DIR} exists", path=DROPIN_DIR,
                                  want="yes"),),
            confirmation=fix_confirmation(fix)))
    steps.append(Step(
        id="write", title=f"Write {DROPIN}",
        explanation=("`ExecStart=` empties the unit's command (a oneshot takes several), "
                     f"then `{value}`: {why}. Named 90-… it comes after netplan's "
                     "10-netplan.conf, so its reset wins."),
        command=common.write_command(DROPIN, lines, "write the drop-in"),
        prechecks=(common.not_symlink(DROPIN),
                   predicate("file_absent", f"{DROPIN} does not exist yet", path=DROPIN),
                   *link_prechecks(links),
                   *(predicate("link_setup", f"networkctl still shows {u} configured",
                               name=u, setup="configured") for u in ups)),
        postchecks=(predicate("file_line", f"{DROPIN} says ExecStart={value}",
                              path=DROPIN, line=str(len(lines)), text=lines[-1]),),
        confirmation=fix_confirmation(fix) if facts.dropin_dir else None))
    steps.append(daemon_reload_step())
    steps.append(Step(
        id="validate", title=f"Validate: systemd-analyze verify --man=no {UNIT}",
        explanation="systemd loads the unit with its drop-ins and checks them (the command "
                    "must be an executable, the keys known); exit 0 means it accepts them.",
        command=Command(VERIFY, "validate the unit and its drop-ins")))
    steps.append(Step(
        id="prove", title=f"Prove the effective command: systemctl cat {UNIT}",
        explanation="`systemctl cat` shows the unit and its drop-ins in the order systemd "
                    "applies them; the one ExecStart left must be zconsole's (a later "
                    "override.conf would win, and this says so).",
        postchecks=(predicate("unit_exec_start", f"the one ExecStart left is {value}",
                              unit=UNIT, value=value),)))
    return steps


def _mask_cost(facts: BootFacts) -> str:
    users = ", ".join(facts.reading.wanted_by.value or ()) or "nothing that zconsole could read"
    return (f"nothing holds network-online.target back any more: what wants it ({users}) "
            "starts before the network is configured; NFS, CIFS and _netdev mounts and iSCSI "
            "logins (ordered after network-online.target) race the network, and pools on "
            "iSCSI disks may not import. Local pools are not affected (zfs-mount has no "
            "network dependency). zconsole read who wants the target; it did not read "
            "/etc/fstab")


COSTS = {
    NETPLAN: "networkd no longer waits for {links} at boot; nothing else changes (the link "
             "is still configured when its cable is plugged in)",
    ANY: "network-online.target is reached as soon as any one link is online, which may be "
         "before the default route or a storage VLAN is up; services and mounts that need "
         "a particular link may start too early",
    IFACE: "the boot waits for {uplinks} only, each until it is configured: if one is "
           "renamed, missing or without its cable at boot, the boot waits the whole 2 min "
           "again; {links} and any other link are not waited for, so what needs them may "
           "start before they are up",
    IFUPDOWN: "{links} is brought up by udev when it has a link, not by `ifup -a` at boot; "
              "the boot no longer waits for its DHCP; on ifupdown2 (Proxmox) an "
              "allow-hotplug port is configured at boot only if it has a link then",
}


def build_fix_boot(host: str, facts: BootFacts, fix: str | None = None, *,
                   plan_id: str | None = None, now: float = 0.0) -> Plan:
    """The fix as a plan, from what was read. `fix` None: the narrowest the diagnosis
    allows (`choose`); a named fix that does not apply is a blocked plan saying why."""
    pid = plan_id or uuid.uuid4().hex
    passed: list[str] = []
    if fix is None and not waits(facts) and not would_wait(facts) and \
            (applicable(facts, IFUPDOWN) is not None or ifupdown_held(facts) is None):
        v = facts.diagnosis.verdict
        return common.make_plan(KIND, "Fix slow boot", host, now, LOCK, plan_id=pid, checks=(
            Check("wait-online", False, CheckLevel.BLOCK,
                  f"{v.message}: there is nothing to fix here"),))
    if fix is None:
        fix, passed = choose(facts)
    why = applicable(facts, fix)
    title = {NETPLAN: "Fix slow boot: mark the stuck link optional in netplan",
             IFACE: "Fix slow boot: wait-online waits only for the links that matter",
             ANY: "Fix slow boot: wait-online waits for any one link",
             IFUPDOWN: "Fix slow boot: ifupdown brings the port up on hotplug",
             MASK: "Fix slow boot: mask wait-online (last resort)"}.get(fix, "Fix slow boot")
    checks = [Check("passed-over", True, CheckLevel.INFO, f"narrower fix not possible: {p}")
              for p in passed]
    if why is not None:
        nxt = {NETPLAN: IFACE, IFACE: ANY, IFUPDOWN: ANY, ANY: MASK}.get(fix) \
            if "nothing to fix" not in why else None
        hint = f"; the next fix: zconsole plan fix-boot --fix {nxt}" if nxt else ""
        checks.append(Check(fix, False, CheckLevel.BLOCK, why + hint))
        return common.make_plan(KIND, title, host, now, LOCK, plan_id=pid, checks=checks,
                                params=(("fix", fix),))
    stuck = stuck_links(facts)
    devs = netplan_devices(facts) or {}
    secs = wait_before(facts)
    limit = wait_limit(facts) if secs is None else None
    # ifupdown's fix is judged by networking.service when ifupdown held this boot
    unit = "networking.service" if fix == IFUPDOWN and ifupdown_held(facts) is not None \
        else UNIT
    if unit != UNIT:
        secs, limit = ifupdown_held(facts), None
    before = f"{secs:.1f} s" if secs is not None else "an unknown time"
    file, backup, line, links, lines_for, steps, what = _change(facts, fix, pid, stuck)
    cost = _mask_cost(facts) if fix == MASK else COSTS[fix].format(
        links=", ".join(links) or "the stuck link", uplinks=", ".join(uplinks(facts)))
    first = _first_line(facts, unit, before, links, file, line, stuck)
    preview = [first,
               f"The fix: {what}.", f"What it costs: {cost}.", NEXT_BOOT,
               "Undo: from the Host screen (u), itself a plan."]
    checks.append(Check("next-boot", True, CheckLevel.INFO,
                        "takes effect at the next boot; the open sessions and the links "
                        "are not touched now"))
    if fix == MASK:
        checks.append(Check("last-resort", False, CheckLevel.WARN,
                            "masking is the last resort: " + cost))
    if fix == NETPLAN and facts.netplan_version is None:
        checks.append(Check("netplan-version", True, CheckLevel.INFO,
                            "netplan's version could not be read (dpkg-query): the result "
                            "is proven with `netplan get` all the same"))
    params = (("fix", fix), ("what", what), ("file", file), ("backup", backup),
              ("line", str(line)), ("links", " ".join(links)),
              ("created_dir", "yes" if fix in DROPIN_FIXES and not facts.dropin_dir else ""),
              ("exec", exec_interfaces(uplinks(facts)) if fix == IFACE else
               EXEC_ANY if fix == ANY else ""),
              ("wait_before", "" if secs is None else f"{secs:.3f}"),
              # applied in a boot that did not wait: the wait the next boot would have had
              ("wait_limit", "" if limit is None else f"{limit:.3f}"),
              ("unit", unit),
              ("sections", " ".join(f"{ln}={devs[ln].section}" for ln in links
                                    if fix == NETPLAN and ln in devs)),
              ("boot_id", _boot_id(facts)), *fix_left(fix, lines_for, facts, file, line))
    return common.make_plan(KIND, title, host, now, LOCK, plan_id=pid, preview=preview,
                            checks=checks, steps=steps, params=params)


class _Change(NamedTuple):
    """What a fix changes: its file (and line, backup), the links it is about, its steps."""
    file: str
    backup: str
    line: int
    links: list[str]
    lines_for: Sequence[str]
    steps: list[Step]
    what: str


def _change(facts: BootFacts, fix: str, pid: str, stuck: list[str]) -> _Change:
    """The file each fix writes, and its steps."""
    if fix == NETPLAN:
        backup = common.backup_path(pid, NETPLAN_FILE) if facts.netplan_file is not None \
            else ""
        return _Change(NETPLAN_FILE, backup, 0, stuck, (), netplan_steps(facts, stuck, backup),
                       f"optional: true for {', '.join(stuck)} in {NETPLAN_FILE}")
    if fix == ANY:
        return _Change(DROPIN, "", 0, stuck, DROPIN_LINES, _dropin_steps(facts, ANY, stuck),
                       f"wait-online --any ({DROPIN})")
    if fix == IFACE:
        ups = uplinks(facts)
        return _Change(DROPIN, "", 0, stuck, dropin_lines(IFACE, ups),
                       _dropin_steps(facts, IFACE, stuck, ups),
                       f"wait-online {' '.join(f'--interface={u}' for u in ups)} ({DROPIN})")
    if fix == IFUPDOWN:
        link = ifupdown_candidates(facts)[0]
        file, line = ifupdown_lines(facts, link)[0]
        backup = common.backup_path(pid, file)
        return _Change(file, backup, line, [link], (),
                       ifupdown_steps(link, file, line, backup, facts.ifupdown[file]),
                       f"allow-hotplug {link} in {file}:{line}")
    return _Change(MASK_LINK, "", 0, stuck, (), mask_steps(), f"{UNIT} masked")


def _first_line(facts: BootFacts, unit: str, before: str, links: Sequence[str], file: str,
                line: int, stuck: Sequence[str]) -> str:
    """The preview's first line: what the boot waited for, and held by what."""
    if unit != UNIT:
        return (f"The boot waited {before} for {unit}: ifupdown's `ifup -a` waits for "
                f"{', '.join(links)} (`auto` at {file}:{line}).")
    if waits(facts) or not would_wait(facts):
        return (f"The boot waited {before} for {UNIT}"
                + (f", held by {', '.join(stuck)} (configuring)" if stuck else "") + ".")
    message = facts.diagnosis.verdict.message
    return (f"This boot did not wait for {UNIT} (a fix undone since?), but "
            f"{message[0].lower()}{message[1:]} "
            f"({', '.join(facts.reading.wanted_by.value or ())} wants network-online.target).")


def _boot_id(facts: BootFacts) -> str:
    part = facts.reading.boot_id
    return (part.value or "") if part is not None else ""


def _restore_steps(fix: Plan, *, undo: bool, dir_empty: bool = True) -> list[Step]:
    p = dict(fix.params)
    kind, file, backup = p.get("fix", ""), p.get("file", ""), p.get("backup", "")
    confirm = common.undo_confirmation(p.get("what", file)) if undo else None
    left = common.left_of(fix) if undo else None
    if kind == NETPLAN:
        first = common.restore_step(file, backup, confirmation=confirm) if backup else \
            common.remove_step(file, confirmation=confirm,
                               what=f"the file `netplan set` wrote for zconsole ({file})")
        if undo and p.get("netplan_lines"):  # nobody added to it since
            first = replace(first, prechecks=(common.not_symlink(file), predicate(
                "file_lines_within", f"{file} holds only what `netplan set` wrote for "
                "zconsole", path=file, lines=p["netplan_lines"]), *first.prechecks))
        sections = dict(w.split("=", 1) for w in p.get("sections", "").split() if "=" in w)
        return [first, Step(id="validate", title="netplan generate",
                            explanation="networkd's files are rendered again without the "
                                        "change.",
                            command=Command(("netplan", "generate"), "render netplan's "
                                            "configuration again", writes=True),
                            postchecks=tuple(predicate(
                                "command_line", f"netplan get does not say {ln} is optional",
                                argv="\t".join(netplan_get(sec, ln)), line="true",
                                want="no") for ln, sec in sections.items()))]
    if kind in DROPIN_FIXES:
        value = p.get("exec") or EXEC_ANY
        steps = [common.remove_step(file, confirmation=confirm,
                                    left=left.text if left is not None else None,
                                    what="the drop-in zconsole wrote")]
        if p.get("created_dir") and dir_empty:
            steps.append(Step(id="rmdir", title=f"Remove {DROPIN_DIR}",
                              explanation="zconsole made it; rmdir refuses if anything else "
                                          "is in it.",
                              command=Command(("rmdir", DROPIN_DIR), "remove the drop-in "
                                              "directory", writes=True)))
        steps.append(daemon_reload_step())
        steps.append(Step(id="prove", title=f"Prove: systemctl cat {UNIT}",
                          explanation="zconsole's ExecStart is gone from the unit.",
                          postchecks=(predicate("command_line", f"systemctl cat {UNIT} has "
                                                f"no ExecStart={value}",
                                                argv=f"systemctl\tcat\t--no-pager\t{UNIT}",
                                                line=f"ExecStart={value}", want="no"),)))
        return steps
    if kind == IFUPDOWN:
        return [common.restore_step(file, backup, confirmation=confirm, left=left)]
    return [Step(id="unmask", title=f"systemctl unmask {UNIT}",
                 explanation="the unit starts again when network-online.target is wanted.",
                 command=Command(("systemctl", "unmask", UNIT), "unmask wait-online",
                                 writes=True),
                 postchecks=(predicate("command_line", f"systemctl is-enabled {UNIT} no "
                                       "longer says masked",
                                       argv=f"systemctl\tis-enabled\t{UNIT}", line="masked",
                                       want="no"),),
                 confirmation=confirm)]


def restore_plan(fix: Plan, *, undo: bool, dir_empty: bool = True,
                 plan_id: str | None = None, now: float = 0.0,
                 host: Host | None = None) -> Plan:
    """Put back what `fix` changed: the copy (`cp -a`), or no file zconsole made (`rm -f`,
    and its directory), or unmask; validate and prove as the fix did. `undo`: the operator's,
    later (typed confirmation 'undo'); else the automatic rollback (steps `rollback-…`)."""
    p = dict(fix.params)
    word = "Undo" if undo else "Roll back"
    if undo and p.get("fix") in (IFUPDOWN, *DROPIN_FIXES) and common.left_of(fix) is None:
        return common.unrecorded_plan(fix, UNDO_KIND,
                                      f"{word} the boot fix ({p.get('what', '?')})", now,
                                      LOCK, plan_id=plan_id)
    steps = _restore_steps(fix, undo=undo, dir_empty=dir_empty)
    if not undo:
        steps = common.as_rollback(steps)
    preview = [f"{word}: {p.get('what', '?')}, as it was before plan {fix.id[:12]}",
               "It takes effect at the next boot, like the fix did."]
    if p.get("created_dir") and not dir_empty:
        preview.append(f"{DROPIN_DIR} holds other files now: it stays.")
    refused = common.undo_refusal(host, fix) if undo and host is not None and \
        p.get("fix") in (IFUPDOWN, *DROPIN_FIXES) else None
    if undo and host is not None and p.get("fix") == NETPLAN and p.get("netplan_lines"):
        refused = netplan_refusal(host, fix)
    return common.make_plan(UNDO_KIND if undo else ROLLBACK_KIND,
                            f"{word} the boot fix ({p.get('what', '?')})", fix.host, now, LOCK,
                            plan_id=plan_id, preview=preview, steps=steps,
                            params=(*fix.params, ("of", fix.id)),
                            checks=(refused,) if refused is not None else ())


def undo_plan(fix: Plan, *, host: Host | None = None, plan_id: str | None = None,
              now: float = 0.0) -> Plan:
    """The operator's undo of an applied fix. With `host`, the drop-in directory zconsole
    made is removed only if nothing else is in it now."""
    empty = True
    if host is not None and dict(fix.params).get("created_dir"):
        try:
            empty = set(host.list_dir(DROPIN_DIR)) <= {DROPIN.rsplit("/", 1)[-1]}
        except (HostError, OSError):
            empty = True
    return restore_plan(fix, undo=True, dir_empty=empty, plan_id=plan_id, now=now, host=host)


def _changes(fix: Plan) -> list[str]:
    return [s.id for s in fix.steps if s.id in ("mkdir", "mask") or s.id.startswith("write")]


def rollback_for(fix: Plan, result: RunResult, *, now: float = 0.0) -> Plan | None:
    """The rollback a failed run needs: none if it stopped before the host was changed."""
    if result.done or result.status != "failed":
        return None
    if not common.changed_host(fix, result, _changes(fix)):
        return None
    return restore_plan(fix, undo=False, now=now)


def rolled_back(fix: Plan, back: Plan, result: RunResult) -> str:
    p = dict(fix.params)
    if result.done:
        return (f"rolled back: {p.get('what')} is undone ({', '.join(c.display() for c in back.commands())}). "
                "Nothing stays applied.")
    return common.rollback_stopped(fix, result)




def plan_for(host: Host, fix: str | None = None, *, plan_id: str | None = None) -> Plan:
    """Read the host and build the fix (the CLI and the Host screen both call this)."""
    return build_fix_boot(str(host.label), read_facts(host), fix, plan_id=plan_id,
                          now=host.now())


def plan_cli(host: Host, req: PlanRequest) -> Plan:
    """`zconsole plan fix-boot [--fix FIX] --dry-run`."""
    return plan_for(host, req.text("fix") or None)


def plan_wizard(host: Host, answers: Mapping[str, str], force: bool) -> Plan:
    return plan_for(host, answers.get("fix") or None)


def applied_records(store: PlanStore, host: str) -> list[common.Applied]:
    return common.applied_records(store, host, KIND, UNDO_KIND)


def applied_fixes(store: PlanStore, host: str) -> list[Plan]:
    """Boot fixes applied on `host` and not undone since, newest last."""
    return common.applied_fixes(store, host, KIND, UNDO_KIND)


def as_applied(a: common.Applied) -> AppliedBootFix:
    """The record the boot panel judges after the next boot (health never reads ops)."""
    p = dict(a.plan.params)

    def secs(key: str) -> float | None:
        raw = p.get(key, "")
        try:
            return float(raw) if raw else None
        except ValueError:
            return None

    return AppliedBootFix(a.plan.id, p.get("fix", ""), p.get("what", ""), a.applied_at,
                          secs("wait_before"), p.get("boot_id") or None, secs("wait_limit"),
                          p.get("unit") or UNIT)

