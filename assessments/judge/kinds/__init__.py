"""The kinds of task the judge knows, one folder each; `cupy/` is CuPy kernels and array code.

The core (engine.py) drives a judging through `Kind` alone and never imports a kind's modules:
it looks the kind up here by the name a task declares (`task.kind`). A new kind is a folder
whose `kind.py` has a module-level `KIND` that satisfies the protocol, and its name in `KNOWN`
(single.py is the base of a kind with one backend and one task bank).
"""
from __future__ import annotations

import importlib
from contextlib import AbstractContextManager
from typing import Any, Protocol

KNOWN = ("cupy", "verilog", "cocotb", "python", "cpp", "promql")
DEFAULT = KNOWN[0]       # a task that names no kind is of the first one


class Kind(Protocol):
    """How one kind of task is judged. `run` is the `engine.Run` that `new_run` made; a step
    that settles the verdict raises `outcome.Decided`."""

    name: str
    extensions: tuple[str, ...]     # the submission's file names end so (the CLI tells kinds apart)

    def backend(self, name: str | None) -> Any:
        """Where its code runs, by name (ValueError for a name it does not know): an object with
        `name`, `description`, `timed` and `limits`."""

    def backend_names(self) -> tuple[str, ...]:
        """The names `backend` knows."""

    def find_task(self, slug: str) -> Any | None:
        """The task of its task bank with this slug, or None."""

    def task_slugs(self) -> list[str]:
        """Every slug of its task bank."""

    def new_run(self, **fields) -> Any:
        """The run's state: an `engine.Run` (or a subclass holding the kind's own)."""

    def screen(self, run) -> None:
        """Refuse a submission before anything of it runs."""

    def session(self, run, wrapper) -> AbstractContextManager:
        """The sandboxed process(es) the tests run in, with what they need, for the block;
        Decided when they cannot start."""

    def load(self, run) -> None:
        """Load (compile, import) the submission in the session."""

    def run_test(self, run, index: int, case, test) -> None:
        """Run one test in the session and compare its result; fill `test` (a TestReport)."""

    def after_tests(self, run) -> None:
        """Checks once every test passed (a sanitizer, a linter): Decided to overrule."""

    def measure(self, run) -> None:
        """Time or measure an accepted submission, where the backend does (report.timing)."""

    def describe(self, run) -> None:
        """What the report shows of what ran (kernels and listings, captured output)."""


_loaded: dict[str, Kind] = {}


def get_kind(name: str) -> Kind:
    """The kind called `name`; ValueError for any other name."""
    if name not in KNOWN:
        raise ValueError(f"unknown kind of task {name!r}; known: {', '.join(KNOWN)}")
    if name not in _loaded:
        _loaded[name] = importlib.import_module(f"{__name__}.{name}.kind").KIND
    return _loaded[name]


# What a submission is written in, by its file's extension; a kind speaks a language when its
# own extensions are among that language's (or it names the language: `Kind.language`).
LANGUAGES = {"python": (".py",), "cpp": (".cpp", ".cc"), "verilog": (".v", ".sv"), "promql": (".yml", ".yaml")}


def language_of(filename: str) -> str | None:
    """The language a file's extension names, or None."""
    name = filename.lower()
    return next((lang for lang, exts in LANGUAGES.items() if name.endswith(exts)), None)


def _speaks(kind: Kind, language: str) -> bool:
    return getattr(kind, "language", None) == language or \
        bool(set(getattr(kind, "extensions", ())) & set(LANGUAGES.get(language, ())))


def kind_of(task, language: str | None = None) -> Kind:
    """The task's own kind; with a `language`, the kind that judges the task in it (a function
    task in Python or C++): ValueError when none does."""
    own = get_kind(getattr(task, "kind", None) or DEFAULT)
    if language is None or _speaks(own, language):
        return own
    for name in KNOWN:
        kind = get_kind(name)
        if _speaks(kind, language) and kind.find_task(task.slug) is not None:
            return kind
    raise ValueError(f"{task.slug} is not judged in {language}; it takes {', '.join(languages_of(task))}")


def languages_of(task) -> list[str]:
    """The languages the task is judged in, its own kind's first."""
    out = []
    for kind in (kind_of(task), *(get_kind(n) for n in KNOWN)):
        if kind.find_task(task.slug) is not None:
            out += [lang for lang in LANGUAGES if _speaks(kind, lang) and lang not in out]
    return out


def find_task(slug: str):
    """The task with this slug in any kind's task bank, or None."""
    for name in KNOWN:
        task = get_kind(name).find_task(slug)
        if task is not None:
            return task
    return None


def backend_names() -> tuple[str, ...]:
    """Every backend name of every kind, in order, once."""
    return tuple(dict.fromkeys(n for name in KNOWN for n in get_kind(name).backend_names()))


def task_slugs() -> list[str]:
    return sorted({s for name in KNOWN for s in get_kind(name).task_slugs()})   # a task two kinds judge: once
