"""The function kinds' layers, read from their imports: the child and what it binds import only
shared modules of the judge (never the task bank or a parent module), and every file the child
imports is bound into its sandbox."""
from __future__ import annotations

import ast

from assessments.judge.kinds.python.backend import CPU
from assessments.judge.sandbox import CHILD_FILES, REPO_ROOT

SHARED = {"assessments/judge/protocol.py", "assessments/judge/exec_ban.py", "assessments/judge/seccomp.py",
          "assessments/__init__.py", "assessments/judge/__init__.py", "assessments/judge/kinds/__init__.py",
          "assessments/judge/kinds/python/__init__.py"}


def _imports(rel: str) -> set[str]:
    path = REPO_ROOT / rel
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = path.parent
            for _ in range(node.level - 1):
                base = base.parent
            mod = base.joinpath(*(node.module or "").split(".")) if node.module else base
            for alias in node.names:
                for cand in (mod / alias.name, mod):
                    for f in (cand.with_suffix(".py"), cand / "__init__.py"):
                        if f.is_file():
                            out.add(f.relative_to(REPO_ROOT).as_posix())
                            break
                    else:
                        continue
                    break
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] in ("gpu_tasks", "assessments")}
    return out


def test_the_child_imports_only_what_is_bound_and_shared():
    bound = set(CHILD_FILES) | set(CPU.child_files)
    for rel in CPU.child_files:
        if rel.endswith("__init__.py"):
            continue
        deps = _imports(rel)
        assert not any(d.startswith("gpu_tasks") for d in deps), rel
        assert deps <= bound, f"{rel} imports what the sandbox does not bind: {deps - bound}"
        assert deps <= SHARED | set(CPU.child_files), f"{rel} imports a parent module: {deps - SHARED}"


def test_the_child_never_names_the_task_bank_or_the_checker():
    for rel in ("assessments/judge/kinds/python/child.py", "assessments/judge/kinds/python/native.py"):
        text = (REPO_ROOT / rel).read_text()
        assert "gpu_tasks" not in text and "reference(" not in text and ".check(" not in text, rel
