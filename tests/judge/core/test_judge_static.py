"""The static screen: syntax, solve's arity, and every kind of refusal."""
import pytest

from assessments.judge.kinds.cupy.static import ALLOWED_MODULES, screen
from assessments.judge.verdicts import Verdict

GOOD = '''
import cupy as cp
import numpy as np
import math, functools, itertools, operator, typing, dataclasses, collections
from cupyx import jit
from collections import defaultdict

_k = cp.RawKernel(r"""
extern "C" __global__ void k(const float* a, float* b, int n) {
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = a[i];
}
""", "k")


class Helper:
    def __init__(self):
        self._cache = {}

    def __call__(self, x):
        return getattr(x, "shape")


def solve(a, b, n):
    if __name__ == "x":
        pass
    _k(((n + 255) // 256,), (256,), (a, b, cp.int32(n)))
'''


def test_good_submission_passes():
    res = screen(GOOD, arity=3)
    assert res.ok and res.solve_found


def test_syntax_error_is_compile_error_with_line():
    res = screen("import cupy\n\ndef solve(a, b:\n    pass\n", arity=2)
    assert res.verdict is Verdict.COMPILE_ERROR
    assert res.line == 3
    assert "solution.py:3" in res.message


@pytest.mark.parametrize("params,arity,ok", [
    ("a, b, c, n", 4, True),
    ("a, b, c", 4, False),
    ("a, b, c, n, extra", 4, False),
    ("a, b, c, n, extra=1", 4, True),
    ("*args", 4, True),
    ("a, *rest", 4, True),
    ("a, b, c, n, *, k", 4, False),
    ("a, b, c, n, *, k=2", 4, True),
])
def test_arity(params, arity, ok):
    res = screen(f"def solve({params}):\n    pass\n", arity=arity, arg_names=("a", "b", "c", "n"))
    assert res.ok is ok
    if not ok:
        assert res.verdict is Verdict.RUNTIME_ERROR
        assert "solve(a, b, c, n)" in res.message


def test_missing_solve():
    res = screen("import cupy\n\ndef solver(a):\n    pass\n", arity=1)
    assert res.verdict is Verdict.RUNTIME_ERROR
    assert "no function solve" in res.message


def test_solve_bound_otherwise_is_left_to_the_child():
    res = screen("import functools\ndef f(a, b):\n    pass\nsolve = functools.partial(f, 1)\n", arity=1)
    assert res.ok and not res.solve_found


def test_async_solve_refused():
    res = screen("async def solve(a):\n    pass\n", arity=1)
    assert res.verdict is Verdict.RUNTIME_ERROR


@pytest.mark.parametrize("source,fragment", [
    ("import os", "'os'"),
    ("import sys", "'sys'"),
    ("import subprocess", "'subprocess'"),
    ("import ctypes", "'ctypes'"),
    ("import importlib", "'importlib'"),
    ("import builtins", "'builtins'"),
    ("import pickle", "'pickle'"),
    ("import socket", "'socket'"),
    ("from os import path", "'os'"),
    ("from os.path import join", "'os.path'"),
    ("import numpy.ctypeslib", "ctypeslib"),
    ("from numpy import ctypeslib", "ctypeslib"),
    ("import numpy.testing", "testing"),
    ("from cupy import *", "import *"),
    ("from . import x", "relative"),
    ("import math.foo", "only the module"),
    ("__import__('os')", "__import__"),
    ("eval('1')", "eval"),
    ("exec('x = 1')", "exec"),
    ("compile('1', 'f', 'eval')", "compile"),
    ("open('/etc/passwd')", "open"),
    ("globals()", "globals"),
    ("locals()", "locals"),
    ("vars()", "vars"),
    ("breakpoint()", "breakpoint"),
    ("x = __builtins__", "__builtins__"),
    ("x = ().__class__.__base__.__subclasses__()", "__subclasses__"),
    ("def f(): pass\nx = f.__globals__", "__globals__"),
    ("def f(): pass\nx = f.__code__", "__code__"),
    ("x = [].__class__", "__class__"),
    ("import dataclasses\nx = dataclasses.sys", "'sys'"),
    ("import typing\nx = typing.os", "'os'"),
    ("import cupy\ncupy._kp_checking = False", "_kp_checking"),
    ("x = getattr(object, '__subclasses__')", "__subclasses__"),
    ("name = 'x'\nx = getattr(object, name)", "computed attribute"),
    ("x = setattr(object, 'a' + 'b', 1)", "computed attribute"),
    ("import dataclasses\nx = getattr(dataclasses, 'sys')", "'sys'"),
    ("def f(): pass\nx = '{0.__globals__}'.format(f)", "format strings"),
    ("def f(): pass\nx = f'{f.__globals__}'", "__globals__"),
    ("def g():\n    yield 1\nx = g().gi_frame.f_globals", "f_globals"),
    ("k = '#include \"/etc/passwd\"'", "#include"),
    ("k = '#include <../../secret.h>'", "#include"),
])
def test_refusals(source, fragment):
    res = screen(source + "\n\ndef solve(a):\n    pass\n", arity=1)
    assert res.verdict is Verdict.SECURITY_VIOLATION, res
    assert fragment in res.message
    assert res.line is not None


def test_refused_import_inside_function():
    res = screen("def solve(a):\n    import os\n    os.system('true')\n", arity=1)
    assert res.verdict is Verdict.SECURITY_VIOLATION
    assert res.line == 2


def test_security_is_checked_before_arity():
    res = screen("import os\ndef solve():\n    pass\n", arity=3)
    assert res.verdict is Verdict.SECURITY_VIOLATION


def test_allow_list_is_short():
    assert {"cupy", "cupyx", "numpy", "math"} <= ALLOWED_MODULES
    assert not {"os", "sys", "subprocess", "ctypes", "pickle"} & ALLOWED_MODULES


def test_library_includes_and_cuda_keywords_are_fine():
    src = ('K = r"""#include <cuda_fp16.h>\n#include <cooperative_groups.h>\n'
           '__global__ void k() { __shared__ float s[4]; __syncthreads(); }"""\n'
           'def solve(a):\n    pass\n')
    assert screen(src, arity=1).ok


def test_oversized_file():
    res = screen("x = 1\n" * 60000 + "def solve(a):\n    pass\n", arity=1)
    assert res.verdict is Verdict.COMPILE_ERROR
    assert "larger than" in res.message


def test_solve_defined_conditionally_is_left_to_the_child():
    res = screen("try:\n    def solve(a):\n        pass\nexcept Exception:\n    pass\n", arity=1)
    assert res.ok and not res.solve_found
