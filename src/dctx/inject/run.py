"""Progressive injection over one agent run: stage 1 before the first model call, stage 2+ after
each tool result. A delivered rule is never sent twice, nor is its text (rules of different
scopes may say the same thing); nothing is sent when nothing applies.

Every delivery is also handed to `record` as a DELIVERED rule event (run id, conversation id,
decision point, channel), and so is a guard that fired (`guard_fired`): this is the one place
that knows what a run was given, so a later capture of the conversation can say how each
rule did (compile/outcomes.py).
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any

from dctx.capture.subjects import mask_instances
from dctx.errors import StoreError
from dctx.inject.budget import pack
from dctx.inject.format import rule_line, stage1_messages, system_block
from dctx.models import Rule, RuleEvent, RuleEventKind, Unit
from dctx.providers.base import Embedder, embed_query, query_pieces
from dctx.providers.usage import UsageMeter, UsageTotals, metering
from dctx.retrieve.context import RunContext
from dctx.retrieve.engine import Retriever
from dctx.validation import check_json_text, check_value

log = logging.getLogger("dctx")

EventSink = Callable[[Sequence[RuleEvent]], None]

# Stage 1 chooses by the request alone; a rule whose data a tool result later shows is the
# surer delivery, so stage 1 leaves it a quarter of the run's token budget.
STAGE1_SHARE = 0.75


def new_run_id() -> str:
    """An unguessable run id: over HTTP the id of a server-side run is its capability."""
    return "run_" + secrets.token_hex(12)


@dataclass(slots=True)
class Delivery:
    """One rule handed to the agent: at which decision point and through which channel."""

    decision_point: int
    rule: Rule
    unit: Unit


@dataclass
class Run:
    """The state of one agent run. Create it with `Memory.start`."""

    namespace: str
    actor: str
    skill: str
    query: str
    tools: list[str] | None
    retriever: Retriever
    embedder: Embedder
    token_budget: int
    conversation_id: str | None = None  # the conversation a later capture will name
    record: EventSink | None = None  # where deliveries and guard firings go (the store)
    id: str = field(default_factory=lambda: new_run_id())
    now: datetime | None = None  # what date windows are measured from (None: the clock)
    ctx: RunContext = field(init=False)
    deliveries: list[Delivery] = field(default_factory=list)
    tokens_used: int = 0
    decision_point: int = 0
    _meter: UsageMeter = field(default_factory=UsageMeter, init=False, repr=False)

    def __post_init__(self) -> None:
        self.ctx = RunContext.start(self.query, pieces=partial(query_pieces, self.embedder))
        self.ctx.now = self.now
        with metering(self._meter):
            self._stage1()

    def _stage1(self) -> None:
        query_vec = embed_query(self.embedder, [mask_instances(self.query)])[0]
        found = self.retriever.stage1(
            self.namespace,
            skill=self.skill,
            actor=self.actor,
            ctx=self.ctx,
            query_vec=query_vec,
            tools=self.tools,
        )
        self._deliver(found, channel="user", budget=int(self.token_budget * STAGE1_SHARE))

    # ------------------------------------------------------------------ API
    @property
    def units(self) -> list[Unit]:
        """Units delivered at decision point 0 (stage 1)."""
        return [d.unit for d in self.deliveries if d.decision_point == 0]

    @property
    def messages(self) -> list[dict[str, Any]]:
        """Stage 1 as a fabricated [user, assistant] pair ([] when nothing applies)."""
        return stage1_messages([d.rule for d in self.deliveries if d.decision_point == 0])

    @property
    def system(self) -> str:
        """System-prompt text with every stage-2 rule delivered so far."""
        return system_block([d.rule for d in self.deliveries if d.decision_point > 0])

    @property
    def rules(self) -> list[Rule]:
        return [d.rule for d in self.deliveries]

    @property
    def usage(self) -> UsageTotals:
        """Embedding (and any LLM) tokens this run has spent so far (paper, Table 4)."""
        return self._meter.totals()

    def observe(self, tool_call: Any, tool_result: Any) -> list[Unit]:
        """Record a tool call and its result; return the units newly triggered (stage 2).

        Arguments and result are checked first (nesting depth, valid text): a hostile value
        raises TraceFormatError naming the field, never RecursionError."""
        name, arguments = _call_parts(tool_call)
        check_value(name, field="tool")
        check_value(arguments, field="arguments")
        if isinstance(tool_result, str):
            check_value(tool_result, field="result")
            check_json_text(tool_result, field="result")
            result = tool_result
        else:
            check_value(tool_result, field="result")
            result = json.dumps(tool_result)
        self.decision_point += 1
        self.ctx.add_step(name, arguments, result)
        with metering(self._meter):
            step_vec = embed_query(self.embedder, [self.ctx.summaries[-1]])[0]
        found = self.retriever.stage2(
            self.namespace,
            skill=self.skill,
            actor=self.actor,
            ctx=self.ctx,
            step_vec=step_vec,
            delivered={d.rule.id for d in self.deliveries},
        )
        return self._deliver(found, channel="system")

    def guard_fired(self, rule_ids: Sequence[str], *, tool: str, action: str) -> None:
        """Record that the guards of these delivered rules corrected or rejected a call."""
        self._emit(
            [
                self._event(rid, RuleEventKind.GUARD, {"tool": tool, "action": action})
                for rid in dict.fromkeys(rule_ids)
            ]
        )

    # ------------------------------------------------------------------ internals
    def _event(self, rule_id: str, kind: RuleEventKind, detail: dict[str, Any]) -> RuleEvent:
        return RuleEvent(
            rule_id=rule_id,
            kind=kind,
            namespace=self.namespace,
            run_id=self.id,
            conversation_id=self.conversation_id,
            actor=self.actor,
            decision_point=self.decision_point,
            detail=detail,
        )

    def _emit(self, events: list[RuleEvent]) -> None:
        """Hand events to the sink. A failing store must not break the agent's run: the
        delivery happened either way, only its record is lost (and logged)."""
        if not events or self.record is None:
            return
        try:
            self.record(events)
        except StoreError as exc:
            log.warning("run %s: could not record %d rule event(s): %s", self.id, len(events), exc)

    def _deliver(
        self, found: Sequence[Rule], *, channel: str, budget: int | None = None
    ) -> list[Unit]:
        sent = {d.rule.id for d in self.deliveries}
        said = {_said(d.rule) for d in self.deliveries}
        fresh: list[Rule] = []
        for rule in found:
            if rule.id not in sent and _said(rule) not in said:
                said.add(_said(rule))
                fresh.append(rule)
        left = self.token_budget - self.tokens_used
        chosen, used = pack(
            fresh, budget=left if budget is None else min(budget, left), actor=self.actor
        )
        self.tokens_used += used
        units: list[Unit] = []
        for rule in chosen:
            unit = Unit(text=rule_line(rule), channel=channel, rule_ids=[rule.id])  # type: ignore[arg-type]
            self.deliveries.append(Delivery(self.decision_point, rule, unit))
            units.append(unit)
        self._emit(
            [self._event(r.id, RuleEventKind.DELIVERED, {"channel": channel}) for r in chosen]
        )
        return units


def _said(rule: Rule) -> str:
    """A rule's text as the model reads it (case and spacing aside)."""
    return " ".join(rule.text.lower().split())


def _call_parts(tool_call: Any) -> tuple[str, dict[str, Any]]:
    """Accept {"name", "arguments"}, OpenAI {"function": {...}}, Anthropic tool_use, or objects."""
    if hasattr(tool_call, "model_dump"):
        tool_call = tool_call.model_dump()
    if isinstance(tool_call, tuple) and len(tool_call) == 2:
        name, args = tool_call
    elif isinstance(tool_call, dict):
        inner = tool_call.get("function", tool_call)
        name = inner.get("name", "")
        args = inner.get("arguments", inner.get("input", {}))
    else:
        name = getattr(tool_call, "name", "")
        args = getattr(tool_call, "arguments", {})
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except (ValueError, RecursionError):  # not JSON, or too deep to be arguments
            args = {"_raw": args}
    if not isinstance(args, dict):
        args = {"_value": args}
    return str(name), args
