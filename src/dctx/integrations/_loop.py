"""What every agent-loop integration shares: injection state, guards, tool execution, capture.

`LoopSession` is the SDK-free core. Use it directly to wrap a loop you already have:

    session = LoopSession(mem, actor="ana", skill="analyst", query=q, tools=["get_price"])
    messages = session.stage1 + messages            # stage 1, before the first model call
    system = session.system(my_system_prompt)       # stage-2 rules ride in the system prompt
    outcome = session.handle(call_id, name, args, functions)   # guard, run, observe
    ...
    session.capture(final_transcript)               # close the feedback loop

`drive` runs a whole loop over an `Adapter` (one per SDK, in openai_loop / anthropic_loop).

Failure policy: capture happens only after a loop finished normally. If the model call, a
message conversion or the turn limit fails, the error propagates and nothing is written; the
capture itself is one store transaction, so a failed capture leaves the store as it was.
A tool that raises is not a loop failure: its error goes back to the model as the tool result.

The transcript that is captured is the user's conversation plus the model's turns, without
dctx's own injections (the stage-1 pair, the system block) and without calls a guard rejected
(they never ran; learning from them would re-learn the guard's own rule). Corrected calls are
kept with the arguments that actually ran.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from dctx.errors import AgentLoopError as AgentLoopError
from dctx.errors import MaxTurnsError as MaxTurnsError
from dctx.guards import GuardChecker, Verdict, compile_guards
from dctx.models import Unit, new_id

if TYPE_CHECKING:
    from dctx.inject.run import Run
    from dctx.memory import CaptureReport, Memory

ToolFunction = Callable[..., Any]


@dataclass(slots=True)
class ToolCallRequest:
    """One tool call the model proposed, already decoded."""

    id: str
    name: str
    arguments: dict[str, Any]
    error: str | None = None  # the arguments could not be decoded (handed back to the model)


@dataclass(slots=True)
class ToolOutcome:
    """What happened to one proposed call."""

    call_id: str
    tool: str
    arguments: dict[str, Any]  # the arguments that ran (after any correction)
    result: str
    status: Literal["ok", "error", "corrected", "rejected"]
    verdict: Verdict | None = None
    units: list[Unit] = field(default_factory=list)  # stage-2 units this result triggered

    @property
    def is_error(self) -> bool:
        return self.status in ("error", "rejected")


@dataclass(slots=True)
class LoopResult:
    """The finished loop: final answer, the conversation (no dctx injections), what ran."""

    text: str
    messages: list[dict[str, Any]]
    outcomes: list[ToolOutcome]
    units: list[Unit]
    capture: CaptureReport | None = None
    turns: int = 0


def _no_tool(**_: Any) -> Any:  # pragma: no cover - stands for a tool nobody registered
    raise LookupError("no function for this tool")


def _result_text(raw: Any) -> str:
    return raw if isinstance(raw, str) else json.dumps(raw, default=str)


def _error_text(exc: Exception) -> str:
    return json.dumps({"error": f"{type(exc).__name__}: {exc}"})


@dataclass(slots=True)
class _Admitted:
    """A call the guards let through: what runs, with which (possibly corrected) arguments."""

    call: ToolCallRequest
    verdict: Verdict
    fn: ToolFunction

    @property
    def arguments(self) -> dict[str, Any]:
        return self.verdict.arguments


class LoopSession:
    """Injection + guards + capture for one agent run (see the module docstring)."""

    def __init__(
        self,
        memory: Memory,
        *,
        actor: str,
        skill: str,
        query: str,
        tools: Sequence[str] | None = None,
        guards: bool = True,
        conversation_id: str | None = None,
        namespace: str | None = None,
    ) -> None:
        if not isinstance(query, str) or not query.strip():
            raise AgentLoopError("the run needs a non-empty user query (the last user message)")
        self.memory = memory
        self.actor = actor
        self.skill = skill
        self.tools = list(tools) if tools is not None else None
        self.guards_on = guards
        self.conversation_id = conversation_id or new_id("loop")
        self.namespace = namespace or memory.namespace
        self.run: Run = memory.start(
            actor=actor,
            skill=skill,
            query=query,
            tools=self.tools,
            namespace=self.namespace,
            conversation_id=self.conversation_id,
        )
        self.checker = GuardChecker()
        self.outcomes: list[ToolOutcome] = []
        self._sync_guards()

    # ------------------------------------------------------------------ injection
    @property
    def stage1(self) -> list[dict[str, Any]]:
        """The stage-1 [user, assistant] pair to put before the conversation ([] if silent)."""
        return self.run.messages

    def system(self, base: str | None = None) -> str | None:
        """The system prompt for the next model call: `base` plus stage-2 rules so far."""
        block = self.run.system
        if not block:
            return base
        return f"{base}\n\n{block}" if base else block

    @property
    def system_block(self) -> str:
        """dctx's stage-2 text alone ("" until a rule is delivered), for loops that keep the
        system prompt as separate blocks and append this one after theirs."""
        return self.run.system or ""

    @property
    def units(self) -> list[Unit]:
        return [d.unit for d in self.run.deliveries]

    # ------------------------------------------------------------------ tools
    def check(self, name: str, arguments: dict[str, Any]) -> Verdict:
        """The guards' verdict on a proposed call (always "allow" with guards off)."""
        if not self.guards_on:
            return Verdict("allow", name, dict(arguments))
        verdict = self.checker.check(name, arguments)
        if verdict.action != "allow":  # an outcome of the rules behind these guards
            self.run.guard_fired(
                [g.rule_id for g in verdict.guards], tool=name, action=verdict.action
            )
        return verdict

    def handle(self, call: ToolCallRequest, functions: Mapping[str, ToolFunction]) -> ToolOutcome:
        """Guard, execute and observe one proposed call; return what to tell the model."""
        admitted = self._admit(call, functions)
        if isinstance(admitted, ToolOutcome):
            return admitted
        try:
            result = _result_text(admitted.fn(**admitted.arguments))
        except Exception as exc:  # a tool's failure is data for the model, not a crash
            return self._complete(admitted, _error_text(exc), failed=True)
        return self._complete(admitted, result, failed=False)

    async def ahandle(
        self, call: ToolCallRequest, functions: Mapping[str, ToolFunction]
    ) -> ToolOutcome:
        """`handle` for async loops: a tool may also be a coroutine function (awaited)."""
        admitted = self._admit(call, functions)
        if isinstance(admitted, ToolOutcome):
            return admitted
        try:
            raw = admitted.fn(**admitted.arguments)
            result = _result_text(await raw if inspect.isawaitable(raw) else raw)
        except Exception as exc:  # a tool's failure is data for the model, not a crash
            return self._complete(admitted, _error_text(exc), failed=True)
        return self._complete(admitted, result, failed=False)

    def _admit(
        self, call: ToolCallRequest, functions: Mapping[str, ToolFunction]
    ) -> ToolOutcome | _Admitted:
        """The guards' decision: the outcome when the call does not run, else what runs."""
        if call.error is not None:
            outcome = ToolOutcome(call.id, call.name, call.arguments, call.error, "error")
            self.outcomes.append(outcome)
            return outcome
        verdict = self.check(call.name, call.arguments)
        if verdict.action == "reject":
            outcome = ToolOutcome(
                call.id, call.name, call.arguments, verdict.message, "rejected", verdict
            )
            self.outcomes.append(outcome)
            return outcome
        fn = functions.get(call.name)
        if fn is None:
            unknown = json.dumps({"error": f"unknown tool {call.name!r}"})
            return self._complete(_Admitted(call, verdict, _no_tool), unknown, failed=True)
        return _Admitted(call, verdict, fn)

    def _complete(self, admitted: _Admitted, result: str, *, failed: bool) -> ToolOutcome:
        """Record a call that ran (or failed): its result and the stage-2 units it triggered."""
        call, verdict, args = admitted.call, admitted.verdict, admitted.arguments
        status: Literal["ok", "error", "corrected"] = (
            "error" if failed else "corrected" if verdict.action == "correct" else "ok"
        )
        self.checker.executed(call.name)
        units = self.observe(call.name, args, result)
        outcome = ToolOutcome(call.id, call.name, args, result, status, verdict, units)
        self.outcomes.append(outcome)
        return outcome

    def observe(self, name: str, arguments: dict[str, Any], result: str) -> list[Unit]:
        """Stage 2: record a call that ran and its result; return the units it triggered
        (their guards are enforced from now on)."""
        units = self.run.observe({"name": name, "arguments": arguments}, result)
        self._sync_guards()
        return units

    @property
    def rejected_ids(self) -> set[str]:
        return {o.call_id for o in self.outcomes if o.status == "rejected"}

    # ------------------------------------------------------------------ capture
    def capture(self, transcript: Sequence[Any]) -> CaptureReport:
        """Learn from the finished conversation (one transaction; all or nothing)."""
        return self.memory.capture(
            list(transcript),
            actor=self.actor,
            skill=self.skill,
            conversation_id=self.conversation_id,
            namespace=self.namespace,
        )

    def _sync_guards(self) -> None:
        """Enforce the guards of every rule delivered so far: a guard never enforces a rule
        the model has not been told, and a rule's conditions are decided by its delivery."""
        self.checker.add(compile_guards(self.run.rules, tools=self.tools))


class Adapter(Protocol):
    """One SDK's side of the loop: send the conversation, read calls, append turns."""

    def send(self, session: LoopSession) -> Any: ...

    def calls(self, reply: Any) -> list[ToolCallRequest]: ...

    def text(self, reply: Any) -> str: ...

    def append(self, reply: Any, outcomes: list[ToolOutcome]) -> None: ...

    def transcript(self, rejected: set[str]) -> list[dict[str, Any]]: ...


class AsyncAdapter(Adapter, Protocol):
    """An adapter whose model call is awaited (AsyncOpenAI, AsyncAnthropic)."""

    async def asend(self, session: LoopSession) -> Any: ...


def _finish(
    adapter: Adapter, session: LoopSession, reply: Any, turn: int, capture: bool
) -> LoopResult:
    transcript = adapter.transcript(session.rejected_ids)
    report = session.capture(transcript) if capture else None
    return LoopResult(
        text=adapter.text(reply),
        messages=transcript,
        outcomes=list(session.outcomes),
        units=session.units,
        capture=report,
        turns=turn,
    )


async def adrive(
    adapter: AsyncAdapter,
    session: LoopSession,
    functions: Mapping[str, ToolFunction],
    *,
    max_turns: int,
    capture: bool,
) -> LoopResult:
    """`drive` for async clients: the model call and coroutine tools are awaited; guards,
    injection and capture are the same code (the store calls run in the event loop's thread)."""
    for turn in range(1, max_turns + 1):
        reply = await adapter.asend(session)
        calls = adapter.calls(reply)
        outcomes = [await session.ahandle(call, functions) for call in calls]
        adapter.append(reply, outcomes)
        if not calls:
            return _finish(adapter, session, reply, turn, capture)
    raise MaxTurnsError(max_turns)


def model_call(client: Any, path: str, *, is_async: bool, helper: str, other: str) -> Any:
    """The client's model-call method at `path` (e.g. "messages.create"), checked to be of the
    kind the helper drives; a wrong client is an AgentLoopError naming the helper to use."""
    target = client
    for part in path.split("."):
        target = getattr(target, part, None)
        if target is None:
            raise AgentLoopError(
                f"{helper} needs an SDK client with .{path}(...); got {type(client).__name__}"
            )
    if inspect.iscoroutinefunction(inspect.unwrap(target)) != is_async:
        kind = "a synchronous" if is_async else "an async"
        raise AgentLoopError(
            f"{helper} got {kind} client ({type(client).__name__}); use {other} with it"
        )
    return target


def drive(
    adapter: Adapter,
    session: LoopSession,
    functions: Mapping[str, ToolFunction],
    *,
    max_turns: int,
    capture: bool,
) -> LoopResult:
    """Call the model until it answers without tool calls; then capture the session."""
    for turn in range(1, max_turns + 1):
        reply = adapter.send(session)
        calls = adapter.calls(reply)
        outcomes = [session.handle(call, functions) for call in calls]
        adapter.append(reply, outcomes)
        if not calls:
            return _finish(adapter, session, reply, turn, capture)
    raise MaxTurnsError(max_turns)


def check_inputs(messages: Any, tools: Any, functions: Any, max_turns: Any) -> list[dict[str, Any]]:
    """Validate what every helper takes; return a private copy of the messages."""
    if not isinstance(messages, list | tuple) or not messages:
        raise AgentLoopError("messages must be a non-empty list of message dicts")
    out: list[dict[str, Any]] = []
    for i, msg in enumerate(messages):
        if hasattr(msg, "model_dump"):  # an SDK message object (e.g. a previous reply)
            msg = msg.model_dump(exclude_none=True)
        if not isinstance(msg, Mapping) or not isinstance(msg.get("role"), str):
            raise AgentLoopError(f"messages[{i}] must be a dict with a 'role'")
        out.append(json.loads(json.dumps(dict(msg), default=str)))
    if not isinstance(tools, list | tuple):
        raise AgentLoopError("tools must be a list of tool definitions (may be empty)")
    if not isinstance(functions, Mapping) or not all(callable(f) for f in functions.values()):
        raise AgentLoopError("functions must map each tool name to a callable")
    if not isinstance(max_turns, int) or isinstance(max_turns, bool) or max_turns < 1:
        raise AgentLoopError(f"max_turns must be a positive integer, got {max_turns!r}")
    return out


def require_functions(names: Sequence[str], functions: Mapping[str, ToolFunction]) -> None:
    missing = [n for n in names if n not in functions]
    if missing:
        raise AgentLoopError(
            f"no function given for tool(s) {', '.join(missing)}: pass functions={{name: callable}}"
        )


def text_of(content: Any) -> str:
    """The text of a message content (a string, or a list of text parts / blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(p.get("text", "")) for p in content if isinstance(p, Mapping) and p.get("text")
        )
    return ""


def last_user_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The query of the run: the text of the last user message."""
    for msg in reversed(messages):
        if msg.get("role") == "user":
            text = text_of(msg.get("content"))
            if text.strip():
                return text
    raise AgentLoopError("messages need a user message with text (the query of the run)")


def decode_arguments(call_id: str, name: str, raw: Any) -> ToolCallRequest:
    """Decode a call's arguments; a model's malformed JSON is handed back, not raised."""
    if isinstance(raw, Mapping):
        return ToolCallRequest(call_id, name, dict(raw))
    try:
        args = json.loads(raw) if isinstance(raw, str) and raw.strip() else {}
    except ValueError as exc:
        return ToolCallRequest(
            call_id, name, {}, json.dumps({"error": f"arguments are not valid JSON: {exc}"})
        )
    if not isinstance(args, dict):
        return ToolCallRequest(
            call_id, name, {}, json.dumps({"error": "arguments must be a JSON object"})
        )
    return ToolCallRequest(call_id, name, args)
