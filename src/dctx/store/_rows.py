"""Dialect-free conversion between dctx records and table rows, shared by every backend.

A rule is stored as columns for what is filtered or searched (id, scope, author, status, text,
trigger text, ...) plus one JSON `body` with everything else, so `Rule.to_dict` round-trips
exactly and a field added to `Rule` later lands in the body without a migration. Vectors are
little-endian float32 bytes; never pickle.
"""

from __future__ import annotations

import gc
import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import numpy.typing as npt

from dctx.errors import StoreError
from dctx.models import (
    Message,
    NumericCondition,
    Predicate,
    Rule,
    RuleSource,
    RuleStatus,
    RuleType,
    Scope,
    Session,
    SpeakerRole,
    ToolCall,
    Trigger,
    TriggerKind,
)
from dctx.store.base import Vector

# Rule columns in table order (the backend adds its own row key).
RULE_COLUMNS: tuple[str, ...] = (
    "id",
    "namespace",
    "skill",
    "scope_actor",
    "subject",
    "actor",
    "status",
    "type",
    "rule_group",
    "source",
    "support",
    "conversation_id",
    "superseded_by",
    "created_at",
    "updated_at",
    "text",
    "trigger_text",
    "body",
)

# Top-level Rule fields kept as columns (named the same, except `group` -> rule_group).
_SCALARS = (
    "id",
    "actor",
    "status",
    "type",
    "source",
    "support",
    "conversation_id",
    "superseded_by",
    "created_at",
    "updated_at",
    "text",
)


def rule_to_row(rule: Rule) -> tuple[Any, ...]:
    """Columns of RULE_COLUMNS for one rule."""
    data = rule.to_dict()
    scope = data.pop("scope")
    trigger = data.pop("trigger")
    trigger_text = trigger.pop("text")
    group = data.pop("group")
    scalars = {name: data.pop(name) for name in _SCALARS}
    body = {"trigger": trigger, **data}
    return (
        scalars["id"],
        scope["namespace"],
        scope["skill"],
        scope["actor"],
        scope["subject"],
        scalars["actor"],
        scalars["status"],
        scalars["type"],
        group,
        scalars["source"],
        scalars["support"],
        scalars["conversation_id"],
        scalars["superseded_by"],
        scalars["created_at"],
        scalars["updated_at"],
        scalars["text"],
        trigger_text,
        json.dumps(body, ensure_ascii=False, sort_keys=True),
    )


_TYPES = {m.value: m for m in RuleType}
_SOURCES = {m.value: m for m in RuleSource}
_STATUSES = {m.value: m for m in RuleStatus}
_KINDS = {m.value: m for m in TriggerKind}


def rule_from_row(row: Sequence[Any]) -> Rule:
    """Inverse of `rule_to_row` (row in RULE_COLUMNS order)."""
    return rules_from_rows([row])[0]


def rules_from_rows(rows: Sequence[Sequence[Any]]) -> list[Rule]:
    """Many rows at once: equal to `Rule.from_dict` of each rule's dict, but built directly
    and with one JSON parse for all bodies, because rule_index loads tens of thousands."""
    last = len(RULE_COLUMNS) - 1
    with gc_paused():
        bodies: list[dict[str, Any]] = json.loads("[" + ",".join(r[last] for r in rows) + "]")
        return [_build(row, rest) for row, rest in zip(rows, bodies, strict=True)]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Loading ~10^5 small objects (rows, rules) triggers repeated full collections that
    scan everything alive, which halves rule_index speed at 50k rules; nothing loaded here
    forms cycles, so collection can wait until the load is done."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _build(row: Sequence[Any], rest: dict[str, Any]) -> Rule:
    (rule_id, namespace, skill, scope_actor, subject, actor, status, type_, group, source,
     support, conversation_id, superseded_by, created_at, updated_at, text, trigger_text,
     _) = row[: len(RULE_COLUMNS)]  # fmt: skip
    trig = rest.pop("trigger")
    numeric = trig.get("numeric")
    trig["kind"] = _KINDS[trig["kind"]]
    trig["numeric"] = NumericCondition(**numeric) if numeric else None
    predicate = trig.get("predicate")
    trig["predicate"] = Predicate(**predicate) if predicate else None  # absent before 2026-12
    return Rule(
        id=rule_id,
        text=text,
        type=_TYPES[type_],
        trigger=Trigger(text=trigger_text, **trig),
        scope=Scope(namespace=namespace, skill=skill, actor=scope_actor, subject=subject),
        source=_SOURCES[source],
        actor=actor,
        group=group,
        status=_STATUSES[status],
        support=support,
        conversation_id=conversation_id,
        created_at=created_at,
        updated_at=updated_at,
        superseded_by=superseded_by,
        **rest,
    )


def session_from_row(row: Sequence[Any]) -> Session:
    """A Session from (namespace, conversation_id, actor, skill, timestamp, source, messages)."""
    namespace, conversation_id, actor, skill, timestamp, source, messages = row
    parsed = [
        Message(
            **{
                **m,
                "tool_calls": [ToolCall(**c) for c in m.get("tool_calls", [])],
                "speaker_role": SpeakerRole(m["speaker_role"]) if m.get("speaker_role") else None,
            }
        )
        for m in json.loads(messages)
    ]
    return Session(
        conversation_id=conversation_id,
        messages=parsed,
        actor=actor,
        skill=skill,
        namespace=namespace,
        timestamp=timestamp,
        source=source,
    )


SESSION_SELECT = "namespace, conversation_id, actor, skill, timestamp, source, messages"


def generation_key(namespace: str) -> str:
    """The meta key of a namespace's generation. A digest, not the name: the key outlives
    drop_namespace (so a value is never reused), and a dropped tenant's name must not."""
    return "generation:" + hashlib.sha256(namespace.encode("utf-8")).hexdigest()[:32]


def vector_to_blob(vector: Vector, *, owner: str) -> tuple[int, bytes]:
    """(dim, bytes) of a 1-D finite float vector; refuses anything else with a clear error."""
    arr = np.asarray(vector, dtype="<f4")
    if arr.ndim != 1 or arr.size == 0:
        raise StoreError(f"vector for {owner!r} must be 1-D and non-empty, got shape {arr.shape}")
    if not bool(np.isfinite(arr).all()):
        raise StoreError(f"vector for {owner!r} contains NaN or infinity")
    return int(arr.size), arr.tobytes()


def blobs_to_matrix(blobs: Sequence[bytes | None], dim: int, *, dtype: str = "<f4") -> Vector:
    """Stack float32 blobs (little-endian, or `dtype=">f4"` for PostgreSQL's binary format)
    into an (n, dim) matrix in one copy; None becomes a zero row."""
    zero = bytes(4 * dim)
    joined = bytearray().join(b if b is not None else zero for b in blobs)
    if len(joined) != 4 * dim * len(blobs):
        raise StoreError(
            f"stored vectors have mixed dimensions (expected {dim}); re-embed the store"
        )
    matrix = np.frombuffer(joined, dtype=dtype).reshape(len(blobs), dim)
    return matrix.astype(np.float32, copy=False)  # no copy on little-endian machines


def fill_vectors(
    rows: Iterable[tuple[int, bytes | None, bytes | None]],
    position: dict[int, int],
    dim: int,
    *,
    dtype: npt.DTypeLike = np.float32,
    wire: str = "<f4",
    chunk: int = 4096,
    keep: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None = None,
) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """Text and trigger matrices from (row key, text blob, trigger blob) rows in any order,
    row `position[key]` each, converted a chunk at a time: the blobs of a whole rulebook are
    never held at once (at 100,000 rules they would double the peak memory of a load).

    With `keep` (a `packed.kept_rows` array per matrix, by position), each matrix has a zero
    row, then only the kept rows, row `keep[position[key]]` each: vectors nobody compares
    are never converted nor held."""
    n = len(position)
    if keep is None:
        text_at = trigger_at = np.arange(n, dtype=np.int64)
        shapes = (n, n)
    else:
        text_at, trigger_at = keep
        shapes = (int(text_at.max(initial=0)) + 1, int(trigger_at.max(initial=0)) + 1)
    text = np.zeros((shapes[0], dim), dtype=dtype)
    trigger = np.zeros((shapes[1], dim), dtype=dtype)
    batch: list[tuple[int, bytes | None, bytes | None]] = []
    floor = -1 if keep is None else 0  # kept rows start at 1; row 0 stays zero

    def put(matrix: npt.NDArray[Any], at: npt.NDArray[np.int64], blobs: list[bytes | None]) -> None:
        wanted = np.flatnonzero(at > floor)
        if wanted.size:
            matrix[at[wanted]] = blobs_to_matrix([blobs[j] for j in wanted], dim, dtype=wire)

    def flush() -> None:
        pos = np.fromiter((position[key] for key, _, _ in batch), dtype=np.int64, count=len(batch))
        put(text, text_at[pos], [t for _, t, _ in batch])
        put(trigger, trigger_at[pos], [g for _, _, g in batch])
        batch.clear()

    for row in rows:
        batch.append(row)
        if len(batch) >= chunk:
            flush()
    if batch:
        flush()
    return text, trigger


def _mentions(value: Any, needle: str) -> bool:
    if isinstance(value, str):
        return needle in value
    if isinstance(value, dict):
        return any(_mentions(k, needle) or _mentions(v, needle) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_mentions(v, needle) for v in value)
    return False


def orphaned(rule: Rule, dead_evidence: Iterable[str]) -> bool:
    """The rule rests on evidence and every piece of it is being deleted: nothing is left to
    support it (a person's rule without evidence, e.g. a manual one, is never orphaned)."""
    dead = set(dead_evidence)
    return bool(rule.evidence_ids) and all(e in dead for e in rule.evidence_ids)


def scrub_actor(
    rule: Rule,
    actor: str,
    *,
    evidence_ids: Iterable[str] = (),
    node_ids: Iterable[str] = (),
    conversation_ids: Iterable[str] = (),
) -> bool:
    """Remove what a forgotten actor left in a rule they did not author, in place.

    Drops them from `supporters` (one support less per entry, never below 1: the rule's own
    origin still stands), drops history entries that mention them or their conversations, and
    clears references to their deleted evidence, nodes and sessions; a rule no one authored (a
    tool lesson) loses one support per deleted piece of evidence. Returns whether anything
    changed.
    """
    dead_evidence, dead_nodes = set(evidence_ids), set(node_ids)
    dead_conversations = set(conversation_ids)
    changed = False
    removed = rule.supporters.count(actor)
    if removed:
        rule.supporters = [s for s in rule.supporters if s != actor]
        rule.support = max(1, rule.support - removed)
        changed = True
    history = [
        h
        for h in rule.history
        if not _mentions(h, actor) and h.get("conversation") not in dead_conversations
    ]
    if len(history) != len(rule.history):
        rule.history = history
        changed = True
    kept = [e for e in rule.evidence_ids if e not in dead_evidence]
    if len(kept) != len(rule.evidence_ids):
        if rule.actor is None:  # no one said it: its support counts the sightings
            rule.support = max(1, rule.support - (len(rule.evidence_ids) - len(kept)))
        rule.evidence_ids = kept
        changed = True
    if rule.conversation_id is not None and rule.conversation_id in dead_conversations:
        rule.conversation_id = None
        changed = True
    if rule.trigger.node_id is not None and rule.trigger.node_id in dead_nodes:
        rule.trigger.node_id = None
        changed = True
    return changed


__all__ = [
    "RULE_COLUMNS",
    "SESSION_SELECT",
    "blobs_to_matrix",
    "fill_vectors",
    "gc_paused",
    "generation_key",
    "orphaned",
    "rule_from_row",
    "rule_to_row",
    "rules_from_rows",
    "scrub_actor",
    "session_from_row",
    "vector_to_blob",
]
