"""The task catalog: what candidates may read, and what they never see."""
import pytest

import gpu_tasks


def test_catalog_lists_every_task_with_its_skills(client):
    resp = client.get("/api/v1/tasks")
    assert resp.status_code == 200
    items = resp.get_json()["items"]
    assert {t["slug"] for t in items} == set(gpu_tasks.TASKS)
    reduce_sum = next(t for t in items if t["slug"] == "reduce_sum")
    assert reduce_sum["difficulty"] == "medium"
    assert {"id": "cuda", "name": "CUDA", "category": "gpu_programming"} in reduce_sum["skills"]
    assert "software_optimization" in reduce_sum["tracks"]
    assert all(t["summary"] for t in items)


def test_task_detail_has_what_a_candidate_needs(client):
    data = client.get("/api/v1/tasks/matmul").get_json()
    assert data["signature"] == "solve(a, b, c, m, n, k)"
    assert "# " in data["statement"]
    by_name = {a["name"]: a for a in data["args"]}
    assert by_name["a"]["dtype"] == "float32" and by_name["a"]["shape"]
    assert by_name["m"]["role"] == "scalar"
    assert data["check"] and data["tolerance"]
    assert 2 <= len(data["samples"]) <= 3
    assert set(data["starters"]) == {"raw", "elementwise", "reduction", "jit", "array"}
    assert all("def solve(a, b, c, m, n, k)" in s for s in data["starters"].values())


@pytest.mark.parametrize("slug", sorted(gpu_tasks.TASKS))
def test_no_reference_solution_is_ever_served(client, slug):
    reference = gpu_tasks.reference_source(slug)
    body = client.get(f"/api/v1/tasks/{slug}").get_data(as_text=True)
    # The reference's distinctive lines (its kernels) appear nowhere in what is served.
    own = [ln.strip() for ln in reference.splitlines()
           if len(ln.strip()) > 30 and ln.strip() not in "\n".join(
               gpu_tasks.starter(slug, s) for s in gpu_tasks.STYLES)]
    assert own, "the reference has lines of its own"
    assert not any(line in body for line in own)


def test_unknown_task_is_404_naming_it(client):
    resp = client.get("/api/v1/tasks/no_such_task")
    assert resp.status_code == 404
    assert resp.get_json()["field"] == "slug"


def test_cli_lists_and_shows_tasks(app):
    runner = app.test_cli_runner()
    listed = runner.invoke(args=["tasks", "list"])
    assert listed.exit_code == 0
    assert "reduce_sum" in listed.output and "medium" in listed.output
    shown = runner.invoke(args=["tasks", "show", "vector_add", "--style", "array"])
    assert shown.exit_code == 0
    assert "solve(a, b, c, n)" in shown.output and "Samples" in shown.output
    missing = runner.invoke(args=["tasks", "show", "nope"])
    assert missing.exit_code != 0 and "no task named 'nope'" in missing.output
