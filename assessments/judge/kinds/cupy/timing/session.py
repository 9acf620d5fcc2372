"""The trusted parent's side of GPU timing: plans the batches, clocks them, re-checks outputs and
turns raw event times into the report's statistics, roofline and flags. Never imports CuPy.

`request(message, phase)` sends one request to the child and returns its answer, or raises
outcome.Decided when the child's answer (or its death) decided a verdict.
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ....outcome import Decided, Outcome
from ....report import TestReport, TimingReport
from ....verdicts import Verdict
from .. import arrays, compare
from ..task import Task
from . import crosscheck
from .peaks import Peaks
from .plan import Planner
from .roofline import roofline
from .stats import StopRule, median_ci

BENCH_STREAM = 1_000_000   # rng stream of the timing inputs, apart from the tests' streams
PLAN_STREAM = 1_000_100    # rng stream of slot order, variants and which repeats are re-checked


@dataclass(frozen=True)
class TimingConfig:
    """How much to time and how: repeats, pool, re-checks."""

    warmup: int = 3
    # Convergence also needs 0.3 s of timed wall time: the cross-check's signal.
    rule: StopRule = field(default_factory=lambda: StopRule(min_timed_s=0.3))
    variants: int = 3            # distinct inputs rotated through the slots
    slots: int = 8               # input/output copies at their own addresses
    pool_bytes: int = 8 << 30
    target_batch_s: float = 0.1
    max_batch_s: float = 10.0
    checks_min: int = 3          # timed repeats whose outputs are re-checked, at least
    checks_per_batch: int = 1
    # A re-check moves a slot's inputs and outputs through the scratch and compares them on the
    # host (about a second at 384 MiB): batches last at least this many times the mean re-check,
    # so re-checks stay a small share of the timing instead of most of it.
    batch_per_recheck: float = 3.0
    # The wall cross-check's allowance (crosscheck.wall_consistency): fixed seconds per batch for
    # host scheduling and the pipe round trip, and a share of events + empty walls for drift.
    wall_slack_s_per_batch: float = crosscheck.SLACK_S_PER_BATCH
    wall_slack_rel: float = crosscheck.SLACK_REL


class OutputChanged(Decided):
    """A re-check of a timed repeat decided the verdict: the timing stops as output_changed."""


class TimingSession:
    """One timing of an accepted solution at the task's benchmark size."""

    def __init__(self, task: Task, dims: dict, seed: int, request, scratch: Path, peaks: Peaks, *,
                 gpu: dict | None = None, config: TimingConfig | None = None, clock=time.perf_counter):
        self.task, self.dims, self.seed = task, dict(dims), seed
        self.request, self.scratch, self.peaks = request, Path(scratch), peaks
        self.gpu = dict(gpu or {})
        self.cfg = config or TimingConfig()
        self.clock = clock
        self.rng = np.random.default_rng([seed, PLAN_STREAM])
        self.inputs: list[dict] = []
        self._expected: dict[int, dict] = {}
        self.sizes = ", ".join(f"{k}={v}" for k, v in self.dims.items())
        self.phase = f"at the benchmark size ({self.sizes})"
        self.checked: list[int] = []
        self.repeat_base = 0
        self.per_repeat = 0.0
        self.recheck_s: list[float] = []   # seconds of each re-check (fetch, load, compare)
        self.placements: list[tuple[int, int]] = []   # (slot, input variant) of each timed repeat

    # -- the child -----------------------------------------------------------------------------
    def _batch(self, plan, empty: bool) -> tuple[float, list[float]]:
        """(the parent's wall time around the batch, the events' times in ms)."""
        t0 = self.clock()
        ans = self.request({"op": "time_batch", "plan": plan, "empty": empty}, self.phase)
        wall = self.clock() - t0
        times = ans.get("events_ms")
        if not (isinstance(times, list) and len(times) == len(plan) and all(
                isinstance(x, (int, float)) and not isinstance(x, bool) and np.isfinite(x) and x >= 0
                for x in times)):
            raise Decided(Outcome(Verdict.RUNTIME_ERROR,
                                  "the timing run returned no usable measurements"))
        return wall, [float(x) for x in times]

    def _expected_of(self, variant: int) -> tuple[dict, dict]:
        """(the reference outputs, the tolerance) of one input variant, computed once: at the
        benchmark size either can take seconds (a tolerance may run the reference again)."""
        if variant not in self._expected:
            inputs = self.inputs[variant]
            self._expected[variant] = (self.task.reference(inputs), self.task.tolerance_for(inputs))
        return self._expected[variant]

    def _recheck(self, plan, positions: list[int], timing: TimingReport) -> None:
        """Fetch the slots of the planned positions (each its slot's last repeat in the batch) and
        compare them like a test; with no position planned, one chosen at random after the fact.
        Whatever decides here is raised as OutputChanged."""
        began = self.clock()
        try:
            self._compare_slots(plan, positions, timing)
        except Decided as decided:
            raise OutputChanged(decided.outcome) from None
        finally:
            self.recheck_s.append(self.clock() - began)

    def _compare_slots(self, plan, positions: list[int], timing: TimingReport) -> None:
        if not positions:
            last = {s: i for i, (s, _) in enumerate(plan)}
            positions = [sorted(last.values())[int(self.rng.integers(len(last)))]]
        for i in positions:
            s, v = plan[i]
            repeat = self.repeat_base + i
            name = "bench.fetch.npz"
            self.request({"op": "time_fetch", "slot": int(s), "output": name}, self.phase)
            where = f"on timed repeat {repeat + 1} ({self.sizes})"
            inputs = self.inputs[v]
            try:
                sent = arrays.array_args(self.task, inputs)
                got = arrays.load_arrays(self.scratch / name, sent, where)
            finally:
                (self.scratch / name).unlink(missing_ok=True)
                self.checked.append(repeat)
            probe = TestReport("timing recheck", dict(self.dims))
            try:
                expected, tolerance = self._expected_of(v)
                compare.compare_outputs(self.task, inputs, expected, got, probe, where, tolerance)
            except Decided as decided:
                failed = decided.outcome
                timing.harness["recheck_failure"] = {
                    "repeat": repeat + 1, "max_error": probe.max_error,
                    "mismatches": [m.__dict__ for m in probe.mismatches]}
                if not failed.message.startswith("solve modified its input"):
                    # Wrong from the start (precision lost at a size the tests never reach) or
                    # changed (an output replayed): both are a wrong output under timing.
                    failed.message = ("a timed run's output is wrong at the benchmark size: "
                                      f"{failed.message}")
                raise

    def _timed_batch(self, planner: Planner, r: int, checks: int, samples: list, batches: list,
                     timing: TimingReport) -> None:
        """An empty batch and a timed batch of `r` repeats, then the re-checks planned for it."""
        e_wall, _ = self._batch(planner.empty_plan(r), empty=True)
        plan, positions = planner.solve_plan(r, checks)
        t_wall, times = self._batch(plan, empty=False)
        batches.append(crosscheck.BatchWall(r, t_wall, sum(times) / 1e3, e_wall))
        samples += times
        self.placements += [(int(slot), int(v)) for slot, v in plan]
        self.per_repeat = (t_wall + e_wall) / r
        if checks:
            self._recheck(plan, positions, timing)
        self.repeat_base += r

    def _target_batch_s(self) -> float:
        """The next batch's length: the configured one, or longer where re-checks are slow."""
        cfg = self.cfg
        if not self.recheck_s:
            return cfg.target_batch_s
        mean = sum(self.recheck_s) / len(self.recheck_s)
        return min(max(cfg.target_batch_s, cfg.batch_per_recheck * mean), cfg.max_batch_s)

    def _failed(self, timing, samples, batches, decided: Decided):
        """The report keeps what was measured before the failure, marked ineligible."""
        if not samples:
            return None, decided.outcome
        why = "output_changed" if isinstance(decided, OutputChanged) else "failed"
        self._summarise(timing, samples, batches, why)
        return timing, decided.outcome

    # -- the session ---------------------------------------------------------------------------
    def run(self) -> tuple[TimingReport | None, Outcome | None]:
        """(the timing report, or None when nothing was measured; the outcome that stopped the
        timing, or None). Raises OSError when the child's scratch cannot take the inputs."""
        began = self.clock()
        try:
            planner, slots, info = self._prepare()
        except Decided as decided:
            return None, decided.outcome
        info["prepare_s"] = round(self.clock() - began, 3)
        return self._measure(planner, slots, info)

    def _prepare(self) -> tuple[Planner, int, dict]:
        """The input variants placed in the child, then the warm-up, which sizes the batches."""
        cfg = self.cfg

        def variant(v: int) -> tuple[dict, dict]:
            seq = [self.seed, BENCH_STREAM] if v == 0 else [self.seed, BENCH_STREAM, v]
            inputs = self.task.generate(np.random.default_rng(seq), dict(self.dims))
            name = f"bench.v{v}.in.npz"
            return inputs, {"inputs": name, "args": arrays.write_inputs(self.task, inputs,
                                                                        self.scratch / name)}

        # Each variant has its own generator, and NumPy's sampling and copies release the GIL:
        # the variants are drawn side by side (seconds each at the benchmark size).
        with ThreadPoolExecutor(max_workers=cfg.variants) as pool:
            made = list(pool.map(variant, range(cfg.variants)))
        self.inputs = [inputs for inputs, _ in made]
        variants = [spec for _, spec in made]
        try:
            info = self.request({"op": "time_setup", "variants": variants, "slots": cfg.slots,
                                 "pool_bytes": cfg.pool_bytes}, self.phase)
        finally:
            for v in variants:
                (self.scratch / v["inputs"]).unlink(missing_ok=True)
        slots = max(1, int(info.get("slots", 1)))
        planner = Planner(slots, cfg.variants, self.rng)

        # Warm-up (discarded): caches, clocks, lazily built kernels; it also sizes the batches.
        w_wall, _ = self._batch(planner.solve_plan(cfg.warmup)[0], empty=False)
        e_wall, _ = self._batch(planner.empty_plan(cfg.warmup), empty=True)
        self.per_repeat = (w_wall + e_wall) / max(cfg.warmup, 1)
        return planner, slots, info

    def _measure(self, planner: Planner, slots: int, info: dict
                 ) -> tuple[TimingReport | None, Outcome | None]:
        """Timed batches until the stopping rule says enough, then the summary."""
        cfg = self.cfg
        timing = TimingReport(
            dims=dict(self.dims), median_ms=0.0, min_ms=0.0, max_ms=0.0, repeats=0, warmup=cfg.warmup,
            device=str(info.get("device", "GPU"))[:100], peaks=self.peaks.to_dict(), gpu=self.gpu,
            harness={k: info.get(k) for k in ("driver", "l2_bytes", "flush_bytes", "slots", "variants",
                                              "copy_bytes", "persisting_l2_reset", "prepare_s")})
        samples: list[float] = []
        batches: list[crosscheck.BatchWall] = []
        began = self.clock()
        reason = ""
        try:
            while True:
                r = cfg.rule.next_batch(len(samples), self.per_repeat, self.clock() - began,
                                        target_batch_s=self._target_batch_s(), max_batch_s=cfg.max_batch_s)
                self._timed_batch(planner, r, cfg.checks_per_batch, samples, batches, timing)
                stop, reason, _ = cfg.rule.decide(samples, self.clock() - began,
                                                  timed_s=sum(b.wall_s for b in batches))
                if stop:
                    break
            missing = cfg.checks_min - len(self.checked)
            if missing > 0:
                # One more round over the slots, to reach the minimum number of re-checks.
                self._timed_batch(planner, slots, missing, samples, batches, timing)
        except Decided as decided:
            return self._failed(timing, samples, batches, decided)
        self._summarise(timing, samples, batches, reason)
        return timing, None

    def _summarise(self, timing: TimingReport, samples: list[float], batches, reason: str) -> None:
        ci = median_ci(samples, self.cfg.rule.confidence)
        nbytes, flops = self.task.cost(self.dims)
        roof = roofline(ci.median / 1e3, nbytes, flops, self.peaks)
        wall = crosscheck.wall_consistency(batches, slack_per_batch=self.cfg.wall_slack_s_per_batch,
                                           slack_rel=self.cfg.wall_slack_rel)
        flags = crosscheck.review_flags(
            consistency=wall, median_s=ci.median / 1e3, floor_s=roof.physical_floor_s,
            peaks_measured=self.peaks.measured, exclusive=self.gpu.get("lock") in (None, "held"),
            idle=bool(self.gpu.get("idle", True)))
        timing.median_ms, timing.min_ms, timing.max_ms = ci.median, min(samples), max(samples)
        timing.repeats = len(samples)
        timing.ci_low_ms, timing.ci_high_ms = ci.low, ci.high
        timing.confidence = ci.confidence
        timing.ci_rel_halfwidth = ci.rel_halfwidth if ci.low is not None else None
        timing.converged = reason == "converged"
        timing.stop_reason = reason
        timing.roofline = roof.to_dict()
        timing.achieved_gb_s = roof.achieved_bytes_s / 1e9
        timing.achieved_gflop_s = roof.achieved_flops_s / 1e9
        timing.roofline_fraction = roof.fraction
        timing.physical_floor_ms = roof.physical_floor_s * 1e3
        timing.flags = flags
        timing.leaderboard_eligible = crosscheck.leaderboard_eligible(flags) and reason not in (
            "output_changed", "failed")
        timing.wall = wall.to_dict()
        timing.harness["rechecked_repeats"] = sorted(r + 1 for r in self.checked)
        timing.harness["recheck_s"] = round(sum(self.recheck_s), 4)
        timing.harness["batches"] = len(batches)
        timing.times_ms = [round(x, 6) for x in samples]
        # The median per slot (its own addresses) and per input variant: tells a placement that
        # runs slower from a slower input when two judgings of the same kernel disagree.
        timing.harness["slot_medians_ms"] = _medians_by(samples, [s for s, _ in self.placements])
        timing.harness["variant_medians_ms"] = _medians_by(samples, [v for _, v in self.placements])



def _medians_by(samples: list[float], keys: list[int]) -> dict[str, float]:
    groups: dict[int, list[float]] = {}
    for x, k in zip(samples, keys):
        groups.setdefault(k, []).append(x)
    return {str(k): round(float(np.median(v)), 6) for k, v in sorted(groups.items())}
