"""No import circles anywhere in the project: the module graph of every package (every import,
those inside functions too, but not those under `if TYPE_CHECKING:`), with a package's `__init__`
counted wherever one of its modules is imported from outside it, has no strongly connected
component of two or more. A circle hidden in a function is a circle all the same."""
from __future__ import annotations

import ast
from pathlib import Path

from tests.import_graph import circles

ROOT = Path(__file__).resolve().parents[1]
SKIP = {".venv", "node_modules", "tests", "bench", "migrations", "static", "templates", "docs",
        "solutions", "__pycache__"}


def _modules() -> dict[str, Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT)
        if SKIP & set(rel.parts) or rel.parts[0].startswith("."):
            continue
        parts = list(rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:
            found[".".join(parts)] = path
    return found


def _top_level(tree: ast.Module):
    """Every statement but those under `if TYPE_CHECKING:` (type names only, never run)."""
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            todo.extend(node.orelse)
            continue
        yield node
        todo.extend(ast.iter_child_nodes(node))


def _edges(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in _top_level(ast.parse(path.read_text())):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1] if package else []
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if not target or target == name:
                continue
            out.add(target)
            # Importing a.b.c runs a and a.b first, unless they hold this module already.
            parent = target.rpartition(".")[0]
            while parent:
                if not (name == parent or name.startswith(parent + ".")):
                    out.add(parent)
                parent = parent.rpartition(".")[0]
    return out


def import_cycles() -> list[list[str]]:
    modules = _modules()
    return circles({name: _edges(name, path, modules) for name, path in modules.items()})


def test_the_project_has_no_import_cycles():
    cycles = import_cycles()
    assert cycles == [], "\n".join(" <-> ".join(c) for c in cycles)


