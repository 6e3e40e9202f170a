"""dctx inside a LangGraph agent: a pre-model hook plus guarded tools.

    hook = DctxHook(mem)                              # one hook for every user
    agent = create_react_agent(model, hook.wrap_tools(tools), pre_model_hook=hook)
    config = {"configurable": {"actor": "ana", "skill": "analyst", "thread_id": "t1"}}
    state = agent.invoke({"messages": [("user", "Where is GLBX trading?")]}, config)
    hook.capture(state["messages"], config)           # close the feedback loop

On LangChain's `create_agent` (the current prebuilt agent), use `DctxMiddleware` from
`dctx.integrations.langchain_middleware`, which runs on this same hook.

Who a call is for comes from `config["configurable"]`, as LangMem does: `actor`, `skill` and
`namespace` there win over the hook's own defaults, so one compiled graph serves many users.
The hook keeps one dctx run per (namespace, actor, skill, thread_id); concurrent invocations
for the same actor and skill need distinct `thread_id`s.

Before every model call the hook starts a run for the latest user message (stage 1, as a
fabricated user/assistant pair) and observes the tool results that arrived since the last
call (stage 2, added to the system message). It returns them as `llm_input_messages`, so
the graph's `messages` state never holds dctx's injections. `wrap_tools` puts the guards in
front of each tool: a corrected call runs with fixed arguments; a rejected one does not run
and its ToolMessage (status "error") tells the model why. `capture` follows the loop policy
of `_loop`: call it when the graph finished; rejected calls are left out and corrected calls
keep the arguments that ran.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from dctx.errors import MissingDependencyError
from dctx.guards import Verdict
from dctx.integrations._loop import AgentLoopError, LoopSession, ToolOutcome, text_of

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage
    from langchain_core.tools import BaseTool

    from dctx.memory import CaptureReport, Memory


def _lc() -> Any:
    try:
        import langchain_core.messages as messages
    except ImportError:
        raise MissingDependencyError(
            "the LangGraph integration", "langgraph", "langchain-core"
        ) from None
    return messages


def current_config() -> Mapping[str, Any]:
    """The RunnableConfig of the graph step running now ({} outside a graph)."""
    try:
        from langgraph.config import get_config

        return get_config()
    except (ImportError, RuntimeError):  # not inside a runnable context
        return {}


@dataclass(frozen=True, slots=True)
class Caller:
    """Who one graph invocation is for (from `config["configurable"]`, else the defaults)."""

    actor: str
    skill: str
    namespace: str | None
    thread: str


@dataclass(slots=True)
class _Thread:
    """dctx's state for one conversation: its run and what happened to its tool calls."""

    session: LoopSession | None = None
    query_id: str | None = None
    seen: set[str] = field(default_factory=set)  # tool_call_ids already observed
    rejected: set[str] = field(default_factory=set)
    executed: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> args that ran


class DctxHook:
    """A LangGraph `pre_model_hook` that injects dctx rules, with guards for the tools."""

    def __init__(
        self,
        memory: Memory,
        *,
        actor: str | None = None,
        skill: str | None = None,
        namespace: str | None = None,
        tools: Sequence[str] | None = None,
        guards: bool = True,
    ) -> None:
        _lc()
        self.memory = memory
        self.actor = actor
        self.skill = skill
        self.namespace = namespace
        self.tool_names = list(tools) if tools is not None else None
        self.guards = guards
        self._threads: dict[Caller, _Thread] = {}
        self._last: _Thread | None = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ who
    def caller(self, config: Mapping[str, Any] | None) -> Caller:
        """The actor, skill, namespace and thread of a call: configurable, then defaults."""
        conf = dict((config or {}).get("configurable") or {})
        actor = conf.get("actor") or self.actor
        skill = conf.get("skill") or self.skill
        if not actor or not skill:
            missing = " and ".join(n for n, v in (("actor", actor), ("skill", skill)) if not v)
            raise AgentLoopError(
                f"no {missing} for this call: pass config={{'configurable': {{'actor': ..., "
                "'skill': ...}}}} to invoke, or DctxHook(memory, actor=..., skill=...)"
            )
        namespace = conf.get("namespace") or self.namespace
        return Caller(str(actor), str(skill), namespace, str(conf.get("thread_id") or ""))

    def _thread(self, config: Mapping[str, Any] | None) -> tuple[Caller, _Thread]:
        who = self.caller(config)
        with self._lock:
            thread = self._threads.setdefault(who, _Thread())
        self._last = thread
        return who, thread

    @property
    def session(self) -> LoopSession | None:
        """The run of the conversation the hook served last (None before the first call)."""
        return self._last.session if self._last is not None else None

    # ------------------------------------------------------------------ the hook
    def __call__(
        self, state: Mapping[str, Any] | Any, config: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        messages = list(state["messages"] if isinstance(state, Mapping) else state.messages)
        return {"llm_input_messages": self.inject(messages, config)}

    def advance(
        self, messages: Sequence[BaseMessage], config: Mapping[str, Any] | None = None
    ) -> LoopSession:
        """Start the run for the latest user message (or keep it) and observe the tool
        results that arrived since the last model call; return the run's session."""
        msgs = _lc()
        who, thread = self._thread(config if config is not None else current_config())
        human = [m for m in messages if isinstance(m, msgs.HumanMessage)]
        if not human:
            raise AgentLoopError("the graph state needs a user message (the query of the run)")
        last = human[-1]
        key = last.id or str(len(messages))
        if thread.session is None or key != thread.query_id:
            query = last.content if isinstance(last.content, str) else text_of(last.content)
            thread.session = LoopSession(
                self.memory,
                actor=who.actor,
                skill=who.skill,
                query=query,
                tools=self.tool_names,
                guards=self.guards,
                namespace=who.namespace,
            )
            thread.query_id, thread.seen = key, set()
        session = thread.session
        calls = {
            c["id"]: c for m in messages if isinstance(m, msgs.AIMessage) for c in m.tool_calls
        }
        for m in messages:
            if not isinstance(m, msgs.ToolMessage) or m.tool_call_id in thread.seen:
                continue
            thread.seen.add(m.tool_call_id)
            call = calls.get(m.tool_call_id)
            if call is None or m.tool_call_id in thread.rejected:
                continue
            args = thread.executed.get(m.tool_call_id, call["args"])
            session.observe(call["name"], args, text_of_tool(m))
        return session

    def inject(
        self, messages: Sequence[BaseMessage], config: Mapping[str, Any] | None = None
    ) -> list[BaseMessage]:
        """The messages the model sees: system prompt + stage-2 rules, stage-1 pair, rest."""
        msgs = _lc()
        session = self.advance(messages, config)
        head: list[BaseMessage] = []
        rest = list(messages)
        if rest and isinstance(rest[0], msgs.SystemMessage):
            base = rest[0].content if isinstance(rest[0].content, str) else None
            head = [msgs.SystemMessage(content=session.system(base) or "")]
            rest = rest[1:]
        elif session.system(None):
            head = [msgs.SystemMessage(content=session.system(None) or "")]
        return [*head, *stage1_messages(session), *rest]

    # ------------------------------------------------------------------ guards
    def wrap_tools(self, tools: Sequence[BaseTool]) -> list[BaseTool]:
        """The tools with the guards in front of them (also fixes the run's tool names)."""
        if self.tool_names is None:
            self.tool_names = [t.name for t in tools]
        return [_guarded(t, self) for t in tools]

    def run_tool(
        self,
        call_id: str,
        name: str,
        arguments: Mapping[str, Any],
        config: Mapping[str, Any] | None,
        execute: Callable[[dict[str, Any]], Any],
    ) -> Any:
        """Guard one tool call: `execute(arguments)` runs it (with corrected arguments), or a
        rejection ToolMessage (status "error") is returned without running it."""
        admitted = self._admit_tool(call_id, name, arguments, config)
        if not isinstance(admitted, _AdmittedTool):
            return admitted
        return admitted.finish(execute(admitted.arguments))

    async def arun_tool(
        self,
        call_id: str,
        name: str,
        arguments: Mapping[str, Any],
        config: Mapping[str, Any] | None,
        execute: Callable[[dict[str, Any]], Awaitable[Any]],
    ) -> Any:
        """`run_tool` for async graphs: `execute` is awaited."""
        admitted = self._admit_tool(call_id, name, arguments, config)
        if not isinstance(admitted, _AdmittedTool):
            return admitted
        return admitted.finish(await execute(admitted.arguments))

    def _admit_tool(
        self, call_id: str, name: str, arguments: Mapping[str, Any], config: Any
    ) -> Any:
        """The guards' decision: a rejection ToolMessage, or what to run and how to record it."""
        _, thread = self._thread(config)
        session = thread.session
        if session is None:  # a tool called outside a dctx run: nothing to guard with
            return _AdmittedTool(call_id, name, dict(arguments), None, None)
        verdict = session.check(name, dict(arguments))
        if verdict.action == "reject":
            thread.rejected.add(call_id)
            session.outcomes.append(
                ToolOutcome(call_id, name, verdict.arguments, verdict.message, "rejected", verdict)
            )
            return _lc().ToolMessage(
                content=verdict.message, tool_call_id=call_id, name=name, status="error"
            )
        session.checker.executed(name)
        thread.executed[call_id] = verdict.arguments
        return _AdmittedTool(call_id, name, verdict.arguments, session, verdict)

    # ------------------------------------------------------------------ capture
    def capture(
        self, messages: Sequence[BaseMessage], config: Mapping[str, Any] | None = None
    ) -> CaptureReport:
        """Learn from the finished graph run (its final `messages`), for the caller that
        `config` names (the same config the graph was invoked with)."""
        msgs = _lc()
        _, thread = self._thread(config)
        if thread.session is None:
            raise AgentLoopError("capture() needs a finished run: invoke the graph first")
        kept: list[BaseMessage] = []
        for m in messages:
            if isinstance(m, msgs.ToolMessage) and m.tool_call_id in thread.rejected:
                continue
            if isinstance(m, msgs.AIMessage) and m.tool_calls:
                calls = [
                    {**c, "args": thread.executed.get(c["id"], c["args"])}
                    for c in m.tool_calls
                    if c["id"] not in thread.rejected
                ]
                if not calls and not m.content:
                    continue
                m = m.model_copy(update={"tool_calls": calls})
            kept.append(m)
        return thread.session.capture(msgs.convert_to_openai_messages(kept))


@dataclass(slots=True)
class _AdmittedTool:
    """A tool call the guards let through; `finish` records its result on the run."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    session: LoopSession | None
    verdict: Verdict | None

    def finish(self, out: Any) -> Any:
        if self.session is None or self.verdict is None:
            return out
        status: Literal["ok", "error", "corrected"] = (
            "corrected" if self.verdict.action == "correct" else "ok"
        )
        if getattr(out, "status", None) == "error":
            status = "error"
        self.session.outcomes.append(
            ToolOutcome(
                self.call_id, self.name, self.arguments, text_of_tool(out), status, self.verdict
            )
        )
        return out


def stage1_messages(session: LoopSession) -> list[BaseMessage]:
    """The stage-1 [user, assistant] pair as LangChain messages."""
    msgs = _lc()
    return [
        msgs.HumanMessage(content=m["content"])
        if m["role"] == "user"
        else msgs.AIMessage(content=m["content"])
        for m in session.stage1
    ]


def text_of_tool(message: Any) -> str:
    content = getattr(message, "content", message)
    return content if isinstance(content, str) else text_of(content)


def _guarded(tool: BaseTool, hook: DctxHook) -> BaseTool:
    """`tool` behind the hook's guards; the original tool does the work."""
    from langchain_core.tools import BaseTool

    class GuardedTool(BaseTool):
        inner: BaseTool

        def _run(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover - invoke is used
            return self.inner.invoke(kwargs)

        def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
            if not (isinstance(input, dict) and input.get("type") == "tool_call"):
                return self.inner.invoke(input, config, **kwargs)
            return hook.run_tool(
                str(input["id"]),
                self.name,
                dict(input.get("args") or {}),
                config if config is not None else current_config(),
                lambda args: self.inner.invoke({**input, "args": args}, config, **kwargs),
            )

        async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
            # the guard must also stand in front of async graphs; the tool runs synchronously
            return self.invoke(input, config, **kwargs)

    return GuardedTool(
        name=tool.name,
        description=tool.description,
        args_schema=tool.args_schema,
        inner=tool,
    )


__all__ = ["Caller", "DctxHook", "current_config", "stage1_messages"]
