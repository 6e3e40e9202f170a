"""Tool-result classification: error or not, which class, empty results."""

from __future__ import annotations

import json

import pytest

from dctx.capture.tool_errors import (
    ErrorClass,
    classify_error,
    is_empty_result,
    is_error,
    result_status,
)


@pytest.mark.parametrize(
    "text",
    [
        "Error: payment method not found",
        "error - something broke",
        "ERROR",
        json.dumps({"error": "bad thing"}),
        json.dumps({"errors": [{"message": "x"}]}),
        json.dumps({"status": 503, "detail": "down"}),
        json.dumps({"status_code": "404"}),
        json.dumps({"status": "error", "message": "nope"}),
        json.dumps({"success": False, "message": "nope"}),
        json.dumps({"ok": False}),
        'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: bad',
        "ValueError: invalid literal for int()",
        "requests.exceptions.ConnectionError: refused",
        "404 Not Found",
        "HTTP/1.1 429 Too Many Requests",
        "Failed to connect to host",
    ],
)
def test_errors_are_detected(text: str) -> None:
    assert is_error(text)


@pytest.mark.parametrize(
    "text",
    [
        '{"revenue": [10, 12]}',
        json.dumps({"error": None, "data": [1]}),
        json.dumps({"errors": [], "data": [1]}),
        json.dumps({"status": "available", "flight": "HAT001"}),
        json.dumps({"status": 200}),
        "255.0",
        "The errors were fixed last week.",
        "Errors: none",
        "401",  # a number, not a status line
        "",
        "[]",
    ],
)
def test_successes_are_not_errors(text: str) -> None:
    assert not is_error(text)


def test_the_explicit_flag_always_wins() -> None:
    assert is_error("[]", flagged=True)
    status = result_status("all good", flagged=True)
    assert status.is_error and status.error_class == ErrorClass.OTHER and not status.is_empty


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Error: 429 Too Many Requests", ErrorClass.RATE_LIMIT),
        ("Error: rate limit exceeded, slow down", ErrorClass.RATE_LIMIT),
        (json.dumps({"status": 429}), ErrorClass.RATE_LIMIT),
        ("Error: request timed out after 30s", ErrorClass.TRANSIENT),
        ("Error: service temporarily unavailable, try again", ErrorClass.TRANSIENT),
        (json.dumps({"error": "upstream", "status_code": 503}), ErrorClass.TRANSIENT),
        ("Error: 401 Unauthorized", ErrorClass.AUTH),
        ("Error: token expired", ErrorClass.AUTH),
        ("Error: invalid credentials supplied", ErrorClass.AUTH),
        (json.dumps({"error": "forbidden", "status": 403}), ErrorClass.AUTH),
        ("Error: reservation ABC not found", ErrorClass.NOT_FOUND),
        ("Error: no such table: logs", ErrorClass.NOT_FOUND),
        ("Error: unknown company 'Zeta'", ErrorClass.NOT_FOUND),
        (json.dumps({"error": "x", "status": 404}), ErrorClass.NOT_FOUND),
        ("Error: invalid date format", ErrorClass.INVALID_ARGUMENT),
        ("Error: 'limit' must be between 1 and 100", ErrorClass.INVALID_ARGUMENT),
        ("Error: missing required parameter 'company'", ErrorClass.INVALID_ARGUMENT),
        ("Error: unknown parameter 'colour'", ErrorClass.INVALID_ARGUMENT),
        ("Error: expected an ISO date", ErrorClass.INVALID_ARGUMENT),
        (json.dumps({"error": "bad", "code": 400}), ErrorClass.INVALID_ARGUMENT),
        ("Error: this endpoint is deprecated; use v2", ErrorClass.UNAVAILABLE),
        ("Error: data source discontinued", ErrorClass.UNAVAILABLE),
        ("Error: 410 Gone", ErrorClass.UNAVAILABLE),
        ("Error: endpoint removed", ErrorClass.UNAVAILABLE),
        # a code a gone source also answers with: the words say more than the code
        (
            json.dumps({"error": {"code": 403, "message": "ledger v1 was retired on 2026-01-01"}}),
            ErrorClass.UNAVAILABLE,
        ),
        (json.dumps({"status": 503, "error": "API deprecated, see v3"}), ErrorClass.UNAVAILABLE),
        ("Error: gift card balance is not enough", ErrorClass.OTHER),
        # a number in the text is not a status code unless something says so
        (
            "Error: payment amount does not add up, total price is 401, but paid 255",
            ErrorClass.OTHER,
        ),
    ],
)
def test_error_classes(text: str, expected: ErrorClass) -> None:
    assert classify_error(text) == expected


@pytest.mark.parametrize(
    "text",
    ["", "  ", "[]", "{}", "null", "No results found", "no matches for 'beta'", "Nothing found.",
     "Error: No results found", json.dumps({"results": [], "total": 0}), json.dumps({"items": {}})],
)  # fmt: skip
def test_empty_results_are_not_errors(text: str) -> None:
    assert is_empty_result(text)
    status = result_status(text)
    assert not status.is_error and status.is_empty and status.error_class is None


@pytest.mark.parametrize(
    "text",
    [
        '[{"id": 1}]',
        "No. 5 is the answer",
        json.dumps({"results": [1]}),
        json.dumps({"error": "x"}),
    ],
)
def test_non_empty_results(text: str) -> None:
    assert not is_empty_result(text)
