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
