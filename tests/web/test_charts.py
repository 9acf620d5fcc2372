"""The server-drawn charts: their geometry (parsed back from the SVG), their edge cases, their
accessible names, the contrast of their colours, and the pages that show them only with data."""
import math
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from skillmap.match import CLAIMED_CREDIT
from web import charts

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "assessments"))  # the page helpers live there


def parse(markup) -> ET.Element:
    return ET.fromstring(str(markup))


def points(element) -> list[tuple[float, float]]:
    return [tuple(map(float, p.split(","))) for p in element.get("points").split()]


def by_class(svg, name) -> list[ET.Element]:
    return [e for e in svg.iter() if name in (e.get("class") or "").split()]


def assert_accessible(markup):
    svg = parse(markup)
    assert svg.get("role") == "img" and svg.get("width") == "100%" and svg.get("viewBox")
    title_id, desc_id = svg.get("aria-labelledby").split()
    assert svg.find("title").get("id") == title_id and svg.find("title").text
    assert svg.find("desc").get("id") == desc_id and svg.find("desc").text
    for element in svg.iter():
        assert not any(bad in value.lower() for value in element.attrib.values() for bad in ("nan", "inf"))
    return svg


# ---- skill radar --------------------------------------------------------------------------------


def axes(*verified, claimed=0.0):
    return [{"name": f"Track {i}", "verified": v, "claimed": claimed} for i, v in enumerate(verified)]


def test_a_full_strength_axis_reaches_the_outer_ring():
    svg = assert_accessible(charts.skill_radar(axes(1.0, 0.5, 0.0, 0.25)))
    ring = points(by_class(svg, "chart-ring-outer")[0])
    shape = points(by_class(svg, "chart-verified")[0])
    center = (sum(x for x, _ in ring) / 4, sum(y for _, y in ring) / 4)
    assert shape[0] == pytest.approx(ring[0], abs=0.11)
    radius = math.dist(center, ring[0])
    for value, point in zip((1.0, 0.5, 0.0, 0.25), shape):
        assert math.dist(center, point) == pytest.approx(value * radius, abs=0.2)


def test_zero_strengths_collapse_to_the_centre_and_odd_values_are_clamped():
    svg = parse(charts.skill_radar(axes(0, 0, 0, 0, claimed=None)))
    assert len(set(points(by_class(svg, "chart-verified")[0]))) == 1
    assert len(set(points(by_class(svg, "chart-claimed")[0]))) == 1
    ring = points(by_class(parse(charts.skill_radar(axes(2.0, -1, float("nan"), 1))), "chart-ring-outer")[0])
    clamped = points(by_class(parse(charts.skill_radar(axes(2.0, -1, float("nan"), 1))), "chart-verified")[0])
    assert clamped[0] == ring[0] and clamped[1] == clamped[2]
    assert charts.skill_radar([]) == "" and charts.skill_radar(axes(1, 1)) == ""


def test_track_strengths_weigh_verified_skills_above_claims():
    assert charts.track_strengths({}, []) == []
    assert charts.track_strengths({"no_such_skill": 1.0}, ["nor_this"]) == []
    verified = {a["track"]: a for a in charts.track_strengths({"cuda": 1.0}, [])}
    assert verified["software_optimization"]["verified"] == 1.0  # CUDA's weight there is 1
    assert verified["software_optimization"]["claimed"] == 0.0
    many = ["cuda", "triton", "cutlass", "nsight_compute", "rocm", "nccl", "kubernetes", "verilog"]
    claimed = charts.track_strengths({}, many)
    assert [a["track"] for a in claimed] == ["infrastructure", "hardware_design",
                                             "architecture_modeling", "software_optimization"]
    assert all(0 < a["claimed"] <= CLAIMED_CREDIT and a["verified"] == 0 for a in claimed)
    assert claimed[0]["name"] == "GPU infrastructure"


def test_radar_labels_are_escaped():
    markup = str(charts.skill_radar([{"name": "<b>x</b>", "verified": 1, "claimed": 0}] * 3))
    assert "<b>" not in markup and "&lt;b&gt;" in markup


# ---- roofline -----------------------------------------------------------------------------------

PEAKS = {"name": "NVIDIA H100 80GB HBM3", "bandwidth_bytes_s": 3.0e12, "flops_s": 5.0e13,
         "measured": True}


def timing(nbytes, flops, median_ms, **extra):
    seconds = median_ms / 1e3 if isinstance(median_ms, float) else median_ms
    return {"median_ms": median_ms, "dims": {"n": 1 << 25}, "device": "NVIDIA H100",
            "roofline": {"bytes": nbytes, "flops": flops, "measured_s": seconds},
            "peaks": dict(PEAKS), **extra}


def plot_parts(svg):
    roof = points(by_class(svg, "chart-ceiling")[0])
    point = by_class(svg, "chart-point")[0]
    return roof, (float(point.get("cx")), float(point.get("cy")))


def test_a_compute_bound_point_lies_under_the_compute_ceiling():
    data = charts.roofline_data(timing(4 * 3 * 4096 ** 2, 2 * 4096 ** 3, 4.0))
    assert data["intensity"] > data["ridge"] and data["bound"] == "compute"
    assert data["fraction"] == pytest.approx(2 * 4096 ** 3 / 4e-3 / 5e13)
    svg = assert_accessible(charts.roofline_chart(data))
    (start, knee, end), (x, y) = plot_parts(svg)
    assert start[0] < knee[0] < end[0] and knee[1] == end[1] < start[1]  # slope up, then flat
    assert x > knee[0] and y > knee[1]  # right of the ridge, below the ceiling (SVG y grows down)


def test_a_memory_bound_point_lies_under_the_memory_slope():
    data = charts.roofline_data(timing(12 * (1 << 25), 1 << 25, 0.4321))
    assert data["bound"] == "memory" and 0 < data["fraction"] < 1
    (start, knee, _), (x, y) = plot_parts(parse(charts.roofline_chart(data)))
    assert x < knee[0]
    slope_y = start[1] + (x - start[0]) * (knee[1] - start[1]) / (knee[0] - start[0])
    assert y > slope_y
    gap = by_class(parse(charts.roofline_chart(data)), "chart-gap")[0]
    assert float(gap.get("y1")) == pytest.approx(slope_y, abs=0.2)  # from the point up to the roof


def test_no_roofline_without_real_timing():
    assert charts.roofline_data(None) is None                        # CPU backend: nothing timed
    assert charts.roofline_data({}) is None
    assert charts.roofline_data(timing(100, 10, float("nan"), roofline={})) is None
    assert charts.roofline_data(timing(100, 10, None, roofline={})) is None
    assert charts.roofline_data(timing(100, 10, "nan", roofline={})) is None
    assert charts.roofline_data(timing(100, 10, 1.0, peaks=None)) is None  # no ceilings to draw
    assert charts.roofline_data(timing(100, 10, 1.0, peaks={"bandwidth_bytes_s": "inf"})) is None
    assert charts.roofline_data(timing(8 << 20, 0, 1.0)) is None      # a transpose does no arithmetic
    assert charts.roofline_chart(None) == ""


def test_bytes_and_flops_come_from_the_task_when_the_report_lacks_them():
    def cost(dims):
        return 12 * dims["n"], dims["n"]

    bare = timing(0, 0, 2.0, roofline={"bound": "memory"})
    assert charts.roofline_data(bare) is None
    data = charts.roofline_data(bare, cost)
    assert data["intensity"] == pytest.approx(1 / 12)
    assert data["flops_s"] == pytest.approx((1 << 25) / 2e-3)
    assert charts.roofline_data(dict(bare, dims={"m": 3}), cost) is None  # dims the task cannot read


def test_the_device_name_is_escaped():
    data = charts.roofline_data(timing(100, 1000, 1.0, peaks=dict(PEAKS, name="<script>x</script>")))
    markup = str(charts.roofline_chart(data))
    assert "<script>" not in markup and "&lt;script&gt;" in markup


# ---- salary range bar ---------------------------------------------------------------------------

BAND = {"p10": 120_000, "p25": 140_000, "median": 165_000, "p75": 190_000, "p90": 240_000}


def bar_parts(svg):
    whisker = by_class(svg, "chart-whisker")[0]
    median = by_class(svg, "chart-median")
    return (float(whisker.get("x1")), float(whisker.get("x2")),
            float(median[0].get("x1")) if median else None)


def test_the_median_marker_lies_between_the_ends_in_proportion():
    svg = assert_accessible(charts.salary_bar(BAND, "USD"))
    low, high, median = bar_parts(svg)
    assert low < median < high
    assert (median - low) / (high - low) == pytest.approx((165 - 120) / (240 - 120), abs=0.01)
    box = by_class(svg, "chart-box")[0]
    assert low < float(box.get("x")) < median < float(box.get("x")) + float(box.get("width")) < high
    assert "p10 120k" in "".join(svg.itertext())


def test_missing_percentiles_draw_what_there_is():
    quartiles = {"p25": 100_000, "median": 110_000, "p75": 150_000}
    low, high, median = bar_parts(parse(charts.salary_bar(quartiles)))
    assert low < median < high
    only = parse(charts.salary_bar({"median": 150_000}))
    low, high, median = bar_parts(only)
    assert low == high == median and not by_class(only, "chart-box")
    no_median = parse(charts.salary_bar({"p10": 1, "p90": 2}))
    assert bar_parts(no_median)[2] is None
    assert charts.salary_bar({}) == "" and charts.salary_bar(None) == ""
    assert charts.salary_bar({"median": float("nan")}) == ""
    assert_accessible(charts.salary_bar({"median": 0}))


def test_the_posting_range_is_drawn_only_in_the_bands_currency_and_period():
    posting = {"min": 150_000, "max": 300_000, "currency": "USD", "period": "year"}
    svg = parse(charts.salary_bar(BAND, "USD", posting))
    rect = by_class(svg, "chart-posting")[0]
    low, high, _ = bar_parts(svg)
    right = float(rect.get("x")) + float(rect.get("width"))
    assert low < float(rect.get("x")) < high < right  # the scale stretches to the posting's top
    assert "this posting 150,000 to 300,000 USD" in svg.find("desc").text
    for other in (dict(posting, currency="EUR"), dict(posting, period="hour"), dict(posting, min=None)):
        assert not by_class(parse(charts.salary_bar(BAND, "USD", other)), "chart-posting")


# ---- roadmap timeline ---------------------------------------------------------------------------

PHASES = [{"name": "Foundations", "start_week": 0, "weeks": 6, "hours": 60},
          {"name": "GPU fundamentals", "start_week": 6, "weeks": 9, "hours": 85},
          {"name": "Specialisation", "start_week": 15, "weeks": 3, "hours": 30},
          {"name": "Portfolio", "start_week": 18, "weeks": 0, "hours": 0}]


def test_timeline_segments_follow_in_order_proportional_to_weeks():
    svg = assert_accessible(charts.roadmap_timeline(PHASES))
    bars = [(float(r.get("x")), float(r.get("width")), float(r.get("y")))
            for r in by_class(svg, "chart-phase")]
    assert len(bars) == 3
    for (x, w, y), (nx, _, ny) in zip(bars, bars[1:]):
        assert nx == pytest.approx(x + w, abs=0.11) and ny > y  # each starts where the last ended
    per_week = [w / p["weeks"] for (_, w, _), p in zip(bars, PHASES)]
    assert max(per_week) - min(per_week) < 0.1
    milestone = points(by_class(svg, "chart-milestone")[0])
    assert max(x for x, _ in milestone) - 8 == pytest.approx(bars[-1][0] + bars[-1][1], abs=0.11)
    assert "Portfolio: alongside" in svg.find("desc").text


def test_one_phase_fills_the_axis_and_empty_plans_draw_nothing():
    svg = parse(charts.roadmap_timeline([{"name": "Foundations", "start_week": 0, "weeks": 1, "hours": 8}]))
    (bar,) = by_class(svg, "chart-phase")
    axis = by_class(svg, "chart-axis")[0]
    assert float(bar.get("x")) == float(axis.get("x1"))
    assert float(bar.get("x")) + float(bar.get("width")) == pytest.approx(float(axis.get("x2")), abs=0.11)
    assert charts.roadmap_timeline([]) == ""
    assert charts.roadmap_timeline([{"name": "Portfolio", "start_week": 0, "weeks": 0}]) == ""
    assert charts.roadmap_timeline([{"name": "X", "start_week": None, "weeks": 3}]) == ""


# ---- colours ------------------------------------------------------------------------------------


def _luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_chart_colours_pass_wcag_aa_on_the_page_and_on_white():
    css = (ROOT / "static" / "style.css").read_text()
    block = css[css.index("/* ---- Charts"):css.index("/* ---- end of charts")]
    rules = dict(re.findall(r"svg\.chart \.(chart-[\w-]+)[^{]*\{([^}]*)\}", block))
    for name in ("chart-label", "chart-tick"):  # text: 4.5:1
        colour = re.search(r"fill: (#[0-9a-f]{6})", rules[name]).group(1)
        assert min(contrast(colour, "#f7f8fa"), contrast(colour, "#ffffff")) >= 4.5, name
    marks = {"chart-axis": "stroke", "chart-verified": "stroke", "chart-claimed": "stroke",
             "chart-ceiling": "stroke", "chart-whisker": "stroke", "chart-box": "stroke",
             "chart-median": "stroke", "chart-point": "fill", "chart-posting": "fill",
             "chart-phase": "fill", "chart-milestone": "fill"}
    for name, prop in marks.items():  # the marks that carry data: 3:1 (WCAG 1.4.11)
        colour = re.search(rf"(?<![\w-]){prop}: (#[0-9a-f]{{6}})", rules[name]).group(1)
        assert min(contrast(colour, "#f7f8fa"), contrast(colour, "#ffffff")) >= 3, name


# ---- pages --------------------------------------------------------------------------------------

SALARY_JOB = ("GPU Kernel Engineer\n\nMinimum qualifications:\n- 3+ years writing CUDA kernels in C++\n"
              "- BS in Computer Science\n\nNice to have: Triton, CUTLASS\n\n"
              "Salary: $150,000 - $210,000 per year.\n")


def html(resp) -> str:
    return resp.get_data(as_text=True)


def chart_in(page: str, kind: str) -> ET.Element | None:
    found = re.search(rf'<svg class="chart chart-{kind}".*?</svg>', page, re.S)
    return parse(found.group(0)) if found else None


@pytest.mark.db
def test_the_profile_shows_the_radar_only_with_skills(app, make_user):
    from test_pages import Page, _graded

    with_work, without = make_user("radar@example.com"), make_user("bare@example.com")
    _graded(with_work.user["id"])
    page = html(Page(app, "radar@example.com").get(f"/candidates/{with_work.user['id']}/profile"))
    svg = chart_in(page, "radar")
    assert svg is not None and svg.get("role") == "img"
    assert 'id="track-strengths"' in page and "GPU software optimization" in page
    empty = html(Page(app, "bare@example.com").get(f"/candidates/{without.user['id']}/profile"))
    assert chart_in(empty, "radar") is None and 'id="track-strengths"' not in empty


@pytest.mark.db
def test_a_timed_submission_shows_its_roofline_and_an_untimed_one_does_not(app, make_user):
    from test_pages import FULL_REPORT, Page, _graded

    user = make_user("roof@example.com")
    timed = dict(FULL_REPORT, verdict="accepted",
                 timing=dict(FULL_REPORT["timing"], peaks=dict(PEAKS),
                             roofline={"bound": "memory", "bytes": 12 << 25, "flops": 1 << 25,
                                       "measured_s": 0.4321e-3}))
    by_dims = dict(timed, timing=dict(timed["timing"], roofline={"bound": "memory"}))  # the task's cost
    ids = [_graded(user.user["id"], report=r) for r in (timed, by_dims, FULL_REPORT, {"verdict": "accepted"})]
    page = Page(app, "roof@example.com")
    for sid in ids[:2]:
        shown = html(page.get(f"/submissions/{sid}"))
        svg = chart_in(shown, "roofline")
        assert svg is not None and "memory-bound" in svg.find("desc").text
        assert 'id="roofline-numbers"' in shown and "0.0833 FLOP per byte" in shown
    for sid in ids[2:]:  # timing without the device's peaks, and a CPU run with no timing at all
        shown = html(page.get(f"/submissions/{sid}"))
        assert chart_in(shown, "roofline") is None and 'id="roofline-numbers"' not in shown


@pytest.mark.db
def test_the_roadmap_shows_its_timeline_and_salary_bar(app, client, make_user):
    from test_pages import Page

    from jobdata.starter import load_starter

    rec = make_user("rec@charts.test", "recruiter", "Charts Inc")
    job = client.post("/api/v1/jobs", json={"title": "GPU Kernel Engineer", "text": SALARY_JOB},
                      headers=rec.headers)
    assert job.status_code == 201, job.get_json()
    with app.app_context():
        load_starter()   # a track's target needs the postings a new installation has
    page = Page(app)
    assert chart_in(html(page.get("/roadmap")), "timeline") is None  # the form alone: no plan yet
    track = html(page.post("/roadmap", {"target": "software_optimization", "level": "mid",
                                        "hours_per_week": "10"}))
    timeline, salary = chart_in(track, "timeline"), chart_in(track, "salary")
    assert timeline is not None and by_class(timeline, "chart-phase")
    assert salary is not None and by_class(salary, "chart-median") and not by_class(salary, "chart-posting")
    assert 'id="timeline"' in track and 'id="salary-figures"' in track  # the numbers stay as text
    posting = html(page.post("/roadmap", {"target": str(job.get_json()["id"]), "level": "mid",
                                          "hours_per_week": "10"}))
    salary = chart_in(posting, "salary")
    assert salary is not None and by_class(salary, "chart-posting")
    assert "This posting: 150,000 – 210,000 USD per year." in posting
