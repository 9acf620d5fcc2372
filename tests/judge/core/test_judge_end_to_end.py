"""End to end on the cpu backend: every fixture gets its `# expect:` verdict, every reference
solution is accepted, and the report carries what the judge promises."""
import re
from pathlib import Path

import pytest

from assessments.judge import Limits, Verdict, judge

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = sorted((ROOT / "tests" / "fixtures" / "submissions").glob("*/*.py"))
SOLUTIONS = sorted((ROOT / "gpu_tasks" / "solutions").glob("*.py"))
EMULATOR = ROOT / "assessments" / "judge" / "kinds" / "cupy" / "backends" / "cpu" / "emulator" / "__init__.py"
SHIM = ROOT / "assessments" / "judge" / "kinds" / "cupy" / "backends" / "cpu" / "shim" / "cupy" / "__init__.py"

pytestmark = pytest.mark.skipif(not (EMULATOR.exists() and SHIM.exists()),
                                reason="the cpu backend (emulator and cupy stand-in) is not installed")

# Fixtures expected to run into a limit: the judge has to wait for it (10 to 20 s each).
SLOW_VERDICTS = {"time_limit_exceeded"}
QUICK_LIMITS = Limits(op_wall_s=5.0, kernel_timeout_s=3.0)


def _expect(path: Path) -> str:
    first = path.read_text().splitlines()[0]
    m = re.match(r"#\s*expect:\s*(\w+)", first)
    assert m, f"{path} lacks '# expect: <verdict>' on its first line"
    return m.group(1)


def _param(path: Path, slug: str, expect: str):
    slow = expect in SLOW_VERDICTS
    return pytest.param(path, slug, expect, id=f"{slug}/{path.stem}",
                        marks=[pytest.mark.slow] if slow else [])


def _describe(report) -> str:
    return f"{report.verdict.value}: {report.message}\n{report.details or ''}\n{report.compile_log or ''}"


@pytest.mark.parametrize("path,slug,expect",
                         [_param(p, p.parent.name, _expect(p)) for p in FIXTURES])
def test_fixture_gets_expected_verdict(path, slug, expect):
    # A submission that never ends meets shorter limits than the backend's (20 s a request,
    # 10 s a launch): the verdict is what is tested, not how long the judge waits for it.
    limits = QUICK_LIMITS if expect == "time_limit_exceeded" else None
    report = judge(slug, path.read_text(), backend="cpu", seed=20240611, limits=limits)
    assert report.verdict.value == expect, _describe(report)


@pytest.mark.parametrize("path,slug,expect",
                         [_param(p, p.stem, "accepted") for p in SOLUTIONS if not p.stem.startswith("_")])
def test_reference_solution_accepted(path, slug, expect):
    report = judge(slug, path.read_text(), backend="cpu", seed=7)
    assert report.verdict is Verdict.ACCEPTED, _describe(report)
    # nothing measured; the performance points come from the estimate at the benchmark size
    assert report.timing is None and report.score_detail["estimated"]
    assert report.profile["estimated_us"] > 0 and report.profile["bound"]
    assert report.score == round(60 + 40 * report.profile["roofline_fraction"], 2)
    assert all(t.passed for t in report.tests)


VADD = '''import cupy as cp

_k = cp.RawKernel(r"""
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
""", "vadd")


def solve(a, b, c, n):
    print("launching", n)
    _k(((n + 255) // 256,), (256,), (a, b, c, cp.int32(n)))
'''


def test_accepted_report_contents():
    r = judge("vector_add", VADD, backend="cpu", seed=1)
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    assert r.score_detail["estimated"] and r.score_detail["performance"] > 30   # coalesced, DRAM-bound
    assert r.profile["bound"] == "DRAM" and r.profile["dims"] == {"n": 1 << 25}
    (k,) = r.kernels
    assert k.name == "vadd" and k.kind == "RawKernel" and k.arch == "sm_90"
    assert k.registers and k.registers > 0 and k.spill_bytes == 0
    assert k.block == [256, 1, 1] and k.occupancy == 1.0
    assert "launching" in r.stdout
    assert r.elapsed_s < 30


def test_same_seed_same_report():
    a = judge("vector_add", VADD, backend="cpu", seed=5)
    b = judge("vector_add", VADD, backend="cpu", seed=5)
    assert [t.max_error for t in a.tests] == [t.max_error for t in b.tests]


def test_modified_input_is_wrong_answer():
    src = VADD.replace('    print("launching", n)\n', "    a[0] = 123.0\n")
    r = judge("vector_add", src, backend="cpu", seed=1)
    assert r.verdict is Verdict.WRONG_ANSWER
    assert "modified its input 'a'" in r.message
    assert r.tests[0].mismatches[0].index == [0]


def test_partial_write_reports_mismatches():
    src = VADD.replace("if (i < n)", "if (i < n - 1)")
    r = judge("vector_add", src, backend="cpu", seed=1)
    assert r.verdict is Verdict.WRONG_ANSWER
    failed = next(t for t in r.tests if t.passed is False)
    n = failed.sizes["n"]
    assert failed.mismatches[0].index == [n - 1]
    assert failed.mismatches[0].got != failed.mismatches[0].got  # NaN sentinel never written
    assert "never written" in r.message and "computed them" not in r.message
    assert all(t.passed is None for t in r.tests[r.tests.index(failed) + 1:])


def test_compile_error_maps_to_python_line():
    src = VADD.replace("c[i] = a[i] + b[i];", "c[i] = a[i] + q[i];")
    r = judge("vector_add", src, backend="cpu", seed=1)
    assert r.verdict is Verdict.COMPILE_ERROR
    line = src.splitlines().index('    if (i < n) c[i] = a[i] + q[i];') + 1
    assert f"solution.py:{line}" in r.message, r.message
    assert 'identifier "q" is undefined' in r.compile_log


def test_exception_is_runtime_error_with_line():
    src = VADD.replace('    print("launching", n)\n', "    raise ValueError('boom')\n")
    r = judge("vector_add", src, backend="cpu", seed=1)
    assert r.verdict is Verdict.RUNTIME_ERROR
    assert "ValueError: boom" in r.message and "solution.py:12" in r.message


def test_endless_python_loop_hits_wall_limit():
    src = VADD.replace('    print("launching", n)\n', "    while True:\n        pass\n")
    r = judge("vector_add", src, backend="cpu", seed=1, limits=Limits(op_wall_s=3))
    assert r.verdict is Verdict.TIME_LIMIT_EXCEEDED


def test_huge_allocation_is_memory_limit():
    src = VADD.replace('    print("launching", n)\n', "    big = cp.zeros(1 << 34, dtype=cp.float32)\n")
    r = judge("vector_add", src, backend="cpu", seed=1)
    assert r.verdict is Verdict.MEMORY_LIMIT_EXCEEDED, _describe(r)


def test_wrong_arity_found_statically():
    r = judge("vector_add", "def solve(a, b, c):\n    pass\n", backend="cpu")
    assert r.verdict is Verdict.RUNTIME_ERROR and "solve(a, b, c, n)" in r.message


def test_cub_on_the_emulator_is_a_compile_error_that_says_why():
    source = """import cupy as cp
_k = cp.RawKernel(r\'\'\'
#include <cub/block/block_reduce.cuh>
extern "C" __global__ void reduce_cub(const float* x, float* out, int n) {
    typedef cub::BlockReduce<float, 256> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    float s = 0.0f;
    for (int i = blockIdx.x * 256 + threadIdx.x; i < n; i += 256 * gridDim.x) s += x[i];
    float total = BlockReduce(temp).Sum(s);
    if (threadIdx.x == 0) atomicAdd(out, total);
}
\'\'\', "reduce_cub")

def solve(x, out, n):
    out.fill(0)
    _k((min((n + 255) // 256, 512),), (256,), (x, out, cp.int32(n)))
"""
    r = judge("reduce_sum", source, backend="cpu", seed=1, listings=False)
    assert r.verdict is Verdict.COMPILE_ERROR, _describe(r)
    assert r.message == ("compile error in kernel 'reduce_cub': error: CUB "
                         "(cub/block/block_reduce.cuh) is not available on the CPU emulator: "
                         "write this part with shared memory and warp shuffles, or judge on the "
                         "cuda backend")


def test_a_python_float_for_a_float_parameter_is_named_in_the_wrong_answer():
    source = (ROOT / "tests" / "fixtures" / "submissions" / "saxpy" / "python_float_alpha.py").read_text()
    r = judge("saxpy", source, backend="cpu", seed=1, listings=False)
    assert r.verdict is Verdict.WRONG_ANSWER, _describe(r)
    assert r.message.endswith("note: kernel 'saxpy' got a Python float for its float parameter "
                              "'alpha': CuPy passes it as an 8-byte double, of which the kernel "
                              "reads 4 bytes; pass numpy.float32(alpha) instead")
    fixed = source.replace("(x, y, out, alpha, cp.int32(n))", "(x, y, out, cp.float32(alpha), cp.int32(n))")
    assert fixed != source
    r = judge("saxpy", fixed, backend="cpu", seed=1, listings=False)
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
