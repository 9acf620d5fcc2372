"""Parent side of the child: start it in its sandbox, exchange messages, notice how it died."""
from __future__ import annotations

import os
import select
import signal
import subprocess
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from . import cgroups
from .protocol import LineBuffer, ProtocolError, encode
from .sandbox import SandboxSpec, build_command, child_env, parse_info, preexec

INFO_TIMEOUT_S = 20.0
WATCHDOG_TICK_S = 0.1
PROGRAM_POLL_S = 0.05
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class ChildDied(Exception):
    """The child ended or was ended before answering."""

    reason: str                 # "wall" | "exit" | "signal" | "channel" | "processes" | "sandbox"
    returncode: int | None = None
    signal: int | None = None
    detail: str = ""
    events: list = field(default_factory=list)
    oom_killed: bool | None = None   # whether the run's cgroup saw a kill for memory (None: no cgroup)

    def __str__(self) -> str:
        return f"child {self.reason} (rc={self.returncode}, signal={self.signal}) {self.detail}"


@dataclass
class Answer:
    """One answer and the events that preceded it."""

    message: dict
    events: list
    elapsed_s: float


@dataclass
class Exited:
    """How a program (SandboxSpec.program) ended."""

    returncode: int | None
    signal: int | None
    cpu_s: float                # CPU seconds it used
    over_cpu: bool = False      # killed past its CPU cap


@dataclass
class _Task:
    pid: int
    ppid: int
    threads: int
    state: str
    nspid: int | None
    cpu_s: float = 0.0      # user and system time so far, every thread


class ChildProcess:
    """One child: request/answer on pipes, output captured to files only the parent can reach.

    `services` answer the child's own requests made while it works on one of ours (an `event`
    such as "build"): each returns its reply and the seconds to leave off the clocks."""

    def __init__(self, spec: SandboxSpec):
        self.spec = spec
        self.proc: subprocess.Popen | None = None
        self._req_w = self._ans_r = None
        self._buf = LineBuffer()
        self._pending: list[dict] = []
        self.services: dict[str, Callable[[dict], tuple[dict, float]]] = {}
        self.started = 0.0
        self.excluded_s = 0.0   # spent serving the child (compiling): not the run's wall clock
        self.killed_for_wall = False
        self.stdout_path = spec.scratch / "stdout.txt"
        self.stderr_path = spec.scratch / "stderr.txt"
        self.group: cgroups.RunGroup | None = None
        self.info: dict = {}
        self._init_pidfd: int | None = None
        self._ns_link: str | None = None
        self._dirfd: int | None = None
        self.host_scratch = spec.scratch     # the parent's own directory (captured output)

    # -- life ----------------------------------------------------------------------------------
    def start(self) -> None:
        req_r = req_w = ans_r = ans_w = None
        if not self.spec.program:   # a program takes no requests
            req_r, req_w = os.pipe()
            ans_r, ans_w = os.pipe()
        info_r = info_w = filter_r = None
        if self.spec.sandboxed:
            info_r, info_w = os.pipe()
            filter_r, filter_w = os.pipe()
            # A few hundred bytes: fits the pipe.
            os.write(filter_w, self.spec.syscall_filter or self.spec.backend.syscall_filter())
            os.close(filter_w)
        cmd = build_command(self.spec, req_r, ans_w, info_w, filter_r)
        limits = self.spec.limits
        self.group = cgroups.create(limits.processes, limits.memory)
        passed = tuple(fd for fd in (req_r, ans_w, info_w, filter_r) if fd is not None)
        with open(self.stdout_path, "wb") as out, open(self.stderr_path, "wb") as err:
            try:
                stdin = subprocess.DEVNULL if self.spec.stdin is None else self.spec.stdin
                self.proc = subprocess.Popen(
                    cmd, stdin=stdin, stdout=out, stderr=err, pass_fds=passed,
                    cwd=str(self.spec.scratch), env=child_env(self.spec),
                    preexec_fn=preexec(limits, self.group), start_new_session=True, close_fds=True)
            except BaseException:
                for fd in (req_w, ans_r, info_r):
                    if fd is not None:
                        os.close(fd)
                if self.group is not None:
                    self.group.remove()
                raise
            finally:
                for fd in passed:
                    os.close(fd)
        self._req_w, self._ans_r = req_w, ans_r
        if req_w is not None:
            os.set_blocking(req_w, False)
        self.started = time.monotonic()
        if info_r is not None:
            self._read_info(info_r)
            self._open_scratch()

    def _read_info(self, fd: int) -> None:
        """bubblewrap says which pid is the sandbox's init; a pidfd pins it for the kill."""
        data = b""
        deadline = time.monotonic() + INFO_TIMEOUT_S
        try:
            while time.monotonic() < deadline:
                ready, _, _ = select.select([fd], [], [], 0.1)
                if ready:
                    chunk = os.read(fd, 65536)
                    if not chunk:
                        break
                    data += chunk
                    if parse_info(data).get("child-pid"):
                        break
                elif self.proc.poll() is not None:
                    break
        finally:
            os.close(fd)
        self.info = parse_info(data)
        pid = self.info.get("child-pid")
        if not isinstance(pid, int):
            self.close()
            err, _ = self.captured("stderr", 2000)
            rc = self.proc.returncode if self.proc else None
            raise ChildDied("sandbox", rc, detail=err.strip() or "bubblewrap did not start")
        ns = self.info.get("pid-namespace")
        self._ns_link = f"pid:[{ns}]" if ns else None
        try:
            fd = os.pidfd_open(pid)
        except OSError:
            return
        try:
            # Opened first, checked second: if the pid still lives in the sandbox's namespace, the
            # pidfd is the sandbox's init and not a process that reused a freed pid.
            if self._ns_link and os.readlink(f"/proc/{pid}/ns/pid") == self._ns_link:
                self._init_pidfd, fd = fd, None
        except OSError:
            pass
        finally:
            if fd is not None:
                os.close(fd)

    def remaining_wall(self) -> float:
        return self.spec.limits.wall_s - (time.monotonic() - self.started - self.excluded_s)

    # -- requests ------------------------------------------------------------------------------
    def request(self, message: dict, timeout_s: float | Callable[[], float] | None = None) -> Answer:
        """Send one request and wait for its answer, collecting events; ChildDied on failure.

        `timeout_s` may be a function, asked again at every tick: a limit another thread lowers
        while the child works (down to 0: stop now)."""
        assert self.proc is not None
        moving = callable(timeout_s)
        cap = max(self.remaining_wall(), 0.0)

        def current_limit() -> float:
            limit = self.spec.limits.op_wall_s if timeout_s is None else timeout_s() if moving else timeout_s
            return min(limit, cap)

        limit = current_limit()
        watchdog = self.group is None
        began = time.monotonic()
        events: list[dict] = []
        self._send(message, began + limit, events, "the child stopped reading requests")
        while True:
            for msg in self._take():
                if "ok" in msg:
                    return self._answered(msg, events, began)
                if msg.get("event") in self.services:
                    began += self._serve(msg, events, began + limit)
                    continue
                events.append(msg)
            if moving:
                limit = current_limit()
            left = limit - (time.monotonic() - began)
            if left <= 0:
                self.kill()
                self.killed_for_wall = True
                raise ChildDied("wall", *self._status(), detail=f"no answer within {limit:.0f} s",
                                events=events)
            if watchdog and self._over_processes():
                raise self._processes(events)
            tick = WATCHDOG_TICK_S if watchdog or moving else 0.5
            ready, _, _ = select.select([self._ans_r], [], [], min(left, tick))
            if not ready:
                if self.proc.poll() is not None:
                    ready = [self._ans_r]  # drain what it wrote before dying
                else:
                    continue
            try:
                data = os.read(self._ans_r, 1 << 20)
            except OSError:
                data = b""
            if not data:
                for msg in self._take():
                    if "ok" in msg:
                        return self._answered(msg, events, began)
                    events.append(msg)
                raise self._died(events)
            try:
                self._pending.extend(self._buf.feed(data))
            except ProtocolError as exc:
                self.kill()
                raise ChildDied("channel", *self._status(), detail=str(exc), events=events)

    def wait(self, timeout_s: float | Callable[[], float], cpu_s: float | None = None) -> Exited:
        """Wait for the spec's program to end by itself: within `timeout_s` (ChildDied "wall"; a
        function is asked again at every tick) and, with `cpu_s`, within that many CPU seconds
        of the program, watched from here so that no limit it could read tells it its cap (past
        it: killed, `over_cpu`). ChildDied for processes and memory as `request` raises it."""
        assert self.proc is not None and self.spec.program
        moving = callable(timeout_s)
        cap = max(self.remaining_wall(), 0.0)
        began = next_watch = time.monotonic()
        used = 0.0
        try:
            ended = os.pidfd_open(self.proc.pid)    # readable once the process has ended
        except OSError:     # an old kernel: poll
            ended = None
        try:
            while True:
                if self.proc.poll() is not None:
                    self._check_caps([])
                    # The cgroup counts the ended program; else the last look at it.
                    total = self.group.cpu_seconds() if self.group is not None else None
                    return Exited(*self._status(), cpu_s=round(used if total is None else total, 3))
                now = time.monotonic()
                total = self.group.cpu_seconds() if self.group is not None else None
                if total is not None:
                    used = total
                elif now >= next_watch:     # no cgroup counts it: every process of the sandbox
                    next_watch = now + WATCHDOG_TICK_S
                    tasks = self._tasks()
                    used = max(used, sum(t.cpu_s for t in tasks))
                    if self.group is None and sum(t.threads for t in tasks) > self.spec.limits.processes:
                        raise self._processes([])
                limit = min(timeout_s() if moving else timeout_s, cap)
                if now - began > limit:
                    raise self._over_wall([], f"no end within {limit:.0f} s")
                if cpu_s is not None and used > cpu_s:
                    self.kill()
                    return Exited(*self._status(), cpu_s=round(used, 3), over_cpu=True)
                if ended is not None:
                    select.select([ended], [], [], PROGRAM_POLL_S)
                else:
                    time.sleep(PROGRAM_POLL_S)
        finally:
            if ended is not None:
                os.close(ended)

    def _serve(self, msg: dict, events: list, deadline: float) -> float:
        """Answer one of the child's requests on its request pipe, by the request's deadline
        (a child that floods requests or never reads its replies runs into it); the seconds to
        leave off the clocks."""
        if time.monotonic() > deadline:
            raise self._over_wall(events, "the child kept asking")
        reply, excluded = self.services[msg["event"]](msg)
        self.excluded_s += excluded
        deadline += excluded
        self._send({"reply": msg["event"], **reply}, deadline, events,
                   "the child stopped reading its replies")
        return excluded

    def _send(self, message: dict, deadline: float, events: list, stalled: str) -> None:
        """Write one message to the request pipe without blocking: a child that never reads
        cannot stall the parent past `deadline` (then the run ends, `stalled` saying why)."""
        pending = memoryview(encode(message))
        while pending:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._over_wall(events, stalled)
            _, writable, _ = select.select([], [self._req_w], [], min(left, 0.5))
            if writable:
                try:
                    pending = pending[os.write(self._req_w, pending):]
                except BlockingIOError:
                    pass
                except BrokenPipeError:
                    raise self._died(events)

    def _over_wall(self, events: list, detail: str) -> ChildDied:
        self.kill()
        self.killed_for_wall = True
        return ChildDied("wall", *self._status(), detail=detail, events=events)

    def _answered(self, msg: dict, events: list, began: float) -> Answer:
        self._check_caps(events)
        return Answer(msg, events, time.monotonic() - began)

    def _check_caps(self, events: list) -> None:
        """A refused fork or thread, or a member killed for memory, means the run went over its
        caps, whatever the child answered (ChildDied)."""
        if (self.group is not None and self.group.processes_hit()) or \
                (self.group is None and self._over_processes()):
            raise self._processes(events)
        if self.group is not None and self.group.oom_killed():
            self.kill()
            rc, sig = self._status()
            raise ChildDied("exit", rc, sig, detail="a process of the run was killed for memory",
                            events=events, oom_killed=True)

    def _processes(self, events: list) -> ChildDied:
        self.kill()
        rc, sig = self._status()
        return ChildDied("processes", rc, sig, detail=f"limit {self.spec.limits.processes}",
                         events=events)

    def _take(self) -> list[dict]:
        out, self._pending = self._pending, []
        return out

    def _status(self) -> tuple[int | None, int | None]:
        if self.proc is None:
            return None, None
        try:
            rc = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return None, None
        if rc < 0:
            return rc, -rc
        if self.spec.sandboxed and rc > 128:
            # bubblewrap exits 128 + N when the child died of signal N (a child can also exit
            # with such a code itself; either way it is the child's own failure).
            try:
                return rc, int(signal.Signals(rc - 128))
            except ValueError:
                pass
        return rc, None

    def _died(self, events) -> ChildDied:
        rc, sig = self._status()
        if rc is None:
            self.kill()
            rc, sig = self._status()
        oom = self.group.oom_killed() if self.group is not None else None
        if self.group is not None and self.group.processes_hit():
            return ChildDied("processes", rc, sig, detail=f"limit {self.spec.limits.processes}",
                             events=events, oom_killed=oom)
        reason = "signal" if sig else "exit"
        return ChildDied(reason, rc, sig, events=events, oom_killed=oom)

    # -- the run's processes -------------------------------------------------------------------
    def _tasks(self) -> list[_Task]:
        """Every process of this run: in the sandbox's PID namespace, else in the child's session."""
        if self.proc is None:
            return []
        out = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            pid = int(entry)
            try:
                if self._ns_link is not None:
                    if os.readlink(f"/proc/{pid}/ns/pid") != self._ns_link:
                        continue
                elif os.getsid(pid) != self.proc.pid:
                    continue
                with open(f"/proc/{pid}/stat", "rb") as fh:
                    fields = fh.read().rsplit(b")", 1)[1].split()
                nspid = None
                if self._ns_link is not None:
                    with open(f"/proc/{pid}/status", "rb") as fh:
                        for line in fh:
                            if line.startswith(b"NSpid:"):
                                nspid = int(line.split()[-1])
                                break
            except (OSError, ValueError, IndexError):
                continue
            out.append(_Task(pid, int(fields[1]), int(fields[17]), fields[0].decode(), nspid,
                             (int(fields[11]) + int(fields[12])) / CLOCK_TICKS))
        return out

    def _over_processes(self) -> bool:
        return sum(t.threads for t in self._tasks()) > self.spec.limits.processes

    def stray_tasks(self, helper_marker: str = "jit_worker.py") -> int:
        """Threads and processes of the run besides the child's main thread (and the sandbox's
        init and the judge's cupyx.jit helper): what a submission left running after answering."""
        tasks = [t for t in self._tasks() if t.state not in ("Z", "X")]
        init = self.info.get("child-pid")
        child_pid = self.proc.pid if self._ns_link is None else None
        if self._ns_link is not None:
            child_pid = next((t.pid for t in tasks if t.nspid == 2), None)
        stray = 0
        helper_seen = False
        for t in tasks:
            if t.pid == init:
                continue
            if t.pid == child_pid:
                stray += t.threads - 1
                continue
            if (not helper_seen and t.ppid == child_pid and t.threads == 1
                    and self._cmdline_ends(t.pid, helper_marker)):
                helper_seen = True
                continue
            stray += t.threads
        return stray

    @staticmethod
    def _cmdline_ends(pid: int, marker: str) -> bool:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                return fh.read().rstrip(b"\0").endswith(marker.encode())
        except OSError:
            return False

    # -- scratch -------------------------------------------------------------------------------
    def _open_scratch(self) -> None:
        """Reach the sandbox's tmpfs scratch through a directory handle, once bubblewrap mounted it.

        Afterwards `spec.scratch` is /proc/self/fd/N: the parent reads and writes the child's
        files by name there (the seccomp filter keeps symlinks and FIFOs out of it)."""
        host = self.spec.scratch
        path = f"/proc/{self.info['child-pid']}/root{host}"
        host_dev = os.stat(host).st_dev
        deadline = time.monotonic() + INFO_TIMEOUT_S
        while True:
            try:
                fd = os.open(path, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
            except OSError:
                fd = None
            if fd is not None:
                if os.fstat(fd).st_dev != host_dev:
                    break
                os.close(fd)
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                err, _ = self.captured("stderr", 2000)
                raise ChildDied("sandbox", self.proc.returncode,
                                detail=err.strip() or "the sandbox's scratch never appeared")
            time.sleep(0.002)
        self._dirfd = fd
        self.host_scratch = host
        self.spec = replace(self.spec, scratch=Path(f"/proc/self/fd/{fd}"))

    # -- the end -------------------------------------------------------------------------------
    def kill(self) -> None:
        """End every process of the run: the sandbox's init (its PID namespace dies with it), the
        process group, the cgroup's members; the leader is reaped last so its id stays ours."""
        if self._init_pidfd is not None:
            try:
                signal.pidfd_send_signal(self._init_pidfd, signal.SIGKILL)
            except OSError:
                pass
            if self.proc is not None and self.proc.returncode is None:
                try:
                    self.proc.wait(timeout=1.0)  # bubblewrap reaps its init and exits by itself
                except subprocess.TimeoutExpired:
                    pass
        if self.proc is not None and self.proc.returncode is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if self.group is not None:
            self.group.kill(wait_s=2.0)
        elif self.proc is not None:
            # No cgroup to empty: kill what is left of the run (its namespace, or its session when
            # there is none) until nothing is, since a dying init reaps its namespace asynchronously.
            deadline = time.monotonic() + 3.0
            while time.monotonic() < deadline:
                left = [t for t in self._tasks() if t.state not in ("Z", "X")]
                if not left:
                    break
                for t in left:
                    try:
                        os.kill(t.pid, signal.SIGKILL)
                    except OSError:
                        pass
                time.sleep(0.01)
        if self.proc is not None and self.proc.returncode is None:
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass

    def finish(self, timeout_s: float) -> int | None:
        """Ask the child to exit and wait until the command ends by itself (a launcher in front
        of the child writes its summary after the child is gone); its exit status, or None when
        it was still running at `timeout_s` or died of a signal. Then everything is closed."""
        status = None
        if self.proc is not None and self.proc.returncode is None and self._req_w is not None:
            try:
                os.write(self._req_w, encode({"op": "exit"}))
            except OSError:
                pass
            try:
                status = self.proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                status = None
        elif self.proc is not None:
            status = self.proc.returncode
        self.close()
        return status if status is not None and status >= 0 else None

    def close(self) -> None:
        """End everything of the run and close our handles. Without bubblewrap the child is asked
        to exit first; under it the sandbox's init is killed at once, which lets bubblewrap reap
        it (when the child exits by itself, bubblewrap exits before its init is reaped and the
        machine's init has to reap it)."""
        if self.proc is not None and self.proc.returncode is None and self._req_w is not None \
                and self._init_pidfd is None:
            try:
                os.write(self._req_w, encode({"op": "exit"}))
                deadline = time.monotonic() + 2.0
                while time.monotonic() < deadline:
                    ready, _, _ = select.select([self._ans_r], [], [], 0.1)
                    if ready and not os.read(self._ans_r, 1 << 16):
                        break  # EOF: the child is gone or going
            except OSError:
                pass
        self.kill()
        if self.group is not None:
            self.group.remove()
            self.group = None
        for fd in (self._req_w, self._ans_r, self._init_pidfd, self._dirfd):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._req_w = self._ans_r = self._init_pidfd = self._dirfd = None

    def captured(self, which: str, limit: int) -> tuple[str, int]:
        """First `limit` bytes of the candidate's stdout or stderr, and its full size."""
        path: Path = self.stdout_path if which == "stdout" else self.stderr_path
        try:
            size = path.stat().st_size
            with open(path, "rb") as fh:
                head = fh.read(limit)
        except OSError:
            return "", 0
        return head.decode(errors="replace"), size

    def __enter__(self) -> "ChildProcess":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()
