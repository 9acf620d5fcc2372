"""What `promtool test rules` printed, read back: the alerts that fired at each minute we asked
about, and the rule-evaluation errors that stopped the test.

Every check of the test file expects no alert, so promtool lists every alert that fired, by
check, as

    alertname: GpuTooHot, time: 1h2m,
        exp:[],
        got:[
            0:
              Labels:{Hostname="gpu-node-03", alertname="GpuTooHot", gpu="5", severity="warning"}
              Annotations:{summary="..."}
            ]

Label values are Go-quoted (no raw newline can come from a rule file), so a `Labels:` line is
always one line and the judge's own check lines cannot be forged from inside a value.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

CHECK = re.compile(r"^\s*(?:name: .*, )?alertname: ([A-Za-z_:][A-Za-z0-9_:]*), time: ([0-9hmsdwy]+), ?$")
GOT = re.compile(r"^\s*got:\[")
LABELS = re.compile(r"^\s*Labels:\{(.*)\}\s*$")
PAIR = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"(?:, |$)')
EVAL_ERROR = re.compile(r"^\s*rule: (.*), time: ([0-9hmsdwy]+), err: (.*)$")
# The other lines of promtool's report: anything else (a rule's name with a line break in an
# evaluation error, a crash) means the report cannot be read as alerts.
KNOWN = re.compile(r"^\s*(Unit Testing: .*|SUCCESS|FAILED:|exp:\[\],?|got:\[\]?,?|\d+:|\]|"
                   r"Annotations:\{.*\},?|Labels:\{.*\},?)?\s*$")
UNITS = {"y": 525600, "w": 10080, "d": 1440, "h": 60, "m": 1}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
            "\\": "\\", '"': '"', "'": "'"}


@dataclass
class Fired:
    """Each (alert name, minute) the test asked about, with the label sets that fired."""

    alerts: dict = field(default_factory=dict)      # (name, minute) -> [dict of labels]
    eval_errors: list = field(default_factory=list)  # (rule, minute, message)
    unexpected: list = field(default_factory=list)   # lines that are none of the above

    def at(self, name: str, minute: int) -> list[dict]:
        return self.alerts.get((name, minute), [])


def minutes(text: str) -> int | None:
    """A Prometheus duration as promtool prints it (`1h2m`, `0s`) in whole minutes."""
    if text == "0s":
        return 0
    parts = re.findall(r"(\d+)(ms|[ywdhms])", text)
    if not parts or "".join(n + u for n, u in parts) != text or any(u in ("s", "ms") for _, u in parts):
        return None
    return sum(int(n) * UNITS[u] for n, u in parts)


def unquote(body: str) -> str:
    """The value of a Go-quoted string's body (strconv.Quote's escapes)."""
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c != "\\" or i + 1 == len(body):
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        width = {"x": 2, "u": 4, "U": 8}.get(e)
        if width:
            try:
                out.append(chr(int(body[i + 2:i + 2 + width], 16)))
            except ValueError:
                out.append(body[i:i + 2 + width])
            i += 2 + width
        else:
            out.append(_ESCAPES.get(e, e))
            i += 2
    return "".join(out)


def labels(text: str) -> dict | None:
    """`{a="b", c="d"}`'s inside as a dict; None if the line is not exactly that."""
    out, pos = {}, 0
    while pos < len(text):
        m = PAIR.match(text, pos)
        if not m:
            return None
        out[m.group(1)] = unquote(m.group(2))
        pos = m.end()
    return out


def parse(output: str) -> Fired:
    fired = Fired()
    check, in_got = None, False
    for line in output.splitlines():
        m = CHECK.match(line)
        if m:
            t = minutes(m.group(2))
            check, in_got = ((m.group(1), t) if t is not None else None), False
            if check is not None:
                fired.alerts.setdefault(check, [])
            continue
        m = EVAL_ERROR.match(line)
        if m:
            fired.eval_errors.append((m.group(1), minutes(m.group(2)), m.group(3)))
            check = None
            continue
        if not KNOWN.match(line):
            fired.unexpected.append(line)
            continue
        if check is None:
            continue
        if GOT.match(line):
            in_got = True
            continue
        m = LABELS.match(line)
        if m and in_got:
            found = labels(m.group(1))
            if found is not None:
                fired.alerts[check].append(found)
    return fired
