"""The turn reader: labelled examples written for these tests (none from DC-Bench)."""

from __future__ import annotations

import pytest

from dctx.capture.reading.base import TurnInput, TurnKind
from dctx.capture.reading.default import bands_for, default_reader
from dctx.capture.reading.heuristic import HeuristicTurnClassifier
from dctx.capture.reading.learned import LearnedTurnClassifier, load_model

STANDING = [
    ("From now on, use pnpm instead of npm in this repo.", "I ran npm install."),
    ("Never commit directly to main; always open a PR.", "I committed the fix to main."),
    ("Don't add comments to the code you write, ever.", "Here is the function with comments."),
]
NOT_STANDING = [
    ("thanks, looks good", "Done."),
    ("can you also add a test for the parser?", "I fixed the parser."),
    ("line 30 is wrong, the loop should start at 1", "Here is the loop."),
]


@pytest.fixture(scope="module")
def reader() -> LearnedTurnClassifier:
    found = default_reader()
    assert isinstance(found, LearnedTurnClassifier)  # MiniLM and the weights are shipped
    return found


@pytest.mark.parametrize(("text", "before"), STANDING)
def test_standing_corrections_become_rules_at_once(
    reader: LearnedTurnClassifier, text: str, before: str
) -> None:
    [verdict] = reader.read([TurnInput(text=text, previous_output=before)])
    assert verdict.p_lasting >= bands_for(reader).active
    assert verdict.kind is TurnKind.STANDING


@pytest.mark.parametrize(("text", "before"), NOT_STANDING)
def test_acceptances_tasks_and_one_off_fixes_store_nothing(
    reader: LearnedTurnClassifier, text: str, before: str
) -> None:
    [verdict] = reader.read([TurnInput(text=text, previous_output=before)])
    assert verdict.p_lasting < bands_for(reader).candidate
    assert not verdict.lasting


@pytest.mark.parametrize(
    "text", ["", "   ", "🙂🙂", "Bitte antworte immer auf Deutsch.", "x " * 50_000]
)
def test_any_turn_is_read_without_error(reader: LearnedTurnClassifier, text: str) -> None:
    [verdict] = reader.read([TurnInput(text=text, previous_output="ok")])
    assert 0.0 <= verdict.p_lasting <= 1.0
    if not text.strip():
        assert verdict.kind is TurnKind.NOISE and verdict.p_lasting == 0.0


def test_the_shipped_model_records_what_it_was_trained_on() -> None:
    model = load_model()
    assert model.meta["splits"] == ["train", "dev"]  # the test split is never trained on
    assert model.meta["real_turns"] > 1000
    assert 0.0 < model.thresholds.candidate <= model.thresholds.active < 1.0


def test_the_heuristic_reader_decides_zero_or_one() -> None:
    verdicts = HeuristicTurnClassifier().read(
        [
            TurnInput(text="Always show amounts in USD.", previous_output="x"),
            TurnInput(text="Thanks!", previous_output="x"),
        ]
    )
    assert [v.p_lasting for v in verdicts] == [1.0, 0.0]


def test_the_reader_embeds_each_distinct_text_once() -> None:
    """A turn that is all directive, an output two turns answer and empty turns repeat texts
    in the reader's batch; each goes through the embedder once, and every row is the same."""
    from dctx.capture.reading.learned import feature_matrix
    from dctx.providers.embedders import get_embedder

    inner = get_embedder("hashing")
    seen: list[str] = []

    class Counting:
        id, dim = inner.id, inner.dim

        def embed(self, texts: list[str]) -> object:
            seen.extend(texts)
            return inner.embed(texts)

    turns = [
        TurnInput(text="Always show amounts in USD.", previous_output="Revenue was 4.2M."),
        TurnInput(text="", previous_output="Revenue was 4.2M."),
        TurnInput(text="Thanks!", previous_output=""),
    ]
    matrix = feature_matrix(Counting(), turns)  # type: ignore[arg-type]
    assert len(seen) == len(set(seen))
    one_by_one = [feature_matrix(inner, [t]) for t in turns]
    assert matrix.tolist() == [row.tolist()[0] for row in one_by_one]
