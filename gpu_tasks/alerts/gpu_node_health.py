"""`gpu_node_health`: alerts a GPU fleet's on-call needs beyond the basics: framebuffer memory
almost full for 10 minutes (a ratio of two metrics), double-bit ECC errors (a counter that
restarts at every driver reload) and a GPU fallen off the bus (a count per host)."""
from __future__ import annotations

import numpy as np

from . import fleet as fl
from .model import Alert, RulesTask, cases
from .series import STALE, Scenario

GPUS = 8                        # every host has 8 GPUs
FB_TOTAL = 81040                # FB_USED + FB_FREE on these GPUs, MiB
FULL = 0.95
FULL_USED = 76988               # exactly 95 % of FB_TOTAL
ECC_WINDOW, MEMORY_FOR, BUS_FOR = 15, 10, 3
ECC = "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"

ALERTS = (
    Alert("GpuMemoryAlmostFull", "warning", ("Hostname", "gpu"), MEMORY_FOR,
          "more than 95 % of the framebuffer is in use", ("DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE")),
    Alert("GpuEccDoubleBitErrors", "critical", ("Hostname", "gpu"), 0,
          "the double-bit ECC counter grew within the last 15 minutes", (ECC,)),
    Alert("GpuFellOffTheBus", "critical", ("Hostname",), BUS_FOR,
          "the host reports fewer than its 8 GPUs", ("DCGM_FI_DEV_GPU_TEMP",)),
)

STATEMENT = """Write a Prometheus rule file (YAML: `groups:` of alerting rules) with three alerts on the
health of a GPU fleet's hosts. The judge checks it with `promtool check rules`, then runs it with
`promtool test rules` on hidden series (several hosts of 8 GPUs, one sample a minute for about two
hours) and compares the alerts that fire at every minute with the ones defined here.

## The metrics

Each host's DCGM exporter is scraped as `job="dcgm"`, `instance="<host>:9400"`: one series per GPU
with the labels `Hostname` (e.g. `gpu-node-17`), `gpu` (`"0"` to `"7"`: every host has 8 GPUs),
`UUID`, `device`, `modelName`, `DCGM_FI_DRIVER_VERSION`, `instance` and `job`.

| metric | meaning |
|---|---|
| `DCGM_FI_DEV_GPU_TEMP` | GPU temperature, degrees C |
| `DCGM_FI_DEV_FB_USED` | framebuffer memory in use, MiB |
| `DCGM_FI_DEV_FB_FREE` | framebuffer memory free, MiB |
| `DCGM_FI_DEV_ECC_DBE_VOL_TOTAL` | double-bit ECC errors since the driver was last loaded: a counter, which starts again from 0 when the driver is reloaded |

A GPU that falls off the bus stops reporting: all its series stop (a staleness marker, then no
sample) until it is back. A host never loses all of its GPUs at once.

## The alerts

| alert | `severity` | labels compared | fires |
|---|---|---|---|
| `GpuMemoryAlmostFull` | `warning` | `Hostname`, `gpu` | when more than 95 % of the GPU's framebuffer (`FB_USED / (FB_USED + FB_FREE)`) has been in use for 10 minutes |
| `GpuEccDoubleBitErrors` | `critical` | `Hostname`, `gpu` | while the GPU has had a new double-bit ECC error within the last 15 minutes |
| `GpuFellOffTheBus` | `critical` | `Hostname` | when the host has reported `DCGM_FI_DEV_GPU_TEMP` for fewer than its 8 GPUs for 3 minutes |

Precisely:
- Rules are evaluated every minute from minute 0, at the minutes of the samples.
- "More than" and "fewer than" are strict: exactly 95 % is not more than 95 %.
- "For N minutes" is Prometheus's `for: Nm`: the condition holds at every evaluation of the last N
  minutes, both ends included (N + 1 evaluations in a row), and the alert stops at the first
  evaluation where it does not. Where a series has no sample, its condition does not hold.
- A new ECC error is a growth of the counter between two consecutive samples of the last 15
  minutes (both ends included): what `increase()` over 15 minutes sees. A drop is a driver
  reload, not an error; errors counted after the drop are new errors.
- `GpuFellOffTheBus` is one alert per host, whichever GPUs are missing.

## What is compared

At every minute, the firing alerts of these three names, each by its name, its `severity` label
and the labels named in the table (the series' values: an alert must keep them). Other labels,
annotations and alerts of other names are yours to add. An alert that is missing at a minute,
fires when it should not, has another severity or lacks one of its labels is a wrong answer
naming the first such minute, the alert, and the series around it. A file promtool refuses is a
compile error with promtool's message.

Every accepted rule file gets the same score: the judge measures no performance for rule files.
"""

STARTER = """groups:
  - name: gpu-node-health
    rules:
      # The format of an alerting rule: replace this example with the alerts of the statement.
      - alert: GpuExampleMemoryHalfUsed
        expr: DCGM_FI_DEV_FB_USED > 40000
        for: 1m
        labels:
          severity: info
        annotations:
          summary: "GPU {{ $labels.gpu }} of {{ $labels.Hostname }} uses {{ $value }} MiB"
"""

TASK = RulesTask(
    slug="gpu_node_health", title="GPU node health alerts", difficulty="hard",
    skills=("prometheus", "dcgm", "monitoring_alerting", "gpu_health", "sre"),
    summary="Prometheus alerts on framebuffer memory almost full, double-bit ECC errors from a counter "
            "that resets with the driver, and GPUs fallen off the bus, per GPU and per host.",
    statement=STATEMENT, alerts=ALERTS,
    tests={"cpu": cases(("pair", {"hosts": 2, "minutes": 120}),
                        ("rack", {"hosts": 4, "minutes": 120}),
                        ("row", {"hosts": 6, "minutes": 100, "extra": 2}))},
    samples=cases(("sample", {"hosts": 2, "minutes": 120})),
    starters={"yaml": STARTER},
)

# Every test has one of each: the edges that tell a right rule from a nearly right one.
MANDATORY = (("full", 10), ("full", 11), ("full", 18), ("at_95", 14), ("full_dip", 19),
             ("ecc", 22), ("ecc_reload", 22), ("ecc_reload_error", 22),
             ("fall", 3), ("fall", 4), ("fall", 9), ("fall_pair", 7))
EXTRA = ("full", "ecc", "fall")


def generate(rng: np.random.Generator, dims: dict) -> Scenario:
    minutes = int(dims["minutes"])
    fleet = fl.make_fleet(rng, int(dims["hosts"]), GPUS, minutes)
    n = minutes + 1
    temp = {g.key: fl.walk(rng, n, 45, 78, 1.5) for g in fleet.gpus}
    used = {g.key: fl.walk(rng, n, 10000, 70000, 1500) for g in fleet.gpus}
    base = {g.key: int(rng.choice([0, 0, 0, 1, 2, 4])) for g in fleet.gpus}
    events: dict[tuple, list] = {g.key: [] for g in fleet.gpus}       # ECC: (minute, "add" | "reload", n)
    gone: dict[tuple, list] = {g.key: [] for g in fleet.gpus}         # (start, length) off the bus
    scenario = Scenario(minutes)
    episodes = list(MANDATORY)
    for _ in range(len(fleet.gpus) // 8 * (1 + int(dims.get("extra", 0)))):
        what = EXTRA[int(rng.integers(len(EXTRA)))]
        episodes.append((what, {"full": int(rng.integers(8, 21)), "ecc": 22}.get(what, int(rng.integers(2, 9)))))
    for what, length in episodes:
        placed = fl.place(rng, fleet, length)
        if placed is None:
            continue
        gpu, s = placed
        k, e = gpu.key, s + length
        scenario.episodes.append((what, k, s, length))
        if what in ("full", "full_dip"):
            used[k][s:e] = np.round(FB_TOTAL * rng.uniform(0.955, 0.995, length))
            if what == "full_dip":   # one sample at 90 %: the 10 minutes start again after it
                used[k][s + 6] = round(FB_TOTAL * 0.90)
        elif what == "at_95":
            used[k][s:e] = FULL_USED
        elif what == "ecc":
            events[k].append((s, "add", int(rng.integers(1, 4))))
        elif what in ("ecc_reload", "ecc_reload_error"):
            base[k] = max(base[k], 2)     # a drop the reload makes visible
            events[k].append((s, "reload", 0))
            if what == "ecc_reload_error":
                events[k].append((s + int(rng.integers(2, 7)), "add", 1))
        elif what == "fall":
            gone[k].append((s, length))
        else:   # fall_pair: a second GPU of the same host falls two minutes later
            gone[k].append((s, length))
            for other in fleet.of_host(gpu.host):
                if other is not gpu and other.free(s + 2, e + 2):
                    other.busy.append((s + 2, e + 2))
                    gone[other.key].append((s + 2, length))
                    break
    for gpu in fleet.gpus:
        k = gpu.key
        counter = _counter(base[k], events[k], n)
        free = FB_TOTAL - used[k]
        for metric, values in (("DCGM_FI_DEV_GPU_TEMP", temp[k]), ("DCGM_FI_DEV_FB_USED", used[k]),
                               ("DCGM_FI_DEV_FB_FREE", free), (ECC, counter)):
            scenario.add(metric, gpu.labels, _reported(values, gone[k]))
    return scenario


def _counter(base: int, events: list, n: int) -> list:
    """The ECC counter minute by minute: errors add, a driver reload starts it again from 0."""
    out, value, at = [], base, {}
    for minute, op, k in events:
        at.setdefault(minute, []).append((op, k))
    for m in range(n):
        for op, k in at.get(m, ()):
            value = 0 if op == "reload" else value + k
        out.append(value)
    return out


def _reported(values, gone) -> list:
    out = [int(v) for v in values]
    for s, length in gone:
        out[s] = STALE
        out[s + 1:s + length] = [None] * (length - 1)
    return out


def _grew(samples: list) -> bool:
    """Whether `increase()` over these samples is above 0: a rise, or a drop to a value above 0
    (a restart that has counted errors since)."""
    return any((b > a) or (b < a and b > 0) for a, b in zip(samples, samples[1:]))


def conditions(scenario: Scenario) -> dict[str, list[set]]:
    minutes = range(scenario.minutes + 1)
    by_gpu = {(s.metric, s.labels["Hostname"], s.labels["gpu"]): s for s in scenario.series}
    gpus = sorted({(h, g) for _, h, g in by_gpu})
    hosts = sorted({h for h, _ in gpus})

    def full(key, t) -> bool:
        u, f = by_gpu[("DCGM_FI_DEV_FB_USED", *key)].at(t), by_gpu[("DCGM_FI_DEV_FB_FREE", *key)].at(t)
        return u is not None and f is not None and u / (u + f) > FULL

    def ecc(key, t) -> bool:
        return _grew(by_gpu[(ECC, *key)].window(t, ECC_WINDOW))

    def short(host, t) -> bool:
        reporting = sum(1 for h, g in gpus if h == host and by_gpu[("DCGM_FI_DEV_GPU_TEMP", h, g)].at(t) is not None)
        return 0 < reporting < GPUS

    return {"GpuMemoryAlmostFull": [{k for k in gpus if full(k, t)} for t in minutes],
            "GpuEccDoubleBitErrors": [{k for k in gpus if ecc(k, t)} for t in minutes],
            "GpuFellOffTheBus": [{(h,) for h in hosts if short(h, t)} for t in minutes]}


def observe(scenario: Scenario, alert: str, key: tuple, t: int) -> str:
    if alert == "GpuFellOffTheBus":
        reporting = [s.labels["gpu"] for s in scenario.of("DCGM_FI_DEV_GPU_TEMP", Hostname=key[0]) if s.at(t) is not None]
        missing = sorted(set(map(str, range(GPUS))) - set(reporting), key=int)
        return (f"{key[0]} reports {len(reporting)} of its {GPUS} GPUs at {t}m"
                + (f" (missing: gpu {', '.join(missing)})" if missing else ""))
    if len(key) < 2 or None in key:
        return ""
    if alert == "GpuMemoryAlmostFull":
        u = _at(scenario, "DCGM_FI_DEV_FB_USED", key, t)
        f = _at(scenario, "DCGM_FI_DEV_FB_FREE", key, t)
        if u is None or f is None:
            return f"the GPU reports no framebuffer figures at {t}m"
        return f"FB_USED is {int(u)} and FB_FREE {int(f)} at {t}m: {100 * u / (u + f):.2f} % in use"
    s = scenario.one(ECC, Hostname=key[0], gpu=key[1])
    lo = max(t - ECC_WINDOW, 0)
    shown = ", ".join(f"{m}m: {_text(s.values[m])}" for m in range(lo, t + 1)
                      if m == lo or m == t or s.values[m] != s.values[m - 1])
    return f"{ECC} from {lo}m to {t}m: {shown}"


def slip(scenario: Scenario, alert: str, key: tuple, t: int) -> str | None:
    if len(key) < 2 or None in key:
        return None
    if alert == "GpuMemoryAlmostFull" and _at(scenario, "DCGM_FI_DEV_FB_USED", key, t) == FULL_USED:
        return "exactly 95 % is not more than 95 %: `>=` where the statement says more than?"
    if alert == "GpuEccDoubleBitErrors":
        window = scenario.one(ECC, Hostname=key[0], gpu=key[1]).window(t, ECC_WINDOW)
        drops = [(a, b) for a, b in zip(window, window[1:]) if b < a]
        if drops and _grew(window):
            return ("the counter restarted from 0 and counted new errors since: `increase()` sees them "
                    "across the restart, `delta()` or `x - x offset 15m` do not")
        if drops:
            return ("the counter dropped to 0: a driver reload, not an error (`changes()` or `resets()` "
                    "count it, `increase()` does not)")
    return None


def _at(scenario: Scenario, metric: str, key: tuple, t: int):
    s = scenario.one(metric, Hostname=key[0], gpu=key[1])
    return s.at(t) if s else None


def _text(v) -> str:
    return "none" if v is None else v if v == STALE else str(int(v))
