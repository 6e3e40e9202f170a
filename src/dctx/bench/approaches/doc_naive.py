"""`doc_naive`: naive RAG over the seed traces (paper, section 4.1).

Every seed session is split at tool-call boundaries and chunked; at DP0 the top-5 chunks for
the query (BM25 + cosine fused by RRF) are injected as raw "relevant past context" in the
system prompt. No annotation, no scoping, nothing between tool calls.
"""

from __future__ import annotations

from collections.abc import Sequence

from dctx.bench.approaches._search import HybridIndex
from dctx.bench.approaches._trace import Turn, chunk, render, turns
from dctx.bench.approaches.base import ApproachContext, NullApproach
from dctx.bench.schema import SeedSession
from dctx.models import Unit

TOP_K = 5
HEADER = "Relevant past context:"


def chunk_text(part: Sequence[Turn]) -> str:
    """A chunk as raw transcript text."""
    return "\n".join(r for r in (render(t) for t in part) if r)


class DocNaive(NullApproach):
    def __init__(self, ctx: ApproachContext) -> None:
        self.ctx = ctx
        self.chunks: list[str] = []

    def capture(self, seed: Sequence[SeedSession]) -> None:
        for session in seed:
            for part in chunk(turns(session.messages)):
                text = chunk_text(part)
                if text.strip():
                    self.chunks.append(text)

    def start(self, actor: str, skill: str, query: str, tools: Sequence[str]) -> list[Unit]:
        if not self.chunks:
            return []
        index = HybridIndex(self.chunks, self.ctx.embedder)
        return [
            Unit(text=f"{HEADER}\n{self.chunks[i]}", channel="system")
            for i in index.search(query, TOP_K)
        ]
