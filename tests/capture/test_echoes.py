"""A user turn is read without the words it repeats from earlier tool output (issue 11)."""

from __future__ import annotations

import json

from dctx.capture.echoes import EchoIndex
from dctx.capture.parse import parse_messages
from dctx.capture.turns import user_turn_inputs

TOOL = json.dumps({"rows": [{"note": "Shipping policy: every parcel over 20 kg goes by freight."}]})


def test_repeated_words_of_a_tool_result_are_taken_out_with_their_quotes() -> None:
    kept, cut = EchoIndex.of(TOOL).cut(
        'The lookup said "every parcel over 20 kg goes by freight" - that is outdated.'
    )
    assert kept == "The lookup said - that is outdated."
    assert cut > 30


def test_a_short_overlap_is_chance_not_an_echo() -> None:
    text = "Weigh every parcel before you book it."
    assert EchoIndex.of(TOOL).cut(text) == (text, 0)


def test_the_users_own_correction_beside_a_quote_stays() -> None:
    kept, _ = EchoIndex.of(TOOL).cut(
        "It says every parcel over 20 kg goes by freight. Book those with Kargo, not Fastline."
    )
    assert "Book those with Kargo, not Fastline." in kept
    assert "freight" not in kept


def test_echo_matching_ignores_case_and_punctuation_but_keeps_word_order() -> None:
    index = EchoIndex.of("Every parcel, over 20 KG, goes by freight!")
    assert index.cut("every parcel over 20 kg goes by freight")[0] == ""
    shuffled = "goes by freight every parcel over 20 kg"
    assert index.cut(shuffled)[0] != ""


def _call(call_id: str, function: dict[str, str]) -> dict[str, object]:
    return {"id": call_id, "type": "function", "function": function}


def test_only_tool_output_seen_before_the_turn_counts() -> None:
    call = {"name": "lookup", "arguments": "{}"}
    session = parse_messages(
        [
            {"role": "user", "content": "Every parcel over 20 kg goes by freight, right?"},
            {"role": "assistant", "tool_calls": [_call("c1", call)]},
            {"role": "tool", "tool_call_id": "c1", "content": TOOL},
            {"role": "assistant", "content": "Yes, by freight."},
            {"role": "user", "content": "Every parcel over 20 kg goes by freight, right?"},
        ],
        conversation_id="echo",
    )
    (_, first), (_, second) = user_turn_inputs(session)
    assert first.text.startswith("Every parcel")  # nothing was seen yet: the user's own words
    assert second.text == "right?"
    assert second.pasted_share > 0.5
