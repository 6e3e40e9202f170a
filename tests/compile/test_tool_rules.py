"""Tool rules say the context a lesson holds in, and what a prerequisite is for."""

from __future__ import annotations

from typing import Any

import pytest

from dctx.capture.base import SessionContext, ToolPattern, ToolPatternSignal
from dctx.compile.tool_rules import compile_tool_signal
from dctx.models import Rule, RuleStatus

CTX = SessionContext("default", "c1", "ana", "support", "2026-01-01T00:00:00Z")


def _rule(**kw: Any) -> Rule:
    out = compile_tool_signal(ToolPatternSignal(ctx=CTX, **kw))
    assert out is not None
    return out[0]


def _text(**kw: Any) -> str:
    return _rule(**kw).text


def test_retry_lesson_names_the_tool_whose_result_preceded_it() -> None:
    rule = _rule(
        pattern=ToolPattern.RETRY_CHANGED_ARGS,
        tool="escalate",
        failed_args={"team": "tier2"},
        success_args={"team": "billing_ops"},
        after_tool="get_invoice",
    )
    assert rule.text == (
        'After get_invoice returns, when calling escalate, use `team`="billing_ops" '
        'instead of "tier2".'
    )
    assert rule.trigger.after_tool == "get_invoice"  # the value follows that tool's result


def test_retry_lesson_without_a_preceding_tool_is_unconditional() -> None:
    text = _text(
        pattern=ToolPattern.RETRY_CHANGED_ARGS,
        tool="escalate",
        failed_args={"team": "tier2"},
        success_args={"team": "billing_ops"},
    )
    assert text.startswith("When calling escalate,")


def test_prerequisite_that_resolves_an_identifier_says_so() -> None:
    text = _text(
        pattern=ToolPattern.MISSING_PREREQUISITE,
        tool="get_financials",
        other_tool="lookup_company",
        failed_args={"company": "Northwind Grain"},
        success_args={"company": "cmp_2087"},
    )
    assert text == (
        "Call lookup_company before calling get_financials, and pass the identifier it "
        "returns as `company`."
    )


def test_separator_swap_is_a_format_lesson() -> None:
    text = _text(
        pattern=ToolPattern.RETRY_CHANGED_ARGS,
        tool="get_financials",
        failed_args={"ticker": "HVN.A"},
        success_args={"ticker": "HVN-A"},
    )
    assert "separate with a hyphen (-), not a dot (.)" in text


def test_format_lesson_is_not_tied_to_the_tool_before_it() -> None:
    """Neither in its words nor in its trigger: a trigger that waited for the call that came
    before the failed one would come after the first call the lesson governs."""
    rule = _rule(
        pattern=ToolPattern.RETRY_CHANGED_ARGS,
        tool="get_price_history",
        failed_args={"start": "01/01/2025"},
        success_args={"start": "2025-01-01"},
        after_tool="get_financials",
    )
    assert rule.text == "When calling get_price_history, format `start` as YYYY-MM-DD."
    assert rule.trigger.tool == "get_price_history" and rule.trigger.after_tool is None


@pytest.mark.parametrize(
    ("failed", "worked", "lesson"),
    [
        ("4471093", "SO-4471093", 'format `ref` like "SO-<ref>"'),
        ("88120", "88120-EU", 'format `ref` like "<ref>-EU"'),
    ],
)
def test_the_same_id_with_a_prefix_or_suffix_is_the_form_the_field_wants(
    failed: str, worked: str, lesson: str
) -> None:
    text = _text(
        pattern=ToolPattern.RETRY_CHANGED_ARGS,
        tool="get_shipment",
        failed_args={"ref": failed},
        success_args={"ref": worked},
    )
    assert text == f"When calling get_shipment, {lesson}."


@pytest.mark.parametrize(("failed", "worked"), [("4471", "44710"), ("SO-4471093", "SO-4471094")])
def test_another_id_teaches_no_format(failed: str, worked: str) -> None:
    signal = ToolPatternSignal(
        ctx=CTX,
        pattern=ToolPattern.RETRY_CHANGED_ARGS,
        tool="get_shipment",
        failed_args={"ref": failed},
        success_args={"ref": worked},
    )
    assert compile_tool_signal(signal) is None


def test_prerequisite_names_the_argument_it_fills() -> None:
    text = _text(
        pattern=ToolPattern.MISSING_PREREQUISITE,
        tool="get_conversation",
        other_tool="list_channels",
        failed_args={"customer_id": "OB-553019"},
        success_args={"channel_id": "CH-wc-88120"},
    )
    assert text.endswith("and pass the identifier it returns as `channel_id`.")


def test_prerequisite_names_the_result_field_to_pass() -> None:
    text = _text(
        pattern=ToolPattern.MISSING_PREREQUISITE,
        tool="get_recipe",
        other_tool="find_dishes",
        failed_args={"dish": "Lemon Tart"},
        success_args={"dish": "lemon_tart"},
        result_fields={"dish": "slug"},
    )
    assert text == (
        "Call find_dishes before calling get_recipe, and pass the `slug` it returns as `dish`."
    )


def test_prerequisite_says_the_error_code_it_prevents() -> None:
    text = _text(
        pattern=ToolPattern.MISSING_PREREQUISITE,
        tool="print_label",
        other_tool="weigh_parcel",
        failed_args={"parcel": "P-77"},
        success_args={"parcel": "P-77"},
        error='{"error": {"status": 409, "kind": "WEIGHT_REQUIRED", "detail": "parcel P-77 has',
    )
    assert text == (
        "Call weigh_parcel before calling print_label "
        "(without it, print_label fails with WEIGHT_REQUIRED)."
    )


def test_an_error_in_prose_only_adds_nothing() -> None:
    text = _text(
        pattern=ToolPattern.MISSING_PREREQUISITE,
        tool="print_label",
        other_tool="weigh_parcel",
        failed_args={"parcel": "P-77"},
        success_args={"parcel": "P-77"},
        error="Error: parcel P-77 was never weighed",
    )
    assert text == "Call weigh_parcel before calling print_label."


def test_a_value_changed_one_way_and_back_is_a_choice_not_a_lesson() -> None:
    from dctx.capture.self_assess import drop_choices

    def retry(old: str, new: str, **other: str) -> ToolPatternSignal:
        return ToolPatternSignal(
            ctx=CTX,
            pattern=ToolPattern.RETRY_CHANGED_ARGS,
            tool="update_reservation_flights",
            failed_args={"cabin": old, **other},
            success_args={"cabin": new, **other},
        )

    up, down = retry("economy", "business"), retry("business", "economy")
    kept = retry("economy", "economy", payment_id="gift_card_1")
    kept.success_args["payment_id"] = "gift_card_2"
    assert drop_choices([up, down, kept]) == [kept]
    assert drop_choices([up]) == [up]  # one way only: still a lesson


def test_an_eight_digit_id_is_not_a_date_format() -> None:
    """Another account's id is another entity: no lesson, and certainly no date format."""
    out = compile_tool_signal(
        ToolPatternSignal(
            ctx=CTX,
            pattern=ToolPattern.RETRY_CHANGED_ARGS,
            tool="get_account",
            failed_args={"account_id": "ACC-5512"},
            success_args={"account_id": "40021187"},
        )
    )
    assert out is None


def test_a_real_date_in_another_format_is_a_format_lesson() -> None:
    for old, new, shape in [
        ("2025-03-01", "20250301", "YYYYMMDD"),
        ("03/01/2025", "2025-03-01", "YYYY-MM-DD"),
        ("Q3 2025", "2025-Q3", "YYYY-Qn"),
    ]:
        text = _text(
            pattern=ToolPattern.RETRY_CHANGED_ARGS,
            tool="get_filings",
            failed_args={"since": old},
            success_args={"since": new},
        )
        assert f"format `since` as {shape}" in text


def test_an_impossible_date_is_not_a_date_format() -> None:
    out = compile_tool_signal(
        ToolPatternSignal(
            ctx=CTX,
            pattern=ToolPattern.RETRY_CHANGED_ARGS,
            tool="get_account",
            failed_args={"account_id": "A-1"},
            success_args={"account_id": "20251399"},
        )
    )
    assert out is None


def test_separators_taken_out_are_a_format_lesson() -> None:
    text = _text(
        pattern=ToolPattern.RETRY_CHANGED_ARGS,
        tool="lookup_barcode",
        failed_args={"ean": "40 06381 33393 1"},
        success_args={"ean": "4006381333931"},
    )
    assert "write it without separators (no spaces)" in text
    assert '"4006381333931"' in text


@pytest.mark.parametrize(
    ("tool", "key", "refused", "taken", "expected"),
    [
        # a name refused and a code taken is a lesson about codes
        (
            "book_kennel",
            "kennel_size",
            "extra large",
            "K-4",
            'When calling book_kennel, pass `kennel_size` as a code, not in words (e.g. "K-4", '
            'not "extra large").',
        ),
        # "PO 88412" refused, "4400088412" taken: the same number with its letters written as
        # digits is the field's format, not another purchase order
        (
            "track_order",
            "order",
            "PO 88412",
            "4400088412",
            "When calling track_order, in `order`, write 10 digits, no letters (e.g. "
            '"4400088412", not "PO 88412").',
        ),
    ],
)
def test_a_value_refused_and_one_taken_teach_the_fields_format(
    tool: str, key: str, refused: str, taken: str, expected: str
) -> None:
    text = _text(
        pattern=ToolPattern.RETRY_CHANGED_ARGS,
        tool=tool,
        failed_args={key: refused},
        success_args={key: taken},
    )
    assert text == expected


def test_an_example_taken_from_tool_output_is_left_out_not_the_lesson() -> None:
    """The error listed the codes: "K-4" is what a result said, data; that the field wants
    a code is the agent's own finding, so the lesson stands (active) without the example."""
    rule = _rule(
        pattern=ToolPattern.RETRY_CHANGED_ARGS,
        tool="book_kennel",
        failed_args={"kennel_size": "extra large"},
        success_args={"kennel_size": "K-4"},
        from_tool_output=["K-4"],
    )
    assert rule.text == "When calling book_kennel, pass `kennel_size` as a code, not in words."
    assert rule.status is RuleStatus.ACTIVE and rule.from_tool_output == []


def test_another_number_altogether_is_still_another_entity() -> None:
    signal = ToolPatternSignal(
        ctx=CTX,
        pattern=ToolPattern.RETRY_CHANGED_ARGS,
        tool="track_order",
        failed_args={"order": "PO 88412"},
        success_args={"order": "4400077130"},
    )
    assert compile_tool_signal(signal) is None
