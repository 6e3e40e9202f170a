"""Speaker roles in traces: a session or a message says who speaks as what."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dctx.capture.parse import load_sessions, parse_messages
from dctx.errors import RolePolicyError, TraceFormatError
from dctx.models import SpeakerRole

MESSAGES = [
    {"role": "user", "content": "Refund booking ABC123."},
    {"role": "assistant", "content": "Done."},
    {
        "role": "user",
        "content": "From now on, check the fare rules first.",
        "speaker_role": "operator",
    },
]


def test_a_session_role_marks_its_user_turns_and_a_message_s_own_wins() -> None:
    session = parse_messages(MESSAGES, speaker_role="end_user")
    roles = [m.speaker_role for m in session.messages]
    assert roles == [SpeakerRole.END_USER, None, SpeakerRole.OPERATOR]
    assert [m.speaker_role for m in parse_messages(MESSAGES[:2]).messages] == [None, None]


def test_an_unknown_role_names_the_message_and_field() -> None:
    bad = [*MESSAGES[:2], {**MESSAGES[2], "speaker_role": "boss"}]
    with pytest.raises(TraceFormatError) as err:
        parse_messages(bad, conversation_id="c9")
    assert (err.value.index, err.value.field) == (2, "speaker_role")
    assert "boss" in str(err.value) and "c9" in str(err.value)
    with pytest.raises(RolePolicyError) as policy_err:
        parse_messages(MESSAGES, speaker_role="customer")
    assert policy_err.value.field == "speaker_role"


def test_tau_bench_records_are_end_users_and_a_session_record_may_say(tmp_path: Path) -> None:
    tau = tmp_path / "gpt-4o-airline.json"
    tau.write_text(json.dumps([{"task_id": 3, "traj": MESSAGES[:2], "reward": 1}]))
    [session] = load_sessions(tau)
    assert session.messages[0].speaker_role is SpeakerRole.END_USER
    own = tmp_path / "own.jsonl"
    own.write_text(json.dumps({"messages": MESSAGES[:2], "speaker_role": "reviewer"}) + "\n")
    assert load_sessions(own)[0].messages[0].speaker_role is SpeakerRole.REVIEWER
    assert load_sessions(own, speaker_role="end_user")[0].messages[0].speaker_role is (
        SpeakerRole.REVIEWER
    )
