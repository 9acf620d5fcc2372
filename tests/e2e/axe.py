"""Accessibility checks for the browser tests: axe-core, vendored by `make static/vendor/axe.min.js`,
run on the page a Selenium driver shows.

    from tests.e2e.axe import assert_accessible
    assert_accessible(driver)   # fails listing each serious or critical violation and where
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

AXE = Path(__file__).resolve().parents[2] / "static" / "vendor" / "axe.min.js"
BUILD_HINT = "axe-core is missing: run `make static/vendor/axe.min.js`"

RUN = """
const [context, options, done] = arguments;
axe.run(context || document, options || {}).then(
  (result) => done({violations: result.violations}),
  (error) => done({error: String(error)}));
"""


@lru_cache(maxsize=1)
def _axe_source() -> str:
    assert AXE.is_file(), BUILD_HINT
    return AXE.read_text(encoding="utf-8")


def violations(driver, impacts=("serious", "critical"), context=None, options=None) -> list[dict]:
    """The page's axe violations of those impacts: id, impact, help and each node's target.

    `context` and `options` go to axe.run as they are (e.g. {"exclude": [...]} and
    {"rules": {"color-contrast": {"enabled": False}}}).
    """
    # Injected as the page's own script (no network): a new page needs it again.
    if not driver.execute_script("return typeof window.axe === 'object';"):
        driver.execute_script(_axe_source())
    result = driver.execute_async_script(RUN, context, options)
    if "error" in result:
        raise AssertionError(f"axe.run failed: {result['error']}")
    return [{"id": v["id"], "impact": v["impact"], "help": v["help"],
             "targets": [" >> ".join(map(str, node["target"])) for node in v["nodes"]]}
            for v in result["violations"] if v["impact"] in impacts]


def describe(found: list[dict]) -> str:
    """One line per violation, then its nodes' targets, indented."""
    lines = []
    for v in found:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']}")
        lines.extend(f"    {target}" for target in v["targets"])
    return "\n".join(lines)


def assert_accessible(driver, impacts=("serious", "critical"), context=None, options=None) -> None:
    """Fail with the readable list when axe finds violations of those impacts."""
    found = violations(driver, impacts, context, options)
    if found:
        pytest.fail(f"axe: {len(found)} accessibility violation(s) on {driver.current_url}\n"
                    + describe(found), pytrace=False)
