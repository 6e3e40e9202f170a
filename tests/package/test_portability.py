"""Nothing in dctx needs a Unix-only module (fcntl, resource, pwd, grp, termios): every such
import handles its absence, and the perf benchmark reports peak RSS as unknown without it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

UNIX_ONLY = {"fcntl", "resource", "pwd", "grp", "termios"}
BLOCKER = f"""
import sys
class _Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {UNIX_ONLY!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, _Block())
for name in {UNIX_ONLY!r}:
    sys.modules.pop(name, None)
"""

SRC = Path(__file__).resolve().parents[2] / "src" / "dctx"


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", BLOCKER + code], capture_output=True, text=True, timeout=300
    )


def _handles_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    names = {n.id for n in ast.walk(handler.type) if isinstance(n, ast.Name)}
    return bool(names & {"ImportError", "ModuleNotFoundError", "Exception"})


def _guarded_imports(tree: ast.AST) -> set[int]:
    """Line numbers of imports inside a `try:` that handles ImportError."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(map(_handles_import_error, node.handlers)):
            for stmt in node.body:
                imports = (n for n in ast.walk(stmt) if isinstance(n, ast.Import | ast.ImportFrom))
                lines |= {n.lineno for n in imports}
    return lines


def test_no_unguarded_unix_only_import_in_the_package() -> None:
    """Third-party packages pick their own platform branch; dctx's own code must not import
    a Unix-only module unless it handles the ImportError."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        guarded = _guarded_imports(tree)
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(n.split(".")[0] in UNIX_ONLY for n in names) and node.lineno not in guarded:
                found.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert found == []


def test_peak_rss_is_unknown_without_resource() -> None:
    out = _run(
        "import math\nfrom dctx.bench.perf import peak_rss_mb\nprint(math.isnan(peak_rss_mb()))\n"
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"
