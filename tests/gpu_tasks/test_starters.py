"""Starters: every style passes the judge's static check, declares its kind of kernel with the task's
types, says how well the style fits, stays far from the reference, and is judged wrong_answer."""
import ast
import difflib
import os
import re

import pytest

import gpu_tasks
from assessments.judge import Verdict, judge
from assessments.judge.kinds.cupy import static
from gpu_tasks import STYLES, reference_source, starter

ALL = [t.slug for t in gpu_tasks.all_tasks()]
PAIRS = [(style, slug) for style in STYLES for slug in ALL]

# What each style's starter declares, and the name its fit comment uses.
DECLARATION = {
    "raw": r"cp\.Raw(Kernel|Module)\(", "elementwise": r"cp\.ElementwiseKernel\(",
    "reduction": r"cp\.ReductionKernel\(", "jit": r"@jit\.rawkernel\(\)", "array": None,
}
FIT_NAME = {"elementwise": "ElementwiseKernel", "reduction": "ReductionKernel", "jit": "cupyx.jit",
            "array": "Array-level CuPy"}
# Style and task pairs where the starter must warn that the style fits poorly.
POOR = {
    "elementwise": {"reduce_sum", "prefix_sum", "softmax", "layer_norm", "attention"},
    "reduction": {"vector_add", "relu", "saxpy", "matrix_transpose", "prefix_sum", "histogram", "conv1d",
                  "conv2d"},
}
# One judged starter per style (judging takes 0.5 to 3 s each); the rest are checked statically.
# KERNELPATH_JUDGE_ALL_STARTERS=1 judges all of them (about two minutes on two cores).
JUDGED = {("raw", "prefix_sum"), ("elementwise", "histogram"), ("reduction", "softmax"),
          ("jit", "matrix_transpose"), ("array", "attention")}
JUDGE_ALL = os.environ.get("KERNELPATH_JUDGE_ALL_STARTERS") == "1"
NVRTC_MISSING_MACROS = ("INFINITY", "FLT_MAX", "INT_MAX", "M_PI")


def _code_lines(source: str) -> list[str]:
    """Lines without comments (Python or C) and whitespace."""
    lines = (re.sub(r"\s+", "", re.sub(r"(#|//).*$", "", line)) for line in source.splitlines())
    return [line for line in lines if line]


def _work_lines(task, source: str) -> set[str]:
    """Lines of a solution that produce output: stores into an output, atomics, accumulations."""
    outs = "|".join(a.name for a in task.outputs)
    store = re.compile(rf"\b({outs})\s*\[[^\]]*\](\[[^\]]*\])?[-+*/]?=(?!=)|atomicAdd|\+=|out=")
    return {line for line in _code_lines(source) if store.search(line)}


def _declared_params(source: str) -> list[tuple[str, str]]:
    """(dtype, name) of every parameter in the ElementwiseKernel/ReductionKernel declarations."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") in ("ElementwiseKernel", "ReductionKernel"):
            for arg in node.args[:2]:
                for param in arg.value.split(","):
                    *_, dtype, name = param.split()
                    found.append((dtype, name))
    return found


@pytest.mark.parametrize("style,slug", PAIRS)
def test_starter_passes_the_static_check_with_the_solve_signature(style, slug):
    task = gpu_tasks.get_task(slug)
    source = starter(slug, style)
    result = static.screen(source, arity=len(task.args), arg_names=task.arg_names, filename="solution.py")
    assert result.ok and result.solve_found, result.message
    tree = ast.parse(source)
    solves = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "solve"]
    assert [a.arg for a in solves[0].args.args] == list(task.arg_names)
    assert "import cupy as cp" in source and "TODO" in source


@pytest.mark.parametrize("style,slug", PAIRS)
def test_starter_declares_its_style_of_kernel_with_the_task_types(style, slug):
    task = gpu_tasks.get_task(slug)
    source = starter(slug, style)
    pattern = DECLARATION[style]
    kinds = [p for s, p in DECLARATION.items() if p and s != style]
    if pattern:
        assert re.search(pattern, source), "the style's kernel is not declared"
    assert not any(re.search(p, source) for p in kinds), "declares another style's kernel"
    if style != "raw":
        fit = re.search(rf"{re.escape(FIT_NAME[style])} fits (this task |a part |the )?(\w+)", source)
        assert fit, "no comment saying how well the style fits"
        assert (fit.group(2) == "poorly") == (slug in POOR.get(style, set())), fit.group(0)
    dtypes = {a.name: a.dtype for a in task.args if a.role != "scalar"}
    for dtype, name in _declared_params(source):
        assert dtype in ("float32", "int32"), (name, dtype)
        assert dtypes.get(name, dtype) == dtype, (name, dtype)
    strings = [n.value for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    assert not any(m in s for s in strings for m in NVRTC_MISSING_MACROS)


@pytest.mark.parametrize("style,slug", PAIRS)
def test_starter_is_far_from_the_reference(style, slug):
    task = gpu_tasks.get_task(slug)
    source, reference = starter(slug, style), reference_source(slug)
    assert source != reference
    assert not _work_lines(task, reference) & set(_code_lines(source))
    ratio = difflib.SequenceMatcher(None, "\n".join(_code_lines(source)), "\n".join(_code_lines(reference)),
                                    autojunk=False).ratio()
    assert ratio < 0.9


@pytest.mark.slow  # 0.5 to 4 s per judged starter
@pytest.mark.parametrize("style,slug", PAIRS)
def test_starter_is_judged_wrong_answer(style, slug):
    if (style, slug) not in JUDGED and not JUDGE_ALL:
        pytest.skip("judged only with KERNELPATH_JUDGE_ALL_STARTERS=1")
    report = judge(slug, starter(slug, style), backend="cpu", seed=11)
    assert report.verdict is Verdict.WRONG_ANSWER, f"{report.verdict.value}: {report.message}"
    assert not report.compile_log
