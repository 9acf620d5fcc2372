"""An infrastructure assessment in a real browser (headless Chromium) against the real server and
sandbox: a recruiter creates it from the pages for an infrastructure job (the suggested tasks are
infrastructure tasks), a candidate solves one in Python, and the skill it verifies appears in the
candidate's ranking reasons on the job's page.
"""
import re

import pytest

from gpu_tasks import bank
from tests.e2e.axe import assert_accessible
from tests.e2e.test_browser_assessments import (GRADING_WAIT_S, PASSWORD, PHONE, WIDE, call, code,
                                                no_horizontal_scroll, screenshot,
                                                screenshots_on_failure, set_size, sign_in, sign_out,
                                                signup, wait)

pytestmark = [pytest.mark.db, pytest.mark.slow, pytest.mark.browser]

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

JOB_TEXT = """GPU Cluster Reliability Engineer

Minimum qualifications:
- 3+ years operating large GPU clusters: NCCL collective communication and all-reduce tuning
- Prometheus and DCGM alerting on GPU health; triage of Xid errors
- GPU scheduling and placement on NVLink domains
- Python
"""

# Reduce-scatter, then all-gather: 2(p-1) steps, each rank sending one chunk to its neighbour.
RING = '''def schedule(p):
    steps = []
    for s in range(p - 1):
        steps.append([(i, (i + 1) % p, (i - s) % p, "reduce") for i in range(p)])
    for s in range(p - 1):
        steps.append([(i, (i + 1) % p, (i + 1 - s) % p, "copy") for i in range(p)])
    return steps
'''


def test_infrastructure_assessment_verifies_a_skill_that_ranks_the_candidate(server, browser):
    base, _ = server
    d = browser
    set_size(d, WIDE[0])
    rec = signup(base, "ops@fleetworks.test", "recruiter", "Fleet Works")
    status, job = call(base, "POST", "/api/v1/jobs", {"title": "GPU Cluster Reliability Engineer",
                                                      "text": JOB_TEXT}, rec)
    assert status == 201, job
    assert job["parse"]["primary_track"] == "infrastructure", job["parse"]

    with screenshots_on_failure(d, "infra-recruiter"):
        d.get(base + "/")
        d.delete_all_cookies()
        d.get(base + "/assessments/")
        wait(d).until(EC.url_contains("/login"))
        sign_in(d, "ops@fleetworks.test")
        wait(d).until(EC.url_to_be(base + "/assessments/"))
        Select(d.find_element(By.ID, "job_id")).select_by_value(str(job["id"]))
        form = d.find_element(By.ID, "job_id")
        d.find_element(By.XPATH, "//button[contains(., 'Suggest tasks for this job')]").click()
        wait(d).until(EC.staleness_of(form))   # the old page is gone; then the new one, whole
        wait(d).until(lambda _: d.execute_script("return document.readyState") == "complete"
                      and d.find_elements(By.CSS_SELECTOR, "button[type=submit]")
                      and "Create assessment" in d.find_element(By.TAG_NAME, "main").text)
        ticked = [c.get_attribute("value") for c in d.find_elements(By.CSS_SELECTOR, "input[name=tasks]:checked")]
        assert ticked, "the job's suggested tasks come pre-ticked"
        assert all(bank.find(t).track == "infrastructure" for t in ticked), ticked
        if "ring_allreduce" not in ticked:
            d.find_element(By.CSS_SELECTOR, "input[name=tasks][value=ring_allreduce]").click()
        d.find_element(By.ID, "title").send_keys("Fleet Works on-call take-home")
        d.find_element(By.XPATH, "//button[contains(., 'Create assessment')]").click()
        wait(d).until(EC.url_matches(r"/assessments/\d+$"))
        assessment_id = int(re.search(r"/assessments/(\d+)$", d.current_url).group(1))
        d.find_element(By.ID, "invite-email").send_keys("oncall@example.com")
        d.find_element(By.XPATH, "//form[contains(@class, 'invite')]//button").click()
        invite_url = wait(d).until(EC.presence_of_element_located((By.ID, "invite-link"))).get_attribute("value")
        sign_out(d)

    with screenshots_on_failure(d, "infra-candidate"):
        d.get(invite_url)
        d.find_element(By.LINK_TEXT, "Create a candidate account").click()
        wait(d).until(EC.url_contains("/signup"))
        d.find_element(By.NAME, "name").send_keys("Sam Oncall")
        d.find_element(By.NAME, "password").send_keys(PASSWORD)
        d.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
        wait(d).until(EC.url_to_be(invite_url))
        d.find_element(By.XPATH, "//button[contains(., 'Start now')]").click()
        wait(d).until(EC.url_contains(f"/assessments/{assessment_id}"))
        d.find_element(By.LINK_TEXT, bank.find("ring_allreduce").title).click()
        wait(d).until(EC.url_contains(f"/tasks/ring_allreduce?assessment={assessment_id}"))
        wait(d).until(EC.presence_of_element_located((By.CSS_SELECTOR, ".solve .cm-editor")))
        assert code(d).startswith("def schedule(p):")
        # The banner says how a function is judged, not that it is simulated.
        banner = d.find_element(By.CSS_SELECTOR, ".assessment-banner").text
        assert "each is called on hidden inputs in the sandbox" in banner and "simulated" not in banner
        d.execute_script("window.KernelPathEditor.setValue(document.getElementById('source'), arguments[0]);", RING)
        d.find_element(By.ID, "submit-btn").click()
        wait(d, GRADING_WAIT_S).until(lambda _: re.match(
            r"Submission #\d+: (?!queued|running)", d.find_element(By.ID, "run-status").text))
        report = d.find_element(By.CSS_SELECTOR, "#result .report")
        assert "Accepted" in report.find_element(By.CSS_SELECTOR, ".verdict").text, report.text
        assert re.search(r"Score 100(\.0)? / 100", report.text), report.text
        for width in (WIDE[0], PHONE[0]):
            screenshot(d, f"infra-report-{width}", width)
            assert no_horizontal_scroll(d), f"the report scrolls sideways at {width} px"
            assert_accessible(d)
        set_size(d, WIDE[0])
        sign_out(d)

    with screenshots_on_failure(d, "infra-ranking"):
        d.get(base + "/login")
        sign_in(d, "ops@fleetworks.test")
        wait(d).until(lambda _: "/login" not in d.current_url)   # signed in before moving on
        d.get(f"{base}/jobs/{job['id']}")
        top = d.find_element(By.ID, "top-candidates")
        assert "Sam Oncall" in top.text
        top.find_element(By.TAG_NAME, "summary").click()
        reasons = [li.text for li in top.find_elements(By.CSS_SELECTOR, "details li")]
        assert any(r.startswith("Collective communication (required), verified") for r in reasons), reasons
        screenshot(d, "infra-ranking-1280")
