"""The performance model against the GPU: every reference solution and accepted fixture profiled
on the cpu backend, its estimated H100 time beside the time the cuda backend measured for the
same file (bench/results/cuda-*.json), with the ratio, the median absolute percentage error and
Spearman's rank correlation. On a machine with a GPU, --measure times them there too.

    python bench/perfmodel.py [--only SUBSTR] [--measure] [--json OUT] [--jobs N]

Prints one row per file: task, file, verdict, the estimate (us), its bound, the main counters
(DRAM bytes, global-load coalescing, bank-conflict ways, warp instructions, launches), the
measured median (us) and estimate / measured; then the summary.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402

ROOT = HERE.parent
SOLUTIONS = ROOT / "gpu_tasks" / "solutions"
FIXTURES = (ROOT / "tests" / "fixtures" / "submissions", ROOT / "tests" / "fixtures" / "perf")
RESULTS = HERE / "results"


def files(only: str | None) -> list[tuple[str, Path]]:
    out = [(p.stem, p) for p in sorted(SOLUTIONS.glob("*.py"))]
    out += [(d.name, p) for folder in FIXTURES for d in sorted(folder.iterdir()) if d.is_dir()
            for p in sorted(d.glob("*.py"))]
    return [(t, p) for t, p in out if not only or only in str(p)]


def measured_times() -> dict[str, dict[str, float]]:
    """Measured medians (us) by device (the results file's name) and by file, relative to the
    repository, from the cuda results: reference solutions and timed fixtures (gpu_check.py's
    `fixtures` step judges without timing)."""
    out: dict[str, dict[str, float]] = {}
    for path in sorted(RESULTS.glob("cuda-*.json")):
        data = json.loads(path.read_text())
        rows = [dict(r, file=f"gpu_tasks/solutions/{r['task']}.py")
                for r in (data.get("references") or {}).get("rows") or [] if r.get("task")]
        rows += data.get("fixture_times") or []
        times = {r["file"]: r["median_ms"] * 1e3 for r in reversed(rows)
                 if r.get("median_ms") and r.get("file") and r.get("verdict") == "accepted"}
        if times:
            out[path.stem.removeprefix("cuda-")] = times
    return out


def _profiled(job: tuple[str, str, bool]) -> dict:
    slug, path, measure = job
    sys.path.insert(0, str(ROOT))
    from assessments.judge import judge
    began = time.process_time()
    wall = time.monotonic()
    report = judge(slug, Path(path).read_text(), backend="cpu", seed=11)
    row = {"task": slug, "file": str(Path(path).relative_to(ROOT)), "verdict": report.verdict.value,
           "score": report.score, "judge_cpu_s": round(time.process_time() - began, 3),
           "judge_wall_s": round(time.monotonic() - wall, 3),
           "profile_s": round(report.stages.get("profile", 0.0), 3), "profile": report.profile}
    if measure:
        gpu = judge(slug, Path(path).read_text(), backend="cuda", seed=11)
        t = gpu.timing
        row["measured_here_us"] = t.median_ms * 1e3 if t else None
    return row


def _label(device: str) -> str:
    """A results file's device as a column title: nvidia-h100-80gb-hbm3 -> H100."""
    parts = device.removeprefix("nvidia-").split("-")
    return parts[0].upper()[:8] if parts and parts[0] else device[:8]


def _counters(p: dict) -> dict:
    kernels = [x for x in p.get("launches") or [] if x.get("kind") == "kernel"]
    lines = p.get("lines") or []
    sectors = sum(x["sectors"] for x in lines)
    ideal = sum(x["ideal_sectors"] for x in lines)
    waves = sum(x["wavefronts"] for x in lines)
    ideal_w = sum(x["ideal_wavefronts"] for x in lines)
    return {"dram_mb": sum(x.get("dram_bytes", 0) for x in p.get("launches") or []) / 1e6,
            "coalescing": ideal / sectors if sectors else None,
            "bank_ways": waves / ideal_w if ideal_w else None,
            "warp_inst_m": sum(x.get("warp_inst", 0) for x in kernels) / 1e6,
            "launches": sum(x.get("repeats", x.get("count", 1)) for x in p.get("launches") or [])}


def spearman(xs: list[float], ys: list[float]) -> float | None:
    if len(xs) < 3:
        return None

    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2
            i = j + 1
        return r
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    den = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return cov / den if den else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only")
    ap.add_argument("--measure", action="store_true", help="also time each file on this machine's GPU")
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args(argv)
    jobs = [(t, str(p), args.measure) for t, p in files(args.only)]
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            rows = list(pool.map(_profiled, jobs))
    else:
        rows = [_profiled(j) for j in jobs]
    measured = measured_times()
    if any(r.get("measured_here_us") for r in rows):
        measured["here"] = {r["file"]: r["measured_here_us"] for r in rows if r.get("measured_here_us")}
    devices = {d: _label(d) for d in measured}
    head = (f"{'task':<17} {'file':<34} {'verdict':<13} {'est us':>10} {'bound':<22} {'DRAM MB':>8} "
            f"{'coal':>5} {'bank':>5} {'Minst':>8} {'launch':>6} "
            + "".join(f"{label + ' us':>10} {'ratio':>6} " for label in devices.values()) + f"{'prof s':>6}")
    print(head)
    print("-" * len(head))
    pairs: dict[str, list[tuple[float, float]]] = {d: [] for d in devices}
    fmt = lambda v, f: (format(v, f) if v is not None else "-")  # noqa: E731
    for r in rows:
        p = r["profile"] or {}
        est = p.get("estimated_us")
        c = _counters(p) if p else {}
        cells = ""
        r.update(counters=c, measured_us={})
        for d in devices:
            meas = measured[d].get(r["file"])
            ratio = est / meas if est and meas else None
            if ratio:
                pairs[d].append((est, meas))
                r["measured_us"][d] = meas
            cells += f"{fmt(meas, '10.1f')} {fmt(ratio, '6.2f')} "
        print(f"{r['task']:<17} {Path(r['file']).name[:34]:<34} {r['verdict']:<13} {fmt(est, '10.1f')} "
              f"{str(p.get('bound') or p.get('error') or '-')[:22]:<22} {fmt(c.get('dram_mb'), '8.1f')} "
              f"{fmt(c.get('coalescing'), '5.2f')} {fmt(c.get('bank_ways'), '5.1f')} "
              f"{fmt(c.get('warp_inst_m'), '8.1f')} {fmt(c.get('launches'), '6d')} {cells}{r['profile_s']:6.2f}")
    print()
    profiled = [r["profile_s"] for r in rows if r["profile"] and r["profile"].get("estimated_us")]
    refs = [r["profile_s"] for r in rows if r["file"].startswith("gpu_tasks/solutions/")]
    # The estimate is an H100 SXM's: against another device only the order (Spearman) compares.
    for d, label in devices.items():
        if not pairs[d]:
            continue
        ratios = [e / m for e, m in pairs[d]]
        rho = spearman([e for e, _ in pairs[d]], [m for _, m in pairs[d]])
        print(f"{label}: {len(pairs[d])} files with a measured time; median absolute percentage error "
              f"{100 * statistics.median(abs(x - 1) for x in ratios):.1f}%; Spearman's rank correlation "
              f"{fmt(rho, '.3f')}; estimate / measured: median {statistics.median(ratios):.2f}, "
              f"min {min(ratios):.2f}, max {max(ratios):.2f}")
    if refs:
        print(f"profile stage over the reference solutions: median {statistics.median(refs):.3f} s, "
              f"max {max(refs):.3f} s (all profiled files: median {statistics.median(profiled):.3f} s)")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
