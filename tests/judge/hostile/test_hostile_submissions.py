"""Hostile submissions against the real judge: cpu backend, real bubblewrap.

Every attack runs twice: with the static checks (the first line, which refuses most of them) and
with them off (`static_checks=False`, for these tests only), where the sandbox alone must contain
it. Whatever the verdict, nothing secret reaches the report, nothing is written outside, the
listener hears nothing and no process or cgroup of the run survives it (conftest.assert_contained).
"""
from __future__ import annotations

import dataclasses
import secrets

import pytest

import hostile_cases as H
from hostile_stage import LIMITS, assert_contained, assert_nothing_left

from assessments.judge import cgroups, judge

SV, AC, WA, RE = "security_violation", "accepted", "wrong_answer", "runtime_error"
TLE, MLE = "time_limit_exceeded", "memory_limit_exceeded"

# name: (source, verdict with static checks, verdicts the sandbox alone may end with)
CASES = {
    "read_files": (H.READ_FILES, SV, {AC}),
    "write_files": (H.WRITE_FILES, SV, {AC}),
    "network": (H.NETWORK, SV, {AC}),
    "fork_bomb": (H.FORK_BOMB, SV, {RE}),
    "thread_bomb": (H.THREAD_BOMB, SV, {RE}),
    "memory_bomb": (H.MEMORY_BOMB, MLE, {MLE}),
    "endless_loop": (H.ENDLESS_LOOP, TLE, {TLE}),
    "subprocess": (H.SUBPROCESS, SV, {AC}),
    "ctypes_libc": (H.CTYPES_LIBC, SV, {AC}),
    "monkeypatch_timer": (H.MONKEYPATCH_TIMER, SV, {AC}),
    "steal_reference": (H.STEAL_REFERENCE, SV, {WA}),
    "late_thread": (H.LATE_THREAD, SV, {RE}),
    "late_process": (H.LATE_PROCESS, SV, {RE}),
    "kill_parent": (H.KILL_PARENT, SV, {AC}),
    "kill_everything": (H.KILL_EVERYTHING, SV, {RE}),
    "rlimits": (H.RLIMITS, SV, {MLE}),
    "env_secrets": (H.ENV_SECRETS, SV, {AC}),
    "scratch_traps": (H.SCRATCH_TRAPS, SV, {AC}),
    "forge_answer": (H.FORGE_ANSWER, SV, {RE, WA}),
    "disk_fill": (H.DISK_FILL, SV, {AC}),
    "scratch_full": (H.SCRATCH_FULL, SV, {RE}),
    "cache_plant": (H.CACHE_PLANT, SV, {AC}),
}


def _judge(stage, source: str, *, static: bool, limits=LIMITS, seed: int | None = None):
    seed = secrets.randbits(62) if seed is None else seed
    return judge("vector_add", stage.fill(source), backend="cpu", seed=seed, limits=limits,
                 static_checks=static)


@pytest.mark.parametrize("name", list(CASES))
def test_static_checks_refuse_or_limits_hold(name, stage):
    source, expected, _ = CASES[name]
    report = _judge(stage, source, static=True)
    assert report.verdict.value == expected, (report.message, report.details)
    assert_contained(report, stage)


@pytest.mark.parametrize("name", list(CASES))
def test_sandbox_alone_contains(name, stage):
    source, _, allowed = CASES[name]
    report = _judge(stage, source, static=False)
    assert report.verdict.value in allowed, (report.message, report.details, report.stdout[-2000:])
    assert report.sandbox == "bubblewrap"
    assert_contained(report, stage)
    if report.verdict.value == AC:
        assert 60.0 <= report.score <= 100.0 and report.timing is None


@pytest.mark.parametrize("name", list(H.MONKEYPATCH_STATIC))
def test_static_check_refuses_changing_imported_modules(name, stage):
    report = _judge(stage, H.MONKEYPATCH_STATIC[name], static=True)
    assert report.verdict.value == SV, report.message
    assert report.sandbox is None  # refused before any code ran


def test_memory_bomb_without_address_space_limit_hits_the_cgroup(stage):
    if cgroups.layout() is None:
        pytest.skip("no cgroup for the judge on this machine: RLIMIT_AS is the only memory cap")
    limits = dataclasses.replace(LIMITS, address_space=None, memory=512 * 1024 ** 2)
    report = _judge(stage, H.MEMORY_BOMB_TOUCHED, static=False, limits=limits)
    assert report.verdict.value == MLE, report.message
    assert_contained(report, stage)


def test_fork_bomb_without_cgroups_is_stopped_by_the_watchdog(stage, monkeypatch):
    monkeypatch.setattr(cgroups, "create", lambda processes, memory: None)
    report = _judge(stage, H.FORK_BOMB, static=False, limits=dataclasses.replace(LIMITS, processes=32))
    assert report.verdict.value == RE, report.message
    assert "processes" in report.message
    assert_contained(report, stage)


def test_replayed_outputs_do_not_survive_the_run(stage):
    seed = secrets.randbits(62)
    first = _judge(stage, H.REPLAY.replace("@FIRST@", "yes"), static=False, seed=seed)
    assert first.verdict.value == AC, first.message
    second = _judge(stage, H.REPLAY.replace("@FIRST@", "no"), static=False, seed=seed)
    assert second.verdict.value == WA, (second.message, second.stdout)
    assert "replayed" not in second.stdout
    assert _judge(stage, H.REPLAY, static=True).verdict.value == SV
    assert_contained(second, stage)


def test_judge_still_works_after_the_attacks(stage):
    report = _judge(stage, H.RAW_KERNEL, static=True)
    assert report.verdict.value == AC, (report.message, report.details)
    assert report.sandbox == "bubblewrap" and report.score > 60.0
    assert_contained(report, stage)
    assert_nothing_left(stage.tmp)


# -- starting programs: refused inside the sandbox whatever the static checks say --------------

# What each way of starting a program gives when execve fails with EPERM (else PermissionError).
EXEC_REFUSED = {
    "os.system": "32512", "libc.system": "32512",     # the shell's child exits 127
    "libc.execve": "(-1, 1)", "libc.execv": "(-1, 1)",  # -1, errno EPERM
    "syscall(execve)": "(-1, 1)", "syscall(execveat)": "(-1, 1)",
    "pty.spawn": "768",                 # the forked copy could not exec and exited 3 (its code)
    "multiprocessing.spawn": "255",     # the new interpreter never started
    # nor did the fork server: its socket refuses, or is closed as the client writes (timing)
    "multiprocessing.forkserver": ("ConnectionRefusedError", "BrokenPipeError"),
}

@pytest.mark.parametrize("name", list(H.EXEC_PYTHON))
def test_no_program_starts_from_python(name, stage):
    source = H.EXEC_PYTHON[name]
    assert _judge(stage, source, static=True).verdict.value == SV
    report = _judge(stage, source, static=False)
    assert report.verdict.value == AC, (report.message, report.details, report.stdout[-2000:])
    assert "MARKER PRESENT" not in report.stdout
    routes = dict(ln[len("route "):].split(" -> ", 1) for ln in report.stdout.splitlines()
                  if ln.startswith("route "))
    assert routes, report.stdout
    for route, result in routes.items():   # each failed the way a refused execve fails
        assert result.startswith(EXEC_REFUSED.get(route, "PermissionError: [Errno 1]")), (route, result)
    assert_contained(report, stage)


@pytest.mark.parametrize("name", list(H.EXEC_KERNEL))
@pytest.mark.parametrize("static", [True, False])
def test_no_program_starts_from_a_kernel(name, static, stage):
    report = _judge(stage, H.EXEC_KERNEL[name], static=static)
    assert report.verdict.value == AC, (report.message, report.details, report.stdout[-2000:])
    starts = [ln for ln in report.stdout.splitlines() if ln.startswith("kernel start -> ")]
    assert starts and all(ln != "kernel start -> 0" for ln in starts), report.stdout[-2000:]
    assert_contained(report, stage)
