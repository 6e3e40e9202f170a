"""complete_json: parsing, validation, one retry, fallback to None (logged), never raising."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest

from dctx.capture.reading.llm import AFTERMATH, AftermathOutput
from dctx.errors import ProviderError
from dctx.providers.fakes import ScriptedLLM
from dctx.providers.llm import resolve_llm
from dctx.providers.retry import RetryPolicy
from dctx.providers.structured import complete_json, extract_json, schema_instruction
from dctx.providers.usage import metering
from providers.wire_server import CHAT, WireServer, openai_chat, openai_error

SCHEMA = AFTERMATH.schema


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('```json\n{"a": [1, 2]}\n```', {"a": [1, 2]}),
        ('Sure! Here it is:\n{"a": "x"}\nHope that helps.', {"a": "x"}),
        ('<think>maybe {"a": 0}?</think>\n{"a": 2}', {"a": 2}),
        ("[1, 2]", [1, 2]),
    ],
)
def test_extract_json(text: str, expected: Any) -> None:
    assert extract_json(text) == expected


def test_extract_json_rejects_prose() -> None:
    with pytest.raises(ValueError, match="no JSON"):
        extract_json("I think it is a correction.")
    with pytest.raises(ValueError):
        extract_json('{"a": 1')


def test_valid_output_is_validated_into_the_model() -> None:
    llm = ScriptedLLM(['{"aftermath": "withdrawal", "confidence": 0.9}'])
    out = complete_json(llm, "sys", "u", SCHEMA, AftermathOutput.model_validate)
    assert isinstance(out, AftermathOutput)
    assert out.aftermath == "withdrawal"  # extra keys ignored
    assert llm.calls[0].schema == SCHEMA


def test_invalid_output_is_retried_once_with_the_error_shown() -> None:
    llm = ScriptedLLM(['{"aftermath": "maybe"}', '{"aftermath": "acceptance"}'])
    out = complete_json(llm, "sys", "the input", SCHEMA, AftermathOutput.model_validate)
    assert out is not None and out.aftermath == "acceptance"
    retry_prompt = llm.calls[1].user
    assert retry_prompt.startswith("the input")
    assert '{"aftermath": "maybe"}' in retry_prompt
    assert "rejected" in retry_prompt and "aftermath" in retry_prompt


def test_twice_invalid_returns_none_and_logs(caplog: pytest.LogCaptureFixture) -> None:
    llm = ScriptedLLM(["no json here", '{"aftermath": 3}', '{"aftermath": "correction"}'])
    with caplog.at_level(logging.INFO, logger="dctx.providers.structured"):
        out = complete_json(
            llm, "sys", "u", SCHEMA, AftermathOutput.model_validate, step="aftermath"
        )
    assert out is None
    assert len(llm.calls) == 2  # one retry, not more
    assert llm.pending == 1
    assert any(
        r.levelno == logging.WARNING and "'aftermath'" in r.getMessage() for r in caplog.records
    )


def test_retries_zero_and_non_object() -> None:
    llm = ScriptedLLM(["[1, 2]", '{"x": 1}'])
    assert complete_json(llm, "s", "u", {"type": "object"}, retries=0) is None
    assert len(llm.calls) == 1


def test_validator_type_errors_count_as_invalid() -> None:
    def picky(data: dict[str, Any]) -> int:
        return int(data["n"]) + 0  # KeyError / ValueError / TypeError when wrong

    llm = ScriptedLLM(['{"m": 1}', '{"n": "7"}'])
    assert complete_json(llm, "s", "u", {"type": "object"}, picky) == 7


def test_provider_failure_returns_none(caplog: pytest.LogCaptureFixture) -> None:
    llm = ScriptedLLM([ProviderError("503 after 3 retries")])
    with metering() as meter, caplog.at_level(logging.WARNING):
        assert complete_json(llm, "s", "u", SCHEMA) is None
    assert meter.totals().fallbacks == 1
    assert "503 after 3 retries" in caplog.text


def test_unexpected_exception_from_a_user_llm_also_falls_back() -> None:
    llm = ScriptedLLM([RuntimeError("bug in a custom LLM")])
    assert complete_json(llm, "s", "u", SCHEMA) is None


def test_schema_instruction_carries_the_schema() -> None:
    text = schema_instruction(SCHEMA)
    assert '"enum":["correction","acceptance","new_request","withdrawal","one_off"]' in text


# --- through the real SDK -------------------------------------------------------------------


@pytest.fixture
def srv() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


def _llm(srv: WireServer) -> Any:
    return resolve_llm(
        f"openai-compatible:m@{srv.openai_url}",
        retry=RetryPolicy(max_retries=1, initial_delay=0.0, jitter=0),
        env={},
    )


def test_wire_malformed_model_json_then_valid(srv: WireServer) -> None:
    srv.script(CHAT, openai_chat('{"aftermath": "corr'), openai_chat('{"aftermath": "correction"}'))
    out = complete_json(_llm(srv), "s", "u", SCHEMA, AftermathOutput.model_validate)
    assert out is not None and out.aftermath == "correction"
    assert len(srv.to(CHAT)) == 2
    assert "rejected" in srv.to(CHAT)[1].json["messages"][-1]["content"]


def test_wire_server_errors_fall_back_to_none(srv: WireServer) -> None:
    srv.script(
        CHAT, openai_error(500), openai_error(500), openai_chat('{"aftermath": "acceptance"}')
    )
    with metering() as meter:
        assert complete_json(_llm(srv), "s", "u", SCHEMA) is None
    assert len(srv.to(CHAT)) == 2  # 1 try + 1 retry, then the deterministic path
    assert meter.totals().fallbacks == 1 and meter.totals().llm_calls == 0
