"""The `verilog` kind's steps (kinds.Kind): build a model of the design per parameter set in the
compile sandbox (cached by content), then for each test drive it in the run sandbox's child with
the checker's stimulus and compare what comes back, cycle by cycle, in the parent.

The child never sees the checker, the reference design or the seed: it gets inputs, answers
outputs. A mismatch is a wrong_answer naming the cycle, the signal, both values and the inputs of
the cycles before it.

A task with several clocks (`RtlTask.domains`) runs the same way over edges of all its clocks in
time order (checkers.clocks.Edge): its models are built from Yosys's netlist with the
metastability model in it (cdc.py), a crossing without a synchronizer is a wrong_answer before
any edge, and each edge's `late` inputs come from metastability.py.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import random
import shutil
import subprocess
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import build_cache, compile_sandbox, sandbox
from ...compile_sandbox import JobFailed, JobFiles
from ...engine import Run
from ...outcome import Decided, Outcome
from ...report import TestReport
from ...runner import ChildDied
from ...sandbox import SandboxSpec
from ..child_backend import started_child
from ...verdicts import Verdict
from . import checkers, metastability, mismatch, verilator_build, waveform
from .checkers.clocks import Edge

BUILD_MODULE = "assessments.judge.kinds.verilog.compile_job"
JOB_FILES = JobFiles(("assessments/__init__.py", "assessments/judge/__init__.py",
                      "assessments/judge/protocol.py", "assessments/judge/kinds/__init__.py",
                      "assessments/judge/kinds/verilog/__init__.py",
                      "assessments/judge/kinds/verilog/compile_job.py",
                      "assessments/judge/kinds/verilog/verilator_build.py",
                      "assessments/judge/kinds/verilog/synth.py", "assessments/judge/kinds/verilog/netlist.py",
                      "assessments/judge/kinds/verilog/cdc.py"), ())
MAX_SOURCE = 256 * 1024
SAMPLE_SHARE = 10          # a sample test runs a tenth of a hidden test's cycles


@dataclass
class RtlRun(Run):
    cache: Any = None
    view: Any = None
    child: Any = None
    models: dict | None = None      # parameter key -> (file in the view, ports)
    crossings: dict | None = None   # parameter key -> the model's crossings (cdc.py; several clocks only)
    lint: str = ""
    synthesized: dict | None = None   # Yosys's answers: {"design": ..., "reference": ...}


def _params_key(params: dict) -> str:
    return ",".join(f"{k}={int(v)}" for k, v in sorted(params.items()))


# ---- the machine's Verilator runtime -------------------------------------------------------------
# What each product of the compile sandbox depends on besides its input: the judge's files that
# make it and the tools' versions. A change to the metastability model (cdc.py) rebuilds only the
# models of designs with several clocks; Verilator's runtime only follows Verilator and g++.
_RUNTIME = ("verilator_build.py",), ("verilator", "cxx")
_MODEL = ("verilator_build.py", "compile_job.py"), ("verilator", "cxx")
_MODEL_CDC = ("verilator_build.py", "compile_job.py", "netlist.py", "cdc.py"), ("verilator", "cxx", "yosys")
_SYNTH = ("compile_job.py", "synth.py", "netlist.py"), ("yosys",)
_versions: dict[str, bytes] = {}
_fingerprints: dict[tuple, str] = {}


def _version(tool: str) -> bytes:
    if tool not in _versions:
        cmd = {"verilator": ["verilator", "--version"], "cxx": [verilator_build.CXX, "--version"],
               "yosys": ["yosys", "-V"]}[tool]
        try:
            _versions[tool] = subprocess.run(cmd, capture_output=True, timeout=30).stdout
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise RuntimeError(f"cannot run {cmd[0]}: {exc}") from None
    return _versions[tool]


def fingerprint(what: tuple = _MODEL) -> str:
    """What one product depends on besides its input (_RUNTIME, _MODEL, _MODEL_CDC, _SYNTH)."""
    if what not in _fingerprints:
        files, tools = what
        h = hashlib.sha256(b"kp-rtl-2")
        here = Path(__file__).resolve().parent
        for name in files:
            h.update(name.encode() + (here / name).read_bytes())
        for tool in tools:
            h.update(_version(tool))
        _fingerprints[what] = h.hexdigest()[:24]
    return _fingerprints[what]


def runtime_object() -> Path:
    """Verilator's runtime (a folder: verilator_build.build_runtime), built once per machine by
    the trusted parent next to the cache; published by renaming the whole folder."""
    root = Path(sandbox.emulator_cache_dir())
    out = root / f"verilated-{fingerprint(_RUNTIME)}"
    if (out / verilator_build.RUNTIME_OBJECT).exists():
        return out
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=root, prefix=".verilated-"))
    try:
        verilator_build.build_runtime(str(tmp))
        try:
            os.rename(tmp, out)
        except OSError:   # another worker published it first
            pass
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


# ---- steps ---------------------------------------------------------------------------------------
def screen(run: RtlRun) -> None:
    if len(run.source.encode()) > MAX_SOURCE:
        raise Decided(Outcome(Verdict.COMPILE_ERROR, f"the design is over {MAX_SOURCE // 1024} KiB"))
    if f"module {run.task.module}" not in " ".join(run.source.split()):
        raise Decided(Outcome(Verdict.COMPILE_ERROR,
                              f"no module named `{run.task.module}` in the file (the task asks for "
                              f"`module {run.task.module}` with the ports of the statement)"))


@contextmanager
def session(run: RtlRun, wrapper):
    scratch = Path(tempfile.mkdtemp(prefix="kp-rtl-"))
    run.cache = build_cache.BuildCache()
    run.view = run.cache.view()
    try:
        spec = SandboxSpec(scratch=scratch, backend=run.backend, limits=run.limits, wrapper=wrapper,
                           isolation=run.isolation, builds_view=str(run.view.path))
        with started_child(run, spec):
            yield
    finally:
        run.view.close()
        shutil.rmtree(scratch, ignore_errors=True)


def load(run: RtlRun) -> None:
    """A model per parameter set of the run's tests, from the cache or the compile sandbox."""
    task = run.task
    sets = {_params_key(c.dims): dict(c.dims) for c in run.cases}
    with run.stage("build"):
        try:
            runtime = runtime_object()
        except (verilator_build.BuildError, RuntimeError, OSError) as exc:
            raise Decided(Outcome(Verdict.INTERNAL_ERROR, f"the judge cannot build simulation models: {exc}")) from None
        made_by = fingerprint(_MODEL_CDC if task.domains else _MODEL)
        keys = {p: build_cache.key("rtl", made_by, run.source, task.module, p, *_domains_key(task)) for p in sets}
        missing = [p for p in sets if run.cache.get("builds", keys[p]) is None]
        synthesis = _start_synthesis(run)   # Yosys beside Verilator
        try:
            if missing:
                _build(run, [sets[p] for p in missing], [keys[p] for p in missing], runtime)
        finally:
            results = _finish_synthesis(run, synthesis)
        run.models, run.crossings = {}, {}
        for p, k in keys.items():
            entry = run.cache.get("builds", k)
            if entry is None or not entry.get("ok"):
                log = (entry or {}).get("log") or "the design does not build"
                if (entry or {}).get("verdict") == Verdict.NOT_SYNTHESIZABLE.value:   # Yosys refused it
                    raise Decided(Outcome(Verdict.NOT_SYNTHESIZABLE, f"not synthesizable: {entry.get('message')}",
                                          compile_log=log))
                raise Decided(Outcome(Verdict.COMPILE_ERROR, _first_line(log), compile_log=log))
            run.models[p] = (run.view.add(k), entry["meta"]["ports"])
            if "crossings" in entry["meta"]:
                run.crossings[p] = entry["meta"]["crossings"]
            run.lint = run.lint or entry["meta"].get("lint", "")
    _check_ports(run)
    run.synthesized = results
    _note_synthesis(run)


def _domains_key(task) -> tuple[str, ...]:
    """What a model of a task with several clocks depends on besides the design: its domains."""
    return (json.dumps([vars(d) for d in task.domains], sort_keys=True),) if task.domains else ()


def _start_synthesis(run: RtlRun) -> dict:
    """Yosys jobs for the design and the reference at the task's stated parameters, where the
    cache has no answer; {who: (key, job or None)}."""
    task = run.task
    out = {}
    for who, text in (("design", run.source), ("reference", task.reference_path.read_text())):
        k = build_cache.key("synth", fingerprint(_SYNTH), text, task.module, _params_key(task.synth_params))
        job = None
        if run.cache.get("synth", k) is None:
            job = compile_sandbox.Job(BUILD_MODULE, {"source": text, "top": task.module,
                                                     "synth": task.synth_params},
                                      timeout_s=run.limits.compile_s, isolation=run.isolation, files=JOB_FILES)
        out[who] = (k, job)
    return out


def _finish_synthesis(run: RtlRun, started: dict) -> dict:
    results = {}
    for who, (k, job) in started.items():
        if job is not None:
            try:
                answer = job.answer().get("synth") or {}
            except JobFailed as exc:
                answer = {"ok": False, "problems": [f"Yosys did not finish: {exc}"], "internal": not exc.timed_out}
            if not answer.get("internal"):
                run.cache.put("synth", k, answer)
            results[who] = answer
        else:
            results[who] = run.cache.get("synth", k) or {}
    return results


def _note_synthesis(run: RtlRun) -> None:
    """The design's area and depth against the reference's, where Yosys synthesized both."""
    design, reference = run.synthesized.get("design") or {}, run.synthesized.get("reference") or {}
    if not (design.get("ok") and reference.get("ok")):
        return
    params = run.task.synth_params
    cells, depth = design.get("cells") or 0, design.get("depth") or 0
    ref_cells, ref_depth = reference.get("cells") or 0, reference.get("depth") or 0
    area = min(1.0, ref_cells / cells) if cells else 1.0
    speed = min(1.0, ref_depth / depth) if depth else 1.0
    run.report.synthesis = {"params": dict(params), "cells": cells, "depth": depth,
                            "reference_cells": ref_cells, "reference_depth": ref_depth,
                            "cells_by_type": design.get("by_type") or {},
                            "fraction": round((area * speed) ** 0.5, 4)}


def _build(run: RtlRun, params: list[dict], keys: list[str], runtime: Path) -> None:
    """Two jobs side by side (one per core), each building its share of the parameter sets."""
    halves = [(params[i::2], keys[i::2]) for i in range(2) if params[i::2]]
    jobs = []
    try:
        for ps, _ in halves:
            job = {"source": run.source, "top": run.task.module, "params": ps, "runtime": str(runtime)}
            if run.task.domains:
                job["domains"] = [vars(d) for d in run.task.domains]
            jobs.append(compile_sandbox.Job(BUILD_MODULE, job,
                                            timeout_s=run.limits.compile_s, isolation=run.isolation,
                                            readonly=(str(runtime),), files=JOB_FILES))
        for job, (ps, ks) in zip(jobs, halves):
            try:
                answer = job.answer()
            except JobFailed as exc:
                if exc.timed_out:
                    raise Decided(Outcome(Verdict.COMPILE_ERROR, f"building the simulation model took "
                                                                 f"longer than {run.limits.compile_s:g} s")) from None
                raise Decided(Outcome(Verdict.INTERNAL_ERROR, f"the judge could not build the design: {exc}")) from None
            for k, result in zip(ks, answer.get("results") or []):
                if result.get("internal"):
                    raise Decided(Outcome(Verdict.INTERNAL_ERROR, f"the judge could not build the design: {result.get('log')}"))
                if not result.get("ok"):
                    failed = {"ok": False, "log": str(result.get("log", ""))}
                    if result.get("verdict"):
                        failed.update(verdict=str(result["verdict"]), message=str(result.get("message", "")))
                    run.cache.put("builds", k, failed)
                    break
                try:
                    library = base64.b64decode(result["so"], validate=True)
                except (KeyError, TypeError, binascii.Error):
                    raise Decided(Outcome(Verdict.INTERNAL_ERROR, "the compile sandbox answered no model")) from None
                run.cache.put("builds", k, {"ok": True, "meta": result.get("meta") or {}}, library)
    finally:
        for job in jobs:
            job.cancel()


def _first_line(log: str) -> str:
    for line in log.splitlines():
        if line.strip():
            return f"the design does not build: {line.strip()[:300]}"
    return "the design does not build"


def _check_ports(run: RtlRun) -> None:
    """Every port of the statement, with its direction, and no other input."""
    task = run.task
    for p, (_, ports) in run.models.items():
        added = _added_ports(run.crossings.get(p))
        have = {x["name"]: x for x in ports if x["name"] not in added}
        for want in task.ports:
            got = have.get(want.name)
            if got is None:
                raise Decided(Outcome(Verdict.COMPILE_ERROR, f"module `{task.module}` has no port `{want.name}` "
                                                             f"(the statement's ports: {', '.join(x.name for x in task.ports)})"))
            if got["direction"] != want.direction:
                raise Decided(Outcome(Verdict.COMPILE_ERROR, f"port `{want.name}` is an {got['direction']}; the "
                                                             f"statement makes it an {want.direction}"))
        extra = [n for n, x in have.items() if x["direction"] == "input" and n not in {w.name for w in task.ports}]
        if extra:
            raise Decided(Outcome(Verdict.COMPILE_ERROR, f"module `{task.module}` has inputs the statement does not "
                                                         f"give: {', '.join(extra)}"))


def _added_ports(crossings: dict | None) -> set[str]:
    """The ports the judge's metastability model adds to a design (none with one clock)."""
    return {name for names in ((crossings or {}).get("ports") or {}).values() for name in names}


def _as_edges(task, stimulus: list) -> list[Edge]:
    """The checker's stimulus as edges: a task with several clocks gives them; with one clock,
    cycle c is an edge of `task.clock` at time c."""
    if task.domains:
        return stimulus
    return [Edge(task.clock, c, c, inputs) for c, inputs in enumerate(stimulus)]


def run_test(run: RtlRun, index: int, case, test: TestReport) -> None:
    task = run.task
    params = dict(case.dims)
    checker = checkers.CHECKERS[task.slug](params)
    rng = random.Random(f"{run.seed}:{index}")
    cycles = task.cycles // (SAMPLE_SHARE if run.report.suite == "samples" else 1)
    edges = _as_edges(task, checker.stimulus(rng, cycles))
    stimulus = [e.inputs for e in edges]
    probes = {}
    if hasattr(checker, "probe"):
        for c in range(len(stimulus)):
            variations = checker.probe(c)
            if variations:
                probes[str(c)] = variations
    key = _params_key(params)
    model, ports = run.models[key]
    # "cycle 12 with WIDTH=8, DEPTH=16: ..."; a design without parameters: "cycle 12 of test stream2: ..."
    where = (f"with {', '.join(f'{k}={v}' for k, v in params.items())}" if params
             else f"of test {case.name}")
    request = {"op": "simulate", "model": model, "ports": ports, "clock": task.clock, "cycles": stimulus,
               "probes": probes}
    draws = None      # the metastability model's, with several clocks
    if task.domains:
        crossings = run.crossings.get(key) or {}
        if crossings.get("problems"):
            raise Decided(mismatch.unsynchronized(where, crossings["problems"]))
        draws = metastability.Metastability(crossings, task.domains, random.Random(f"{run.seed}:{index}:late"))
        late = draws.plan(edges)
        request.update(cycles=[{**inputs, **drawn} for inputs, drawn in zip(stimulus, late)],
                       edges=[e.clock for e in edges])
    try:
        ans = run.child.request(request)
    except ChildDied as died:
        if died.reason == "wall":
            raise Decided(Outcome(Verdict.TIME_LIMIT_EXCEEDED, f"the simulation {where} did not finish within "
                                                               f"{run.limits.op_wall_s:g} s (a loop that never settles?)")) from None
        stderr, _ = run.child.captured("stderr", 8 * 1024)
        raise Decided(Outcome(Verdict.RUNTIME_ERROR, f"the simulation {where} stopped ({died.reason})",
                              details=run.scrub(stderr) or None)) from None
    msg = ans.message
    test.elapsed_s = round(ans.elapsed_s, 4)
    if not msg.get("ok"):
        err = msg.get("error") or {}
        raise Decided(Outcome(Verdict.RUNTIME_ERROR, f"the simulation {where} stopped: {err.get('message', '')}"))
    rows = msg.get("rows") or []
    if len(rows) != len(stimulus):
        raise Decided(Outcome(Verdict.INTERNAL_ERROR, "the simulation answered a different number of cycles"))
    hidden = _added_ports(run.crossings.get(key))

    def shown(values: dict) -> dict:   # the design's own ports: without those the judge added
        return {k: v for k, v in values.items() if k not in hidden} if hidden else values

    for c, (inputs, row) in enumerate(zip(stimulus, rows)):
        found = draws.tear(c, edges[c], row["before"]) if draws else None
        found = found or checker.before_edge(c, inputs, shown(row["before"]))
        if found is None and row.get("probed") and hasattr(checker, "probed"):
            found = checker.probed(c, list(zip(checker.probe(c) or [], row["probed"])))
        if found is None:
            found = checker.after_edge(c, inputs, shown(row["after"]))
        if found is not None:
            if task.domains:
                run.report.waveform = waveform.edges_window(ports, edges, rows, c, found.signal, found.expected, hidden)
            else:
                run.report.waveform = waveform.window(ports, task.clock, stimulus, rows, c, found.signal,
                                                      found.expected)
            raise Decided(mismatch.outcome(task, where, c, found, edges, rows, ports))


def after_tests(run: RtlRun) -> None:
    """A design that simulates correctly must also synthesize: not_synthesizable with Yosys's
    reasons (a latch, a combinational loop, `initial` or delays, a refusal) overrules."""
    results = run.synthesized or {}
    design, reference = results.get("design") or {}, results.get("reference") or {}
    if design.get("internal") or reference.get("internal") or not reference.get("ok"):
        raise Decided(Outcome(Verdict.INTERNAL_ERROR, "the judge could not synthesize the design: "
                              + "; ".join(design.get("problems") or reference.get("problems") or ["Yosys failed"])))
    if not design.get("ok"):
        problems = design.get("problems") or ["Yosys refused the design"]
        raise Decided(Outcome(Verdict.NOT_SYNTHESIZABLE, "not synthesizable: " + "; ".join(problems),
                              compile_log=run.scrub(design.get("log") or "") or None))


def measure(run: RtlRun) -> None:
    """No timing: a design's performance is its area and depth (synthesis)."""


def describe(run: RtlRun) -> None:
    """Verilator's lint warnings, listed without failing the design."""
    if run.lint and not run.report.compile_log:
        run.report.compile_log = "Verilator's warnings (not counted against the design):\n" + run.scrub(run.lint)
