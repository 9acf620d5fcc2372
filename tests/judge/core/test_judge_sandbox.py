"""The sandbox's shape: what is bound (an import audit of the child), the refusal without
bubblewrap, the unsafe opt-out, the seccomp filter, the cgroup and the GPU device nodes."""
import ast
import importlib.util
import json
import os
import signal
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from assessments.judge import cgroups, judge, sandbox, seccomp
from assessments.judge.kinds.cupy import jobs as compile_jobs
from assessments.judge.kinds.cupy.backends.base import BACKENDS, CPU, CUDA
from assessments.judge.sandbox import CHILD_FILES, REPO_ROOT, Limits, SandboxSpec, bwrap_argv

JUDGE = REPO_ROOT / "assessments" / "judge"
VADD = "import cupy as cp\n\ndef solve(a, b, c, n):\n    c[...] = a + b\n"


def _judge_imports(path: Path) -> set[Path]:
    """Files of assessments.judge that `path` imports (relative or absolute, at any depth)."""
    tree = ast.parse(path.read_text())
    package = path.parent
    out = set()
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package
                for _ in range(node.level - 1):
                    base = base.parent
                mod = base.joinpath(*node.module.split(".")) if node.module else base
                names = [mod] + [mod / a.name for a in node.names]
            elif node.module and node.module.startswith("assessments"):
                mod = REPO_ROOT.joinpath(*node.module.split("."))
                names = [mod] + [mod / a.name for a in node.names]
        elif isinstance(node, ast.Import):
            names = [REPO_ROOT.joinpath(*a.name.split(".")) for a in node.names
                     if a.name.startswith("assessments")]
        for mod in names:
            for candidate in (mod.with_suffix(".py"), mod / "__init__.py"):
                if candidate.is_file():
                    out.add(candidate.resolve())
    return out


def _assert_imports_bound(start: list[Path], bound: list[Path], skip: Path | None = None) -> None:
    """Every judge module reachable by imports from `start` lies in a bound file or directory
    (imports into `skip` are not followed)."""
    def is_bound(path: Path) -> bool:
        return any(path == b or b in path.parents for b in bound)

    todo, seen = list(start), set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for dep in _judge_imports(path):
            if skip is not None and skip in dep.parents:
                continue
            assert is_bound(dep), \
                f"{path.relative_to(REPO_ROOT)} imports {dep.relative_to(REPO_ROOT)}, which is not bound"
            todo.append(dep)


@pytest.mark.parametrize("backend", ["cpu", "cuda"])
def test_import_audit_child_needs_only_what_is_bound(backend):
    bound = [(REPO_ROOT / f).resolve() for f in CHILD_FILES + BACKENDS[backend].child_files]
    other = JUDGE / "kinds" / "cupy" / "backends" / ("cuda" if backend == "cpu" else "cpu")   # child.py's other branch
    start = [JUDGE / "kinds" / "cupy" / "child.py"] + [p for b in bound if b.is_dir() for p in b.rglob("*.py")]
    _assert_imports_bound(start, bound, skip=other)
    assert (REPO_ROOT / "assessments" / "__init__.py").resolve() in bound


def test_nothing_holding_references_is_bound(tmp_path):
    (tmp_path / "solution.py").write_text(VADD)
    spec = SandboxSpec(scratch=tmp_path, backend=CPU, limits=Limits())
    args = bwrap_argv(spec, ["python"], None)
    sources = [Path(args[i + 1]) for i, a in enumerate(args) if a in ("--ro-bind", "--bind", "--dev-bind")]
    repo = [s for s in sources if REPO_ROOT in s.parents]
    assert repo, "the child's modules are bound"
    for s in repo:
        if s.suffix == ".pyc":      # a child file's bytecode
            s = Path(importlib.util.source_from_cache(s))
        rel = s.relative_to(REPO_ROOT).as_posix()
        assert rel in CHILD_FILES + CPU.child_files or rel.startswith(CPU.child_files[-1]) \
            or rel.startswith(".venv/"), rel
    for forbidden in ("gpu_tasks", "assessments/judge/kinds/cupy/comparators.py", "assessments/judge/kinds/cupy/compare.py",
                      "assessments/judge/engine.py", "assessments/judge/kinds/cupy/backends/base.py",
                      "assessments/judge/kinds/cupy/timing", "instance", "tests"):
        assert not any(s == REPO_ROOT / forbidden or REPO_ROOT / forbidden in s.parents for s in sources)
    assert "--bind" not in args, "nothing of the host is writable"
    assert args[args.index("--tmpfs") - 1] == str(Limits().scratch_size)
    assert {"--unshare-net", "--unshare-pid", "--unshare-user", "--disable-userns", "--new-session",
            "--die-with-parent"} <= set(args)
    assert args.index("--remount-ro") > args.index("--tmpfs")


def test_the_child_files_bytecode_is_bound_beside_them_where_there_is_one(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    spec = SandboxSpec(scratch=tmp_path, backend=CPU, limits=Limits())
    args = bwrap_argv(spec, ["python"], None)
    bound = {args[i + 1] for i, a in enumerate(args) if a == "--ro-bind"}
    source = str(REPO_ROOT / "assessments/judge/protocol.py")
    assert source in bound and importlib.util.cache_from_source(source) in bound


def test_probe_succeeds_here():
    assert sandbox.probe() == (True, "")


def test_refuses_without_bubblewrap_unless_unsafe(monkeypatch):
    monkeypatch.setattr(sandbox, "_probe_result", [(False, "bubblewrap (bwrap) is not installed")])
    refused = judge("vector_add", VADD, seed=1)
    assert refused.verdict.value == "internal_error"
    assert "--unsafe-no-sandbox" in refused.message and "not installed" in refused.message
    assert refused.sandbox is None
    unsafe = judge("vector_add", VADD, seed=1, unsafe_no_sandbox=True)
    assert unsafe.verdict.value == "accepted", unsafe.message
    assert unsafe.sandbox == sandbox.UNSAFE
    assert "Sandbox: none" in unsafe.render_text()


def test_report_records_bubblewrap():
    r = judge("vector_add", VADD, seed=2)
    assert r.verdict.value == "accepted" and r.sandbox == "bubblewrap"
    assert json.loads(r.to_json())["sandbox"] == "bubblewrap"


def test_cli_unsafe_flag(tmp_path):
    f = tmp_path / "s.py"
    f.write_text(VADD)
    p = subprocess.run([sys.executable, "-m", "assessments.judge", "--task", "vector_add", "--json",
                        "--unsafe-no-sandbox", str(f)], cwd=REPO_ROOT, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["sandbox"] == "none (--unsafe-no-sandbox)"
    assert "unsafe" in p.stderr


def test_seccomp_program_shape():
    prog = seccomp.program("x86_64")
    assert len(prog) % 8 == 0
    insns = [struct.unpack("<HBBI", prog[i:i + 8]) for i in range(0, len(prog), 8)]
    assert insns[-1] == (0x06, 0, 0, 0x00050001)   # EPERM
    assert insns[-2] == (0x06, 0, 0, 0x7FFF0000)   # allow
    deny = len(insns) - 1
    for i, (code, jt, jf, k) in enumerate(insns[3:-2], start=3):
        assert i + 1 + jt == deny and jf == 0
    assert 88 in {k for _, _, _, k in insns} and 266 in {k for _, _, _, k in insns}  # symlink(at)
    assert 59 not in {k for _, _, _, k in insns}                     # bubblewrap must start the child
    assert len(seccomp.program("aarch64")) % 8 == 0
    child = seccomp.program("x86_64", deny_exec=True)
    numbers = {struct.unpack("<HBBI", child[i:i + 8])[3] for i in range(0, len(child), 8)}
    assert {59, 322, 88, 266} <= numbers                             # execve(at), symlink(at)
    assert {221, 281} <= set(seccomp.refused("aarch64", deny_exec=True).values())


def test_builds_come_read_only_from_the_runs_own_view(tmp_path):
    """The child compiles nothing: its builds appear, read-only, at a fixed path from a view of
    the parent's cache holding only this run's; neither the cache nor the runtime is bound."""
    from assessments.judge.build_cache import BuildCache
    (tmp_path / "solution.py").write_text(VADD)
    view = BuildCache(tmp_path / "cache").view()
    spec = SandboxSpec(scratch=tmp_path, backend=CPU, limits=Limits(), builds_view=str(view.path),
                       emulator_fingerprint="fp")
    env = sandbox.child_env(spec)
    assert env["KERNELPATH_EMULATOR_BUILDS"] == sandbox.BUILDS_MOUNT
    assert env["KERNELPATH_EMULATOR_FINGERPRINT"] == "fp" and "KERNELPATH_EMULATOR_CORE" not in env
    args = bwrap_argv(spec, ["python"], None)
    at = args.index(sandbox.BUILDS_MOUNT)
    assert args[at - 2:at + 1] == ["--ro-bind", str(view.path), sandbox.BUILDS_MOUNT]
    bound = [args[i + 1] for i, a in enumerate(args) if a in ("--ro-bind", "--bind")]
    assert not any(b.startswith(str(view.cache.root)) and b != str(view.path) for b in bound)
    assert sandbox.emulator_cache_dir() not in bound and "--bind" not in args
    assert not any("kp_core-" in b for b in bound)
    view.close()
    assert not view.path.exists()


def test_the_compile_sandbox_binds_what_its_jobs_import():
    from assessments.judge import compile_sandbox
    bound = [(REPO_ROOT / f).resolve() for f in compile_jobs.COMPILE_FILES]
    start = [JUDGE / "kinds" / "cupy" / "listing.py", JUDGE / "kinds" / "cupy" / "nvrtc.py",
             JUDGE / "kinds" / "cupy" / "backends" / "cpu" / "emulator" / "compile_job.py"]
    assert all(any(p == b or b in p.parents for b in bound) for p in start)
    _assert_imports_bound(start, bound)
    args = compile_sandbox.command(compile_jobs.BUILD_MODULE, sandbox.BUBBLEWRAP, ("/x/core.o",),
                                   files=compile_jobs.FILES)
    assert all(["--ro-bind", str(REPO_ROOT / f), str(REPO_ROOT / f)] == args[i - 1:i + 2]
               for f in compile_jobs.COMPILE_FILES for i in [args.index(str(REPO_ROOT / f))])
    assert "--bind" not in args and ["--ro-bind", "/x/core.o", "/x/core.o"] == \
        args[args.index("/x/core.o") - 1:args.index("/x/core.o") + 2]
    assert {"--unshare-net", "--unshare-pid", "--unshare-user", "--die-with-parent"} <= set(args)
    assert not any("gpu_tasks" in a or a.endswith("engine.py") for a in args)


def test_cgroup_caps_and_cleanup():
    if cgroups.layout() is None:
        pytest.skip("no cgroup for the judge on this machine")
    group = cgroups.create(processes=8, memory=256 * 1024 ** 2)
    assert group is not None
    code = ("import os, time\nn = 0\ntry:\n    for _ in range(20):\n        if os.fork() == 0:\n"
            "            time.sleep(30)\n            os._exit(0)\n        n += 1\nexcept OSError:\n"
            "    pass\nprint(n, flush=True)\ntime.sleep(30)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                            preexec_fn=group.attach_self)
    try:
        forked = int(proc.stdout.readline())
        assert forked < 8 and group.processes_hit()
        assert len(group.members()) == forked + 1
    finally:
        group.remove()
        proc.wait(timeout=10)
    assert not any(d.exists() for d in group.dirs.values())


def test_a_killed_judge_leaves_nothing_running(monkeypatch):
    """A judge process killed mid-run leaves its run's group with what was in it; the next
    judge process on the machine empties and removes it."""
    found = cgroups.layout()
    if found is None:
        pytest.skip("no cgroup for the judge on this machine")
    gone = subprocess.Popen(["true"])
    gone.wait()                                   # a judge process that no longer exists
    monkeypatch.setattr(os, "getpid", lambda: gone.pid)
    group = cgroups.create(processes=8, memory=None)
    monkeypatch.undo()
    assert group is not None and group.dirs[next(iter(group.dirs))].name.startswith(
        f"{cgroups.PREFIX}{gone.pid}-")
    stuck = subprocess.Popen(["sleep", "300"], preexec_fn=group.attach_self)
    try:
        cgroups.remove_stale()
        assert stuck.wait(timeout=10) == -signal.SIGKILL
        assert not any(d.exists() for d in group.dirs.values())
    finally:
        stuck.kill()
        group.remove()


def test_gpu_nodes_follow_cuda_visible_devices(monkeypatch):
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    assert "/dev/nvidia0" in CUDA.gpu_nodes() and "/dev/nvidiactl" in CUDA.gpu_nodes()
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3")
    nodes = CUDA.gpu_nodes()
    assert "/dev/nvidia3" in nodes and "/dev/nvidia0" not in nodes
    assert CUDA.env(sandboxed=True) == {"CUDA_VISIBLE_DEVICES": "0", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}
    assert CUDA.env(sandboxed=False) == {} and CPU.env(sandboxed=True) == {}
    binds = CUDA.binds()
    at = binds.index("/dev/nvidia3")
    assert binds[at - 1:at + 2] == ["--dev-bind-try", "/dev/nvidia3", "/dev/nvidia3"] and CPU.binds() == []


def test_cuda_limits_use_data_not_address_space():
    lim = CUDA.limits
    assert lim.address_space is None and lim.data_size and lim.memory


def test_a_sandbox_that_cannot_start_is_an_internal_error(tmp_path):
    from assessments.judge.runner import ChildDied, ChildProcess
    (tmp_path / "solution.py").write_text(VADD)
    spec = SandboxSpec(scratch=tmp_path, backend=CPU, limits=Limits(),
                       readonly_paths=(tmp_path / "does-not-exist",))
    child = ChildProcess(spec)
    with pytest.raises(ChildDied) as info:
        child.start()
    assert info.value.reason == "sandbox" and "does-not-exist" in info.value.detail
    assert child.group is None


_WRITE_PROBE = """
import sys
for path in sys.argv[1:]:
    try:
        open(path, "w").write("x")
        print(path, "writable")
    except OSError as exc:
        print(path, "refused", exc.errno)
"""


@pytest.mark.skipif(not sandbox.probe()[0], reason="bubblewrap cannot run here")
@pytest.mark.parametrize("private", [False, True])
def test_a_launcher_run_gets_a_tmp_and_shm_of_its_own_and_nothing_else_writable(tmp_path, private):
    # compute-sanitizer's front-end and its child meet through files in /tmp and /dev/shm; a
    # plain run writes only its scratch.
    spec = SandboxSpec(scratch=tmp_path, backend=CPU, limits=Limits(), private_tmp=private)
    argv = bwrap_argv(spec, [sys.executable, "-I", "-S", "-c", _WRITE_PROBE, "/tmp/probe",
                             "/dev/shm/probe", "/probe", "/usr/probe", str(tmp_path / "probe")], None)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60,
                          env={"PATH": sandbox.SANDBOX_PATH})
    said = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert said[str(tmp_path / "probe")] == "writable", done.stderr
    for path in ("/probe", "/usr/probe"):
        assert said[path].startswith("refused"), said
    for path in ("/tmp/probe", "/dev/shm/probe"):
        assert said[path] == ("writable" if private else said[path]) and \
            (private or said[path].startswith("refused")), said
    assert not (Path("/tmp/probe").exists() and private), "the sandbox's /tmp is its own"


_TRACE_PROBE = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
print(libc.ptrace(0, 0, None, None), ctypes.get_errno())   # PTRACE_TRACEME
"""


@pytest.mark.skipif(not sandbox.probe()[0], reason="bubblewrap cannot run here")
def test_only_the_sanitizer_sandbox_lets_its_front_end_trace_the_child(tmp_path):
    # Seen on an H200: under the usual filter compute-sanitizer ends at once ("Error launching
    # target app", exit status 13). Its sandbox allows tracing; the child refuses it again itself.
    from assessments.judge.kinds.cupy import sanitizer

    def traced(program: bytes) -> list[str]:
        spec = SandboxSpec(scratch=tmp_path, backend=CPU, limits=Limits(), private_tmp=True,
                           syscall_filter=program)
        r_fd, w_fd = os.pipe()
        os.write(w_fd, program)
        os.close(w_fd)
        try:
            argv = bwrap_argv(spec, [sys.executable, "-I", "-S", "-c", _TRACE_PROBE], None, r_fd)
            done = subprocess.run(argv, capture_output=True, text=True, timeout=60, pass_fds=(r_fd,),
                                  env={"PATH": sandbox.SANDBOX_PATH})
        finally:
            os.close(r_fd)
        return done.stdout.split()

    assert traced(sanitizer.syscall_filter()) == ["0", "0"]
    assert traced(seccomp.program()) == ["-1", "1"]                 # EPERM: a plain run
    assert "ptrace" in seccomp.refused(deny_exec=True)              # the child's own filter
    assert not {"ptrace", "process_vm_readv"} & set(seccomp.refused(allow=sanitizer.TRACING_CALLS))
