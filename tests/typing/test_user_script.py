"""A user's script on the public API type-checks under `mypy --strict` and runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import dctx

SCRIPT = Path(__file__).with_name("user_script.py")
SRC = Path(dctx.__file__).resolve().parents[1]  # the dctx under test


def mypy_strict(script: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`mypy --strict` on one file, as a user would run it (no project config)."""
    env = {**os.environ, "MYPYPATH": str(SRC)}
    return subprocess.run(
        [
            sys.executable, "-m", "mypy", "--strict", "--config-file", os.devnull,
            "--follow-imports", "silent", "--cache-dir", str(tmp_path / "cache"), str(script),
        ],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600,
    )  # fmt: skip


def test_user_script_type_checks_strictly(tmp_path: Path) -> None:
    out = mypy_strict(SCRIPT, tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Success" in out.stdout


def test_user_script_catches_a_type_error(tmp_path: Path) -> None:
    """The check is real: the same script with one wrong type fails."""
    broken = tmp_path / "broken.py"
    broken.write_text(
        SCRIPT.read_text().replace('query="How did Beta grow?"', "query=42"), encoding="utf-8"
    )
    out = mypy_strict(broken, tmp_path)
    assert out.returncode == 1 and "query" in out.stdout


def test_user_script_runs() -> None:
    out = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
