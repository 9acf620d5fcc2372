"""`flask jobs parse FILE [--json]` and its one-line refusals."""
import json

import pytest
from click.testing import CliRunner


@pytest.fixture
def run_cli(app):
    def run(*args):
        return app.test_cli_runner().invoke(args=["jobs", "parse", *args])
    return run


def test_json_output(run_cli, tmp_path):
    path = tmp_path / "job.txt"
    path.write_text("Senior CUDA Engineer\nRequired: 5+ years of CUDA and C/C++; PTX a plus.\n"
                    "Salary: $152K–$287.5K\nMS in CS required.")
    result = run_cli(str(path), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["primary_track"] == "software_optimization"
    assert data["min_years"] == 5 and data["degree"] == "master"
    assert data["salary"] == {"min": 152000, "max": 287500, "currency": "USD", "period": "year"}
    ids = {s["id"] for s in data["skills"]}
    assert {"cuda", "c", "cpp"} <= ids


def test_table_output(run_cli, tmp_path):
    path = tmp_path / "job.txt"
    path.write_text("RTL Design Engineer\nRequirements:\n- Verilog and System Verilog\n- UVM")
    result = run_cli(str(path))
    assert result.exit_code == 0
    assert "Primary track  hardware_design" in result.output
    assert "SystemVerilog" in result.output or "System Verilog" in result.output


@pytest.mark.parametrize("content, message", [
    (None, "no such file"),
    (b"", "empty"),
    (b"   \n\t", "empty"),
    (b"\x7fELF\x00\x01\x02", "binary"),
    (b"x" * (200 * 1024 + 1), "limit"),
    (b"\xff\xfe caf\xe9", "UTF-8"),
])
def test_bad_input_exits_non_zero_with_one_line(run_cli, tmp_path, content, message):
    path = tmp_path / "job.txt"
    if content is not None:
        path.write_bytes(content)
    result = run_cli(str(path))
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0]


def test_directory_is_refused(run_cli, tmp_path):
    result = run_cli(str(tmp_path))
    assert result.exit_code != 0 and "not a regular file" in result.output


def test_standard_input_is_read_with_a_dash(app):
    result = app.test_cli_runner().invoke(
        args=["jobs", "parse", "-", "--json"],
        input="\ufeffStaff GPU Architect\nRequirements: BS + 10 years or MS + 8 years\n")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["seniority"] == "staff_principal"
    assert [(p["degree"], p["min_years"]) for p in data["experience_paths"]] == [("bachelor", 10), ("master", 8)]


def test_several_files_give_one_json_line_each_and_a_bad_one_does_not_stop_the_rest(app, tmp_path):
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("RTL Engineer\nRequirements:\n- Verilog, UVM\n")
    second.write_text("GPU Cluster SRE\nRequirements:\n- Slurm and Kubernetes\n")
    result = app.test_cli_runner().invoke(
        args=["jobs", "parse", str(first), str(tmp_path / "missing.txt"), str(second)])
    assert result.exit_code == 1
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert [line["file"] for line in lines] == [str(first), str(second)]
    assert [line["primary_track"] for line in lines] == ["hardware_design", "infrastructure"]
    assert "missing.txt: no such file" in result.stderr


def test_the_table_shows_need_and_paths(run_cli, tmp_path):
    path = tmp_path / "job.txt"
    path.write_text("GPU Engineer\nAbout us: we love Kubernetes.\nRequirements:\n- CUDA\n"
                    "- BS and 6+ years, or MS and 4+\nNice to have:\n- Triton\n")
    result = run_cli(str(path))
    assert result.exit_code == 0, result.output
    assert "bachelor + 6 years; master + 4 years" in result.output
    rows = {line.split()[0]: line for line in result.output.splitlines() if line.startswith("  ")}
    assert "required" in rows["CUDA"] and "mentioned" in rows["Kubernetes"]


def test_reparse_brings_stored_jobs_to_the_current_parser(app, client, make_user):
    from extensions import db
    from jobdata.models import Job
    from skillmap.parse import PARSER_VERSION

    recruiter = make_user("reparse@example.com", "recruiter", organisation="Reparse Org")
    resp = client.post("/api/v1/jobs", headers=recruiter.headers, json={
        "title": "GPU Engineer", "text": "GPU Engineer\nAbout us: Kubernetes.\nRequirements:\n- CUDA"})
    assert resp.status_code == 201, resp.get_json()
    with app.app_context():
        job = db.session.get(Job, resp.get_json()["id"])
        # A parse stored by an older parser: no need, no paths, no version.
        job.parse = {k: v for k, v in job.parse.items() if k not in ("parser_version", "experience_paths")}
        for skill in job.skills:
            skill.need = "required"
        db.session.commit()
        job_id = job.id
    result = app.test_cli_runner().invoke(args=["jobs", "reparse"])
    assert result.exit_code == 0, result.output
    assert "jobs re-parsed: 1 of" in result.output
    with app.app_context():
        job = db.session.get(Job, job_id)
        assert job.parse["parser_version"] == PARSER_VERSION
        assert {s.skill_id: s.need for s in job.skills}["kubernetes"] == "mentioned"
    again = app.test_cli_runner().invoke(args=["jobs", "reparse"])
    assert "jobs re-parsed: 0 of" in again.output
