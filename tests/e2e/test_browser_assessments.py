"""A candidate takes an assessment in a real browser (headless Chromium) against the real server:
invitation link, sign-in, start, the task page's editor, a sample run, a submission graded live.
A recruiter creates an assessment and invites from the pages too.

Screenshots go to $KERNELPATH_SCREENSHOTS (default tests/e2e/screenshots/, git-ignored): on
failure, and on success of the task page and the report at 1280 px and 390 px wide.
"""
import json
import os
import re
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.e2e.axe import assert_accessible
from tests.e2e.windows import PHONE, WIDE

pytestmark = [pytest.mark.db, pytest.mark.slow, pytest.mark.browser]

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("KERNELPATH_SCREENSHOTS") or ROOT / "tests" / "e2e" / "screenshots")
PASSWORD = "correct horse battery"
GRADING_WAIT_S = 300  # a sandboxed judge child per run; generous for a busy machine
JOB_TEXT = """GPU Kernel Engineer

Minimum qualifications:
- 3+ years writing CUDA kernels in C++; shared memory, warp shuffles and parallel reduction
- BS in Computer Science
"""


# ---- the API, for the recruiter's side ----------------------------------------------------


def call(base, method, path, body=None, token=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(base + path, method=method, headers=headers,
                                 data=json.dumps(body).encode() if body is not None else None)
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


def signup(base, email, role="candidate", organisation=None) -> str:
    body = {"email": email, "password": PASSWORD, "role": role}
    if organisation:
        body["organisation"] = organisation
    status, user = call(base, "POST", "/api/v1/auth/signup", body)
    assert status == 201, user
    status, token = call(base, "POST", "/api/v1/auth/tokens", {"email": email, "password": PASSWORD})
    assert status == 201, token
    return token["token"]


# ---- the browser --------------------------------------------------------------------------




def set_size(driver, width, height=WIDE[1]):
    """Size the viewport itself (the window's frame takes some of the window in headless mode)."""
    driver.set_window_size(width, height)
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight];")
    # The frame's share is the window minus the viewport; a busy browser may not have laid the
    # new size out yet and report a stale viewport: then there is nothing sane to add.
    frame = (width - inner[0], height - inner[1])
    if inner != [width, height] and 0 <= frame[0] < width and 0 <= frame[1] < height:
        driver.set_window_size(width + frame[0], height + frame[1])


def screenshot(driver, name: str, width: int = WIDE[0]) -> Path:
    """The whole page at this width: the viewport is made as tall as the page first, so that
    the editors lay out and paint every line (they render only what is in view)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    set_size(driver, width)
    for _ in range(2):
        height = driver.execute_script("return document.documentElement.scrollHeight;")
        set_size(driver, width, min(height, 10_000))
        time.sleep(0.3)
    driver.save_screenshot(str(path))
    set_size(driver, width)
    return path


@contextmanager
def screenshots_on_failure(driver, name):
    try:
        yield
    except BaseException:
        try:
            screenshot(driver, f"FAILED-{name}", driver.execute_script("return window.innerWidth;"))
        finally:
            raise


def wait(driver, timeout=20):
    """A wait whose condition may read the page while a click's navigation replaces it: an element
    gone stale is read again at the next poll."""
    return WebDriverWait(driver, timeout, ignored_exceptions=(StaleElementReferenceException,))


def sign_in(driver, email):
    driver.find_element(By.NAME, "email").send_keys(email)
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()


def sign_out(d):
    """Sign out and wait until the page says so (the next page must not open signed in)."""
    d.find_element(By.XPATH, "//header//button[contains(., 'Sign out')]").click()
    wait(d).until(lambda _: not d.find_elements(By.XPATH, "//header//button[contains(., 'Sign out')]"))


def code(driver) -> str:
    return driver.execute_script("return document.getElementById('source').value;")


def no_horizontal_scroll(driver) -> bool:
    return driver.execute_script(
        "return document.documentElement.scrollWidth <= window.innerWidth + 1;")


# ---- the candidate's path -----------------------------------------------------------------


def test_candidate_takes_an_assessment_in_the_browser(server, browser):
    base, _ = server
    d = browser
    set_size(d, WIDE[0])
    rec = signup(base, "rec@acme.test", "recruiter", "Acme GPU")
    status, job = call(base, "POST", "/api/v1/jobs",
                       {"title": "GPU Kernel Engineer", "text": JOB_TEXT}, rec)
    assert status == 201, job
    status, assessment = call(base, "POST", "/api/v1/assessments", {
        "job_id": job["id"], "tasks": ["vector_add"], "time_limit_minutes": 60,
        "backend": "cpu"}, rec)
    assert status == 201, assessment
    status, invite = call(base, "POST", f"/api/v1/assessments/{assessment['id']}/invitations",
                          {"email": "cand@example.com"}, rec)
    assert status == 201, invite

    with screenshots_on_failure(d, "candidate"):
        # The invitation, signed out: what it is, and a way to sign in that comes back here.
        d.get(invite["url"])
        facts = d.find_element(By.ID, "invitation-facts").text
        assert "Acme GPU" in facts and "1 GPU coding task" in facts and "60 minutes" in facts
        # No account yet: the sign-up page, with the invited address filled in, comes back here.
        d.find_element(By.LINK_TEXT, "Create a candidate account").click()
        wait(d).until(EC.url_contains("/signup"))
        assert d.find_element(By.NAME, "email").get_attribute("value") == "cand@example.com"
        d.find_element(By.NAME, "name").send_keys("Cand Idate")
        d.find_element(By.NAME, "password").send_keys(PASSWORD)
        d.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
        wait(d).until(EC.url_to_be(invite["url"]))

        # Start: the clock starts, the assessment page counts down.
        d.find_element(By.XPATH, "//button[contains(., 'Start now')]").click()
        wait(d).until(EC.url_contains(f"/assessments/{assessment['id']}"))
        countdown = d.find_element(By.CSS_SELECTOR, ".countdown .countdown-left")
        wait(d).until(lambda _: re.fullmatch(r"\d{1,2}:\d\d(:\d\d)?", countdown.text))
        assert "Not submitted yet" in d.find_element(By.ID, "assessment-tasks").text
        d.find_element(By.LINK_TEXT, "Vector addition").click()
        wait(d).until(EC.url_contains(f"/tasks/vector_add?assessment={assessment['id']}"))

        # The task page: statement, countdown, the editor with the raw starter.
        assert d.find_element(By.TAG_NAME, "h1").text == "Vector addition"
        assert "c[i] = a[i] + b[i]" in d.find_element(By.CSS_SELECTOR, ".statement").text
        assert d.find_elements(By.CSS_SELECTOR, ".assessment-banner .countdown")
        editor = wait(d).until(EC.presence_of_element_located((By.CSS_SELECTOR, ".solve .cm-editor")))
        assert "RawKernel" in code(d)

        # Pick the array style: an unchanged starter is replaced without asking.
        d.find_element(By.CSS_SELECTOR, "[data-style=array]").click()
        with pytest.raises(NoAlertPresentException):
            d.switch_to.alert.text  # noqa: B018
        assert "RawKernel" not in code(d) and "def solve(a, b, c, n):" in code(d)
        assert d.find_element(By.CSS_SELECTOR, "[data-style=array]").get_attribute("aria-current") == "true"

        # Type the solution over the starter's `pass`.
        content = editor.find_element(By.CSS_SELECTOR, ".cm-content")
        content.click()
        content.send_keys(Keys.CONTROL, Keys.END)
        if code(d).endswith("\n"):
            content.send_keys(Keys.UP)
        content.send_keys(Keys.END, Keys.SHIFT, Keys.HOME)
        content.send_keys("c[...] = a + b")
        typed = code(d)
        assert typed.rstrip().endswith("    c[...] = a + b"), typed
        assert "pass" not in typed

        # Changed code: choosing another style asks first; dismissing keeps the code.
        d.find_element(By.CSS_SELECTOR, "[data-style=raw]").click()
        alert = wait(d, 5).until(EC.alert_is_present())
        assert "Replace your code" in alert.text
        alert.dismiss()
        assert code(d) == typed

        # Run on the samples: the report comes in place, accepted on the samples.
        d.find_element(By.ID, "run-btn").click()
        wait(d, GRADING_WAIT_S).until(lambda _: d.find_elements(
            By.CSS_SELECTOR, "#result .report[data-status=done], #result .report[data-status=failed]"))
        verdict = d.find_element(By.CSS_SELECTOR, "#result .verdict")
        assert "Accepted" in verdict.text and "on the samples" in verdict.text, verdict.text
        assert "Sample run #" in d.find_element(By.ID, "run-status").text
        assert "not scored" in d.find_element(By.ID, "result").text
        assert d.find_elements(By.CSS_SELECTOR, "#result table.tests tr.pass")

        # Submit: the status line goes from queued/running to the verdict by itself.
        d.find_element(By.ID, "submit-btn").click()
        seen, began = [], time.monotonic()
        while time.monotonic() - began < GRADING_WAIT_S:
            line = d.find_element(By.ID, "run-status").text
            if line and (not seen or seen[-1] != line):
                seen.append(line)
            if re.match(r"Submission #\d+: (?!queued|running)", line):
                break
            time.sleep(0.05)
        assert any(re.search(r"Submission #\d+: (queued|running)", s) for s in seen), seen
        assert re.search(r"Submission #\d+: Accepted\.", seen[-1]), seen
        report = d.find_element(By.CSS_SELECTOR, "#result .report")
        assert "Accepted" in report.find_element(By.CSS_SELECTOR, ".verdict").text
        assert re.search(r"Score \d+(\.\d+)? / 100", report.text) and "estimated on H100" in report.text, report.text
        assert "on the samples" not in report.text

        # Screenshots of the task page and the report, wide and phone-sized.
        for width in (WIDE[0], PHONE[0]):
            screenshot(d, f"task-page-{width}", width)
            assert no_horizontal_scroll(d), f"the task page scrolls sideways at {width} px"
            assert_accessible(d)
        set_size(d, WIDE[0])

        # The submission's own page: source and report, and the assessment shows the best result.
        d.find_element(By.CSS_SELECTOR, "#run-status a").click()
        wait(d).until(EC.url_matches(r"/submissions/\d+$"))
        assert "Accepted" in d.find_element(By.CSS_SELECTOR, "#result .verdict").text
        assert "c[...] = a + b" in d.execute_script("return document.getElementById('sub-source').value;")
        for width in (WIDE[0], PHONE[0]):
            screenshot(d, f"report-{width}", width)
            assert no_horizontal_scroll(d), f"the report scrolls sideways at {width} px"
            assert_accessible(d)
        set_size(d, WIDE[0])
        d.get(f"{base}/assessments/{assessment['id']}")
        assert "Accepted" in d.find_element(By.ID, "assessment-tasks").text

        # Sign out for the next test.
        d.find_element(By.XPATH, "//header//button[contains(., 'Sign out')]").click()


# ---- the recruiter's pages ----------------------------------------------------------------


def test_recruiter_creates_an_assessment_and_invites_from_the_pages(server, browser):
    base, _ = server
    d = browser
    set_size(d, WIDE[0])
    rec = signup(base, "lead@initech.test", "recruiter", "Initech")
    status, job = call(base, "POST", "/api/v1/jobs",
                       {"title": "CUDA Performance Engineer", "text": JOB_TEXT}, rec)
    assert status == 201, job

    with screenshots_on_failure(d, "recruiter"):
        d.get(base + "/")
        d.delete_all_cookies()  # signed out, whatever the test before left
        d.get(base + "/assessments/")
        wait(d).until(EC.url_contains("/login"))
        sign_in(d, "lead@initech.test")
        wait(d).until(EC.url_to_be(base + "/assessments/"))
        ticked = [c.get_attribute("value") for c in
                  d.find_elements(By.CSS_SELECTOR, "input[name=tasks]:checked")]
        assert ticked, "the job's suggested tasks come pre-ticked"
        limit = d.find_element(By.ID, "time_limit_minutes")
        limit.clear()
        limit.send_keys("45")
        d.find_element(By.ID, "title").send_keys("Initech take-home")
        d.find_element(By.XPATH, "//button[contains(., 'Create assessment')]").click()
        wait(d).until(EC.url_matches(r"/assessments/\d+$"))
        assert "Initech take-home" in d.find_element(By.TAG_NAME, "h1").text
        assert "45 minutes" in d.find_element(By.ID, "settings").text

        d.find_element(By.ID, "invite-email").send_keys("someone@example.com")
        d.find_element(By.XPATH, "//form[contains(@class, 'invite')]//button").click()
        link = wait(d).until(EC.presence_of_element_located((By.ID, "invite-link")))
        assert "/invitations/kpa_" in link.get_attribute("value")
        assert "not e-mailed" in d.find_element(By.CSS_SELECTOR, ".invite-result").text
        assert "someone@example.com" in d.find_element(By.ID, "invitations").text
        # A reload after inviting invites nobody again (the page came by redirect after POST).
        d.refresh()
        assert d.find_element(By.ID, "invitations").text.count("someone@example.com") == 1
        for width in (WIDE[0], PHONE[0]):
            screenshot(d, f"recruiter-assessment-{width}", width)
            assert no_horizontal_scroll(d), f"the assessment page scrolls sideways at {width} px"
            # Nor does any table inside its own box: progress stays in view at phone width.
            hidden = d.execute_script(
                "return [...document.querySelectorAll('.table-scroll')]"
                ".filter(b => b.scrollWidth > b.clientWidth + 1).map(b => b.getAttribute('aria-label'));")
            assert not hidden, f"{hidden} scroll sideways at {width} px"
        set_size(d, WIDE[0])
        d.find_element(By.XPATH, "//header//button[contains(., 'Sign out')]").click()
