"""Skill matching on real phrasing: slashes, spelling variants, acronyms that are also words."""
import pytest

from skillmap.extract import read, skill_mentions
from skillmap.parse import parse_job
from skillmap.taxonomy import TRACKS, load_taxonomy


def ids(text):
    return {s["id"] for s in skill_mentions(read(text))}


@pytest.mark.parametrize("text, expected", [
    ("Strong C/C++ skills", {"c", "cpp"}),
    ("Port kernels between CUDA/HIP", {"cuda", "hip"}),
    ("Experience with Infiniband fabrics", {"infiniband"}),
    ("Experience with InfiniBand (IB) and RoCEv2", {"infiniband", "roce"}),
    ("Write System Verilog assertions", {"systemverilog"}),
    ("Strong SV/UVM background", {"systemverilog", "uvm"}),
    ("Operate K8s clusters", {"kubernetes"}),
    ("Profile with Nsight Systems/Compute", {"nsight_systems", "nsight_compute"}),
    ("Scale training with DDP/FSDP and Megatron-LM", {"ddp", "fsdp", "megatron"}),
    ("Fluent in Python, Go and Rust", {"python", "go", "rust"}),
    ("Modern C++/CUDA development", {"cpp", "cuda"}),
    ("Scale with data, tensor and pipeline parallelism", {"tensor_parallelism", "pipeline_parallelism"}),
    ("Design dragonfly topologies", {"network_topology"}),
    ("Review clock-gating changes", {"low_power_design"}),
    ("Models written in SystemC.", {"systemc"}),
    ("Verify AXI3/AXI5, ACE-Lite and AHB5 interconnects, APB4 peripherals", {"amba_axi"}),
    ("Design AMBA5 CHI-B coherent fabrics", {"amba_axi"}),
    ("Write power intent in IEEE 1801", {"low_power_design"}),
    ("Migrate VMM and OVM testbenches", {"uvm"}),
    ("Sign off power with PT-PX", {"power_analysis"}),
    ("Pass GPUs through with VFIO and SRIOV", {"gpu_virtualization"}),
    ("Run VMs on Kubernetes with KubeVirt", {"virtualization"}),
    ("Operate OpenShift, EKS, GKE and AKS clusters", {"kubernetes"}),
    ("Automate with Jenkins; configure with Chef or Puppet", {"cicd", "config_management"}),
    ("Instrument services with OpenTelemetry", {"opentelemetry"}),
    ("Boot images in QEMU", {"virtualization"}),
    ("Write models in System C and TLM-2", {"systemc", "transaction_level_modeling"}),
    ("Extend our SPARTA-based core model", {"sparta"}),
    ("Systems code in Rust", {"rust"}),
])
def test_finds_skills_in_messy_spellings(text, expected):
    assert expected <= ids(text)


@pytest.mark.parametrize("text, absent", [
    ("We love hip-hop and hip replacements", "hip"),
    ("The HIPAA rules apply", "hip"),
    ("Go beyond the status quo and go the extra mile", "go"),
    ("Our Series C funding closed last month", "c"),
    ("The Rib, the bib and the IBM mainframe", "infiniband"),
    ("Ready, set, go!", "go"),
    ("Our engineers ace every interview", "amba_axi"),
])
def test_short_acronyms_do_not_match_ordinary_words(text, absent):
    assert absent not in ids(text)


def test_evidence_points_at_the_mention():
    text = "Requirements:\n- 5+ years with Kubernetes\nNice to have:\n- Slurm or Kueue"
    found = {s["id"]: s for s in skill_mentions(read(text))}
    k8s = found["kubernetes"]["evidence"][0]
    assert text[k8s["start"]:k8s["end"]] == "Kubernetes"
    assert k8s["text"] == "- 5+ years with Kubernetes"
    assert found["kubernetes"]["required"] is True
    assert found["slurm"]["required"] is False


def test_required_wins_when_a_skill_is_both():
    text = "Preferred:\n- CUDA\nMinimum qualifications:\n- CUDA and C++"
    found = {s["id"]: s for s in skill_mentions(read(text))}
    assert found["cuda"]["required"] is True
    assert found["cuda"]["mentions"] == 2


@pytest.mark.parametrize("text, track", [
    ("GPU cluster SRE: Kubernetes, Slurm, InfiniBand, DCGM, Prometheus, Grafana, Lustre.",
     "infrastructure"),
    ("RTL design engineer: Verilog, SystemVerilog, UVM testbenches, timing closure, synthesis.",
     "hardware_design"),
    ("Performance architect: build cycle-accurate C++ models and gem5 simulations of GPU "
     "microarchitecture, workload characterization, performance projections.",
     "architecture_modeling"),
    ("CUDA kernel engineer: optimize GEMM with CUTLASS, Triton, Nsight Compute, PTX, shared "
     "memory tiling and warp shuffles.", "software_optimization"),
])
def test_primary_track(text, track):
    result = parse_job(text)
    assert result["primary_track"] == track
    assert set(result["tracks"]) == set(TRACKS)
    assert abs(sum(result["tracks"].values()) - 1) < 1e-9


def test_taxonomy_shape():
    tax = load_taxonomy()
    assert len(tax) >= 250
    assert set(tax.categories) == {
        "language", "gpu_programming", "libraries", "profiling", "interconnect",
        "cluster_orchestration", "observability", "storage", "hardware_design", "verification",
        "architecture_modeling", "ml_systems", "fundamentals"}
    assert tax.prerequisites("tiled_matmul")[:1] and "shared_memory" in tax.prerequisites("tiled_matmul")
    assert "cuda" in tax.prerequisites("shared_memory")
