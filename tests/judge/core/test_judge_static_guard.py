"""The static screen against changing what was imported, builtins that reach the process, and
numpy's file I/O; ordinary submissions (attribute writes on their own objects) still pass."""
import pytest

from assessments.judge.kinds.cupy.static import imported_names, screen
from assessments.judge.verdicts import Verdict

SOLVE = "\n\ndef solve(a, b, c, n):\n    c[...] = a + b\n"


@pytest.mark.parametrize("source,fragment", [
    ("import cupy as cp\ncp.cuda.Event = None", "cp.cuda.Event"),
    ("import cupy as cp\ncp.cuda.get_elapsed_time = lambda a, b: 0.0", "read-only"),
    ("import cupy as cp\ndef f(self): pass\ncp.RawKernel.__call__ = f", "__call__"),
    ("from cupy import RawKernel\nRawKernel.launch = None", "RawKernel.launch"),
    ("import cupy.cuda as cc\ncc.Event = None", "cc.Event"),
    ("import cupy as cp\nev = cp.cuda.Event\nev.record = None", "ev.record"),
    ("import cupy as cp\nk = cp.cuda\nk.Event = None", "k.Event"),
    ("import numpy as np\ndel np.add", "np.add"),
    ("import numpy as np\nnp.float32 += 1", "np.float32"),
    ("import math\nmath.pi = 3", "math.pi"),
    ("import cupy as cp\nfor cp.x in [1]:\n    pass", "cp.x"),
    ("import cupy as cp\ncp.__dict__['x'] = 1", "__dict__"),
    ("import numpy as np\nnp.core.umath.__dict__.clear()", "__dict__"),
    ("class K:\n    pass\nK.__init__ = None", "__init__"),
    ("import cupy as cp\nsetattr(cp.cuda, 'Event', None)", "setattr"),
    ("import cupy as cp\ndelattr(cp, 'RawKernel')", "delattr"),
    ("x = input()", "input"),
    ("exit(0)", "exit"),
    ("quit()", "quit"),
    ("help(len)", "help"),
    ("import numpy as np\nx = np.load('/etc/passwd')", "load"),
    ("import numpy as np\nx = np.fromfile('/etc/hostname')", "fromfile"),
    ("import numpy as np\nnp.zeros(3).tofile('/tmp/x')", "tofile"),
    ("import numpy as np\nnp.save('/tmp/x', np.zeros(3))", "save"),
    ("import numpy as np\nx = np.memmap('/tmp/x')", "memmap"),
    ("from numpy import fromfile", "fromfile"),
    ("import numpy as np\nx = np.lib.npyio", "npyio"),
    ("import cupy as cp\nx = cp.load('x.npy')", "load"),
])
def test_refused(source, fragment):
    res = screen(source + SOLVE, arity=4)
    assert res.verdict is Verdict.SECURITY_VIOLATION, res
    assert fragment in res.message


OK_SOURCES = [
    # attributes of the submission's own objects
    '''import cupy as cp
_k = cp.RawKernel("extern \\"C\\" __global__ void k(float* x) {}", "k")
_k.max_dynamic_shared_size_bytes = 96 * 1024

class Plan:
    def __init__(self):
        self.block = 256
        self.cache = {}

P = Plan()
P.block = 128
P.cache["x"] = 1
''',
    # writing into arrays, including those made by library calls
    '''import numpy as np
import cupy as cp
buf = np.zeros(4, dtype=np.float32)
buf[0] = 1.0
tmp = cp.empty(4, dtype=cp.float32)
tmp[...] = 0
''',
    # the submission's own names that shadow interactive builtins
    '''def scale(input, help=2):
    return input * help
''',
    # reading module attributes, getattr with a constant name
    '''import cupy as cp
from cupyx import jit
dtype = getattr(cp, "float32")
tid = jit.threadIdx.x
''',
]


@pytest.mark.parametrize("source", OK_SOURCES)
def test_ordinary_code_passes(source):
    res = screen(source + SOLVE, arity=4)
    assert res.ok, res.message


def test_imported_names_follow_plain_aliases():
    import ast
    tree = ast.parse("import cupy as cp\nimport numpy\nfrom math import pi\nev = cp.cuda.Event\n"
                     "arr = cp.zeros(3)\nalias = ev\n")
    assert imported_names(tree) == {"cp", "numpy", "pi", "ev", "alias"}
