"""Years, degree, salary, sections and seniority rules, on real phrasing."""
import pytest

from skillmap.experience import experience
from skillmap.salary import posted_salary
from skillmap.sections import PREFERRED, REQUIRED, SegmentIndex, segments
from skillmap.seniority import seniority


def years(text):
    return experience(SegmentIndex(segments(text)), text)["min_years"]


def degree(text):
    return experience(SegmentIndex(segments(text)), text)["degree"]


@pytest.mark.parametrize("text, expected", [
    ("5+ years of experience operating GPU clusters", 5),
    ("3-5 yrs building Kubernetes platforms", 3),
    ("3 to 5 years of industry experience", 3),
    ("At least three years of hands-on RTL design", 3),
    ("Minimum of seven (7) years of experience", 7),
    # Degree alternatives: the years of the lowest degree's path.
    ("BS + 8 years / MS + 5 years of relevant experience", 8),
    ("BS + 8 years / MS + 5", 8),
    ("8+ years with a BS, 6+ with an MS, or 4+ with a PhD", 8),
    ("Requirements:\n- 5+ years of C++\nPreferred:\n- 10+ years in verification", 5),
    ("Founded 20 years ago, we build chips. You have 2+ years of CUDA.", 2),
    ("Bachelor's degree (a 4-year degree) in EE", None),
    ("No experience needed: we teach you.", None),
])
def test_minimum_years(text, expected):
    assert years(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("BS/MS in EE/CE or related field", "bachelor"),
    ("Bachelor's degree in Computer Science or equivalent experience", "bachelor"),
    ("Master's degree required in Electrical Engineering", "master"),
    ("Ph.D. in Computer Architecture with publications", "phd"),
    ("MS in Electrical Engineering; PhD a plus", "master"),
    ("PhD preferred", None),
    ("Requirements:\n- MS or PhD in CS\nPreferred qualifications\n- PhD in EE", "master"),
    ("You will master Kubernetes and Slurm", None),
])
def test_lowest_required_degree(text, expected):
    assert degree(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("The base salary range is $148,000 - $235,750.", (148000, 235750, "USD", "year")),
    ("148,000 USD - 235,750 USD", (148000, 235750, "USD", "year")),
    ("$152K–$287.5K", (152000, 287500, "USD", "year")),
    ("$120k-$160k per year", (120000, 160000, "USD", "year")),
    ("Level 3: $150,000 - $190,000\nLevel 4: $180,000 - $240,000", (150000, 240000, "USD", "year")),
    ("Interns earn $45-$60/hour", (45, 60, "USD", "hour")),
    ("€85.000 - €110.000 per year", (85000, 110000, "EUR", "year")),
    ("£70,000 to £95,000 plus bonus", (70000, 95000, "GBP", "year")),
    ("CA$130,000–CA$170,000", (130000, 170000, "CAD", "year")),
    ("between $100,000 and $150,000 annually", (100000, 150000, "USD", "year")),
])
def test_posted_salary(text, expected):
    found = posted_salary(text)
    assert (found["min"], found["max"], found["currency"], found["period"]) == expected


@pytest.mark.parametrize("text", [
    "We offer a 401(k) match and 3-5 years of growth.",
    "We raised $50M last year.",
    "Requires 5-7 years of experience.",
])
def test_no_salary_where_none_is_posted(text):
    assert posted_salary(text) is None


def test_sections_follow_headings_and_inline_cues():
    text = ("Minimum Qualifications:\n- Kubernetes\n\nPreferred qualifications\n- InfiniBand\n"
            "What you'll do\n- Run Slurm\nRequirements\n- Go; Rust is a plus")
    kinds = {s.text: s.section for s in segments(text)}
    assert kinds["- Kubernetes"] == REQUIRED
    assert kinds["- InfiniBand"] == PREFERRED
    assert kinds["- Run Slurm"] != PREFERRED
    assert kinds["- Go; Rust is a plus"] == REQUIRED


def test_a_bullet_saying_plus_does_not_open_a_preferred_section():
    text = "Requirements:\n- Slurm experience a plus\n- Kubernetes"
    kinds = {s.text: s.section for s in segments(text)}
    assert kinds["- Kubernetes"] == REQUIRED


@pytest.mark.parametrize("title, years_, expected", [
    ("Senior GPU Infrastructure Engineer", None, "senior"),
    ("Staff Performance Architect", 3, "staff_principal"),
    ("Principal Engineer, CUDA", None, "staff_principal"),
    ("GPU Software Intern", 5, "junior"),
    ("New Grad ASIC Engineer", None, "junior"),
    ("Design Verification Engineer", 1, "junior"),
    ("Design Verification Engineer", 3, "mid"),
    ("Design Verification Engineer", 6, "senior"),
    ("Design Verification Engineer", 10, "staff_principal"),
    ("Kernel Engineer", None, None),
    (None, None, None),
])
def test_seniority_from_title_then_years(title, years_, expected):
    assert seniority(title, years_) == expected
