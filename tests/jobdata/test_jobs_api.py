"""Jobs API: parse, store, change, list; who may do what."""
import pytest

pytestmark = pytest.mark.db

POSTING = """Senior GPU Infrastructure Engineer

Minimum qualifications:
- 5+ years operating Kubernetes (K8s) and Slurm clusters
- Bachelor's degree in Computer Science or equivalent
- Experience with InfiniBand and NCCL

Nice to have:
- Terraform and Ansible

The base salary range is $180,000 - $250,000 per year.
"""


def test_parse_returns_the_contract(client):
    resp = client.post("/api/v1/jobs/parse", json={"text": POSTING})
    assert resp.status_code == 200
    data = resp.get_json()
    assert data["primary_track"] == "infrastructure"
    assert abs(sum(data["tracks"].values()) - 1) < 1e-6
    assert data["min_years"] == 5
    assert data["degree"] == "bachelor"
    assert data["seniority"] == "senior"
    assert data["salary"] == {"min": 180000, "max": 250000, "currency": "USD", "period": "year"}
    by_id = {s["id"]: s for s in data["skills"]}
    assert {"kubernetes", "slurm", "infiniband", "nccl"} <= set(by_id)
    assert by_id["kubernetes"]["required"] is True
    evidence = by_id["kubernetes"]["evidence"][0]
    assert POSTING[evidence["start"]:evidence["end"]] in ("Kubernetes", "K8s")
    assert "Kubernetes" in evidence["text"]
    terraform = next(s for s in data["skills"] if s["name"].lower().startswith("terraform"))
    assert terraform["required"] is False and terraform["need"] == "preferred"
    assert by_id["kubernetes"]["need"] == "required"
    assert [POSTING[a:b] for a, b in by_id["kubernetes"]["offsets"]] == ["Kubernetes", "K8s"]
    assert data["experience_paths"] == [{"degree": "bachelor", "min_years": 5}]


def test_text_with_no_gpu_content_has_no_track(client):
    resp = client.post("/api/v1/jobs/parse", json={"text": "hello"})
    assert resp.status_code == 200
    data = resp.get_json()
    assert data["primary_track"] is None and data["seniority"] is None and data["skills"] == []


def test_a_byte_order_mark_alone_is_empty_text(client):
    resp = client.post("/api/v1/jobs/parse", json={"text": "\ufeff \u200b"})
    assert resp.status_code == 422
    assert "text" in resp.get_json()["errors"]["json"]


def test_openapi_document_describes_need_and_experience_paths(client):
    spec = client.get("/api/v1/openapi.json").get_json()
    schemas = spec["components"]["schemas"]
    skill = next(s for name, s in schemas.items() if name.startswith("SkillFound"))
    assert skill["properties"]["need"]["enum"] == ["required", "preferred", "mentioned"]
    parse = next(s for name, s in schemas.items() if name.startswith("Parse") and "experience_paths" in s["properties"])
    assert "min_years" in parse["properties"] and "track_confidence" in parse["properties"]


@pytest.mark.parametrize("body, field", [
    ({}, "text"),
    ({"text": "   \n "}, "text"),
    ({"text": 42}, "text"),
    ({"text": "a\x00b"}, "text"),
    ({"text": "x" * (200 * 1024 + 1)}, "text"),
])
def test_parse_rejects_bad_text_naming_the_field(client, body, field):
    resp = client.post("/api/v1/jobs/parse", json=body)
    assert resp.status_code == 422
    assert resp.get_json()["field"] == field


def test_only_recruiters_store_jobs(client, make_user):
    candidate = make_user("cand@example.com")
    body = {"title": "GPU SRE", "text": POSTING}
    assert client.post("/api/v1/jobs", json=body).status_code == 401
    assert client.post("/api/v1/jobs", json=body, headers=candidate.headers).status_code == 403


def test_recruiter_stores_changes_and_deletes_a_job(client, make_user):
    rec = make_user("rec@acme.test", "recruiter", "Acme GPU")
    created = client.post("/api/v1/jobs", json={"title": "GPU SRE", "location": "Austin, TX",
                                                 "text": POSTING}, headers=rec.headers)
    assert created.status_code == 201
    job = created.get_json()
    assert job["parse"]["primary_track"] == "infrastructure"
    assert job["organisation"]["name"] == "Acme GPU"

    fetched = client.get(f"/api/v1/jobs/{job['id']}")
    assert fetched.status_code == 200 and fetched.get_json()["title"] == "GPU SRE"

    new_text = "CUDA Kernel Engineer\nRequired: 3+ years of CUDA, Nsight Compute, CUTLASS, PTX."
    changed = client.put(f"/api/v1/jobs/{job['id']}", json={"text": new_text}, headers=rec.headers)
    assert changed.status_code == 200
    assert changed.get_json()["parse"]["primary_track"] == "software_optimization"
    assert changed.get_json()["parse"]["min_years"] == 3

    assert client.delete(f"/api/v1/jobs/{job['id']}", headers=rec.headers).status_code == 204
    assert client.get(f"/api/v1/jobs/{job['id']}").status_code == 404


def test_recruiter_cannot_change_another_organisations_job(client, make_user):
    owner = make_user("rec@acme.test", "recruiter", "Acme GPU")
    rival = make_user("rec@rival.test", "recruiter", "Rival Compute")
    job = client.post("/api/v1/jobs", json={"title": "GPU SRE", "text": POSTING},
                      headers=owner.headers).get_json()
    put = client.put(f"/api/v1/jobs/{job['id']}", json={"title": "Hijacked"}, headers=rival.headers)
    assert put.status_code == 403
    assert client.delete(f"/api/v1/jobs/{job['id']}", headers=rival.headers).status_code == 403
    assert client.get(f"/api/v1/jobs/{job['id']}").get_json()["title"] == "GPU SRE"


def test_update_validation(client, make_user):
    rec = make_user("rec@acme.test", "recruiter", "Acme GPU")
    job = client.post("/api/v1/jobs", json={"title": "GPU SRE", "text": POSTING},
                      headers=rec.headers).get_json()
    resp = client.put(f"/api/v1/jobs/{job['id']}", json={"title": ""}, headers=rec.headers)
    assert resp.status_code == 422 and resp.get_json()["field"] == "title"
    assert client.put("/api/v1/jobs/99999", json={"title": "x"}, headers=rec.headers).status_code == 404


def test_list_filters_and_paginates(client, make_user):
    rec = make_user("rec@acme.test", "recruiter", "Acme GPU")
    rtl = ("ASIC Design Verification Engineer\nRequired: SystemVerilog, UVM, formal verification, "
           "5+ years of RTL verification of GPU blocks.")
    client.post("/api/v1/jobs", json={"title": "GPU SRE", "text": POSTING}, headers=rec.headers)
    client.post("/api/v1/jobs", json={"title": "DV Engineer", "text": rtl}, headers=rec.headers)
    everything = client.get("/api/v1/jobs").get_json()
    assert everything["total"] == 2
    infra = client.get("/api/v1/jobs?track=infrastructure").get_json()
    assert [j["title"] for j in infra["items"]] == ["GPU SRE"]
    uvm = client.get("/api/v1/jobs?skill=uvm").get_json()
    assert [j["title"] for j in uvm["items"]] == ["DV Engineer"]
    text = client.get("/api/v1/jobs?q=verification").get_json()
    assert [j["title"] for j in text["items"]] == ["DV Engineer"]
    page = client.get("/api/v1/jobs?per_page=1&page=2").get_json()
    assert page["total"] == 2 and len(page["items"]) == 1 and page["pages"] == 2


@pytest.mark.parametrize("query, field", [
    ("track=gardening", "track"),
    ("skill=not_a_skill", "skill"),
    ("per_page=1000", "per_page"),
    ("page=0", "page"),
])
def test_list_query_validation(client, query, field):
    resp = client.get(f"/api/v1/jobs?{query}")
    assert resp.status_code == 422
    assert resp.get_json()["field"] == field


def test_openapi_document_and_docs_page(client):
    spec = client.get("/api/v1/openapi.json")
    assert spec.status_code == 200
    paths = spec.get_json()["paths"]
    assert "/api/v1/jobs/parse" in paths and "/api/v1/auth/signup" in paths
    assert spec.get_json()["openapi"].startswith("3.")
    page = client.get("/api/v1/docs")
    assert page.status_code == 200 and b"/api/v1/jobs/parse" in page.data


def test_unknown_api_route_is_json_404(client):
    resp = client.get("/api/v1/nothing-here")
    assert resp.status_code == 404
    assert resp.get_json()["status"] == 404


@pytest.mark.parametrize("body, status", [("{bad", 400), ("[1, 2]", 422), ('"text"', 422)])
def test_malformed_bodies_are_json_errors_about_the_body(client, body, status):
    resp = client.post("/api/v1/jobs/parse", data=body, content_type="application/json")
    assert resp.status_code == status
    assert resp.get_json()["field"] == "body"
    assert resp.get_json()["message"].startswith("body: ")


def test_unknown_fields_are_refused_by_name(client):
    resp = client.post("/api/v1/jobs/parse", json={"text": "CUDA", "colour": "red"})
    assert resp.status_code == 422 and resp.get_json()["field"] == "colour"


def test_skills_are_found_by_name_or_alias_for_autocomplete(client):
    found = client.get("/api/v1/skills?q=nccl").get_json()
    assert found[0]["id"] == "nccl" and {"id", "name", "category", "track"} <= set(found[0])
    by_alias = [s["id"] for s in client.get("/api/v1/skills?q=k8s").get_json()]
    assert "kubernetes" in by_alias
    assert len(client.get("/api/v1/skills?limit=5").get_json()) == 5
    assert client.get("/api/v1/skills?q=zzzzqqq").get_json() == []
    assert client.get("/api/v1/skills?limit=0").status_code == 422


def test_several_skill_filters_mean_all_of_them(client, make_user):
    rec = make_user("multi@example.com", "recruiter", "Multi Org")
    for title, text in (("Both", "Both\\nRequirements: CUDA and NCCL"), ("Only CUDA", "Only CUDA\\nRequirements: CUDA")):
        assert client.post("/api/v1/jobs", headers=rec.headers, json={"title": title, "text": text}).status_code == 201
    both = client.get("/api/v1/jobs?skill=cuda&skill=nccl").get_json()
    assert [j["title"] for j in both["items"]] == ["Both"]
    one = client.get("/api/v1/jobs?skill=cuda").get_json()
    assert {j["title"] for j in one["items"]} >= {"Both", "Only CUDA"}
    bad = client.get("/api/v1/jobs?skill=cuda&skill=not_a_skill")
    assert bad.status_code == 422 and "skill" in bad.get_json()["errors"]["query"]
