"""dctx inside a LangGraph agent: a pre-model hook plus guarded tools.

    hook = DctxHook(mem, actor="ana", skill="analyst")
    agent = create_react_agent(model, hook.wrap_tools(tools), pre_model_hook=hook)
    state = agent.invoke({"messages": [("user", "Where is GLBX trading?")]})
    hook.capture(state["messages"])      # close the feedback loop

Before every model call the hook starts a run for the latest user message (stage 1, as a
fabricated user/assistant pair) and observes the tool results that arrived since the last
call (stage 2, added to the system message). It returns them as `llm_input_messages`, so
the graph's `messages` state never holds dctx's injections. `wrap_tools` puts the guards in
front of each tool: a corrected call runs with fixed arguments; a rejected one does not run
and its ToolMessage (status "error") tells the model why. In a hand-built StateGraph, call the
hook in the node before the model and use its `llm_input_messages`.

One hook serves one run at a time (it keeps the current run's state); build one per
concurrent conversation. `capture` follows the loop policy of `_loop`: call it only when the
graph finished; rejected calls are left out and corrected calls keep the arguments that ran.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from dctx.errors import MissingDependencyError
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


class DctxHook:
    """A LangGraph `pre_model_hook` that injects dctx rules, with guards for the tools."""

    def __init__(
        self,
        memory: Memory,
        *,
        actor: str,
        skill: str,
        tools: Sequence[str] | None = None,
        guards: bool = True,
    ) -> None:
        _lc()
        self.memory = memory
        self.actor = actor
        self.skill = skill
        self.tool_names = list(tools) if tools is not None else None
        self.guards = guards
        self.session: LoopSession | None = None
        self._query_id: str | None = None
        self._seen: set[str] = set()  # tool_call_ids already observed
        self.rejected: set[str] = set()
        self.executed: dict[str, dict[str, Any]] = {}  # tool_call_id -> arguments that ran

    # ------------------------------------------------------------------ the hook
    def __call__(self, state: Mapping[str, Any] | Any) -> dict[str, Any]:
        msgs = _lc()
        messages = list(state["messages"] if isinstance(state, Mapping) else state.messages)
        human = [m for m in messages if isinstance(m, msgs.HumanMessage)]
        if not human:
            raise AgentLoopError("the graph state needs a user message (the query of the run)")
        last = human[-1]
        key = last.id or str(len(messages))
        if self.session is None or key != self._query_id:
            self._start(
                text_of(last.content) if not isinstance(last.content, str) else last.content
            )
            self._query_id = key
        session = self.session
        assert session is not None
        calls = {
            c["id"]: c for m in messages if isinstance(m, msgs.AIMessage) for c in m.tool_calls
        }
        for m in messages:
            if not isinstance(m, msgs.ToolMessage) or m.tool_call_id in self._seen:
                continue
            self._seen.add(m.tool_call_id)
            call = calls.get(m.tool_call_id)
            if call is None or m.tool_call_id in self.rejected:
                continue
            args = self.executed.get(m.tool_call_id, call["args"])
            session.observe(call["name"], args, text_of_tool(m))
        return {"llm_input_messages": self._inject(messages)}

    def _start(self, query: str) -> None:
        self.session = LoopSession(
            self.memory,
            actor=self.actor,
            skill=self.skill,
            query=query,
            tools=self.tool_names,
            guards=self.guards,
        )
        self._seen = set()

    def _inject(self, messages: list[BaseMessage]) -> list[BaseMessage]:
        msgs = _lc()
        assert self.session is not None
        head: list[BaseMessage] = []
        rest = messages
        if messages and isinstance(messages[0], msgs.SystemMessage):
            base = messages[0].content if isinstance(messages[0].content, str) else None
            system = self.session.system(base)
            head = [msgs.SystemMessage(content=system or "")]
            rest = messages[1:]
        elif self.session.system(None):
            head = [msgs.SystemMessage(content=self.session.system(None) or "")]
        pair = [
            msgs.HumanMessage(content=m["content"])
            if m["role"] == "user"
            else msgs.AIMessage(content=m["content"])
            for m in self.session.stage1
        ]
        return [*head, *pair, *rest]

    # ------------------------------------------------------------------ guards
    def wrap_tools(self, tools: Sequence[BaseTool]) -> list[BaseTool]:
        """The tools with the guards in front of them (also fixes the run's tool names)."""
        if self.tool_names is None:
            self.tool_names = [t.name for t in tools]
        return [_guarded(t, self) for t in tools]

    # ------------------------------------------------------------------ capture
    def capture(self, messages: Sequence[BaseMessage]) -> CaptureReport:
        """Learn from the finished graph run (its final `messages`)."""
        msgs = _lc()
        if self.session is None:
            raise AgentLoopError("capture() needs a finished run: invoke the graph first")
        kept: list[BaseMessage] = []
        for m in messages:
            if isinstance(m, msgs.ToolMessage) and m.tool_call_id in self.rejected:
                continue
            if isinstance(m, msgs.AIMessage) and m.tool_calls:
                calls = [
                    {**c, "args": self.executed.get(c["id"], c["args"])}
                    for c in m.tool_calls
                    if c["id"] not in self.rejected
                ]
                if not calls and not m.content:
                    continue
                m = m.model_copy(update={"tool_calls": calls})
            kept.append(m)
        return self.session.capture(msgs.convert_to_openai_messages(kept))


def text_of_tool(message: Any) -> str:
    content = message.content
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
            session = hook.session
            if session is None:
                return self.inner.invoke(input, config, **kwargs)
            call_id = str(input["id"])
            verdict = session.check(self.name, dict(input.get("args") or {}))
            if verdict.action == "reject":
                hook.rejected.add(call_id)
                session.outcomes.append(
                    ToolOutcome(
                        call_id, self.name, verdict.arguments, verdict.message, "rejected", verdict
                    )
                )
                return _lc().ToolMessage(
                    content=verdict.message, tool_call_id=call_id, name=self.name, status="error"
                )
            session.checker.executed(self.name)
            hook.executed[call_id] = verdict.arguments
            out = self.inner.invoke({**input, "args": verdict.arguments}, config, **kwargs)
            status: Literal["ok", "error", "corrected"] = (
                "corrected" if verdict.action == "correct" else "ok"
            )
            if getattr(out, "status", None) == "error":
                status = "error"
            session.outcomes.append(
                ToolOutcome(
                    call_id, self.name, verdict.arguments, text_of_tool(out), status, verdict
                )
            )
            return out

        async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
            # the guard must also stand in front of async graphs; the tool runs synchronously
            return self.invoke(input, config, **kwargs)

    return GuardedTool(
        name=tool.name,
        description=tool.description,
        args_schema=tool.args_schema,
        inner=tool,
    )


__all__ = ["DctxHook"]
