"""Which of a task's skills one accepted solution shows.

A task lists the skills a good solution can evidence; a particular solution shows only some of
them: a reduction written with shared memory shows no warp shuffles, `cp.sum(x)` shows CuPy and
no CUDA at all, and correct output on the CPU backend says nothing about memory coalescing.
Read from the solution's source (what it writes: `__shfl_*`, `__shared__`, atomics, cooperative
groups, padded tiles) and from its grading (a GPU timing and how close to the roofline it came).
"""
from __future__ import annotations

import re

# A kernel of the candidate's own: CUDA C++ (RawKernel, RawModule, ElementwiseKernel,
# ReductionKernel) or a cupyx.jit kernel. Without one, the solution is CuPy array code.
_KERNEL = re.compile(r"\b(RawKernel|RawModule|ElementwiseKernel|ReductionKernel)\s*\(|"
                     r"\bjit\s*\.\s*rawkernel\b|@\s*(?:cupyx\s*\.\s*)?jit\s*\.\s*rawkernel")
_THREAD_INDEX = re.compile(r"\b(threadIdx|blockIdx|blockDim|gridDim)\b|\bjit\s*\.\s*grid\s*\(|"
                           r"\b(laneid|warpsize)\b", re.IGNORECASE)
_SHARED = re.compile(r"__shared__|\bshared_memory\s*\(")
_SHUFFLE = re.compile(r"__shfl|\bshfl_(?:sync|down|up|xor)|\bjit\s*\.\s*shfl|"
                      r"(?:cg|cooperative_groups)\s*::\s*reduce|__reduce_\w+_sync")
_ATOMIC = re.compile(r"\batomic(?:Add|Sub|Max|Min|Inc|Dec|CAS|Exch|And|Or|Xor)\w*\s*\(|"
                     r"\bjit\s*\.\s*atomic_\w+\s*\(")
_BARRIER = re.compile(r"__syncthreads|\bsyncthreads\s*\(|\.sync\s*\(\s*\)")
# A shared tile padded against bank conflicts: `__shared__ float t[32][33]` or `[TILE][TILE + 1]`.
_PADDED = re.compile(r"__shared__[^;]*\]\s*\[\s*(?:\w+\s*\+\s*1|\d*[13579])\s*\]")

# Skills the performance of a GPU timing shows: credited when the solution was timed on a GPU
# and reached at least half of its roofline (score 80: 60 for correctness, 40 x the fraction).
PERFORMANCE_SKILLS = frozenset({"memory_coalescing", "occupancy", "roofline_model"})
FAST_SCORE = 80.0
# Skills a technique in the source shows, whatever the task.
TECHNIQUES = {
    "shared_memory": lambda src: bool(_SHARED.search(src)),
    "warp_shuffle": lambda src: bool(_SHUFFLE.search(src)),
    "atomic_operations": lambda src: bool(_ATOMIC.search(src)),
    "bank_conflicts": lambda src: bool(_PADDED.search(src)),
    "tiled_matmul": lambda src: bool(_SHARED.search(src) and _BARRIER.search(src)),
    "cuda_thread_hierarchy": lambda src: bool(_THREAD_INDEX.search(src)),
}
# Shown by any accepted solution, array code included.
ANY_SOLUTION = frozenset({"cupy", "numerical_stability"})

RULE = ("A skill counts only where an accepted solution shows it: its code uses the technique "
        "(warp shuffles, shared memory, atomics, padded tiles, thread indices), it is a kernel of "
        "your own for the task's algorithm (array code shows CuPy), or, for memory coalescing, "
        "occupancy and the roofline, it was timed on a GPU at half its roofline or better.")


def has_kernel(source: str) -> bool:
    return bool(_KERNEL.search(source or ""))


# A task taking several languages lists each; a solution shows only the one it is written in.
LANGUAGE_SKILLS = {"python": "python", "cpp": "cpp"}


def skills_shown(task_skills, source: str, *, timed_score: float | None = None,
                 kind: str = "cupy", language: str | None = None) -> tuple[str, ...]:
    """The task's skills this solution shows. `timed_score`: its score when a GPU timed it
    (None when nothing was timed: the cpu backend). A design, testbench, function or rule file
    that passed shows every skill its task lists (there is one way to pass, doing the work),
    except a language it was not written in."""
    if kind != "cupy":
        other = {skill for lang, skill in LANGUAGE_SKILLS.items() if language and lang != language}
        return tuple(s for s in task_skills if s not in other)
    source = source or ""
    kernel = has_kernel(source)
    shown = []
    for skill in task_skills:
        if skill in ANY_SOLUTION:
            ok = True
        elif skill in PERFORMANCE_SKILLS:
            ok = kernel and timed_score is not None and timed_score >= FAST_SCORE
        elif skill in TECHNIQUES:
            ok = kernel and TECHNIQUES[skill](source)
        else:   # "cuda" and the task's algorithm: a kernel of the candidate's own
            ok = kernel
        if ok:
            shown.append(skill)
    return tuple(shown)
