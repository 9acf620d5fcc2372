"""Rules tasks: a candidate's Prometheus rule file, checked with `promtool check rules` in the
compile sandbox, then unit-tested by promtool in the run sandbox on the task's hidden series; the
alerts that fired are compared with the task's expected ones in the parent (compare.py)."""
