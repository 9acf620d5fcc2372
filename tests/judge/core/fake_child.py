"""A stand-in child for runner tests: speaks the protocol and misbehaves on request."""
import json
import os
import signal
import sys


def answer_like_a_gpu(msg, send):
    """What a cuda child answers for a correct vector_add, computed with numpy."""
    import numpy as np
    kernels = [{"kind": "RawKernel", "name": "vadd", "compiled": True, "launches": 1,
                "usage": {"registers": 16, "shared_bytes": 0, "stack_bytes": 0, "spill_stores": 0,
                          "spill_loads": 0}, "block": [256, 1, 1], "grid": [4, 1, 1], "shared_mem": 0}]
    if msg["op"] == "load":
        send({"ok": True, "arch": "sm_90", "kernels": kernels, "incidents": []})
    elif msg["op"] == "run":
        data = dict(np.load(msg["inputs"]))
        data["c"] = data["a"] + data["b"]
        np.savez(msg["output"], **data)
        send({"ok": True, "elapsed_s": 0.001, "kernels": kernels, "incidents": []})
    elif msg["op"] == "time_setup":
        _TIMING["variants"] = [dict(np.load(v["inputs"])) for v in msg["variants"]]
        _TIMING["slots"] = {}
        send({"ok": True, "device": "Fake H100", "slots": 2, "variants": len(msg["variants"]),
              "kernels": kernels, "incidents": []})
    elif msg["op"] == "time_batch":
        # 1 ms a call, spent for real (sleep overshoots) so the parent's wall clock agrees.
        import time
        for slot, variant in msg["plan"]:
            if not msg["empty"]:
                until = time.perf_counter() + 0.001
                while time.perf_counter() < until:
                    pass
                _TIMING["slots"][slot] = variant   # the sum itself is made when fetched
        events = [0.0 if msg["empty"] else 1.0] * len(msg["plan"])
        send({"ok": True, "events_ms": events, "kernels": kernels, "incidents": []})
    elif msg["op"] == "time_fetch":
        data = dict(_TIMING["variants"][_TIMING["slots"][msg["slot"]]])
        data["c"] = data["a"] + data["b"]
        np.savez(msg["output"], **data)
        send({"ok": True, "kernels": kernels, "incidents": []})
    elif msg["op"] == "listings":
        # A real child names the sources the gate compiled; this one compiled none. (Left
        # unanswered, the parent waits out its 15 s for the listings.)
        send({"ok": True, "programs": []})


_TIMING: dict = {}


def main():
    argv = sys.argv[1:]
    mode = argv[0]
    req = int(argv[argv.index("--request-fd") + 1])
    ans = int(argv[argv.index("--answer-fd") + 1])
    reqf = os.fdopen(req, "rb", buffering=0)
    out = os.fdopen(ans, "wb", buffering=0)

    def send(msg):
        out.write((json.dumps(msg) + "\n").encode())

    buf = b""
    while True:
        chunk = reqf.read(4096)
        if not chunk:
            return
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            msg = json.loads(line)
            if msg.get("op") == "exit":
                send({"ok": True})
                return
            print("hello from the candidate " + "x" * 100)
            if mode == "echo":
                send({"event": "note", "n": 1})
                send({"ok": True, "echo": msg})
            elif mode == "segv":
                os.kill(os.getpid(), signal.SIGSEGV)
            elif mode == "incident_then_segv":
                send({"event": "incident", "verdict": "memory_error", "message": "oob", "kernel": "k"})
                os.kill(os.getpid(), signal.SIGSEGV)
            elif mode == "sleep":
                signal.pause()
            elif mode == "spin":
                while True:
                    pass
            elif mode == "garbage":
                out.write(b"this is not json\n")
            elif mode == "exit3":
                sys.stderr.write("bye\n")
                os._exit(3)
            elif mode == "build":
                # Asks its parent for a build mid-request and answers with the reply.
                send({"event": "build", "source": "k", "checking": False})
                while b"\n" not in buf:
                    buf += reqf.read(4096)
                line, buf = buf.split(b"\n", 1)
                send({"ok": True, "reply": json.loads(line)})
            elif mode == "build_flood":
                # Asks and asks, and never reads a reply.
                while True:
                    send({"event": "build", "source": "k" * 100, "checking": False})
            elif mode == "vector_add_gpu":
                answer_like_a_gpu(msg, send)
            elif mode == "memory":
                try:
                    x = bytearray(8 * 1024 ** 3)
                except MemoryError:
                    send({"ok": False, "error": {"type": "MemoryError", "kind": "memory", "message": ""}})


if __name__ == "__main__":
    main()
