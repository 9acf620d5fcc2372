"""Prometheus's alerting semantics, for the reference: an alert is pending from the first
evaluation where its expression returns the series, fires once it has returned it at every
evaluation for `for:` (evaluations a minute apart, ends included), and is gone at the first
evaluation where it does not."""
from __future__ import annotations


def firing(conditions: list[set], for_minutes: int) -> list[set]:
    """Per evaluation minute, the keys that fire, from the keys whose condition holds."""
    out: list[set] = []
    since: dict = {}
    for t, holding in enumerate(conditions):
        since = {k: since.get(k, t) for k in holding}
        out.append({k for k, start in since.items() if t - start >= for_minutes})
    return out


def streak_start(conditions: list[set], key, t: int) -> int | None:
    """The first minute of the run of evaluations up to t where the key's condition held, or
    None when it does not hold at t."""
    if t >= len(conditions) or key not in conditions[t]:
        return None
    while t > 0 and key in conditions[t - 1]:
        t -= 1
    return t
