"""The judge's layers, read from its imports (ast, no import runs): no cycles; the child side
(sandbox.CHILD_FILES and each backend's child_files) imports nothing of the parent; the parent
imports nothing of the child but the shared modules listed here; and the task bank meets the
judge's Task protocol."""
from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

import gpu_tasks
from assessments.judge.kinds.cupy.backends.base import BACKENDS, CUDA
from assessments.judge.kinds.cupy.backends.base import CHILD_FILES as BACKEND_CHILD_FILES
from assessments.judge.sandbox import CHILD_FILES, REPO_ROOT
from assessments.judge.kinds.cupy.task import Task
from assessments.judge.kinds.verilog.backend import SIM
from tests.import_graph import circles

JUDGE = REPO_ROOT / "assessments" / "judge"
SHIM = JUDGE / "kinds" / "cupy" / "backends" / "cpu" / "shim"

# Modules both sides import, each with why it may be shared: pure (no I/O, no state), and
# importing nothing but other shared modules.
SHARED = {
    "assessments/judge/__init__.py": "the package: lazy public names, imports nothing",
    "assessments/judge/kinds/__init__.py": "the kinds' registry: loads a kind only when asked, "
                                           "imports nothing of the project",
    "assessments/judge/kinds/cupy/__init__.py": "the CuPy kind's package: imports nothing",
    "assessments/judge/kinds/verilog/__init__.py": "the Verilog kind's package: imports nothing",
    "assessments/judge/kinds/cupy/backends/__init__.py": "the backends' package: imports nothing",
    "assessments/judge/protocol.py": "the messages on the pipes between parent and child",
    "assessments/judge/kinds/cupy/diagnostics.py": "NVRTC's log format: the child names the program, the "
                                        "parent maps its lines back to solution.py",
    "assessments/judge/listing_text.py": "the listings' cap and counts: the child cuts what it "
                                         "sends, the parent cuts again and counts",
    "assessments/judge/seccomp.py": "the filters' BPF assembly: the parent hands it to bubblewrap, "
                                    "the child installs it with exec refused (exec_ban.py)",
    "assessments/judge/kinds/python/native.py": "ctypes calls through a task's extern \"C\" "
                                                "signature: the child calls a submission's library, "
                                                "the parent the task's C++ reference",
}
# Parent -> child imports that are not of a shared module, each with its reason.
PARENT_MAY_IMPORT = {
    ("assessments/judge/kinds/cupy/backends/base.py", "assessments/judge/kinds/cupy/backends/cpu/emulator/build.py"):
        "the trusted parent builds the emulator's runtime object once and reads the emulator's "
        "fingerprint (CpuBackend.emulator_core, emulator_fingerprint) with the builder's own "
        "module; no candidate code is involved",
}


def _rel(path: Path) -> str:
    return path.relative_to(REPO_ROOT).as_posix()


def _module_file(base: Path) -> Path | None:
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _root_of(path: Path, module: str) -> Path | None:
    """Where an absolute import of `module` from `path` is found: the repository, or inside the
    child the CPU stand-in's own top-level packages (`cupy`, `cupyx`, `_kpshim`)."""
    if module.split(".")[0] == "assessments":
        return REPO_ROOT
    if SHIM in path.parents and (SHIM / module.split(".")[0]).is_dir():
        return SHIM
    return None


def _in_shim(rel: str) -> bool:
    return SHIM in (REPO_ROOT / rel).parents


def _type_checking_only(tree: ast.AST) -> set[int]:
    """Ids of the import nodes under `if TYPE_CHECKING:`, which never run."""
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return skip


def imports(path: Path) -> set[str]:
    """Modules of assessments/judge that `path` imports, at any depth (lazy imports included)."""
    tree = ast.parse(path.read_text())
    skip = _type_checking_only(tree)
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        targets: list[Path | None] = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = path.parent
                for _ in range(node.level - 1):
                    base = base.parent
                mod = base.joinpath(*node.module.split(".")) if node.module else base
            elif node.module and _root_of(path, node.module):
                mod = _root_of(path, node.module).joinpath(*node.module.split("."))
            else:
                continue
            for alias in node.names:   # a submodule by name, else a name from the module
                targets.append(_module_file(mod / alias.name) or _module_file(mod))
        elif isinstance(node, ast.Import):
            targets = [_module_file(_root_of(path, a.name).joinpath(*a.name.split(".")))
                       for a in node.names if _root_of(path, a.name)]
        for target in targets:
            if target is not None and JUDGE in target.parents:
                out.add(_rel(target))
    out.discard(_rel(path))
    return out


@functools.cache
def graph() -> dict[str, set[str]]:
    """Each module of the judge -> the judge's modules it imports; read when a test first asks,
    not at collection (which every worker of every run goes through)."""
    return {m: imports(REPO_ROOT / m) for m in sorted(MODULES)}


def _every_backend() -> list:
    """Every backend of every kind the judge knows (kinds.KNOWN)."""
    from assessments.judge import kinds
    out = []
    for name in kinds.KNOWN:
        kind = kinds.get_kind(name)
        out += [kind.backend(b) for b in kind.backend_names()]
    return out


def _child_side() -> set[str]:
    """Every module bound into some backend's sandbox, of every kind."""
    out = set()
    backends = (*BACKENDS.values(), SIM, *_every_backend())
    for rel in set(CHILD_FILES).union(*(getattr(b, "child_files", ()) for b in backends)):
        path = REPO_ROOT / rel
        assert path.exists(), f"{rel} is bound for the child but does not exist"
        out |= {_rel(p) for p in path.rglob("*.py")} if path.is_dir() else {rel}
    return {m for m in out if m.startswith("assessments/judge/")}


MODULES = {_rel(p) for p in JUDGE.rglob("*.py")}
CHILD = _child_side() - set(SHARED)
PARENT = MODULES - CHILD - set(SHARED)


def test_no_import_cycles():
    """Among the judge's own modules. The CPU stand-in's packages (`cupy`, `cupyx`, `_kpshim` in
    backends/cpu/shim, imported by those names inside the child) mirror CuPy's layout, whose
    modules import one another (cupy.cuda.device and cupy.cuda.runtime): left out here."""
    own = {m: {d for d in deps if not _in_shim(d)} for m, deps in graph().items() if not _in_shim(m)}
    cycles = circles(own)
    assert not cycles, f"import cycles: {cycles}"


def test_the_layers_are_what_they_say():
    assert set(SHARED) <= MODULES and CHILD and PARENT
    for must in ("assessments/judge/kinds/cupy/child.py", "assessments/judge/kinds/cupy/kernel_log.py",
                 "assessments/judge/kinds/cupy/nvrtc.py", "assessments/judge/kinds/cupy/listing.py",
                 "assessments/judge/exec_ban.py"):
        assert must in CHILD
    for must in ("assessments/judge/engine.py", "assessments/judge/kinds/cupy/comparators.py",
                 "assessments/judge/kinds/cupy/compare.py", "assessments/judge/kinds/cupy/backends/base.py",
                 "assessments/judge/kinds/cupy/timing/session.py", "assessments/judge/kinds/cupy/builds.py", "assessments/judge/kinds/cupy/gate.py",
                 "assessments/judge/compile_stage.py",
                 "assessments/judge/build_cache.py", "assessments/judge/compile_sandbox.py"):
        assert must in PARENT
    # backends/cuda holds only what the child loads; the parent's side of timing is timing/.
    cuda = {_rel(p) for p in (JUDGE / "kinds" / "cupy" / "backends" / "cuda").rglob("*.py")}
    assert cuda == set(CUDA.child_files) - set(BACKEND_CHILD_FILES)
    assert all(_rel(p) in PARENT for p in (JUDGE / "kinds" / "cupy" / "timing").rglob("*.py"))


def test_child_side_imports_nothing_of_the_parent():
    bad = {(m, d) for m in CHILD for d in graph()[m] if d in PARENT}
    assert not bad, f"child-side modules importing parent-side ones: {sorted(bad)}"


def test_parent_imports_only_shared_modules_of_the_child():
    bad = {(m, d) for m in PARENT for d in graph()[m] if d in CHILD and (m, d) not in PARENT_MAY_IMPORT}
    assert not bad, f"parent-side modules importing child-side ones: {sorted(bad)}"
    for edge in PARENT_MAY_IMPORT:
        assert edge[1] in graph()[edge[0]], f"stale exception {edge}"


def test_shared_modules_import_only_shared_modules():
    for m in SHARED:
        assert graph()[m] <= set(SHARED), f"{m} imports {sorted(graph()[m] - set(SHARED))}"


@pytest.mark.parametrize("module", sorted(PARENT | {"assessments/judge/kinds/cupy/child.py"}))
def test_no_backend_is_named_in_a_comparison(module):
    """What varies by backend is a method or attribute of the Backend (or the child's side),
    never `backend == "cpu"`."""
    tree = ast.parse((REPO_ROOT / module).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            names = {c.value for c in [node.left, *node.comparators] if isinstance(c, ast.Constant)}
            assert not names & set(BACKENDS), f"{module}:{node.lineno}: {ast.unparse(node)}"


def test_every_task_meets_the_judge_task_protocol():
    for task in gpu_tasks.all_tasks():
        assert isinstance(task, Task), task.slug
        assert all(hasattr(a, n) for a in task.args for n in ("name", "role", "dtype"))
        assert all(hasattr(c, n) for cs in task.tests.values() for c in cs for n in ("name", "dims"))


def test_the_core_knows_kinds_only_through_the_registry():
    # engine.py drives every kind through kinds.Kind: it imports the registry, never a kind's
    # folder, and names no kind's tools or task bank.
    core = JUDGE / "engine.py"
    assert "assessments/judge/kinds/__init__.py" in graph()[_rel(core)]
    assert not {d for d in graph()[_rel(core)] if d.startswith("assessments/judge/kinds/") and
                not d.endswith("kinds/__init__.py")}
    text = core.read_text().lower()
    code = "\n".join(ln for ln in text.splitlines() if not ln.strip().startswith(("#", "`")))
    assert "cupy" not in text
    for word in ("gpu_tasks", "nvrtc", "kernel_", "sanitizer", "numpy"):
        assert word not in code, word
    # The sandbox binds what a backend names (its child module, files and site-packages entries).
    sandbox_text = (JUDGE / "sandbox.py").read_text()
    assert "cupy" not in sandbox_text.lower() and "judge/child.py" not in sandbox_text
    registry = JUDGE / "kinds" / "__init__.py"
    assert not {d for d in graph()[_rel(registry)] if "/kinds/" in d and d != _rel(registry)}


CORE = ("engine.py", "outcome.py", "verdicts.py", "report.py", "scoring.py", "sandbox.py",
        "runner.py", "cgroups.py", "seccomp.py", "exec_ban.py", "protocol.py", "compile_stage.py",
        "compile_sandbox.py", "build_cache.py", "listing_text.py", "__init__.py", "__main__.py",
        "kinds/__init__.py")


def test_no_core_module_imports_a_kind():
    # The judge's core: every module outside kinds/<name>/ (the CLI asks the registry for the
    # backends' names); a kind imports the core, never the other way round.
    core = {p for p in JUDGE.rglob("*.py") if "kinds" not in p.relative_to(JUDGE).parts[:-1]
            or p.relative_to(JUDGE).as_posix() == "kinds/__init__.py"}
    assert {p.relative_to(JUDGE).as_posix() for p in core} == set(CORE)
    for path in core:
        assert not {d for d in graph()[_rel(path)] if "/kinds/" in d and not d.endswith("kinds/__init__.py")}, path


def test_every_known_kind_satisfies_the_interface():
    from assessments.judge import kinds

    members = [n for n in vars(kinds.Kind) if not n.startswith("_")]
    for name in kinds.KNOWN:
        kind = kinds.get_kind(name)
        assert kind.name == name and all(callable(getattr(kind, m)) for m in members if m != "name")
    assert kinds.kind_of(gpu_tasks.get_task("vector_add")).name == "cupy"
    with pytest.raises(ValueError):
        kinds.get_kind("verilog-but-not-yet")
