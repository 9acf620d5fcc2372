"""The candidates' code editor bundle (static/vendor/editor.js, built by `make`).

The bundle must exist after the build, load nothing from the network (no CDN), define
window.KernelPathEditor, and carry CodeMirror's licenses. A standalone page in headless
Chromium checks the textarea contract: typing updates textarea.value, Escape then Tab
leaves the editor, read-only listings cannot be edited.
"""
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "static" / "vendor" / "editor.js"
LICENSES = ROOT / "static" / "vendor" / "editor.js.LICENSE.txt"
BUILD_HINT = "the editor bundle is missing: run `make static/vendor/editor.js`"

# Namespace identifiers that DOM code passes to createElementNS: names, never fetched.
XML_NAMESPACES = {
    "http://www.w3.org/2000/svg",
    "http://www.w3.org/1999/xhtml",
    "http://www.w3.org/1999/xlink",
    "http://www.w3.org/1998/Math/MathML",
}


@pytest.fixture(scope="module")
def bundle() -> str:
    assert BUNDLE.is_file(), BUILD_HINT
    return BUNDLE.read_text(encoding="utf-8")


def test_bundle_is_built_and_defines_the_page_api(bundle):
    assert len(bundle) > 100_000  # CodeMirror itself is in there, not a stub
    assert "KernelPathEditor" in bundle
    assert "data-code-editor" in bundle


def test_bundle_loads_nothing_from_the_network(bundle):
    urls = set(re.findall(r"""https?://[^\s"'`<>()\\]+""", bundle))
    assert urls <= XML_NAMESPACES, f"URLs in the bundle: {sorted(urls - XML_NAMESPACES)}"
    assert "sourceMappingURL" not in bundle
    assert not re.search(r"""\bimport\s*\(""", bundle), "dynamic import() would fetch a chunk"
    # Protocol-relative URLs (//cdn.example/...) inside string literals.
    assert not re.search(r"""["'`]//[a-z0-9.-]+\.[a-z]{2,}/""", bundle, re.I)


def test_bundle_carries_codemirror_licenses(bundle):
    assert bundle.startswith("/*! KernelPath code editor") and "MIT" in bundle[:300]
    assert LICENSES.is_file(), BUILD_HINT
    text = LICENSES.read_text(encoding="utf-8")
    for package in ("@codemirror/view", "@codemirror/state", "@lezer/python", "@lezer/cpp"):
        assert package + "@" in text
    assert "MIT License" in text or "Permission is hereby granted" in text


def test_the_codemirror_package_is_codemirror_6():
    # `codemirror@latest` on the registry is a CodeMirror 5 build (6.65.x): the lock must pin
    # the CodeMirror 6 meta package, and every version in package.json must be exact.
    pkg = json.loads((ROOT / "package.json").read_text())
    lock = json.loads((ROOT / "package-lock.json").read_text())
    for section in ("dependencies", "devDependencies"):
        for name, version in pkg.get(section, {}).items():
            assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"{name} is not pinned: {version}"
    assert lock["packages"]["node_modules/codemirror"]["version"].startswith("6.0.")
    assert "node_modules/@codemirror/view" in lock["packages"]


# ---- In a browser ---------------------------------------------------------------------------

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>editor fixture</title></head>
<body>
<form id="f" method="post" action="/submit">
  <button type="button" id="before">before</button>
  <label for="code">Your kernel</label>
  <textarea id="code" name="code" data-code-editor rows="12">{code}</textarea>
  <button type="button" id="after">after</button>
</form>
<label for="ptx">PTX listing</label>
<textarea id="ptx" data-code-editor="plain" readonly rows="4">.visible .entry add(
  .param .u64 a
)</textarea>
<button type="button" id="end">end</button>
<script src="{bundle}"></script>
<script>
  window.inputEvents = 0;
  window.upgradedAtOnce = !!KernelPathEditor.get(document.getElementById("code"));
  document.getElementById("code").addEventListener("input", () => window.inputEvents++);
</script>
</body></html>
"""

KERNEL = '''import cupy as cp

add = cp.RawKernel(r"""
extern "C" __global__ void add(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + 1.0f;
}
""", "add")
'''


@pytest.fixture(scope="module")
def browser(start_chromium):
    driver = start_chromium("--window-size=1200,900",
                            capabilities={"goog:loggingPrefs": {"performance": "ALL"}})  # network log
    yield driver
    driver.quit()


@pytest.fixture
def page(browser, tmp_path, bundle):
    html = tmp_path / "editor.html"
    html.write_text(PAGE.replace("{bundle}", BUNDLE.as_uri()).replace("{code}", KERNEL),
                    encoding="utf-8")
    browser.get(html.as_uri())
    return browser


def _active(driver):
    return driver.execute_script(
        "const a = document.activeElement; return a.id || a.className || a.tagName;")


def _code(driver):
    return driver.execute_script("return document.getElementById('code').value;")



@pytest.mark.slow
def test_editor_replaces_the_textarea_and_keeps_it_in_sync(page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    d = page
    assert d.execute_script("return typeof window.KernelPathEditor.get;") == "function"
    assert d.execute_script("return window.upgradedAtOnce;")  # usable by the next script
    assert not d.find_element(By.ID, "code").is_displayed()
    editors = d.find_elements(By.CSS_SELECTOR, ".cm-editor")
    assert len(editors) == 2
    content = editors[0].find_element(By.CSS_SELECTOR, ".cm-content")
    assert content.get_attribute("aria-label") == "Your kernel"
    assert editors[0].find_elements(By.CSS_SELECTOR, ".cm-lineNumbers")
    # The CUDA source inside the raw string is highlighted as C++, not as one string token.
    assert d.execute_script(
        "return [...document.querySelectorAll('.cm-line span')].some(s => s.textContent === 'void');")

    content.click()
    content.send_keys(Keys.CONTROL, Keys.END)
    content.send_keys("print(add)")
    assert _code(d).endswith("print(add)")  # nothing doubles the ")"
    assert d.execute_script("return window.inputEvents;") >= 1
    content.send_keys(Keys.CONTROL, "z")
    assert not _code(d).endswith("print(add)")

    # A plain form submit sends the editor's text under the textarea's name.
    sent = d.execute_script("return new FormData(document.getElementById('f')).get('code');")
    assert sent == _code(d) == d.execute_script(
        "return KernelPathEditor.get(document.getElementById('code')).state.doc.toString();")


@pytest.mark.slow
def test_tab_indents_and_escape_then_tab_leaves(page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.common.action_chains import ActionChains

    d = page
    content = d.find_elements(By.CSS_SELECTOR, ".cm-editor .cm-content")[0]
    content.click()
    content.send_keys(Keys.CONTROL, Keys.HOME)
    before = _code(d)
    ActionChains(d).send_keys(Keys.TAB).perform()
    assert _code(d) == "    " + before  # Tab indented the line
    assert "cm-content" in _active(d)  # and focus stayed in the editor

    ring = d.execute_script(
        "return getComputedStyle(document.querySelector('.cm-editor.cm-focused')).outlineWidth;")
    assert float(ring.rstrip("px")) >= 2

    ActionChains(d).send_keys(Keys.ESCAPE).send_keys(Keys.TAB).perform()
    assert _active(d) == "after"
    assert _code(d) == "    " + before  # that Tab did not indent

    content.click()
    ActionChains(d).send_keys(Keys.ESCAPE).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
    assert _active(d) == "before"


@pytest.mark.slow
def test_set_value_replaces_the_content(page):
    d = page
    d.execute_script("KernelPathEditor.setValue(document.getElementById('code'), 'x = 1\\n');")
    assert _code(d) == "x = 1\n"
    assert d.execute_script(
        "return KernelPathEditor.get(document.getElementById('code')).state.doc.toString();") == "x = 1\n"
    assert d.execute_script("return window.inputEvents;") == 0  # like setting .value: no input event


@pytest.mark.slow
def test_read_only_listing(page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    d = page
    listing = d.find_elements(By.CSS_SELECTOR, ".cm-editor")[1]
    content = listing.find_element(By.CSS_SELECTOR, ".cm-content")
    assert content.get_attribute("aria-label") == "PTX listing"
    assert content.get_attribute("aria-readonly") == "true"
    text = d.execute_script("return document.getElementById('ptx').value;")
    content.click()
    content.send_keys("junk")
    assert d.execute_script("return document.getElementById('ptx').value;") == text
    ActionChains(d).send_keys(Keys.TAB).perform()  # read-only: Tab always moves on
    assert _active(d) == "end"


@pytest.mark.slow
def test_the_page_fetches_nothing_but_local_files(page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    content = page.find_elements(By.CSS_SELECTOR, ".cm-editor .cm-content")[0]
    content.click()
    content.send_keys(Keys.CONTROL, "f")  # the search panel is built on demand
    page.switch_to.active_element.send_keys("blockIdx")
    assert page.find_elements(By.CSS_SELECTOR, ".cm-panel.cm-search")
    requests = []
    for entry in page.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            requests.append(message["params"]["request"]["url"])
    assert any(u.endswith("/static/vendor/editor.js") for u in requests), requests
    assert all(u.startswith(("file://", "data:")) for u in requests), requests


TYPED = """import cupy as cp

_k = cp.RawKernel(r'''
extern "C" __global__ void k(const float* a, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] * 2.0f;
    }
}
''', "k")


def solve(a, c, n):
    if n > 0:
        _k(((n + 255) // 256,), (256,), (a, c, cp.int32(n)))
    return None
"""


@pytest.mark.slow
def test_a_solution_typed_key_by_key_is_exactly_what_was_typed(page):
    """A person types: quotes and brackets one by one, indentation as spaces after each Enter.
    The editor adds nothing (no closing quote left over, no doubled indentation)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    d = page
    d.execute_script("window.KernelPathEditor.setValue(document.getElementById('code'), '');")
    content = d.find_elements(By.CSS_SELECTOR, ".cm-editor")[0].find_element(By.CSS_SELECTOR, ".cm-content")
    content.click()
    for line in TYPED.split("\n")[:-1]:
        content.send_keys(line)
        content.send_keys(Keys.ENTER)
    assert _code(d) == TYPED
