"""The alerts that fired against the expected ones, minute by minute, on the contract's labels only.

An alert is its name, its `severity` and the values of the labels the task names for it (`Alert.
labels`); whatever else it carries is free. The first minute where the two sets differ decides,
explained for a person: which alert is missing or extra, with its labels, why (the condition and
how long it has held, the likely slip), and the series around that minute as a table.
"""
from __future__ import annotations

from dataclasses import dataclass

from gpu_tasks.alerts.semantics import streak_start

SEVERITY = "severity"
HISTORY = 3          # minutes shown before the condition's window and after the mismatch
MAX_COLUMNS = 8      # series shown side by side
MAX_ROWS = 18        # minutes shown; a longer window keeps its start and its end


@dataclass
class Mismatch:
    minute: int
    message: str
    details: str


def fired_keys(alert, labels_seen: list[dict]) -> set:
    """(severity, key) of each alert that fired; a label it lacks is None in its key."""
    return {(labels.get(SEVERITY), tuple(labels.get(name) for name in alert.labels)) for labels in labels_seen}


def first_mismatch(task, logic, scenario, conditions: dict, expected: dict, fired, last_minute: int) -> Mismatch | None:
    """The first minute (up to `last_minute`) where the alerts differ, explained; None if none."""
    for t in range(last_minute + 1):
        for alert in task.alerts:
            want = {(alert.severity, k) for k in expected[alert.name][t]}
            got = fired_keys(alert, fired.at(alert.name, t))
            if want != got:
                return _explain(task, logic, scenario, conditions, expected, fired, alert, t, want, got)
    return None


def _explain(task, logic, scenario, conditions, expected, fired, alert, t, want, got) -> Mismatch:
    name, d = alert.name, alert.for_minutes
    conds = conditions[name]
    extra, missing = sorted(got - want, key=str), sorted(want - got, key=str)
    window = f"`for: {d}m`" if d else "no `for:`"
    partial = next((g for g in extra if None in g[1]), None)
    if partial is not None:
        lacking = [n for n, v in zip(alert.labels, partial[1]) if v is None]
        kept = ", ".join(f"{n}={v}" for n, v in zip(alert.labels, partial[1]) if v is not None)
        message = (f"{name} fired at {t}m without the label {', '.join(lacking)}"
                   f"{f' ({kept})' if kept else ''}: the alert must keep the series' "
                   f"{', '.join(alert.labels)} (an aggregation such as `max without (gpu)` or "
                   f"`count by (instance)` drops them)")
        return Mismatch(t, message, _table(scenario, alert, partial[1], t, expected, fired))
    keys_want = {k: s for s, k in want}
    for severity, key in extra:
        if key in keys_want:
            shown = f"severity {severity}" if severity is not None else "no severity label"
            message = (f"{name} for {alert.key_text(key)} fired at {t}m with {shown}; the statement gives "
                       f"it severity {keys_want[key]}")
            return Mismatch(t, message, _table(scenario, alert, key, t, expected, fired))
    if extra:
        _, key = extra[0]
        start = streak_start(conds, key, t)
        if start is not None:
            # a threshold met exactly in the window (`>=`) makes the streak look longer than it is
            near = next((f" ({x})" for m in range(max(t - d, 0), start)
                         if (x := logic.slip(scenario, name, key, m))), "")
            due = start + d
            if due < len(conds) and all(key in conds[m] for m in range(start, due + 1)):
                why = (f"expected from {due}m: {alert.condition} only since {start}m{near}; is {window} "
                       f"missing or shorter?")
            else:
                end = _streak_end(conds, key, t)
                why = (f"expected not to fire: {alert.condition} from {start}m to {end}m only{near}, "
                       f"{end - start + 1} evaluations, and {window} needs {d + 1}")
            message = f"{name} for {alert.key_text(key)} fired at {t}m; {why}"
        else:
            seen = _seen(logic, scenario, name, key, t)
            last = next((m for m in range(t - 1, -1, -1) if key in conds[m]), None)
            since = (f"; its condition last held at {last}m (a `for:`, `keep_firing_for` or window that "
                     f"keeps it firing?)" if last is not None and t - last <= 60 else "")
            message = (f"{name} for {alert.key_text(key)} fired at {t}m, but its condition ({alert.condition}) "
                       f"does not hold then{': ' + seen if seen else ''}{since}")
        return Mismatch(t, message, _table(scenario, alert, key, t, expected, fired))
    _, key = missing[0]
    start = streak_start(conds, key, t)
    held = f"{alert.condition} since {start}m" if start is not None else alert.condition
    later = next((m for m in range(t + 1, len(conds)) if key in {k for _, k in fired_keys(alert, fired.at(name, m))}),
                 None)
    if later is not None:
        longer = f"a `for:` longer than {d}m" if d else "a `for:` where the statement has none"
        tail = f"; it fires only from {later}m ({longer}, or a stricter condition?)"
    else:
        seen = logic.observe(scenario, name, key, t)
        tail = f"; it did not fire{': ' + seen if seen else ''}"
    message = f"{name} for {alert.key_text(key)} should fire at {t}m: {held} ({window}){tail}"
    return Mismatch(t, message, _table(scenario, alert, key, t, expected, fired))


def _seen(logic, scenario, name: str, key: tuple, t: int) -> str:
    seen, why = logic.observe(scenario, name, key, t), logic.slip(scenario, name, key, t)
    return f"{seen} ({why})" if why else seen


def _streak_end(conds: list[set], key, t: int) -> int:
    while t + 1 < len(conds) and key in conds[t + 1]:
        t += 1
    return t


def _table(scenario, alert, key: tuple, t: int, expected: dict, fired) -> str:
    """The alert's series for the key (the labels it has) around minute t, with what the judge
    expected and what fired for that key at each minute."""
    first = max(0, t - alert.for_minutes - HISTORY)
    last = min(scenario.minutes, t + HISTORY)
    match = {n: v for n, v in zip(alert.labels, key) if v is not None}
    columns = [s for metric in alert.metrics for s in scenario.of(metric, **match)][:MAX_COLUMNS]
    heads = [s.metric + _varying_labels(s, [c for c in columns if c.metric == s.metric]) for s in columns]
    rows = [["minute", *heads, "expected", "fired"]]
    for m in range(first, last + 1):
        want = any(k == key for k in expected[alert.name][m])
        got = any(k == key for _, k in fired_keys(alert, fired.at(alert.name, m)))
        rows.append([f"{m}m", *(_cell(s, m) for s in columns), "yes" if want else "-", "yes" if got else "-"])
    if len(rows) > MAX_ROWS + 1:   # a long `for:`: its start and the minutes up to the mismatch
        rows = rows[:1 + HISTORY + 3] + [["..."] + [""] * (len(rows[0]) - 1)] + rows[-(MAX_ROWS - HISTORY - 3):]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(v.rjust(widths[i]) for i, v in enumerate(r)).rstrip() for r in rows]
    where = alert.key_text(key) if match else "every series"
    return (f"{alert.name} for {where}: the samples at each minute (`-`: none), whether the judge "
            f"expects the alert to fire and whether it fired:\n" + "\n".join(lines))


def _varying_labels(series, same_metric: list) -> str:
    """The labels that tell this column from the others of its metric (`{gpu=3}`)."""
    if len(same_metric) < 2:
        return ""
    varying = sorted(k for k in series.labels if len({c.labels.get(k) for c in same_metric}) > 1)
    return "{" + ",".join(f"{k}={series.labels[k]}" for k in varying if k in ("Hostname", "gpu", "instance", "job")) + "}"


def _cell(series, m: int) -> str:
    v = series.values[m] if m < len(series.values) else None
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    return str(int(v)) if float(v).is_integer() else f"{v:g}"
