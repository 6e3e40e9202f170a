"""The opening-policy reader: which sentences of a session's opening request state a policy
that holds beyond the case at hand. Sentences written for these tests, none of them in the
training files (a piano tuner's desk, no benchmark's domain; a sheet-music rental desk, near
the orchestra librarian of synthetic4.jsonl, whose sentences differ)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dctx.capture.reading.default import default_reader
from dctx.capture.reading.policies import (
    FEATURES,
    PolicyReader,
    load_policy_model,
    policy_reader_for,
)
from dctx.errors import ConfigError
from dctx.memory import Memory
from dctx.models import RuleStatus

_FEE = "Heads up, the piano tuning call-out fee is $95 now for anything outside the ring road."
_CASE = "Can you book Mrs. Alvarez at 14 Elm Court for Thursday?"


@pytest.fixture(scope="module")
def reader() -> PolicyReader:
    found = policy_reader_for(default_reader())
    assert found is not None  # MiniLM and the weights are shipped
    return found


def test_the_policy_is_read_and_the_case_is_not(reader: PolicyReader) -> None:
    assert reader.policies(f"{_FEE} {_CASE}") == [_FEE]
    rentals = "Sheet music rentals: two weeks, then $1 a day after that."
    assert reader.policies(f"{rentals} Set one up for Tomas Berg, the Brahms quintet parts.") == [
        rentals
    ]


@pytest.mark.parametrize(
    "turn",
    [
        "Tomas Berg, the Brahms quintet parts, two copies please, he needs them by Friday.",
        "Refactor the session store to use Redis and keep the public API the same. "
        "Add tests for the expiry path.",
        "Just for today, send everything by email, the printer is down. "
        "Do the Alvarez invoice first.",
    ],
)
def test_a_case_a_task_spec_and_a_one_off_state_no_policy(reader: PolicyReader, turn: str) -> None:
    assert reader.policies(turn) == []


def test_capture_keeps_the_policy_of_an_opening_request(tmp_path: Path) -> None:
    messages = [
        {"role": "user", "content": f"{_FEE} {_CASE}"},
        {"role": "assistant", "content": "Booked Mrs. Alvarez for Thursday at 10."},
        {"role": "user", "content": "thanks"},
    ]
    with Memory(tmp_path / "m.db", embedder="hashing") as memory:
        memory.capture(messages, actor="ines", skill="bookings", conversation_id="c1")
        active = [r.text for r in memory.rules(status=RuleStatus.ACTIVE)]
    assert len(active) == 1
    assert "$95" in active[0] and "Alvarez" not in active[0]


def test_only_the_opening_request_is_read_this_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # later turns answer what the agent did: they are the turn reader's alone
    asked: list[str] = []
    read = PolicyReader.policies

    def recording(self: PolicyReader, text: str) -> list[str]:
        asked.append(text)
        return read(self, text)

    monkeypatch.setattr(PolicyReader, "policies", recording)
    messages = [
        {"role": "user", "content": _CASE},
        {"role": "assistant", "content": "Booked Mrs. Alvarez for Thursday at 10."},
        {"role": "user", "content": f"{_FEE} Book Mr. Osei for Friday too."},
        {"role": "assistant", "content": "Booked."},
    ]
    with Memory(tmp_path / "m.db", embedder="hashing") as memory:
        memory.capture(messages, actor="ines", skill="bookings", conversation_id="c1")
    assert asked == [_CASE]


def test_the_shipped_model_records_what_it_was_trained_on() -> None:
    model = load_policy_model()
    assert "synthetic4.jsonl" in model.meta["trained_on"]
    assert model.meta["features"] == list(FEATURES)
    assert 0.5 <= model.threshold < 1.0


def test_a_model_trained_on_other_features_says_how_to_retrain(tmp_path: Path) -> None:
    source = Path(__file__).resolve().parents[2] / "src/dctx/capture/reading/model"
    for suffix in ("npz", "json"):
        shutil.copy(source / f"policies.{suffix}", tmp_path / f"policies.{suffix}")
    meta = json.loads((tmp_path / "policies.json").read_text())
    meta["features"] = meta["features"][:-1]
    (tmp_path / "policies.json").write_text(json.dumps(meta))
    with pytest.raises(ConfigError, match=r"train_policies\.py"):
        load_policy_model(tmp_path)


def test_a_one_off_read_as_policy_takes_no_rule_s_place(tmp_path: Path) -> None:
    # the reader takes "Quote 180 rather than the usual rate, ..." for policy though it is
    # about this job; the speaker's rule from a correction, which the turn names, stays
    taught = [
        {"role": "user", "content": "Tune the Hollis school recital hall piano on Friday."},
        {"role": "assistant", "content": "Quoted the Hollis tuning at $140."},
        {
            "role": "user",
            "content": "From now on, always quote a tuning from the rate card, never from memory.",
        },
        {"role": "assistant", "content": "Understood."},
    ]
    one_off = (
        "Quote 180 rather than the usual rate, the action needs regulating once the keys are "
        "out. Can you book the tuning for Mrs. Alvarez at 14 Elm Court?"
    )
    opening = [
        {"role": "user", "content": one_off},
        {"role": "assistant", "content": "Booked."},
        {"role": "user", "content": "perfect"},
    ]
    with Memory(tmp_path / "m.db", embedder="hashing") as memory:
        memory.capture(taught, actor="ines", skill="bookings", conversation_id="c1")
        memory.capture(opening, actor="ines", skill="bookings", conversation_id="c2")
        active = [r.text for r in memory.rules(status=RuleStatus.ACTIVE)]
    assert any("rate card" in text for text in active)
    assert any("180" in text for text in active)  # read as policy all the same
