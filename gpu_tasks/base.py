"""Task-bank data model: arguments, test cases, tasks and small generator helpers."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

# A quiet NaN with a payload no arithmetic produces: an output element still holding it after
# solve was never written (the judge tells it from a NaN the code computed).
FLOAT_SENTINEL = np.uint32(0x7FC0DEAD).view(np.float32)
INT_SENTINEL = -123456789

ARRAY_DTYPES = ("float32", "int32")
SCALAR_DTYPES = ("int", "float")
ROLES = ("in", "out", "scalar")
DIFFICULTIES = ("easy", "medium", "hard")


@dataclass(frozen=True)
class Arg:
    name: str
    role: str  # "in" | "out" | "scalar"
    dtype: str  # arrays: "float32" | "int32"; scalars: "int" | "float"
    shape: str = ""  # arrays: the statement's shape in the dims, e.g. "(rows, cols)"; scalars: ""


@dataclass(frozen=True)
class TestCase:
    __test__ = False  # keeps pytest from collecting this class

    name: str
    dims: dict

    def __hash__(self) -> int:  # dims is a dict; hash by value so cases can key caches
        return hash((self.name, tuple(sorted(self.dims.items()))))


@dataclass(frozen=True)
class Task:
    slug: str
    title: str
    difficulty: str
    skills: tuple[str, ...]
    statement: str
    args: tuple[Arg, ...]
    tests: dict[str, tuple[TestCase, ...]]
    bench: dict[str, dict]
    check: str
    tolerance: dict
    generate: Callable[[np.random.Generator, dict], dict]
    reference: Callable[[dict], dict]
    cost: Callable[[dict], tuple[int, int]]
    # Optional: inputs -> the `scale` keyword of the "sum_abs" check (e.g. sum(|x|)).
    scale: Optional[Callable[[dict], float]] = field(default=None)
    # Optional: inputs -> the `atol` keyword of the "norm" check (see rounding_atol).
    atol: Optional[Callable[[dict], float]] = field(default=None)
    # Small visible tests a candidate may run any number of times ("Run on samples"); their
    # inputs come from a public seed, so they prove nothing and are never scored.
    samples: tuple[TestCase, ...] = ()
    # The judge's kind of task (assessments/judge/kinds/): CuPy code on arrays.
    kind: str = "cupy"
    # One plain-text line for catalog listings (the statement is the full description).
    summary: str = ""

    def __hash__(self) -> int:  # the dict fields are unhashable; a slug names one task
        return hash(self.slug)

    @property
    def arg_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.args)

    @property
    def inputs(self) -> tuple[Arg, ...]:
        return tuple(a for a in self.args if a.role == "in")

    @property
    def outputs(self) -> tuple[Arg, ...]:
        return tuple(a for a in self.args if a.role == "out")

    @property
    def scalars(self) -> tuple[Arg, ...]:
        return tuple(a for a in self.args if a.role == "scalar")

    @property
    def signature(self) -> str:
        return f"solve({', '.join(self.arg_names)})"

    def cases(self, backend: str) -> tuple[TestCase, ...]:
        return self.tests.get(backend, ())

    @property
    def sample_cases(self) -> tuple[TestCase, ...]:
        """The visible sample tests: the declared ones, else the two smallest CPU tests."""
        return self.samples or self.tests.get("cpu", ())[:2]

    def tolerance_for(self, inputs: dict) -> dict:
        """Keyword arguments for the check on these inputs (adds `scale` where the check needs it)."""
        tol = dict(self.tolerance)
        if self.scale is not None:
            tol["scale"] = float(self.scale(inputs))
        if self.atol is not None:
            tol["atol"] = float(self.atol(inputs))
        return tol


def rounding_atol(reference: Callable[[dict], dict], output: str, factor: float = 1e-6):
    """The norm check's absolute tolerance for outputs that are sums of products (convolution,
    matrix products): `factor` times the norm of the same computation on the inputs' absolute
    values. That is the scale of float32 rounding in each sum (its forward error bound), so an
    output that cancels to nearly zero, as a test with a single output can, is not failed for
    rounding alone; `factor` (1e-6, about 17 units of float32 rounding) keeps the check tight
    wherever the sums do not cancel."""
    def atol(inputs: dict) -> float:
        magnitudes = {k: np.abs(v) if isinstance(v, np.ndarray) else v for k, v in inputs.items()}
        return factor * float(np.linalg.norm(np.ravel(reference(magnitudes)[output])))
    return atol


def output_like(shape, dtype: str) -> np.ndarray:
    """An output buffer filled with the sentinel of its dtype."""
    if dtype == "float32":
        return np.full(shape, FLOAT_SENTINEL, dtype=np.float32)
    if dtype == "int32":
        return np.full(shape, INT_SENTINEL, dtype=np.int32)
    raise ValueError(f"unsupported output dtype {dtype!r}")


def f32(a) -> np.ndarray:
    """C-contiguous float32 copy."""
    return np.ascontiguousarray(a, dtype=np.float32)


def f64(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float64)


def cases(*specs: tuple[str, dict]) -> tuple[TestCase, ...]:
    return tuple(TestCase(name, dict(dims)) for name, dims in specs)


def float32_scalar(value: float) -> float:
    """A Python float that is exactly representable in float32."""
    return float(np.float32(value))


# One element per thread over n elements (vector_add, relu, saxpy): the same GPU sizes and
# benchmark size, so their timings compare directly.
ELEMENTWISE_CUDA_CASES = cases(
    ("tiny", {"n": 1}),
    ("prime", {"n": 1021}),
    ("odd_256", {"n": 1_000_003}),
    ("large", {"n": (1 << 24) + 43}),
)
ELEMENTWISE_BENCH = {"cpu": {"n": 1 << 20}, "cuda": {"n": 1 << 25}}
