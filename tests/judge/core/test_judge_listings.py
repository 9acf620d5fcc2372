"""PTX and SASS for sm_90 in the report: NVRTC and nvdisasm run on the gated sources in the
parent's compile sandbox, capped, optional, and never fatal."""
import json
from pathlib import Path

import pytest

from assessments.judge import Verdict, judge, listing_text
from assessments.judge.kinds.cupy import kernels, listing, nvrtc

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "submissions" / "vector_add"

pytestmark = pytest.mark.skipif(not nvrtc.available(), reason="NVRTC is not installed")
needs_nvdisasm = pytest.mark.skipif(listing.find_nvdisasm() is None,
                                    reason="nvdisasm (nvidia-cuda-nvdisasm) is not installed")


def _describe(r) -> str:
    return f"{r.verdict.value}: {r.message}\n{r.details or ''}\n{r.compile_log or ''}"


@needs_nvdisasm
@pytest.mark.parametrize("fixture,kind", [("raw_kernel", "RawKernel"), ("elementwise", "ElementwiseKernel"),
                                          ("jit", "jit")])
def test_listings_for_each_kernel_style(fixture, kind):
    r = judge("vector_add", (FIXTURES / f"{fixture}.py").read_text(), backend="cpu", seed=1)
    assert r.verdict is Verdict.ACCEPTED and r.sandbox == "bubblewrap", _describe(r)
    (k,) = [k for k in r.kernels if k.kind == kind]
    assert k.arch == "sm_90" and k.listing_note is None, k.listing_note
    assert ".entry" in k.ptx and ".target sm_90" in k.ptx
    assert "FADD" in k.sass and "EXIT" in k.sass and ".target\tsm_90" in k.sass
    assert listing_text.sass_instructions(k.sass) >= 5 and listing_text.ptx_lines(k.ptx) >= 10
    assert "/tmp/" not in k.ptx + k.sass and "kp-judge-" not in k.ptx + k.sass
    text = r.render_text()
    assert f"PTX {listing_text.ptx_lines(k.ptx)} lines, SASS {listing_text.sass_instructions(k.sass)} " \
           "instructions for sm_90; --json for the listings" in text
    assert k.ptx not in text                       # the text report only counts them
    d = json.loads(r.to_json())
    assert d["kernels"][0]["ptx"] == k.ptx and d["kernels"][0]["sass"] == k.sass


def test_compile_error_has_no_listing():
    r = judge("vector_add", (FIXTURES / "compile_error.py").read_text(), backend="cpu", seed=1)
    assert r.verdict is Verdict.COMPILE_ERROR, _describe(r)
    (k,) = r.kernels
    assert k.compiled is False and k.ptx is None and k.sass is None
    assert "did not compile" in r.render_text()


def test_an_include_of_a_host_file_is_still_refused():
    src = ('import cupy as cp\n_k = cp.RawKernel(r"""\n#include "/etc/passwd"\n'
           'extern "C" __global__ void k(float* c) { c[0] = 1.0f; }\n""", "k")\n\n'
           'def solve(a, b, c, n):\n    _k((1,), (1,), (c,))\n')
    r = judge("vector_add", src, backend="cpu", seed=1)
    assert r.verdict is Verdict.SECURITY_VIOLATION and r.kernels == [], _describe(r)
    # Past the static check, the NVRTC gate in the sandbox refuses it before compiling anything.
    r = judge("vector_add", src, backend="cpu", seed=1, static_checks=False)
    assert r.verdict is Verdict.COMPILE_ERROR, _describe(r)
    assert "not allowed" in (r.compile_log or "") + r.message
    assert all(k.ptx is None and k.sass is None for k in r.kernels)
    assert "root:" not in r.to_json()


def test_listings_can_be_left_out():
    r = judge("vector_add", (FIXTURES / "raw_kernel.py").read_text(), backend="cpu", seed=1,
              listings=False)
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    (k,) = r.kernels
    assert k.ptx is None and k.sass is None and k.listing_note is None
    assert "PTX" not in r.render_text()


def test_no_kernel_no_listing_request():
    r = judge("vector_add", (FIXTURES / "array.py").read_text(), backend="cpu", seed=1)
    assert r.verdict is Verdict.ACCEPTED and r.kernels == [], _describe(r)


# -- the pieces ------------------------------------------------------------------------------

VADD = 'extern "C" __global__ void vadd(const float* a, float* c) { c[threadIdx.x] += a[threadIdx.x]; }'


def test_the_gate_keeps_ptx_and_cubin():
    res = nvrtc.nvrtc_compile(VADD)
    assert res.ok and ".entry vadd" in res.ptx and res.cubin[:4] == b"\x7fELF"
    bad = nvrtc.nvrtc_compile('extern "C" __global__ void k() { undefined(); }')
    assert not bad.ok and bad.ptx is None and bad.cubin is None


@needs_nvdisasm
def test_disassemble(tmp_path):
    sass, why = listing.disassemble(nvrtc.nvrtc_compile(VADD).cubin, str(tmp_path))
    assert why is None and "FADD" in sass and "EXIT" in sass
    assert list(tmp_path.iterdir()) == []                  # its files go with it


@needs_nvdisasm
def test_sass_failure_is_a_note_not_an_error(tmp_path):
    sass, why = listing.disassemble(b"\x7fELF not really a cubin", str(tmp_path))
    assert sass is None and why.startswith("SASS unavailable: nvdisasm failed")
    sass, why = listing.disassemble(nvrtc.nvrtc_compile(VADD).cubin, str(tmp_path), timeout_s=0)
    assert sass is None and "time for listings" in why


def test_no_nvdisasm_is_a_note(tmp_path, monkeypatch):
    monkeypatch.setattr(listing, "find_nvdisasm", lambda: None)
    sass, why = listing.disassemble(b"", str(tmp_path))
    assert sass is None and why == "SASS unavailable: nvdisasm is not installed"


@needs_nvdisasm
def test_long_listings_are_cut_with_a_note(tmp_path):
    sass, _ = listing.disassemble(nvrtc.nvrtc_compile(VADD).cubin, str(tmp_path), cap=600)
    assert len(sass.encode()) < 700 and "(listing cut: " in sass and "KiB kept)" in sass
    assert kernels.listings_from({"programs": [{"sass": sass}], "listed": {"k": 0}},
                                 cap=600)["k"][1] == sass      # the parent does not cut it twice
    text = "line\n" * 100
    assert listing_text.cap_text(text, 1000) == text
    cut = listing_text.cap_text(text, 52)
    assert cut.startswith("line\n" * 10) and "listing cut: 450 more bytes" in cut


def test_the_parent_keeps_only_capped_strings():
    answer = {"programs": [{"ptx": "x" * (listing_text.CAP + 1000), "sass": 5, "note": None},
                           "junk", {"ptx": "/scratch/p .entry", "sass": "EXIT", "note": "n" * 5000}],
              "listed": {"a": 0, "b": 7, "c": True, "d": 1, "e": 2},
              "unlisted": {"f": "why", "a": "ignored"}}
    got = kernels.listings_from(answer, scrub=lambda s: s.replace("/scratch/", "<scratch>/"))
    ptx, sass, note = got["a"]
    assert len(ptx.encode()) <= listing_text.CAP + 400 and "listing cut" in ptx and sass is None
    assert set(got) == {"a", "e", "f"}
    assert got["e"][0] == "<scratch>/p .entry" and len(got["e"][2]) < 700
    assert got["f"] == (None, None, "why")
    assert kernels.listings_from({"programs": "x", "listed": [], "unlisted": 3}) == {}


MODULE = '''import cupy as cp

_m = cp.RawModule(code=r"""
extern "C" __global__ void half_sum(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] * 0.5f + b[i] * 0.5f;
}
extern "C" __global__ void twice(float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = c[i] + c[i];
}
""")


def solve(a, b, c, n):
    g = ((n + 255) // 256,)
    _m.get_function("half_sum")(g, (256,), (a, b, c, cp.int32(n)))
    _m.get_function("twice")(g, (256,), (c, cp.int32(n)))
'''


@needs_nvdisasm
def test_a_modules_kernels_share_its_listings():
    r = judge("vector_add", MODULE, backend="cpu", seed=1)
    assert r.verdict is Verdict.ACCEPTED, _describe(r)
    assert sorted(k.name for k in r.kernels) == ["half_sum", "twice"]
    a, b = r.kernels
    assert a.ptx == b.ptx and a.sass == b.sass and ".entry half_sum" in a.ptx and ".entry twice" in a.ptx


@needs_nvdisasm
def test_cli_listings(capsys):
    from assessments.judge.__main__ import main
    path = str(FIXTURES / "raw_kernel.py")
    assert main(["--task", "vector_add", "--samples", path]) == 0
    assert "; --json for the listings" in capsys.readouterr().out
    assert main(["--task", "vector_add", "--samples", "--json", "--no-listings", path]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["kernels"][0]["ptx"] is None and d["kernels"][0]["sass"] is None
