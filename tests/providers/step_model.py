"""A scripted model for the wire server that answers dctx's three LLM steps.

`StepModel.install(srv)` makes the server's chat (OpenAI) and messages (Anthropic) routes
answer by the step a request is for (found from its system prompt), each step with its own
token counts, so tests can add up what the server reported and compare it with dctx's meters.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dctx.capture.reading.llm import AFTERMATH
from dctx.capture.self_assess_llm import SELF_ASSESSMENT
from dctx.compile.compiler_llm import COMPILE
from providers.wire_server import (
    CHAT,
    EMBEDDINGS,
    MESSAGES,
    Reply,
    Request,
    WireServer,
    anthropic_message,
    openai_chat,
)

#: (input tokens, output tokens) each step's reply reports
TOKENS = {"aftermath": (101, 3), "self_assessment": (211, 17), "compile": (307, 41)}

SEGMENT_RULE = "Break down the company's growth by business segment."
PERIOD_RULE = "Pass period to get_financials as YYYY-Qn, for example 2024-Q3."


def compiled(rule: str, **over: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "rule": rule,
        "type": "CONTENT",
        "trigger": {
            "kind": "data",
            "text": "the company reports segments",
            "keywords": ["segments"],
            "tool": None,
            "after_tool": None,
            "numeric": None,
        },
        "qualifiers": [],
        "group": "segment_growth",
        "subject": None,
        "drop": False,
        "skip": False,
    }
    out.update(over)
    return out


DEFAULT_ANSWERS: dict[str, Any] = {
    "aftermath": {"aftermath": "correction"},
    "self_assessment": {
        "patterns": [
            {
                "pattern": "retry_changed_args",
                "tool": "get_financials",
                "other_tool": None,
                "after_tool": None,
                "failed_args": [{"name": "period", "value": '"Q3 2024"'}],
                "success_args": [{"name": "period", "value": '"2024-Q3"'}],
                "error": "invalid period",
                "steps": [0, 1],
                "directive": PERIOD_RULE,
            }
        ]
    },
    "compile": {
        "rules": [
            compiled(SEGMENT_RULE),
            compiled(
                "Keep charts uncluttered.",
                type="FORMAT",
                group="chart_style",
                drop=True,
                trigger={
                    "kind": "always",
                    "text": "",
                    "keywords": [],
                    "tool": None,
                    "after_tool": None,
                    "numeric": None,
                },
            ),
        ]
    },
}

STEPS = {"aftermath": AFTERMATH, "self_assessment": SELF_ASSESSMENT, "compile": COMPILE}


def system_of(request: Request) -> str:
    body = request.json
    if request.path == MESSAGES:
        system = body.get("system", "")
        return system if isinstance(system, str) else json.dumps(system)
    return str(body["messages"][0]["content"])


def step_of(request: Request) -> str:
    system = system_of(request)
    for name, prompt in STEPS.items():
        if prompt.system in system:
            return name
    return "other"


def user_of(request: Request) -> str:
    body = request.json
    return str(body["messages"][-1]["content"])


@dataclass
class StepModel:
    """Answers each step with `answers[step]`; `fail` replaces every reply (outages)."""

    answers: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_ANSWERS))
    fail: Callable[[Request], Reply] | None = None

    def install(self, srv: WireServer) -> StepModel:
        srv.respond(CHAT, self._reply)
        srv.respond(MESSAGES, self._reply)
        return self

    def _reply(self, request: Request) -> Reply:
        if self.fail is not None:
            return self.fail(request)
        step = step_of(request)
        text = json.dumps(self.answers.get(step, {}))
        tin, tout = TOKENS.get(step, (1, 1))
        if request.path == MESSAGES:
            return anthropic_message(text, input_tokens=tin, output_tokens=tout)
        return openai_chat(text, prompt_tokens=tin, completion_tokens=tout)


def llm_requests(srv: WireServer) -> list[Request]:
    found: list[Request] = srv.to(CHAT) + srv.to(MESSAGES)
    return found


def reported(requests: list[Request]) -> tuple[int, int]:
    """The input and output tokens the server reported for these (successful) requests."""
    pairs = [TOKENS[step_of(r)] for r in requests]
    return sum(p[0] for p in pairs), sum(p[1] for p in pairs)


def embedding_tokens(requests: list[Request], per_input: int = 3) -> int:
    """What the wire server's embeddings responder reported for these requests."""
    total = 0
    for r in requests:
        assert r.path == EMBEDDINGS
        inputs = r.json["input"]
        total += per_input * (len(inputs) if isinstance(inputs, list) else 1)
    return total
