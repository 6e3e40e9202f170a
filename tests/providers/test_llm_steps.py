"""The three LLM steps (aftermath, self-assessment, compile): validation, fallback, caching."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dctx.capture.base import (
    Aftermath,
    AftermathClassifier,
    CorrectionSignal,
    SessionContext,
    ToolPattern,
)
from dctx.capture.reading.llm import AFTERMATH, LLMAftermathClassifier, render_aftermath
from dctx.capture.self_assess_llm import ToolStep, llm_self_assess, tool_steps
from dctx.compile.compiler_llm import llm_compile_chain
from dctx.errors import StoreError
from dctx.models import Message, Session, ToolCall, TriggerKind
from dctx.providers.fakes import ScriptedLLM
from dctx.providers.llm import resolve_llm
from dctx.providers.llm_step import MemoryCache, StoreCache, cache_key
from dctx.providers.retry import RetryPolicy
from dctx.providers.usage import metering
from dctx.store.sqlite import SQLiteStore
from providers.step_model import compiled
from providers.wire_server import (
    CHAT,
    MESSAGES,
    WireServer,
    anthropic_message,
    openai_chat,
    openai_error,
)

CTX = SessionContext(
    namespace="default", conversation_id="s1", actor="alice", skill="fin", timestamp="t"
)
NO_RETRY = RetryPolicy(max_retries=0)


def signal(raw: str, *, previous: str = "Acme grew 20%.", **kw: Any) -> CorrectionSignal:
    return CorrectionSignal(
        ctx=CTX,
        aftermath=kw.pop("aftermath", Aftermath.CORRECTION),
        directive=raw,
        raw=raw,
        message_index=kw.pop("message_index", 4),
        chain=0,
        situation=kw.pop("situation", "user: Summarize Acme Corp's growth.\ncall get_financials"),
        query="Summarize Acme Corp's growth.",
        previous_output=previous,
        subjects=["Acme"],
        subject_keys={"Acme": "company"},
        tools_seen=["get_financials"],
        last_tool="get_financials",
        **kw,
    )


RULE = compiled(
    "Report growth separately for each reported segment.",
    qualifiers=["when a company reports segments"],
    group="Segment Growth",
)


# --------------------------------------------------------------------------- aftermath


def test_classifier_is_an_aftermath_classifier_and_decides() -> None:
    llm = ScriptedLLM().when("Agent output", {"aftermath": "one_off"})
    clf = LLMAftermathClassifier(llm)
    assert isinstance(clf, AftermathClassifier)
    assert clf.classify("Here is the report.", "just for this one, drop the chart") == (
        Aftermath.ONE_OFF
    )
    user = llm.calls[0].user
    assert "Here is the report." in user and "drop the chart" in user
    assert llm.calls[0].system == AFTERMATH.system


def test_classifier_returns_none_on_failure_and_for_empty_text() -> None:
    llm = ScriptedLLM(['{"aftermath": "perhaps"}', "???"])
    clf = LLMAftermathClassifier(llm)
    assert clf.classify("out", "hmm, interesting") is None
    assert len(llm.calls) == 2
    assert clf.classify("out", "   ") is None
    assert len(llm.calls) == 2  # no call for an empty turn


@pytest.fixture
def srv() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


def test_classifier_through_openai_sdk_with_cache(srv: WireServer) -> None:
    llm = resolve_llm(f"openai-compatible:m@{srv.openai_url}", retry=NO_RETRY, env={})
    cache = MemoryCache()
    clf = LLMAftermathClassifier(llm, cache=cache)
    srv.script(CHAT, openai_chat('{"aftermath": "correction"}', prompt_tokens=50))
    with metering() as first:
        assert clf.classify("Acme grew 20%.", "oh and add USD next to amounts") is (
            Aftermath.CORRECTION
        )
    with metering() as again:
        assert clf.classify("Acme grew 20%.", "oh and add USD next to amounts") is (
            Aftermath.CORRECTION
        )
    assert len(srv.to(CHAT)) == 1  # the re-capture was served from the cache
    assert first.totals().llm_input_tokens == 50
    assert again.totals().llm_tokens == 0 and again.totals().cache_hits == 1
    assert len(cache) == 1


def test_classifier_falls_back_when_server_fails(srv: WireServer) -> None:
    llm = resolve_llm(f"openai-compatible:m@{srv.openai_url}", retry=NO_RETRY, env={})
    cache = MemoryCache()
    srv.script(CHAT, openai_error(500))
    assert LLMAftermathClassifier(llm, cache=cache).classify("o", "u") is None
    assert len(cache) == 0  # failures are not cached


def test_cache_key_depends_on_llm_and_input() -> None:
    a = cache_key(AFTERMATH, "openai:x", "u")
    assert a == cache_key(AFTERMATH, "openai:x", "u")
    assert a != cache_key(AFTERMATH, "openai:y", "u")
    assert a != cache_key(AFTERMATH, "openai:x", "v")
    assert a.startswith("llm:aftermath:")


def test_unreadable_cache_entry_is_ignored() -> None:
    cache = MemoryCache()
    llm = ScriptedLLM(['{"aftermath": "acceptance"}'])
    clf = LLMAftermathClassifier(llm, cache=cache)
    cache.put(cache_key(AFTERMATH, llm.id, render_aftermath("o", "thanks")), "garbage")
    assert clf.classify("o", "thanks") is Aftermath.ACCEPTANCE
    assert len(llm.calls) == 1


class _BrokenCache:
    def get(self, key: str) -> str | None:
        raise StoreError("database is locked")

    def put(self, key: str, value: str) -> None:
        raise StoreError("database is locked")


def test_cache_failures_do_not_stop_the_step() -> None:
    llm = ScriptedLLM(['{"aftermath": "new_request"}'])
    clf = LLMAftermathClassifier(llm, cache=_BrokenCache())
    assert clf.classify("o", "now do Beta") is Aftermath.NEW_REQUEST


def test_store_cache_persists_across_reopen_and_is_forgotten_with_actor(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    llm = ScriptedLLM(['{"aftermath": "correction"}'])
    store = SQLiteStore(path)
    try:
        clf = LLMAftermathClassifier(llm, cache=StoreCache(store, namespace="ns", actor="alice"))
        assert clf.classify("o", "use EUR") is Aftermath.CORRECTION
    finally:
        store.close()
    store = SQLiteStore(path)
    try:
        clf = LLMAftermathClassifier(llm, cache=StoreCache(store, namespace="ns", actor="alice"))
        assert clf.classify("o", "use EUR") is Aftermath.CORRECTION
        assert len(llm.calls) == 1  # the second capture cost nothing
        store.forget_actor("ns", "alice")
        llm.queue('{"aftermath": "acceptance"}')
        assert clf.classify("o", "use EUR") is Aftermath.ACCEPTANCE  # cache entry deleted
    finally:
        store.close()


# --------------------------------------------------------------------------- compile


def test_compile_chain_returns_validated_rules() -> None:
    dropped = {**RULE, "rule": "Fix the typo.", "group": "typo", "drop": True}
    llm = ScriptedLLM([{"rules": [RULE, dropped]}])
    chain = [signal("When a company reports segments, give growth per segment.")]
    rules = llm_compile_chain(llm, chain, tools=["get_financials", "get_news"])
    assert rules is not None and len(rules) == 2
    first = rules[0]
    assert first.keep and not rules[1].keep
    assert first.group == "segment_growth"  # normalized label
    trig = first.to_trigger(node_id="node_1")
    assert trig.kind is TriggerKind.DATA
    assert trig.keywords == ["segments"] and trig.node_id == "node_1" and trig.tool is None
    prompt = llm.calls[0].user
    assert "Tools: get_financials, get_news" in prompt
    assert "When a company reports segments" in prompt
    assert "Acme (argument 'company')" in prompt


def test_compile_rejects_invented_tools_then_accepts_retry() -> None:
    bad = {**RULE, "trigger": {**RULE["trigger"], "kind": "tool", "tool": "get_stock_price"}}
    good = {
        **RULE,
        "trigger": {**RULE["trigger"], "kind": "tool", "tool": "get_financials", "numeric": None},
    }
    llm = ScriptedLLM([{"rules": [bad]}, {"rules": [good]}])
    rules = llm_compile_chain(llm, [signal("Always pass the ticker to get_financials.")])
    assert rules is not None and rules[0].trigger.tool == "get_financials"
    assert "unknown tool 'get_stock_price'" in llm.calls[1].user
    assert rules[0].to_trigger().tool == "get_financials"


def test_compile_numeric_trigger() -> None:
    rule = {
        **RULE,
        "trigger": {
            **RULE["trigger"],
            "text": "runway is under 12 months",
            "keywords": [],
            "numeric": {"terms": ["runway", "months"], "op": "<", "value": 12},
        },
    }
    rules = llm_compile_chain(ScriptedLLM([{"rules": [rule]}]), [signal("Flag short runway.")])
    assert rules is not None
    numeric = rules[0].to_trigger().numeric
    assert numeric is not None and (numeric.op, numeric.value) == ("<", 12.0)


def test_compile_falls_back_to_none_and_empty_chain_costs_nothing() -> None:
    llm = ScriptedLLM(['{"rules": [{"rule": ""}]}', "nonsense"])
    assert llm_compile_chain(llm, [signal("x")]) is None
    assert llm_compile_chain(llm, []) == []
    assert len(llm.calls) == 2


def test_compile_through_anthropic_sdk(srv: WireServer) -> None:
    llm = resolve_llm(f"anthropic:claude-x@{srv.url}", api_key="k", retry=NO_RETRY, env={})
    srv.script(MESSAGES, anthropic_message(json.dumps({"rules": [RULE]}), input_tokens=400))
    cache = MemoryCache()
    chain = [
        signal("Give growth per segment."),
        signal("Actually, per segment only for enterprise clients.", message_index=6),
    ]
    with metering() as meter:
        rules = llm_compile_chain(llm, chain, cache=cache)
        again = llm_compile_chain(llm, chain, cache=cache)
    assert rules is not None and again is not None
    assert [r.rule for r in rules] == [r.rule for r in again]
    assert len(srv.to(MESSAGES)) == 1
    assert meter.totals().llm_input_tokens == 400 and meter.totals().cache_hits == 1
    body = srv.to(MESSAGES)[0].json
    assert body["output_config"]["format"]["schema"]["title"] == "CompileOutput"
    assert "Correction 2 of 2" in body["messages"][0]["content"]


# --------------------------------------------------------------------------- self-assessment


def _session() -> Session:
    msgs = [
        Message(0, "user", "Please check the VPC flow logs for Acme; my password is hunter2."),
        Message(1, "assistant", "", [ToolCall("c1", "scan_vpc", {"vpc": "vpc-0old"})]),
        Message(2, "tool", "Error: 410 Gone - vpc-0old was decommissioned", tool_call_id="c1"),
        Message(3, "assistant", "", [ToolCall("c2", "list_vpcs", {"account": "acme"})]),
        Message(4, "tool", '{"vpcs": ["vpc-0new"], "secret_note": "SECRET"}', tool_call_id="c2"),
        Message(5, "assistant", "", [ToolCall("c3", "scan_vpc", {"vpc": "vpc-0new"})]),
        Message(6, "tool", '{"flows": 12}', tool_call_id="c3"),
        Message(7, "assistant", "Acme's VPC shows 12 flows. I think we're fine."),
    ]
    return Session(conversation_id="s1", messages=msgs, actor="alice", skill="secops")


def test_tool_steps_hold_tool_only_data() -> None:
    steps = tool_steps([_session()])
    assert [(s.tool, s.ok) for s in steps] == [
        ("scan_vpc", False),
        ("list_vpcs", True),
        ("scan_vpc", True),
    ]
    assert steps[0].arguments == {"vpc": "vpc-0old"}
    assert "decommissioned" in steps[0].error
    assert steps[0].message_indexes == [1, 2]
    assert steps[1].error == ""  # successful results are never carried


def test_self_assessment_prompt_never_sees_the_conversation() -> None:
    answer = {
        "patterns": [
            {
                "pattern": "dead_source",
                "tool": "scan_vpc",
                "other_tool": "list_vpcs",
                "after_tool": None,
                "failed_args": [{"name": "vpc", "value": "vpc-0old"}],
                "success_args": [{"name": "vpc", "value": '"vpc-0new"'}],
                "error": "410 Gone",
                "steps": [0, 2, 99],
                "directive": "Do not scan vpc-0old; list the VPCs first and scan vpc-0new.",
            }
        ]
    }
    llm = ScriptedLLM([answer])
    found = llm_self_assess(llm, tool_steps([_session()]))
    sent = llm.calls[0].system + llm.calls[0].user
    for private in ("hunter2", "flow logs", "I think we're fine", "SECRET", "12 flows"):
        assert private not in sent  # paper 4.1: tool-only input
    assert "scan_vpc" in sent and "vpc-0old" in sent and "FAILED" in sent
    assert found is not None and len(found) == 1
    p = found[0]
    assert p.pattern is ToolPattern.DEAD_SOURCE
    assert p.failed_args == {"vpc": "vpc-0old"} and p.success_args == {"vpc": "vpc-0new"}
    assert p.message_indexes == [1, 2, 5, 6]  # step 99 does not exist and is dropped
    assert p.conversation_ids == ["s1"]
    sig = p.to_signal(CTX)
    assert sig.tool == "scan_vpc" and sig.other_tool == "list_vpcs" and sig.occurrences == 1


def test_self_assessment_without_failures_makes_no_call() -> None:
    llm = ScriptedLLM()
    steps = [ToolStep(tool="get", arguments={}, ok=True)]
    assert llm_self_assess(llm, steps) == []
    assert llm.calls == []


def test_self_assessment_rejects_invented_tools() -> None:
    invented = {
        "patterns": [{"pattern": "dead_source", "tool": "delete_everything", "directive": "Do it."}]
    }
    llm = ScriptedLLM([invented, invented])
    assert llm_self_assess(llm, tool_steps([_session()])) is None
    assert "unknown tool" in llm.calls[1].user


def test_self_assessment_accepts_empty_and_lenient_lists() -> None:
    llm = ScriptedLLM(
        [
            '{"patterns": null}',
            '{"patterns": [{"pattern": "recurring_failure", '
            '"tool": "scan_vpc", "directive": "Stop scanning vpc-0old.", "steps": null}]}',
        ]
    )
    steps = tool_steps([_session()])
    assert llm_self_assess(llm, steps) == []
    found = llm_self_assess(llm, steps)
    assert found is not None and found[0].message_indexes == []
