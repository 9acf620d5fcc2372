"""End-to-end judge time per task: python bench/judge.py [--backend cpu|cuda] [--repeats 3]
[--no-listings] [--no-styles] [TASK...].

cpu: per reference solution, the median and minimum wall time of judging it with the machine's
build cache (warm after the first run), the median with a cold build cache, then the same per
kernel style (raw, elementwise, reduction, jit, array; submissions from tests/fixtures) with the
time per stage (child start, imports, load, NVRTC gate, emulator build, tests, listings,
teardown; the report's `stages`), cold and warm, and the emulator's own kernel table when bench/emulator_kernels.py
exists. Cold: a fresh build cache holding only the emulator's runtime object.
cuda: the timing of each reference solution (needs a GPU): median, 95% CI, repeats, GB/s,
GFLOP/s, fraction of the roofline and flags.
"""
from __future__ import annotations

import argparse
import contextlib
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
}
STAGES = ("start", "imports", "load", "gate", "build", "tests", "listings", "teardown")


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
    return (FIXTURES / rel).read_text()


@contextlib.contextmanager
def _cold_cache():
    """A fresh build cache for one run, holding only the emulator's runtime object (built once
    per machine, not per submission)."""
    from assessments.judge import sandbox
    from assessments.judge.backends.base import CPU
    core = CPU.emulator_core()
    saved = os.environ.get("KERNELPATH_EMULATOR_CACHE")
    fresh = tempfile.mkdtemp(prefix="kp-bench-cache-")
    if core:
        shutil.copy2(core, os.path.join(fresh, os.path.basename(core)))
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


def _judged(slug: str, source: str, seed: int, listings: bool, cold: bool):
    """(seconds, report) of one judging, with a cold or the machine's build cache."""
    from assessments.judge import judge
    with _cold_cache() if cold else contextlib.nullcontext():
        t0 = time.perf_counter()
        report = judge(slug, source, backend="cpu", seed=seed, listings=listings)
        return time.perf_counter() - t0, report


def _med(values) -> str:
    return f"{statistics.median(values):.2f}" if values else "-"


def bench_cpu(selected: list[str], repeats: int, listings: bool = True, styles: bool = True) -> int:
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
        worst |= bench_styles(repeats, listings)
    emulator_bench = ROOT / "bench" / "emulator_kernels.py"
    if emulator_bench.exists():
        print("\nEmulator kernels (bench/emulator_kernels.py)")
        sys.stdout.flush()
        subprocess.run([sys.executable, str(emulator_bench)], cwd=ROOT, check=False)
    return int(worst)


def bench_styles(repeats: int, listings: bool = True) -> int:
    """Median seconds per kernel style, cold and warm cache, with the median of each stage."""
    print(f"\nBy style: median s over {repeats} repeat(s) of each submission; stages in seconds")
    print(f"{'style':12s} {'cache':5s} {'total':>6s} " + " ".join(f"{s:>8s}" for s in STAGES)
          + "  runs verdicts")
    worst = 0
    for style, subs in STYLES.items():
        for cold in (True, False):
            totals, stages, verdicts = [], {s: [] for s in STAGES}, set()
            for slug, rel in subs:
                source = _style_source(rel)
                if not cold:
                    _judged(slug, source, 99, listings, cold=False)   # the first submission
                for i in range(repeats):
                    took, report = _judged(slug, source, i, listings, cold=cold)
                    totals.append(took)
                    verdicts.add(report.verdict.value)
                    for s in STAGES:
                        stages[s].append(report.stages.get(s, 0.0))
            worst |= verdicts != {"accepted"}
            print(f"{style:12s} {'cold' if cold else 'warm':5s} {_med(totals):>6s} "
                  + " ".join(f"{_med(stages[s]):>8s}" for s in STAGES)
                  + f"  {len(totals):4d} {','.join(sorted(verdicts))}")
            sys.stdout.flush()
    return int(worst)


def bench_cuda(selected: list[str]) -> int:
    """One judged run per reference solution; its timing as a table row. Non-zero exit when a
    reference is not accepted or its timing is flagged."""
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        print(f"no GPU: {type(exc).__name__}: {exc}")
        return 1
    from assessments.judge import judge
    print(f"{'task':18s} {'verdict':12s} {'median_ms':>10s} {'ci_low':>10s} {'ci_high':>10s} "
          f"{'repeats':>7s} {'GB/s':>8s} {'GFLOP/s':>9s} {'roofline':>8s} {'bound':>7s} {'score':>6s} flags")
    worst, device, peaks = 0, None, None
    for slug, source in _solutions(selected):
        r = judge(slug, source, backend="cuda", seed=0)
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
    return int(worst)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("tasks", nargs="*")
    parser.add_argument("--backend", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-listings", action="store_true", help="judge without PTX/SASS listings")
    parser.add_argument("--no-styles", action="store_true", help="skip the table by kernel style")
    parser.add_argument("--styles-only", action="store_true", help="only the table by kernel style")
    args = parser.parse_args(argv)
    if args.backend == "cuda":
        return bench_cuda(args.tasks)
    if args.styles_only:
        return bench_styles(args.repeats, listings=not args.no_listings)
    return bench_cpu(args.tasks, args.repeats, listings=not args.no_listings,
                     styles=not args.no_styles)


if __name__ == "__main__":
    sys.exit(main())
