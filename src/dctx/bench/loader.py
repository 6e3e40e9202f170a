"""Find and parse scenario files: a folder tree of *.yaml / *.yml, one scenario per file.

The default folder is the benchmark bundled with the package (`dctx/bench/scenarios`), read
through importlib.resources so it works from a wheel too. Every parse or contract error is a
`ScenarioFormatError` naming the file and the field.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from dctx.bench.schema import DIMENSIONS, Scenario
from dctx.errors import ScenarioFormatError

SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True, slots=True)
class LoadedScenario:
    """A scenario with the file it came from (for errors and reports)."""

    scenario: Scenario
    source: str


def bundled_root() -> Traversable:
    """The folder of scenarios shipped with dctx."""
    return resources.files("dctx.bench").joinpath("scenarios")


def _walk(root: Traversable) -> Iterator[Traversable]:
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.name.startswith((".", "_")):
            continue
        if entry.is_dir():
            yield from _walk(entry)
        elif entry.name.endswith(SUFFIXES):
            yield entry


def _field_path(loc: Sequence[int | str]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(top level)"


def parse_scenario(text: str, source: str) -> Scenario:
    """Parse one scenario's YAML text; `source` names it in errors."""
    try:
        data: Any = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ScenarioFormatError(f"{source}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ScenarioFormatError(f"{source}: a scenario file must hold one mapping")
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        problems = [f"field {_field_path(err['loc'])}: {err['msg']}" for err in exc.errors()[:5]]
        more = len(exc.errors()) - len(problems)
        tail = f" (and {more} more)" if more > 0 else ""
        raise ScenarioFormatError(f"{source}: " + "; ".join(problems) + tail) from None


def load_file(path: Path | str) -> Scenario:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioFormatError(f"{p}: cannot read: {exc.strerror or exc}") from None
    return parse_scenario(text, str(p))


def iter_files(root: Path | str | None = None) -> Iterator[tuple[str, str]]:
    """Yield (source name, YAML text) for every scenario file under `root` (default: bundled)."""
    if root is None:
        base = bundled_root()
        if not base.is_dir():
            return
        for entry in _walk(base):
            yield f"dctx/bench/scenarios/{_relative(entry, base)}", entry.read_text("utf-8")
        return
    p = Path(root)
    if p.is_file():
        yield str(p), p.read_text(encoding="utf-8")
        return
    if not p.is_dir():
        raise ScenarioFormatError(f"{p}: no such scenario file or folder")
    for file in sorted(x for x in p.rglob("*") if x.suffix in SUFFIXES and x.is_file()):
        if any(part.startswith((".", "_")) for part in file.relative_to(p).parts):
            continue
        yield str(file), file.read_text(encoding="utf-8")


def _relative(entry: Traversable, base: Traversable) -> str:
    try:
        return str(Path(str(entry)).relative_to(Path(str(base))))
    except ValueError:
        return entry.name


def load_scenarios(
    root: Path | str | None = None,
    *,
    dimensions: Iterable[str] | None = None,
    ids: Iterable[str] | None = None,
) -> list[LoadedScenario]:
    """Load every scenario under `root` (default: bundled), sorted by id.

    `dimensions` keeps only those dimensions; `ids` keeps ids matching any of the given
    shell-style patterns (`fin.recall.*`). Duplicate ids are an error.
    """
    dims = set(dimensions or ())
    unknown = dims - set(DIMENSIONS)
    if unknown:
        raise ScenarioFormatError(
            f"unknown dimension(s) {', '.join(sorted(unknown))}; "
            f"choose from {', '.join(DIMENSIONS)}"
        )
    patterns = list(ids or ())
    out: list[LoadedScenario] = []
    seen: dict[str, str] = {}
    for source, text in iter_files(root):
        sc = parse_scenario(text, source)
        if sc.id in seen:
            raise ScenarioFormatError(f"{source}: duplicate id {sc.id!r} (also in {seen[sc.id]})")
        seen[sc.id] = source
        if dims and sc.dimension not in dims:
            continue
        if patterns and not any(fnmatch.fnmatchcase(sc.id, pat) for pat in patterns):
            continue
        out.append(LoadedScenario(sc, source))
    out.sort(key=lambda ls: ls.scenario.id)
    return out
