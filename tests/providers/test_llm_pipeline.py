"""`Memory(llm=...)` end to end: the real OpenAI / Anthropic SDKs against the local wire
server, its scripted answers turned into stored rules; fallback, caching and cost accounting."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dctx.memory import Memory
from dctx.models import EvidenceKind, RuleSource, TriggerKind
from dctx.providers.base import Embedder
from dctx.providers.llm import resolve_llm
from dctx.providers.retry import RetryPolicy
from dctx.store.sqlite import SQLiteStore
from pipeline.traces import assistant, call, result, user
from providers.step_model import (
    PERIOD_RULE,
    SEGMENT_RULE,
    StepModel,
    embedding_tokens,
    llm_requests,
    reported,
    step_of,
    user_of,
)
from providers.wire_server import (
    EMBEDDINGS,
    Reply,
    Request,
    WireServer,
    anthropic_error,
    openai_chat,
    openai_error,
)

CORRECTION = "Always report growth separately for each business segment."
AMBIGUOUS = "Hmm, the chart looked cluttered to me."
TRACE: list[dict[str, Any]] = [
    user("Summarize Acme Corp's growth for 2024-Q3."),
    call("c1", "get_financials", company="Acme", period="Q3 2024"),
    result("c1", "Error: invalid period 'Q3 2024'; expected format YYYY-Qn"),
    call("c2", "get_financials", company="Acme", period="2024-Q3"),
    result("c2", {"revenue": [10, 12], "segments": {"cloud": 7, "devices": 5}}),
    assistant("Acme grew revenue 20% quarter over quarter."),
    user(CORRECTION),
    assistant("Cloud grew 30%, devices 5%."),
    user(AMBIGUOUS),
    assistant("Noted."),
]
NO_RETRY = RetryPolicy(max_retries=0)


def memory(path: Path, embedder: Embedder, llm: Any = None) -> Memory:
    return Memory(SQLiteStore(path), embedder=embedder, llm=llm)


def capture(mem: Memory, conversation_id: str = "s1") -> Any:
    return mem.capture(TRACE, actor="alice", skill="fin", conversation_id=conversation_id)


def spec(srv: WireServer, api: str) -> str:
    if api == "anthropic":
        return f"anthropic:claude-test@{srv.url}"
    return f"openai:gpt-4o-mini@{srv.openai_url}"


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_llm_steps_produce_rules_with_provenance(
    srv: WireServer,
    tmp_path: Path,
    embedder: Embedder,
    api: str,
) -> None:
    StepModel().install(srv)
    mem = memory(tmp_path / "m.db", embedder, spec(srv, api))
    try:
        report = capture(mem)
        rules = {r.text: r for r in mem.rules()}
        assert set(rules) == {SEGMENT_RULE, PERIOD_RULE}  # the dropped chart rule is not kept
        steps = [step_of(r) for r in llm_requests(srv)]
        # the reader was unsure of the opening request and both replies: the model decided all
        assert sorted(steps) == ["aftermath"] * 3 + ["compile", "self_assessment"]

        # the classifier's decision put the ambiguous turn into the compiled chain
        compile_req = next(r for r in llm_requests(srv) if step_of(r) == "compile")
        assert AMBIGUOUS in user_of(compile_req) and "Correction 2 of 2" in user_of(compile_req)
        assert report.corrections == 2

        # self-assessment saw tool calls only, never the conversation (paper, 4.1)
        assess_req = next(r for r in llm_requests(srv) if step_of(r) == "self_assessment")
        assert "get_financials" in user_of(assess_req)
        for text in ("Summarize Acme", "grew revenue", CORRECTION, AMBIGUOUS):
            assert text not in user_of(assess_req)

        segment = rules[SEGMENT_RULE]
        assert segment.source is RuleSource.CORRECTION
        assert segment.trigger.kind is TriggerKind.DATA and segment.trigger.keywords == ["segment"]
        assert segment.group == "segment_growth" and segment.scope.actor == "alice"
        assert mem.llm is not None and segment.history[0]["by"] == mem.llm.id
        why = mem.explain(segment.id)
        said = [e["text"] for e in why["evidence"]]
        assert said[0] == CORRECTION and AMBIGUOUS in said  # primary correction first
        assert why["evidence"][0]["conversation_id"] == "s1"
        assert why["evidence"][0]["message_index"] == 6
        assert why["trigger_node"] is not None

        period = rules[PERIOD_RULE]
        assert period.source is RuleSource.SELF_ASSESSMENT
        assert period.trigger.kind is TriggerKind.TOOL and period.trigger.tool == "get_financials"
        [ev] = mem.store.get_evidence(period.evidence_ids)
        assert ev.kind is EvidenceKind.TOOL_FAILURE
        assert json.loads(ev.text)["failed_args"] == {"period": "Q3 2024"}

        # the learned rule reaches a later run
        run = mem.start(actor="alice", skill="fin", query="Summarize Beta's growth.")
        units = run.observe(
            {"name": "get_financials", "arguments": {"company": "Beta"}},
            '{"segments": {"retail": 3, "wholesale": 4}}',
        )
        assert any(SEGMENT_RULE in u.text for u in [*run.units, *units])
    finally:
        mem.close()


def test_capture_usage_equals_what_the_servers_reported(
    srv: WireServer,
    tmp_path: Path,
) -> None:
    StepModel().install(srv)
    emb = f"openai-compatible:emb@{srv.openai_url}"
    mem = Memory(SQLiteStore(tmp_path / "m.db"), embedder=emb, llm=spec(srv, "openai"))
    try:
        before = len(srv.to(EMBEDDINGS))  # the embedder probed its dimension when built
        report = capture(mem)
        llm_in, llm_out = reported(llm_requests(srv))
        assert llm_in == 3 * 101 + 211 + 307  # one request per step, per unsure turn
        u = report.usage
        assert (u.llm_calls, u.llm_input_tokens, u.llm_output_tokens) == (5, llm_in, llm_out)
        assert u.embedding_tokens == embedding_tokens(srv.to(EMBEDDINGS)[before:]) > 0
        assert report.to_dict()["usage"]["llm_output_tokens"] == llm_out
        assert mem.llm is not None and report.reader == f"llm:{mem.llm.id}"  # the LLM read turns

        before = len(srv.to(EMBEDDINGS))
        run = mem.start(actor="alice", skill="fin", query="Summarize Beta's growth.")
        run.observe({"name": "get_financials", "arguments": {"company": "Beta"}}, "{}")
        assert run.usage.embedding_tokens == embedding_tokens(srv.to(EMBEDDINGS)[before:]) > 0
        assert run.usage.llm_tokens == 0
    finally:
        mem.close()


def test_recapture_is_served_from_the_store_cache(
    srv: WireServer,
    tmp_path: Path,
    embedder: Embedder,
) -> None:
    StepModel().install(srv)
    path = tmp_path / "m.db"
    with memory(path, embedder, spec(srv, "openai")) as mem:
        first = capture(mem)
    sent = len(llm_requests(srv))
    assert sent == 5 and first.usage.cache_hits == 0
    with memory(path, embedder, spec(srv, "openai")) as mem:  # a new process would do this
        assert capture(mem).unchanged == ["s1"]  # the same conversation again: nothing to do
        assert len(llm_requests(srv)) == sent
        # the same turns in another conversation reuse the cached answers; self-assessment
        # is asked again, since what it is sent names the conversation
        again = capture(mem, "s1-copy")
        assert len(llm_requests(srv)) == sent + 1
        assert again.usage.llm_calls == 1 and again.usage.cache_hits == 4  # three aftermaths
        assert again.added == []  # the same rules, reinforced
        assert {r.text for r in mem.rules()} == {SEGMENT_RULE, PERIOD_RULE}
        # cached answers go with the actor: 5, and the second conversation's self-assessment
        assert mem.forget_actor("alice")["cache"] == 6


def _content(text: str) -> Any:
    return lambda r: openai_chat(text)


def _status(code: int) -> Any:
    return lambda r: anthropic_error(code) if r.path.endswith("messages") else openai_error(code)


def _slow(r: Request) -> Reply:
    return Reply(body={}, delay=1.5)


FAILURES = {
    "malformed_json_content": ("openai", _content('{"rules": [ {"rule": ')),
    "malformed_body": ("openai", lambda r: Reply(body="<html>oops</html>")),
    "http_500": ("openai", _status(500)),
    "anthropic_500": ("anthropic", _status(500)),
    "timeout": ("openai", _slow),
}


@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_llm_failure_falls_back_to_the_deterministic_rules(
    srv: WireServer,
    tmp_path: Path,
    embedder: Embedder,
    failure: str,
) -> None:
    api, reply = FAILURES[failure]
    StepModel(fail=reply).install(srv)
    llm = resolve_llm(spec(srv, api), retry=NO_RETRY, timeout=0.3, env={})
    with memory(tmp_path / "plain.db", embedder) as plain:
        expected = capture(plain)
        plain_rows = plain.store.count_rows()
    assert expected.added, "the deterministic path learns from this trace"
    with memory(tmp_path / "llm.db", embedder, llm) as mem:
        report = capture(mem)
        assert sorted(r.text for r in report.added) == sorted(r.text for r in expected.added)
        assert {r.text for r in mem.rules()} == {r.text for r in expected.added}
        assert mem.store.count_rows() == plain_rows  # same rows, nothing cached
        assert (report.corrections, report.tool_signals) == (
            expected.corrections,
            expected.tool_signals,
        )
        assert report.usage.fallbacks == 5  # aftermath (three unsure turns), assessment, compile
        assert all(not r.history for r in mem.rules())
    assert {step_of(r) for r in llm_requests(srv)} == {"aftermath", "self_assessment", "compile"}


def test_without_llm_no_request_is_made(
    srv: WireServer,
    tmp_path: Path,
    embedder: Embedder,
) -> None:
    StepModel().install(srv)
    with memory(tmp_path / "m.db", embedder) as mem:
        report = capture(mem)
    assert llm_requests(srv) == [] and report.usage.llm_calls == 0
    assert PERIOD_RULE not in {r.text for r in report.added}


def test_a_decision_passed_on_is_the_teams_rule_on_the_llm_path_too(
    srv: WireServer, tmp_path: Path, embedder: Embedder
) -> None:
    StepModel().install(srv)
    mem = memory(tmp_path / "m.db", embedder, spec(srv, "openai"))
    announced = (
        "The board changed the policy last night: growth is reported separately for each "
        "business segment now."
    )
    trace = [{**m, "content": announced} if m.get("content") == CORRECTION else m for m in TRACE]
    try:
        mem.capture(trace, actor="alice", skill="fin", conversation_id="s1")
        segment = next(r for r in mem.rules() if r.text == SEGMENT_RULE)
        assert segment.scope.actor is None  # every analyst of the skill, not only alice
    finally:
        mem.close()
