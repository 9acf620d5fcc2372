"""`gpu_alerts`: alerting rules over DCGM exporter metrics (the contract in TASKS-TRACKS.md): a Xid,
a GPU too hot for 5 minutes, a GPU idle but holding memory for 30 minutes, an exporter down."""
from __future__ import annotations

import numpy as np

from . import fleet as fl
from .model import Alert, RulesTask, cases
from .series import STALE, Scenario

XID_CODES = (13, 31, 43, 45, 48, 63, 64, 74, 79, 92, 94, 95)
HOT, IDLE_UTIL, ALLOCATED_MIB = 85, 5, 1024

ALERTS = (
    Alert("GpuXidError", "critical", ("Hostname", "gpu"), 0,
          "DCGM_FI_DEV_XID_ERRORS is nonzero", ("DCGM_FI_DEV_XID_ERRORS",)),
    Alert("GpuTooHot", "warning", ("Hostname", "gpu"), 5,
          "the temperature is above 85", ("DCGM_FI_DEV_GPU_TEMP",)),
    Alert("GpuIdleButAllocated", "warning", ("Hostname", "gpu"), 30,
          "utilization is below 5 with FB_USED above 1024", ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED")),
    Alert("GpuExporterDown", "critical", ("instance",), 5,
          'up{job="dcgm"} is 0', ("up",)),
)

STATEMENT = """Write a Prometheus rule file (YAML: `groups:` of alerting rules) that pages on the GPU
faults below. The judge checks it with `promtool check rules`, then runs it with
`promtool test rules` on a hidden fleet (several hosts with several GPUs each, one sample a minute
for about two hours) and compares the alerts that fire at every minute with the ones defined here.

## The metrics

Each host's DCGM exporter is scraped as `job="dcgm"`, `instance="<host>:9400"`: one series per GPU
with the labels `Hostname` (the host's name, e.g. `gpu-node-17`), `gpu` (its index: `"0"`,
`"1"`...), `UUID`, `device`, `modelName`, `DCGM_FI_DRIVER_VERSION`, `instance` and `job`.

| metric | meaning |
|---|---|
| `DCGM_FI_DEV_XID_ERRORS` | the GPU's last Xid error code, 0 when there is none |
| `DCGM_FI_DEV_GPU_TEMP` | GPU temperature, degrees C |
| `DCGM_FI_DEV_GPU_UTIL` | GPU utilization, percent |
| `DCGM_FI_DEV_FB_USED` | framebuffer memory in use, MiB |
| `up` | 1 when the last scrape of a target succeeded, 0 when it failed: `job="dcgm"` for the DCGM exporters and `job="node"` for the node exporters, each with its `instance` |

While a host's DCGM exporter is down, its GPUs' series stop (a staleness marker, then no sample)
until it answers again.

## The alerts

| alert | `severity` | labels compared | fires |
|---|---|---|---|
| `GpuXidError` | `critical` | `Hostname`, `gpu` | as soon as `DCGM_FI_DEV_XID_ERRORS` is nonzero |
| `GpuTooHot` | `warning` | `Hostname`, `gpu` | when `DCGM_FI_DEV_GPU_TEMP` has stayed above 85 for 5 minutes |
| `GpuIdleButAllocated` | `warning` | `Hostname`, `gpu` | when `DCGM_FI_DEV_GPU_UTIL` has stayed below 5 for 30 minutes on a GPU whose `DCGM_FI_DEV_FB_USED` is above 1024 |
| `GpuExporterDown` | `critical` | `instance` | when `up{job="dcgm"}` has been 0 for 5 minutes |

Precisely:
- Rules are evaluated every minute from minute 0, at the minutes of the samples.
- "Above" and "below" are strict: 85 is not above 85.
- "Has stayed ... for N minutes" is Prometheus's `for: Nm`: the condition holds at every
  evaluation of the last N minutes, both ends included (N + 1 evaluations in a row), and the
  alert stops at the first evaluation where it does not. Where a series has no sample (an
  exporter down), its condition does not hold.
- `GpuIdleButAllocated`'s condition is both at once, on the same GPU: utilization below 5 and
  memory in use above 1024 MiB, at every evaluation of the 30 minutes.

## What is compared

At every minute, the firing alerts of these four names, each by its name, its `severity` label
and the labels named in the table (the series' values: an alert must keep them). Other labels,
annotations and alerts of other names are yours to add (a `summary` annotation, a
`runbook_url`...). An alert that is missing at a minute, fires when it should not, has another
severity or lacks one of its labels is a wrong answer naming the first such minute, the alert,
and the series around it. A file promtool refuses is a compile error with promtool's message.

Every accepted rule file gets the same score: the judge measures no performance for rule files.
"""

STARTER = """groups:
  - name: gpu-alerts
    rules:
      # The format of an alerting rule: replace this example with the alerts of the statement.
      - alert: GpuExampleVeryHot
        expr: DCGM_FI_DEV_GPU_TEMP > 100
        for: 1m
        labels:
          severity: info
        annotations:
          summary: "GPU {{ $labels.gpu }} of {{ $labels.Hostname }} is at {{ $value }} C"
"""

TASK = RulesTask(
    slug="gpu_alerts", title="GPU alerts from DCGM metrics", difficulty="medium",
    skills=("prometheus", "dcgm", "monitoring_alerting", "gpu_health", "gpu_cluster_operations"),
    summary="Prometheus alerting rules over DCGM exporter metrics: Xid errors, overheating, idle but "
            "allocated GPUs and exporters down, checked with promtool on a hidden fleet.",
    statement=STATEMENT, alerts=ALERTS,
    tests={"cpu": cases(("rack", {"hosts": 2, "gpus": 4, "minutes": 120}),
                        ("fleet", {"hosts": 4, "gpus": 8, "minutes": 120}),
                        ("busy", {"hosts": 3, "gpus": 4, "minutes": 150, "extra": 2}),
                        ("wide", {"hosts": 6, "gpus": 8, "minutes": 100}))},
    samples=cases(("sample", {"hosts": 2, "gpus": 4, "minutes": 120})),
    starters={"yaml": STARTER},
)

# Every test has one of each: the edges that tell a right rule from a nearly right one.
MANDATORY = (("xid", 3), ("hot", 5), ("hot", 6), ("hot", 11), ("hot_dip", 14), ("plateau", 10),
             ("idle", 30), ("idle", 36), ("idle_free", 36), ("util_at_5", 36))
EXTRA = ("xid", "hot", "idle", "plateau", "hot_dip")


def generate(rng: np.random.Generator, dims: dict) -> Scenario:
    minutes = int(dims["minutes"])
    fleet = fl.make_fleet(rng, int(dims["hosts"]), int(dims["gpus"]), minutes)
    n = minutes + 1
    temp = {g.key: fl.walk(rng, n, 48, 78, 1.5) for g in fleet.gpus}
    util = {g.key: fl.walk(rng, n, 35, 100, 8) for g in fleet.gpus}
    fb = {g.key: fl.walk(rng, n, 12000, 76000, 1500) for g in fleet.gpus}
    xid = {g.key: np.zeros(n) for g in fleet.gpus}
    scenario = Scenario(minutes)
    outages = _outages(rng, fleet, scenario)
    episodes = list(MANDATORY)
    for _ in range(len(fleet.gpus) // 4 + int(dims.get("extra", 0)) * len(fleet.gpus) // 4):
        what = EXTRA[int(rng.integers(len(EXTRA)))]
        episodes.append((what, int(rng.integers(2, 9)) if what == "xid" else
                         int(rng.integers(31, 46)) if what == "idle" else
                         int(rng.integers(10, 16)) if what == "hot_dip" else int(rng.integers(3, 13))))
    for what, length in episodes:
        placed = fl.place(rng, fleet, length)
        if placed is None:
            continue
        gpu, s = placed
        k, e = gpu.key, s + length
        scenario.episodes.append((what, k, s, length))
        if what == "xid":
            xid[k][s:e] = XID_CODES[int(rng.integers(len(XID_CODES)))]
        elif what in ("hot", "hot_dip"):
            temp[k][s:e] = rng.integers(HOT + 1, 97, length)
            if what == "hot_dip":   # one sample back at 85: the 5 minutes start again after it
                temp[k][s + 4] = HOT
        elif what == "plateau":
            temp[k][s:e] = HOT
        else:
            util[k][s:e] = IDLE_UTIL if what == "util_at_5" else rng.integers(0, IDLE_UTIL, length)
            temp[k][s:e] = rng.integers(33, 46, length)
            fb[k][s:e] = ALLOCATED_MIB if what == "idle_free" else int(rng.integers(ALLOCATED_MIB + 1, 60000))
    for gpu in fleet.gpus:
        for metric, values in (("DCGM_FI_DEV_XID_ERRORS", xid), ("DCGM_FI_DEV_GPU_TEMP", temp),
                               ("DCGM_FI_DEV_GPU_UTIL", util), ("DCGM_FI_DEV_FB_USED", fb)):
            scenario.add(metric, gpu.labels, _scraped(values[gpu.key], outages.get(gpu.host, ())))
    return scenario


def _outages(rng: np.random.Generator, fleet: fl.Fleet, scenario: Scenario) -> dict:
    """The DCGM exporters' outages (4 and 6 minutes on every test: 6 is the shortest that fires,
    plus one more), a node exporter's (which must not page as a DCGM one), and `up` for both."""
    down: dict[str, list] = {}
    for length in (4, 6, int(rng.integers(3, 10))):
        for _ in range(100):
            host = fleet.hosts[int(rng.integers(len(fleet.hosts)))]
            s = int(rng.integers(fl.MARGIN + 1, fleet.minutes - length))
            if all(s + length + fl.MARGIN <= a or s >= a + n + fl.MARGIN for a, n in down.get(host, ())):
                down.setdefault(host, []).append((s, length))
                fl.block_host(fleet, host, s, s + length)
                scenario.episodes.append(("exporter_down", host, s, length))
                break
    node_host = fleet.hosts[int(rng.integers(len(fleet.hosts)))]
    node_len = int(rng.integers(7, 11))
    node_start = int(rng.integers(1, fleet.minutes - node_len))
    scenario.episodes.append(("node_exporter_down", node_host, node_start, node_len))
    for host in fleet.hosts:
        up = [1] * (fleet.minutes + 1)
        for s, length in down.get(host, ()):
            up[s:s + length] = [0] * length
        scenario.add("up", {"instance": f"{host}:{fl.EXPORTER_PORT}", "job": "dcgm"}, up)
        node = [1] * (fleet.minutes + 1)
        if host == node_host:
            node[node_start:node_start + node_len] = [0] * node_len
        scenario.add("up", {"instance": f"{host}:{fl.NODE_EXPORTER_PORT}", "job": "node"}, node)
    return down


def _scraped(values: np.ndarray, outages) -> list:
    """The samples Prometheus stores: a staleness marker where the exporter went down, nothing
    until it is back."""
    out = [int(v) for v in values]
    for s, length in outages:
        out[s] = STALE
        out[s + 1:s + length] = [None] * (length - 1)
    return out


def conditions(scenario: Scenario) -> dict[str, list[set]]:
    """Per alert and minute, the keys whose condition holds (the rule's expression, no `for:`)."""
    minutes = range(scenario.minutes + 1)
    by_gpu = {(s.metric, s.labels["Hostname"], s.labels["gpu"]): s for s in scenario.series if "gpu" in s.labels}
    gpus = {(h, g) for m, h, g in by_gpu if m == "DCGM_FI_DEV_GPU_TEMP"}

    def value(metric, key, t):
        s = by_gpu.get((metric, *key))
        return s.at(t) if s else None

    def holds(name, key, t) -> bool:
        if name == "GpuXidError":
            v = value("DCGM_FI_DEV_XID_ERRORS", key, t)
            return v is not None and v != 0
        if name == "GpuTooHot":
            v = value("DCGM_FI_DEV_GPU_TEMP", key, t)
            return v is not None and v > HOT
        u, m = value("DCGM_FI_DEV_GPU_UTIL", key, t), value("DCGM_FI_DEV_FB_USED", key, t)
        return u is not None and m is not None and u < IDLE_UTIL and m > ALLOCATED_MIB

    out = {a.name: [{k for k in gpus if holds(a.name, k, t)} for t in minutes] for a in ALERTS[:3]}
    exporters = scenario.of("up", job="dcgm")
    out["GpuExporterDown"] = [{(s.labels["instance"],) for s in exporters if s.at(t) == 0} for t in minutes]
    return out


def observe(scenario: Scenario, alert: str, key: tuple, t: int) -> str:
    """The inputs of `alert` for `key` at minute t, in words."""
    if alert == "GpuExporterDown":
        s = scenario.one("up", job="dcgm", instance=key[0])
        if s is None:
            other = scenario.one("up", instance=key[0])
            job = other.labels.get("job") if other else None
            return (f'{key[0]} is not a DCGM exporter (its `up` has job="{job}")' if job
                    else f"no target is called {key[0]}")
        return f'up{{job="dcgm"}} is {_shown(s.at(t))} at {t}m'
    v = _values(scenario, key, t)
    if v is None:
        return ""
    if alert == "GpuXidError":
        return f"DCGM_FI_DEV_XID_ERRORS is {_shown(v['DCGM_FI_DEV_XID_ERRORS'])} at {t}m"
    if alert == "GpuTooHot":
        return f"DCGM_FI_DEV_GPU_TEMP is {_shown(v['DCGM_FI_DEV_GPU_TEMP'])} at {t}m"
    return (f"DCGM_FI_DEV_GPU_UTIL is {_shown(v['DCGM_FI_DEV_GPU_UTIL'])} and DCGM_FI_DEV_FB_USED "
            f"{_shown(v['DCGM_FI_DEV_FB_USED'])} at {t}m")


def slip(scenario: Scenario, alert: str, key: tuple, t: int) -> str | None:
    """The likely mistake when an input sits exactly on a threshold at minute t."""
    v = _values(scenario, key, t)
    if v is None:
        return None
    if alert == "GpuTooHot" and v["DCGM_FI_DEV_GPU_TEMP"] == HOT:
        return "85 is not above 85: `>=` where the statement says above?"
    if alert == "GpuIdleButAllocated" and v["DCGM_FI_DEV_GPU_UTIL"] == IDLE_UTIL:
        return "5 is not below 5: `<=` where the statement says below?"
    if alert == "GpuIdleButAllocated" and v["DCGM_FI_DEV_FB_USED"] == ALLOCATED_MIB:
        return "1024 is not above 1024: `>=` where the statement says above?"
    return None


def _values(scenario: Scenario, key: tuple, t: int) -> dict | None:
    if len(key) < 2 or None in key:
        return None
    return {m: (s.at(t) if (s := scenario.one(m, Hostname=key[0], gpu=key[1])) else None)
            for m in ("DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_GPU_UTIL",
                      "DCGM_FI_DEV_FB_USED")}


def _shown(v) -> str:
    return "missing" if v is None else str(int(v)) if float(v).is_integer() else str(v)
