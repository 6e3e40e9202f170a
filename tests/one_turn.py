"""One correcting turn after a small exchange, captured into a fresh memory, and the active
rules it leaves (or, before compile, the directives capture reads in it). The stub reader is
sure of that turn, so a test decides what is a correction and checks what capture and compile
make of it."""

from __future__ import annotations

from pathlib import Path

from dctx.capture.corrections import find_corrections
from dctx.capture.parse import parse_messages
from dctx.memory import Memory
from dctx.models import Rule, RuleStatus
from stub_reader import SureOf


def exchange(task: str, reply: str, turn: str) -> list[dict[str, str]]:
    """A task, the agent's reply, then the turn that follows it."""
    return [
        {"role": "user", "content": task},
        {"role": "assistant", "content": reply},
        {"role": "user", "content": turn},
    ]


def active_rules(
    tmp_path: Path, turn: str, *, task: str, reply: str, actor: str, skill: str
) -> list[Rule]:
    messages = exchange(task, reply, turn)
    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(turn)) as memory:
        memory.capture(messages, actor=actor, skill=skill, conversation_id="c1")
        return memory.rules(status=RuleStatus.ACTIVE)


def directives_of(turn: str, *, task: str, reply: str, skill: str) -> list[str]:
    """The directive sentences capture reads in the turn (before compile)."""
    messages = exchange(task, reply, turn)
    session = parse_messages(messages, conversation_id="c1", actor="ana", skill=skill)
    return [s.directive for s in find_corrections(session, reader=SureOf(turn))]
