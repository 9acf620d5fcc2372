"""End-to-end judge time per task: python bench/judge.py [--backend cpu|cuda] [--repeats 3]
[--no-listings] [TASK...].

cpu: median wall time of judging each reference solution (child start, imports, NVRTC, emulator
compile, every test, the PTX/SASS listings unless --no-listings), then the emulator's own kernel
table when bench/emulator_kernels.py exists.
cuda: the timing of each reference solution (needs a GPU): median, 95% CI, repeats, GB/s,
GFLOP/s, fraction of the roofline and flags.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _solutions(selected: list[str]) -> list[tuple[str, str]]:
    out = []
    for path in sorted((ROOT / "gpu_tasks" / "solutions").glob("*.py")):
        if path.stem.startswith("_") or (selected and path.stem not in selected):
            continue
        out.append((path.stem, path.read_text()))
    return out


def bench_cpu(selected: list[str], repeats: int, listings: bool = True) -> int:
    from assessments.judge import judge
    print(f"{'task':20s} {'verdict':22s} {'median s':>9s} {'min s':>7s} {'tests':>6s}")
    worst = 0
    for slug, source in _solutions(selected):
        times, verdict, ntests = [], "?", 0
        for i in range(repeats):
            t0 = time.perf_counter()
            report = judge(slug, source, backend="cpu", seed=i, listings=listings)
            times.append(time.perf_counter() - t0)
            verdict, ntests = report.verdict.value, len(report.tests)
        worst |= verdict != "accepted"
        print(f"{slug:20s} {verdict:22s} {statistics.median(times):9.2f} {min(times):7.2f} {ntests:6d}")
    emulator_bench = ROOT / "bench" / "emulator_kernels.py"
    if emulator_bench.exists():
        print("\nEmulator kernels (bench/emulator_kernels.py)")
        sys.stdout.flush()
        subprocess.run([sys.executable, str(emulator_bench)], cwd=ROOT, check=False)
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
    args = parser.parse_args(argv)
    if args.backend == "cuda":
        return bench_cuda(args.tasks)
    return bench_cpu(args.tasks, args.repeats, listings=not args.no_listings)


if __name__ == "__main__":
    sys.exit(main())
