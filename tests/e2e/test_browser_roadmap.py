"""A learner goes from a pasted résumé to a saved roadmap and its PDF, and a recruiter from a
job to its ranked candidates and a match report, in headless Chromium against the real server.
Screenshots of the roadmap and the ranking go to $KERNELPATH_SCREENSHOTS like the others."""
import re
import urllib.request

import pytest

pytestmark = [pytest.mark.db, pytest.mark.slow, pytest.mark.browser]

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from test_browser_assessments import (JOB_TEXT, PHONE, call, screenshot, screenshots_on_failure,  # noqa: E402
                                      set_size, sign_in, signup)

from tests.e2e.axe import assert_accessible  # noqa: E402

RESUME = "Ada Lovelace\nMS in Computer Science\n4 years of C++ and Python; CUDA kernels with shared memory."


@pytest.fixture(scope="module")
def browser(start_chromium):
    driver = start_chromium("--window-size=1280,900", "--hide-scrollbars")
    yield driver
    driver.quit()


def test_a_learner_pastes_a_resume_and_saves_a_roadmap_with_its_pdf(server, browser):
    base, _ = server
    signup(base, "ada@learner.test")
    with screenshots_on_failure(browser, "roadmap"):
        browser.get(base + "/login")
        sign_in(browser, "ada@learner.test")
        WebDriverWait(browser, 20).until(EC.url_changes(base + "/login"))
        browser.get(base + "/roadmap")
        browser.find_element(By.ID, "profile_text").send_keys(RESUME)
        browser.find_element(By.ID, "location").send_keys("Seattle, WA")
        browser.find_element(By.CSS_SELECTOR, "button[name=save]").click()
        WebDriverWait(browser, 30).until(EC.presence_of_element_located((By.ID, "timeline")))
        assert "/roadmaps/" in browser.current_url
        steps = browser.find_elements(By.CSS_SELECTOR, "#timeline li.step")
        assert steps and "you claim it" in browser.find_element(By.ID, "timeline").text
        # An entry-level target: too few junior postings alone, so neighbouring levels join, and
        # every step names how many postings ask for it (never one posting's words).
        browser.get(base + "/roadmap")
        Select(browser.find_element(By.ID, "level")).select_by_value("entry")
        browser.find_element(By.XPATH, "//button[contains(., 'Show my roadmap')]").click()
        WebDriverWait(browser, 30).until(EC.presence_of_element_located((By.ID, "target-basis")))
        assert "neighbouring levels joined" in browser.find_element(By.ID, "target-basis").text
        counts = [int(m) for m in re.findall(r"by (\d+) of the \d+ postings",
                                              browser.find_element(By.ID, "timeline").text)]
        assert counts and min(counts) >= 3, counts
        browser.get(base + "/roadmap")
        browser.find_element(By.ID, "profile_text").send_keys(RESUME)
        browser.find_element(By.ID, "location").send_keys("Seattle, WA")
        browser.find_element(By.CSS_SELECTOR, "button[name=save]").click()
        WebDriverWait(browser, 30).until(EC.presence_of_element_located((By.ID, "timeline")))
        steps = browser.find_elements(By.CSS_SELECTOR, "#timeline li.step")
        assert browser.find_element(By.ID, "salary-title").text.startswith("Salary band")
        assert_accessible(browser)
        screenshot(browser, "roadmap")
        screenshot(browser, "roadmap-phone", PHONE[0])
        assert_accessible(browser)
        set_size(browser, 1280)
        # Tick the first step off, by keyboard-reachable button.
        first = steps[0].get_attribute("id")
        browser.find_element(By.CSS_SELECTOR, f"#{first} form button").click()
        # The click reloads the page: the old element goes stale while the new one arrives.
        WebDriverWait(browser, 30, ignored_exceptions=(StaleElementReferenceException,)).until(
            lambda d: "done" in d.find_element(By.ID, first).get_attribute("class"))
        pdf_link = browser.find_element(By.LINK_TEXT, "Download PDF").get_attribute("href")
        cookies = "; ".join(f"{c['name']}={c['value']}" for c in browser.get_cookies())
        req = urllib.request.Request(pdf_link, headers={"Cookie": cookies})
        with urllib.request.urlopen(req, timeout=60) as resp:
            assert resp.headers["Content-Type"] == "application/pdf" and resp.read(5) == b"%PDF-"


def test_a_recruiter_ranks_the_candidates_of_a_job(server, browser):
    base, _ = server
    rec = signup(base, "rec@ranking.test", "recruiter", "Ranking GPU")
    status, job = call(base, "POST", "/api/v1/jobs", {"title": "GPU Kernel Engineer", "text": JOB_TEXT}, rec)
    assert status == 201, job
    for email, text in (("strong@cand.test", "6 years of CUDA and C++: shared memory, warp shuffles, "
                                             "parallel reduction. BS in Computer Science."),
                        ("weak@cand.test", "1 year of Verilog.")):
        token = signup(base, email)
        call(base, "PATCH", "/api/v1/auth/me", {"name": email.split("@")[0].title() + " Candidate"}, token)
        status, me = call(base, "GET", "/api/v1/auth/me", token=token)
        call(base, "PUT", f"/api/v1/candidates/{me['id']}/profile", {"text": text}, token)
        assert call(base, "POST", f"/api/v1/jobs/{job['id']}/applications", token=token)[0] == 201
    browser.delete_all_cookies()
    with screenshots_on_failure(browser, "ranked"):
        browser.get(base + "/login")
        sign_in(browser, "rec@ranking.test")
        WebDriverWait(browser, 20).until(EC.url_changes(base + "/login"))
        browser.get(f"{base}/jobs/{job['id']}")
        browser.find_element(By.LINK_TEXT, "Ranked candidates").click()
        WebDriverWait(browser, 30).until(EC.url_contains("/candidates"))
        cards = WebDriverWait(browser, 30).until(
            EC.presence_of_all_elements_located((By.CSS_SELECTOR, "#ranked-candidates li.card")))
        assert len(cards) == 2
        cards[0].find_element(By.TAG_NAME, "summary").click()
        assert "CUDA" in cards[0].text and "applied" in cards[0].text
        # The recruiter sees who they are: the name and the address they applied with.
        assert "Strong Candidate" in cards[0].text and "strong@cand.test" in cards[0].text
        assert_accessible(browser)
        screenshot(browser, "ranked-candidates")
        cards[0].find_element(By.LINK_TEXT, "Match report").click()
        WebDriverWait(browser, 30).until(EC.url_contains("/report"))
        assert "for “GPU Kernel Engineer”" in browser.page_source


def test_a_candidate_types_a_profile_and_sees_the_claims_apart_from_verified_skills(server, browser):
    base, _ = server
    token = signup(base, "grace@profile.test")
    status, me = call(base, "GET", "/api/v1/auth/me", token=token)
    assert status == 200
    browser.delete_all_cookies()
    with screenshots_on_failure(browser, "profile"):
        browser.get(base + "/login")
        sign_in(browser, "grace@profile.test")
        WebDriverWait(browser, 20).until(EC.url_changes(base + "/login"))
        browser.find_element(By.LINK_TEXT, "My profile").click()
        WebDriverWait(browser, 20).until(EC.url_contains(f"/candidates/{me['id']}/profile"))
        field = browser.find_element(By.ID, "profile-text")
        field.clear()
        field.send_keys("5 years of CUDA and C++, NCCL for multi-GPU training. MS in Computer Science.")
        browser.find_element(By.CSS_SELECTOR, "form.profile-text button[type=submit]").click()
        WebDriverWait(browser, 20).until(EC.text_to_be_present_in_element((By.TAG_NAME, "body"),
                                                                          "Profile saved."))
        claimed = browser.find_element(By.ID, "claimed-h").find_element(By.XPATH, "..").text
        assert "CUDA" in claimed and "NCCL" in claimed
        # Nothing graded yet: a claim is never shown as verified.
        verified = browser.find_element(By.ID, "verified-h").find_element(By.XPATH, "..").text
        assert "CUDA" not in verified
        browser.refresh()
        assert "NCCL" in browser.find_element(By.ID, "profile-text").get_attribute("value")
        assert_accessible(browser)
        screenshot(browser, "profile")
        screenshot(browser, "profile-phone", PHONE[0])
