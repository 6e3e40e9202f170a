"""Trace files -> raw session records (messages still in their wire format).

Shapes accepted, whatever the file extension (.jsonl/.ndjson, .json, .yaml/.yml):
- JSONL: one session object per line;
- one session object `{"conversation_id", "actor", "skill", "namespace"?, "timestamp"?,
  "messages": [...]}`, or a list of them, or `{"sessions": [...]}`;
- a DC-Bench scenario or any mapping with a `seed` list of sessions (only `seed` is read, never
  `test` or `expect`);
- tau-bench trajectories: records with `task_id`, `traj` (and `trial`, `reward`, `info`);
  their users are customers, so their turns are marked as an end user's.

A session may say who its user turns are from (`"speaker_role": "end_user"`).

Parsing the messages themselves is `parse.py`'s job; this module only finds the sessions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from dctx.errors import TraceFormatError
from dctx.validation.safe_yaml import load_yaml

TAU_ACTOR = "tau-user"
TAU_SPEAKER_ROLE = "end_user"


@dataclass(slots=True)
class RawSession:
    """One session found in a file, before its messages are parsed."""

    messages: Any
    conversation_id: str
    where: str  # "line 3", "seed[1]", "record 7": for errors before the id is trusted
    actor: str | None = None
    skill: str | None = None
    namespace: str | None = None
    timestamp: Any = None
    speaker_role: str | None = None  # who the user turns are from (capture/roles.py)


def _bad(reason: str, path: Path, where: str | None, field: str | None = None) -> TraceFormatError:
    return TraceFormatError(reason, file=str(path), session=where, field=field)


def _opt_str(obj: dict[str, Any], key: str, path: Path, where: str) -> str | None:
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    raise _bad(f"must be a string, got {type(value).__name__}", path, where, key)


def _tau_skill(path: Path) -> str:
    """tau-bench names files `<model>-<domain>.json`: the domain names the agent skill."""
    domain = path.stem.rsplit("-", 1)[-1].strip().lower()
    return f"{domain}_agent" if domain.isidentifier() else "tau_agent"


def _session(obj: Any, path: Path, where: str, trials: dict[str, int]) -> RawSession:
    if not isinstance(obj, dict):
        raise _bad(f"a session must be an object, got {type(obj).__name__}", path, where)
    if "traj" in obj and "task_id" in obj:
        task = str(obj["task_id"])
        trial = obj.get("trial")
        if not isinstance(trial, int) or isinstance(trial, bool):
            trial = trials.get(task, 0)
        trials[task] = trial + 1
        return RawSession(
            messages=obj["traj"],
            conversation_id=f"tau-{task}-trial-{trial}",
            where=where,
            actor=TAU_ACTOR,
            skill=_tau_skill(path),
            # the user is a (simulated) customer: what they ask for is not teaching
            speaker_role=TAU_SPEAKER_ROLE,
        )
    if "messages" not in obj:
        raise _bad("a session needs a 'messages' list", path, where, "messages")
    conv = obj.get("conversation_id")
    if isinstance(conv, int) and not isinstance(conv, bool):
        conv = str(conv)
    if conv is None:
        conv = f"{path.stem}:{where.replace(' ', '')}"
    if not isinstance(conv, str) or not conv:
        raise _bad("must be a non-empty string", path, where, "conversation_id")
    return RawSession(
        messages=obj["messages"],
        conversation_id=conv,
        where=where,
        actor=_opt_str(obj, "actor", path, where),
        skill=_opt_str(obj, "skill", path, where),
        namespace=_opt_str(obj, "namespace", path, where),
        timestamp=obj.get("timestamp"),
        speaker_role=_opt_str(obj, "speaker_role", path, where),
    )


def _sessions(doc: Any, path: Path) -> list[RawSession]:
    trials: dict[str, int] = {}
    if isinstance(doc, list):
        return [_session(x, path, f"record {i}", trials) for i, x in enumerate(doc)]
    if isinstance(doc, dict):
        for key in ("seed", "sessions"):
            if key in doc:
                items = doc[key]
                if not isinstance(items, list):
                    raise _bad(f"'{key}' must be a list of sessions", path, None, key)
                return [_session(x, path, f"{key}[{i}]", trials) for i, x in enumerate(items)]
        return [_session(doc, path, "record 0", trials)]
    raise _bad("expected a session, a list of sessions, or a 'seed' list", path, None)


def _jsonl(text: str, path: Path) -> list[RawSession]:
    trials: dict[str, int] = {}
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            raise _bad(f"invalid JSON: {exc}", path, f"line {n}") from exc
        out.append(_session(obj, path, f"line {n}", trials))
    return out


def read_raw_sessions(path: str | Path) -> list[RawSession]:
    """Find every session in a trace file (see the module docstring for the shapes)."""
    path = Path(path)
    try:
        return _read(path)
    except RecursionError:
        raise _bad("the file is nested too deeply to be a trace", path, None) from None


def _read(path: Path) -> list[RawSession]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TraceFormatError(f"cannot read the file: {exc}", file=str(path)) from exc
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return _jsonl(text, path)
    if suffix in (".yaml", ".yml"):
        try:
            return _sessions(load_yaml(text), path)
        except yaml.YAMLError as exc:
            raise _bad(f"invalid YAML: {exc}", path, None) from exc
    try:
        doc = json.loads(text)
    except ValueError as exc:
        if len([ln for ln in text.splitlines() if ln.strip()]) > 1:
            return _jsonl(text, path)  # JSONL under another extension
        raise _bad(f"invalid JSON: {exc}", path, None) from exc
    return _sessions(doc, path)


__all__ = ["TAU_ACTOR", "TAU_SPEAKER_ROLE", "RawSession", "read_raw_sessions"]
