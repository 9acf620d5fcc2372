"""`xid_triage`: an action per GPU of a node (none, reset, drain, replace) from its kernel log's
NVIDIA Xid errors and its nvidia-smi and DCGM facts, by the rules the statement gives. Python."""
from __future__ import annotations

import random
import re

import numpy as np

from .model import FunctionTask, cases

ACTIONS = ("none", "reset", "drain", "replace")     # in order of severity
APPLICATION = {13: "graphics engine exception", 31: "GPU memory page fault",
               43: "GPU stopped processing", 45: "preemptive cleanup"}
XID_RULES = {48: ("reset", "double-bit ECC error"), 63: ("reset", "row remapping recorded"),
             64: ("replace", "row remapping failed"), 79: ("drain", "GPU fallen off the bus"),
             92: ("drain", "high single-bit ECC error rate"), 94: ("reset", "contained ECC error"),
             95: ("reset", "uncontained ECC error"), 119: ("reset", "GSP RPC timeout"),
             120: ("reset", "GSP error")}
NVLINK, NVLINK_DRAIN_AT = 74, 3
XID_LINE = re.compile(r"NVRM: Xid \(PCI:([0-9a-fA-F]+):([0-9a-fA-F]+):([0-9a-fA-F]+)\): (\d+)")

STATEMENT = f"""Decide what to do with each GPU of a node from its kernel log and its health facts,
as an on-call engineer of a GPU fleet does.

```python
def triage(log, gpus) -> dict:
    # log: the node's kernel log, one string (`dmesg`, `dmesg -T` or `journalctl -k` output)
    # gpus: [{{"index": 0, "bus_id": "00000000:18:00.0", "name": "NVIDIA H100 80GB HBM3",
    #          "serial": "1654922012345", "visible": True,
    #          "remapped_rows": {{"correctable": 0, "uncorrectable": 1, "pending": True, "failure": False}},
    #          "dcgm_health": "pass"}}, ...]
    # returns {{bus_id: action}} for every GPU, action "none", "reset", "drain" or "replace"
```

**The log.** An Xid line holds `NVRM: Xid (PCI:DDDD:BB:DD): N,` where `DDDD:BB:DD` are the GPU's
PCI domain, bus and device in hex and `N` is the Xid number, e.g.
`[ 8412.193003] NVRM: Xid (PCI:0000:3b:00): 79, pid=0, name=..., GPU has fallen off the bus.`
What follows the number varies by driver and error. Every other line is no evidence: other
`NVRM:` messages, and NVSwitch `SXid` lines, are not Xid lines. An Xid line names the GPU whose
`bus_id` (as nvidia-smi prints it: `DDDDDDDD:BB:DD.F`) has the same domain, bus and device numbers.

**The facts** (from `nvidia-smi -q` and a DCGM health check): `visible` is false when nvidia-smi
cannot reach the GPU, and then `remapped_rows` and `dcgm_health` are `None`; `dcgm_health` is
`"pass"`, `"warn"` or `"fail"`.

**The rules.** Each rule below that a GPU's evidence meets calls for an action; the GPU's answer
is the most severe of them (`none` < `reset` < `drain` < `replace`), `none` when no rule applies.

| Evidence | Action |
|---|---|
| Xid 13, 31, 43, 45 (application faults: the job's bug, not the GPU's) | none |
| Xid 48 (double-bit ECC), 63 (row remapping recorded), 94 (contained ECC), 95 (uncontained ECC) | reset |
| Xid 119, 120 (GSP firmware timeout or error) | reset |
| Xid 74 (NVLink error): fewer than {NVLINK_DRAIN_AT} lines for the GPU | reset |
| Xid 74: {NVLINK_DRAIN_AT} or more lines for the GPU (a flapping link) | drain |
| Xid 79 (fallen off the bus), Xid 92 (high single-bit ECC rate) | drain |
| Xid 64 (row remapping failed) | replace |
| any other Xid number | reset |
| `visible` false | drain |
| `remapped_rows.pending` true (a remap waits for a reset) | reset |
| `remapped_rows.failure` true | replace |
| `dcgm_health` `"fail"` | drain |

The row counts, names and serials are there as nvidia-smi shows them; no rule reads them, nor a
`"warn"`. Return the `bus_id` strings exactly as given. A wrong answer names the first GPU whose
action is wrong, the action expected and the evidence that calls for it.

**Scoring.** 60 points when every hidden node's actions are right (nodes of 4 and 8 GPUs, logs of
a few lines to 60,000). Up to 40 more for speed: 40 x min(1, reference time / your time) on the
largest log, both timed in the same judging (the reference reads the log line by line, a substring
test before a regular expression: about 0.1 s on the judge's machine)."""

PYTHON_STARTER = '''def triage(log, gpus):
    """log: the kernel log as one string; gpus: the nvidia-smi and DCGM facts per GPU.
    Returns {bus_id: "none" | "reset" | "drain" | "replace"} for every GPU."""
    actions = {gpu["bus_id"]: "none" for gpu in gpus}
    for line in log.splitlines():
        if "NVRM: Xid" in line:
            pass    # TODO: which GPU, which Xid number, and what it calls for
    # TODO: the facts (visible, remapped_rows, dcgm_health) call for actions too
    return actions
'''

PYTHON_SIGNATURE = "def triage(log, gpus) -> dict"


def _dims(nodes: int, lines: int, focus: str = "mixed", gpus: int = 8) -> dict:
    return {"nodes": nodes, "lines": lines, "focus": focus, "gpus": gpus}


TASK = FunctionTask(
    slug="xid_triage", title="Xid triage", difficulty="medium",
    track="infrastructure", skills=("gpu_health", "gpu_cluster_operations", "nvidia_smi", "linux", "python"),
    summary="Decide per GPU whether to reset, drain or replace it from Xid errors and nvidia-smi facts.",
    statement=STATEMENT, function="triage",
    python_signature=PYTHON_SIGNATURE, cpp_signature=None, languages=("python",),
    tests={"cpu": cases(
        ("quiet_nodes", _dims(4, 30, "quiet")),
        ("ecc_errors", _dims(6, 120, "ecc")),
        ("nvlink_flaps", _dims(6, 120, "nvlink")),
        ("fallen_off_the_bus", _dims(4, 80, "bus", gpus=4)),
        ("fleet", _dims(24, 400)),
        ("long_log", _dims(1, 60_000)),
    )},
    samples=cases(("sample_ecc", _dims(1, 20, "ecc")), ("sample_nvlink", _dims(1, 20, "nvlink", gpus=4))),
    starters={"python": PYTHON_STARTER},
)


def generate(rng: np.random.Generator, dims: dict) -> list[dict]:
    """Nodes (one call each) whose GPUs had faults of the test's focus, logged in one of three
    timestamp styles among the kernel's other messages."""
    return [_node(random.Random(int(rng.integers(1 << 62))), int(dims["gpus"]), int(dims["lines"]),
                  str(dims["focus"])) for _ in range(int(dims["nodes"]))]


# ---- hidden nodes ------------------------------------------------------------------------------------
PLATFORMS = {8: [("NVIDIA H100 80GB HBM3", (0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb)),
                 ("NVIDIA A100-SXM4-80GB", (0x07, 0x0f, 0x47, 0x4e, 0x87, 0x90, 0xb7, 0xbd))],
             4: [("NVIDIA H100 NVL", (0x17, 0x65, 0xca, 0xe3)),
                 ("NVIDIA A100 80GB PCIe", (0x1b, 0x3b, 0x86, 0xaf))]}
# What goes wrong with one GPU, by the test's focus: a scenario and its weight.
FOCUS = {
    "quiet": {"healthy": 6, "app": 3, "pending": 1},
    "ecc": {"healthy": 2, "app": 1, "contained": 3, "uncontained": 2, "remap_failed": 2,
            "failure_only": 1, "pending": 1, "sbe_rate": 1},
    "nvlink": {"healthy": 2, "app": 1, "nvlink": 6},
    "bus": {"healthy": 2, "app": 1, "fallen_off": 3, "unreachable": 1, "gsp": 2, "other": 1, "dcgm_fail": 1},
    "mixed": {"healthy": 8, "app": 4, "contained": 1, "uncontained": 1, "remap_failed": 1, "failure_only": 1,
              "pending": 1, "sbe_rate": 1, "nvlink": 2, "fallen_off": 1, "unreachable": 1, "gsp": 1,
              "other": 1, "dcgm_fail": 1},
}
XID_TEXT = {
    13: "Graphics SM Warp Exception on (GPC {a}, TPC {b}, SM 0): Out Of Range Address",
    31: "Ch 000000{a:02x}, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_{b} faulted @ "
        "0x7f{a:02x}_{c:08x}. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ",
    43: "Ch 000000{a:02x}", 45: "Ch 000000{a:02x}",
    48: "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at "
        "partition {a}, subpartition {b}.",
    63: "Row Remapper: New row (0x{c:016x}) marked for remapping, reset gpu to activate.",
    64: "Row Remapper: Failed to remap row (0x{c:016x}), no spare row left in its bank.",
    74: "NVLink: fatal error detected on link {b}(0x0, 0x0, 0x{c:x}, 0x0, 0x0, 0x0, 0x0)",
    79: "GPU has fallen off the bus.", 92: "High single-bit ECC error rate",
    94: "Contained: SM (0x{b:x}). RST: No, D-RST: No", 95: "Uncontained: FBHUB. RST: Yes, D-RST: No",
    119: "Timeout after 6s of waiting for RPC response from GPU{b} GSP! Expected function 76 "
         "(GSP_RM_CONTROL) (0x{c:08x} 0x4).",
    120: "GSP task exception: GSP Error: Task 1 raised error code 0x{a:x} for reason 0x0",
    8: "Ch 000000{a:02x}, engmask 00000101, intr 10000000", 32: "Channel ID 000000{a:02x} intr 00008000",
    61: "Internal micro-controller breakpoint/warning (0x{c:x})", 62: "Internal micro-controller halt",
    69: "Graphics Exception: Class 0x{c:x} Subchannel 0x0 Mismatch",
}
NOISE = (
    "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 09:35:42 UTC 2024",
    "nvidia-nvswitch{b4}: SXid (PCI:0000:{s:02x}:00.0): 12028, Non-fatal, Link {l} egress non-posted PRIV error (First)",
    "nvidia-nvswitch{b4}: SXid (PCI:0000:{s:02x}:00.0): 20034, Fatal, Link {l} LTSSM Fault Up",
    "NVRM: GPU at PCI:0000:{a:02x}:00: GPU-{u}",
    "NVRM: A GPU crash dump has been created. If possible, please run",
    "NVRM: nvidia-bug-report.sh as root to collect this data before",
    "mlx5_core 0000:{a:02x}:00.0 ibp{b}s0: Link up",
    "IPv6: ADDRCONF(NETDEV_CHANGE): ib{b}: link becomes ready",
    "pcieport 0000:{a:02x}:01.0: AER: Corrected error received: 0000:{a:02x}:00.0",
    "python3[{c8}]: segfault at 0 ip 00007f{c:08x} sp 00007ffd{c:08x} error 4 in libc.so.6",
    "Out of memory: Killed process {c8} (python3) total-vm:{c8}kB, anon-rss:{c8}kB",
    "EXT4-fs (nvme0n1p2): re-mounted. Opts: errors=remount-ro. Quota mode: none.",
    "audit: type=1400 audit({c8}.123:{b}): apparmor=\"STATUS\" operation=\"profile_load\"",
    "nvidia 0000:{a:02x}:00.0: enabling device (0000 -> 0002)",
)
NVSWITCH_BUSES = (0x05, 0x06, 0x07, 0x08)
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def _node(r: random.Random, count: int, lines: int, focus: str) -> dict:
    name, buses = r.choice(PLATFORMS[count])
    gpus, events = [], []      # events: (xid, bus number)
    scenarios, weights = zip(*FOCUS[focus].items())
    for index, bus in enumerate(buses):
        gpu = {"index": index, "bus_id": f"00000000:{bus:02X}:00.0", "name": name,
               "serial": str(r.randrange(1_320_000_000_000, 1_660_000_000_000)), "visible": True,
               "remapped_rows": {"correctable": r.choice((0, 0, 0, 1, 2)), "uncorrectable": r.choice((0, 0, 1)),
                                 "pending": False, "failure": False},
               "dcgm_health": r.choice(("pass",) * 9 + ("warn",))}
        scenario = r.choices(scenarios, weights)[0]
        events += [(x, bus) for x in _scenario(r, scenario, gpu)]
        if r.random() < 0.3:
            events += [(r.choice(tuple(APPLICATION)), bus) for _ in range(r.randint(1, 4))]
        gpus.append(gpu)
    entries = [_xid_line(r, x, bus) for x, bus in events]
    if lines > 1000:        # a buggy job's same fault over and over, a fifth of a long log
        entries += [_xid_line(r, 13, r.choice(buses))] * (lines // 5)
    noise = max(lines - len(entries), 0)
    pool = [_noise_line(r, buses) for _ in range(min(noise, 400))]
    entries += r.choices(pool, k=noise) if pool else []
    r.shuffle(entries)
    return {"log": "\n".join(_stamped(r, entries)), "gpus": gpus}


def _scenario(r: random.Random, scenario: str, gpu: dict) -> list[int]:
    """The Xids one GPU logs under a scenario, its facts set to match."""
    rows = gpu["remapped_rows"]
    if scenario == "app":
        return [r.choice(tuple(APPLICATION)) for _ in range(r.randint(1, 6))]
    if scenario == "contained":
        rows["pending"] = r.random() < 0.5
        return r.choice(([94, 63], [48, 63, 94], [94]))
    if scenario == "uncontained":
        rows["pending"] = r.random() < 0.5
        gpu["dcgm_health"] = r.choice(("pass", "warn", "fail"))
        return r.choice(([95, 63], [95], [48, 95]))
    if scenario == "remap_failed":
        rows["failure"], rows["uncorrectable"] = r.random() < 0.7, r.randint(4, 12)
        return [r.choice((48, 95)), 64]
    if scenario in ("failure_only", "pending"):
        rows["failure" if scenario == "failure_only" else "pending"] = True
        return []
    if scenario == "sbe_rate":
        rows["correctable"] = r.randint(200, 5000)
        return [92]
    if scenario == "nvlink":
        return [74] * r.choice((1, 2, 2, 3, 3, 4, 7))
    if scenario in ("fallen_off", "unreachable"):
        if r.random() < 0.8 or scenario == "unreachable":
            gpu.update(visible=False, remapped_rows=None, dcgm_health=None)
        return [79] if scenario == "fallen_off" else []
    if scenario == "gsp":
        return [r.choice((119, 120))] * r.randint(1, 3)
    if scenario == "other":
        return [r.choice((8, 32, 61, 62, 69))]
    if scenario == "dcgm_fail":
        gpu["dcgm_health"] = "fail"
    return []


def _xid_line(r: random.Random, xid: int, bus: int) -> str:
    who = r.choice((f"pid={r.randint(1000, 999999)}, name=python3, ", "pid='<unknown>', name=<unknown>, ",
                    f"pid={r.randint(1000, 999999)}, name=pt_main_thread, ", ""))
    text = XID_TEXT[xid].format(a=r.randrange(16), b=r.randrange(8), c=r.getrandbits(40))
    return f"NVRM: Xid (PCI:0000:{bus:02x}:00): {xid}, {who}{text}"


def _noise_line(r: random.Random, buses: tuple) -> str:
    u = f"{r.getrandbits(128):032x}"
    return r.choice(NOISE).format(a=r.choice(buses) + r.choice((0, 0, 1, 3)), b=r.randrange(8),
                                  b4=r.randrange(4), s=r.choice(NVSWITCH_BUSES), l=r.randrange(64),
                                  c=r.getrandbits(40), c8=r.randrange(10_000_000),
                                  u=f"{u[:8]}-{u[8:12]}-{u[12:16]}-{u[16:20]}-{u[20:]}")


def _stamped(r: random.Random, entries: list[str]) -> list[str]:
    """Each line with the kernel's timestamp, in one of dmesg's, dmesg -T's or journalctl's styles."""
    style, host = r.choice(("uptime", "ctime", "iso")), f"gpu-r{r.randint(1, 20):02d}-n{r.randint(1, 16):02d}"
    t = r.uniform(5, 50)
    out = []
    for entry in entries:
        t += r.expovariate(1 / 40)
        if style == "uptime":
            out.append(f"[{t:12.6f}] {entry}")
            continue
        day, rest = divmod(int(t), 86400)
        hh, mm, ss = rest // 3600, rest // 60 % 60, rest % 60
        if style == "ctime":
            out.append(f"[{DAYS[(day + 2) % 7]} {MONTHS[4 + day // 31 % 8]} {day % 31 + 1:2d} "
                       f"{hh:02d}:{mm:02d}:{ss:02d} 2024] {entry}")
        else:
            out.append(f"2024-{5 + day // 31 % 8:02d}-{day % 31 + 1:02d}T{hh:02d}:{mm:02d}:{ss:02d},"
                       f"{int(t % 1 * 1e6):06d}+00:00 {host} kernel: {entry}")
    return out


# ---- the rules -------------------------------------------------------------------------------------
def _pci(bus_id: str) -> tuple[int, int, int]:
    domain, bus, device = bus_id.split(".")[0].split(":")
    return int(domain, 16), int(bus, 16), int(device, 16)


def evidence(args: dict) -> dict[str, list[tuple[str, str]]]:
    """Per GPU, every (action, why) a rule calls for, the log's rules first."""
    by_pci = {_pci(g["bus_id"]): g["bus_id"] for g in args["gpus"]}
    xids: dict[str, list[int]] = {g["bus_id"]: [] for g in args["gpus"]}
    for line in args["log"].splitlines():
        if "NVRM: Xid" in line:
            m = XID_LINE.search(line)
            if m:
                bus_id = by_pci.get((int(m[1], 16), int(m[2], 16), int(m[3], 16)))
                if bus_id is not None:
                    xids[bus_id].append(int(m[4]))
    found = {}
    for gpu in args["gpus"]:
        seen = xids[gpu["bus_id"]]
        calls = [_xid_rule(x, seen.count(x)) for x in dict.fromkeys(seen)]
        calls += _fact_rules(gpu)
        found[gpu["bus_id"]] = calls
    return found


def _xid_rule(xid: int, count: int) -> tuple[str, str]:
    lines = f"{count} line{'s' if count > 1 else ''}"
    if xid in APPLICATION:
        return "none", f"Xid {xid} ({APPLICATION[xid]}, {lines}) is an application fault"
    if xid == NVLINK:
        if count >= NVLINK_DRAIN_AT:
            return "drain", f"Xid 74 (NVLink error) on {lines}, {NVLINK_DRAIN_AT} or more: drain"
        return "reset", f"Xid 74 (NVLink error) on {lines}, fewer than {NVLINK_DRAIN_AT}: reset"
    action, meaning = XID_RULES.get(xid, ("reset", "an Xid no other rule names"))
    return action, f"Xid {xid} ({meaning}, {lines}) calls for {action}"


def _fact_rules(gpu: dict) -> list[tuple[str, str]]:
    if not gpu["visible"]:
        return [("drain", "nvidia-smi cannot reach it (visible is false)")]
    rows, calls = gpu["remapped_rows"], []
    if rows["failure"]:
        calls.append(("replace", "remapped_rows.failure is true"))
    if rows["pending"]:
        calls.append(("reset", "remapped_rows.pending is true"))
    if gpu["dcgm_health"] == "fail":
        calls.append(("drain", "its DCGM health check fails"))
    return calls


def _most_severe(calls: list[tuple[str, str]]) -> str:
    return max((a for a, _ in calls), key=ACTIONS.index, default="none")


def reference(args: dict) -> dict:
    return {bus_id: _most_severe(calls) for bus_id, calls in evidence(args).items()}


# ---- checking ---------------------------------------------------------------------------------------
def check(args: dict, expected: dict, actual) -> str | None:
    if not isinstance(actual, dict):
        return f"triage returned {type(actual).__name__}, expected a dict {{bus_id: action}}"
    for gpu in args["gpus"]:
        bus_id = gpu["bus_id"]
        if bus_id not in actual:
            other = [k for k in actual if k not in expected]
            hint = f" (the answer's keys include {other[0]!r}: return bus_id exactly as given)" if other else ""
            return f"no action for GPU {bus_id} (index {gpu['index']}); every GPU needs one{hint}"
        if actual[bus_id] not in ACTIONS:
            return f"GPU {bus_id}: {actual[bus_id]!r} is not one of {', '.join(ACTIONS)}"
    stray = [k for k in actual if k not in expected]
    if stray:
        return f"{stray[0]!r} is not the bus_id of a GPU of this node"
    found = evidence(args)
    for gpu in args["gpus"]:
        bus_id = gpu["bus_id"]
        if actual[bus_id] != expected[bus_id]:
            return _explain(gpu, expected, actual, found)
    return None


def _explain(gpu: dict, expected: dict, actual: dict, found: dict) -> str:
    bus_id = gpu["bus_id"]
    want, got = expected[bus_id], actual[bus_id]
    calls = found[bus_id]
    said = f"GPU {bus_id} (index {gpu['index']}): expected {want}, got {got}"
    if want == "none":
        if calls:
            return f"{said}: {'; '.join(why for _, why in calls)}, so nothing needs doing"
        return f"{said}: no rule applies to it (its log has no Xid line, its facts are healthy)"
    because = "; ".join(why for a, why in calls if a == want)
    if ACTIONS.index(got) > ACTIONS.index(want):
        return f"{said}: the most severe rule that applies calls for {want}: {because}"
    severest = "a GPU gets the most severe action any rule calls for, whatever the order of its lines"
    if got != "none":
        return f"{said}: {because}; {severest}"
    if any(why.startswith("Xid") for a, why in calls if a == want):
        pci = "%04x:%02x:%02x" % _pci(bus_id)
        also = f"; and {severest}" if any(a == "none" for a, _ in calls) else ""
        return (f"{said}: {because}. The log names this GPU PCI:{pci}: match an Xid line's domain, "
                f"bus and device to its bus_id as hex numbers{also}")
    return f"{said}: {because} (its nvidia-smi and DCGM facts call for it, whatever its log says)"


def show(args: dict) -> str:
    lines = args["log"].count("\n") + 1
    xid = args["log"].count("NVRM: Xid")
    hidden = sum(1 for g in args["gpus"] if not g["visible"])
    return (f"{len(args['gpus'])} GPUs ({args['gpus'][0]['name']}), {hidden} not visible to "
            f"nvidia-smi; a log of {lines} lines with {xid} Xid lines")
