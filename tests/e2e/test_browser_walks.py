"""Each user's main path through the pages, in headless Chromium against the real server, with
every page checked by axe-core (no serious or critical violation) and screenshot at laptop and
phone width, where it must not scroll sideways.

The recruiter signs up with a new organisation, posts a job from a pasted description,
corrects what was read, edits the job and invites a colleague; a newcomer finds jobs with the
filters and the skill suggestions; the remaining pages are visited as each user sees them.
(The candidate's assessment and the learner's roadmap are walked in test_browser_assessments.py
and test_browser_roadmap.py, which run the same checks.)
"""

import pytest

from tests.e2e.axe import assert_accessible
from tests.e2e.test_browser_assessments import (PASSWORD, PHONE, WIDE, no_horizontal_scroll,
                                                screenshot, screenshots_on_failure, set_size,
                                                wait)

pytestmark = [pytest.mark.db, pytest.mark.slow, pytest.mark.browser]

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

POSTING = """Senior GPU Communication Libraries Engineer
Santa Clara, CA (Hybrid)

About the role
You will make collective communication fast on clusters of thousands of GPUs.

Requirements:
- 6+ years of C++ and CUDA
- Deep experience with NCCL, MPI and RDMA over InfiniBand
- MS in Computer Science or equivalent

Nice to have:
- Kubernetes and Slurm

The base salary range is $190,000 - $260,000 per year.
"""


BARE_POSTING = """GPU Cluster Engineer
We run Kubernetes and Slurm for GPU training jobs.
You will keep the NCCL collectives fast and the DCGM dashboards green.
"""


@pytest.fixture(scope="module")
def browser(start_chromium):
    driver = start_chromium(f"--window-size={WIDE[0]},{WIDE[1]}", "--hide-scrollbars")
    yield driver
    driver.quit()


def check_page(driver, name: str) -> None:
    """axe at laptop width, then screenshots at both widths; no sideways scroll on a phone."""
    set_size(driver, WIDE[0])
    assert_accessible(driver)
    screenshot(driver, f"{name}-{WIDE[0]}", WIDE[0])
    screenshot(driver, f"{name}-{PHONE[0]}", PHONE[0])
    assert no_horizontal_scroll(driver), f"{name} scrolls sideways at {PHONE[0]} px"
    assert_accessible(driver)  # the phone layout is a page of its own
    set_size(driver, WIDE[0])


def fill(driver, name: str, value: str) -> None:
    field = driver.find_element(By.NAME, name)
    field.clear()
    field.send_keys(value)


def sign_out(driver):
    driver.find_element(By.XPATH, "//header//button[contains(., 'Sign out')]").click()
    wait(driver).until(lambda d: d.find_elements(By.LINK_TEXT, "Sign in"))


def test_a_recruiter_signs_up_posts_edits_and_invites(server, browser):
    base, _ = server
    d = browser
    set_size(d, WIDE[0])
    with screenshots_on_failure(d, "recruiter-walk"):
        # Sign up from the header, with a mistake first: the form says what is wrong, in place.
        d.get(base + "/")
        d.find_element(By.LINK_TEXT, "Sign up").click()
        wait(d).until(EC.url_contains("/signup"))
        check_page(d, "signup")
        fill(d, "name", "Lena Lead")
        fill(d, "email", "lead@tensorworks.test")
        fill(d, "password", "short")
        d.find_element(By.CSS_SELECTOR, "input[name=role][value=recruiter]").click()
        fill(d, "organisation", "Tensorworks")
        d.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
        error = wait(d).until(EC.presence_of_element_located((By.ID, "f-password-error")))
        assert "8" in error.text
        assert d.find_element(By.ID, "f-password").get_attribute("aria-invalid") == "true"
        assert_accessible(d)
        fill(d, "password", PASSWORD)
        d.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
        wait(d).until(EC.url_contains("/jobs/mine"))
        assert "Tensorworks" in d.find_element(By.TAG_NAME, "h1").text

        # Post a job: paste, read, correct, save.
        d.find_element(By.LINK_TEXT, "Post a job").click()
        wait(d).until(EC.url_contains("/jobs/new"))
        fill(d, "title", "Senior GPU Communication Libraries Engineer")
        fill(d, "location", "Santa Clara, CA")
        d.find_element(By.NAME, "text").send_keys(POSTING)
        check_page(d, "post-job")
        d.find_element(By.XPATH, "//button[contains(., 'Read it')]").click()
        wait(d).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#posting-text mark.skill")))
        marked = {m.get_attribute("data-skill") for m in d.find_elements(By.CSS_SELECTOR, "#posting-text mark.skill")}
        assert {"nccl", "infiniband"} <= marked, marked
        assert Select(d.find_element(By.NAME, "seniority")).first_selected_option.text == "Senior"
        assert Select(d.find_element(By.NAME, "workplace")).first_selected_option.text == "Hybrid"
        assert d.find_element(By.NAME, "salary_min").get_attribute("value") == "190000"
        check_page(d, "review-job")
        Select(d.find_element(By.NAME, "seniority")).select_by_visible_text("Staff / principal")
        Select(d.find_element(By.NAME, "need.slurm")).select_by_visible_text("Remove")
        # Adding a skill: suggestions come from the API as one types.
        add = d.find_element(By.NAME, "add_skills")
        add.send_keys("Triton")
        wait(d).until(lambda _: d.find_elements(By.CSS_SELECTOR, "#skill-suggestions option"))
        # A mistake in another field: the form comes back with every correction still made.
        fill(d, "min_years", "many")
        d.find_element(By.XPATH, "//button[contains(., 'Save the job')]").click()
        wait(d).until(EC.presence_of_element_located((By.ID, "f-min_years-error")))
        assert Select(d.find_element(By.NAME, "seniority")).first_selected_option.text == "Staff / principal"
        assert not d.find_elements(By.NAME, "need.slurm")
        fill(d, "min_years", "6")
        d.find_element(By.XPATH, "//button[contains(., 'Save the job')]").click()
        wait(d).until(EC.url_matches(r"/jobs/\d+$"))
        job_url = d.current_url
        facts = d.find_element(By.ID, "seniority").text
        assert facts == "Staff / principal"
        skills = {td.text for td in d.find_elements(By.CSS_SELECTOR, "#skills td.skill-name")}
        assert "Triton (language)" in skills and "Slurm" not in skills, skills
        check_page(d, "job")

        # A posting without pay, years or a title, typed rather than pasted: the parser's title
        # fills the form and every page shows what is not stated.
        d.find_element(By.LINK_TEXT, "Our jobs").click()
        wait(d).until(EC.url_contains("/jobs/mine"))
        d.find_element(By.LINK_TEXT, "Post a job").click()
        wait(d).until(EC.url_contains("/jobs/new"))
        d.find_element(By.NAME, "text").send_keys(BARE_POSTING)
        d.find_element(By.XPATH, "//button[contains(., 'Read it')]").click()
        wait(d).until(EC.presence_of_element_located((By.NAME, "salary_min")))
        assert d.find_element(By.NAME, "title").get_attribute("value") == "GPU Cluster Engineer"
        assert d.find_element(By.NAME, "salary_min").get_attribute("value") == ""
        assert d.find_element(By.NAME, "min_years").get_attribute("value") == ""
        d.find_element(By.XPATH, "//button[contains(., 'Save the job')]").click()
        wait(d).until(EC.url_matches(r"/jobs/\d+$"))
        assert d.find_element(By.TAG_NAME, "h1").text == "GPU Cluster Engineer"
        d.get(job_url)

        # Edit the title.
        d.find_element(By.LINK_TEXT, "Edit").click()
        wait(d).until(EC.url_contains("/edit"))
        check_page(d, "edit-job")
        fill(d, "title", "Staff GPU Communication Libraries Engineer")
        d.find_element(By.XPATH, "//button[contains(., 'Save changes')]").click()
        wait(d).until(EC.url_to_be(job_url))
        assert d.find_element(By.TAG_NAME, "h1").text == "Staff GPU Communication Libraries Engineer"
        assert d.find_element(By.ID, "seniority").text == "Staff / principal"  # still corrected

        # Invite a colleague: no mail server here, so the link is shown once.
        d.find_element(By.LINK_TEXT, "Organisation").click()
        wait(d).until(EC.url_contains("/organisation"))
        fill(d, "email", "colleague@tensorworks.test")
        d.find_element(By.XPATH, "//button[contains(., 'Invite')]").click()
        link = wait(d).until(EC.presence_of_element_located((By.ID, "invite-link"))).get_attribute("value")
        assert "/signup?invitation=" in link
        check_page(d, "organisation")
        d.find_element(By.LINK_TEXT, "Our jobs").click()
        wait(d).until(EC.url_contains("/jobs/mine"))
        assert "Staff GPU Communication" in d.find_element(By.ID, "my-jobs").text
        check_page(d, "my-jobs")
        d.find_element(By.PARTIAL_LINK_TEXT, "lead@tensorworks.test").click()
        wait(d).until(EC.url_contains("/account"))
        d.find_element(By.XPATH, "//button[contains(., 'Create token')]").click()
        token = wait(d).until(EC.presence_of_element_located((By.ID, "new-token"))).get_attribute("value")
        assert token.startswith("kp_")
        check_page(d, "account")
        sign_out(d)

        # The colleague follows the link: the invitation names the organisation.
        d.get(link)
        assert "by invitation" in d.find_element(By.CSS_SELECTOR, "main form").text
        fill(d, "name", "Colin Colleague")
        fill(d, "password", PASSWORD)
        d.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
        wait(d).until(EC.url_contains("/jobs/mine"))
        assert "Staff GPU Communication" in d.find_element(By.ID, "my-jobs").text
        sign_out(d)


def test_a_newcomer_filters_jobs_with_suggested_skills(server, browser):
    base, _ = server
    d = browser
    set_size(d, WIDE[0])
    with screenshots_on_failure(d, "job-filters"):
        d.get(base + "/jobs/")
        check_page(d, "jobs")
        assert d.find_elements(By.CSS_SELECTOR, "#jobs .badge.example"), "starter jobs are marked"
        skills = d.find_element(By.NAME, "skills")
        skills.send_keys("CUD")
        wait(d).until(lambda _: any("CUDA" in (o.get_attribute("value") or "")
                                    for o in d.find_elements(By.CSS_SELECTOR, "#skill-suggestions option")))
        skills.clear()
        skills.send_keys("CUDA, NCCL")
        Select(d.find_element(By.NAME, "track")).select_by_visible_text("GPU software optimization")
        d.find_element(By.XPATH, "//button[contains(., 'Filter')]").click()
        wait(d).until(EC.url_contains("skills=CUDA"))
        rows = d.find_elements(By.CSS_SELECTOR, "#jobs tbody tr")
        assert rows and all("GPU software optimization" in r.text for r in rows)
        # An unknown skill is a message on the page, tied to the field.
        skills = d.find_element(By.NAME, "skills")
        skills.clear()
        skills.send_keys("Basket weaving")
        d.find_element(By.XPATH, "//button[contains(., 'Filter')]").click()
        alert = wait(d).until(EC.presence_of_element_located((By.CSS_SELECTOR, ".form-summary[role=alert]")))
        assert "Basket weaving" in alert.text
        check_page(d, "jobs-unknown-filter")


def test_the_other_main_pages_pass_the_checks(server, browser):
    base, _ = server
    d = browser
    set_size(d, WIDE[0])
    pages = {"home": "/", "login": "/login", "tasks": "/tasks/", "task": "/tasks/vector_add",
             "roadmap": "/roadmap", "forgot-password": "/password/forgot", "not-found": "/no/such/page"}
    for name, path in pages.items():
        with screenshots_on_failure(d, name):
            d.get(base + path)
            wait(d).until(EC.presence_of_element_located((By.TAG_NAME, "h1")))
            check_page(d, name)
    # A keyboard user reaches the content first.
    d.get(base + "/jobs/")
    from selenium.webdriver.common.keys import Keys
    d.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    focused = d.switch_to.active_element
    assert focused.text == "Skip to content"
