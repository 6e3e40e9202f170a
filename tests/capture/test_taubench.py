"""Parse + self-assess over real GPT-4o tau-bench airline traces (nobody on this project wrote
them). Skips when the data folder is absent; DCTX_TAUBENCH_DIR overrides where it is."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from dctx.capture.base import ToolPattern, ToolPatternSignal
from dctx.capture.parse import load_sessions
from dctx.capture.self_assess import assess
from dctx.capture.tool_errors import ErrorClass, classify_error
from dctx.models import Session

_DIR = Path(
    os.environ.get("DCTX_TAUBENCH_DIR")
    or Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "tau-bench"
)
_FILE = _DIR / "gpt-4o-airline.json"

pytestmark = pytest.mark.skipif(not _FILE.is_file(), reason=f"tau-bench data not found at {_DIR}")


@pytest.fixture(scope="module")
def raw() -> list[dict[str, Any]]:
    return json.loads(_FILE.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def sessions() -> list[Session]:
    return load_sessions(_FILE)


@pytest.fixture(scope="module")
def signals(sessions: list[Session]) -> list[ToolPatternSignal]:
    return assess(sessions)


def test_every_trajectory_parses(raw: list[dict[str, Any]], sessions: list[Session]) -> None:
    assert len(sessions) == len(raw) == 200
    assert len({s.conversation_id for s in sessions}) == 200
    assert {(s.actor, s.skill) for s in sessions} == {("tau-user", "airline_agent")}
    assert all(
        s.messages[0].role == "system" and "Airline" in s.messages[0].content for s in sessions
    )
    for record, session in zip(raw, sessions, strict=True):
        assert session.conversation_id == f"tau-{record['task_id']}-trial-{record['trial']}"
        assert [m.index for m in session.messages] == list(range(len(record["traj"])))


def test_tool_calls_and_errors_match_the_raw_file(
    raw: list[dict[str, Any]], sessions: list[Session]
) -> None:
    raw_calls = sum(len(m.get("tool_calls") or []) for r in raw for m in r["traj"])
    raw_results = [m for r in raw for m in r["traj"] if m["role"] == "tool"]
    calls = sum(len(m.tool_calls) for s in sessions for m in s.messages)
    results = [m for s in sessions for m in s.messages if m.role == "tool"]
    assert calls == raw_calls and 1100 <= calls <= 1250
    assert [m.tool_name for m in results] == [m["name"] for m in raw_results]
    errors = [m for m in results if m.is_error]
    assert len(errors) == sum(m["content"].startswith("Error") for m in raw_results)
    assert 60 <= len(errors) <= 90


def test_retry_then_succeed_is_learned(
    sessions: list[Session], signals: list[ToolPatternSignal]
) -> None:
    by_id = {s.conversation_id: s for s in sessions}
    retries = [x for x in signals if x.pattern == ToolPattern.RETRY_CHANGED_ARGS]
    assert 15 <= len(retries) <= 40
    for sig in retries:
        assert sig.failed_args != sig.success_args
        session = by_id[sig.ctx.conversation_id]
        evidence = [m for m in session.messages if m.index in sig.message_indexes]
        failing = [m for m in evidence if m.role == "tool" and m.is_error]
        assert failing and failing[0].content.startswith(sig.error[:40])
        assert any(
            m.role == "tool" and not m.is_error and m.tool_name == sig.tool for m in evidence
        )


def test_recurring_failures_span_sessions(signals: list[ToolPatternSignal]) -> None:
    recurring = [x for x in signals if x.pattern == ToolPattern.RECURRING_FAILURE]
    assert recurring
    for sig in recurring:
        assert len(set(sig.conversation_ids)) >= 2 and sig.occurrences >= 2
        assert sig.failed_args


def test_no_noise_becomes_a_signal(signals: list[ToolPatternSignal]) -> None:
    noise = {ErrorClass.RATE_LIMIT, ErrorClass.TRANSIENT}
    assert all(classify_error(x.error) not in noise for x in signals)
    # `think` returns "" (an empty result): never a failing tool nor a prerequisite
    assert all("think" not in (x.tool, x.other_tool) for x in signals)
    counts = Counter(x.pattern for x in signals)
    assert counts[ToolPattern.AUTH_REFRESH] == 0  # the file has no auth errors


def test_assessment_is_deterministic(
    sessions: list[Session], signals: list[ToolPatternSignal]
) -> None:
    assert assess(sessions) == signals


def test_its_customers_are_end_users_and_teach_no_rules(sessions: list[Session]) -> None:
    """The simulated customers' requests ("cancel all of them, regardless of the policy")
    are not teaching: every user turn is an end user's, and none becomes a correction."""
    from dctx.capture.corrections import find_corrections
    from dctx.capture.roles import DEFAULT_POLICY
    from dctx.models import SpeakerRole

    users = [m for s in sessions for m in s.messages if m.role == "user"]
    assert users and {m.speaker_role for m in users} == {SpeakerRole.END_USER}
    signals = [
        x
        for s in sessions
        for x in DEFAULT_POLICY.apply(find_corrections(s, teaches=DEFAULT_POLICY.teaches), s)
    ]
    assert signals == []
