"""The cuda backend checked on a real GPU, in one go: python bench/gpu_check.py --out DIR
[--deadline-s S] [--unsafe-no-sandbox] [STEP...].

Steps (all by default, in this order; each writes its section of DIR/cuda-<device>.json and
prints a table; a step not started before the deadline is listed as skipped):
  device      the GPU, driver, CuPy, nvcc and compute-sanitizer versions
  peaks       copy bandwidth, FP32, TF32 and BF16 rates measured now, beside the datasheet
  references  bench/judge.py --backend cuda: every reference solution timed
  fixtures    every fixture submission and reference solution judged on the GPU (no timing,
              compute-sanitizer on), beside the verdict the cpu backend gives (its `# expect:`)
  cheats      work on a second stream, a forged timer, replayed outputs, a rebound timer
  sanitizer_bwrap  compute-sanitizer under bubblewrap, the sandbox's flags added one at a time
  sandbox     a few submissions under bubblewrap (device binds, limits, exec ban), where a
              bwrap program is on PATH or in $KERNELPATH_BWRAP_DIR
  sanitizer   the cost of the compute-sanitizer pass: the same submissions with it and without
  stability   vector_add, reduce_sum, matmul, softmax judged 5 times on an idle host, then 5
              times with every host core kept busy: spread of the medians, flags
  fixture_times  the accepted fixtures timed (the measured side of bench/perfmodel.py)
  pytest      the tests that need a GPU (tests marked gpu)
bench/gpu_check.sh runs it on the GPU machine; the file it writes is committed as
bench/results/cuda-<device>.json.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

import argparse  # noqa: E402
import contextlib  # noqa: E402
import glob  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import multiprocessing  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402

ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
_spec = importlib.util.spec_from_file_location("bench_judge", HERE / "judge.py")
bench_judge = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_judge)

FIXTURES = ROOT / "tests" / "fixtures"
SOLUTIONS = ROOT / "gpu_tasks" / "solutions"
STABLE_TASKS = ("vector_add", "reduce_sum", "matmul", "softmax")
LOADS = ("idle", "busy")   # stability: the host left alone, then every core kept busy
STEPS = ("device", "peaks", "references", "fixtures", "cheats", "sanitizer_bwrap", "sandbox", "stability",
         "sanitizer", "pytest", "fixture_times")
# Datasheet figures (NVIDIA H100 Tensor Core GPU datasheet, dense; SXM5 and PCIe boards).
DATASHEETS = {
    "H100 80GB HBM3": {"board": "H100 SXM5", "bandwidth_bytes_s": 3.35e12, "fp32_flops_s": 66.9e12,
                       "tf32_flops_s": 494.7e12, "bf16_flops_s": 989.4e12},
    "H100 PCIe": {"board": "H100 PCIe", "bandwidth_bytes_s": 2.0e12, "fp32_flops_s": 51.2e12,
                  "tf32_flops_s": 378e12, "bf16_flops_s": 756e12},
    "H200": {"board": "H200 SXM", "bandwidth_bytes_s": 4.8e12, "fp32_flops_s": 66.9e12,
             "tf32_flops_s": 494.7e12, "bf16_flops_s": 989.4e12},
}
PYTEST_FILES = ("tests/judge/core/test_judge_cuda.py", "tests/judge/timing/test_gpu_timing.py")
EXPECT = re.compile(r"^#\s*expect:\s*([a-z_]+)", re.MULTILINE)


class Check:
    """The run's state: where results go, the deadline, the sandbox choice."""

    def __init__(self, out: Path, deadline_s: float, unsafe: bool, tasks=(), stable=STABLE_TASKS,
                 runs: int = 5):
        self.out, self.unsafe = out, unsafe
        self.tasks, self.stable, self.runs = list(tasks), tuple(stable), runs
        self.loads = LOADS
        self.only: list[str] = []      # fixture_times: only files whose path holds one of these
        self.fixtures_s, self.pytest_files, self.pytest_k = 180.0, PYTEST_FILES, ""
        self.deadline = time.monotonic() + deadline_s
        self.device = _device_name()
        self.path = out / bench_judge.results_path(self.device).name
        self.skipped: list[str] = []

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def save(self, section: str, value) -> None:
        bench_judge.save_section(self.path, section, value)

    def judge(self, *args, **kwargs):
        from assessments.judge import judge
        return judge(*args, unsafe_no_sandbox=self.unsafe, listings=False, **kwargs)


def _device_name() -> str:
    try:
        import cupy
        props = cupy.cuda.runtime.getDeviceProperties(0)
        name = props["name"]
        return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:
        return "no GPU"


def _run(cmd: list[str], timeout: float = 60) -> str:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
        return (p.stdout + p.stderr).strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{type(exc).__name__}: {exc}"


def _table(title: str, header: list[str], rows: list[list]) -> None:
    print(f"\n== {title}")
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)] if rows else [len(h) for h in header]
    for row in [header] + rows:
        print("  ".join(str(x).ljust(w) for x, w in zip(row, widths)))
    sys.stdout.flush()


# -- steps ----------------------------------------------------------------------------------------
def step_device(c: Check) -> None:
    import cupy
    from assessments.judge.kinds.cupy import sanitizer
    san = sanitizer.program()
    info = {
        "name": c.device,
        "nvidia_smi": _run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm,"
                            "clocks.max.mem,power.limit,pstate,temperature.gpu",
                            "--format=csv,noheader"]),
        "cupy": cupy.__version__, "cuda_runtime": cupy.cuda.runtime.runtimeGetVersion(),
        "nvcc": (_run(["nvcc", "--version"]).splitlines() or [""])[-1],
        "compute_sanitizer": san, "compute_sanitizer_version":
            (_run([san, "--version"]).splitlines() or [""])[-1] if san else None,
        "python": sys.version.split()[0], "cpus": os.cpu_count(),
        "bubblewrap": shutil.which("bwrap"), "sandbox": "none (--unsafe-no-sandbox)" if c.unsafe else "bubblewrap",
    }
    c.save("device", info)
    _table("device", ["what", "value"], [[k, v] for k, v in info.items()])


def step_peaks(c: Check) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-m", "assessments.judge.kinds.cupy.timing.peaks", "--refresh"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not lines:
        c.save("peaks", {"error": (p.stderr or p.stdout)[-2000:]})
        print("peaks failed:", (p.stderr or p.stdout)[-2000:])
        return
    entry = json.loads(lines[-1])
    sheet = next((v for k, v in DATASHEETS.items() if k in c.device), None)
    rows, measured = [], {"bandwidth_bytes_s": entry.get("bandwidth_bytes_s"),
                          "fp32_flops_s": entry.get("flops_s"),
                          "tf32_flops_s": entry.get("tensor_flops_s"),
                          "bf16_flops_s": entry.get("bf16_flops_s")}
    for k, v in measured.items():
        ref = sheet.get(k) if sheet else None
        scale, unit = (1e9, "GB/s") if k.startswith("bandwidth") else (1e12, "TFLOP/s")
        rows.append([k.replace("_bytes_s", "").replace("_flops_s", ""), unit,
                     f"{v / scale:.1f}" if v else "-", f"{ref / scale:.1f}" if ref else "-",
                     f"{v / ref:.0%}" if v and ref else "-"])
    c.save("peaks", {"measured": entry, "datasheet": sheet})
    _table(f"peaks on {c.device} (datasheet: {sheet['board'] if sheet else 'unknown'})",
           ["what", "unit", "measured", "datasheet", "ratio"], rows)


def step_references(c: Check) -> None:
    before = json.loads(c.path.read_text()).get("references", {}) if c.path.exists() else {}
    code = bench_judge.bench_cuda(c.tasks, unsafe=c.unsafe, save=str(c.path))
    data = json.loads(c.path.read_text()).get("references", {})
    if c.tasks:   # a rerun of some tasks replaces their rows only
        rows = {r["task"]: r for r in before.get("rows", [])}
        rows.update({r["task"]: r for r in data.get("rows", [])})
        data["rows"] = [rows[k] for k in sorted(rows)]
    floors = _min_fractions()
    data["below_min_fraction"] = [r["task"] for r in data.get("rows", [])
                                  if (r.get("roofline_fraction") or 0) < floors.get(r["task"], 0.05)]
    data["exit"] = code
    c.save("references", data)


def _min_fractions() -> dict:
    text = (ROOT / "tests" / "judge" / "timing" / "test_gpu_timing.py").read_text()
    m = re.search(r"MIN_FRACTION = (\{[^}]*\})", text)
    return json.loads(m.group(1).replace("'", '"')) if m else {}


def step_cheats(c: Check) -> None:
    cheats = [("hidden_stream", FIXTURES / "timing" / "hidden_stream.py", None),
              ("replay_by_pointer", FIXTURES / "timing" / "replay_by_pointer.py", None),
              ("forged_timer (rebinding, screen on)", FIXTURES / "timing" / "forged_timer.py", None),
              ("forged_timer (rebinding, screen off)", FIXTURES / "timing" / "forged_timer.py", "nostatic"),
              ("forged event timer in the child", SOLUTIONS / "vector_add.py", "forge")]
    rows, out = [], []
    entry = ROOT / "tests" / "judge" / "timing" / "forged_timer_entry.py"
    os.environ["KERNELPATH_SANITIZER_TOOLS"] = "none"
    for name, path, how in cheats:
        kwargs = {}
        if how == "nostatic":
            kwargs["static_checks"] = False
        if how == "forge":
            kwargs["wrapper"] = lambda spec, argv: [sys.executable, "-s", "-B", str(entry)] + argv[argv.index("--backend"):]
        r = c.judge("vector_add", path.read_text(), backend="cuda", seed=5, **kwargs)
        t = r.timing
        row = {"cheat": name, "verdict": r.verdict.value, "message": r.message[:300],
               "flags": t.flags if t else None, "median_ms": t.median_ms if t else None,
               "physical_floor_ms": t.physical_floor_ms if t else None,
               "eligible": t.leaderboard_eligible if t else None, "score": r.score,
               "wall": t.wall if t else None}
        out.append(row)
        rows.append([name, r.verdict.value, ",".join(t.flags) if t else "-",
                     f"{t.median_ms:.4f}" if t else "-", f"{r.score:.1f}"])
    os.environ.pop("KERNELPATH_SANITIZER_TOOLS", None)
    c.save("cheats", out)
    _table("cheats", ["cheat", "verdict", "flags", "median_ms", "score"], rows)


def _fixture_files() -> list[tuple[str, Path]]:
    found = []
    for path in sorted((FIXTURES / "submissions").glob("*/*.py")):
        found.append((path.parent.name, path))
    for path in sorted(SOLUTIONS.glob("*.py")):
        if not path.stem.startswith("_"):
            found.append((path.stem, path))
    # The submissions that are wrong on purpose first: they are what the step is for.
    return sorted(found, key=lambda f: _expected(f[1]) == "accepted")


def _expected(path: Path) -> str:
    if path.parent == SOLUTIONS:
        return "accepted"
    m = EXPECT.search(path.read_text())
    return m.group(1) if m else "?"


def _worker_init(lock_root: str) -> None:
    # One GPU lock per worker: the fixtures run side by side (nothing is timed in this step).
    d = tempfile.mkdtemp(prefix="lock-", dir=lock_root)
    os.environ["KERNELPATH_GPU_LOCK_DIR"] = d


def _judge_fixture(job: tuple) -> dict:
    slug, path, unsafe, timing, until = job
    if time.time() > until:
        return {"task": slug, "file": str(Path(path).relative_to(ROOT)), "verdict": "not run (time)",
                "message": "", "sanitizer": None, "seconds": 0.0, "stages": {}, "timing": None}
    from assessments.judge import judge
    t0 = time.monotonic()
    r = judge(slug, Path(path).read_text(), backend="cuda", seed=11, timing=timing, listings=False,
              unsafe_no_sandbox=unsafe)
    return {"task": slug, "file": str(Path(path).relative_to(ROOT)), "verdict": r.verdict.value,
            "message": r.message[:400], "sanitizer": r.sanitizer, "seconds": round(time.monotonic() - t0, 2),
            "stages": {k: round(v, 3) for k, v in r.stages.items()},
            "timing": bench_judge.timing_row(slug, r) if r.timing else None}


def step_fixtures(c: Check, workers: int = 8) -> None:
    until = time.time() + min(c.left(), c.fixtures_s)
    jobs = [(slug, str(path), c.unsafe, False, until) for slug, path in _fixture_files()]
    lock_root = tempfile.mkdtemp(prefix="kp-gpu-locks-")
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                             initializer=_worker_init, initargs=(lock_root,)) as pool:
        results = list(pool.map(_judge_fixture, jobs))
    rows = []
    for res, (slug, path) in zip(results, _fixture_files()):
        res["cpu_verdict"] = _expected(path)
        res["same_as_cpu"] = res["verdict"] == res["cpu_verdict"]
        san = res.get("sanitizer") or {}
        tools = {t["tool"]: t["errors"] for t in san.get("tools") or []}
        caught_by = next((t["tool"] for t in san.get("tools") or [] if t.get("errors")), None)
        res["caught_by_sanitizer"] = caught_by
        rows.append([res["file"].replace("tests/fixtures/submissions/", ""), res["cpu_verdict"],
                     res["verdict"], "=" if res["same_as_cpu"] else "DIFF",
                     ",".join(f"{k}:{v}" for k, v in tools.items()) or san.get("note", "-"),
                     f"{san.get('seconds', 0):.1f}", f"{res['seconds']:.1f}"])
    c.save("fixtures", results)
    same = sum(r["same_as_cpu"] for r in results)
    _table(f"fixtures on the GPU ({same}/{len(results)} as on the cpu backend)",
           ["file", "cpu", "gpu", "", "sanitizer errors", "san s", "total s"], rows)


def step_sanitizer(c: Check) -> None:
    """The same submissions judged with and without the compute-sanitizer pass (timing off)."""
    subs = [("vector_add", SOLUTIONS / "vector_add.py"), ("reduce_sum", SOLUTIONS / "reduce_sum.py"),
            ("matmul", SOLUTIONS / "matmul.py"), ("softmax", SOLUTIONS / "softmax.py"),
            ("vector_add", FIXTURES / "submissions" / "vector_add" / "elementwise.py"),
            ("reduce_sum", FIXTURES / "submissions" / "reduce_sum" / "jit_shared.py")]
    rows, out = [], []
    for slug, path in subs:
        took = {}
        for mode in ("off", "on"):
            os.environ["KERNELPATH_SANITIZER_TOOLS"] = "none" if mode == "off" else "memcheck,racecheck,synccheck"
            t0 = time.monotonic()
            r = c.judge(slug, path.read_text(), backend="cuda", seed=1, timing=False)
            took[mode] = time.monotonic() - t0
            if mode == "on":
                per_tool = {t["tool"]: t["seconds"] for t in (r.sanitizer or {}).get("tools") or []}
        os.environ.pop("KERNELPATH_SANITIZER_TOOLS", None)
        out.append({"task": slug, "file": str(path.relative_to(ROOT)), "without_s": took["off"],
                    "with_s": took["on"], "per_tool_s": per_tool, "verdict": r.verdict.value})
        rows.append([str(path.relative_to(ROOT)), f"{took['off']:.2f}", f"{took['on']:.2f}",
                     f"{took['on'] / took['off']:.1f}x",
                     " ".join(f"{k}={v:.1f}" for k, v in per_tool.items()), r.verdict.value])
    c.save("sanitizer_cost", out)
    _table("compute-sanitizer cost (judging without timing, seconds)",
           ["submission", "without", "with", "ratio", "per tool", "verdict"], rows)


# compute-sanitizer under bubblewrap, from no sandbox to the judge's own flags one step at a time:
# the first variant that fails names the flag the tool cannot live with.
SANITIZED_PROGRAM = "import cupy; x = cupy.arange(1000, dtype=cupy.float32); print('sum', float(x.sum()))"


def _bwrap_variants(bwrap: str) -> list[tuple[str, list[str]]]:
    """(name, the command's prefix); "{filter}" stands for the seccomp filter's descriptor."""
    from assessments.judge.kinds.cupy.backends.base import CUDA
    mounts = ["--ro-bind", "/", "/", "--dev", "/dev", *CUDA.binds(), "--tmpfs", "/tmp",
              "--tmpfs", "/dev/shm"]
    spaces = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
              "--new-session"]
    user = ["--unshare-user", "--uid", "65534", "--gid", "65534", "--disable-userns", "--cap-drop", "ALL"]
    seccomp, tracing = ["--seccomp", "{filter}"], ["--seccomp", "{tracing}"]
    home = ["--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp"]
    every_node = [x for node in sorted(glob.glob("/dev/nvidia*")) for x in ("--dev-bind", node, node)]
    return [
        ("no sandbox", []),
        ("bwrap, host root bound", [bwrap, "--dev-bind", "/", "/"]),
        ("+ own /dev with the GPU nodes, /tmp, /dev/shm", [bwrap, *mounts]),
        ("+ HOME and TMPDIR writable (/tmp)", [bwrap, *mounts, *home]),
        ("+ every /dev/nvidia* node", [bwrap, *mounts, *home, *every_node]),
        ("+ pid/net/ipc/uts namespaces", [bwrap, *mounts, *home, *spaces]),
        ("+ user namespace, no capabilities", [bwrap, *mounts, *home, *spaces, *user]),
        ("+ the usual seccomp filter", [bwrap, *mounts, *home, *spaces, *user, *seccomp]),
        ("+ the sanitizer's filter instead (tracing allowed)", [bwrap, *mounts, *home, *spaces, *user,
                                                               *tracing]),
    ]


def step_sanitizer_bwrap(c: Check) -> None:
    from assessments.judge import seccomp
    from assessments.judge.kinds.cupy import sanitizer
    tool = sanitizer.program()
    bwrap, env = _bwrap_env()
    if not tool or not bwrap:
        c.save("sanitizer_bwrap", {"skipped": f"compute-sanitizer {tool}, bwrap {bwrap}"})
        print(f"sanitizer_bwrap: skipped (compute-sanitizer {tool}, bwrap {bwrap})")
        return
    out, rows = [], []
    for name, prefix in _bwrap_variants(bwrap):
        fds = []
        for mark, program in (("{filter}", seccomp.program()), ("{tracing}", sanitizer.syscall_filter())):
            if mark in prefix:
                r_fd, w_fd = os.pipe()   # bubblewrap reads the filter once: a fresh pipe per run
                os.write(w_fd, program)
                os.close(w_fd)
                fds.append(r_fd)
                prefix = [str(r_fd) if x == mark else x for x in prefix]
        cmd = [*prefix, *(["--"] if prefix else []), tool, "--tool", "memcheck",
               "--error-exitcode", "86", sys.executable, "-c", SANITIZED_PROGRAM]
        t0 = time.monotonic()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=90, env=env, pass_fds=fds)
            code, text = p.returncode, p.stdout + p.stderr
        except (OSError, subprocess.TimeoutExpired) as exc:
            code, text = type(exc).__name__, str(exc)
        finally:
            for fd in fds:
                os.close(fd)
        took = round(time.monotonic() - t0, 2)
        tail = [ln for ln in text.strip().splitlines() if ln.strip()][-6:]
        summary = next((ln for ln in tail if "ERROR SUMMARY" in ln), "")
        out.append({"variant": name, "exit": code, "seconds": took, "summary": summary, "tail": tail})
        rows.append([name, code, f"{took:.1f}", summary or (tail[-1][:90] if tail else "")])
    c.save("sanitizer_bwrap", out)
    _table("compute-sanitizer (memcheck) under bubblewrap, one flag set at a time",
           ["variant", "exit", "s", "summary or last line"], rows)
    for r in out:
        if r["exit"] != 0:
            print(f"-- {r['variant']}:\n   " + "\n   ".join(r["tail"]))


SANDBOX_PROBE = r"""
import json, sys
sys.path.insert(0, ".")
from assessments.judge import judge, sandbox
print(json.dumps({"probe": sandbox.probe()}), flush=True)
for slug, path, timing in json.loads(sys.argv[1]):
    r = judge(slug, open(path).read(), backend="cuda", seed=7, timing=timing, listings=True)
    t = r.timing
    print(json.dumps({"file": path, "verdict": r.verdict.value, "message": r.message[:300],
                      "sandbox": r.sandbox, "median_ms": t.median_ms if t else None,
                      "flags": t.flags if t else None, "sanitizer": r.sanitizer,
                      "kernels": [(k.name, k.registers, bool(k.sass)) for k in r.kernels]}), flush=True)
"""


def _bwrap_env() -> tuple[str | None, dict]:
    """(bubblewrap's path, the environment it runs in): the machine's, else the one carried in
    $KERNELPATH_BWRAP_DIR (bench/gpu_tools.sh), with its own libraries only where the machine's
    do not serve it (they can be older than the machine's C library)."""
    env = dict(os.environ)
    found = shutil.which("bwrap")
    carried = os.environ.get("KERNELPATH_BWRAP_DIR")
    if found or not carried:
        return found, env
    env["PATH"] = f"{carried}:{env.get('PATH', '')}"
    bwrap, lib = os.path.join(carried, "bwrap"), os.path.join(carried, "lib")
    if os.path.isdir(lib) and subprocess.run([bwrap, "--version"], capture_output=True).returncode != 0:
        env["LD_LIBRARY_PATH"] = f"{lib}:{env.get('LD_LIBRARY_PATH', '')}".rstrip(":")
    return bwrap, env


def step_sandbox(c: Check) -> None:
    """The same judge with bubblewrap: the GPU's device nodes bound, exec refused in the child."""
    _, env = _bwrap_env()
    subs = [("vector_add", "gpu_tasks/solutions/vector_add.py", True),
            ("reduce_sum", "gpu_tasks/solutions/reduce_sum.py", False),
            ("reduce_sum", "tests/fixtures/submissions/reduce_sum/missing_syncthreads.py", False),
            ("vector_add", "tests/fixtures/submissions/vector_add/missing_bounds_check.py", False),
            ("vector_add", "tests/fixtures/submissions/vector_add/jit.py", False)]
    p = subprocess.run([sys.executable, "-c", SANDBOX_PROBE, json.dumps(subs)], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=max(c.left(), 60))
    lines = [json.loads(ln) for ln in p.stdout.splitlines() if ln.startswith("{")]
    c.save("sandbox", {"exit": p.returncode, "results": lines, "stderr": p.stderr[-3000:]})
    print("\n== bubblewrap on the GPU")
    for ln in lines:
        print(json.dumps(ln)[:400])
    if p.returncode:
        print(p.stderr[-2000:])


class _HostLoad:
    """Every host core kept busy by a spinning process."""

    def __enter__(self):
        code = "import time\nend = time.time() + 600\nwhile time.time() < end: pass\n"
        self.procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(os.cpu_count() or 1)]
        time.sleep(0.5)
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()


def step_stability(c: Check) -> None:
    runs = c.runs
    os.environ["KERNELPATH_SANITIZER_TOOLS"] = "none"   # timing only: correctness is checked above
    out, rows = {}, []
    try:
        for slug in c.stable:
            for load in c.loads:
                with _HostLoad() if load == "busy" else contextlib.nullcontext():
                    source = (SOLUTIONS / f"{slug}.py").read_text()
                    judged = []
                    for i in range(runs):
                        if c.left() < 5:
                            break
                        r = c.judge(slug, source, backend="cuda", seed=100 + i)
                        judged.append(bench_judge.timing_row(slug, r))
                    med = [j["median_ms"] for j in judged if j.get("median_ms")]
                    flags = sorted({f for j in judged for f in j.get("flags") or []})
                    spread = max(med) / min(med) if med else None
                    out[f"{slug}/{load}"] = {"runs": judged, "spread": spread, "flags": flags}
                    excess = [j["wall"]["excess_s"] / j["wall"]["allowed_s"] for j in judged
                              if j.get("wall") and j["wall"].get("allowed_s")]
                    rows.append([slug, load, len(med), f"{min(med):.4f}" if med else "-",
                                 f"{statistics.median(med):.4f}" if med else "-",
                                 f"{max(med):.4f}" if med else "-",
                                 f"{(spread - 1) * 100:.2f}%" if spread else "-",
                                 f"{max(excess):.2f}" if excess else "-", ",".join(flags) or "-"])
                    c.save("stability", out)
    finally:
        os.environ.pop("KERNELPATH_SANITIZER_TOOLS", None)
    c.save("stability", out)
    _table("stability: medians of the same kernel judged again (ms)",
           ["task", "host", "n", "min", "median", "max", "spread", "excess/allowed max", "flags"], rows)


def _timed_fixture_files() -> list[tuple[str, Path]]:
    """The accepted fixtures bench/perfmodel.py estimates: the slow-but-correct pairs of
    tests/fixtures/perf first (what the model must order), then the accepted submissions."""
    perf = [(p.parent.name, p) for p in sorted((FIXTURES / "perf").glob("*/*.py"))]
    subs = [(slug, p) for slug, p in _fixture_files()
            if p.parent != SOLUTIONS and _expected(p) == "accepted"]
    return perf + subs


def step_fixture_times(c: Check) -> None:
    os.environ["KERNELPATH_SANITIZER_TOOLS"] = "none"
    out, rows = [], []
    try:
        for slug, path in _timed_fixture_files():
            if c.only and not any(o in str(path.relative_to(FIXTURES)) for o in c.only):
                continue
            if c.left() < 8:
                c.skipped.append(f"fixture_times from {path.relative_to(FIXTURES)}")
                break
            r = c.judge(slug, path.read_text(), backend="cuda", seed=0)
            row = bench_judge.timing_row(slug, r)
            row["file"] = str(path.relative_to(ROOT))
            out.append(row)
            c.save("fixture_times", out)   # kept as it grows: a run cut short keeps what it timed
            rows.append([str(path.relative_to(FIXTURES)), r.verdict.value,
                         f"{row.get('median_ms') or 0:.4f}", f"{row.get('roofline_fraction') or 0:.1%}",
                         ",".join(row.get("flags") or []) or "-"])
    finally:
        os.environ.pop("KERNELPATH_SANITIZER_TOOLS", None)
    c.save("fixture_times", out)
    _table("accepted fixtures timed", ["file", "verdict", "median_ms", "roofline", "flags"], rows)


def step_pytest(c: Check) -> None:
    env = {**os.environ, "KERNELPATH_GPU_CHECK_NO_SANDBOX": "1" if c.unsafe else "0"}
    cmd = [sys.executable, "-m", "pytest", "-m", "gpu", "-p", "no:cacheprovider", "-rA", "-q",
           *c.pytest_files, f"--junitxml={c.out / 'pytest-gpu.xml'}"]
    if c.pytest_k:
        cmd += ["-k", c.pytest_k]
    try:
        p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=max(c.left(), 30))
        text, code = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired as exc:
        text, code = (exc.stdout or b"").decode(errors="replace") if isinstance(exc.stdout, bytes) \
            else (exc.stdout or ""), "timeout"
    (c.out / "pytest-gpu.log").write_text(text)
    summary = [ln for ln in text.splitlines() if re.match(r"^(PASSED|FAILED|ERROR|SKIPPED|=+ .* in )", ln)]
    c.save("pytest", {"exit": code, "summary": summary[-80:]})
    print("\n== pytest -m gpu\n" + "\n".join(summary[-60:]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("steps", nargs="*", metavar="STEP")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    parser.add_argument("--deadline-s", type=float, default=450.0,
                        help="no step starts after this many seconds")
    parser.add_argument("--unsafe-no-sandbox", action="store_true")
    parser.add_argument("--tasks", default="", help="references: only these (comma-separated)")
    parser.add_argument("--stable", default=",".join(STABLE_TASKS), help="stability: these tasks")
    parser.add_argument("--runs", type=int, default=5, help="stability: judgings per task and load")
    parser.add_argument("--loads", default=",".join(LOADS), help="stability: idle, busy or both")
    parser.add_argument("--only", default="", help="fixture_times: only paths holding one of these "
                        "(comma-separated, relative to tests/fixtures)")
    parser.add_argument("--fixtures-s", type=float, default=180.0, help="fixtures: none starts after")
    parser.add_argument("--pytest-files", default=",".join(PYTEST_FILES))
    parser.add_argument("--pytest-k", default="", help="pytest: only tests matching this -k expression")
    args = parser.parse_args(argv)
    steps = args.steps or list(STEPS)
    unknown = [s for s in steps if s not in STEPS]
    if unknown:
        parser.error(f"unknown step(s) {', '.join(unknown)}; choose from {', '.join(STEPS)}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    c = Check(out, args.deadline_s, args.unsafe_no_sandbox,
              tasks=[t for t in args.tasks.split(",") if t], stable=[t for t in args.stable.split(",") if t],
              runs=args.runs)
    c.fixtures_s, c.pytest_files = args.fixtures_s, [f for f in args.pytest_files.split(",") if f]
    c.pytest_k = args.pytest_k
    c.only = [o for o in args.only.split(",") if o]
    c.loads = tuple(x for x in args.loads.split(",") if x in LOADS) or LOADS
    if c.device == "no GPU":
        print("no GPU: CuPy sees no device")
        return 1
    timings = {}
    for step in steps:
        if c.left() <= 0:
            c.skipped.append(step)
            continue
        t0 = time.monotonic()
        try:
            globals()[f"step_{step}"](c)
        except Exception as exc:
            import traceback
            print(f"\n!! step {step} failed: {type(exc).__name__}: {exc}")
            traceback.print_exc()
            c.save(f"error_{step}", traceback.format_exc()[-3000:])
        timings[step] = round(time.monotonic() - t0, 1)
        print(f"-- {step}: {timings[step]} s (left {c.left():.0f} s)")
        sys.stdout.flush()
    c.save("run", {"steps_s": timings, "skipped": c.skipped,
                   "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    print(f"\nsteps: {timings}; skipped: {c.skipped}; results: {c.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
