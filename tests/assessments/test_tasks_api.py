"""The task catalog: what candidates may read, and what they never see."""
import pytest

import gpu_tasks
from gpu_tasks import bank
from gpu_tasks.rtl import TASKS as DESIGNS


def test_catalog_lists_every_task_with_its_skills(client):
    resp = client.get("/api/v1/tasks")
    assert resp.status_code == 200
    items = resp.get_json()["items"]
    assert {t["slug"] for t in items} == set(bank.tasks())
    assert set(gpu_tasks.TASKS) | set(DESIGNS) <= {t["slug"] for t in items}
    assert {t["kind"] for t in items if t["slug"] in DESIGNS} == {"verilog"}
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


def test_design_task_detail_has_its_module_ports_and_starter(client):
    data = client.get("/api/v1/tasks/sync_fifo").get_json()
    assert data["kind"] == "verilog" and data["language"] == "verilog"
    assert data["tracks"][0] == "hardware_design"
    assert data["module"] == "sync_fifo" and data["clock"] == "clk"
    ports = {p["name"]: p for p in data["ports"]}
    assert ports["count"]["direction"] == "output" and ports["count"]["range"] == "[$clog2(DEPTH):0]"
    assert ports["din"]["range"] == "[WIDTH-1:0]" and ports["clk"]["range"] == ""
    assert data["parameters"] == {"WIDTH": 8, "DEPTH": 16}
    assert list(data["starters"]) == ["verilog"]
    starter = data["starters"]["verilog"]
    assert starter.startswith("module sync_fifo #(") and "parameter DEPTH = 16" in starter
    assert "output wire [$clog2(DEPTH):0] count" in starter and starter.rstrip().endswith("endmodule")
    assert data["tests"]["sim"] >= 5 and data["samples"]


@pytest.mark.parametrize("slug", sorted(DESIGNS))
def test_no_reference_design_is_ever_served(client, slug):
    reference = DESIGNS[slug].reference_path.read_text()
    served = client.get(f"/api/v1/tasks/{slug}").get_data(as_text=True) + \
        client.get(f"/tasks/{slug}").get_data(as_text=True)
    own = [ln.strip() for ln in reference.splitlines()
           if len(ln.strip()) > 25 and ("<=" in ln or "assign" in ln)]
    assert own, "the reference has lines of its own"
    assert not any(line in served for line in own)


def test_cli_shows_a_design_task_with_its_ports(app):
    runner = app.test_cli_runner()
    shown = runner.invoke(args=["tasks", "show", "rr_arbiter"])
    assert shown.exit_code == 0, shown.output
    assert "module rr_arbiter #(" in shown.output and "grant" in shown.output
    starter = runner.invoke(args=["tasks", "show", "rr_arbiter", "--starter-only"])
    assert starter.output.startswith("module rr_arbiter") and "endmodule" in starter.output
    wrong = runner.invoke(args=["tasks", "show", "rr_arbiter", "--style", "jit"])
    assert wrong.exit_code != 0 and "has no 'jit' starter" in wrong.output


@pytest.mark.parametrize("slug", sorted(bank.tasks()))
def test_every_task_of_every_kind_is_served_with_a_starter(client, slug):
    data = client.get(f"/api/v1/tasks/{slug}")
    assert data.status_code == 200, data.get_data(as_text=True)[:500]
    detail = data.get_json()
    assert detail["kind"] in bank.KIND_LABELS and detail["languages"] and detail["statement"]
    assert detail["starters"] and all(code.strip() for code in detail["starters"].values())
    assert detail["samples"] and sum(detail["tests"].values()) >= 1
    page = client.get(f"/tasks/{slug}")
    assert page.status_code == 200 and detail["title"] in page.get_data(as_text=True)


def test_a_jobs_suggested_tasks_come_from_its_track_first(app):
    from assessments import catalog
    with app.app_context():
        infra = catalog.tasks_for_skills(["python", "prometheus", "gpu_cluster_operations"], 3,
                                         "infrastructure")
        assert infra and all(catalog.track_of(bank.find(t)) == "infrastructure" for t in infra)
        rtl = catalog.tasks_for_skills(["python", "verilog", "rtl_design"], 3, "hardware_design")
        assert rtl and all(catalog.track_of(bank.find(t)) == "hardware_design" for t in rtl)
        # A skill no task of the track evidences is still covered, from another track.
        mixed = catalog.tasks_for_skills(["verilog", "prometheus"], 3, "infrastructure")
        assert catalog.track_of(bank.find(mixed[0])) == "infrastructure"
        assert any(catalog.track_of(bank.find(t)) == "hardware_design" for t in mixed)
