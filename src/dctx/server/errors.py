"""The one map from dctx errors to what a client sees, shared by the HTTP API and MCP server.

HTTP turns an `ErrorDetail` into a status code and an `ErrorBody`; MCP into a tool error whose
text is the same JSON. Nothing else decides how an error looks, so both interfaces agree, and
no traceback ever reaches a client.
"""

from __future__ import annotations

import hmac
from typing import Any

from pydantic import BaseModel, Field

from dctx.errors import (
    AuthError,
    ConfigError,
    ConflictError,
    DctxError,
    EmbedderMismatchError,
    InvalidIdentifierError,
    MissingDependencyError,
    NotFoundError,
    ProviderError,
    RuntimeFailure,
    StoreError,
    TraceFormatError,
    UserError,
)


class RequestTooLargeError(UserError):
    """An HTTP request body above the server's limit (`Limits.request_bytes`)."""


class ForbiddenHostError(UserError):
    """A request whose Host or Origin names neither the bind address nor a local name, on a
    server without an API key: what a DNS-rebinding web page would send."""


class FieldProblem(BaseModel):
    """One field a request got wrong."""

    loc: list[str | int] = Field(description="Path to the field, e.g. ['body', 'actor'].")
    msg: str


class ErrorDetail(BaseModel):
    """What went wrong, and where; `index`/`field` locate a malformed trace message."""

    code: str = Field(description="Stable machine-readable kind, e.g. not_found, trace_format.")
    status: int = Field(description="The HTTP status code this error maps to.")
    message: str = Field(description="One sentence naming the problem and its fix.")
    index: int | None = Field(default=None, description="Message index in a captured trace.")
    field: str | None = Field(
        default=None, description="Field of that message, or the identifier that was invalid."
    )
    problems: list[FieldProblem] | None = Field(
        default=None, description="Request validation errors."
    )


class ErrorBody(BaseModel):
    """The body of every non-2xx response."""

    error: ErrorDetail


# Most specific first: the first class the error is an instance of wins.
_MAP: list[tuple[type[DctxError], int, str]] = [
    (AuthError, 401, "unauthorized"),
    (ForbiddenHostError, 403, "forbidden_host"),
    (NotFoundError, 404, "not_found"),
    (ConflictError, 409, "conflict"),
    (RequestTooLargeError, 413, "request_too_large"),
    (InvalidIdentifierError, 422, "invalid_identifier"),
    (TraceFormatError, 422, "trace_format"),
    (MissingDependencyError, 501, "missing_dependency"),
    (ConfigError, 400, "bad_config"),
    (UserError, 400, "bad_request"),
    (EmbedderMismatchError, 409, "embedder_mismatch"),
    (StoreError, 503, "store_unavailable"),
    (ProviderError, 502, "provider_failed"),
    (RuntimeFailure, 503, "runtime_failure"),
]


def detail_of(exc: DctxError) -> ErrorDetail:
    """The client-facing description of a dctx error."""
    status, code = 500, "internal"
    for cls, mapped_status, mapped_code in _MAP:
        if isinstance(exc, cls):
            status, code = mapped_status, mapped_code
            break
    detail = ErrorDetail(code=code, status=status, message=str(exc))
    if isinstance(exc, TraceFormatError):
        detail.index = exc.index
        detail.field = exc.field
    elif isinstance(exc, InvalidIdentifierError):
        detail.field = exc.field
    return detail


def validation_detail(errors: list[dict[str, Any]]) -> ErrorDetail:
    """A request that does not match its schema (pydantic / FastAPI errors)."""
    problems = [
        FieldProblem(
            loc=[p if isinstance(p, int) else str(p) for p in e.get("loc", ())],
            msg=str(e.get("msg", "invalid")),
        )
        for e in errors
    ]
    where = "; ".join(".".join(str(p) for p in prob.loc) + ": " + prob.msg for prob in problems)
    return ErrorDetail(
        code="validation_error",
        status=422,
        message=f"the request does not match the API schema ({where or 'invalid'}); "
        "see /docs or /openapi.json for the expected shape",
        problems=problems,
    )


def http_detail(status: int, message: str) -> ErrorDetail:
    """An error the HTTP framework raised itself (unparsable body, wrong method, no route)."""
    codes = {
        400: "bad_request",
        404: "not_found",
        405: "method_not_allowed",
        413: "request_too_large",
    }
    return ErrorDetail(code=codes.get(status, f"http_{status}"), status=status, message=message)


INTERNAL = ErrorDetail(
    code="internal",
    status=500,
    message="unexpected server error; the server log has the details",
)


def key_matches(expected: str | None, given: str | None) -> bool:
    """Constant-time API-key check; no key configured means every request is allowed."""
    if not expected:
        return True
    if given is None:
        return False
    return hmac.compare_digest(expected.encode("utf-8"), given.encode("utf-8"))


API_KEY_HEADER = "X-API-Key"

__all__ = [
    "API_KEY_HEADER",
    "INTERNAL",
    "AuthError",
    "ErrorBody",
    "ErrorDetail",
    "FieldProblem",
    "ForbiddenHostError",
    "RequestTooLargeError",
    "detail_of",
    "http_detail",
    "key_matches",
    "validation_detail",
]
