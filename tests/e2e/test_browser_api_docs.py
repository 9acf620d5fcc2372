"""The API docs page in headless Chromium against the real server: Swagger UI renders every
operation from local files only, passes axe-core, and "Try it out" works with a bearer token."""
import json
import urllib.request

import pytest

pytestmark = [pytest.mark.db, pytest.mark.slow, pytest.mark.browser]

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from test_browser_assessments import signup  # noqa: E402
from tests.e2e.axe import assert_accessible  # noqa: E402

METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def browser(start_chromium):
    driver = start_chromium("--window-size=1280,900",
                            capabilities={"goog:loggingPrefs": {"performance": "ALL"}})  # network log
    yield driver
    driver.quit()


@pytest.fixture
def docs(server, browser):
    base, _ = server
    with urllib.request.urlopen(base + "/api/v1/openapi.json", timeout=10) as resp:
        spec = json.load(resp)
    operations = sum(m in METHODS for item in spec["paths"].values() for m in item)
    browser.get(base + "/api/v1/docs")
    WebDriverWait(browser, 30).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, ".opblock")) == operations)
    return browser


def _operation(driver, op_id):
    """Open an operation (ids are Swagger UI's: tag, method and path) and return its block."""
    block = driver.find_element(By.ID, op_id)
    block.find_element(By.CSS_SELECTOR, ".opblock-summary-control").click()
    WebDriverWait(driver, 10).until(lambda d: block.find_elements(By.CSS_SELECTOR, ".opblock-body"))
    return block


def _click(driver, block, selector):
    # Swagger UI renders after the click that asked for it: wait for the button.
    WebDriverWait(driver, 10).until(lambda d: block.find_elements(By.CSS_SELECTOR, selector))[0].click()


def _try_it_out(driver, block):
    _click(driver, block, ".try-out__btn")
    _click(driver, block, ".execute")
    status = WebDriverWait(driver, 60).until(lambda d: block.find_elements(
        By.CSS_SELECTOR, ".live-responses-table .response .response-col_status"))
    return status[0].text.strip(), block.find_element(By.CSS_SELECTOR, ".live-responses-table .microlight").text


def test_the_page_renders_every_operation_from_local_files(server, docs):
    base, _ = server
    locked = ".authorization__btn"
    assert docs.find_element(By.ID, "operations-auth-get_api_v1_auth_me").find_elements(By.CSS_SELECTOR, locked)
    assert not docs.find_element(By.ID, "operations-jobs-get_api_v1_jobs").find_elements(By.CSS_SELECTOR, locked)
    # A request body shows its fields, and "Try it out" starts from the example.
    parse = _operation(docs, "operations-jobs-post_api_v1_jobs_parse")
    fields = parse.find_element(By.CSS_SELECTOR, ".opblock-section-request-body .model-box").text
    assert "text" in fields and "title" in fields
    status, body = _try_it_out(docs, parse)
    assert status == "200" and '"primary_track"' in body
    assert_accessible(docs)

    requests = []
    for entry in docs.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            requests.append(message["params"]["request"]["url"])
    assert any(u.endswith("/static/vendor/swagger-ui/swagger-ui-bundle.js") for u in requests)
    assert all(u.startswith((base + "/", "data:")) for u in requests), requests


def test_try_it_out_with_a_bearer_token(server, docs):
    base, _ = server
    token = signup(base, "swagger@docs.test")
    docs.find_element(By.CSS_SELECTOR, ".btn.authorize").click()
    field = WebDriverWait(docs, 10).until(lambda d: d.find_element(By.ID, "auth-bearer-value"))
    assert_accessible(docs)  # the dialog
    field.send_keys(token)
    docs.find_element(By.CSS_SELECTOR, ".auth-btn-wrapper .authorize").click()
    docs.find_element(By.CSS_SELECTOR, ".auth-btn-wrapper .btn-done").click()
    WebDriverWait(docs, 10).until(lambda d: not d.find_elements(By.CSS_SELECTOR, ".modal-ux"))
    status, body = _try_it_out(docs, _operation(docs, "operations-auth-get_api_v1_auth_me"))
    assert status == "200" and "swagger@docs.test" in body
