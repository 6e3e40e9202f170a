"""`doc_chunk`: annotated chunks (paper, section 4.1).

On top of doc_naive: each chunk carries deterministic annotations (tools called, whether it
holds a user correction, the aftermath of each user turn), conversational filler is dropped,
and a global readout of per-action correction rates is prepended together with the top
precedents (the correction chunks that best match the query). Storage stays flat.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dctx.bench.approaches._cues import Aftermath, classify, is_filler
from dctx.bench.approaches._search import HybridIndex
from dctx.bench.approaches._trace import Turn, chunk, render, turns
from dctx.bench.approaches.base import ApproachContext, NullApproach
from dctx.bench.approaches.doc_naive import chunk_text
from dctx.bench.schema import SeedSession
from dctx.models import Unit

TOP_K = 5
TOP_PRECEDENTS = 2


@dataclass(slots=True)
class _Chunk:
    text: str  # annotation line + filler-free transcript (indexed by BM25, injected)
    raw: str  # the plain chunk text, as doc_naive has it (embedded for cosine)
    correction: bool


def aftermaths(ts: Sequence[Turn]) -> dict[int, Aftermath]:
    """Aftermath of every user turn (by message index); the first request of a session
    counts as a correction only when it states a standing directive."""
    out: dict[int, Aftermath] = {}
    seen_assistant = False
    for t in ts:
        if t.role == "assistant":
            seen_assistant = True
        elif t.role == "user":
            out[t.index] = classify(t.text, first_turn=not seen_assistant)
    return out


def annotate(part: Sequence[Turn], after: dict[int, Aftermath]) -> _Chunk | None:
    tools = sorted({name for t in part for name, _ in t.calls})
    kinds = [after[t.index] for t in part if t.index in after]
    correction = "correction" in kinds or "withdrawal" in kinds
    body = "\n".join(
        render(t) for t in part if not is_filler(t.role, t.text, bool(t.calls)) and render(t)
    )
    if not body.strip():
        return None
    note = (
        f"[tools: {', '.join(tools) or 'none'}; correction: {'yes' if correction else 'no'}; "
        f"aftermath: {', '.join(kinds) or 'none'}]"
    )
    return _Chunk(f"{note}\n{body}", chunk_text(part), correction)


def correction_rates(sessions: Sequence[Sequence[Turn]]) -> dict[str, tuple[int, int]]:
    """Per tool: (corrections following a use of it, uses). A correction follows a tool when
    it is the next user turn after the call."""
    stats: dict[str, list[int]] = {}
    for ts in sessions:
        after = aftermaths(ts)
        pending: set[str] = set()
        for t in ts:
            for name, _ in t.calls:
                stats.setdefault(name, [0, 0])[1] += 1
                pending.add(name)
            if t.role == "user":
                if after.get(t.index) in ("correction", "withdrawal"):
                    for name in pending:
                        stats[name][0] += 1
                pending.clear()
    return {k: (v[0], v[1]) for k, v in stats.items()}


def readout(rates: dict[str, tuple[int, int]]) -> str:
    rows = sorted(rates.items(), key=lambda kv: (-kv[1][0] / max(kv[1][1], 1), kv[0]))
    body = "; ".join(f"{name} {c}/{n} ({100 * c / n:.0f}%)" for name, (c, n) in rows if n)
    return f"Correction rates by action (user corrections following / uses): {body}"


class DocChunk(NullApproach):
    def __init__(self, ctx: ApproachContext) -> None:
        self.ctx = ctx
        self.chunks: list[_Chunk] = []
        self.rates: dict[str, tuple[int, int]] = {}

    def capture(self, seed: Sequence[SeedSession]) -> None:
        sessions = [turns(s.messages) for s in seed]
        for ts in sessions:
            after = aftermaths(ts)
            for part in chunk(ts):
                annotated = annotate(part, after)
                if annotated is not None:
                    self.chunks.append(annotated)
        self.rates = correction_rates(sessions)

    def start(self, actor: str, skill: str, query: str, tools: Sequence[str]) -> list[Unit]:
        if not self.chunks:
            return []
        units: list[Unit] = []
        if self.rates and any(c for c, _ in self.rates.values()):
            units.append(Unit(text=readout(self.rates), channel="system"))
        index = HybridIndex(
            [c.text for c in self.chunks],
            self.ctx.embedder,
            embed_texts=[c.raw for c in self.chunks],
        )
        corrections = [i for i, c in enumerate(self.chunks) if c.correction]
        precedents = index.search(query, TOP_PRECEDENTS, among=corrections) if corrections else []
        rest = [i for i in index.search(query, TOP_K + len(precedents)) if i not in precedents]
        for i in precedents:
            units.append(Unit(text=f"Precedent:\n{self.chunks[i].text}", channel="system"))
        for i in rest[: max(TOP_K - len(precedents), 0)]:
            units.append(
                Unit(text=f"Relevant past context:\n{self.chunks[i].text}", channel="system")
            )
        return units
