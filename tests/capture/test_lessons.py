"""The lesson reader: which sentences of a reply the turn reader admitted carry its lesson,
where the cues read no command. Sentences written for these tests, in a chimney sweep's
booking desk (no benchmark's domain, none of the training files' workplaces)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dctx.capture.reading.default import default_reader
from dctx.capture.reading.lessons import LessonReader, lesson_reader_for, load_lesson_model
from dctx.capture.reading.policies import FEATURES
from dctx.errors import ConfigError
from dctx.memory import Memory
from dctx.models import RuleStatus

_TASK = "Book Mrs Okoro's annual stove sweep for Tuesday morning."
_DONE = "Booked Mrs Okoro for Tuesday 9:00 with the rods kit."
_LESSON = "Pellet stoves get the vacuum kit, not the rods, and those visits run an hour longer."
_CORRECTION = (
    "No, stop booking sweeps without looking at the appliance. "
    f"{_LESSON} Rebook Mrs Okoro for the afternoon."
)


@pytest.fixture(scope="module")
def reader() -> LessonReader:
    found = lesson_reader_for(default_reader())
    assert found is not None  # MiniLM and the weights are shipped
    return found


def test_the_lesson_is_read_and_the_fix_of_the_case_is_not(reader: LessonReader) -> None:
    read = reader.lessons(_CORRECTION)
    assert _LESSON in read
    assert "Rebook Mrs Okoro for the afternoon." not in read


def test_a_one_sentence_turn_has_nothing_to_choose(reader: LessonReader) -> None:
    assert reader.lessons(_LESSON) == set()


def _capture(tmp_path: Path, correction: str) -> list[str]:
    messages = [
        {"role": "user", "content": _TASK},
        {"role": "assistant", "content": _DONE},
        {"role": "user", "content": correction},
        {"role": "assistant", "content": "Understood."},
    ]
    with Memory(tmp_path / "m.db") as memory:
        memory.capture(messages, actor="ines", skill="bookings", conversation_id="c1")
        return [r.text for r in memory.rules(status=RuleStatus.ACTIVE)]


def test_capture_keeps_a_lesson_the_cues_read_as_no_command(tmp_path: Path) -> None:
    # the cues take "stop booking sweeps ..." and the rebooking; the statement of how pellet
    # stoves are swept, the lesson itself, was left out of the rulebook
    active = _capture(tmp_path, _CORRECTION)
    assert any("vacuum kit" in text for text in active)
    assert any(text.startswith("Stop booking sweeps") for text in active)


def test_a_turn_the_turn_reader_rules_out_is_not_read_for_lessons(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    read = LessonReader.lessons

    def recording(self: LessonReader, text: str) -> set[str]:
        asked.append(text)
        return read(self, text)

    monkeypatch.setattr(LessonReader, "lessons", recording)
    # a customer's question passed on: the turn reader rules it out
    active = _capture(
        tmp_path,
        "Great, thanks. Mrs Okoro asked whether pellet stoves get the vacuum kit, not the "
        "rods. Can you find out and call her back?",
    )
    assert asked == []
    assert active == []


def test_the_shipped_model_records_what_it_was_trained_on() -> None:
    model = load_lesson_model()
    assert "scope_reach.jsonl" in model.meta["trained_on"]
    assert model.meta["features"] == list(FEATURES)
    assert model.threshold == 0.8


def test_a_model_trained_on_other_features_says_how_to_retrain(tmp_path: Path) -> None:
    source = Path(__file__).resolve().parents[2] / "src/dctx/capture/reading/model"
    for suffix in ("npz", "json"):
        shutil.copy(source / f"lessons.{suffix}", tmp_path / f"lessons.{suffix}")
    meta = json.loads((tmp_path / "lessons.json").read_text())
    meta["features"] = meta["features"][:-1]
    (tmp_path / "lessons.json").write_text(json.dumps(meta))
    with pytest.raises(ConfigError, match=r"train_lessons\.py"):
        load_lesson_model(tmp_path)
