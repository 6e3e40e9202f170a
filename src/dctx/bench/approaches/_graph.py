"""The typed-graph memory behind `hybrid_raw` and `lucid_dc` (paper, section 4.1).

Seed sessions become decision nodes with node and accumulated embeddings (capture/graph.py),
written with their edges to a SQLite store in the scenario's scratch folder. Each user turn
holding a human correction (capture/corrections.py; no self-assessment here) is stored raw, as
CORRECTION evidence carrying the user's own words, and linked by INFORMED_BY edges from the
decision it corrected and from the tool calls whose results that decision read. Nothing is
compiled: what comes back is the correction as said, with the decision it corrected, one
correction chain (split at acceptances) per unit so the agent sees how it evolved.

Retrieval is the shared hybrid search over nodes: BM25 over node text and cosine as
0.7 * node + 0.3 * accumulated similarity (`Store.search_nodes`), fused by RRF, then
multiplicative boosts for the querying actor, a subject named in the query and nodes that a
correction is attached to. Memory is per agent skill: a skill never sees another's nodes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dctx.bench.approaches._search import BM25Ranker
from dctx.bench.approaches.doc_chunk import readout
from dctx.bench.schema import SeedSession
from dctx.capture.base import Aftermath, CorrectionSignal
from dctx.capture.corrections import find_corrections
from dctx.capture.graph import SessionGraph, build_graph, node_vectors
from dctx.capture.parse import parse_messages
from dctx.models import (
    DEFAULT_NAMESPACE,
    DecisionNode,
    Edge,
    EdgeType,
    Evidence,
    EvidenceKind,
    Session,
    new_id,
)
from dctx.providers.base import Embedder, Vector
from dctx.retrieve.engine import CALIBRATIONS, DEFAULT_CALIBRATION
from dctx.retrieve.fusion import rrf
from dctx.store.base import CaptureBatch, Store
from dctx.store.registry import open_store

ACTOR_BOOST = 1.2  # the querying actor's own history
SUBJECT_BOOST = 1.2  # a node about a subject the query names
CORRECTED_BOOST = 1.5  # a node a correction is attached to (a "corrected document")
DECISION_CHARS = 300  # how much of the corrected decision a unit quotes
NODE_WEIGHT = 0.7  # cosine mix, as Store.search_nodes: 0.7 * node + 0.3 * accumulated

ChainKey = tuple[str, int]  # (conversation id, chain number)


@dataclass(slots=True)
class Correction:
    """One user turn that corrected the agent, as said, with the decision it corrected."""

    evidence_id: str
    actor: str
    timestamp: str
    said: str
    decision: str


@dataclass(slots=True)
class Chain:
    """The corrections of one chain, oldest first."""

    key: ChainKey
    skill: str
    corrections: list[Correction] = field(default_factory=list)

    def render(self) -> str:
        first = self.corrections[0]
        lines = [f"Past correction from {first.actor} ({first.timestamp[:10]}):"]
        for c in self.corrections:
            lines.append(f"Agent: {_clip(c.decision)}")
            lines.append(f"{c.actor}: {c.said.strip()}")
        return "\n".join(lines)


def _clip(text: str, limit: int = DECISION_CHARS) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def to_session(seed: SeedSession) -> Session:
    return parse_messages(
        [dict(m) for m in seed.messages],
        conversation_id=seed.conversation_id,
        actor=seed.actor,
        skill=seed.skill,
        namespace=DEFAULT_NAMESPACE,
        timestamp=seed.timestamp,
    )


def step_text(call: dict[str, Any], result: str) -> str:
    """A tool step in the text form `build_graph` gives tool-call nodes."""
    args = json.dumps(call.get("arguments") or {}, ensure_ascii=False, sort_keys=True)
    return f"call {call.get('name', '')}({args}) -> {result[:500]}"


class GraphMemory:
    """One scenario's typed graph of the seed sessions and their raw human corrections."""

    def __init__(self, workdir: Path, embedder: Embedder) -> None:
        self.embedder = embedder
        self.store: Store = open_store(str(workdir / "graph.db"))
        self.store.set_embedder_id(embedder.id)
        self.calibration = CALIBRATIONS.get(embedder.id, DEFAULT_CALIBRATION)
        self.sessions: list[Session] = []
        self.nodes: list[DecisionNode] = []
        self.vectors: dict[str, tuple[Vector, Vector]] = {}
        self.chains: dict[ChainKey, Chain] = {}
        self.chain_of: dict[str, ChainKey] = {}  # correction evidence id -> its chain
        self.turn_node: dict[str, str] = {}  # correction evidence id -> the user node saying it

    # ------------------------------------------------------------------ capture
    def capture(self, seed: Sequence[SeedSession]) -> None:
        self.sessions = [to_session(s) for s in seed]
        batch = CaptureBatch(sessions=list(self.sessions))
        last_of: dict[str, str] = {}  # actor -> their latest session node
        for session in sorted(self.sessions, key=lambda s: s.timestamp):
            signals = find_corrections(session)
            graph = build_graph(session, signals[-1].subjects if signals else [])
            if session.actor in last_of:
                batch.edges.append(
                    Edge(last_of[session.actor], EdgeType.FOLLOWED_BY, graph.session_node)
                )
            last_of[session.actor] = graph.session_node
            batch.nodes.extend(graph.nodes)
            batch.edges.extend(graph.edges)
            batch.evidence.extend(graph.evidence)
            self._attach(session, graph, signals, batch)
        if batch.nodes:
            self.vectors = node_vectors(self.embedder, batch.nodes)
            batch.node_vectors.update(self.vectors)
        self.store.write(batch)
        self.nodes = batch.nodes

    def _attach(
        self,
        session: Session,
        graph: SessionGraph,
        signals: Sequence[CorrectionSignal],
        batch: CaptureBatch,
    ) -> None:
        """One CORRECTION evidence per correcting user turn, with its INFORMED_BY edges."""
        turns: dict[int, list[CorrectionSignal]] = {}
        for sig in signals:
            turns.setdefault(sig.message_index, []).append(sig)
        for index, sigs in turns.items():
            before = [n for n in graph.nodes if n.message_index < index]
            if not any(n.kind != "user" for n in before):
                continue  # said before any agent output: an instruction, not a correction
            corrected = before[-1]
            last_user = max((n.position for n in before if n.kind == "user"), default=-1)
            calls = [n for n in before if n.kind == "tool_call"]
            # the results the corrected decision read: this turn's calls, else the latest one
            informing = [n for n in calls if n.position > last_user] or calls[-1:]
            withdrawal = all(s.aftermath is Aftermath.WITHDRAWAL for s in sigs)
            ev = Evidence(
                id=new_id("ev"),
                kind=EvidenceKind.WITHDRAWAL if withdrawal else EvidenceKind.CORRECTION,
                namespace=session.namespace,
                conversation_id=session.conversation_id,
                actor=session.actor,
                message_index=index,
                text=sigs[0].raw,
                timestamp=session.timestamp,
                source=session.source,
                node_id=corrected.id,
            )
            batch.evidence.append(ev)
            for node_id in dict.fromkeys([corrected.id, *(n.id for n in informing)]):
                batch.edges.append(Edge(node_id, EdgeType.INFORMED_BY, ev.id))
            key = (session.conversation_id, min(s.chain for s in sigs))
            chain = self.chains.setdefault(key, Chain(key, session.skill))
            chain.corrections.append(
                Correction(
                    ev.id,
                    session.actor,
                    session.timestamp,
                    sigs[0].raw,
                    sigs[0].previous_output or corrected.text,
                )
            )
            self.chain_of[ev.id] = key
            self.turn_node[ev.id] = graph.node_at[index]

    # ------------------------------------------------------------------ reads
    def has_corrections(self, skill: str) -> bool:
        return any(c.skill == skill for c in self.chains.values())

    def chains_at(self, node_ids: Sequence[str]) -> dict[str, list[ChainKey]]:
        """Per node, the chains of the corrections it is linked to: by its INFORMED_BY edges,
        or as the user turn that said the correction."""
        out: dict[str, list[ChainKey]] = {n: [] for n in node_ids}
        said = {node: ev for ev, node in self.turn_node.items()}
        for node in node_ids:
            found = [e.dst for e in self.store.edges(src=node) if e.type is EdgeType.INFORMED_BY]
            if node in said:
                found.append(said[node])
            out[node] = list(dict.fromkeys(self.chain_of[e] for e in found if e in self.chain_of))
        return out

    def correction_readout(self, skill: str) -> str | None:
        """The global readout: per action, uses and how many of them a correction followed."""
        calls = [n for n in self.nodes if n.skill == skill and n.kind == "tool_call" and n.tool]
        linked = self.chains_at([n.id for n in calls])
        rates: dict[str, tuple[int, int]] = {}
        for n in calls:
            assert n.tool is not None
            corrected, uses = rates.get(n.tool, (0, 0))
            rates[n.tool] = (corrected + (1 if linked[n.id] else 0), uses + 1)
        if not any(c for c, _ in rates.values()):
            return None
        return readout(rates)

    def precedents(self, *, actor: str, skill: str, query: str) -> list[Chain]:
        """Correction chains attached to the best-matching nodes of the skill's graph."""
        nodes = [n for n in self.nodes if n.skill == skill]
        if not nodes or not self.has_corrections(skill):
            return []
        qv = self.embedder.embed([query])[0]
        hits = self.store.search_nodes(DEFAULT_NAMESPACE, qv, limit=len(self.nodes))
        cos = {n.id: s for n, s in hits if n.skill == skill}
        cos_rank = [nid for nid in cos]  # best first, as the store returns them
        bm_rank = [nodes[i].id for i in BM25Ranker([n.text for n in nodes]).ranking(query)]
        fused = rrf([bm_rank, cos_rank])
        linked = self.chains_at(list(fused))
        low = query.lower()
        by_id = {n.id: n for n in nodes}

        def boosted(nid: str) -> float:
            node = by_id[nid]
            score = fused[nid]
            if node.actor == actor:
                score *= ACTOR_BOOST
            if node.subject and node.subject.lower() in low:
                score *= SUBJECT_BOOST
            if linked[nid]:
                score *= CORRECTED_BOOST
            return score

        ranked = sorted(fused, key=lambda n: -boosted(n))
        keys = [k for nid in ranked[: self.calibration.top_k] for k in linked[nid]]
        return [self.chains[k] for k in dict.fromkeys(keys)]

    def informed_by(self, *, skill: str, tool: str, step: Vector, run: Vector) -> list[Chain]:
        """The per-tool-call lookup: stored calls of the same tool whose node embedding matches
        this step and whose accumulated embedding matches the run so far lead, through their
        INFORMED_BY edges, to the corrections their results informed."""
        calls = [n for n in self.nodes if n.skill == skill and n.kind == "tool_call"]
        calls = [n for n in calls if n.tool == tool]
        linked = self.chains_at([n.id for n in calls])
        scored: list[tuple[float, str]] = []
        for n in calls:
            if not linked[n.id]:
                continue
            node_vec, acc_vec = self.vectors[n.id]
            sim = NODE_WEIGHT * float(node_vec @ step) + (1 - NODE_WEIGHT) * float(acc_vec @ run)
            if sim >= self.calibration.step_floor:
                scored.append((sim, n.id))
        best = sorted(scored, key=lambda sn: -sn[0])[: self.calibration.top_k]
        keys = [k for _, nid in best for k in linked[nid]]
        return [self.chains[k] for k in dict.fromkeys(keys)]

    def close(self) -> None:
        self.store.close()


class RunTrace:
    """The run so far as decision nodes, embedded the way seed nodes are (node + accumulated),
    so a live step compares stage to stage with the stored ones."""

    def __init__(self, embedder: Embedder, *, actor: str, skill: str, query: str) -> None:
        self.embedder = embedder
        self.actor = actor
        self.skill = skill
        self.nodes: list[DecisionNode] = []
        self._add("user", f"user: {query}", None)

    def _add(self, kind: str, text: str, tool: str | None) -> DecisionNode:
        node = DecisionNode(
            id=new_id("node"),
            conversation_id="run",
            namespace=DEFAULT_NAMESPACE,
            actor=self.actor,
            skill=self.skill,
            position=len(self.nodes),
            kind=kind,  # type: ignore[arg-type]
            text=text,
            accumulated="",
            message_index=len(self.nodes),
            tool=tool,
        )
        self.nodes.append(node)
        return node

    def step(self, call: dict[str, Any], result: str) -> tuple[Vector, Vector]:
        """Add a tool step; return its node embedding and the run's accumulated embedding."""
        node = self._add("tool_call", step_text(call, result), str(call.get("name", "")))
        return node_vectors(self.embedder, self.nodes)[node.id]
