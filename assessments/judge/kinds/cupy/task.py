"""What the judge needs of a task: the contract between the judge and the task bank.

`gpu_tasks.base.Task` satisfies it (its `generate`, `reference` and `cost` are fields holding
functions); a test may pass any object that does. The judge reads nothing else of a task, and
the child sees none of it: it gets the inputs of the test at hand and the argument list.
"""
from __future__ import annotations

from typing import Mapping, Protocol, runtime_checkable

import numpy as np


class Argument(Protocol):
    """One parameter of `solve`, in call order."""

    name: str
    role: str     # "in" (must come back unchanged) | "out" (compared) | "scalar"
    dtype: str    # arrays: "float32" | "int32"; scalars: "int" | "float"


class Case(Protocol):
    """One test: a name and the sizes its inputs are generated at."""

    name: str
    dims: Mapping[str, int]


@runtime_checkable
class Task(Protocol):
    slug: str
    args: tuple[Argument, ...]
    tests: Mapping[str, tuple[Case, ...]]    # by backend name: the hidden tests
    bench: Mapping[str, Mapping[str, int]]   # by backend name: the timing size (cuda)
    check: str                               # the comparator's name in comparators.COMPARATORS

    @property
    def sample_cases(self) -> tuple[Case, ...]:
        """The visible sample tests ("Run on samples")."""
        ...

    def generate(self, rng: np.random.Generator, dims: dict) -> dict:
        """One input set: every argument by name."""
        ...

    def reference(self, inputs: dict) -> dict:
        """The expected outputs by name (float64 or int64)."""
        ...

    def cost(self, dims: dict) -> tuple[int, int]:
        """(compulsory bytes, FLOPs) at these sizes: the roofline's workload."""
        ...

    def tolerance_for(self, inputs: dict) -> dict:
        """Keyword arguments for the comparator on these inputs."""
        ...
