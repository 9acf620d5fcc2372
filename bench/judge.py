"""End-to-end judge time per task: python bench/judge.py [--backend cpu|cuda] [--repeats 3] [TASK...].

cpu: median wall time of judging each reference solution (child start, imports, NVRTC, emulator
compile, every test), then the emulator's own kernel table when bench/emulator_kernels.py exists.
cuda: the timing and roofline position of each reference solution (needs a GPU).
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


def bench_cpu(selected: list[str], repeats: int) -> int:
    from assessments.judge import judge
    print(f"{'task':20s} {'verdict':22s} {'median s':>9s} {'min s':>7s} {'tests':>6s}")
    worst = 0
    for slug, source in _solutions(selected):
        times, verdict, ntests = [], "?", 0
        for i in range(repeats):
            t0 = time.perf_counter()
            report = judge(slug, source, backend="cpu", seed=i)
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
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        print(f"no GPU: {type(exc).__name__}: {exc}")
        return 1
    from assessments.judge import judge
    print(f"{'task':20s} {'verdict':12s} {'median ms':>10s} {'GB/s':>8s} {'GFLOP/s':>9s} "
          f"{'roofline':>8s} {'bound':>7s} {'score':>6s}")
    for slug, source in _solutions(selected):
        r = judge(slug, source, backend="cuda", seed=0)
        if r.timing and r.timing.roofline:
            rf = r.timing.roofline
            print(f"{slug:20s} {r.verdict.value:12s} {r.timing.median_ms:10.4f} "
                  f"{rf['achieved_bytes_s'] / 1e9:8.1f} {rf['achieved_flops_s'] / 1e9:9.1f} "
                  f"{rf['fraction']:8.1%} {rf['bound']:>7s} {r.score:6.1f}")
        else:
            print(f"{slug:20s} {r.verdict.value:12s} {'-':>10s}  {r.message}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("tasks", nargs="*")
    parser.add_argument("--backend", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    if args.backend == "cuda":
        return bench_cuda(args.tasks)
    return bench_cpu(args.tasks, args.repeats)


if __name__ == "__main__":
    sys.exit(main())
