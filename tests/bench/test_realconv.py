"""The real-conversation benchmark (`dctx bench real`): corpus loading, reader inputs, scoring."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.realconv_kit import SESSIONS, write_corpus
from dctx.bench.realconv.corpus import load_corpus
from dctx.bench.realconv.evaluate import evaluate
from dctx.capture.reading.base import TurnKind
from dctx.capture.turns import user_turn_inputs
from dctx.errors import ConfigError, TraceFormatError
from dctx.memory import Memory
from stub_reader import SureOf


def test_the_corpus_gives_the_reader_what_capture_gives_it(tmp_path: Path) -> None:
    (session,) = [s for s in load_corpus(write_corpus(tmp_path)) if s.session_id == "s1"]
    pairs = session.turn_inputs()
    assert [label.kind for label, _ in pairs] == [
        TurnKind.TASK,
        TurnKind.STANDING,
        TurnKind.ONE_OFF,
    ]
    # the agent's own words, as the reader was trained on them (no role prefix)
    assert pairs[1][1].previous_output == "I added a retry loop around the upload call."
    assert pairs[0][1].first_turn and not pairs[1][1].first_turn
    captured = [t for _, t in user_turn_inputs(session.to_session())]
    assert [t for _, t in pairs] == captured


def test_a_bad_line_is_named_by_file_and_line(tmp_path: Path) -> None:
    folder = write_corpus(tmp_path, [SESSIONS[0], {"session_id": "x", "turns": [{"role": "bot"}]}])
    with pytest.raises(TraceFormatError, match=r"tiny\.jsonl:2"):
        load_corpus(folder)


def test_stored_rules_are_scored_against_the_labels(tmp_path: Path) -> None:
    data = write_corpus(tmp_path / "data")
    standing = "From now on, always run the linter before you commit anything."
    wrong = "Rename the variable on line 12 to count."
    reader = SureOf(standing, wrong)
    report = evaluate(
        lambda: Memory(tmp_path / "m.db", reader=reader), data=data, split="test", reader=reader
    )
    assert (report.sessions, report.user_turns, report.lasting_turns) == (2, 5, 1)
    assert report.detection_active.row()["precision"] == 0.5
    assert report.detection_active.recall == 1.0
    assert report.rules_stored == 2 and report.stored_right_turn == 1
    assert report.stored_precision == 0.5 and report.recall_any == 1.0
    assert report.stored_right_text == 1  # "run the linter before committing" is meant
    assert len(report.false_rules) == 1 and "count" in report.false_rules[0]


def test_a_split_with_no_sessions_is_an_error_naming_the_splits(tmp_path: Path) -> None:
    data = write_corpus(tmp_path / "data")
    with pytest.raises(ConfigError, match=r"split 'tets'.*splits here are test"):
        evaluate(lambda: Memory(tmp_path / "m.db"), data=data, split="tets")
