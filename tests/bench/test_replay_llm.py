"""benchmarks/realconv/replay_llm.py: recorded compile answers replayed over the OpenAI wire."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.realconv_kit import SESSIONS, write_corpus
from dctx.bench.realconv.corpus import load_corpus
from dctx.compile.compiler_llm import COMPILE
from dctx.errors import ConfigError
from dctx.memory import Memory
from dctx.models import RuleStatus
from dctx.providers.base import Embedder
from providers.step_model import compiled
from providers.wire_server import CHAT, WireServer
from stub_reader import SureOf

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # benchmarks/ is a folder of the repository, not of the wheel
replay_llm: Any = importlib.import_module("benchmarks.realconv.replay_llm")

STANDING = SESSIONS[0]["turns"][2]["text"]
REPLAYED = "Run ruff on the changed files before every commit."
ALWAYS: dict[str, Any] = {
    "kind": "always",
    "text": "",
    "keywords": [],
    "tool": None,
    "after_tool": None,
}


def capture(tmp: Path, replayer: Any, embedder: Embedder) -> list[str]:
    """Capture session s1 of the tiny corpus with the wire server answering from `replayer`."""
    (session,) = [s for s in load_corpus(write_corpus(tmp / "data")) if s.session_id == "s1"]
    with WireServer() as srv:
        srv.respond(CHAT, replayer)
        llm = f"openai-compatible:replay@{srv.openai_url}"
        with Memory(tmp / "m.db", embedder=embedder, reader=SureOf(STANDING), llm=llm) as mem:
            mem.capture_sessions([session.to_session(actor="alice", skill="coding")])
            return [r.text for r in mem.rules(status=list(RuleStatus))]


def lint_rule(**over: Any) -> dict[str, Any]:
    rule: dict[str, Any] = compiled(
        REPLAYED, type="CONTENT", group="lint_before_commit", trigger={**ALWAYS, "numeric": None}
    )
    return {**rule, **over}


def test_a_replayed_compile_answer_becomes_the_stored_rule(
    tmp_path: Path, embedder: Embedder
) -> None:
    recorder = replay_llm.Replayer({}, {})
    offline = capture(tmp_path / "record", recorder, embedder)
    [(pid, prompt)] = recorder.compile.seen.items()
    assert STANDING in prompt and pid == replay_llm.prompt_id(prompt)
    assert offline and REPLAYED not in offline  # the 400 left the offline rule in place

    answers = tmp_path / "answers.jsonl"
    line = {"id": pid, "answer": {"rules": [lint_rule()]}}
    answers.write_text(json.dumps(line) + "\n", encoding="utf-8")
    replayer = replay_llm.Replayer({}, replay_llm.load_compile_answers([answers]))
    assert capture(tmp_path / "replay", replayer, embedder) == [REPLAYED]
    assert replayer.compile.answered == {pid} and not replayer.compile.rejected


def test_an_answer_the_step_rejects_is_counted_and_the_offline_rule_kept(
    tmp_path: Path, embedder: Embedder
) -> None:
    recorder = replay_llm.Replayer({}, {})
    offline = capture(tmp_path / "record", recorder, embedder)
    [pid] = recorder.compile.seen
    # not through the loader, which would refuse it: the step's retry must be told apart
    replayer = replay_llm.Replayer({}, {pid: {"rules": [lint_rule(rule=" ")]}})
    assert capture(tmp_path / "replay", replayer, embedder) == offline
    assert replayer.compile.rejected == {pid} and list(replayer.compile.seen) == [pid]


@pytest.mark.parametrize(
    ("answer", "field"),
    [
        ({"rules": [lint_rule(trigger={**ALWAYS, "kind": "sometimes"})]}, "rules.0.trigger.kind"),
        ({"rules": [lint_rule(), lint_rule(grup="x")]}, "rules.1.grup"),
        ({"rules": [lint_rule(), lint_rule(trigger={**ALWAYS, "kind": "tool"})]}, "rules.1"),
        ({"rules": [lint_rule(type="STYLE")]}, "rules.0.type"),
        ({"rule": REPLAYED}, "rules"),
        (["not", "an", "object"], "answer"),
    ],
)
def test_a_malformed_compile_answer_names_its_id_and_field(
    tmp_path: Path, answer: Any, field: str
) -> None:
    path = tmp_path / "answers.jsonl"
    good = {"id": "a" * 16, "answer": {"rules": [lint_rule()]}}
    path.write_text(f"{json.dumps(good)}\n{json.dumps({'id': 'b' * 16, 'answer': answer})}\n")
    with pytest.raises(replay_llm.AnswerFormatError) as caught:
        replay_llm.load_compile_answers([path])
    err = caught.value
    assert isinstance(caught.value, ConfigError)  # a user mistake, in the one tree
    assert (err.id, err.field, err.line) == ("b" * 16, field, 2)
    assert f"answers.jsonl:2: answer for prompt '{'b' * 16}', field '{field}'" in str(err)


def test_a_malformed_turn_answer_names_its_id_and_field(tmp_path: Path) -> None:
    path = tmp_path / "turns.jsonl"
    path.write_text('{"id": "t1", "aftermath": "correction"}\n{"id": "t2", "aftermath": "maybe"}\n')
    with pytest.raises(replay_llm.AnswerFormatError) as caught:
        replay_llm.load_turn_answers([path])
    assert (caught.value.id, caught.value.field) == ("t2", "aftermath")


def test_record_with_turn_answers_writes_the_compile_prompts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_corpus(tmp_path / "data")
    turns, compiles = tmp_path / "turns.jsonl", tmp_path / "compile.jsonl"
    common = ["--data", str(data), "--split", "test"]
    replay_llm.main(["record", *common, "--prompts", str(turns)])
    asked = [json.loads(line) for line in turns.read_text().splitlines()]
    assert any(STANDING in row["prompt"] for row in asked)
    answers = tmp_path / "turn_answers.jsonl"
    rows = [
        {"id": r["id"], "aftermath": "correction" if STANDING in r["prompt"] else "new_request"}
        for r in asked
    ]
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows))

    capsys.readouterr()
    replay_llm.main(
        ["record", *common, "--answers", str(answers), "--compile-prompts", str(compiles)]
    )
    out = capsys.readouterr().out
    assert f"turn prompts: {len(asked)}, answered from the file: {len(asked)}" in out
    [prompt] = [json.loads(line) for line in compiles.read_text().splitlines()]
    assert set(prompt) == {"id", "system", "prompt"} and prompt["system"] == COMPILE.system
    assert STANDING in prompt["prompt"] and prompt["id"] == replay_llm.prompt_id(prompt["prompt"])

    compile_answers = tmp_path / "compile_answers.jsonl"
    line = {"id": prompt["id"], "answer": {"rules": [lint_rule()]}}
    compile_answers.write_text(json.dumps(line) + "\n")
    replay_llm.main(
        ["replay", *common, "--answers", str(answers), "--compile-answers", str(compile_answers)]
    )
    out = capsys.readouterr().out
    assert "compile prompts: 1, answered from the file: 1, rejected by the step" in out
    assert "warning" not in out


def test_check_names_the_prompts_left_unanswered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prompts, answers = tmp_path / "prompts.jsonl", tmp_path / "answers.jsonl"
    rows = [{"id": pid, "system": COMPILE.system, "prompt": "..."} for pid in ("p1", "p2")]
    prompts.write_text("".join(json.dumps(r) + "\n" for r in rows))
    answers.write_text(json.dumps({"id": "p1", "answer": {"rules": [lint_rule()]}}) + "\n")
    with pytest.raises(SystemExit) as caught:
        replay_llm.main(["check", "--compile-answers", str(answers), "--against", str(prompts)])
    assert caught.value.code == 1
    out = capsys.readouterr().out
    assert "2 compile prompts: 1 without an answer" in out and "no answer: p2" in out
