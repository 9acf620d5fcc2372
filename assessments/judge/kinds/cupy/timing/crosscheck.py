"""Checks that the events' times are believable: against the parent's wall clock and physics
(the physical floor itself is drawn in roofline.py).

Pure functions. The events live in the child, next to the candidate's code; the wall clock lives
in the trusted parent. Each timed batch is paired with an empty batch (same repeats, same flush
and buffer switching, a solve that does nothing), so what the wall saw beyond the empty batch has
to be what the events saw. Work on another stream, or a timer that reads low, shows as excess.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

BELOW_FLOOR = "below_physical_floor"
WALL_MISMATCH = "events_inconsistent_with_wall_time"
PEAKS_UNMEASURED = "peaks_not_measured"
GPU_NOT_EXCLUSIVE = "gpu_not_exclusive"
GPU_BUSY = "gpu_busy"

# Flags that keep a time off the leaderboard until someone reviews it.
REVIEW_FLAGS = frozenset({BELOW_FLOOR, WALL_MISMATCH, PEAKS_UNMEASURED, GPU_NOT_EXCLUSIVE, GPU_BUSY})

# Default allowed excess of wall time over events + empty overhead: a fixed part per batch (the
# pipe round trip and the host scheduler waking the child and the parent) and a relative part
# (clock drift and uneven host delays between the paired batches). Both assume a quiet host: a
# busy one delays the timed batch more than its empty twin and can raise the flag on an honest
# run. The timing configuration (session.TimingConfig) overrides them.
SLACK_S_PER_BATCH = 0.002
SLACK_REL = 0.10


@dataclass(frozen=True)
class BatchWall:
    """One timed batch: its repeats, the parent's wall time, the events' sum, the paired empty batch."""

    repeats: int
    wall_s: float
    events_s: float
    empty_wall_s: float


@dataclass(frozen=True)
class Consistency:
    """Whether the events account for the wall time the parent measured."""

    ok: bool
    wall_s: float            # timed batches, parent's clock
    empty_wall_s: float      # paired empty batches: flush, buffer switching, round trips
    events_s: float
    excess_s: float          # wall - empty - events: time the events did not see
    allowed_s: float
    batches: int
    overhead_ms_per_repeat: float
    slack_s_per_batch: float = SLACK_S_PER_BATCH   # the allowance this check used
    slack_rel: float = SLACK_REL

    def to_dict(self) -> dict:
        return asdict(self)


def wall_consistency(batches: list[BatchWall], *, slack_per_batch: float = SLACK_S_PER_BATCH,
                     slack_rel: float = SLACK_REL) -> Consistency:
    """Sum over batches; inconsistent when the wall saw much more than the events (hidden work,
    a timer reading low) or the events claim more than the wall could hold (a broken timer)."""
    wall = sum(b.wall_s for b in batches)
    empty = sum(b.empty_wall_s for b in batches)
    events = sum(b.events_s for b in batches)
    repeats = sum(b.repeats for b in batches)
    excess = wall - empty - events
    allowed = slack_per_batch * len(batches) + slack_rel * (events + empty)
    too_much_wall = excess > allowed
    too_much_events = events > wall * (1.0 + slack_rel) + slack_per_batch * len(batches)
    overhead = empty / repeats * 1e3 if repeats else 0.0
    return Consistency(ok=bool(batches) and not (too_much_wall or too_much_events), wall_s=wall,
                       empty_wall_s=empty, events_s=events, excess_s=excess, allowed_s=allowed,
                       batches=len(batches), overhead_ms_per_repeat=overhead,
                       slack_s_per_batch=slack_per_batch, slack_rel=slack_rel)


def review_flags(*, consistency: Consistency | None, median_s: float, floor_s: float,
                 peaks_measured: bool, exclusive: bool = True, idle: bool = True) -> list[str]:
    """The flags a timing earns, in a stable order."""
    flags = []
    if median_s < floor_s:
        flags.append(BELOW_FLOOR)
    if consistency is not None and not consistency.ok:
        flags.append(WALL_MISMATCH)
    if not peaks_measured:
        flags.append(PEAKS_UNMEASURED)
    if not exclusive:
        flags.append(GPU_NOT_EXCLUSIVE)
    if not idle:
        flags.append(GPU_BUSY)
    return flags


def leaderboard_eligible(flags: list[str]) -> bool:
    return not any(f in REVIEW_FLAGS for f in flags)
