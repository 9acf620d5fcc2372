"""A candidate iterates on speed without a GPU, in a real browser against the real server: a naive
transpose run on the samples shows the estimated H100 time, the per-line counters and the hint
about its strided store; submitted, it scores; the tiled fix runs faster in the estimate and
scores more. Screenshots of the report with its source view at 1280 px and 390 px."""
import re
from pathlib import Path

import pytest

from tests.e2e.axe import assert_accessible
from tests.e2e.test_browser_assessments import (GRADING_WAIT_S, PHONE, WIDE, no_horizontal_scroll, screenshot,
                                                screenshots_on_failure, set_size, sign_in, signup, wait)

pytestmark = [pytest.mark.db, pytest.mark.slow, pytest.mark.browser]

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
NAIVE = (ROOT / "tests" / "fixtures" / "submissions" / "matrix_transpose" / "naive.py").read_text()
TILED = (ROOT / "gpu_tasks" / "solutions" / "matrix_transpose.py").read_text()


def _put_code(d, text: str) -> None:
    d.execute_script("window.KernelPathEditor.setValue(document.getElementById('source'), arguments[0]);",
                     text)


def _finished(d, button: str):
    before = d.find_elements(By.CSS_SELECTOR, "#result .report")
    d.find_element(By.ID, button).click()
    if before:   # the last result stays until the new one replaces it
        wait(d, GRADING_WAIT_S).until(EC.staleness_of(before[0]))
    wait(d, GRADING_WAIT_S).until(lambda _: d.find_elements(
        By.CSS_SELECTOR, "#result .report[data-status=done], #result .report[data-status=failed]"))
    return d.find_element(By.CSS_SELECTOR, "#result .report")


def _estimate_us(report) -> float:
    text = report.find_element(By.CSS_SELECTOR, ".profile .estimate").text
    value, unit = re.match(r"([\d.]+) (µs|ms)", text).groups()
    return float(value) * (1000 if unit == "ms" else 1)


def _score(report) -> float:
    return float(re.search(r"Score ([\d.]+) / 100", report.text).group(1))


def test_a_candidate_reads_the_strided_store_hint_fixes_it_and_gets_faster(server, browser):
    (base, _), d = server, browser
    signup(base, "speedy@example.com")
    with screenshots_on_failure(d, "profile"):
        d.get(f"{base}/login?next=/tasks/matrix_transpose")
        sign_in(d, "speedy@example.com")
        wait(d).until(EC.presence_of_element_located((By.CSS_SELECTOR, ".solve .cm-editor")))
        glance = d.find_element(By.CSS_SELECTOR, ".glance").text
        assert "measured on the GPU backend" in glance and "estimated for an H100" in glance

        # The first attempt, on the samples: the estimate, the bound and the hint on the store.
        _put_code(d, NAIVE)
        report = _finished(d, "run-btn")
        assert "Accepted" in report.find_element(By.CSS_SELECTOR, ".verdict").text
        profile = report.find_element(By.CSS_SELECTOR, ".profile")
        assert "Estimated on H100" in profile.text and "Not a measurement" in profile.text
        naive_us = _estimate_us(report)
        hints = profile.find_element(By.CSS_SELECTOR, "ol.hints").text
        assert "stores of `b`" in hints and "12.5% efficiency" in hints, hints
        hot = profile.find_elements(By.CSS_SELECTOR, "table.source-view tr.hot")
        assert hot and "b[(size_t)col * rows + row]" in hot[0].text
        heads = [th.text for th in profile.find_elements(By.CSS_SELECTOR, "table.source-view th")]
        cells = hot[0].find_elements(By.CSS_SELECTOR, "td")
        assert int(cells[heads.index("Coalescing")].text.rstrip("%")) < 60
        assert cells[heads.index("Lanes active")].text == "100%"           # no branch splits a warp

        # Submitted as it is: it scores, the performance part marked as estimated.
        report = _finished(d, "submit-btn")
        assert "estimated on H100" in report.text
        naive_score = _score(report)

        # The fix: a shared-memory tile, so that the stores are coalesced too.
        _put_code(d, TILED)
        report = _finished(d, "run-btn")
        tiled_us = _estimate_us(report)
        assert tiled_us < naive_us / 1.5, (tiled_us, naive_us)
        assert "12.5% efficiency" not in report.find_element(By.CSS_SELECTOR, ".profile").text
        report = _finished(d, "submit-btn")
        assert _score(report) > naive_score

        # The report with its source view, wide and on a phone.
        d.find_element(By.CSS_SELECTOR, "#run-status a").click()
        wait(d).until(EC.url_matches(r"/submissions/\d+$"))
        assert d.find_elements(By.CSS_SELECTOR, "#result .profile table.source-view")
        for width in (WIDE[0], PHONE[0]):
            screenshot(d, f"profile-report-{width}", width)
            assert no_horizontal_scroll(d), f"the report scrolls sideways at {width} px"
            assert_accessible(d)
        set_size(d, WIDE[0])
