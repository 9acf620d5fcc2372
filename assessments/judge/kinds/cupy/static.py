"""The static screen of a submission's source: it parses, defines `solve`, and stays inside the
allow-list.

This is the first line of defence, not the wall (the sandbox is): it refuses what no kernel
submission needs, so that escapes need more than one trick and the message names what was refused.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from ...verdicts import Verdict

MAX_SOURCE_BYTES = 256 * 1024

# Top-level modules a submission may import (submodules of cupy, cupyx and numpy included).
ALLOWED_MODULES = frozenset({
    "cupy", "cupyx", "numpy", "math", "functools", "itertools", "operator", "typing",
    "dataclasses", "collections", "__future__",
})
# Submodule or imported names that reach the OS, raw memory or a compiler toolchain.
REFUSED_MEMBERS = frozenset({
    "os", "sys", "subprocess", "ctypes", "ctypeslib", "builtins", "importlib", "f2py", "distutils",
    "testing", "load_library", "system", "popen", "_environment", "cuda_path",
})
REFUSED_NAMES = frozenset({
    "__import__", "eval", "exec", "compile", "open", "globals", "locals", "vars", "breakpoint",
    "__builtins__", "__loader__", "__spec__", "setattr", "delattr",
})
# Interactive builtins: refused as builtins, fine as the submission's own names (a parameter `input`).
INTERACTIVE_BUILTINS = frozenset({"input", "exit", "quit", "help", "copyright", "credits", "license"})
# numpy and CuPy read and write files too (and unpickle): no kernel submission needs that.
FILE_MEMBERS = frozenset({
    "load", "save", "savez", "savez_compressed", "savetxt", "loadtxt", "genfromtxt", "fromfile",
    "tofile", "fromregex", "memmap", "open_memmap", "DataSource", "npyio", "dump",
})
REFUSED_ATTRIBUTES = REFUSED_MEMBERS | FILE_MEMBERS | frozenset({
    "gi_frame", "gi_code", "cr_frame", "cr_code", "ag_frame", "tb_frame", "tb_next", "f_globals",
    "f_locals", "f_builtins", "f_back", "f_code", "co_code", "environ", "modules",
})
# Dunders that only reach the object itself, not interpreter internals.
HARMLESS_DUNDERS = frozenset({
    "__init__", "__name__", "__doc__", "__qualname__", "__len__", "__call__", "__getitem__",
    "__setitem__", "__iter__", "__next__", "__enter__", "__exit__", "__repr__", "__str__",
    "__post_init__", "__cuda_array_interface__", "__array_interface__",
})
_ATTR_FUNCS = frozenset({"getattr", "setattr", "delattr", "hasattr"})
# str.format can walk attributes: "{0.__globals__}".format(f).
_FORMAT_DUNDER = re.compile(r"\{[^{}\s]*\.__\w+__[^{}]*\}")
_BAD_INCLUDE = re.compile(r'#\s*include\s*[<"](?:/|~|[^>"]*\.\./)')


@dataclass(frozen=True)
class StaticResult:
    """None verdict means the source passed; otherwise the verdict, a message and a line."""

    verdict: Verdict | None
    message: str = ""
    line: int | None = None
    solve_found: bool = False

    @property
    def ok(self) -> bool:
        return self.verdict is None


class _Refusal(Exception):
    def __init__(self, message: str, node: ast.AST | None):
        super().__init__(message)
        self.message = message
        self.line = getattr(node, "lineno", None)


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _check_module_path(path: str, node: ast.AST) -> None:
    parts = path.split(".")
    if parts[0] not in ALLOWED_MODULES:
        allowed = ", ".join(sorted(m for m in ALLOWED_MODULES if m != "__future__"))
        raise _Refusal(f"import of '{path}' is not allowed (allowed: {allowed})", node)
    bad = [p for p in parts[1:] if p in REFUSED_MEMBERS or _is_dunder(p)]
    if bad:
        raise _Refusal(f"import of '{path}' is not allowed ('{bad[0]}' is refused)", node)
    if len(parts) > 1 and parts[0] not in ("cupy", "cupyx", "numpy", "collections"):
        raise _Refusal(f"import of '{path}' is not allowed (only the module itself)", node)


def _root(node: ast.AST) -> str | None:
    """The name an attribute/subscript chain starts from: `cp` for cp.cuda.Event or cp.x[0]."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _bound_names(target: ast.AST) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for elt in target.elts for n in _bound_names(elt)]
    return []


def imported_names(tree: ast.AST) -> set[str]:
    """Names bound to imported modules or their members, and plain aliases of those
    (`ev = cp.cuda.Event`), wherever they are bound: their attributes are not the submission's."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names)
    assigns = [(n.targets if isinstance(n, ast.Assign) else [n.target], n.value)
               for n in ast.walk(tree)
               if isinstance(n, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and n.value is not None]
    changed = True
    while changed:
        changed = False
        for targets, value in assigns:
            if _root(value) in names:
                for name in (n for t in targets for n in _bound_names(t)):
                    if name not in names:
                        names.add(name)
                        changed = True
    return names


def own_names(tree: ast.AST) -> set[str]:
    """Every name the submission binds itself (assignments, parameters, defs, imports)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


class _Visitor(ast.NodeVisitor):
    def __init__(self, imported: set[str] = frozenset(), own: set[str] = frozenset()):
        self.imported = imported
        self.own = own

    def _check_store(self, node: ast.Attribute | ast.Subscript) -> None:
        """Assigning or deleting attributes of imported modules (cp.cuda.Event = X) or dunders."""
        if not isinstance(node.ctx, (ast.Store, ast.Del)):
            return
        if isinstance(node, ast.Attribute) and _is_dunder(node.attr):
            raise _Refusal(f"assigning or deleting attribute '{node.attr}' is not allowed", node)
        root = _root(node.value)
        if root in self.imported:
            raise _Refusal(f"changing '{ast.unparse(node)}' is not allowed: imported modules and "
                           f"what they define are read-only", node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self._check_store(node)
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            _check_module_path(alias.name, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            raise _Refusal("relative imports are not allowed", node)
        _check_module_path(node.module or "", node)
        for alias in node.names:
            if alias.name == "*":
                raise _Refusal(f"'from {node.module} import *' is not allowed", node)
            if (alias.name in REFUSED_MEMBERS or alias.name in FILE_MEMBERS
                    or alias.name in REFUSED_NAMES or _is_dunder(alias.name)):
                raise _Refusal(f"importing '{alias.name}' from '{node.module}' is not allowed", node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in REFUSED_NAMES or (_is_dunder(node.id) and node.id not in ("__name__", "__doc__")):
            raise _Refusal(f"use of '{node.id}' is not allowed", node)
        if node.id in INTERACTIVE_BUILTINS and node.id not in self.own:
            raise _Refusal(f"use of '{node.id}' is not allowed", node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._check_store(node)
        self._check_attr(node.attr, node)
        self.generic_visit(node)

    def _check_attr(self, attr: str, node: ast.AST) -> None:
        if attr in REFUSED_ATTRIBUTES or attr.startswith("_kp"):
            raise _Refusal(f"access to attribute '{attr}' is not allowed", node)
        if _is_dunder(attr) and attr not in HARMLESS_DUNDERS:
            raise _Refusal(f"access to attribute '{attr}' is not allowed", node)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id in _ATTR_FUNCS and len(node.args) >= 2:
            name = node.args[1]
            if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                raise _Refusal(f"{node.func.id}() with a computed attribute name is not allowed", node)
            self._check_attr(name.value, node)
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str):
            if _FORMAT_DUNDER.search(node.value):
                raise _Refusal("format strings that reach dunder attributes are not allowed", node)
            if _BAD_INCLUDE.search(node.value):
                raise _Refusal("#include of a file path is not allowed (only library headers)", node)

    def visit_Global(self, node: ast.Global) -> None:
        if any(_is_dunder(n) for n in node.names):
            raise _Refusal("rebinding dunder globals is not allowed", node)


def _accepts(fn: ast.FunctionDef, arity: int) -> bool:
    a = fn.args
    positional = len(a.posonlyargs) + len(a.args)
    required = positional - len(a.defaults)
    if any(d is None for d in a.kw_defaults):
        return False  # keyword-only parameters without defaults can never be filled
    if a.vararg is not None:
        return arity >= required
    return required <= arity <= positional


def _params(fn: ast.FunctionDef) -> int:
    return len(fn.args.posonlyargs) + len(fn.args.args)


def screen(source: str, arity: int | None = None, arg_names: tuple[str, ...] = (),
           filename: str = "solution.py") -> StaticResult:
    """Screen `source` before any of it runs; `arity` is how many arguments the task passes to
    solve. A result with a verdict refuses the file."""
    if len(source.encode("utf-8", errors="replace")) > MAX_SOURCE_BYTES:
        return StaticResult(Verdict.COMPILE_ERROR,
                            f"the file is larger than {MAX_SOURCE_BYTES // 1024} KiB")
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        where = f"{filename}:{exc.lineno}" if exc.lineno else filename
        return StaticResult(Verdict.COMPILE_ERROR, f"syntax error at {where}: {exc.msg}", exc.lineno)
    except (ValueError, RecursionError) as exc:
        return StaticResult(Verdict.COMPILE_ERROR, f"the file cannot be parsed: {exc}")
    try:
        _Visitor(imported_names(tree), own_names(tree)).visit(tree)
    except _Refusal as r:
        where = f" ({filename}:{r.line})" if r.line else ""
        return StaticResult(Verdict.SECURITY_VIOLATION, f"{r.message}{where}", r.line)
    except RecursionError:
        return StaticResult(Verdict.COMPILE_ERROR, "the file is nested too deeply to check")

    signature = f"solve({', '.join(arg_names)})" if arg_names else "solve(...)"
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.name == "solve"]
    if not defs:
        if _binds_solve_otherwise(tree):
            return StaticResult(None, solve_found=False)  # e.g. solve = some_kernel: checked at load
        return StaticResult(Verdict.RUNTIME_ERROR,
                            f"the file defines no function {signature} at module level")
    fn = defs[-1]
    if isinstance(fn, ast.AsyncFunctionDef):
        return StaticResult(Verdict.RUNTIME_ERROR, "solve must be a plain function, not async",
                            fn.lineno)
    if arity is not None and not _accepts(fn, arity):
        return StaticResult(
            Verdict.RUNTIME_ERROR,
            f"solve takes {_params(fn)} parameter(s) but the judge calls {signature} "
            f"with {arity} ({filename}:{fn.lineno})", fn.lineno)
    return StaticResult(None, solve_found=True)


def _binds_solve_otherwise(tree: ast.Module) -> bool:
    """Whether `solve` is bound anywhere other than a top-level def (the child then decides)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == "solve":
            return True
        if isinstance(node, ast.Name) and node.id == "solve" and isinstance(node.ctx, ast.Store):
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((a.asname or a.name) == "solve" for a in node.names):
                return True
    return False
