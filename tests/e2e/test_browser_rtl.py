"""An RTL assessment in a real browser (headless Chromium) against the real server, Verilator and
Yosys in the sandbox: the invitation, the design task's page (ports, module header, Verilog
editor), a wrong design with its waveform and VCD, the fix typed into the editor and accepted,
then the recruiter reading the results and the report.

Screenshots go to $KERNELPATH_SCREENSHOTS (default tests/e2e/screenshots/): on failure, and of the
task page and the waveform report at 1280 px and 390 px wide.
"""
import re
import shutil

import pytest

from gpu_tasks.rtl import TASKS as DESIGNS
from tests.e2e.axe import assert_accessible
from tests.e2e.test_browser_assessments import (GRADING_WAIT_S, PASSWORD, PHONE, WIDE, call, code,
                                                no_horizontal_scroll, screenshot,
                                                screenshots_on_failure, set_size, sign_in, sign_out,
                                                signup, wait)

pytestmark = [pytest.mark.db, pytest.mark.slow, pytest.mark.browser,
              pytest.mark.skipif(not shutil.which("verilator") or not shutil.which("yosys"),
                                 reason="needs Verilator and Yosys (make test-system-deps)")]

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402

JOB_TEXT = """RTL Design Engineer, GPU Memory Subsystem

Minimum qualifications:
- 4+ years of RTL design in Verilog or SystemVerilog
- FIFOs, arbiters and valid/ready pipelines; clock-domain crossing
- BS in Electrical Engineering
"""

# A FIFO whose full flag rises one entry early: the line a candidate fixes is the last one.
FULL_EARLY = """module sync_fifo #(parameter WIDTH = 8, parameter DEPTH = 16) (
    input  wire clk, input wire rst_n,
    input  wire wr_en, input wire [WIDTH-1:0] din, input wire rd_en,
    output wire [WIDTH-1:0] dout, output wire full, output wire empty,
    output wire [$clog2(DEPTH):0] count
);
    localparam AW = $clog2(DEPTH);
    reg [WIDTH-1:0] mem [0:DEPTH-1];
    reg [AW-1:0] head, tail;
    reg [AW:0] used;
    wire push = wr_en && !full, pop = rd_en && !empty;
    assign empty = used == 0;
    assign count = used;
    assign dout = mem[head];
    always @(posedge clk) if (push) mem[tail] <= din;
    always @(posedge clk)
        if (!rst_n) begin head <= 0; tail <= 0; used <= 0; end
        else begin
            if (push) tail <= tail + 1'b1;
            if (pop) head <= head + 1'b1;
            used <= used + push - pop;
        end
    assign full = used >= DEPTH - 1;
endmodule
"""
FIX = "    assign full = used == DEPTH;"


def set_code(driver, text):
    driver.execute_script(
        "const t = document.getElementById('source');"
        "window.KernelPathEditor.setValue(t, arguments[0]);", text)


def submit_and_wait(driver):
    driver.find_element(By.ID, "submit-btn").click()
    wait(driver, GRADING_WAIT_S).until(lambda _: re.match(
        r"Submission #\d+: (?!queued|running)", driver.find_element(By.ID, "run-status").text))
    return driver.find_element(By.CSS_SELECTOR, "#result .report")


def test_candidate_fixes_a_wrong_design_and_the_recruiter_reads_it(server, browser):
    base, _ = server
    d = browser
    set_size(d, WIDE[0])
    rec = signup(base, "lead@siliconworks.test", "recruiter", "Silicon Works")
    status, job = call(base, "POST", "/api/v1/jobs", {"title": "RTL Design Engineer", "text": JOB_TEXT}, rec)
    assert status == 201, job
    # The job's suggested assessment proposes design tasks.
    status, suggested = call(base, "GET", f"/api/v1/assessments/suggestions?job_id={job['id']}", None, rec)
    assert status == 200, suggested
    assert suggested["tasks"] and set(suggested["tasks"]) <= set(DESIGNS), suggested
    status, assessment = call(base, "POST", "/api/v1/assessments", {
        "job_id": job["id"], "tasks": ["sync_fifo"], "time_limit_minutes": 60}, rec)
    assert status == 201, assessment
    status, invite = call(base, "POST", f"/api/v1/assessments/{assessment['id']}/invitations",
                          {"email": "rtl@example.com"}, rec)
    assert status == 201, invite

    with screenshots_on_failure(d, "rtl-candidate"):
        d.get(base + "/")
        d.delete_all_cookies()
        d.get(invite["url"])
        facts = d.find_element(By.ID, "invitation-facts").text
        assert "Silicon Works" in facts and "1 Verilog design task" in facts
        d.find_element(By.LINK_TEXT, "Create a candidate account").click()
        wait(d).until(EC.url_contains("/signup"))
        d.find_element(By.NAME, "name").send_keys("Ada Rtl")
        d.find_element(By.NAME, "password").send_keys(PASSWORD)
        d.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
        wait(d).until(EC.url_to_be(invite["url"]))
        d.find_element(By.XPATH, "//button[contains(., 'Start now')]").click()
        wait(d).until(EC.url_contains(f"/assessments/{assessment['id']}"))
        d.find_element(By.LINK_TEXT, "Synchronous FIFO").click()
        wait(d).until(EC.url_contains(f"/tasks/sync_fifo?assessment={assessment['id']}"))

        # The design task's page: ports, the module header as starter, highlighted as Verilog.
        ports = d.find_element(By.CSS_SELECTOR, "table.ports")
        assert "Ports of sync_fifo" in ports.text and "$clog2(DEPTH)+1" in ports.text
        assert "each is simulated (Verilator) and synthesized (Yosys)" in d.find_element(
            By.CSS_SELECTOR, ".assessment-banner").text
        editor = wait(d).until(EC.presence_of_element_located((By.CSS_SELECTOR, ".solve .cm-editor")))
        assert code(d).startswith("module sync_fifo #(") and "endmodule" in code(d)
        assert editor.find_elements(By.CSS_SELECTOR, ".cm-line span"), "the starter is highlighted"
        assert not d.find_elements(By.CSS_SELECTOR, "fieldset.styles"), "one starter: no style picker"
        for width in (WIDE[0], PHONE[0]):
            screenshot(d, f"rtl-task-page-{width}", width)
            assert no_horizontal_scroll(d), f"the design task page scrolls sideways at {width} px"
        set_size(d, WIDE[0])

        # A wrong design: the verdict names the cycle and signal; the waveform is drawn.
        set_code(d, FULL_EARLY)
        report = submit_and_wait(d)
        assert "Wrong answer" in report.find_element(By.CSS_SELECTOR, ".verdict").text
        assert re.search(r"cycle \d+ with WIDTH=\d+, DEPTH=\d+: `full` is 1, expected 0", report.text), report.text
        svg = report.find_element(By.CSS_SELECTOR, "svg.waveform")
        assert "full is wrong at cycle" in svg.get_attribute("aria-label")
        assert svg.find_elements(By.CSS_SELECTOR, "rect.miss")
        vcd_link = report.find_element(By.LINK_TEXT, "Download the VCD")
        vcd = d.execute_script("return fetch(arguments[0]).then(r => r.text());", vcd_link.get_attribute("href"))
        assert vcd.startswith("$timescale") and "$var wire 1" in vcd and " full $end" in vcd
        for width in (WIDE[0], PHONE[0]):
            screenshot(d, f"rtl-waveform-{width}", width)
            assert no_horizontal_scroll(d), f"the waveform report scrolls sideways at {width} px"
            assert_accessible(d)
        set_size(d, WIDE[0])

        # The fix, typed over the last line of the module body.
        content = editor.find_element(By.CSS_SELECTOR, ".cm-content")
        content.click()
        content.send_keys(Keys.CONTROL, Keys.END)
        content.send_keys(Keys.UP, Keys.UP, Keys.END, Keys.SHIFT, Keys.HOME)
        content.send_keys(FIX)
        fixed = code(d)
        assert fixed.rstrip().endswith(FIX + "\nendmodule"), fixed[-200:]
        report = submit_and_wait(d)
        assert "Accepted" in report.find_element(By.CSS_SELECTOR, ".verdict").text, report.text
        assert re.search(r"Score \d+(\.\d+)? / 100", report.text)
        assert "Synthesis" in report.text and re.search(r"\d+ cells \(reference design: \d+\)", report.text)
        assert not report.find_elements(By.CSS_SELECTOR, "svg.waveform")

        # Practice outside the assessment: the same design, put on the leaderboard by area.
        d.get(base + "/tasks/sync_fifo")
        wait(d).until(EC.presence_of_element_located((By.CSS_SELECTOR, ".solve .cm-editor")))
        set_code(d, fixed)
        assert "Accepted" in submit_and_wait(d).find_element(By.CSS_SELECTOR, ".verdict").text
        sub_id = re.match(r"Submission #(\d+)", d.find_element(By.ID, "run-status").text).group(1)
        d.get(f"{base}/submissions/{sub_id}")
        d.find_element(By.XPATH, "//button[contains(., 'Put it on the leaderboard')]").click()
        wait(d).until(lambda _: "on the task's leaderboard" in d.find_element(By.TAG_NAME, "main").text)
        d.get(base + "/tasks/sync_fifo/leaderboard?by=area")
        board = d.find_element(By.ID, "leaderboard")
        row = board.find_element(By.CSS_SELECTOR, "tbody tr")
        # Rank, a pseudonym (never the candidate's name), cells, depth, score, date.
        assert re.match(r"1 Candidate \d+ \d+ \d+ [\d.]+ \d{4}-\d\d-\d\d", row.text), row.text
        assert "Ada Rtl" not in board.text
        row.find_element(By.CSS_SELECTOR, "details.listing summary").click()
        assert FIX.strip() in row.find_element(By.CSS_SELECTOR, "pre.code").text
        assert row.find_element(By.LINK_TEXT, "Full report").get_attribute("href").endswith(f"/submissions/{sub_id}")
        for width in (WIDE[0], PHONE[0]):
            screenshot(d, f"rtl-leaderboard-{width}", width)
            assert no_horizontal_scroll(d), f"the design leaderboard scrolls sideways at {width} px"
            assert_accessible(d)
        set_size(d, WIDE[0])
        sign_out(d)

    with screenshots_on_failure(d, "rtl-recruiter"):
        d.get(base + "/login")
        sign_in(d, "lead@siliconworks.test")
        wait(d).until(lambda _: "/login" not in d.current_url)   # signed in before moving on
        d.get(f"{base}/assessments/{assessment['id']}")
        results = d.find_element(By.ID, "results")
        assert "Ada Rtl" in results.text and "Accepted" in results.text, results.text
        results.find_element(By.PARTIAL_LINK_TEXT, "Accepted").click()
        wait(d).until(EC.url_matches(r"/submissions/\d+$"))
        assert "Accepted" in d.find_element(By.CSS_SELECTOR, "#result .verdict").text
        assert "simulated (Verilator) and synthesized (Yosys)" in d.find_element(By.TAG_NAME, "main").text
        assert FIX.strip() in d.execute_script("return document.getElementById('sub-source').value;")
        sign_out(d)
