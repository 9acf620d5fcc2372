"""A rules task (kind `promql`): a Prometheus rule file judged by promtool against hidden series.

The task object is what the catalog may serve (statement, the alerts' contract, starter). The
trusted logic lives beside it in the task's module, `gpu_tasks/alerts/<slug>.py`, and is never
served:

    TASK                                the RulesTask
    generate(rng, dims) -> Scenario     one test's series (series.py), from the judge's seed
    conditions(scenario)                per alert, per evaluation minute, the label keys whose
        -> {alert: [set[key]]}          condition holds (the rule's expression without `for:`)
    observe(scenario, alert, key, t)    the inputs of one alert at minute t, in words
        -> str
    slip(scenario, alert, key, t)       the likely mistake when an input sits on a threshold at
        -> str | None                   minute t ("85 is not above 85: `>=`...?"), else None

The firing alerts are `semantics.firing(conditions, for_minutes)`; a key is the tuple of the
values of the alert's compared labels, in `Alert.labels` order.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..base import TestCase

REFERENCE_DIR = Path(__file__).resolve().parent / "reference"
TRACK = "infrastructure"
EVALUATION_INTERVAL_MIN = 1      # rules are evaluated every minute, from minute 0


@dataclass(frozen=True)
class Alert:
    """One alert of the contract: what the judge compares of it, and how it is explained."""

    name: str
    severity: str
    labels: tuple[str, ...]          # the series' labels the alert must keep (besides severity)
    for_minutes: int = 0             # Prometheus's `for:` in the reference semantics
    condition: str = ""              # the expression's meaning in words, for messages
    metrics: tuple[str, ...] = ()    # the series shown around a mismatch

    def key_text(self, key: tuple) -> str:
        shown = ", ".join(f"{k}={v}" for k, v in zip(self.labels, key) if v is not None)
        lacking = [k for k, v in zip(self.labels, key) if v is None]
        return shown + (f" (no {', '.join(lacking)} label)" if lacking else "")


@dataclass(frozen=True)
class RulesTask:
    slug: str
    title: str
    difficulty: str                          # easy | medium | hard
    skills: tuple[str, ...]                  # taxonomy ids (skillmap/data/taxonomy.toml)
    summary: str                             # one plain-text line for listings
    statement: str                           # Markdown, candidate-facing
    alerts: tuple[Alert, ...]                # the contract: names, severities, compared labels
    tests: dict[str, tuple[TestCase, ...]]   # {"cpu": ...}: dims size the fleet and the time
    samples: tuple[TestCase, ...] = ()
    starters: dict = field(default_factory=dict)   # {"yaml": a valid rule file, not a solution}
    kind: str = "promql"
    track: str = TRACK

    def __post_init__(self):
        assert set(self.starters) == {"yaml"}, self.slug
        assert len({a.name for a in self.alerts}) == len(self.alerts), self.slug

    def __hash__(self) -> int:
        return hash(self.slug)

    @property
    def sample_cases(self) -> tuple[TestCase, ...]:
        return self.samples or self.tests.get("cpu", ())[:1]

    @property
    def reference_path(self) -> Path:
        return REFERENCE_DIR / f"{self.slug}.yml"

    def alert(self, name: str) -> Alert | None:
        return next((a for a in self.alerts if a.name == name), None)


def cases(*specs: tuple[str, dict]) -> tuple[TestCase, ...]:
    return tuple(TestCase(name, dict(dims)) for name, dims in specs)
