"""The run sandbox's child for rule files: runs promtool's unit tests and says what it printed.

    {"op": "test", "promtool": "/usr/bin/promtool", "file": "t0.json", "text": "<the test file>",
     "cpu_s": 20}  ->  {"ok": true, "returncode": 1, "signal": null, "cpu_s": 0.4,
                        "output": "...", "output_bytes": 51234}

The rule file is already in the scratch (read-only, rules.yml); the test file the parent made is
written beside it. promtool is the program under test here: it starts through exec_once.py, so it
can start nothing itself, with its CPU seconds capped (RLIMIT_CPU) and its output (stdout and
stderr on one pipe) kept to its first OUTPUT_CAP bytes. This process runs no candidate code.
"""
from __future__ import annotations

import os
import resource
import signal
import sys

from ... import protocol
from .exec_once import Program

OUTPUT_CAP = 4 * 1024 * 1024
GO_ENV = {"GOMAXPROCS": "2", "GOTRACEBACK": "none"}   # few threads; a crash says only why


def _test(msg: dict, scratch: str) -> dict:
    name = os.path.basename(str(msg["file"]))
    with open(os.path.join(scratch, name), "w") as fh:
        fh.write(str(msg["text"]))
    env = {"PATH": "/usr/bin:/bin", "HOME": scratch, "TMPDIR": scratch, **GO_ENV}
    program = Program([str(msg["promtool"]), "test", "rules", name], env)
    cpu = int(msg.get("cpu_s") or 0)
    read_fd, write_fd = os.pipe()
    before = os.times()
    pid = os.fork()
    if pid == 0:   # the program-to-be
        try:
            os.close(read_fd)
            os.dup2(write_fd, 1)
            os.dup2(write_fd, 2)
            if cpu:
                resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
            program.exec()
        except BaseException as exc:   # noqa: BLE001 - whatever it is, the parent reads it
            os.write(2, f"cannot start promtool: {exc}\n".encode(errors="replace"))
        os._exit(127)
    os.close(write_fd)
    kept, total = [], 0
    while True:
        chunk = os.read(read_fd, 1 << 16)
        if not chunk:
            break
        if total < OUTPUT_CAP:
            kept.append(chunk[:OUTPUT_CAP - total])
        total += len(chunk)
    os.close(read_fd)
    _, status = os.waitpid(pid, 0)
    after = os.times()
    used = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    return {"ok": True, "returncode": os.WEXITSTATUS(status) if os.WIFEXITED(status) else -sig,
            "signal": sig, "cpu_s": round(used, 3),
            "output": b"".join(kept).decode(errors="replace"), "output_bytes": total}


def main(argv: list[str] | None = None) -> int:
    args = protocol.child_arguments(sys.argv[1:] if argv is None else argv)
    os.chdir(args.scratch)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)

    def handle(msg: dict) -> dict:
        if msg.get("op") != "test":
            return {"ok": False, "error": {"kind": "protocol", "message": f"unknown op {msg.get('op')!r}"}}
        try:
            return _test(msg, args.scratch)
        except OSError as exc:
            return {"ok": False, "error": {"kind": "os", "message": str(exc)}}
    return protocol.serve(args.request_fd, args.answer_fd, handle)


if __name__ == "__main__":
    sys.exit(main())
