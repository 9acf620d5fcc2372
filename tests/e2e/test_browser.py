"""A real browser (headless Chromium) against the real server: paste a posting, read the parse."""

import pytest

pytestmark = [pytest.mark.db, pytest.mark.slow, pytest.mark.browser]

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.support import expected_conditions  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


@pytest.fixture(scope="module")
def browser(start_chromium):
    driver = start_chromium()
    yield driver
    driver.quit()


def test_paste_a_posting_and_see_its_parse(server, browser):
    from selenium.webdriver.common.by import By

    base, _ = server
    browser.get(base + "/")
    posting = ("Senior RTL Design Engineer\nRequirements:\n- 6+ years of Verilog and System Verilog\n"
               "- UVM testbenches\n- BS/MS in EE\nPay: $170,000 - $230,000")
    browser.find_element(By.NAME, "text").send_keys(posting)
    browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    track = WebDriverWait(browser, 20).until(
        expected_conditions.presence_of_element_located((By.ID, "primary-track")))
    assert track.text == "GPU hardware design"
    skills = browser.find_element(By.ID, "skills").text
    assert "Verilog" in skills and "UVM" in skills
    assert browser.find_element(By.ID, "min-years").text == "6"
    assert "170,000" in browser.page_source


def test_job_list_filters_by_track(server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    base, _ = server
    browser.get(base + "/jobs/")
    Select(browser.find_element(By.NAME, "track")).select_by_value("architecture_modeling")
    browser.find_element(By.CSS_SELECTOR, "form button").click()
    # The click starts a navigation: wait for the filtered page before reading it.
    WebDriverWait(browser, 20).until(expected_conditions.url_contains("track=architecture_modeling"))
    rows = browser.find_elements(By.CSS_SELECTOR, "#jobs tbody tr")
    assert rows and all("GPU architecture and modeling" in r.text for r in rows)
    rows[0].find_element(By.TAG_NAME, "a").click()
    track = WebDriverWait(browser, 20).until(
        expected_conditions.presence_of_element_located((By.ID, "primary-track")))
    assert track.text == "GPU architecture and modeling"
    # Every mention the parse found is marked in the posting, by its need, and reachable by keyboard.
    marks = browser.find_elements(By.CSS_SELECTOR, "#posting-text mark.skill")
    assert marks and all(m.get_attribute("tabindex") == "0" for m in marks)
    classes = {c for m in marks for c in m.get_attribute("class").split()}
    assert "required" in classes
    assert all(m.get_attribute("title") for m in marks)
