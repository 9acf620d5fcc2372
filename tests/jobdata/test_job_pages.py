"""The job pages: filters (the API's, with names for skills), a recruiter posting a job from a
pasted description with corrections, editing and deleting, and organisations kept apart."""
import json
import re

import pytest

from tests.assessments.test_pages import PASSWORD, Page

pytestmark = pytest.mark.db

POSTING = """Senior GPU Kernel Engineer
Austin, TX (Hybrid)

Requirements:
- 5+ years of CUDA C++ kernel development
- Experience with NCCL and multi-GPU collectives
- Bachelor's degree in Computer Science

Preferred:
- Triton

Pay: $180,000 - $240,000 per year.
"""


def _recruiter(app, email="boss@acme.test", org="Acme GPU"):
    page = Page(app)
    resp = page.post("/signup", data={"email": email, "password": PASSWORD, "role": "recruiter",
                                      "name": "Rita Recruiter",
                                      "organisation": org})
    assert resp.status_code == 302, resp.get_data(as_text=True)
    return page


def _shown(html: str) -> str:
    from html import unescape

    return unescape(re.search(r'name="shown" value="([^"]*)"', html).group(1))


def _post_job(page, text=POSTING, title="Senior GPU Kernel Engineer", **corrections):
    review = page.post("/jobs/new", data={"title": title, "location": "Austin, TX", "text": text,
                                          "step": "read"})
    assert review.status_code == 200
    html = review.get_data(as_text=True)
    shown = json.loads(_shown(html))
    form = {"title": title, "location": "Austin, TX", "text": text, "step": "save",
            "shown": json.dumps(shown), "primary_track": shown["primary_track"] or "",
            "seniority": shown["seniority"] or "", "degree": shown["degree"] or "",
            "min_years": shown["min_years"] if shown["min_years"] is not None else "",
            "workplace": shown["workplace"] or ""}
    if shown["salary"]:
        form.update(salary_min=shown["salary"]["min"], salary_max=shown["salary"]["max"],
                    salary_currency=shown["salary"]["currency"], salary_period=shown["salary"]["period"])
    form.update({f"need.{sid}": need for sid, need in shown["skills"].items()})
    form.update(corrections)
    return html, page.post("/jobs/new", data=form)


def test_a_recruiter_posts_a_job_from_a_pasted_description_and_corrects_it(app, client):
    page = _recruiter(app)
    html, saved = _post_job(page, **{"seniority": "staff_principal", "need.triton": "remove",
                                     "add_skills": "InfiniBand", "add_need": "preferred"})
    # The review shows the text with its skills marked, and the parse in the form.
    assert '<mark class="skill required"' in html and 'data-skill="cuda"' in html
    shown = json.loads(_shown(html))
    assert shown["seniority"] == "senior" and shown["workplace"] == "hybrid"
    assert shown["salary"]["min"] == 180000 and "triton" in shown["skills"]
    assert saved.status_code == 302
    job_id = int(saved.headers["Location"].rsplit("/", 1)[1])
    job = client.get(f"/api/v1/jobs/{job_id}").get_json()
    assert job["seniority"] == "staff_principal"
    assert "triton" not in job["skills"] and "infiniband" in job["skills"]
    assert job["parse"]["seniority"] == "senior"  # the parser's own reading is kept apart
    assert job["corrected"] == ["seniority", "skills"] and job["example"] is False
    detail = page.get(f"/jobs/{job_id}").get_data(as_text=True)
    assert "corrected by your organisation" in detail and "Staff / principal" in detail
    assert "/jobs/%d/edit" % job_id in detail
    assert "Senior GPU Kernel Engineer" in page.get("/jobs/mine").get_data(as_text=True)


def test_review_mistakes_are_shown_in_the_form(app, client):
    page = _recruiter(app)
    empty = page.post("/jobs/new", data={"title": "", "text": " ", "step": "read"})
    html = empty.get_data(as_text=True)
    assert empty.status_code == 422 and 'id="f-title-error"' in html and 'id="f-text-error"' in html
    _, bad = _post_job(page, min_years="many", add_skills="Quantum Basket Weaving")
    html = bad.get_data(as_text=True)
    assert bad.status_code == 422
    assert 'id="f-min_years-error"' in html and "Quantum Basket Weaving" in html


def test_corrections_survive_a_new_text_and_untouched_fields_follow_it(app, client):
    page = _recruiter(app)
    _, saved = _post_job(page, degree="master")
    job_id = int(saved.headers["Location"].rsplit("/", 1)[1])
    form = page.get(f"/jobs/{job_id}/edit").get_data(as_text=True)
    shown = json.loads(_shown(form))
    assert shown["degree"] == "master"
    new_text = POSTING.replace("5+ years", "8+ years").replace("(Hybrid)", "(Remote)")
    data = {"title": "Senior GPU Kernel Engineer", "location": "Austin, TX", "text": new_text,
            "shown": json.dumps(shown), "primary_track": shown["primary_track"],
            "seniority": shown["seniority"], "degree": "master", "min_years": shown["min_years"],
            "workplace": shown["workplace"], "salary_min": 180000, "salary_max": 240000,
            **{f"need.{sid}": need for sid, need in shown["skills"].items()}}
    assert page.post(f"/jobs/{job_id}/edit", data=data).status_code == 302
    job = client.get(f"/api/v1/jobs/{job_id}").get_json()
    assert job["degree"] == "master"  # corrected before, left alone: stays corrected
    assert job["min_years"] == 8 and job["workplace"] == "remote"  # untouched: the new parse


def test_another_organisation_can_neither_edit_nor_delete_nor_list_the_job(app, client):
    acme = _recruiter(app)
    _, saved = _post_job(acme)
    job_id = int(saved.headers["Location"].rsplit("/", 1)[1])
    other = _recruiter(app, "rival@other.test", "Other Silicon")
    assert other.get(f"/jobs/{job_id}/edit").status_code == 404
    assert other.post(f"/jobs/{job_id}/edit", data={"title": "mine now"}).status_code == 404
    assert other.post(f"/jobs/{job_id}/delete").status_code == 404
    assert "Senior GPU Kernel Engineer" not in other.get("/jobs/mine").get_data(as_text=True)
    assert "Edit" not in other.get(f"/jobs/{job_id}").get_data(as_text=True).split("job-actions")[1].split("</div>")[0]
    candidate = Page(app)
    candidate.post("/signup", data={"email": "c@example.com", "password": PASSWORD, "role": "candidate",
                                    "name": "Cora Candidate"})
    assert candidate.get("/jobs/new").status_code == 403
    assert candidate.get("/jobs/mine").status_code == 403
    assert acme.post(f"/jobs/{job_id}/delete").status_code == 302
    assert client.get(f"/api/v1/jobs/{job_id}").status_code == 404


def test_job_list_filters(app, client):
    page = _recruiter(app)
    _post_job(page)
    _post_job(page, text=POSTING.replace("NCCL and multi-GPU collectives", "Kubernetes")
              .replace("(Hybrid)", "(Remote)").replace("$180,000 - $240,000", "$90,000 - $110,000"),
              title="GPU Platform Engineer")
    def titles(query):
        resp = page.get("/jobs/?" + query)
        assert resp.status_code == 200, resp.get_data(as_text=True)
        return set(re.findall(r'<a href="/jobs/\d+">([^<]+)</a>', resp.get_data(as_text=True)))
    both = {"Senior GPU Kernel Engineer", "GPU Platform Engineer"}
    assert titles("") >= both
    assert titles("skills=CUDA, NCCL") == {"Senior GPU Kernel Engineer"}
    assert titles("skill=cuda&skill=nccl") == {"Senior GPU Kernel Engineer"}
    assert titles("workplace=remote") == {"GPU Platform Engineer"}
    assert titles("min_salary=150000&currency=USD") == {"Senior GPU Kernel Engineer"}
    assert titles("max_salary=100000") == {"GPU Platform Engineer"}
    assert titles("seniority=senior&location=austin") >= both
    assert titles("track=software_optimization&skills=cuda") >= {"Senior GPU Kernel Engineer"}
    # Human names, not ids
    listing = page.get("/jobs/").get_data(as_text=True)
    assert "GPU software optimization" in listing and "software_optimization</td>" not in listing


def test_unknown_filters_are_a_visible_message_on_the_page_and_422_in_the_api(app, client):
    for query, field in (("track=quantum", "track"), ("skills=Basket+weaving", "skills"),
                         ("seniority=wizard", "seniority"), ("min_salary=lots", "min_salary"),
                         ("workplace=moon", "workplace")):
        resp = client.get("/jobs/?" + query)
        html = resp.get_data(as_text=True)
        assert resp.status_code == 422, query
        assert 'class="form-summary" role="alert"' in html and f'href="#filter-{field}"' in html
    for query, field in (("track=quantum", "track"), ("skill=basket", "skill"),
                         ("seniority=wizard", "seniority"), ("workplace=moon", "workplace"),
                         ("min_salary=5&max_salary=1", "max_salary"), ("colour=red", "colour")):
        resp = client.get("/api/v1/jobs?" + query)
        assert resp.status_code == 422 and resp.get_json()["field"] == field, query


def test_starter_jobs_are_marked_as_examples(app, client):
    from extensions import db
    from jobdata.starter import load_starter

    with app.app_context():
        load_starter()
    listing = client.get("/jobs/").get_data(as_text=True)
    assert 'class="badge example"' in listing
    items = client.get("/api/v1/jobs?per_page=5").get_json()["items"]
    assert items and all(item["example"] for item in items)
    db.session.rollback()


BARE_POSTING = """We are looking for someone to write CUDA kernels and profile them with Nsight.
You will work with PyTorch.
"""


def test_a_posting_without_pay_years_degree_or_title_reads_saves_and_shows(app, client):
    page = _recruiter(app, email="bare@acme.test", org="Bare Co")
    # No title in the form and none the parser can read: the form asks for one.
    untitled = page.post("/jobs/new", data={"title": "", "location": "", "text": BARE_POSTING,
                                            "step": "read"})
    assert untitled.status_code == 422 and "give the job a title" in untitled.get_data(as_text=True)
    review = page.post("/jobs/new", data={"title": "CUDA engineer", "location": "",
                                          "text": BARE_POSTING, "step": "read"})
    html = review.get_data(as_text=True)
    assert review.status_code == 200, html[:2000]
    shown = json.loads(_shown(html))
    assert shown["salary"] is None and shown["min_years"] is None and shown["degree"] is None
    html, saved = _post_job(page, text=BARE_POSTING, title="CUDA engineer")
    assert saved.status_code == 302, saved.get_data(as_text=True)[:2000]
    job_id = int(saved.headers["Location"].rsplit("/", 1)[1])
    for url in (f"/jobs/{job_id}", f"/jobs/{job_id}/edit", "/jobs/mine", "/jobs/",
                f"/jobs/{job_id}/candidates"):
        resp = page.get(url)
        assert resp.status_code in (200, 404), (url, resp.get_data(as_text=True)[:2000])


@pytest.mark.parametrize("text", [BARE_POSTING, "Bookkeeper for a bakery.\nKeep the books in order.\n",
                                  "Remote role.\n"])
def test_every_page_that_shows_a_parse_renders_with_each_optional_fact_absent(app, client, text):
    page = _recruiter(app, email=f"facts{abs(hash(text)) % 10**6}@acme.test", org="Facts Co")
    home = page.post("/", data={"text": text})
    assert home.status_code in (200, 422), home.get_data(as_text=True)[:2000]
    review = page.post("/jobs/new", data={"title": "A job", "location": "", "text": text, "step": "read"})
    assert review.status_code == 200, review.get_data(as_text=True)[:2000]
    shown = json.loads(_shown(review.get_data(as_text=True)))
    assert shown["salary"] is None and shown["min_years"] is None
    _, saved = _post_job(page, text=text, title="A job")
    assert saved.status_code == 302, saved.get_data(as_text=True)[:2000]
    job_id = int(saved.headers["Location"].rsplit("/", 1)[1])
    for url in (f"/jobs/{job_id}", f"/jobs/{job_id}/edit", "/jobs/mine", "/jobs/"):
        resp = page.get(url)
        assert resp.status_code == 200, (url, resp.get_data(as_text=True)[:2000])


def test_the_title_the_parser_reads_fills_the_title_field(app, client):
    page = _recruiter(app, email="title@acme.test", org="Title Co")
    review = page.post("/jobs/new", data={"title": "", "location": "", "text": POSTING, "step": "read"})
    html = review.get_data(as_text=True)
    assert re.search(r'name="title"[^>]*value="Senior GPU Kernel Engineer"', html), html[:3000]


def test_corrections_survive_a_failed_save_and_are_kept_when_fixed(app, client):
    page = _recruiter(app, email="fix@acme.test", org="Fix Co")
    html, bad = _post_job(page, min_years="many", seniority="staff_principal",
                          **{"need.triton": "remove", "need.nccl": "preferred",
                             "add_skills": "InfiniBand", "add_need": "required"})
    assert bad.status_code == 422
    form = bad.get_data(as_text=True)
    shown = json.loads(_shown(form))
    # The failed form shows every correction as the recruiter left it.
    assert re.search(r'<option value="staff_principal"\s+selected', form)
    assert "triton" not in re.findall(r'name="need\.([a-z0-9_]+)"', form) or \
        re.search(r'name="need\.triton".*?<option value="remove"\s+selected', form, re.S)
    assert re.search(r'name="need\.nccl".*?<option value="preferred"\s+selected', form, re.S)
    assert "InfiniBand" in form or "infiniband" in re.findall(r'name="need\.([a-z0-9_]+)"', form)
    # Fixed and sent again, the way a browser sends the form it shows.
    data = _form_fields(form)
    data["min_years"] = "7"
    saved = page.post("/jobs/new", data=data)
    assert saved.status_code == 302, saved.get_data(as_text=True)[:3000]
    job_id = int(saved.headers["Location"].rsplit("/", 1)[1])
    job = client.get(f"/api/v1/jobs/{job_id}").get_json()
    assert job["seniority"] == "staff_principal" and job["min_years"] == 7
    assert "triton" not in job["skills"] and "infiniband" in job["skills"]
    assert job["skills"]["nccl"]["need"] == "preferred" if isinstance(job["skills"], dict) else True
    assert set(job["corrected"]) >= {"seniority", "skills", "min_years"}
    del shown


def _form_fields(html: str) -> dict:
    """The fields a browser would send from the page's job form: inputs, selected options,
    textareas."""
    from html import unescape
    forms = re.findall(r'<form[^>]*>(.*?)</form>', html, re.S | re.I)
    body = next(f for f in forms if 'name="shown"' in f)
    data = {}
    for m in re.finditer(r'<input([^>]*)>', body):
        attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', m.group(1)))
        if "name" in attrs and attrs.get("type") not in ("submit", "button", "checkbox", "radio"):
            data[attrs["name"]] = unescape(attrs.get("value", ""))
    for m in re.finditer(r'<select[^>]*name="([^"]+)"[^>]*>(.*?)</select>', body, re.S):
        opts = re.findall(r'<option([^>]*)>([^<]*)', m.group(2))
        chosen = next((o for o in opts if re.search(r'\bselected\b', o[0])), opts[0] if opts else None)
        if chosen:
            value = re.search(r'value="([^"]*)"', chosen[0])
            data[m.group(1)] = unescape(value.group(1) if value else chosen[1].strip())
    for m in re.finditer(r'<textarea[^>]*name="([^"]+)"[^>]*>(.*?)</textarea>', body, re.S):
        data[m.group(1)] = unescape(m.group(2)).lstrip("\n")
    for m in re.finditer(r'<button[^>]*name="([^"]+)"[^>]*value="([^"]*)"', body):
        data.setdefault(m.group(1), m.group(2))
    data["step"] = "save"
    return data


def test_salary_filters_take_amounts_as_people_type_them(app, client):
    page = _recruiter(app, email="pay@acme.test", org="Pay Co")
    _, saved = _post_job(page)
    assert saved.status_code == 302
    plain = page.get("/jobs/?min_salary=150000&currency=USD").get_data(as_text=True)
    for typed in ("150k", "150K", "$150,000", "0.15m"):
        resp = page.get(f"/jobs/?min_salary={typed}&currency=USD")
        assert resp.status_code == 200, (typed, resp.get_data(as_text=True)[:1500])
        assert ("Senior GPU Kernel Engineer" in resp.get_data(as_text=True)) == \
            ("Senior GPU Kernel Engineer" in plain)
    assert page.get("/jobs/?min_salary=lots").status_code == 422


def test_an_unknown_skill_in_the_address_gets_page_advice_not_api_advice(app, client):
    resp = Page(app).get("/jobs/?skill=quantum_basket_weaving")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 422
    assert "quantum_basket_weaving" in html and "/api/v1" not in html.split("<main", 1)[1].split("</main>")[0]


def test_example_jobs_take_no_applications_and_candidates_see_no_recruiter_notes(app, client):
    from extensions import db
    from jobdata.models import Job
    from jobdata.starter import load_starter

    with app.app_context():
        load_starter()
        example_id = db.session.scalar(db.select(Job.id).where(Job.source.is_not(None)).limit(1))
    page = _recruiter(app, email="notes@acme.test", org="Notes Co")
    _, saved = _post_job(page, seniority="staff_principal")
    job_id = int(saved.headers["Location"].rsplit("/", 1)[1])
    candidate = Page(app)
    candidate.post("/signup", data={"email": "seeker@example.com", "password": PASSWORD,
                                    "role": "candidate", "name": "Sam Seeker"})
    example = candidate.get(f"/jobs/{example_id}").get_data(as_text=True)
    assert "Example" in example and "<button>Apply</button>" not in example
    refused = candidate.post(f"/jobs/{example_id}/apply")
    assert refused.status_code == 303
    follow = candidate.get(refused.headers["Location"]).get_data(as_text=True)
    assert "not an opening" in follow and "Applied:" not in follow
    for_me = candidate.get("/jobs-for-me").get_data(as_text=True)
    assert "nothing to apply to" in for_me
    real = candidate.get(f"/jobs/{job_id}").get_data(as_text=True)
    assert "<button>Apply</button>" in real
    assert "corrected by" not in real                      # the recruiter's own business
    assert "(Hybrid) · Hybrid" not in real                 # the location already says it
    assert "corrected by your organisation" in page.get(f"/jobs/{job_id}").get_data(as_text=True)
    db.session.rollback()
