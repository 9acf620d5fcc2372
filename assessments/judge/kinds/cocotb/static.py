"""The static screen of a testbench: it parses and stays inside the allow-list.

The first line of defence, not the wall (the sandbox is): a testbench drives and checks a design
through cocotb, and needs nothing that reaches files, processes, the network or the interpreter's
insides; refusing those names what was refused, and makes an escape need more than one trick.
"""
from __future__ import annotations

import ast
import re

from ...outcome import Decided, Outcome
from ...verdicts import Verdict

MAX_SOURCE_BYTES = 256 * 1024

# Top-level modules a testbench may import (their submodules too).
ALLOWED_MODULES = frozenset({
    "cocotb", "random", "math", "cmath", "itertools", "functools", "operator", "collections",
    "dataclasses", "typing", "enum", "abc", "statistics", "string", "re", "fractions", "decimal",
    "numbers", "copy", "heapq", "bisect", "textwrap", "logging", "warnings", "contextlib",
    "__future__",
})
REFUSED_NAMES = frozenset({
    "__import__", "eval", "exec", "compile", "open", "globals", "locals", "vars", "breakpoint",
    "__builtins__", "__loader__", "__spec__", "setattr", "delattr", "memoryview",
    "input", "exit", "quit", "help",
})
# Attributes that reach the OS, other modules or interpreter internals.
REFUSED_ATTRIBUTES = frozenset({
    "environ", "modules", "system", "popen", "spawn", "fork", "_exit", "gi_frame", "gi_code",
    "cr_frame", "cr_code", "ag_frame", "tb_frame", "tb_next", "f_globals", "f_locals",
    "f_builtins", "f_back", "f_code", "co_code",
})
HARMLESS_DUNDERS = frozenset({
    "__init__", "__name__", "__doc__", "__qualname__", "__len__", "__call__", "__getitem__",
    "__setitem__", "__iter__", "__next__", "__aiter__", "__anext__", "__await__", "__enter__",
    "__exit__", "__aenter__", "__aexit__", "__repr__", "__str__", "__eq__", "__hash__",
    "__post_init__", "__contains__", "__bool__", "__int__", "__lt__", "__le__", "__gt__", "__ge__",
    "__ne__", "__add__", "__sub__", "__future__", "__main__",
})
# str.format can walk attributes: "{0.__globals__}".format(f).
_FORMAT_DUNDER = re.compile(r"\{[^{}\s]*\.__\w+__[^{}]*\}")


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__") and name not in HARMLESS_DUNDERS


class _Refused(Exception):
    def __init__(self, message: str, node: ast.AST | None):
        super().__init__(message)
        self.line = getattr(node, "lineno", None)


class _Screen(ast.NodeVisitor):
    def _module(self, path: str, node: ast.AST) -> None:
        top = path.split(".")[0]
        if top not in ALLOWED_MODULES:
            allowed = ", ".join(sorted(m for m in ALLOWED_MODULES if m != "__future__"))
            raise _Refused(f"importing `{path}` is not allowed in a testbench (allowed: {allowed})", node)
        if any(_dunder(p) for p in path.split(".")[1:]):
            raise _Refused(f"importing `{path}` is not allowed", node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._module(alias.name, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            raise _Refused("relative imports are not allowed in a testbench", node)
        self._module(node.module or "", node)
        for alias in node.names:
            if alias.name == "*" or alias.name in REFUSED_NAMES or alias.name in REFUSED_ATTRIBUTES \
                    or _dunder(alias.name):
                raise _Refused(f"importing `{alias.name}` from `{node.module}` is not allowed", node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in REFUSED_NAMES or _dunder(node.id):
            raise _Refused(f"`{node.id}` is not allowed in a testbench", node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in REFUSED_ATTRIBUTES or _dunder(node.attr):
            raise _Refused(f"the attribute `{node.attr}` is not allowed in a testbench", node)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("getattr", "hasattr") and len(node.args) > 1:
            name = node.args[1]
            if isinstance(name, ast.Constant) and isinstance(name.value, str) and \
                    (_dunder(name.value) or name.value in REFUSED_ATTRIBUTES):
                raise _Refused(f"`{func.id}(..., {name.value!r})` is not allowed", node)
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and _FORMAT_DUNDER.search(node.value):
            raise _Refused("a format string that reaches a dunder attribute is not allowed", node)

    def visit_Global(self, node: ast.Global) -> None:
        bad = [n for n in node.names if _dunder(n)]
        if bad:
            raise _Refused(f"`global {bad[0]}` is not allowed", node)


def parse(source: str) -> ast.Module:
    """The testbench's syntax tree; Decided(compile_error) with the line when it does not parse."""
    if len(source.encode()) > MAX_SOURCE_BYTES:
        raise Decided(Outcome(Verdict.COMPILE_ERROR, f"the testbench is over {MAX_SOURCE_BYTES // 1024} KiB"))
    try:
        return ast.parse(source, filename="testbench.py")
    except SyntaxError as exc:
        where = f"line {exc.lineno}: " if exc.lineno else ""
        text = (exc.text or "").rstrip("\n")
        raise Decided(Outcome(Verdict.COMPILE_ERROR, f"{where}{exc.msg}",
                              compile_log=f"testbench.py, line {exc.lineno}\n  {text}\n{exc.msg}"
                              if text else None)) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise Decided(Outcome(Verdict.COMPILE_ERROR, f"the testbench does not parse: {type(exc).__name__}")) from None


def screen(source: str) -> None:
    """Decided(compile_error | security_violation) when the testbench is refused."""
    tree = parse(source)
    try:
        _Screen().visit(tree)
    except _Refused as refused:
        where = f"line {refused.line}: " if refused.line else ""
        raise Decided(Outcome(Verdict.SECURITY_VIOLATION, f"{where}{refused}")) from None
