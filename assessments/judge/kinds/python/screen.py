"""The static screen of a Python function submission: it parses, defines the task's function, and
stays inside the allow-list. The first line of defence, not the wall (the sandbox is): it refuses
what no function task needs, and its message names what was refused."""
from __future__ import annotations

import ast

from ...outcome import Decided, Outcome
from ...verdicts import Verdict

MAX_SOURCE_BYTES = 256 * 1024
# Top-level modules a submission may import: computation only, nothing that reaches the OS.
ALLOWED_MODULES = frozenset({
    "numpy", "math", "cmath", "collections", "itertools", "functools", "heapq", "bisect", "array",
    "typing", "dataclasses", "enum", "operator", "statistics", "fractions", "decimal", "random",
    "re", "string", "copy", "abc", "numbers", "__future__",
})
REFUSED_NAMES = frozenset({
    "__import__", "eval", "exec", "compile", "open", "globals", "locals", "vars", "breakpoint",
    "__builtins__", "__loader__", "__spec__", "setattr", "delattr", "input", "memoryview",
})
# numpy's files, loaders and C bridges; frames and code objects; the interpreter's module table.
REFUSED_ATTRIBUTES = frozenset({
    "load", "save", "savez", "savez_compressed", "savetxt", "loadtxt", "genfromtxt", "fromfile",
    "tofile", "fromregex", "memmap", "open_memmap", "DataSource", "npyio", "ctypeslib", "ctypes",
    "f2py", "testing", "distutils", "system", "popen", "environ", "modules",
    "gi_frame", "gi_code", "cr_frame", "cr_code", "ag_frame", "tb_frame", "tb_next", "f_globals",
    "f_locals", "f_builtins", "f_back", "f_code", "co_code",
})
HARMLESS_DUNDERS = frozenset({
    "__init__", "__name__", "__doc__", "__qualname__", "__len__", "__call__", "__getitem__",
    "__setitem__", "__iter__", "__next__", "__enter__", "__exit__", "__repr__", "__str__", "__eq__",
    "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__contains__", "__post_init__", "__slots__",
})


def _dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _refuse(message: str, node: ast.AST | None) -> Decided:
    line = getattr(node, "lineno", None)
    at = f"line {line}: " if line else ""
    return Decided(Outcome(Verdict.SECURITY_VIOLATION, f"{at}{message}"))


def screen(source: str, function: str) -> None:
    """Decided (compile_error, security_violation, runtime_error) when the source is refused."""
    if len(source.encode()) > MAX_SOURCE_BYTES:
        raise Decided(Outcome(Verdict.COMPILE_ERROR, f"the file is over {MAX_SOURCE_BYTES // 1024} KiB"))
    try:
        tree = ast.parse(source, filename="solution.py")
    except SyntaxError as exc:
        raise Decided(Outcome(Verdict.COMPILE_ERROR, f"line {exc.lineno}: {type(exc).__name__}: {exc.msg}",
                              compile_log=f'File "solution.py", line {exc.lineno}\n  {(exc.text or "").rstrip()}\n'
                                          f"{type(exc).__name__}: {exc.msg}")) from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                _check_module(alias.name, node)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                raise _refuse("relative imports are not allowed: the submission is one file", node)
            _check_module(node.module or "", node)
            for alias in node.names:
                if alias.name in REFUSED_ATTRIBUTES or _dunder(alias.name) or alias.name == "*":
                    raise _refuse(f"importing `{alias.name}` from {node.module} is not allowed", node)
        elif isinstance(node, ast.Name) and node.id in REFUSED_NAMES:
            raise _refuse(f"`{node.id}` is not allowed in a submission", node)
        elif isinstance(node, ast.Attribute):
            name = node.attr
            if name in REFUSED_ATTRIBUTES or (_dunder(name) and name not in HARMLESS_DUNDERS):
                raise _refuse(f"the attribute `{name}` is not allowed in a submission", node)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in ("getattr", "hasattr") and len(node.args) >= 2:
            attr = node.args[1]
            if not (isinstance(attr, ast.Constant) and isinstance(attr.value, str)) or \
                    attr.value in REFUSED_ATTRIBUTES or _dunder(attr.value):
                raise _refuse(f"`{node.func.id}` with a computed or refused attribute name is not allowed", node)
    if not _defines(tree, function):
        raise Decided(Outcome(Verdict.RUNTIME_ERROR, f"the file defines no function `{function}` at its top level "
                                                     "(the task calls it by that name)"))


def _check_module(path: str, node: ast.AST) -> None:
    top = path.split(".")[0]
    if top not in ALLOWED_MODULES or any(p in REFUSED_ATTRIBUTES for p in path.split(".")[1:]):
        allowed = ", ".join(sorted(m for m in ALLOWED_MODULES if not m.startswith("_")))
        raise _refuse(f"importing {path} is not allowed (allowed: {allowed})", node)


def _defines(tree: ast.Module, name: str) -> bool:
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and \
                any((a.asname or a.name) == name for a in node.names):
            return True
        if isinstance(node, (ast.If, ast.Try)):   # a definition under a guard
            if any(_defines(ast.Module(body=b, type_ignores=[]), name)
                   for b in (node.body, getattr(node, "orelse", []), *[h.body for h in getattr(node, "handlers", [])])):
                return True
    return False
