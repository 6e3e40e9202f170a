"""The store interface: a typed graph of sessions, decision nodes, evidence, edges and rules.

Every backend (SQLite embedded, PostgreSQL + pgvector) implements `Store` and passes the one
contract suite in tests/store/. SQL dialects stay inside `store/<backend>.py`.

Vectors are float32, L2-normalized, of the store's embedder dimension. Which embedder made
them is recorded once per store (`embedder_id`); writing vectors of another embedder raises
`EmbedderMismatchError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from dctx.models import (
    DecisionNode,
    Edge,
    Evidence,
    Rule,
    RuleEvent,
    RuleEventKind,
    RuleStatus,
    Session,
)

if TYPE_CHECKING:  # packed.py reads rows with _rows.py, which imports this module
    from dctx.store.packed import PackedRules

Vector = npt.NDArray[np.float32]


@dataclass(slots=True)
class CaptureBatch:
    """Everything one capture writes, applied in one transaction (all or nothing)."""

    sessions: list[Session] = field(default_factory=list)
    nodes: list[DecisionNode] = field(default_factory=list)
    node_vectors: dict[str, tuple[Vector, Vector]] = field(default_factory=dict)  # node, accum
    evidence: list[Evidence] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)  # inserted or replaced by id
    rule_vectors: dict[str, tuple[Vector, Vector]] = field(default_factory=dict)  # text, trigger


@dataclass(slots=True)
class TranscriptFile:
    """How far one transcript file on disk has been captured, so a re-run learns only what
    is new: the file as last seen (size, mtime, content hash) and, per session in it, how many
    messages were captured and a digest of them (a session that grew continues from there)."""

    namespace: str
    client: str  # the reader ("claude-code", "codex", "aider")
    path: str  # absolute path of the file
    actor: str  # whose transcript it is (forget_actor removes the record)
    size: int
    mtime_ns: int
    sha256: str
    sessions: dict[str, tuple[int, str]] = field(default_factory=dict)  # conv -> (n, digest)
    captured_at: str = ""


@dataclass(slots=True)
class RuleIndex:
    """A read-optimized snapshot of the rules visible in one namespace, for retrieval.

    Row i of `text_vectors` / `trigger_vectors` belongs to `rules[i]`. Retrieval caches this
    per `generation` so a decision point costs one matrix product, not a query per rule.
    Read with `packed=True`, the rules come as compact columns in `packed` (row i there) and
    `rules` is empty: no Python object per rule for a long-lived snapshot. Such an index has
    `compact_vectors`: each matrix holds a zero row, then only the vectors retrieval compares
    (`packed.vector_needs`), rule i's at row `packed.kept_rows(...)[i]`.
    """

    generation: int
    rules: list[Rule]
    text_vectors: npt.NDArray[Any]  # shape (n, dim), float32 unless asked otherwise
    trigger_vectors: npt.NDArray[Any]  # shape (n, dim)
    seqs: list[int] = field(default_factory=list)  # the backend's row key of each rule
    cursor: int = 0  # where in the store's rule change log this index was read
    packed: PackedRules | None = None
    compact_vectors: bool = False


@dataclass(slots=True)
class RuleChanges:
    """What changed in a namespace's rules since a `RuleIndex` was read (`Store.rule_changes`).

    `changed` lists the row keys touched since (inserted, updated, deleted, moved, vectors
    rewritten): a holder drops those rows, then adds `index.rules` (or `index.packed`), the
    current state of those that still match the namespace and statuses. Applying it twice is
    harmless.
    """

    changed: list[int]
    index: RuleIndex  # generation and cursor: the new position


@runtime_checkable
class Store(Protocol):
    """Persistence for dctx. All methods are safe to call from several processes."""

    url: str

    # --- lifecycle -------------------------------------------------------
    def migrate(self) -> list[str]:
        """Apply pending named migration steps; return the names applied."""
        ...

    def close(self) -> None: ...

    # --- embedder identity ----------------------------------------------
    def embedder_id(self) -> str | None:
        """The embedder that made this store's vectors, or None for an empty store."""
        ...

    def set_embedder_id(self, embedder_id: str, *, force: bool = False) -> None:
        """Record the embedder. Raises EmbedderMismatchError if another one is recorded,
        unless `force` (used by re-embed, which rewrites every vector)."""
        ...

    # --- writes ----------------------------------------------------------
    def transaction(self) -> AbstractContextManager[None]:
        """Exclusive write transaction; nested calls join the outer one. On any exception
        nothing of it is written."""
        ...

    def write(self, batch: CaptureBatch) -> None:
        """Apply a capture batch atomically (joins an open transaction if there is one)."""
        ...

    def set_rule_status(self, rule_id: str, status: RuleStatus, *, note: str = "") -> Rule:
        """Change status and append to the rule's history. Raises NotFoundError."""
        ...

    def delete_rule(self, rule_id: str) -> None:
        """Remove a rule, its vectors, its edges. Raises NotFoundError."""
        ...

    def forget_actor(self, namespace: str, actor: str) -> dict[str, int]:
        """Delete every row derived from the actor in the namespace (sessions, nodes, evidence,
        edges, rules they authored, vectors, caches); remove them from supporters of shared
        rules. Returns counts per table."""
        ...

    def drop_namespace(self, namespace: str) -> dict[str, int]: ...

    # --- reads -----------------------------------------------------------
    def get_rule(self, rule_id: str) -> Rule:
        """Raises NotFoundError."""
        ...

    def list_rules(
        self,
        *,
        namespace: str | None = None,
        actor: str | None = None,
        skill: str | None = None,
        statuses: Sequence[RuleStatus] | None = None,
    ) -> list[Rule]:
        """Rules filtered by author actor / scope skill / status, oldest first."""
        ...

    def get_evidence(self, ids: Sequence[str]) -> list[Evidence]: ...

    def get_sessions(self, namespace: str, conversation_ids: Sequence[str]) -> list[Session]:
        """The stored sessions of a namespace with these conversation ids (absent ones are
        left out); capture compares them to tell a re-capture from a new conversation."""
        ...

    def get_nodes(self, ids: Sequence[str]) -> list[DecisionNode]: ...

    def edges(self, *, src: str | None = None, dst: str | None = None) -> list[Edge]: ...

    def search_text(
        self, namespace: str, query: str, limit: int = 50, *, skill: str | None = None
    ) -> list[tuple[str, float]]:
        """BM25 full-text search over rule text + trigger text; (rule_id, score) best first,
        higher score = better. With `skill`, only rules scoped to it or to no skill."""
        ...

    def search_nodes(
        self, namespace: str, vector: Vector, limit: int = 20
    ) -> list[tuple[DecisionNode, float]]:
        """Nearest decision nodes by 0.7 * node + 0.3 * accumulated cosine."""
        ...

    def rule_index(
        self,
        namespace: str,
        statuses: Sequence[RuleStatus],
        *,
        dtype: npt.DTypeLike = np.float32,
        packed: bool = False,
    ) -> RuleIndex:
        """Snapshot of the rules (with vectors) in a namespace with the given statuses, oldest
        first; `dtype` float16 halves the vectors' memory for a long-lived retrieval snapshot,
        `packed` gives the rules as `PackedRules` columns instead of `Rule` objects."""
        ...

    def rule_changes(
        self,
        namespace: str,
        statuses: Sequence[RuleStatus],
        cursor: int,
        *,
        dtype: npt.DTypeLike = np.float32,
        packed: bool = False,
    ) -> RuleChanges | None:
        """The rules changed since `cursor` (a `RuleIndex.cursor`), or None when the change
        log no longer reaches back that far (read a full `rule_index` then)."""
        ...

    def generation(self, namespace: str) -> int:
        """A counter that changes whenever anything in the namespace's rules changes."""
        ...

    def count_rows(self) -> dict[str, int]:
        """Rows per table; used by deletion tests and `dctx copy` checks."""
        ...

    # --- transcript files (incremental capture) ---------------------------
    def transcript_files(
        self, namespace: str, client: str, *, path: str | None = None
    ) -> dict[str, TranscriptFile]:
        """What was captured from each transcript file of a client (or the one at `path`),
        by path."""
        ...

    def put_transcript_file(self, record: TranscriptFile) -> None:
        """Insert or replace the record of one file (joins an open transaction)."""
        ...

    # --- role policies (who may teach; capture/roles.py) -------------------
    def role_policies(self, namespace: str) -> dict[str | None, dict[str, Any]]:
        """The role policies set in a namespace, as JSON, by skill (None: namespace-wide)."""
        ...

    def put_role_policy(
        self, namespace: str, skill: str | None, policy: dict[str, Any] | None
    ) -> None:
        """Set (or, with None, remove) the policy of a namespace or of one skill in it;
        drop_namespace removes them too."""
        ...

    # --- rule events (outcome tracking) ----------------------------------
    def add_rule_events(self, events: Sequence[RuleEvent]) -> None:
        """Append events (joins an open transaction). A second delivery, or a second outcome
        of one kind, of the same rule in the same run is ignored. Rules are not touched, so
        the namespace's generation (and every cached rule index) stays as it was."""
        ...

    def rule_events(
        self,
        namespace: str,
        *,
        rule_ids: Sequence[str] | None = None,
        runs: Sequence[str] | None = None,
        kinds: Sequence[RuleEventKind] | None = None,
    ) -> list[RuleEvent]:
        """A namespace's events, oldest first; `runs` matches a run or conversation id."""
        ...

    def rule_event_tally(self, namespace: str) -> dict[str, dict[RuleEventKind, tuple[int, str]]]:
        """Per rule id and event kind: how many events and when the latest was (`at`), so
        health and staleness reports need no scan of every delivery."""
        ...

    # --- caches (LLM results by input hash) -------------------------------
    def cache_get(self, key: str) -> str | None: ...

    def cache_put(self, key: str, value: str, *, namespace: str, actor: str | None) -> None: ...
