"""A test's series: one sample a minute from minute 0 (scrapes and rule evaluations aligned), a
staleness marker where a scrape failed and nothing until the target answers again, as promtool's
`input_series` writes them."""
from __future__ import annotations

from dataclasses import dataclass, field

STALE = "stale"          # the scrape failed: the series ends here (Prometheus's staleness marker)
LOOKBACK_MIN = 5         # an instant query sees the latest sample of the last 5 minutes


@dataclass
class Series:
    metric: str
    labels: dict[str, str]
    values: list          # per minute: a number, STALE, or None (no sample)

    def selector(self) -> str:
        inner = ",".join(f'{k}="{v}"' for k, v in sorted(self.labels.items()))
        return f"{self.metric}{{{inner}}}"

    def notation(self) -> str:
        """promtool's values: numbers, `stale`, `_` for a minute without a sample."""
        return " ".join("_" if v is None else v if v == STALE else _number(v) for v in self.values)

    def at(self, t: int):
        """What an instant query at minute t sees: the latest sample of the last 5 minutes, or
        None when there is none or it is a staleness marker."""
        for m in range(min(t, len(self.values) - 1), max(t - LOOKBACK_MIN, 0) - 1, -1):
            v = self.values[m]
            if v is not None:
                return None if v == STALE else v
        return None

    def window(self, t: int, minutes: int) -> list:
        """The samples a range selector `[minutes m]` at minute t holds, oldest first (both ends
        included, staleness markers left out)."""
        lo = max(t - minutes, 0)
        return [v for v in self.values[lo:t + 1] if v is not None and v != STALE]


def _number(v) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


@dataclass
class Scenario:
    """One test: its series and how many minutes are evaluated (0 to `minutes`)."""

    minutes: int
    series: list[Series] = field(default_factory=list)
    episodes: list[tuple] = field(default_factory=list)   # (what, where, start, length): for tests

    def add(self, metric: str, labels: dict, values: list) -> Series:
        s = Series(metric, dict(labels), list(values))
        self.series.append(s)
        return s

    def of(self, metric: str, **labels) -> list[Series]:
        return [s for s in self.series if s.metric == metric
                and all(s.labels.get(k) == v for k, v in labels.items())]

    def one(self, metric: str, **labels) -> Series | None:
        found = self.of(metric, **labels)
        return found[0] if found else None
