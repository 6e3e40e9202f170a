"""`dctx reembed`: switch a store to another embedder by re-embedding everything it holds.

A store records the embedder that made its vectors and refuses vectors of any other
(EmbedderMismatchError). Re-embedding computes new vectors for every rule (text and trigger)
and every decision node (node and accumulated) first, then writes them and the new embedder
id in one transaction: an interrupted or failed run leaves the store as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from dctx.capture.graph import node_vectors
from dctx.cli import _common as c
from dctx.models import DecisionNode, EdgeType, Rule
from dctx.providers.base import Embedder, Vector
from dctx.store.base import CaptureBatch, Store

BATCH = 64  # texts per embed call (one progress step)


@dataclass(slots=True)
class ReembedReport:
    old: str | None
    new: str
    rules: int
    nodes: int


def store_nodes(store: Store) -> list[DecisionNode]:
    """Every decision node of the store, grouped by session and in order (every node has a
    MADE edge from its actor; see capture/graph.py)."""
    ids = sorted({e.dst for e in store.edges() if e.type is EdgeType.MADE})
    nodes = store.get_nodes(ids)
    return sorted(nodes, key=lambda n: (n.namespace, n.conversation_id, n.position))


def reembed(
    store: Store,
    embedder: Embedder,
    *,
    on_progress: Callable[[int, int], None] | None = None,
) -> ReembedReport:
    """Re-embed every rule and node of `store` with `embedder`, then record its id.

    `on_progress(done, total)` is called as texts are embedded (counted in texts).
    """
    rules = store.list_rules()
    nodes = store_nodes(store)
    texts = [t for r in rules for t in (r.text, r.trigger.text or r.text)]
    total = len(texts) + len(nodes)
    done = 0

    def tick(n: int) -> None:
        nonlocal done
        done += n
        if on_progress is not None:
            on_progress(done, total)

    tick(0)
    rule_matrix = _embed_batched(embedder, texts, tick)
    batch = CaptureBatch(rule_vectors=_rule_vectors(rules, rule_matrix))
    sessions: dict[tuple[str, str], list[DecisionNode]] = {}
    for node in nodes:
        sessions.setdefault((node.namespace, node.conversation_id), []).append(node)
    for group in sessions.values():  # accumulated vectors run over one session at a time
        batch.node_vectors.update(node_vectors(embedder, group))
        tick(len(group))
    old = store.embedder_id()
    with store.transaction():
        store.set_embedder_id(embedder.id, force=True)
        store.write(batch)
    return ReembedReport(old=old, new=embedder.id, rules=len(rules), nodes=len(nodes))


def _embed_batched(embedder: Embedder, texts: Sequence[str], tick: Callable[[int], None]) -> Vector:
    import numpy as np

    parts = []
    for i in range(0, len(texts), BATCH):
        chunk = list(texts[i : i + BATCH])
        parts.append(embedder.embed(chunk))
        tick(len(chunk))
    if not parts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return np.vstack(parts).astype(np.float32)


def _rule_vectors(rules: Sequence[Rule], matrix: Vector) -> dict[str, tuple[Vector, Vector]]:
    return {r.id: (matrix[2 * i], matrix[2 * i + 1]) for i, r in enumerate(rules)}


def reembed_command(
    ctx: typer.Context,
    embedder: Annotated[
        str,
        typer.Option(
            "--embedder",
            help="The new embedder: minilm, hashing, or 'provider:model' such as "
            "openai:text-embedding-3-small.",
            show_default=False,
        ),
    ],
    as_json: c.JsonOption = False,
    db: c.DbOption = None,
) -> None:
    """Re-embed every rule and decision node of a store with another embedder.

    Run it when the store was built with one embedder and you want to use another (the error
    "vectors were made by embedder ..." says so). Everything is written in one transaction.

    Examples:

        dctx reembed --embedder minilm

        dctx --db team.db reembed --embedder openai:text-embedding-3-small
    """
    from dctx.providers.embedders import get_embedder
    from dctx.store.registry import open_store

    cfg = c.settings(ctx, db)
    new = get_embedder(embedder)
    with (
        c.closing(open_store(cfg.db)) as store,
        Progress(
            TextColumn("re-embedding"),
            BarColumn(),
            MofNCompleteColumn(),
            console=c.err_console(),
            transient=True,
            disable=as_json or not c.err_console().is_terminal,
        ) as progress,
    ):
        task = progress.add_task("re-embedding", total=None)
        report = reembed(
            store, new, on_progress=lambda d, t: progress.update(task, completed=d, total=t)
        )
    if as_json:
        c.print_json(
            {"old": report.old, "new": report.new, "rules": report.rules, "nodes": report.nodes}
        )
        return
    c.console().print(
        f"Re-embedded {report.rules} rules and {report.nodes} decision nodes with {report.new} "
        f"(was {report.old or 'none'}).",
        markup=False,
    )
