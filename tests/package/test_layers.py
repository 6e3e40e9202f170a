"""Imports point down the layers: capture never imports compile, and providers (LLM clients,
embedders, the cached JSON-step runner) import no pipeline layer at all.

Every import counts, function-level and `TYPE_CHECKING` ones included: a hidden back-import is
still a cycle between layers.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

#: layer -> the layers none of its modules may import
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "dctx.capture": ("dctx.compile",),
    "dctx.providers": (
        "dctx.capture",
        "dctx.compile",
        "dctx.retrieve",
        "dctx.inject",
        "dctx.memory",
    ),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _within(name: str, layer: str) -> bool:
    return name == layer or name.startswith(layer + ".")


def imported_modules(
    source: str, module: str, *, package: bool = False
) -> Iterator[tuple[int, str]]:
    """(line, module) for every import in `source`, relative ones resolved against `module`;
    `from pkg import name` also yields `pkg.name`, which may be a submodule."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor if package else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            yield node.lineno, base
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}"


def violations() -> list[str]:
    found = []
    for path in sorted((SRC / "dctx").rglob("*.py")):
        module = _module_name(path)
        banned = [b for layer, bs in FORBIDDEN.items() if _within(module, layer) for b in bs]
        if not banned:
            continue
        source = path.read_text(encoding="utf-8")
        package = path.name == "__init__.py"
        seen: set[int] = set()
        for line, name in imported_modules(source, module, package=package):
            if line not in seen and any(_within(name, b) for b in banned):
                seen.add(line)  # one report per import statement
                found.append(f"{path.relative_to(SRC)}:{line} imports {name}")
    return found


def test_imports_point_down_the_layers() -> None:
    found = violations()
    assert not found, "imports against the layers:\n" + "\n".join(found)


def test_the_walk_sees_hidden_and_relative_imports() -> None:
    source = """
from typing import TYPE_CHECKING
from dctx import compile
from . import llm
from ..compile.conditions import class_subject
if TYPE_CHECKING:
    from dctx.inject.tokens import count_tokens
def f():
    import dctx.memory
"""
    names = {n for _, n in imported_modules(source, "dctx.capture.cues")}
    assert {"dctx.compile", "dctx.capture.llm", "dctx.compile.conditions"} <= names
    assert {"dctx.inject.tokens", "dctx.memory"} <= names
    # "dctx.injected" is its own low module, not the inject layer
    assert not _within("dctx.injected", "dctx.inject")


def function_level_imports(source: str, module: str, target: str) -> list[int]:
    """Lines of imports of `target` made inside a function body of `source`."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import | ast.ImportFrom):
                    src = ast.unparse(inner)
                    found = imported_modules(src, module)
                    if any(_within(name, target) for _, name in found):
                        lines.append(inner.lineno)
    return lines


def test_compile_imports_capture_at_module_level() -> None:
    """compile reads capture's cues; with no import back, nothing needs hiding in a function
    (function-level imports were how the old capture<->compile cycles were kept alive)."""
    found = [
        f"{path.relative_to(SRC)}:{line}"
        for path in sorted((SRC / "dctx" / "compile").rglob("*.py"))
        for line in function_level_imports(
            path.read_text(encoding="utf-8"), _module_name(path), "dctx.capture"
        )
    ]
    assert not found, "function-level imports of capture in compile:\n" + "\n".join(found)


def test_function_level_imports_are_seen() -> None:
    source = "import re\ndef f():\n    from dctx.capture.cues import is_directive\n"
    assert function_level_imports(source, "dctx.compile.x", "dctx.capture") == [3]
    assert (
        function_level_imports("from dctx.capture import cues\n", "dctx.compile.x", "dctx.capture")
        == []
    )
