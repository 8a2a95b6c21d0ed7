"""Block-device tools: `udevadm info` (properties of one device, or the whole database),
`lsblk -J` and `dd` (only the read that blinks a disk's activity LED). Their formats are in
`render.block`."""

from __future__ import annotations

from zconsole.hosts.demo.getopt import OptError, getopt
from zconsole.hosts.demo.render.block import LSBLK_KEYS, disk_properties, export_db, lsblk_json
from zconsole.hosts.demo.tools._common import Context, Handler, Out


def udevadm(ctx: Context, argv: list[str]) -> Out:
    if argv[:1] != ["info"]:
        return 1, "", f"udevadm: unknown command '{argv[0] if argv else ''}'\n" if argv else \
            "udevadm: missing or unknown command\n"
    rest = argv[1:]
    if rest in (["--export-db"], ["-e"]):
        return 0, export_db(ctx.machine), ""
    query = None
    name = None
    i = 0
    while i < len(rest):
        a = rest[i]
        if a.startswith("--query="):
            query = a.split("=", 1)[1]
        elif a in ("-q", "--query") and i + 1 < len(rest):
            query = rest[i + 1]
            i += 1
        elif a.startswith("--name="):
            name = a.split("=", 1)[1]
        elif a in ("-n", "--name") and i + 1 < len(rest):
            name = rest[i + 1]
            i += 1
        elif not a.startswith("-"):
            name = a
        else:
            return 1, "", f"udevadm: invalid option -- '{a.lstrip('-')[:1]}'\n"
        i += 1
    if query != "property" or name is None:
        return 1, "", "udevadm: only --query=property --name=DEV is simulated\n"
    hit = ctx.machine.disk_by_any(name)
    if hit is None:
        dev = name if name.startswith("/") else "/dev/" + name
        return 4, "", f"Unknown device \"{dev}\": No such device\n"
    d, part = hit
    pobj = next((x for x in d.partitions if x.number == part), None) if part else None
    props = disk_properties(ctx.machine, d, pobj)
    return 0, "".join(f"{k}={v}\n" for k, v in props.items()), ""


def lsblk(ctx: Context, argv: list[str]) -> Out:
    try:
        p = getopt(argv, "Jbo:dpn", {"json": False, "bytes": False, "output": True,
                                     "nodeps": False, "paths": False, "noheadings": False})
    except OptError:
        return 1, "", "lsblk: unrecognized option\n"
    cols = (p.last("o") or p.last("--output") or "NAME,MAJ:MIN,RM,SIZE,RO,TYPE,MOUNTPOINT"
            ).upper().split(",")
    for c in cols:
        if c not in LSBLK_KEYS:
            return 1, "", f"lsblk: unknown column: {c}\n"
    if not (p.has("J") or p.has("--json")):
        return 1, "", "lsblk: the demo answers only -J (JSON) output\n"
    return 0, lsblk_json(ctx.machine, cols, nbytes=p.has("b") or p.has("--bytes"),
                         nodeps=p.has("d") or p.has("--nodeps"),
                         paths=p.has("p") or p.has("--paths")), ""


def dd(ctx: Context, argv: list[str]) -> Out:
    """Only the read-only form zconsole uses to blink a disk's LED:
    dd if=/dev/... of=/dev/null bs=1M count=N iflag=direct."""
    args = dict(a.partition("=")[::2] for a in argv)
    src = args.get("if", "")
    if args.get("of") != "/dev/null":
        return 1, "", "dd: the demo host only reads (of=/dev/null)\n"
    hit = ctx.machine.disk_by_any(src)
    if hit is None:
        return 1, "", f"dd: failed to open '{src}': No such file or directory\n"
    disk, _ = hit
    bs = 1 << 20 if args.get("bs", "1M") in ("1M", "1048576") else 512
    count = int(args.get("count", "0") or 0)
    blocks = min(count, disk.size // bs) if count else disk.size // bs
    n = blocks * bs
    secs = max(n / (165 * (1 << 20)), 0.001)
    return 0, "", (f"{blocks}+0 records in\n{blocks}+0 records out\n{n} bytes copied, "
                   f"{secs:.1f} s, {n / secs / 1e6:.0f} MB/s\n")


HANDLERS: dict[str, Handler] = {"udevadm": udevadm, "lsblk": lsblk, "dd": dd}
