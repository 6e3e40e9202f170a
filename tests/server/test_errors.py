"""The one error map shared by HTTP and MCP, and the API-key check."""

from __future__ import annotations

import pytest

from dctx.errors import (
    ConfigError,
    DctxError,
    EmbedderMismatchError,
    MissingDependencyError,
    NotFoundError,
    ProviderError,
    StoreError,
    TraceFormatError,
    UserError,
)
from dctx.server.errors import AuthError, detail_of, key_matches, validation_detail


@pytest.mark.parametrize(
    ("exc", "status", "code"),
    [
        (AuthError("no key"), 401, "unauthorized"),
        (NotFoundError("no rule"), 404, "not_found"),
        (TraceFormatError("bad", index=3, field="role"), 422, "trace_format"),
        (MissingDependencyError("x", "server", "fastapi"), 501, "missing_dependency"),
        (ConfigError("bad url"), 400, "bad_config"),
        (UserError("bad"), 400, "bad_request"),
        (EmbedderMismatchError("a", "b"), 409, "embedder_mismatch"),
        (StoreError("db down"), 503, "store_unavailable"),
        (ProviderError("llm down"), 502, "provider_failed"),
        (DctxError("?"), 500, "internal"),
    ],
)
def test_each_error_kind_has_a_status(exc: DctxError, status: int, code: str) -> None:
    detail = detail_of(exc)
    assert (detail.status, detail.code) == (status, code)
    assert detail.message == str(exc)


def test_trace_errors_carry_index_and_field() -> None:
    detail = detail_of(TraceFormatError("must be a string", index=4, field="content"))
    assert (detail.index, detail.field) == (4, "content")
    assert "message 4" in detail.message


def test_validation_detail_names_each_field() -> None:
    detail = validation_detail([{"loc": ("body", "steps", 0, "tool"), "msg": "Field required"}])
    assert detail.status == 422 and detail.problems is not None
    assert detail.problems[0].loc == ["body", "steps", 0, "tool"]
    assert "body.steps.0.tool: Field required" in detail.message


def test_key_matches() -> None:
    assert key_matches(None, None) and key_matches("", "anything")
    assert key_matches("k-1", "k-1")
    assert not key_matches("k-1", None)
    assert not key_matches("k-1", "k-2")
    assert not key_matches("k-1", "k-1 ")
