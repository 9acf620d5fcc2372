"""The judge's report: dataclasses, their JSON form, and a readable text rendering."""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field

from .listing_text import ptx_lines, sass_instructions
from .verdicts import Verdict

# 2: Report.suite ("tests" | "samples"); KernelReport.ptx, .sass and .listing_note.
JSON_VERSION = 2


@dataclass
class MismatchReport:
    index: list[int]
    got: float | int | None
    expected: float | int | None


@dataclass
class TestReport:
    """One test: its sizes, whether it passed, and the first mismatches when it did not."""

    __test__ = False  # not a pytest class despite the name

    name: str
    sizes: dict
    passed: bool | None = None          # None: not run (an earlier test decided the verdict)
    max_error: float | None = None
    mismatches: list[MismatchReport] = field(default_factory=list)
    message: str = ""
    verdict: str | None = None
    elapsed_s: float | None = None


@dataclass
class KernelReport:
    """One compiled kernel: ptxas' resource usage and theoretical occupancy on the target."""

    name: str
    kind: str
    arch: str
    compiled: bool | None = None             # False: refused by NVRTC; None: no report available
    registers: int | None = None
    shared_bytes: int | None = None          # static, from ptxas
    dynamic_shared_bytes: int = 0            # largest launched with
    stack_bytes: int | None = None
    spill_stores: int | None = None
    spill_loads: int | None = None
    spill_bytes: int | None = None           # stores + loads
    block: list[int] | None = None
    grid: list[int] | None = None
    launches: int = 0
    occupancy: float | None = None           # 0..1; None if never launched or usage unknown
    occupancy_limited_by: str | None = None
    blocks_per_sm: int | None = None
    ptx: str | None = None                   # NVRTC's PTX of the kernel's program, capped
    sass: str | None = None                  # nvdisasm of its cubin for `arch`, capped
    listing_note: str | None = None          # why a listing is missing or was cut short


@dataclass
class TimingReport:
    """The timing of an accepted solution (cuda backend); see backends/cuda/ and the README."""

    dims: dict
    median_ms: float
    min_ms: float
    max_ms: float
    repeats: int
    warmup: int
    device: str
    roofline: dict | None = None
    peaks: dict | None = None
    ci_low_ms: float | None = None            # distribution-free CI of the median
    ci_high_ms: float | None = None
    confidence: float = 0.95
    ci_rel_halfwidth: float | None = None
    converged: bool | None = None             # the CI got within the target before the budget ran out
    stop_reason: str = ""
    achieved_gb_s: float | None = None
    achieved_gflop_s: float | None = None
    roofline_fraction: float | None = None
    physical_floor_ms: float | None = None
    flags: list[str] = field(default_factory=list)   # e.g. below_physical_floor
    leaderboard_eligible: bool = False
    wall: dict | None = None                  # events vs the parent's wall clock
    harness: dict | None = None               # flush, persisting L2 reset, buffer pool, re-checks
    gpu: dict | None = None                   # lock and idle wait before timing
    times_ms: list[float] = field(default_factory=list)


@dataclass
class Report:
    """Everything the judge says about one submission."""

    task: str
    backend: str
    verdict: Verdict
    message: str
    tests: list[TestReport] = field(default_factory=list)
    kernels: list[KernelReport] = field(default_factory=list)
    timing: TimingReport | None = None
    score: float = 0.0
    score_detail: dict | None = None
    compile_log: str | None = None
    details: str | None = None               # traceback or longer explanation, paths scrubbed
    stdout: str = ""
    stderr: str = ""
    seed: int | None = None
    elapsed_s: float | None = None
    sandbox: str | None = None               # how the code ran: "bubblewrap", "none (--unsafe-no-sandbox)"
    suite: str = "tests"                     # "samples": the visible samples only, never scored
    # python, cpp: the submission's seconds on the timed test against the reference's, measured
    # in the same run, and/or the task's quality measure; the performance fraction they give
    measure: dict | None = None
    # cuda: the small tests under compute-sanitizer (sanitizer.py): ran, cases, tools, seconds
    sanitizer: dict | None = None
    # cpu: the estimated H100 time at the benchmark size, its bound, hints and counters per
    # source line (kinds/cupy/perfmodel.py); never a measurement
    profile: dict | None = None
    # verilog: Yosys's cells and longest combinational path (in cells) at the task's stated
    # parameters against the reference design's, and the performance fraction they give
    synthesis: dict | None = None
    # verilog, a wrong answer: the cycles up to the mismatch, per signal (kinds/verilog/waveform.py)
    waveform: dict | None = None
    # cocotb, once the testbench passed on the correct design: each mutant it ran against, in
    # words (never its code): {"name", "description", "public", "caught", "test", "how"}
    mutants: list | None = None
    version: int = JSON_VERSION
    # Seconds per stage of the judging (start, imports, load, build, tests, listings, teardown):
    # for the operator's benchmarks, never in the JSON.
    stages: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def accepted(self) -> bool:
        return self.verdict is Verdict.ACCEPTED

    def to_dict(self, candidate_view: bool = False) -> dict:
        """Plain JSON-able dict; `candidate_view` drops the seed of a graded run (it regenerates
        the hidden inputs); a sample run's seed is public and stays."""
        d = asdict(self)
        d.pop("stages", None)
        d["verdict"] = self.verdict.value
        if candidate_view and self.suite != "samples":
            d.pop("seed", None)
        return _finite(d)

    def to_json(self, candidate_view: bool = False, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(candidate_view), indent=indent)

    def render_text(self) -> str:
        return render_text(self)


def _finite(value):
    """JSON has no NaN/Infinity: spell them as strings."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _fmt_num(x) -> str:
    if isinstance(x, float):
        return f"{x:.6g}"
    return str(x)


def _fmt_bytes(n: int | None) -> str:
    if n is None:
        return "?"
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KiB"


def _listing_summary(k: KernelReport) -> str:
    """One line on a kernel's listings: their sizes, or why there are none."""
    parts = []
    if k.ptx:
        parts.append(f"PTX {ptx_lines(k.ptx)} lines")
    if k.sass:
        parts.append(f"SASS {sass_instructions(k.sass)} instructions for {k.arch}")
    text = ", ".join(parts) + ("; --json for the listings" if parts else "")
    if k.listing_note:
        text = f"{text} ({k.listing_note})" if text else k.listing_note
    return text


def _sanitizer_line(s: dict) -> str:
    """One line on the compute-sanitizer pass: each tool's errors, or why it did not run."""
    if not s.get("ran"):
        return f"compute-sanitizer: not run ({s.get('note') or 'off'})"
    parts = []
    for t in s.get("tools") or []:
        said = (f"{t['errors']} error(s)" if t.get("errors") is not None
                else f"no summary ({t.get('note') or 'unknown'})")
        parts.append(f"{t['tool']} {said}")
    cases = ", ".join(s.get("cases") or [])
    return (f"compute-sanitizer on {cases}: {'; '.join(parts) or 'no tool ran'} "
            f"({s.get('seconds', 0):.1f} s)")


def _measure_line(m: dict) -> str:
    """A function task's performance: its time against the reference's, its quality."""
    parts = []
    if m.get("seconds") is not None:
        parts.append(f"{m['seconds']:.4g} s on test {m.get('test')}, the {m.get('reference')} reference "
                     f"{m['reference_seconds']:.4g} s ({m.get('time_fraction', 0):.0%})")
    if m.get("quality") is not None:
        parts.append(f"quality {m['quality']:.0%} of the reference's")
    if m.get("note"):   # a kind that measures nothing says so (rule files)
        parts.append(str(m["note"]))
    return f"Performance: {'; '.join(parts)}: {m.get('fraction', 0):.0%} of the performance points"


def render_text(r: Report) -> str:
    """Readable report for a terminal or a page."""
    on = f"{r.task} on {r.backend}" + (" (sample tests)" if r.suite == "samples" else "")
    lines = [f"{on}: {r.verdict.title.upper()}", r.message, ""]
    caught = {m["name"]: m["caught"] for m in r.mutants or ()}
    if r.tests:
        lines.append("Tests")
        for t in r.tests:
            sizes = ", ".join(f"{k}={v}" for k, v in t.sizes.items())
            state = {True: "pass", False: "FAIL", None: "not run"}[t.passed]
            if t.name in caught:   # a mutant's run passes the judging; what counts is whether it was caught
                state = "caught" if caught[t.name] else "missed"
            err = f"  max error {_fmt_num(t.max_error)}" if t.max_error is not None else ""
            took = f"  {t.elapsed_s:.2f}s" if t.elapsed_s is not None else ""
            lines.append(f"  {state:7s} {t.name} ({sizes}){err}{took}")
            if t.passed is False and t.message:
                lines.append(f"          {t.message}")
            for m in t.mismatches:
                lines.append(f"          at {tuple(m.index)}: got {_fmt_num(m.got)}, "
                             f"expected {_fmt_num(m.expected)}")
        lines.append("")
    if r.sanitizer:
        lines.append(_sanitizer_line(r.sanitizer))
        lines.append("")
    if r.kernels:
        lines.append("Kernels")
        for k in r.kernels:
            if k.compiled is False:
                lines.append(f"  {k.name} [{k.kind}] did not compile")
                continue
            occ = f"{k.occupancy:.0%} ({k.occupancy_limited_by})" if k.occupancy is not None else "?"
            block = "x".join(map(str, k.block)) if k.block else "-"
            lines.append(
                f"  {k.name} [{k.kind}] regs {k.registers if k.registers is not None else '?'}, "
                f"smem {_fmt_bytes(k.shared_bytes)} + {_fmt_bytes(k.dynamic_shared_bytes)} dynamic, "
                f"spills {_fmt_bytes(k.spill_bytes)}, block {block}, occupancy on {k.arch} {occ}")
            listed = _listing_summary(k)
            if listed:
                lines.append(f"    {listed}")
        lines.append("")
    if r.compile_log:
        lines += ["Compiler output", *("  " + ln for ln in r.compile_log.splitlines()[:40]), ""]
    if r.details:
        lines += ["Details", *("  " + ln for ln in r.details.splitlines()[:40]), ""]
    if r.timing:
        t = r.timing
        ci = (f", {t.confidence:.0%} CI [{t.ci_low_ms:.4f}, {t.ci_high_ms:.4f}]"
              if t.ci_low_ms is not None and t.ci_high_ms is not None else "")
        lines.append(f"Timing on {t.device}: median {t.median_ms:.4f} ms{ci} "
                     f"(min {t.min_ms:.4f}, {t.repeats} repeats)")
        if t.roofline:
            rf = t.roofline
            lines.append(f"  {rf['achieved_bytes_s'] / 1e9:.1f} GB/s, {rf['achieved_flops_s'] / 1e9:.1f} "
                         f"GFLOP/s: {rf['fraction']:.0%} of the {rf['bound']} roofline")
        if t.flags:
            lines.append(f"  flagged for review ({', '.join(t.flags)}): not on the leaderboard")
        lines.append("")
    p = r.profile
    if p:
        dims = ", ".join(f"{k}={v}" for k, v in (p.get("dims") or {}).items())
        if p.get("estimated_us") is not None:
            lines.append(f"Estimated on H100 (not measured) at {dims}: {p['estimated_us']:.1f} us, "
                         f"bound by {p['bound']}, {p['roofline_fraction']:.0%} of the roofline")
        else:
            lines.append(f"No H100 estimate at {dims}: {p.get('error') or 'see the hints'}")
        lines += [f"  - {h['text']}" for h in (p.get("hints") or [])[:5]]
        lines.append("")
    sy = r.synthesis
    if sy:
        at = ", ".join(f"{k}={v}" for k, v in (sy.get("params") or {}).items())
        lines.append(f"Synthesis (Yosys, {at}): {sy['cells']} cells, longest combinational path "
                     f"{sy['depth']} cells; the reference design: {sy['reference_cells']} and "
                     f"{sy['reference_depth']} ({sy['fraction']:.0%} of the performance points)")
        lines.append("")
    if r.measure:
        lines.append(_measure_line(r.measure))
        lines.append("")
    if r.mutants:
        lines.append(f"Mutants: {sum(1 for m in r.mutants if m['caught'])} of {len(r.mutants)} caught")
        for m in r.mutants:
            by = f" (test `{m['test']}`)" if m.get("test") else ""
            lines.append(f"  {'caught' if m['caught'] else 'missed':7s} {m['name']}: {m['description']}{by}")
        lines.append("")
    for label, text in (("Your stdout", r.stdout), ("Your stderr", r.stderr)):
        if text:
            lines += [label, *("  " + ln for ln in text.splitlines()[:30]), ""]
    detail = r.score_detail or {}
    perf = detail.get("performance")
    if r.suite == "samples":
        lines.append("Not scored: sample tests only")
    else:
        lines.append(f"Score {r.score:g} / {detail.get('max', 100):g}"
                     + (f" (correctness {detail.get('correctness', 0):g}, performance {perf:g}"
                        + (", estimated on H100)" if detail.get("estimated") else ")")
                        if perf is not None else ""))
    if r.sandbox and r.sandbox != "bubblewrap":
        lines.append(f"Sandbox: {r.sandbox}")
    return "\n".join(lines)
