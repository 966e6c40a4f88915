"""The import layers DESIGN.md draws: each part of `tuner` imports only the parts below it (imports inside
functions count too)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "tuner"

FOUNDATION = ("tuner.errors", "tuner.filelock", "tuner.paths")
# part -> the parts it may import besides itself; the most specific part a module falls under applies
ALLOWED: dict[str, tuple[str, ...]] = {
    "tuner.errors": (),
    "tuner.filelock": ("tuner.errors",),
    "tuner.paths": (),
    "tuner.sandbox": ("tuner.errors",),
    "tuner.processes": ("tuner.errors", "tuner.sandbox"),
    "tuner.data": ("tuner.errors",),
    "tuner.backends.args": ("tuner.errors",),
    "tuner.sim": (*FOUNDATION, "tuner.data", "tuner.sandbox", "tuner.processes", "tuner.backends.args"),
    "tuner.ops": ("tuner.errors",),
    "tuner.graph": ("tuner.errors", "tuner.data", "tuner.ops"),
    "tuner.space": (*FOUNDATION, "tuner.data", "tuner.sandbox", "tuner.processes"),
    "tuner.backends": (*FOUNDATION, "tuner.data", "tuner.sandbox", "tuner.processes", "tuner.sim", "tuner.ops"),
    "tuner.mutate": (*FOUNDATION, "tuner.data", "tuner.sandbox", "tuner.processes", "tuner.sim", "tuner.ops",
                     "tuner.space", "tuner.backends"),
    "tuner.search": (*FOUNDATION, "tuner.data", "tuner.sandbox", "tuner.processes", "tuner.sim", "tuner.ops",
                     "tuner.graph", "tuner.space", "tuner.backends", "tuner.mutate"),
    "tuner.selftest": (*FOUNDATION, "tuner.data", "tuner.backends", "tuner.ops", "tuner.search"),
}
TOP = ("tuner.console", "tuner.cli", "tuner")  # above everything: may import any part


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _part(module: str) -> str | None:
    matches = [p for p in (*ALLOWED, *TOP) if module == p or module.startswith(p + ".")]
    return max(matches, key=len) if matches else None


def _imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return [(line, name) for line, name in found if name == "tuner" or name.startswith("tuner.")]


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_belongs_to_a_part():
    assert [str(p) for p in MODULES if _part(_module(p)) is None] == []


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_imports_follow_the_layers(path):
    part = _part(_module(path))
    if part in TOP:
        return
    allowed = (part, *ALLOWED[part])
    wrong = [f"line {line}: {name}" for line, name in _imports(path)
             if not any(name == a or name.startswith(a + ".") for a in allowed)]
    assert wrong == [], f"{part} may import only {', '.join(ALLOWED[part]) or 'nothing of the tuner'}"
