"""The stand-in's array API, launch validation, gate and incident plumbing (no emulator needed)."""
from __future__ import annotations

import numpy as np

# A stand-in emulator that records launches and fails on request (installed in the snippet).
FAKE_EMULATOR = r'''
import types
import _kpshim.backend as _B

class EmulatorError(Exception):
    def __init__(self, kind, kernel, detail):
        super().__init__(detail)
        self.kind, self.kernel, self.detail = kind, kernel, detail

LAUNCHES = []
FAIL = {}
SOURCES = []

class _Fn:
    def __init__(self, name):
        self.name = name
    def launch(self, grid, block, args, shared_mem=0, *, checking=False, timeout_s=None):
        LAUNCHES.append({"name": self.name, "grid": grid, "block": block, "checking": checking,
                         "args": [type(a).__name__ for a in args]})
        if self.name in FAIL:
            raise EmulatorError(FAIL[self.name], self.name, "injected")

class _Mod:
    def get_function(self, name):
        return _Fn(name)

def compile_module(src, options=(), names=(), checking=False):
    SOURCES.append(src)
    return _Mod()

fake = types.SimpleNamespace(EmulatorError=EmulatorError, compile_module=compile_module)
_B._cache["emu"] = fake
'''

KERNEL = r'''
k = cp.RawKernel(r"""
extern "C" __global__ void touch(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 1.0f;
}""", "touch")
x = cp.zeros(16, dtype=cp.float32)
'''


def test_array_level_softmax_and_cupy_semantics(shim_run):
    r = shim_run(r'''
    host = np.random.default_rng(3).uniform(-100, 100, (5, 33)).astype(np.float32)
    x = cp._kp_from_numpy(host)
    y = cp._kp_from_numpy(np.full_like(host, np.nan))
    m = x.max(axis=1, keepdims=True)
    e = cp.exp(x - m)
    y[...] = e / e.sum(axis=1, keepdims=True)
    ref = np.exp(host - host.max(1, keepdims=True))
    ref /= ref.sum(1, keepdims=True)
    R["softmax"] = bool(np.allclose(y.get(), ref, rtol=1e-4, atol=1e-6))
    R["types"] = [type(v).__name__ for v in (x.sum(), x[0, 0], x[0], m, x @ x.T, cp.cumsum(x),
                                                x.T, x.ravel(), x.astype(cp.float64))]
    R["module"] = type(x).__module__
    R["zero_d"] = [x.sum().shape == (), x[0, 0].shape == (), float(x[1, 2]) == float(host[1, 2])]
    R["get"] = type(x.get()).__name__ + "/" + type(cp.asnumpy(x)).__name__
    R["ptr"] = x.data.ptr == x.ctypes.data
    v = x[0, 0]
    v[...] = 7
    R["view"] = float(x[0, 0]) == 7.0
    try:
        x + np.ones((5, 33), np.float32)
    except TypeError as exc:
        R["mix"] = str(exc)
    z = cp.zeros((2, 3), dtype=cp.int32)
    R["creation"] = [str(z.dtype), cp.ones(3).dtype.name, cp.full(2, 3, cp.float32).tolist(),
                     cp.arange(4).tolist(), type(cp.linspace(0, 1, 5)).__name__,
                     type(cp.asarray([1, 2])).__name__, cp.empty_like(x).shape == x.shape]
    a = cp.asarray(x)
    R["asarray_same"] = a is x
    R["get_array_module"] = cp.get_array_module(x).__name__
    ''')
    assert r["softmax"] is True
    assert set(r["types"]) == {"ndarray"}
    assert r["module"] == "cupy"
    assert r["zero_d"] == [True, True, True]
    assert r["get"] == "ndarray/ndarray"
    assert r["ptr"] and r["view"] and r["asarray_same"]
    assert "Unsupported type" in r["mix"]
    assert r["creation"] == ["int32", "float64", [3.0, 3.0], [0, 1, 2, 3], "ndarray", "ndarray",
                             True]
    assert r["get_array_module"] == "cupy"


def test_cuda_namespace_is_usable_without_a_gpu(shim_run):
    r = shim_run(r'''
    dev = cp.cuda.Device(0)
    dev.use()
    with dev:
        pass
    R["cc"] = dev.compute_capability
    R["attrs"] = [dev.attributes["MultiProcessorCount"], dev.attributes["MaxThreadsPerBlock"]]
    props = cp.cuda.runtime.getDeviceProperties(0)
    R["props"] = [props["major"], props["minor"], props["sharedMemPerBlock"], props["warpSize"]]
    cp.cuda.runtime.deviceSynchronize()
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        R["current"] = cp.cuda.get_current_stream() is s
    s.synchronize()
    cp.cuda.Stream.null.synchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    end.record()
    end.synchronize()
    R["elapsed"] = cp.cuda.get_elapsed_time(start, end)
    pool = cp.get_default_memory_pool()
    pool.free_all_blocks()
    R["pool"] = pool.used_bytes()
    R["errors"] = [issubclass(cp.cuda.driver.CUDADriverError, RuntimeError),
                   issubclass(cp.cuda.runtime.CUDARuntimeError, RuntimeError),
                   hasattr(cp.cuda.nvrtc, "NVRTCError"),
                   hasattr(cp.cuda.compiler, "CompileException")]
    try:
        cp.cuda.Device(1).use()
    except cp.cuda.runtime.CUDARuntimeError as exc:
        R["bad_device"] = str(exc)
    ''')
    assert r["cc"] == "90"
    assert r["attrs"] == [132, 1024]
    assert r["props"] == [9, 0, 49152, 32]
    assert r["current"] is True and r["elapsed"] == 0.0 and r["pool"] == 0
    assert all(r["errors"])
    assert "invalid device ordinal" in r["bad_device"]


def test_more_of_cupy_and_cupyx_that_submissions_import(shim_run):
    r = shim_run(r'''
    from cupy.lib.stride_tricks import sliding_window_view
    from cupyx.profiler import benchmark, time_range
    from cupyx.scipy.special import expit, log_softmax, logsumexp, softmax
    x = cp.asarray(np.array([[1.0, 2.0, 3.0], [101.0, 102.0, 103.0]], np.float32))
    R["windows"] = sliding_window_view(cp.arange(5), 3).sum(axis=1).tolist()
    R["windows_type"] = type(sliding_window_view(cp.arange(5), 3)).__name__
    R["softmax"] = softmax(x, axis=1).tolist()
    R["softmax_type"] = [type(softmax(x, axis=1)).__name__, str(softmax(x, axis=1).dtype)]
    R["log_softmax"] = log_softmax(x, axis=1).tolist()
    R["logsumexp"] = logsumexp(x, axis=1).tolist()
    R["expit"] = expit(cp.asarray([0.0])).tolist()
    with time_range("region"):
        pass
    R["benchmark"] = len(benchmark(lambda: None, n_repeat=5, n_warmup=1).cpu_times)
    from cupyx.scipy import signal
    img = cp.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    out = signal.correlate2d(img, cp.ones((2, 2), np.float32), mode="valid")
    R["signal"] = [type(out).__name__, str(out.dtype), out.tolist()]
    try:
        import cupyx.scipy.ndimage  # noqa: F401
    except ModuleNotFoundError as exc:
        R["missing"] = str(exc)
    try:
        from cupyx.scipy import sparse  # noqa: F401
    except ImportError as exc:
        R["missing_from"] = str(exc)
    ''')
    assert r["windows"] == [3, 6, 9] and r["windows_type"] == "ndarray"
    row = [0.09003057, 0.24472847, 0.66524096]
    assert all(abs(a - b) < 1e-6 for got in r["softmax"] for a, b in zip(got, row))
    assert r["softmax_type"] == ["ndarray", "float32"]
    assert abs(r["log_softmax"][1][2] - np.log(row[2])) < 1e-5
    assert abs(r["logsumexp"][1] - (103 + np.log(sum(np.exp(np.array([-2.0, -1.0, 0.0])))))) < 1e-4
    assert r["expit"] == [0.5] and r["benchmark"] == 5
    assert r["signal"] == ["ndarray", "float32", [[10.0, 14.0, 18.0], [26.0, 30.0, 34.0]]]
    assert r["missing"].startswith("cupyx.scipy.ndimage is not in the judge's CPU stand-in for "
                                   "CuPy: write it as a kernel or as array code")
    assert r["missing_from"].startswith("cupyx.scipy.sparse is not in the judge's CPU stand-in")


def test_launch_validation_matches_cupy(shim_run):
    r = shim_run(FAKE_EMULATOR, KERNEL, r'''
    def attempt(name, grid, block, args, **kw):
        try:
            k(grid, block, args, **kw)
            R[name] = "ok"
        except Exception as exc:
            R[name] = f"{type(exc).__name__}: {exc}"

    attempt("block_2048", (1,), (2048,), (x, 16))
    attempt("block_1024", (1,), (1024,), (x, 16))
    attempt("block_z_65", (1,), (1, 1, 65), (x, 16))
    attempt("grid_int", 1, (32,), (x, 16))
    attempt("grid_float", (1.5,), (32,), (x, 16))
    attempt("grid_y", (1, 65536), (32,), (x, 16))
    attempt("numpy_arg", (1,), (32,), (np.zeros(4, np.float32), 16))
    attempt("str_arg", (1,), (32,), (x, "16"))
    attempt("smem_64k", (1,), (32,), (x, 16), shared_mem=64 * 1024)
    k.max_dynamic_shared_size_bytes = 64 * 1024
    attempt("smem_raised", (1,), (32,), (x, 16), shared_mem=64 * 1024)
    attempt("list_args", (1,), (32,), [x, 16])
    R["launched"] = [(l["grid"], l["block"]) for l in LAUNCHES]
    R["attributes"] = sorted(k.attributes)
    ''')
    assert r["block_2048"].startswith("CUDADriverError: CUDA_ERROR_INVALID_VALUE")
    assert r["block_1024"] == "ok"
    assert r["block_z_65"].startswith("CUDADriverError: CUDA_ERROR_INVALID_VALUE")
    assert r["grid_int"] == ("TypeError: Argument 'grid' has incorrect type (expected tuple, "
                             "got int)")
    assert r["grid_float"].startswith("TypeError")
    assert r["grid_y"].startswith("CUDADriverError")
    assert r["numpy_arg"].startswith("TypeError: You are trying to pass a numpy.ndarray")
    assert r["str_arg"] == "TypeError: Unsupported type <class 'str'>"
    assert r["smem_64k"].startswith("CUDADriverError")
    assert r["smem_raised"] == "ok"
    assert r["list_args"] == "ok"
    assert r["launched"] == [[[1, 1, 1], [1024, 1, 1]], [[1, 1, 1], [32, 1, 1]],
                             [[1, 1, 1], [32, 1, 1]]]
    assert "max_dynamic_shared_size_bytes" in r["attributes"] and "num_regs" in r["attributes"]


def test_emulator_failures_become_incidents_and_cuda_errors(shim_run):
    r = shim_run(FAKE_EMULATOR, KERNEL, r'''
    out = {}
    for kind in ("race_detected", "memory_error", "deadlock", "timeout", "launch_error"):
        FAIL["touch"] = kind
        try:
            k((1,), (32,), (x, 16))
            out[kind] = "no error"
        except Exception as exc:
            out[kind] = f"{type(exc).__name__}: {exc}"
    R["raised"] = out
    R["verdicts"] = [i["verdict"] for i in kernel_log.incidents()]
    FAIL.clear()
    cp._kp_checking = True
    k((1,), (32,), (x, 16))
    R["checking"] = LAUNCHES[-1]["checking"]
    ''')
    assert r["verdicts"] == ["race_detected", "memory_error", "runtime_error",
                             "time_limit_exceeded", "runtime_error"]
    assert r["raised"]["memory_error"].startswith("CUDADriverError: CUDA_ERROR_ILLEGAL_ADDRESS")
    assert all(v.startswith("CUDADriverError") for v in r["raised"].values())
    assert r["checking"] is True


def test_nvrtc_gate_refusal_is_a_compile_exception(shim_run):
    r = shim_run(FAKE_EMULATOR, r'''
    bad = cp.RawKernel(r"""
    extern "C" __global__ void broken(float* x) { x[0] = undefined_name; }
    """, "broken")
    try:
        bad((1,), (1,), (cp.zeros(1, dtype=cp.float32),))
    except cp.cuda.compiler.CompileException as exc:
        R["error"] = str(exc)
    R["incidents"] = [i["verdict"] for i in kernel_log.incidents()]
    ok = cp.RawKernel(r"""
    extern "C" __global__ void fine(float* x) { x[threadIdx.x] = 2.0f; }
    """, "fine")
    R["regs"] = ok.num_regs
    ''', gate=True)
    assert "undefined_name" in r["error"]
    assert r["incidents"] == ["compile_error"]
    assert r["regs"] > 0


def test_jit_transpile_error_is_reported(shim_run):
    r = shim_run(FAKE_EMULATOR, r'''
    from cupyx import jit

    @jit.rawkernel()
    def bad(x):
        x[0] = undefined_helper(x[0])

    try:
        bad[1, 1](cp.zeros(1, dtype=cp.float32))
    except Exception as exc:
        R["error"] = type(exc).__name__ + ": " + str(exc).splitlines()[0]
    R["incidents"] = [i["verdict"] for i in kernel_log.incidents()]
    ''')
    assert "undefined_helper" in r["error"]
    assert r["incidents"] == ["compile_error"]


def test_jit_source_for_gate_and_emulator(shim_run):
    r = shim_run(FAKE_EMULATOR, r'''
    import sys
    from cupyx import jit
    from _kpshim import jit_bridge

    @jit.rawkernel()
    def double(x, n):
        i = jit.grid(1)
        if i < n:
            x[i] = x[i] * 2

    x = cp.zeros(8, dtype=cp.float32)
    double[1, 32](x, 8)
    R["gate_source"] = kernel_log.kernels()[0].source
    R["emulator_source"] = SOURCES[-1]
    R["args"] = LAUNCHES[-1]["args"]

    def refuse(*args, **kwargs):
        raise OSError(11, "Resource temporarily unavailable")

    jit_bridge._worker.close()
    jit_bridge._Worker._start = refuse
    double[1, 32](x, cp.int64(8))
    R["in_process_args"] = LAUNCHES[-1]["args"]
    R["still_shim"] = sys.modules["cupy"] is cp and "shim" in cp.__file__
    ''')
    assert "#include <cupy/carray.cuh>" in r["gate_source"]
    assert "CArray<float, 1, true, true> x" in r["gate_source"]
    assert "float* _kp_p_x" in r["emulator_source"] and "class CArray" in r["emulator_source"]
    assert "cupy/float16.cuh" not in r["emulator_source"]
    assert r["args"] == ["ndarray", "int64", "int64", "int32"]
    assert r["in_process_args"] == ["ndarray", "int64", "int64", "int64"]
    assert r["still_shim"] is True
