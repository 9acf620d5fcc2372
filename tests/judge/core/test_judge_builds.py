"""The compile stage: the NVRTC gate, emulator builds and listings made by the parent in its
compile sandbox, kept in the machine's cache by content hash (builds linked read-only into each
run's view); its limits and failures."""
import base64
import dataclasses
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from assessments.judge import Verdict, cgroups, compile_sandbox, compile_stage, judge
from assessments.judge.kinds.cupy import builds, gate, listing, nvrtc
from assessments.judge.kinds.cupy import jobs as compile_jobs
from assessments.judge.kinds.cupy.backends.base import CPU, CUDA
from assessments.judge.build_cache import BuildCache
from assessments.judge.sandbox import UNSAFE

ROOT = Path(__file__).resolve().parents[3]
RAW = (ROOT / "tests" / "fixtures" / "submissions" / "vector_add" / "raw_kernel.py").read_text()
GXX_ONLY = RAW.replace('extern "C"', '#ifdef KP_FI\nnot C++ at all;\n#endif\nextern "C"', 1)
NVRTC_ONLY = RAW.replace("c[i] = a[i] + b[i]", "c[i] = a[i] + b[i] + 0.0f * INFINITY")

pytestmark = pytest.mark.skipif(not nvrtc.available(), reason="NVRTC is not installed")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A cold build cache of this test's own, holding the emulator's runtime object; every job
    the compile sandbox runs is counted by module."""
    core = CPU.emulator_core()
    root = tmp_path / "cache"
    root.mkdir()
    shutil.copy2(core, root / os.path.basename(core))
    monkeypatch.setenv("KERNELPATH_EMULATOR_CACHE", str(root))
    jobs = []

    class Counted(compile_sandbox.Job):
        def __init__(self, module, job, **kw):
            jobs.append(module)
            super().__init__(module, job, **kw)

    monkeypatch.setattr(compile_sandbox, "Job", Counted)
    return root, jobs


def _describe(r) -> str:
    return f"{r.verdict.value}: {r.message}\n{r.details or ''}\n{r.compile_log or ''}"


def test_a_resubmission_builds_and_lists_nothing(cache):
    root, jobs = cache
    first = judge("vector_add", RAW, seed=1)
    assert first.verdict is Verdict.ACCEPTED, _describe(first)
    # The build started beside NVRTC, the SASS once NVRTC made the cubin; the tests are checked,
    # so the checking build is the only one made.
    assert jobs == [compile_jobs.BUILD_MODULE, gate.NVRTC_MODULE, compile_jobs.LISTING_MODULE]
    assert len(list((root / "builds").glob("*.so"))) == 1
    assert len(list((root / "gates").glob("*.cubin"))) == 1
    assert first.stages["build"] > 0 and first.stages["gate"] > 0 and first.kernels[0].sass
    assert first.kernels[0].registers > 0
    again = judge("vector_add", RAW, seed=2)
    assert again.verdict is Verdict.ACCEPTED, _describe(again)
    assert len(jobs) == 3, "the second run compiled or listed again"
    assert again.kernels[0].ptx == first.kernels[0].ptx and again.kernels[0].sass == first.kernels[0].sass
    assert again.kernels[0].registers == first.kernels[0].registers
    assert list((root / "runs").iterdir()) == []          # each run's view goes with it


@pytest.mark.parametrize("fixture", ["elementwise.py", "jit.py"])
def test_a_generated_kernel_is_built_once_beside_nvrtc(cache, fixture):
    """The gate request names the emulator's rewrite of CuPy's generated source, not the source
    NVRTC compiles: one build, started with the gate, and it is the one the tests load."""
    root, jobs = cache
    source = (ROOT / "tests" / "fixtures" / "submissions" / "vector_add" / fixture).read_text()
    r = judge("vector_add", source, seed=1, listings=False)
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    assert jobs == [compile_jobs.BUILD_MODULE, gate.NVRTC_MODULE]
    assert len(list((root / "builds").glob("*.so"))) == 1


@pytest.mark.parametrize("source,job", [(GXX_ONLY, compile_jobs.BUILD_MODULE),
                                        (NVRTC_ONLY, gate.NVRTC_MODULE)])
def test_compile_errors_keep_their_message_and_are_cached(cache, source, job):
    _, jobs = cache
    first = judge("vector_add", source, seed=1)
    assert first.verdict is Verdict.COMPILE_ERROR, _describe(first)
    if job == gate.NVRTC_MODULE:   # NVRTC's log, mapped to the line of solution.py
        assert first.message == "compile error in kernel 'vadd': solution.py:7: error: identifier " \
                                '"INFINITY" is undefined', first.message
    else:
        assert "expected unqualified-id" in first.compile_log and "kernel.cu:3" in first.compile_log
    again = judge("vector_add", source, seed=1)
    assert (again.verdict, again.message, again.compile_log) == \
        (first.verdict, first.message, first.compile_log)
    assert jobs.count(job) == 1


def test_a_slow_compile_is_a_compile_error(cache):
    """(That compiling is off the request's clock: test_judge_runner.py.)"""
    limits = dataclasses.replace(CPU.limits, compile_s=0.01)
    r = judge("vector_add", RAW, seed=1, limits=limits, listings=False)
    assert r.verdict is Verdict.COMPILE_ERROR, _describe(r)
    assert "compiling the kernel with NVRTC took longer than 0.01 s (the compile time limit)" \
        in r.message
    r = judge("vector_add", RAW, seed=1, listings=False)     # not cached
    assert r.verdict is Verdict.ACCEPTED, _describe(r)



@pytest.mark.skipif(not (cgroups.layout() or ("", {}))[1].get("memory"),
                    reason="no memory cgroup for the judge on this machine")
def test_a_compile_over_its_memory_cap_is_a_compile_error(cache):
    limits = dataclasses.replace(CPU.limits, compile_memory=16 * 1024 * 1024)
    r = judge("vector_add", RAW, seed=1, limits=limits, listings=False)
    assert r.verdict is Verdict.COMPILE_ERROR, _describe(r)
    assert "used more than 16 MiB of memory (the compile memory limit)" in r.message
    assert not list(cgroups_left())
    r = judge("vector_add", RAW, seed=1, listings=False)     # not cached
    assert r.verdict is Verdict.ACCEPTED, _describe(r)


def cgroups_left():
    """The judge's cgroups still on the machine made by this process."""
    _, parents = cgroups.layout() or ("", {})
    for parent in parents.values():
        yield from parent.glob(f"{cgroups.PREFIX}{os.getpid()}-*")


def _failing_jobs(monkeypatch, module: str, failure: compile_sandbox.JobFailed, at_start: bool = False):
    """compile_sandbox.Job, with `module`'s jobs failing as `failure` says (when started, or when
    their answer is read)."""
    real = compile_sandbox.Job

    class Failing(real):
        def __init__(self, mod, job, **kw):
            self.failing = mod == module
            if self.failing and at_start:
                raise failure
            super().__init__(mod, job, **kw)

        def answer(self):
            if self.failing:
                self.cancel()
                raise failure
            return super().answer()
    monkeypatch.setattr(compile_sandbox, "Job", Failing)


def test_a_slow_emulator_build_is_a_compile_error(cache, monkeypatch):
    _failing_jobs(monkeypatch, compile_jobs.BUILD_MODULE,
                  compile_sandbox.JobFailed("took too long", timed_out=True))
    r = judge("vector_add", RAW, seed=1, listings=False)
    assert r.verdict is Verdict.COMPILE_ERROR, _describe(r)
    assert r.message == "compile error in kernel 'vadd': compiling the " \
                        "kernel for the CPU emulator took longer than 60 s (the compile time limit)"


def test_the_compile_budget_of_a_run(cache):
    limits = dataclasses.replace(CPU.limits, compile_total_s=0.0)
    r = judge("vector_add", RAW, seed=1, limits=limits, listings=False)
    assert r.verdict is Verdict.COMPILE_ERROR, _describe(r)
    assert "to compile in all (the compile time limit)" in r.message


@pytest.mark.parametrize("module,what", [(gate.NVRTC_MODULE, "could not run the NVRTC gate"),
                                         (compile_jobs.BUILD_MODULE, "could not build a kernel")])
def test_a_compile_the_judge_cannot_make_is_its_own_error(cache, monkeypatch, module, what):
    _failing_jobs(monkeypatch, module,
                  compile_sandbox.JobFailed("the compile sandbox did not start: no bwrap"), at_start=True)
    r = judge("vector_add", RAW.replace("b[i]", "b[i] + 0.0f"), seed=1)
    assert r.verdict is Verdict.INTERNAL_ERROR and what in r.message, _describe(r)


def test_requests_are_checked(cache, tmp_path):
    service = builds.RunBuilds(CPU, CPU.limits, UNSAFE, BuildCache(tmp_path / "c"))
    gating = gate.RunGate(CPU, CPU.limits, UNSAFE, BuildCache(tmp_path / "c"))
    try:
        for bad in ({"source": 5}, {"source": "k", "options": "-O3"}, {"source": "k", "checking": 1},
                    {"source": "x" * (compile_stage.MAX_SOURCE + 1)}, {"source": "k", "options": [3]}):
            reply, spent = service.serve(bad)
            assert reply == {"ok": False, "log": "the build request is malformed"}
        for bad in ({"source": "k"}, {"source": "k", "arch": "-I/etc"}, {"source": 1, "arch": "sm_90"}):
            reply, spent = gating.serve(bad)
            assert reply == {"ok": False, "log": "the gate request is malformed"} and spent == 0
        reply, _ = builds.RunBuilds(CUDA, CUDA.limits, UNSAFE, BuildCache(tmp_path / "c")).serve(
            {"source": "k"})
        assert not reply["ok"] and "no kernels for an emulator" in reply["log"]
        assert service.failure is None and gating.failure is None
    finally:
        service.close()


def test_unsafe_runs_build_without_the_sandbox(cache):
    r = judge("vector_add", RAW, seed=1, unsafe_no_sandbox=True)
    assert r.verdict is Verdict.ACCEPTED and r.sandbox == UNSAFE, _describe(r)


@pytest.mark.skipif(listing.find_nvdisasm() is None, reason="nvdisasm is not installed")
def test_nvrtc_and_nvdisasm_run_in_the_compile_sandbox(tmp_path):
    src = 'extern "C" __global__ void twice(float* c) { c[threadIdx.x] *= 2.0f; }'
    answer = compile_sandbox.run_job(gate.NVRTC_MODULE,
                                     {"programs": [{"source": src}, {"source": "not cuda"}],
                                      "arch": "sm_90"}, timeout_s=60, files=compile_jobs.FILES)
    good, bad = answer["results"]
    assert good["ok"] and ".entry twice" in good["ptx"] and good["kernels"][0]["name"] == "twice"
    assert not bad["ok"] and "error" in bad["log"] and bad["cubin"] is None
    result = nvrtc.CompileResult.from_dict(good)
    assert result.usage("twice").registers == good["kernels"][0]["registers"]
    image = tmp_path / "twice.cubin"
    image.write_bytes(base64.b64decode(good["cubin"]))
    listed = compile_sandbox.run_job(compile_jobs.LISTING_MODULE,
                                     {"cubins": [str(image), None]}, timeout_s=60,
                                     readonly=(str(image),), files=compile_jobs.FILES)["listings"]
    assert "EXIT" in listed[0]["sass"] and listed[0]["note"] is None
    assert listed[1] == {"sass": None, "note": "SASS unavailable: NVRTC gave no cubin"}


def test_answers_from_the_cache_stay_on_the_request_clock(tmp_path):
    from assessments.judge import build_cache
    cache = BuildCache(tmp_path / "c")
    k = build_cache.key("build", CPU.emulator_fingerprint(), "src", (), (), True)
    cache.put("builds", k, {"ok": True, "meta": {"entries": {"k": 0}}}, b"\x7fELF library")
    service = builds.RunBuilds(CPU, CPU.limits, UNSAFE, cache)
    try:
        reply, off_clock = service.serve({"source": "src", "checking": True})
        assert reply == {"ok": True, "file": f"{k}.so", "meta": {"entries": {"k": 0}}}
        assert off_clock == 0.0 and (service.view.path / f"{k}.so").read_bytes() == b"\x7fELF library"
        cache.file("builds", k).write_bytes(b"torn")    # a library of the wrong size: absent
        assert cache.get("builds", k) is None
    finally:
        service.close()


def _aged(path: Path, seconds_ago: float) -> None:
    past = os.path.getmtime(path) - seconds_ago
    os.utime(path, (past, past))


def test_the_cache_drops_least_recently_used_entries_past_its_budget(tmp_path):
    cache = BuildCache(tmp_path / "c", budget_bytes=10_000)
    for n, k in enumerate("abcd"):
        cache.put("builds", k, {"ok": True}, b"x" * 3000)
        for f in (cache.file("builds", k), tmp_path / "c" / "builds" / f"{k}.json"):
            _aged(f, 1000 - n)                     # a is the oldest, d the newest
    assert cache.get("builds", "a") is not None    # reading a makes it the most recently used
    assert cache.trim(force=True) >= 6000          # 12 kB > 10 kB: down to 8 kB
    kept = {k for k in "abcd" if cache.get("builds", k) is not None}
    assert kept == {"a", "d"}
    assert not cache.file("builds", "b").exists() and not cache.file("builds", "c").exists()


def test_eviction_keeps_an_entry_being_made_and_sweeps_leftovers(tmp_path):
    cache = BuildCache(tmp_path / "c", budget_bytes=10**6)
    cache.put("gates", "busy", {"ok": True}, b"cubin")
    cache.budget_bytes = 0
    section = tmp_path / "c" / "builds"
    (section / "stale.so").write_bytes(b"half")          # a writer killed before its JSON
    (section / ".tmp-x").write_bytes(b"torn")
    (section / "young.so").write_bytes(b"being published")
    for name in ("stale.so", ".tmp-x"):
        _aged(section / name, 2 * 3600)
    with cache.locked("gates", "busy"):
        cache.trim(force=True)
        assert cache.get("gates", "busy") is not None    # its maker holds the lock
    assert sorted(p.name for p in section.iterdir()) == ["young.so"]
    cache.trim(force=True)
    assert cache.get("gates", "busy") is None


def test_trims_are_at_most_once_a_minute(tmp_path):
    cache = BuildCache(tmp_path / "c", budget_bytes=0)
    cache.put("listings", "first", {"sass": "x"})        # the first put trims: evicted at once
    assert cache.get("listings", "first") is None
    cache.put("listings", "second", {"sass": "y"})       # within the minute: kept until later
    assert cache.get("listings", "second") is not None


@pytest.mark.parametrize("raw", ["lots", "-1"])
def test_a_wrong_budget_names_its_variable(monkeypatch, raw):
    from assessments.judge import build_cache
    monkeypatch.setenv("KERNELPATH_BUILD_CACHE_MB", raw)
    with pytest.raises(ValueError, match="KERNELPATH_BUILD_CACHE_MB"):
        build_cache.budget_from_env()


def test_evicted_builds_are_made_again(cache, monkeypatch):
    root, jobs = cache
    assert judge("vector_add", RAW, seed=1, listings=False).verdict is Verdict.ACCEPTED
    assert BuildCache(root, budget_bytes=0).trim(force=True) > 0
    assert not list((root / "builds").glob("*.so")) and not list((root / "gates").glob("*.json"))
    r = judge("vector_add", RAW, seed=2, listings=False)
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    assert jobs.count(compile_jobs.BUILD_MODULE) == 2 and jobs.count("assessments.judge.kinds.cupy.nvrtc") == 2
    assert list(root.glob("kp_core-*.o"))   # the runtime object stays


def test_a_cache_too_small_for_one_build_still_judges(cache, monkeypatch):
    monkeypatch.setenv("KERNELPATH_BUILD_CACHE_MB", "0")
    for seed in (1, 2):
        r = judge("vector_add", RAW, seed=seed, listings=False)
        assert r.verdict is Verdict.ACCEPTED, _describe(r)


def test_a_key_being_made_keeps_its_lock_file(tmp_path):
    """Eviction and the leftover sweep never remove a lock a worker holds, however old."""
    cache = BuildCache(tmp_path / "c", budget_bytes=10**6)
    cache.put("builds", "made", {"ok": True}, b"library")
    cache.budget_bytes = 0
    with cache.locked("builds", "made"), cache.locked("gates", "slow"):
        lock = tmp_path / "c" / "gates" / "slow.lock"
        _aged(lock, 2 * 3600)                     # a compile that waited long on another
        cache.trim(force=True)
        assert lock.exists() and (tmp_path / "c" / "builds" / "made.lock").exists()
        assert cache.get("builds", "made") is not None
    cache.trim(force=True)
    assert cache.get("builds", "made") is None
    assert not lock.exists()                      # free, and unused for an hour: swept


def test_a_worker_waiting_on_a_removed_lock_file_locks_the_new_one(tmp_path):
    import fcntl
    import threading
    cache = BuildCache(tmp_path / "c")
    path = tmp_path / "c" / "builds" / "k.lock"
    inside, order = threading.Event(), []
    with cache.locked("builds", "k"):
        def second():
            with cache.locked("builds", "k"):
                order.append(os.stat(path).st_ino)
                inside.set()
        waiter = threading.Thread(target=second)
        waiter.start()
        time_to_open = 0.2
        inside.wait(time_to_open)                 # it is blocked on our lock
        assert not inside.is_set()
        path.unlink()                             # what eviction does to a free key's lock
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)   # a third worker's new lock file
        fcntl.flock(fd, fcntl.LOCK_EX)
    # The waiter now holds the old, removed file: it must notice and wait for the new one.
    inside.wait(0.5)
    assert not inside.is_set(), "two workers held the same key's lock at once"
    os.close(fd)
    waiter.join(30)
    assert order == [os.stat(path).st_ino]


def test_a_build_evicted_before_it_is_linked_is_made_again(tmp_path, monkeypatch):
    from assessments.judge import build_cache
    cache = BuildCache(tmp_path / "c")
    k = build_cache.key("build", CPU.emulator_fingerprint(), "src", (), (), False)
    cache.put("builds", k, {"ok": True, "meta": {}}, b"\x7fELF library")
    service = builds.RunBuilds(CPU, CPU.limits, UNSAFE, cache)
    made = []
    real_add = service.view.add

    def evicted_once(key, section="builds"):
        if not made:
            made.append("evicted")
            cache._evict("builds", key)
            raise FileNotFoundError(key)
        return real_add(key, section)
    monkeypatch.setattr(service.view, "add", evicted_once)
    monkeypatch.setattr(service, "_compile", lambda request, keys, core: made.append("compiled") or
                        cache.put("builds", keys[False], {"ok": True, "meta": {}}, b"\x7fELF again"))
    try:
        reply, _ = service.serve({"source": "src", "options": [], "name_expressions": [],
                                  "checking": False})
    finally:
        service.close()
    assert reply["ok"] and made == ["evicted", "compiled"], (reply, made)


def test_a_compile_job_that_cannot_start_leaves_no_cgroup(monkeypatch):
    def refuse(*args, **kwargs):
        raise subprocess.SubprocessError("Exception occurred in preexec_fn.")
    monkeypatch.setattr(compile_sandbox.subprocess, "Popen", refuse)
    with pytest.raises(compile_sandbox.JobFailed, match="did not start"):
        compile_sandbox.Job(compile_jobs.LISTING_MODULE, {}, timeout_s=5)
    assert not list(cgroups_left())


def test_a_tests_time_leaves_out_the_compile_it_waited_for(cache):
    # Seen on a page: "5.38 s" for n=5, the first test's clock having run through the build.
    r = judge("vector_add", RAW, seed=3)
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    compiled = r.stages["build"] + r.stages["gate"]
    first = r.tests[0]
    assert compiled > 0 and first.elapsed_s is not None
    assert first.elapsed_s < compiled, (first.elapsed_s, compiled)
