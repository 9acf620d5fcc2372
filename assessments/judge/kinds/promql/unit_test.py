"""The promtool unit-test file of one test: the hidden series and, at every evaluation minute,
each alert of the contract asked for with no alert expected. promtool then lists, for every
minute and name, the alerts that did fire (promtool_output.py), whatever their other labels;
the comparison with the expected ones is the judge's own (compare.py)."""
from __future__ import annotations

import json

RULES_FILE = "rules.yml"     # the submission, beside the test file in the sandbox's scratch


def document(scenario, alert_names: list[str], rule_file: str = RULES_FILE) -> str:
    """The test file as JSON, which promtool reads as the YAML it is; every string is the judge's
    own (series selectors, minutes, names), never the submission's."""
    doc = {
        "rule_files": [rule_file],
        "evaluation_interval": "1m",
        "tests": [{
            "interval": "1m",
            "input_series": [{"series": s.selector(), "values": s.notation()} for s in scenario.series],
            "alert_rule_test": [{"eval_time": f"{t}m", "alertname": name, "exp_alerts": []}
                                for t in range(scenario.minutes + 1) for name in alert_names],
        }],
    }
    return json.dumps(doc, separators=(",", ":"))
