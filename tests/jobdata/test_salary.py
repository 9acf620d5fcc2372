"""Salary bands: every figure traced to its sources' rows, levels ordered, currencies apart."""
from datetime import datetime, timedelta, timezone

import pytest

from jobdata.salary import LEVELS, TRACK_SOC, SalaryError, load_oews, salary_band

NOW = datetime(2026, 11, 23, tzinfo=timezone.utc)


def test_a_national_band_is_the_employment_weighted_mix_of_the_tracks_occupations():
    result = salary_band("hardware_design", "mid", "United States", now=NOW)
    bls = next(s for s in result["sources"] if s["kind"] == "bls_oews")
    assert {r["soc"] for r in bls["rows"]} == set(TRACK_SOC["hardware_design"])
    rows = [r for r in load_oews() if r.area == "U.S." and r.soc in TRACK_SOC["hardware_design"]]
    expected = sum(r.wages["median"] * r.employment for r in rows) / sum(r.employment for r in rows)
    assert bls["figures"]["median"] == round(expected, -2)
    assert result["band"]["median"] == bls["figures"]["median"]  # the only source for this track
    assert result["from"]["median"] == ["BLS OEWS, May 2025"]


def test_each_band_figure_names_the_sources_it_came_from():
    result = salary_band("software_optimization", "senior", now=NOW)
    kinds = {s["kind"] for s in result["sources"]}
    assert kinds == {"bls_oews", "seed"}
    for name, value in result["band"].items():
        named = result["from"][name]
        values = [s["figures"][name] for s in result["sources"] if s["source"] in named]
        raised = any(note.startswith(f"{name} raised") for note in result["notes"])
        assert raised or min(values) <= value <= max(values)


def test_levels_go_up_and_bands_are_ordered():
    medians = [salary_band("architecture_modeling", level, now=NOW)["band"]["median"] for level in LEVELS]
    assert medians == sorted(medians) and len(set(medians)) == 4
    for level in LEVELS:
        band = salary_band("software_optimization", level, "Seattle, WA", now=NOW)["band"]
        figures = [band[k] for k in ("p10", "p25", "median", "p75", "p90") if k in band]
        assert figures == sorted(figures)


def test_a_metro_area_is_used_and_an_unknown_place_falls_back_to_national_with_a_note():
    metro = salary_band("infrastructure", "mid", "Sunnyvale, CA", now=NOW)
    assert metro["area"] == "San Jose-Sunnyvale-Santa Clara CA" and not metro["notes"]
    unknown = salary_band("infrastructure", "mid", "Boise, ID", now=NOW)
    assert unknown["area"] == "U.S." and "national" in unknown["notes"][0]
    assert metro["band"]["median"] > unknown["band"]["median"]


def test_stored_postings_count_per_level_and_never_mix_currencies():
    def posting(i, seniority, low, high, currency="USD", days=10):
        return {"id": i, "title": f"job {i}", "track": "software_optimization", "seniority": seniority,
                "salary": {"min": low, "max": high, "currency": currency, "period": "year"},
                "created_at": NOW - timedelta(days=days)}
    postings = [posting(1, "senior", 200_000, 260_000), posting(2, "senior", 180_000, 220_000),
                posting(3, "mid", 150_000, 170_000), posting(4, "senior", 300_000, 340_000, "EUR"),
                posting(5, "senior", 100_000, 120_000, days=400)]  # older than a year
    result = salary_band("software_optimization", "senior", postings=postings, now=NOW)
    market = next(s for s in result["sources"] if s["kind"] == "postings")
    assert market["source"] == "from 2 postings in the last 12 months"
    assert market["postings_per_level"] == {"entry": 0, "mid": 1, "senior": 2, "staff_principal": 0}
    assert market["figures"]["median"] == 215_000
    assert {r["job_id"] for r in market["rows"]} == {1, 2}
    euros = salary_band("software_optimization", "senior", postings=postings, currency="EUR", now=NOW)
    assert [s["kind"] for s in euros["sources"]] == ["postings"] and euros["currency"] == "EUR"
    assert euros["band"]["median"] == 320_000


@pytest.mark.parametrize("track, level, field", [
    ("gpu_wizardry", "mid", "track"), ("infrastructure", "principal", "level"), ("", "mid", "track")])
def test_unknown_track_or_level_names_the_field(track, level, field):
    with pytest.raises(SalaryError) as err:
        salary_band(track, level)
    assert err.value.field == field


@pytest.mark.db
def test_the_salary_endpoint_counts_stored_postings(client, make_user):
    recruiter = make_user("pay@example.com", "recruiter", organisation="Pay Org")
    text = "Senior CUDA Engineer\nRequirements: 5+ years of CUDA\nBase salary: $200,000 - $260,000 per year"
    assert client.post("/api/v1/jobs", headers=recruiter.headers,
                       json={"title": "Senior CUDA Engineer", "text": text}).status_code == 201
    resp = client.get("/api/v1/salary?track=software_optimization&level=senior&location=Austin, TX")
    assert resp.status_code == 200, resp.get_json()
    data = resp.get_json()
    assert data["area"] == "Austin-Round Rock-San Marcos TX"
    market = next(s for s in data["sources"] if s["kind"] == "postings")
    assert market["source"] == "from 1 posting in the last 12 months" and market["figures"]["median"] == 230_000
    assert set(data["from"]) == set(data["band"])


@pytest.mark.db
@pytest.mark.parametrize("query, field", [
    ("level=mid", "track"), ("track=wizardry&level=mid", "track"),
    ("track=infrastructure&level=principal", "level"), ("track=infrastructure", "level"),
    ("track=infrastructure&level=mid&currency=dollars", "currency")])
def test_the_salary_endpoint_refuses_bad_queries_by_field(client, query, field):
    resp = client.get(f"/api/v1/salary?{query}")
    assert resp.status_code == 422
    assert field in resp.get_json()["errors"]["query"]
