"""End-to-end judge time: python bench/judge.py [--backend cpu|cuda] [--repeats 3] [--no-listings]
[--no-styles | --styles-only | --testbench-only | --functions-only | --rules-only] [--before REV|none]
[TASK...].

cpu: per reference solution, the median and minimum wall time of judging it with the machine's
build cache (warm after the first run) and the median with a cold build cache. Then, per kernel
style (raw, elementwise, reduction, jit, array; submissions from tests/fixtures), in the same run:
the judge of commit REV (default: the judge before compiling became a stage of its own), and this
tree's judge with a cold and a warm build cache, with ratios and the time per stage (child start,
imports, load, NVRTC gate, emulator build, tests, listings, teardown; the report's `stages`).
Then the hardware-design tasks' reference designs, cold and warm, the design-verification tasks'
reference testbenches (kind cocotb: every mutant simulated), cold and warm, the rules tasks'
reference rule files (kind promql; --rules-only), cold and warm, the function tasks' accepted
solutions (kinds python and cpp; --functions-only), warm with timing, and the emulator's own
kernel table. Cold: a fresh build cache holding only the emulator's and Verilator's runtime objects.
cuda: the timing of each reference solution (needs a GPU): median, 95% CI, repeats, GB/s,
GFLOP/s, fraction of the roofline and flags; --save keeps them in bench/results/cuda-<device>.json
(bench/gpu_check.py adds the other sections of a GPU check there).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FIXTURES = ROOT / "tests" / "fixtures" / "submissions"
# Each style's submissions: (task, file); "solutions/x" is gpu_tasks/solutions/x.py.
STYLES = {
    "raw": [("vector_add", "vector_add/raw_kernel.py"), ("relu", "solutions/relu"),
            ("reduce_sum", "solutions/reduce_sum")],
    "elementwise": [("vector_add", "vector_add/elementwise.py"), ("relu", "relu/elementwise.py")],
    "reduction": [("reduce_sum", "reduce_sum/reduction.py")],
    "jit": [("vector_add", "vector_add/jit.py"), ("saxpy", "saxpy/jit.py"),
            ("reduce_sum", "reduce_sum/jit_shared.py")],
    "array": [("vector_add", "vector_add/array.py"), ("relu", "relu/array.py"),
              ("reduce_sum", "reduce_sum/array.py")],
    # what a performance engineer writes: templates, register tiling, 64 KiB of dynamic shared
    # memory, cooperative groups ("perf/..." is tests/fixtures/perf/...)
    "hard": [("matmul", "solutions/matmul"), ("matmul", "perf/matmul/template_register_tiled.py"),
             ("reduce_sum", "perf/reduce_sum/cooperative_groups.py")],
}
# The judge before compile became a stage of its own (kernels built by g++ inside the candidate's
# sandbox on every submission): the "before" of the style table.
BASELINE = "abf2d47"
STAGES = ("start", "imports", "load", "gate", "build", "tests", "profile", "listings", "teardown")


def _solutions(selected: list[str]) -> list[tuple[str, str]]:
    out = []
    for path in sorted((ROOT / "gpu_tasks" / "solutions").glob("*.py")):
        if path.stem.startswith("_") or (selected and path.stem not in selected):
            continue
        out.append((path.stem, path.read_text()))
    return out


def _style_source(rel: str) -> str:
    if rel.startswith("solutions/"):
        return (ROOT / "gpu_tasks" / f"{rel}.py").read_text()
    if rel.startswith("perf/"):
        return (ROOT / "tests" / "fixtures" / rel).read_text()
    return (FIXTURES / rel).read_text()


@contextlib.contextmanager
def _cold_cache():
    """A fresh build cache for one run, holding only the emulator's runtime object (built once
    per machine, not per submission)."""
    from assessments.judge import sandbox
    from assessments.judge.kinds.cupy.backends.base import CPU
    from assessments.judge.kinds.verilog.stages import runtime_object
    core = CPU.emulator_core()
    saved = os.environ.get("KERNELPATH_EMULATOR_CACHE")
    fresh = tempfile.mkdtemp(prefix="kp-bench-cache-")
    for built in (core, _verilator_runtime(runtime_object)):
        if built and os.path.isdir(built):
            shutil.copytree(built, os.path.join(fresh, os.path.basename(built)), symlinks=True)
        elif built:
            shutil.copy2(built, os.path.join(fresh, os.path.basename(built)))
    os.environ["KERNELPATH_EMULATOR_CACHE"] = fresh
    try:
        assert sandbox.emulator_cache_dir() == fresh
        yield
    finally:
        if saved is None:
            os.environ.pop("KERNELPATH_EMULATOR_CACHE", None)
        else:
            os.environ["KERNELPATH_EMULATOR_CACHE"] = saved
        shutil.rmtree(fresh, ignore_errors=True)


def _verilator_runtime(runtime_object):
    """Verilator's runtime object, built once per machine like the emulator's (None without it)."""
    try:
        return str(runtime_object())
    except Exception:   # noqa: BLE001 - no Verilator here: the RTL table says so
        return None


def bench_rtl(repeats: int) -> int:
    """Median seconds to judge each hardware-design task's reference design, cold (a fresh build
    cache: Verilator models and Yosys runs made) and warm, with the build and tests stages."""
    from gpu_tasks.rtl import TASKS
    print(f"\nHardware design (kind verilog): reference designs, median s over {repeats} repeat(s)")
    print(f"{'task':14s} {'verdict':12s} {'cold':>6s} {'warm':>6s} {'build':>6s} {'tests':>6s}  sets")
    worst = 0
    for slug, task in sorted(TASKS.items()):
        source = task.reference_path.read_text()
        cold, warm, build, tests, verdict = [], [], [], [], "?"
        for i in range(repeats):
            took, report = _judged(slug, source, i, False, cold=True)
            cold.append(took)
            build.append(report.stages.get("build", 0.0))
            took, report = _judged(slug, source, i, False, cold=False)
            warm.append(took)
            tests.append(report.stages.get("tests", 0.0))
            verdict = report.verdict.value
        worst |= verdict != "accepted"
        print(f"{slug:14s} {verdict:12s} {_med(cold):>6s} {_med(warm):>6s} {_med(build):>6s} "
              f"{_med(tests):>6s}  {len(task.tests['sim'])}")
        sys.stdout.flush()
    return int(worst)


def bench_testbench(repeats: int) -> int:
    """Median seconds to judge each design-verification task's reference testbench, cold (a fresh
    build cache: every design compiled by Icarus Verilog) and warm, with the build and tests
    stages; the tests are one simulation per design, the correct one then the mutants."""
    from gpu_tasks.testbench import TASKS
    print(f"\nDesign verification (kind cocotb): reference testbenches, median s over {repeats} repeat(s)")
    print(f"{'task':14s} {'verdict':12s} {'cold':>6s} {'warm':>6s} {'build':>6s} {'tests':>6s}  designs  caught")
    worst = 0
    for slug, task in sorted(TASKS.items()):
        source = task.reference_testbench_path.read_text()
        cold, warm, build, tests, verdict, caught = [], [], [], [], "?", "?"
        for i in range(repeats):
            took, report = _judged(slug, source, i, False, cold=True)
            cold.append(took)
            build.append(report.stages.get("build", 0.0))
            took, report = _judged(slug, source, i, False, cold=False)
            warm.append(took)
            tests.append(report.stages.get("tests", 0.0))
            verdict = report.verdict.value
            caught = f"{sum(m['caught'] for m in report.mutants or ())}/{len(report.mutants or ())}"
        worst |= verdict != "accepted"
        print(f"{slug:14s} {verdict:12s} {_med(cold):>6s} {_med(warm):>6s} {_med(build):>6s} "
              f"{_med(tests):>6s}  {len(report.tests):7d}  {caught}")
        sys.stdout.flush()
    return int(worst)


def bench_rules(repeats: int) -> int:
    """Median seconds to judge each rules task's reference rule file (kind promql), warm (promtool's
    check of the file cached) and cold (a fresh build cache: the check made in the compile
    sandbox), with the tests stage: one promtool unit-test run per hidden test."""
    from gpu_tasks.alerts import TASKS
    print(f"\nRules (kind promql): reference rule files, median s over {repeats} repeat(s)")
    print(f"{'task':16s} {'verdict':12s} {'cold':>6s} {'warm':>6s} {'check':>6s} {'tests':>6s}  tests")
    worst = 0
    for slug, task in sorted(TASKS.items()):
        source = task.reference_path.read_text()
        cold, warm, check, tests, verdict = [], [], [], [], "?"
        for i in range(repeats):
            took, report = _judged(slug, source, i, False, cold=True)
            cold.append(took)
            check.append(report.stages.get("check", 0.0))
            took, report = _judged(slug, source, i, False, cold=False)
            warm.append(took)
            tests.append(report.stages.get("tests", 0.0))
            verdict = report.verdict.value
        worst |= verdict != "accepted"
        print(f"{slug:16s} {verdict:12s} {_med(cold):>6s} {_med(warm):>6s} {_med(check):>6s} "
              f"{_med(tests):>6s}  {len(task.tests['cpu'])}")
        sys.stdout.flush()
    return int(worst)


def _function_solutions() -> list[tuple[str, str, Path]]:
    """(task, language, file): each function task's accepted fixtures and its C++ reference."""
    from gpu_tasks.functions import TASKS
    out = []
    for slug in sorted(TASKS):
        found = sorted((ROOT / "tests" / "fixtures" / "functions" / slug).glob("accepted*"))
        found += sorted((ROOT / "gpu_tasks" / "functions" / "reference").glob(f"{slug}.cpp"))
        out += [(slug, "cpp" if p.suffix in (".cpp", ".cc") else "python", p) for p in found]
    return out


def bench_functions(repeats: int) -> int:
    """Median seconds to judge each function task's accepted solutions (kinds python and cpp) with
    the machine's build cache (warm), every hidden test at full size with the timing against the
    reference; the time of the largest test and the reference's, and the cold build (cpp)."""
    from assessments.judge import judge
    print(f"\nFunctions (kinds python and cpp): accepted solutions, median s over {repeats} repeat(s)")
    print(f"{'task':14s} {'file':30s} {'verdict':10s} {'warm':>6s} {'tests':>6s} {'timing':>6s} "
          f"{'largest':>8s} {'ref':>8s} {'perf':>5s} {'build':>6s}")
    worst = 0
    for slug, language, path in _function_solutions():
        source = path.read_text()
        warm, tests, timed, largest, ref, perf, build, verdict = [], [], [], [], [], [], [], "?"
        if language == "cpp":
            with _cold_cache():
                t0 = time.perf_counter()
                report = judge(slug, source, seed=0, language=language, timing=False)
                build.append(report.stages.get("build", 0.0))
        for i in range(repeats):
            t0 = time.perf_counter()
            report = judge(slug, source, seed=i, language=language)
            warm.append(time.perf_counter() - t0)
            tests.append(report.stages.get("tests", 0.0))
            m = report.measure or {}
            timed.append(warm[-1] - sum(report.stages.values()))
            largest.append(m.get("seconds", 0.0))
            ref.append(m.get("reference_seconds", 0.0))
            perf.append(m.get("fraction", 0.0))
            verdict = report.verdict.value
        worst |= verdict != "accepted"
        name = path.relative_to(ROOT).as_posix().replace("tests/fixtures/functions/", "").replace("gpu_tasks/functions/", "")
        print(f"{slug:14s} {name:30s} {verdict:10s} {_med(warm):>6s} {_med(tests):>6s} {_med(timed):>6s} "
              f"{statistics.median(largest):8.4f} {statistics.median(ref):8.4f} {statistics.median(perf):5.2f} "
              f"{_med(build):>6s}")
        sys.stdout.flush()
    return int(worst)


def _judged(slug: str, source: str, seed: int, listings: bool, cold: bool):
    """(seconds, report) of one judging, with a cold or the machine's build cache."""
    from assessments.judge import judge
    with _cold_cache() if cold else contextlib.nullcontext():
        t0 = time.perf_counter()
        report = judge(slug, source, backend="cpu", seed=seed, listings=listings)
        return time.perf_counter() - t0, report


def _med(values) -> str:
    return f"{statistics.median(values):.2f}" if values else "-"


def bench_cpu(selected: list[str], repeats: int, listings: bool = True, styles: bool = True,
              before: str | None = BASELINE) -> int:
    print(f"{'task':20s} {'verdict':22s} {'median s':>9s} {'min s':>7s} {'tests':>6s} {'cold s':>7s}")
    worst = 0
    for slug, source in _solutions(selected):
        warm, cold, verdict, ntests = [], [], "?", 0
        for i in range(repeats):
            took, report = _judged(slug, source, i, listings, cold=True)
            cold.append(took)
            took, report = _judged(slug, source, i, listings, cold=False)
            warm.append(took)
            verdict, ntests = report.verdict.value, len(report.tests)
        worst |= verdict != "accepted"
        print(f"{slug:20s} {verdict:22s} {statistics.median(warm):9.2f} {min(warm):7.2f} {ntests:6d} "
              f"{statistics.median(cold):7.2f}")
        sys.stdout.flush()
    if styles and not selected:
        worst |= bench_styles(repeats, listings, before)
    if not selected:
        worst |= bench_rtl(repeats)
        worst |= bench_testbench(repeats)
        worst |= bench_rules(repeats)
        worst |= bench_functions(repeats)
    emulator_bench = ROOT / "bench" / "emulator_kernels.py"
    if emulator_bench.exists():
        print("\nEmulator kernels (bench/emulator_kernels.py)")
        sys.stdout.flush()
        subprocess.run([sys.executable, str(emulator_bench)], cwd=ROOT, check=False)
    return int(worst)


def _tree_of(rev: str):
    """A temporary copy of the source tree at commit `rev` (git archive), or None with a reason."""
    tmp = tempfile.mkdtemp(prefix="kp-bench-before-")
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev],
                             capture_output=True)
    if archive.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        return None, archive.stderr.decode(errors="replace").strip() or f"git archive {rev} failed"
    unpacked = subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, capture_output=True)
    if unpacked.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        return None, unpacked.stderr.decode(errors="replace").strip() or "tar failed"
    return tmp, ""


def _json_line(line: str) -> dict | None:
    """A timed run from judge_tree.py; None for anything else that tree's judge printed."""
    try:
        run = json.loads(line)
    except ValueError:
        return None
    return run if isinstance(run, dict) and "seconds" in run else None


def _judged_by_tree(rev: str, jobs: list[dict]) -> tuple[list[dict], str]:
    """Each timed run of `jobs` judged by the judge of commit `rev`, in a child process with its
    own emulator cache (that judge keeps only its runtime object there)."""
    tree, why = _tree_of(rev)
    if tree is None:
        return [], why
    cache = tempfile.mkdtemp(prefix="kp-bench-before-cache-")
    try:
        env = {**os.environ, "KERNELPATH_EMULATOR_CACHE": cache}
        done = subprocess.run([sys.executable, str(ROOT / "bench" / "judge_tree.py"), tree],
                              input=json.dumps(jobs), capture_output=True, text=True, env=env,
                              cwd=tree)
        if done.returncode != 0:
            return [], (done.stderr.strip().splitlines() or ["failed"])[-1]
        return [run for run in map(_json_line, done.stdout.splitlines()) if run], ""
    finally:
        shutil.rmtree(tree, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)


def bench_styles(repeats: int, listings: bool = True, before: str | None = BASELINE) -> int:
    """Median seconds per kernel style: the judge of commit `before` (which builds every kernel
    inside the candidate's sandbox, so it has no cold or warm cache), then this tree's with a cold
    and a warm build cache, with the median of each stage. Ratios are against `before`."""
    runs: dict[tuple[str, str], list[dict]] = {}     # (style, "before"|"cold"|"warm") -> runs
    why_not = ""
    if before:
        jobs = [{"key": style, "task": slug, "source": _style_source(rel), "repeats": repeats,
                 "warmup": 1, "listings": listings}
                for style, subs in STYLES.items() for slug, rel in subs]
        print(f"Judging {len(jobs)} submissions x {repeats} with the judge of {before}...")
        sys.stdout.flush()
        done, why_not = _judged_by_tree(before, jobs)
        for run in done:
            runs.setdefault((run["key"], "before"), []).append(run)
    for style, subs in STYLES.items():
        for cache in ("cold", "warm"):
            for slug, rel in subs:
                source = _style_source(rel)
                if cache == "warm":
                    _judged(slug, source, 99, listings, cold=False)   # the first submission
                for i in range(repeats):
                    took, report = _judged(slug, source, i, listings, cold=cache == "cold")
                    runs.setdefault((style, cache), []).append(
                        {"seconds": took, "verdict": report.verdict.value,
                         "tests_s": sum(t.elapsed_s or 0.0 for t in report.tests),
                         "stages": dict(report.stages)})

    def med(style, cache, pick=lambda r: r["seconds"]):
        values = [pick(r) for r in runs.get((style, cache), [])]
        return statistics.median(values) if values else None

    def cell(x, width=7, fmt="{:.2f}"):
        return f"{fmt.format(x) if x is not None else '-':>{width}s}"

    head = f"before = the judge of {before}" if before else "before: not measured (--before none)"
    print(f"\nBy style: median s per submission over {repeats} repeat(s); {head}")
    if why_not:
        print(f"  before could not be measured: {why_not}")
    print(f"{'style':12s} {'before':>7s} {'cold':>7s} {'warm':>7s} {'cold/bef':>9s} {'warm/bef':>9s}  verdicts")
    worst = 0
    for style in (*STYLES, "all"):
        styles = list(STYLES) if style == "all" else [style]
        row = {}
        for cache in ("before", "cold", "warm"):
            values = [r["seconds"] for s in styles for r in runs.get((s, cache), [])]
            row[cache] = statistics.median(values) if values else None
        verdicts = {r["verdict"] for s in styles for c in ("before", "cold", "warm")
                    for r in runs.get((s, c), [])}
        if style != "all":
            worst |= verdicts != {"accepted"}
        ratio = {c: row[c] / row["before"] if row[c] is not None and row["before"] else None
                 for c in ("cold", "warm")}
        print(f"{style:12s} {cell(row['before'])} {cell(row['cold'])} {cell(row['warm'])} "
              f"{cell(ratio['cold'], 9)} {cell(ratio['warm'], 9)}  {','.join(sorted(verdicts))}")
    print("\nStages, median s. Before: that judge clocks only the candidate's calls, which include "
          "building each kernel at its first launch (under tests); 'other' is the rest: child "
          "start, imports, inputs, comparisons, teardown.")
    print(f"{'style':12s} {'judge':6s} {'total':>6s} {'other':>6s} "
          + " ".join(f"{s:>8s}" for s in STAGES))
    for style in STYLES:
        for cache in ("before", "cold", "warm"):
            if (style, cache) not in runs:
                continue
            total = med(style, cache)
            if cache == "before":
                tests = med(style, cache, lambda r: r["tests_s"])
                print(f"{style:12s} {cache:6s} {cell(total, 6)} {cell(total - tests, 6)} "
                      + " ".join(cell(tests if s == "tests" else None, 8) for s in STAGES))
            else:
                print(f"{style:12s} {cache:6s} {cell(total, 6)} {cell(None, 6)} "
                      + " ".join(cell(med(style, cache, lambda r, s=s: r["stages"].get(s, 0.0)), 8)
                                 for s in STAGES))
    sys.stdout.flush()
    return int(worst)


def timing_row(slug: str, r) -> dict:
    """What the results file keeps of one timed judging."""
    t = r.timing
    row = {"task": slug, "verdict": r.verdict.value, "message": r.message, "score": r.score,
           "elapsed_s": r.elapsed_s, "stages": {k: round(v, 2) for k, v in r.stages.items()}}
    if t:
        row.update({k: getattr(t, k) for k in (
            "median_ms", "ci_low_ms", "ci_high_ms", "repeats", "min_ms", "max_ms", "achieved_gb_s",
            "achieved_gflop_s", "roofline_fraction", "physical_floor_ms", "flags",
            "leaderboard_eligible", "converged", "stop_reason")})
        row["bound"] = (t.roofline or {}).get("bound")
        row["wall"] = {k: t.wall.get(k) for k in ("excess_s", "allowed_s")} if t.wall else None
        # The device's state around the timing (clocks and their reasons, lock, idle wait): what
        # tells a clock drop from anything else when one judging runs slower than the rest.
        row["gpu"] = dict(t.gpu) if getattr(t, "gpu", None) else None
        # Where the timing's seconds went: placing the inputs, the batches, the re-checks.
        h = t.harness or {}
        row["harness"] = {"prepare_s": h.get("prepare_s"), "batches": h.get("batches"),
                          "rechecks": len(h.get("rechecked_repeats") or ()),
                          "recheck_s": h.get("recheck_s"), "slots": h.get("slots"),
                          "slot_medians_ms": h.get("slot_medians_ms"),
                          "variant_medians_ms": h.get("variant_medians_ms")}
    return row


def results_path(device: str) -> Path:
    """bench/results/cuda-<device>.json, the device's name made a file name."""
    slug = "".join(c if c.isalnum() else "-" for c in device.lower()).strip("-")
    while "--" in slug:
        slug = slug.replace("--", "-")
    return ROOT / "bench" / "results" / f"cuda-{slug or 'gpu'}.json"


def save_section(path: Path, section: str, value) -> None:
    """Merge one section into a results file (other sections stay as they were)."""
    data = {}
    if path.exists():
        try:
            data = json.loads(path.read_text())
        except ValueError:
            data = {}
    data[section] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


def bench_cuda(selected: list[str], unsafe: bool = False, save: str | None = None) -> int:
    """One judged run per reference solution; its timing as a table row. Non-zero exit when a
    reference is not accepted or its timing is flagged. `save`: the results file ("" for
    bench/results/cuda-<device>.json) gets the rows as its "references" section."""
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        print(f"no GPU: {type(exc).__name__}: {exc}")
        return 1
    from assessments.judge import judge
    print(f"{'task':18s} {'verdict':12s} {'median_ms':>10s} {'ci_low':>10s} {'ci_high':>10s} "
          f"{'repeats':>7s} {'GB/s':>8s} {'GFLOP/s':>9s} {'roofline':>8s} {'bound':>7s} {'score':>6s} flags")
    worst, device, peaks, rows = 0, None, None, []
    for slug, source in _solutions(selected):
        r = judge(slug, source, backend="cuda", seed=0, unsafe_no_sandbox=unsafe, listings=False)
        rows.append(timing_row(slug, r))
        t = r.timing
        if t and t.roofline:
            device, peaks = t.device, t.peaks
            ci = [f"{x:10.4f}" if x is not None else f"{'-':>10s}" for x in (t.ci_low_ms, t.ci_high_ms)]
            print(f"{slug:18s} {r.verdict.value:12s} {t.median_ms:10.4f} {ci[0]} {ci[1]} {t.repeats:7d} "
                  f"{t.achieved_gb_s:8.1f} {t.achieved_gflop_s:9.1f} {t.roofline_fraction:8.1%} "
                  f"{t.roofline['bound']:>7s} {r.score:6.1f} {','.join(t.flags) or '-'}")
            worst |= r.verdict.value != "accepted" or bool(t.flags)
        else:
            print(f"{slug:18s} {r.verdict.value:12s} {'-':>10s}  {r.message}")
            worst = 1
        sys.stdout.flush()
    if peaks:
        print(f"\n{device}: peaks {peaks['bandwidth_bytes_s'] / 1e9:.0f} GB/s, "
              f"{peaks['flops_s'] / 1e12:.1f} TFLOP/s FP32"
              + (f", {peaks['tensor_flops_s'] / 1e12:.1f} TFLOP/s TF32" if peaks.get("tensor_flops_s") else "")
              + f" ({peaks['source']})")
    if save is not None and rows:
        path = Path(save) if save else results_path(device or "gpu")
        save_section(path, "references", {"device": device, "peaks": peaks, "rows": rows})
        print(f"saved to {path}")
    return int(worst)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("tasks", nargs="*")
    parser.add_argument("--backend", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-listings", action="store_true", help="judge without PTX/SASS listings")
    parser.add_argument("--no-styles", action="store_true", help="skip the table by kernel style")
    parser.add_argument("--styles-only", action="store_true", help="only the table by kernel style")
    parser.add_argument("--functions-only", action="store_true",
                        help="only the function tasks' accepted solutions (kinds python and cpp)")
    parser.add_argument("--testbench-only", action="store_true",
                        help="only the table of the design-verification tasks' reference testbenches")
    parser.add_argument("--rules-only", action="store_true",
                        help="only the table of the rules tasks' reference rule files (kind promql)")
    parser.add_argument("--before", default=BASELINE, metavar="REV",
                        help=f"the commit whose judge is the baseline of the style table "
                             f"(default {BASELINE}); 'none' to skip it")
    parser.add_argument("--unsafe-no-sandbox", action="store_true",
                        help="cuda: run the children without bubblewrap (the project's own "
                             "solutions on a machine without it)")
    parser.add_argument("--save", nargs="?", const="", default=None, metavar="PATH",
                        help="cuda: keep the rows in PATH (default bench/results/cuda-<device>.json)")
    args = parser.parse_args(argv)
    if args.backend == "cuda":
        return bench_cuda(args.tasks, unsafe=args.unsafe_no_sandbox, save=args.save)
    before = None if args.before == "none" else args.before
    if args.testbench_only:
        return bench_testbench(args.repeats)
    if args.functions_only:
        return bench_functions(args.repeats)
    if args.rules_only:
        return bench_rules(args.repeats)
    if args.styles_only:
        return bench_styles(args.repeats, listings=not args.no_listings, before=before)
    return bench_cpu(args.tasks, args.repeats, listings=not args.no_listings,
                     styles=not args.no_styles, before=before)


if __name__ == "__main__":
    sys.exit(main())
