"""Which turns pass on a decision of the organisation: the learned announcement reader,
gated by the parser's reading that the sentence tells of the past."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dctx.capture.reading.announcements import (
    FEATURES,
    AnnouncementReader,
    load_announcement_model,
)
from dctx.errors import ConfigError
from dctx.providers.embedders import get_embedder


@pytest.fixture(scope="module")
def reader() -> AnnouncementReader:
    return AnnouncementReader(get_embedder("minilm"))


@pytest.mark.parametrize(
    "turn",
    [
        "Management decided last night: no lane rentals on Sundays any more.",
        "Our insurer pulled the diving board cover this month, so no diving board bookings.",
    ],
)
def test_a_decision_passed_on_is_an_announcement(reader: AnnouncementReader, turn: str) -> None:
    assert reader.announces(turn)


@pytest.mark.parametrize(
    "turn",
    [
        # a rule stated in the present: whose it is, the words do not say
        "Lane rentals are $14 an hour, and the swim clubs get lanes 7 and 8.",
        # the past told as a reason, and a mishap: no one decided anything
        "Two parents complained last week about the noise. Keep the lessons in lanes 1 to 3.",
        "The lifeguard slipped on the deck yesterday. Mop the deck before every session.",
    ],
)
def test_a_rule_or_a_reason_is_no_announcement(reader: AnnouncementReader, turn: str) -> None:
    assert not reader.announces(turn)


def test_the_shipped_model_records_its_held_out_precision() -> None:
    model = load_announcement_model()
    taken = model.meta["test_taken"]
    assert model.meta["features"] == list(FEATURES)
    assert taken["right"] / taken["selected"] >= 0.9  # precision on unseen workplaces


def test_a_model_trained_on_other_features_says_how_to_retrain(tmp_path: Path) -> None:
    shipped = Path(__file__).parents[2] / "src/dctx/capture/reading/model/announced.json"
    meta = json.loads(shipped.read_text())
    (tmp_path / "announced.json").write_text(json.dumps({**meta, "features": ["other"]}))
    (tmp_path / "announced.npz").write_bytes(shipped.with_suffix(".npz").read_bytes())
    with pytest.raises(ConfigError, match=r"train_announcements\.py"):
        load_announcement_model(tmp_path)
