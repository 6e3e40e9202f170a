"""The code is what the README promises, ruff-clean and mypy-strict: `.ci/run` runs only the
test command, so the checkers run as tests (mypy reads `[tool.mypy]` in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "command",
    [
        ["ruff", "check", "src", "tests"],
        ["ruff", "format", "--check", "src", "tests"],
        ["mypy", "src"],
    ],
    ids=["ruff-check", "ruff-format", "mypy-strict"],
)
def test_the_code_passes_its_checker(command: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
