"""Turn a session into typed-graph records: decision nodes, edges, tool-failure evidence.

Each user turn, assistant answer and tool call (with its result) is a decision node. A node's
`accumulated` text is the session up to it, so a later run can be matched stage-to-stage.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from dctx.capture.tool_errors import classify_error, is_error
from dctx.models import (
    DecisionNode,
    Edge,
    EdgeType,
    Evidence,
    EvidenceKind,
    Message,
    Session,
    new_id,
)
from dctx.providers.base import Embedder, Vector

ACCUMULATED_CHARS = 2000  # the tail of the session kept as a node's accumulated content
EMBED_CHARS = 400  # what of a node's own text is embedded (the encoder reads ~256 tokens)
ACCUMULATION_DECAY = 0.7  # weight kept by earlier content at each new node


@dataclass(slots=True)
class SessionGraph:
    nodes: list[DecisionNode] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    node_at: dict[int, str] = field(default_factory=dict)  # message index -> node id
    session_node: str = ""


def actor_id(namespace: str, actor: str) -> str:
    return f"actor:{namespace}:{actor}"


def subject_id(namespace: str, subject: str) -> str:
    return f"subject:{namespace}:{subject.lower()}"


def session_id(namespace: str, conversation_id: str) -> str:
    return f"session:{namespace}:{conversation_id}"


def build_graph(session: Session, subjects: list[str]) -> SessionGraph:
    graph = SessionGraph(session_node=session_id(session.namespace, session.conversation_id))
    results = {m.tool_call_id: m for m in session.messages if m.role == "tool" and m.tool_call_id}
    acc: list[str] = []
    prev: str | None = None
    position = 0
    for msg in session.messages:
        if msg.role in ("system", "tool"):
            continue
        steps = _steps(msg, results)
        for kind, text, tool, result in steps:
            acc.append(text)
            node = DecisionNode(
                id=new_id("node"),
                conversation_id=session.conversation_id,
                namespace=session.namespace,
                actor=session.actor,
                skill=session.skill,
                position=position,
                kind=kind,  # type: ignore[arg-type]
                text=text[:2000],
                accumulated="\n".join(acc)[-ACCUMULATED_CHARS:],
                message_index=msg.index,
                tool=tool,
                subject=_subject_of(text, subjects),
            )
            position += 1
            graph.nodes.append(node)
            graph.node_at.setdefault(msg.index, node.id)
            graph.edges.append(
                Edge(actor_id(session.namespace, session.actor), EdgeType.MADE, node.id)
            )
            if node.subject:
                graph.edges.append(
                    Edge(node.id, EdgeType.ABOUT, subject_id(session.namespace, node.subject))
                )
            if prev is not None:
                graph.edges.append(Edge(prev, EdgeType.LED_TO, node.id))
            prev = node.id
            if result is not None and is_error(result.content, flagged=result.is_error):
                ev = Evidence(
                    id=new_id("ev"),
                    kind=EvidenceKind.TOOL_FAILURE,
                    namespace=session.namespace,
                    conversation_id=session.conversation_id,
                    actor=session.actor,
                    message_index=result.index,
                    text=json.dumps(
                        {
                            "tool": tool,
                            "error_class": classify_error(result.content).value,
                            "result": result.content[:300],
                        },
                        ensure_ascii=False,
                    ),
                    timestamp=session.timestamp,
                    source=session.source,
                    node_id=node.id,
                )
                graph.evidence.append(ev)
                graph.edges.append(Edge(node.id, EdgeType.PRODUCED, ev.id))
    if graph.nodes:
        graph.edges.append(Edge(graph.session_node, EdgeType.HAS_SUMMARY, graph.nodes[0].id))
    return graph


def _steps(
    msg: Message, results: dict[str, Message]
) -> list[tuple[str, str, str | None, Message | None]]:
    if msg.role == "user":
        return [("user", f"user: {msg.content}", None, None)]
    out: list[tuple[str, str, str | None, Message | None]] = []
    if msg.content:
        out.append(("assistant", f"assistant: {msg.content}", None, None))
    for call in msg.tool_calls:
        result = results.get(call.id)
        args = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
        text = f"call {call.name}({args})"
        if result is not None:
            text += f" -> {result.content[:500]}"
        out.append(("tool_call", text, call.name, result))
    return out


def _subject_of(text: str, subjects: list[str]) -> str | None:
    low = text.lower()
    for s in subjects:
        if s.lower() in low:
            return s
    return None


def node_vectors(
    embedder: Embedder, nodes: Sequence[DecisionNode]
) -> dict[str, tuple[Vector, Vector]]:
    """Node embedding and accumulated embedding for each node.

    The accumulated embedding is the decayed running mean of the session's node embeddings up
    to the node (renormalized): content up to that node, at one encoder pass per node instead
    of re-encoding an ever longer prefix.
    """
    vecs = embedder.embed([n.text[:EMBED_CHARS] for n in nodes])
    out: dict[str, tuple[Vector, Vector]] = {}
    acc: dict[str, Vector] = {}
    for node, vec in zip(nodes, vecs, strict=True):
        prev = acc.get(node.conversation_id)
        run = vec if prev is None else ACCUMULATION_DECAY * prev + (1 - ACCUMULATION_DECAY) * vec
        norm = float((run @ run) ** 0.5) or 1.0
        acc[node.conversation_id] = run
        out[node.id] = (vec, (run / norm).astype("float32"))
    return out
