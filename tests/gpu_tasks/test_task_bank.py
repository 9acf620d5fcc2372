"""The task bank: registry, contract signatures, generators, references, sizes and costs."""
import ast
import math
from pathlib import Path

import numpy as np
import pytest

import gpu_tasks
from gpu_tasks.base import FLOAT_SENTINEL, INT_SENTINEL, Arg, TestCase, output_like

ROOT = Path(gpu_tasks.__file__).resolve().parent

# solve(...) signatures of ../shared/TASKS.md: (name, role, dtype) in order.
CONTRACT = {
    "vector_add": [("a", "in", "float32"), ("b", "in", "float32"), ("c", "out", "float32"), ("n", "scalar", "int")],
    "relu": [("x", "in", "float32"), ("y", "out", "float32"), ("n", "scalar", "int")],
    "saxpy": [("x", "in", "float32"), ("y", "in", "float32"), ("out", "out", "float32"),
              ("alpha", "scalar", "float"), ("n", "scalar", "int")],
    "matrix_transpose": [("a", "in", "float32"), ("b", "out", "float32"), ("rows", "scalar", "int"),
                         ("cols", "scalar", "int")],
    "reduce_sum": [("x", "in", "float32"), ("out", "out", "float32"), ("n", "scalar", "int")],
    "prefix_sum": [("x", "in", "int32"), ("y", "out", "int32"), ("n", "scalar", "int")],
    "histogram": [("x", "in", "int32"), ("hist", "out", "int32"), ("n", "scalar", "int"), ("bins", "scalar", "int")],
    "matmul": [("a", "in", "float32"), ("b", "in", "float32"), ("c", "out", "float32"), ("m", "scalar", "int"),
               ("n", "scalar", "int"), ("k", "scalar", "int")],
    "softmax": [("x", "in", "float32"), ("y", "out", "float32"), ("rows", "scalar", "int"), ("cols", "scalar", "int")],
    "conv1d": [("x", "in", "float32"), ("w", "in", "float32"), ("y", "out", "float32"), ("n", "scalar", "int"),
               ("k", "scalar", "int")],
    "sgemv": [("a", "in", "float32"), ("x", "in", "float32"), ("y", "out", "float32"), ("m", "scalar", "int"),
              ("n", "scalar", "int")],
    "layer_norm": [("x", "in", "float32"), ("gamma", "in", "float32"), ("beta", "in", "float32"),
                   ("y", "out", "float32"), ("rows", "scalar", "int"), ("cols", "scalar", "int"),
                   ("eps", "scalar", "float")],
}
CONTRACT_CHECK = {
    "vector_add": "allclose", "relu": "exact", "saxpy": "norm", "matrix_transpose": "exact",
    "reduce_sum": "sum_abs", "prefix_sum": "exact", "histogram": "exact", "matmul": "norm",
    "softmax": "allclose", "conv1d": "norm", "sgemv": "norm", "layer_norm": "allclose",
}
# Tolerances of TASKS.md: the bank may only be stricter.
CONTRACT_TOL = {
    "vector_add": {"rtol": 1e-6, "atol": 1e-7}, "saxpy": {"rtol": 1e-6}, "reduce_sum": {"rtol": 1e-4},
    "matmul": {"rtol": 2e-3}, "softmax": {"rtol": 1e-4, "atol": 1e-6}, "conv1d": {"rtol": 1e-5},
    "sgemv": {"rtol": 1e-5}, "layer_norm": {"rtol": 1e-4, "atol": 1e-5},
}
SIZE_DIMS = {"n", "rows", "cols", "m", "k", "seq", "dim"}  # dims that are problem sizes (not `bins`)

ALL = [t.slug for t in gpu_tasks.all_tasks()]
CONTRACT_SLUGS = list(CONTRACT)


def _is_prime(v: int) -> bool:
    return v > 2 and all(v % p for p in range(2, math.isqrt(v) + 1))


def _elements(task, dims) -> int:
    """Array elements a test case moves (from the task's byte count)."""
    return task.cost(dims)[0] // 4


def _small_cases(task, limit=300_000):
    return [c for c in task.cases("cpu") if _elements(task, c.dims) <= limit]


def test_registry_holds_the_twelve_contract_tasks():
    assert set(gpu_tasks.TASKS) >= set(CONTRACT)
    assert [t.slug for t in gpu_tasks.all_tasks()][: len(CONTRACT)] == list(CONTRACT)
    assert gpu_tasks.get_task("matmul") is gpu_tasks.TASKS["matmul"]


def test_unknown_slug_lists_known_tasks():
    with pytest.raises(KeyError, match="vector_add"):
        gpu_tasks.get_task("no_such_task")


@pytest.mark.parametrize("slug", CONTRACT_SLUGS)
def test_signature_and_check_follow_the_contract(slug):
    task = gpu_tasks.get_task(slug)
    assert [(a.name, a.role, a.dtype) for a in task.args] == CONTRACT[slug]
    assert task.check == CONTRACT_CHECK[slug]


@pytest.mark.parametrize("slug", ALL)
def test_task_metadata(slug):
    task = gpu_tasks.get_task(slug)
    assert all(isinstance(a, Arg) for a in task.args)
    assert [a.role for a in task.args] == sorted((a.role for a in task.args), key=("in", "out", "scalar").index)
    assert all(a.dtype in (("float32", "int32") if a.role != "scalar" else ("int", "float")) for a in task.args)
    for key, limit in CONTRACT_TOL.get(slug, {}).items():
        assert task.tolerance[key] <= limit
    assert task.difficulty in ("easy", "medium", "hard")
    assert task.skills and len(set(task.skills)) == len(task.skills)  # ids: test_catalog.py
    assert f"def {task.signature}:" in task.statement
    assert task.statement.startswith("# ")


@pytest.mark.parametrize("slug", ALL)
def test_test_cases_cover_edge_sizes(slug):
    task = gpu_tasks.get_task(slug)
    assert set(task.tests) == {"cpu", "cuda"} and set(task.bench) == {"cpu", "cuda"}
    for backend, cases in task.tests.items():
        assert all(isinstance(c, TestCase) for c in cases)
        assert len({c.name for c in cases}) == len(cases)
        keys = {frozenset(c.dims) for c in cases}
        assert keys == {frozenset(task.bench[backend])}
        sizes = [v for c in cases for k, v in c.dims.items() if k in SIZE_DIMS]
        assert any(all(v == 1 for k, v in c.dims.items() if k in SIZE_DIMS) for c in cases), backend
        assert any(_is_prime(v) for v in sizes), backend
        assert any(v % 32 and v % 256 and v > 32 for v in sizes), backend
        if {"rows", "cols"} <= set(task.bench[backend]):
            assert any(c.dims["rows"] != c.dims["cols"] for c in cases)
        if slug == "matmul":
            assert any(len({c.dims["m"], c.dims["n"], c.dims["k"]}) == 3 for c in cases)
    cpu_big = max(_elements(task, c.dims) for c in task.cases("cpu"))
    cuda_big = max(_elements(task, c.dims) for c in task.cases("cuda"))
    assert cpu_big <= 2 ** 21 and cuda_big > 4 * cpu_big
    if slug == "matmul":
        assert max(math.prod(c.dims.values()) for c in task.cases("cpu")) <= 128 * 96 * 112


@pytest.mark.parametrize("slug", ALL)
def test_generator_is_deterministic_and_fills_outputs_with_sentinels(slug):
    task = gpu_tasks.get_task(slug)
    for case in _small_cases(task):
        one = task.generate(np.random.default_rng(7), case.dims)
        two = task.generate(np.random.default_rng(7), case.dims)
        assert set(one) == set(task.arg_names)
        for arg in task.args:
            v1, v2 = one[arg.name], two[arg.name]
            if arg.role == "scalar":
                assert type(v1) is (int if arg.dtype == "int" else float)
                assert v1 == v2
                continue
            assert isinstance(v1, np.ndarray) and v1.dtype == np.dtype(arg.dtype)
            assert v1.flags.c_contiguous
            np.testing.assert_array_equal(v1, v2)
            if arg.role == "out":
                if arg.dtype == "float32":
                    assert np.isnan(v1).all()
                else:
                    assert (v1 == INT_SENTINEL).all()
            else:
                assert np.isfinite(v1).all()
        for name, value in case.dims.items():
            if name in one:
                assert one[name] == value


@pytest.mark.parametrize("slug", ALL)
def test_generator_differs_between_seeds(slug):
    task = gpu_tasks.get_task(slug)
    case = max(_small_cases(task), key=lambda c: _elements(task, c.dims))
    a = task.generate(np.random.default_rng(1), case.dims)
    b = task.generate(np.random.default_rng(2), case.dims)
    assert any(not np.array_equal(a[x.name], b[x.name]) for x in task.inputs)


@pytest.mark.parametrize("slug", ALL)
def test_reference_shapes_and_cost(slug):
    task = gpu_tasks.get_task(slug)
    for case in _small_cases(task):
        inputs = task.generate(np.random.default_rng(3), case.dims)
        ref = task.reference(inputs)
        assert set(ref) == {a.name for a in task.outputs}
        for arg in task.outputs:
            assert ref[arg.name].shape == inputs[arg.name].shape
            assert ref[arg.name].dtype in (np.float64, np.int64)
            assert np.isfinite(ref[arg.name]).all()
    for dims in [c.dims for cases in task.tests.values() for c in cases] + list(task.bench.values()):
        moved, flops = task.cost(dims)
        assert isinstance(moved, int) and isinstance(flops, int)
        assert moved > 0 and flops >= 0
        if slug != "matrix_transpose":
            assert flops > 0


def _f32(*values):
    return np.array(values, dtype=np.float32)


def test_references_match_direct_numpy():
    T = gpu_tasks.get_task
    np.testing.assert_allclose(T("vector_add").reference({"a": _f32(1, 2, 3), "b": _f32(10, 20, 30)})["c"],
                               [11, 22, 33])
    np.testing.assert_array_equal(T("relu").reference({"x": _f32(-1.5, 0, 2.25)})["y"], [0, 0, 2.25])
    np.testing.assert_allclose(
        T("saxpy").reference({"x": _f32(1, 2), "y": _f32(10, 20), "alpha": 2.0})["out"], [12, 24])
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(T("matrix_transpose").reference({"a": a})["b"], [[0, 3], [1, 4], [2, 5]])
    assert T("reduce_sum").reference({"x": _f32(1.5, -2, 4)})["out"].tolist() == [3.5]
    assert T("reduce_sum").scale({"x": _f32(1.5, -2, 4)}) == 7.5
    x = np.array([3, -1, 4, 1, -5], np.int32)
    assert T("prefix_sum").reference({"x": x})["y"].tolist() == [3, 2, 6, 7, 2]
    h = T("histogram").reference({"x": np.array([2, 0, 2, 3, 2], np.int32), "bins": 5})["hist"]
    assert h.tolist() == [1, 0, 3, 1, 0]
    np.testing.assert_allclose(T("matmul").reference({"a": _f32(1, 2).reshape(1, 2),
                                                      "b": _f32(3, 4).reshape(2, 1)})["c"], [[11]])
    sm = T("softmax").reference({"x": _f32(1, 2, 3, 101, 102, 103).reshape(2, 3)})["y"]
    np.testing.assert_allclose(sm, [[0.0900306, 0.2447285, 0.6652410]] * 2, rtol=1e-6)
    np.testing.assert_allclose(T("conv1d").reference({"x": _f32(1, 2, 3, 4), "w": _f32(1, 0, -1)})["y"], [-2, -2])
    np.testing.assert_allclose(T("sgemv").reference({"a": _f32(1, 2, 3, 4).reshape(2, 2), "x": _f32(1, -1)})["y"],
                               [-1, -1])
    ln = T("layer_norm").reference({"x": _f32(1, 2, 3, 4).reshape(1, 4), "gamma": _f32(1, 1, 1, 1),
                                    "beta": _f32(0, 0, 0, 0), "eps": 1e-5})["y"]
    np.testing.assert_allclose(ln, [[-1.3416354, -0.4472118, 0.4472118, 1.3416354]], rtol=1e-6)


@pytest.mark.parametrize("slug", ALL)
def test_reference_matches_generic_numpy_on_generated_inputs(slug):
    task = gpu_tasks.get_task(slug)
    small = sorted(_small_cases(task, 20_000), key=lambda c: _elements(task, c.dims))
    case = small[len(small) // 2]
    inp = task.generate(np.random.default_rng(11), case.dims)
    got = task.reference(inp)
    d = {k: (v.astype(np.float64) if isinstance(v, np.ndarray) and v.dtype.kind == "f" else v) for k, v in inp.items()}
    if slug == "conv1d":
        k = d["k"]
        want = np.array([d["x"][i:i + k] @ d["w"] for i in range(d["n"] - k + 1)])
        np.testing.assert_allclose(got["y"], want, rtol=1e-12, atol=1e-12)
    elif slug == "histogram":
        want = np.array([(d["x"] == v).sum() for v in range(d["bins"])])
        np.testing.assert_array_equal(got["hist"], want)
    elif slug == "prefix_sum":
        x = d["x"].astype(np.int64)
        np.testing.assert_array_equal(got["y"], [x[: i + 1].sum() for i in range(len(x))])
    elif slug == "layer_norm":
        x = d["x"]
        mu = x.sum(axis=1, keepdims=True) / x.shape[1]
        var = ((x - mu) ** 2).sum(axis=1, keepdims=True) / x.shape[1]
        np.testing.assert_allclose(got["y"], (x - mu) / np.sqrt(var + d["eps"]) * d["gamma"] + d["beta"],
                                   rtol=1e-9, atol=1e-9)
    elif slug == "softmax":
        x = d["x"]
        e = np.exp(x - x.max(axis=1, keepdims=True))
        np.testing.assert_allclose(got["y"], e / e.sum(axis=1, keepdims=True), rtol=1e-12, atol=1e-300)
        assert np.abs(inp["x"]).max() > 88.8  # expf(x) overflows float32 for some entries
    elif slug == "matmul":
        np.testing.assert_allclose(got["c"], np.einsum("ik,kj->ij", d["a"], d["b"]), rtol=1e-9, atol=1e-6)
    elif slug == "sgemv":
        np.testing.assert_allclose(got["y"], np.einsum("ij,j->i", d["a"], d["x"]), rtol=1e-9, atol=1e-9)
    elif slug == "reduce_sum":
        assert got["out"][0] == pytest.approx(math.fsum(d["x"].tolist()), rel=1e-12, abs=1e-9)
    elif slug == "matrix_transpose":
        np.testing.assert_array_equal(got["b"], d["a"].transpose())
    elif slug == "vector_add":
        np.testing.assert_array_equal(got["c"], d["a"] + d["b"])
    elif slug == "relu":
        np.testing.assert_array_equal(got["y"], np.where(d["x"] > 0, d["x"], 0.0))
    elif slug == "saxpy":
        np.testing.assert_allclose(got["out"], d["alpha"] * d["x"] + d["y"], rtol=1e-15)
    elif slug == "conv2d":
        k = d["k"]
        oy, ox = got["y"].shape
        want = np.array([[np.sum(d["x"][i:i + k, j:j + k] * d["w"]) for j in range(ox)] for i in range(oy)])
        np.testing.assert_allclose(got["y"], want, rtol=1e-12, atol=1e-12)
    elif slug == "attention":
        q, kk, v = d["q"], d["k"], d["v"]
        rows = []
        for i in range(d["seq"]):
            s = np.array([q[i] @ kk[j] for j in range(d["seq"])]) / math.sqrt(d["dim"])
            p = np.exp(s - s.max())
            rows.append(p @ v / p.sum())
        np.testing.assert_allclose(got["out"], np.array(rows), rtol=1e-9, atol=1e-12)
    else:
        raise AssertionError(f"no direct computation for {slug}")


def test_generators_make_lazy_answers_fail_and_cover_hard_inputs():
    rng = np.random.default_rng(5)
    relu = gpu_tasks.get_task("relu").generate(rng, {"n": 4099})["x"]
    assert (relu < 0).any() and (relu > 0).any() and (relu == 0).sum() > 100
    assert np.signbit(relu[relu == 0]).any()
    rs = gpu_tasks.get_task("reduce_sum").generate(rng, {"n": 4097})["x"]
    assert (rs < 0).any() and (rs > 0).any() and rs.mean() > 0.1
    ps = gpu_tasks.get_task("prefix_sum").generate(rng, {"n": 4099})["x"]
    assert ps.min() == -100 and ps.max() == 100
    hist = gpu_tasks.get_task("histogram")
    inp = hist.generate(rng, {"n": 4099, "bins": 1000})
    counts = hist.reference(inp)["hist"]
    assert counts.max() > 0.2 * 4099 and (counts == 0).sum() > 100
    assert inp["x"].min() >= 0 and inp["x"].max() < 1000
    sm = gpu_tasks.get_task("softmax").generate(rng, {"rows": 33, "cols": 257})["x"]
    assert sm.max() > 90 and sm.min() < -90 and np.abs(sm).max() <= 100
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(sm)
        naive = e / e.sum(axis=1, keepdims=True)
    assert not np.isfinite(naive).all()
    mm = gpu_tasks.get_task("matmul").generate(rng, {"m": 17, "n": 13, "k": 29})
    with np.errstate(over="ignore"):
        half = (mm["a"].astype(np.float16) @ mm["b"].astype(np.float16))
    assert not np.isfinite(half).all()


def test_output_like():
    assert np.isnan(output_like((2, 3), "float32")).all()
    assert output_like(4, "int32").tolist() == [INT_SENTINEL] * 4
    assert math.isnan(FLOAT_SENTINEL)
    with pytest.raises(ValueError):
        output_like(3, "float64")


def test_tasks_and_cases_are_hashable():
    tasks = gpu_tasks.all_tasks()
    assert len(set(tasks)) == len(tasks)
    assert len({c for t in tasks for cs in t.tests.values() for c in cs}) > len(tasks)


def _solve_params(path: Path):
    tree = ast.parse(path.read_text())
    fns = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "solve"]
    assert len(fns) == 1, path
    return [a.arg for a in fns[0].args.args]


@pytest.mark.parametrize("slug", ALL)
def test_solution_and_raw_starter_have_the_task_signature(slug):
    names = list(gpu_tasks.get_task(slug).arg_names)
    for kind in ("solutions", "starters/raw"):
        path = ROOT / kind / f"{slug}.py"
        assert _solve_params(path) == names, path
        kernels = [n.value for n in ast.walk(ast.parse(path.read_text()))
                   if isinstance(n, ast.Constant) and isinstance(n.value, str) and "__global__" in n.value]
        assert kernels, path
        for macro in ("INFINITY", "FLT_MAX", "INT_MAX", "M_PI"):  # undefined under NVRTC
            assert not any(macro in k for k in kernels), (path, macro)
