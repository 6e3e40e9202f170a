"""A user's script on dctx's public API, type-checked with `mypy --strict` by
tests/typing/test_user_script.py (dctx ships py.typed). It also runs, offline."""

from __future__ import annotations

from typing import Any

import dctx
from dctx import CaptureReport, DctxError, Memory, Rule, RuleStatus, Run, UserError
from dctx.errors import AgentLoopError, MaxTurnsError
from dctx.integrations import LoopResult, LoopSession, ToolCallRequest, ToolOutcome


def learn(mem: Memory) -> CaptureReport:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "How did Corvid grow?"},
        {"role": "assistant", "content": "Corvid grew 12%."},
        {"role": "user", "content": "Always break growth down by segment."},
    ]
    return mem.capture(messages, actor="kenji", skill="financial_analyst")


def stage1(mem: Memory) -> list[dict[str, Any]]:
    run: Run = mem.start(actor="kenji", skill="financial_analyst", query="How did Beta grow?")
    return run.messages


def active_rules(mem: Memory) -> list[str]:
    rules: list[Rule] = mem.rules(status=RuleStatus.ACTIVE)
    return [r.text for r in rules]


def wrap_my_loop(mem: Memory) -> ToolOutcome:
    session = LoopSession(mem, actor="kenji", skill="financial_analyst", query="Beta growth?")
    call = ToolCallRequest("c1", "get_segments", {"company": "Beta"})
    outcome = session.handle(call, {"get_segments": lambda company: {"segments": []}})
    system: str | None = session.system("Be brief.")
    assert system is None or system.startswith("Be brief.")
    return outcome


async def async_loop(client: Any, mem: Memory) -> LoopResult:
    from dctx.integrations import arun_openai_loop

    return await arun_openai_loop(
        client, mem, model="m", messages=[{"role": "user", "content": "hi"}]
    )


def main() -> int:
    with Memory(":memory:", embedder="hashing") as mem:
        report = learn(mem)
        assert report.sessions == 1
        first = active_rules(mem)
        assert first, "a rule was learned"
        explained: dict[str, Any] = mem.explain(mem.rules()[0].id)
        assert explained["evidence"]
        assert isinstance(stage1(mem), list)
        assert wrap_my_loop(mem).status == "ok"
    return 0


def errors() -> tuple[type[DctxError], ...]:
    caught: tuple[type[DctxError], ...] = (UserError, AgentLoopError, MaxTurnsError)
    assert dctx.__version__
    return caught


if __name__ == "__main__":
    raise SystemExit(main())
