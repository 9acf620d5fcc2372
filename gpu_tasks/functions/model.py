"""A function task (kinds `python` and `cpp`): one function with a fixed name and signature,
called by the judge on hidden inputs and checked against the task's trusted logic.

The task object is what the catalog may serve (statement, signatures, starters, samples' sizes).
The trusted logic lives beside it in the task's module, `gpu_tasks/functions/<slug>.py`, and is
never served:

    TASK                                  the FunctionTask
    generate(rng, dims) -> list[dict]     one test's calls: each the function's arguments by name
                                          (numpy arrays, ints, floats, strings, lists, dicts)
    reference(args) -> expected           the right answer to one call
    check(args, expected, actual)         None when `actual` is right, else one sentence a person
          -> str | None                   understands (which field, expected vs actual, the
                                          likely mistake)
    quality(args, actual) -> float        optional: the contract's quality measure of one answer
    CPP = CppCall(...)                    for a task taking C++: how a call's arguments become
                                          the `extern "C"` function's parameters and its outputs
                                          the answer (`to_cpp`, `from_cpp`)
    CPP_REFERENCE                         optional: a C++ reference source (timed against C++
                                          submissions)
    MANY_ANSWERS = True                   optional: several answers are right (a placement, a
                                          schedule); a report shows the judge's as one of them

`gpu_tasks.functions.logic(slug)` is that module.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Callable

from ..base import TestCase

TRACKS = ("architecture_modeling", "infrastructure")
LANGUAGES = ("python", "cpp")
PERFORMANCE = ("time", "quality")


@dataclass(frozen=True)
class CppParam:
    """One parameter of the C function, in order. `type` is one of
    int32, int64, uint64, double: a scalar from the argument `name`;
    in:<t> (t: uint8, int32, int64, uint64, double): a read-only array from the argument `name`;
    len:<name>: the length (int64) of the array argument `name`;
    out:<t>[N]: an output array of N elements the function fills (zeroed before the call)."""

    name: str
    type: str


@dataclass(frozen=True)
class CppCall:
    """How a call in C++ is made: the parameters, and the task's conversions. `to_cpp(args)`
    gives every scalar and array parameter's value by name (e.g. a policy string as an int);
    `from_cpp(args, outs)` turns the output arrays (name -> list) into the Python answer."""

    params: tuple[CppParam, ...]
    to_cpp: Callable[[dict], dict]
    from_cpp: Callable[[dict, dict], object]
    returns: str = "void"


@dataclass(frozen=True)
class FunctionTask:
    slug: str
    title: str
    difficulty: str                          # easy | medium | hard
    track: str                               # architecture_modeling | infrastructure
    skills: tuple[str, ...]                  # taxonomy ids (skillmap/data/taxonomy.toml)
    summary: str                             # one plain-text line for listings
    statement: str                           # Markdown, candidate-facing, with the signature(s)
    function: str                            # the name the submission defines
    python_signature: str
    cpp_signature: str | None                # None: the task takes Python only
    languages: tuple[str, ...]               # ("python",) or ("python", "cpp")
    tests: dict[str, tuple[TestCase, ...]]   # {"cpu": ...}: dims are sizes and knobs
    samples: tuple[TestCase, ...] = ()
    starters: dict = field(default_factory=dict)   # language -> a skeleton that runs, answers wrong
    # How the 40 performance points are earned: "time" (the submission's time on the `bench`
    # test against the reference's, measured in the same run) and/or "quality" (the module's
    # `quality` against the reference's answer, `quality_goal` saying which way is better).
    performance: tuple[str, ...] = ("time",)
    quality_goal: str = "max"                # max | min
    bench: str | None = None                 # the timed test's name; None: the last hidden test
    kind: str = "python"

    def __post_init__(self):
        assert self.track in TRACKS, self.track
        assert self.languages and set(self.languages) <= set(LANGUAGES), self.languages
        assert ("cpp" in self.languages) == (self.cpp_signature is not None), self.slug
        assert set(self.starters) == set(self.languages), self.slug
        assert set(self.performance) <= set(PERFORMANCE) and self.quality_goal in ("max", "min")

    def __hash__(self) -> int:
        return hash(self.slug)

    @property
    def sample_cases(self) -> tuple[TestCase, ...]:
        """The visible samples: the declared ones, else the two smallest hidden tests' sizes."""
        return self.samples or self.tests.get("cpu", ())[:2]

    @property
    def bench_case(self) -> TestCase | None:
        cases = self.tests.get("cpu", ())
        if self.bench is None:
            return cases[-1] if cases else None
        return next((c for c in cases if c.name == self.bench), None)

    def signature(self, language: str) -> str | None:
        return self.python_signature if language == "python" else self.cpp_signature


def not_an_int(name: str, value, expected=None) -> str | None:
    """A checker's message when the answer's `name` is no integer (a bool is none; numpy's integers
    are), else None; `expected`, where given, is said beside it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return (f"`{name}` is {value!r} ({type(value).__name__}), expected an int"
                + (f" ({expected})" if expected is not None else ""))
    return None


def cases(*specs: tuple[str, dict]) -> tuple[TestCase, ...]:
    return tuple(TestCase(name, dict(dims)) for name, dims in specs)
