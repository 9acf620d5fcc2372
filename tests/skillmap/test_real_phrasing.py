"""The classes of phrasing real postings use, each in words of our own: experience paths, the
overall minimum, degrees, seniority from titles, required / preferred / mentioned, pay, the
taxonomy's newer names, and odd input."""
import pytest

from skillmap.parse import parse_job


def parse(text):
    return parse_job(text)


def needs(result):
    return {s["id"]: s["need"] for s in result["skills"]}


# --- experience paths -------------------------------------------------------------------------

@pytest.mark.parametrize("text, paths", [
    ("Qualifications: a BSEE and 9+ years of experience, or an MSEE and 7+, or a PhD and 4+.",
     [("bachelor", 9), ("master", 7), ("phd", 4)]),
    ("Minimum qualifications\n- Bachelor's degree in CE with 6 years of relevant experience\n"
     "- OR Master's degree with 4 years of relevant experience\n- OR PhD with 1 year of relevant experience",
     [("bachelor", 6), ("master", 4), ("phd", 1)]),
    ("Requirements: 10+ years with a B.S., 8+ years with an M.S., or 5+ years with a Ph.D.",
     [("bachelor", 10), ("master", 8), ("phd", 5)]),
    ("Requirements: Bachelor's with 5+ years of experience, or Master's with 3+ years, or a PhD",
     [("bachelor", 5), ("master", 3), ("phd", None)]),
    ("Requirements\n- BS/MS in Computer Engineering\n- 7+ years designing cache controllers",
     [("bachelor", 7)]),
    ("Requirements\n- 4 years of Python experience", [(None, 4)]),
    ("We build accelerators. CUDA and HIP.", []),
])
def test_every_stated_path_is_reported_lowest_degree_first(text, paths):
    result = parse(text)
    assert [(p["degree"], p["min_years"]) for p in result["experience_paths"]] == paths
    if paths:
        # degree and min_years describe one requirement: the lowest degree's path.
        assert (result["degree"], result["min_years"]) == paths[0]


# --- the overall minimum, not a sub-requirement -------------------------------------------------

@pytest.mark.parametrize("text, years", [
    ("Requirements: 6+ years building services, including 3+ years running GPU clusters", 6),
    ("Requirements: 7 years of compiler work, of which at least 2 on MLIR", 7),
    ("Requirements\n- 9+ years of SoC verification\n- 4+ years with PCIe or CXL", 9),
    ("Requirements: 3+ years of CUDA; 6+ years would be ideal", 3),
    ("Requirements: 2+ years of Verilog. 5 years preferred.", 2),
    ("Requirements: 0-2 years of experience with C++", 0),
    ("Requirements: a minimum of 0 years of industry experience", 0),
    ("Requirements: PhD in EE + 3 or more years of industry experience", 3),
    ("Our company has shipped GPUs for 25 years.\nRequirements: 4+ years of RTL design", 4),
])
def test_minimum_years_is_the_overall_requirement(text, years):
    assert parse(text)["min_years"] == years


# --- degree ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, degree", [
    ("Education: Bachelor's degree required, Master's preferred", "bachelor"),
    ("Requirements: BSEE, BSCE or equivalent experience", "bachelor"),
    ("Requirements: M.Sc. in Computer Science or a related field", "master"),
    ("Requirements: B.Tech in Electronics", "bachelor"),
    ("Requirements: MSEE or Ph.D. in Electrical Engineering", "master"),
    ("Requirements: Ph.D in Computer Architecture", "phd"),
    ("Requirements: Bachelor's degree in CS or equivalent practical experience", "bachelor"),
    ("GPU Architecture Intern\nRequirements\n- Currently pursuing a BS, MS or PhD in EE or CS\n- Verilog", None),
    ("Preferred qualifications\n- Master's degree in Computer Engineering", None),
])
def test_lowest_required_degree(text, degree):
    assert parse(text)["degree"] == degree


# --- seniority ---------------------------------------------------------------------------------

@pytest.mark.parametrize("title, expected", [
    ("Sr. GPU Verification Engineer", "senior"),
    ("Staff Engineer, Cluster Networking", "staff_principal"),
    ("Principal Performance Architect", "staff_principal"),
    ("Distinguished Engineer, GPU Compilers", "staff_principal"),
    ("Lead SRE, GPU Fleet", "senior"),
    ("GPU Compiler Intern (Summer)", "junior"),
    ("Junior HPC Administrator", "junior"),
    ("Associate ASIC Design Engineer", "junior"),
    ("Software Engineer II, CUDA Libraries", "mid"),
    ("Hardware Engineer 2 - Memory Subsystem", "mid"),
    ("Design Verification Engineer III", "senior"),
    ("Performance Modeling Engineer, Level 3", "senior"),
])
def test_seniority_from_the_title(title, expected):
    assert parse(f"{title}\nRequirements: CUDA, 1+ years")["seniority"] == expected


def test_seniority_from_years_when_the_title_names_no_level():
    assert parse("GPU Kernel Engineer\nRequirements: 6+ years of CUDA")["seniority"] == "senior"


def test_no_title_level_and_no_years_is_no_seniority():
    assert parse("GPU Kernel Engineer\nWe write CUDA kernels for inference.")["seniority"] is None


# --- required, preferred or mentioned ------------------------------------------------------------

POSTING = """Senior GPU Platform Engineer

About us
We run one of the largest Kubernetes fleets of H100s and publish our PyTorch tooling as open source.

What you'll do
- Operate Slurm clusters and tune NCCL collectives
- Keep the Prometheus alerts honest

Minimum qualifications
- 5+ years operating Linux fleets
- Deep experience with Kubernetes and Python

Nice to have
- Experience with Terraform
- InfiniBand is a plus

Benefits
- Generous Docker stickers budget
"""


def test_need_follows_the_section_a_mention_stands_in():
    found = needs(parse(POSTING))
    assert found["kubernetes"] == "required"     # also in "About us": the strongest wins
    assert found["python"] == "required"
    assert found["terraform"] == "preferred"
    assert found["infiniband"] == "preferred"
    assert found["pytorch"] == "mentioned"       # only in the company introduction
    assert found["slurm"] == "mentioned"         # only in the responsibilities
    assert found["prometheus"] == "mentioned"
    assert found["docker"] == "mentioned"        # only in the benefits


def test_first_evidence_is_the_requirement_line_and_every_mention_keeps_its_offsets():
    result = parse(POSTING)
    kubernetes = next(s for s in result["skills"] if s["id"] == "kubernetes")
    assert kubernetes["evidence"][0]["text"] == "- Deep experience with Kubernetes and Python"
    assert kubernetes["evidence"][0]["need"] == "required"
    assert kubernetes["mentions"] == 2 == len(kubernetes["offsets"])
    assert [POSTING[a:b] for a, b in kubernetes["offsets"]] == ["Kubernetes", "Kubernetes"]
    assert kubernetes["offsets"] == sorted(kubernetes["offsets"])
    assert kubernetes["required"] is True
    assert next(s for s in result["skills"] if s["id"] == "pytorch")["required"] is False


def test_a_clause_can_override_its_section():
    found = needs(parse("Requirements\n- Verilog required, SystemVerilog preferred\n- UVM; formal verification a plus"))
    assert found["verilog"] == "required" and found["systemverilog"] == "preferred"
    assert found["uvm"] == "required" and found["formal_verification"] == "preferred"


def test_a_posting_without_headings_asks_for_what_it_addresses_to_the_candidate():
    found = needs(parse("We train models on thousands of GPUs with PyTorch. "
                        "You have 3+ years of experience with CUDA and NCCL."))
    assert found["cuda"] == "required" and found["nccl"] == "required"
    assert found["pytorch"] == "mentioned"


# --- pay -------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, salary", [
    ("Pay rate: $95/hr", (95, 95, "USD", "hour")),
    ("This contract pays $82.50 per hour.", (82.5, 82.5, "USD", "hour")),
    ("Hourly range: $40 - $55 per hour", (40, 55, "USD", "hour")),
    ("Salary: €5,000 - €6,500 per month", (5000, 6500, "EUR", "month")),
    ("Wynagrodzenie: 18 000 - 26 000 PLN / month (B2B)", (18000, 26000, "PLN", "month")),
    ("Compensation: 22 000 – 30 000 zł per month", (22000, 30000, "PLN", "month")),
    ("£85,000 - £110,000 per annum", (85000, 110000, "GBP", "year")),
    ("CAD 140,000 - 180,000 a year", (140000, 180000, "CAD", "year")),
    ("CTC: ₹30,00,000 - ₹45,00,000 per annum", (3000000, 4500000, "INR", "year")),
    ("Budget 40-60 LPA", (4000000, 6000000, "INR", "year")),
    ("Base salary: $210,000", (210000, 210000, "USD", "year")),
])
def test_pay_with_its_currency_and_period(text, salary):
    found = parse("GPU Engineer\nCUDA\n" + text)["salary"]
    assert (found["min"], found["max"], found["currency"], found["period"]) == salary


@pytest.mark.parametrize("text", [
    "We closed a $120M round last year.",
    "Sign-on bonus of $20,000 for this role.",
    "Relocation allowance up to $15,000.",
])
def test_amounts_that_are_not_pay(text):
    assert parse("GPU Engineer\nCUDA\n" + text)["salary"] is None


# --- names from real postings ----------------------------------------------------------------------

@pytest.mark.parametrize("text, skill", [
    ("Requirements: running workloads on EKS or GKE", "kubernetes"),
    ("Requirements: K3s at the edge", "kubernetes"),
    ("Requirements: cluster managers such as Mesos, YARN or Borg", "cluster_managers"),
    ("Requirements: NVSHMEM or OpenSHMEM", "nvshmem"),
    ("Requirements: UCX and UCC tuning", "ucx"),
    ("Requirements: EFA networking on AWS", "libfabric"),
    ("Requirements: datasets on S3 and other object storage", "object_storage"),
    ("Requirements: testbenches in e/Specman or Vera", "e_vera"),
    ("Requirements: OVM or UVM", "uvm"),
    ("Requirements: SVA for formal", "sva"),
    ("Requirements: AMBA AXI and CHI protocols", "amba_axi"),
    ("Requirements: UCIe chiplet links", "chiplets"),
    ("Requirements: TLM models in SystemC", "transaction_level_modeling"),
    ("Requirements: D3D12 driver work", "directx"),
    ("Requirements: Mesa and NIR for our open-source GPU driver", "mesa"),
    ("Requirements: GCC or LLVM back ends", "gcc"),
    ("Requirements: MLIR dialects", "mlir"),
    ("Requirements: gem5 with the Ruby memory system", "gem5"),
    ("Requirements: memory coalescing and bank conflicts", "memory_coalescing"),
    ("Requirements: quantized GEMMs for inference", "quantization"),
    ("Requirements: run benchmarks and report", "benchmarking"),
])
def test_names_real_postings_use(text, skill):
    assert skill in needs(parse(text))


@pytest.mark.parametrize("text, absent", [
    ("Requirements: Ruby on Rails web services", "gem5"),
    ("We work on cutting-edge AI research.", "edge_ai"),
    ("Our office is in Mesa, Arizona.", "mesa"),
])
def test_short_names_count_only_in_their_field(text, absent):
    assert absent not in needs(parse(text))


# --- odd input -------------------------------------------------------------------------------

def test_a_byte_order_mark_changes_nothing_but_offsets_stay_true():
    text = "\ufeffSenior CUDA Engineer\nRequirements: 5+ years of CUDA"
    result = parse(text)
    assert result["title"] == "Senior CUDA Engineer" and result["min_years"] == 5
    cuda = next(s for s in result["skills"] if s["id"] == "cuda")
    assert [text[a:b] for a, b in cuda["offsets"]] == ["CUDA", "CUDA"]


@pytest.mark.parametrize("text", ["hello", "Lorem ipsum dolor sit amet.", "We sell shoes online. Python."])
def test_text_without_gpu_content_has_no_track(text):
    result = parse(text)
    assert result["primary_track"] is None and result["track_confidence"] == 0.0
    assert abs(sum(result["tracks"].values()) - 1) < 1e-6
    assert result["seniority"] is None


def test_a_very_long_single_line_parses():
    line = ("We need CUDA, NCCL and 5+ years of Kubernetes experience; " * 4000).strip()
    result = parse("Senior GPU Engineer\n" + line)
    assert result["min_years"] == 5 and {"cuda", "nccl", "kubernetes"} <= set(needs(result))


def test_a_why_us_section_after_the_qualifications_asks_for_nothing():
    found = needs(parse("GPU Verification Engineer\nBasic qualifications\n- SystemVerilog\n"
                        "Why Northwind\nYou will have access to large emulation capacity.\n"
                        "Preferred qualifications\n- Experience with hardware emulation"))
    assert found["systemverilog"] == "required"
    assert found["hardware_emulation"] == "preferred"
