"""`expel`: the ExpeL insight pool (Zhao et al.), as the source report describes it.

A critic reads each seed session (oldest first) with the current rules and proposes
operations; fixed Python semantics apply them: ADD starts a rule at 2, AGREE and EDIT add 1,
REMOVE subtracts 1 (3 when the list is full); rules whose count drops to 0 or below leave the
pool, survivors are kept sorted by count. The whole list is pasted before the task as one
system unit; nothing is retrieved per query and nothing arrives between tool calls.

Offline the critic is deterministic: a user correction proposes ADD of its corrective
sentences (AGREE when an existing insight is near-identical, cosine >= 0.8; EDIT when it is
close, 0.6-0.8); an explicit withdrawal ("forget", "never mind") proposes REMOVE of the
closest insight that shares a content word with it; a tool call that failed and then worked
with other arguments proposes ADD of that comparison (ExpeL's success/failure pairs). With an
LLM the critic is ExpeL's prompt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dctx.bench.approaches._cues import classify, directive
from dctx.bench.approaches._trace import Turn, transcript, turns
from dctx.bench.approaches.base import ApproachContext, NullApproach
from dctx.bench.schema import SeedSession
from dctx.errors import DctxError
from dctx.models import Unit
from dctx.providers.usage import record_llm
from dctx.text import content_stems, stem

MAX_RULES = 10
AGREE_AT = 0.8
EDIT_AT = 0.6
# words of the withdrawal itself, not of the rule it names
_WITHDRAW_WORDS = {stem(w) for w in "forget rule never mind scratch drop stop ignore".split()}
HEADER = "Insights from past tasks (apply them where relevant):"

CRITIC_SYSTEM = """You are an advanced reasoning agent that can add, edit or remove rules \
from your existing rule set, based on forming new critiques of past task trajectories.
You will be given one past conversation of an agent with a user (with its tool calls) and \
the existing rules. Take note of the user's corrections and of tool calls that failed and \
then worked, and update the rules so an agent doing a similar task later makes fewer mistakes.
Operations (each on its own line, CLOSELY following this format):
AGREE <EXISTING RULE NUMBER>: <EXISTING RULE>   (the rule is strongly relevant)
REMOVE <EXISTING RULE NUMBER>: <EXISTING RULE>  (the rule is contradictory, withdrawn or duplicated)
EDIT <EXISTING RULE NUMBER>: <NEW MODIFIED RULE> (the rule can be made more general or correct)
ADD <NEW RULE NUMBER>: <NEW RULE>               (a new rule, very different from existing ones)
Do not mention the trials in the rules: every rule must be GENERALLY APPLICABLE, concise and \
easy to follow. Do at most 4 operations. If the list is full ({max} rules), prefer EDIT and \
REMOVE over ADD. Answer with the operations only."""

_OP = re.compile(r"^\s*(ADD|EDIT|REMOVE|AGREE)\s*(\d+)?\s*[:.-]\s*(.+?)\s*$", re.IGNORECASE)


@dataclass(slots=True)
class Op:
    kind: str  # ADD | EDIT | REMOVE | AGREE
    index: int | None  # 0-based rule index (None for ADD)
    text: str


class InsightPool:
    """The rule list with counters and ExpeL's fixed update semantics."""

    def __init__(self, max_rules: int = MAX_RULES) -> None:
        self.max_rules = max_rules
        self.rules: list[tuple[str, int]] = []

    @property
    def full(self) -> bool:
        return len(self.rules) >= self.max_rules

    def apply(self, op: Op) -> None:
        n = len(self.rules)
        if op.kind == "ADD":
            if not self.full and all(op.text != t for t, _ in self.rules):
                self.rules.append((op.text, 2))
        elif op.index is not None and 0 <= op.index < n:
            text, count = self.rules[op.index]
            if op.kind == "AGREE":
                self.rules[op.index] = (text, count + 1)
            elif op.kind == "EDIT":
                self.rules[op.index] = (op.text or text, count + 1)
            elif op.kind == "REMOVE":
                self.rules[op.index] = (text, count - (3 if self.full else 1))
        self.rules = sorted(((t, c) for t, c in self.rules if c > 0), key=lambda tc: -tc[1])

    def render(self) -> str:
        return "\n".join(f"{i}. {t}" for i, (t, _) in enumerate(self.rules, 1))


def parse_ops(text: str) -> list[Op]:
    """Operations from a critic answer; malformed lines are skipped (ExpeL's parser gate)."""
    out: list[Op] = []
    for line in text.splitlines():
        m = _OP.match(line.strip("-* "))
        if not m:
            continue
        kind = m.group(1).upper()
        if kind == "ADD":
            out.append(Op(kind, None, m.group(3)))
        elif m.group(2):
            out.append(Op(kind, int(m.group(2)) - 1, m.group(3)))
    return out


def _failure_pairs(ts: Sequence[Turn]) -> list[str]:
    """'Calling T with A failed; B worked' for each failed call later retried successfully
    with different arguments."""
    calls: list[tuple[str, dict[str, object], bool, str]] = []
    pending: dict[int, tuple[str, dict[str, object]]] = {}
    order = 0
    for t in ts:
        for name, args in t.calls:
            pending[order] = (name, args)
            order += 1
        if t.role == "tool" and pending:
            key = min(pending)
            name, args = pending.pop(key)
            calls.append((name, args, t.is_error, t.text[:120]))
    out: list[str] = []
    for i, (name, args, failed, error) in enumerate(calls):
        if not failed:
            continue
        for name2, args2, failed2, _ in calls[i + 1 :]:
            if name2 == name and not failed2 and args2 != args:
                out.append(
                    f"When calling {name}, use arguments like {json.dumps(args2, sort_keys=True)}:"
                    f" {json.dumps(args, sort_keys=True)} failed ({error.strip()})."
                )
                break
    return out


class ExpeL(NullApproach):
    def __init__(self, ctx: ApproachContext) -> None:
        self.ctx = ctx
        self.pool = InsightPool()

    # -- critic -------------------------------------------------------------
    def _closest(self, text: str) -> tuple[int, float]:
        if not self.pool.rules:
            return -1, 0.0
        emb = self.ctx.embedder
        vecs = emb.embed([text] + [t for t, _ in self.pool.rules])
        sims = vecs[1:] @ vecs[0]
        best = int(np.argmax(sims))
        return best, float(sims[best])

    def _withdrawn(self, text: str) -> int:
        """The insight a withdrawal names: the closest one sharing a content word with it."""
        said = set(content_stems(text, drop_generic=True)) - _WITHDRAW_WORDS
        shared = [i for i, (t, _) in enumerate(self.pool.rules) if said & set(content_stems(t))]
        if not shared:
            return -1
        vecs = self.ctx.embedder.embed([text] + [self.pool.rules[i][0] for i in shared])
        return shared[int(np.argmax(vecs[1:] @ vecs[0]))]

    def _propose(self, text: str, withdraw: bool) -> list[Op]:
        if withdraw:
            idx = self._withdrawn(text)
            return [Op("REMOVE", idx, text)] if idx >= 0 else []
        idx, sim = self._closest(text)
        if idx >= 0 and sim >= AGREE_AT:
            return [Op("AGREE", idx, text)]
        if idx >= 0 and sim >= EDIT_AT:
            return [Op("EDIT", idx, text)]
        if self.pool.full:
            # make room the ExpeL way: a full list pays -3 on its weakest rule first
            return [Op("REMOVE", len(self.pool.rules) - 1, ""), Op("ADD", None, text)]
        return [Op("ADD", None, text)]

    def _deterministic(self, session: SeedSession) -> None:
        ts = turns(session.messages)
        seen_assistant = False
        for t in ts:
            if t.role == "assistant":
                seen_assistant = True
            if t.role != "user":
                continue
            kind = classify(t.text, first_turn=not seen_assistant)
            if kind in ("correction", "withdrawal"):
                for op in self._propose(directive(t.text), kind == "withdrawal"):
                    self.pool.apply(op)
        for lesson in _failure_pairs(ts):
            for op in self._propose(lesson, False):
                self.pool.apply(op)

    def _with_llm(self, session: SeedSession) -> bool:
        assert self.ctx.llm is not None
        user = (
            f"Existing rules:\n{self.pool.render() or '(none)'}\n\n"
            f"Past conversation:\n{transcript(session.messages)}"
        )
        try:
            text, usage = self.ctx.llm.complete(CRITIC_SYSTEM.format(max=MAX_RULES), user)
        except DctxError:
            return False
        record_llm(usage)  # the bench's cost table counts the critic's tokens
        ops = parse_ops(text)
        for op in ops:
            self.pool.apply(op)
        return bool(ops)

    # -- approach -------------------------------------------------------------
    def capture(self, seed: Sequence[SeedSession]) -> None:
        for session in seed:
            if self.ctx.llm is None or not self._with_llm(session):
                self._deterministic(session)

    def start(self, actor: str, skill: str, query: str, tools: Sequence[str]) -> list[Unit]:
        if not self.pool.rules:
            return []
        return [Unit(text=f"{HEADER}\n{self.pool.render()}", channel="system")]
