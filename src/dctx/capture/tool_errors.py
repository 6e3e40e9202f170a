"""Is a tool result an error, what kind, or just empty?

Self-assessment needs to tell behavioral failures from noise (paper, section 3): a rate limit,
a timeout or an empty search result is not something a rule should be learned from. The result
text is only classified here; it never becomes a directive.

Detection (first that applies):
- an explicit flag (`is_error: true`, Anthropic `tool_result.is_error`) is always an error;
- an empty result ("", "[]", "{}", "No results found", `{"results": []}`) is NOT an error;
- text starting with "Error", "Exception", "Traceback", "Failed" (tau-bench style), a Python
  exception line ("ValueError: ...") or an HTTP status line ("404 Not Found");
- JSON with a top-level truthy `error`/`errors`, `status`/`status_code`/`code` >= 400,
  `status: "error"`, or `success`/`ok` false.

Classification is an ordered registry of (class, pattern) pairs: the first match wins.
"""

from __future__ import annotations

import enum
import json
import re
from dataclasses import dataclass
from typing import Any


class ErrorClass(enum.StrEnum):
    RATE_LIMIT = "rate_limit"  # 429, too many requests: retry later, never a lesson
    TRANSIENT = "transient"  # timeout, 503, try again: retry, never a lesson
    AUTH = "auth"  # 401/403, expired token, invalid credentials
    NOT_FOUND = "not_found"  # 404, no such thing
    INVALID_ARGUMENT = "invalid_argument"  # 400/422, invalid, must be, missing required
    UNAVAILABLE = "unavailable"  # dead source: deprecated, discontinued, gone, 410
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class ResultStatus:
    """What a tool result is, as far as self-assessment cares."""

    is_error: bool
    error_class: ErrorClass | None  # None when not an error
    is_empty: bool  # a successful call that found nothing (not an error)


_ERROR_PREFIX = re.compile(
    r"^\s*(?:error|exception|traceback|fatal|failed|failure)\b"
    r"|^\s*[\w.]*(?:Error|Exception)\b\s*:"
    r"|^\s*(?:HTTP/?[\d.]*\s+)?[45]\d\d\s+[A-Za-z]",
    re.IGNORECASE,
)
_TRACEBACK = re.compile(r"Traceback \(most recent call last\)")
_EMPTY_TEXT = re.compile(
    r"^\s*(?:(?:error|warning|info|note)\s*:\s*)?"
    r"(?:no (?:results?|matches|matching \w+|records?|data|items?|entries|hits|documents?)"
    r"(?: were| was)?(?: found| returned| available)?"
    r"|nothing (?:found|matched|to show)|none found|0 (?:results|matches|records|items)"
    r"|empty(?: result(?: set)?)?)\b[^\n]{0,80}$",
    re.IGNORECASE,
)
_EMPTY_LITERALS = {"", "[]", "{}", "null", "none", '""', "''"}
_STATUS_KEYS = ("status_code", "statusCode", "status", "code", "http_status")

# Status codes written in text count only next to a word that makes them one (a price of 401
# is not an auth error).
_CODE_IN_TEXT = re.compile(
    r"(?:\b(?:http|status|status_code|code|error)\b\W{0,3}(?:code\W{0,3})?|^\s*)([1-5]\d\d)\b",
    re.IGNORECASE,
)

_CODE_CLASSES: dict[int, ErrorClass] = {
    429: ErrorClass.RATE_LIMIT,
    401: ErrorClass.AUTH,
    403: ErrorClass.AUTH,
    410: ErrorClass.UNAVAILABLE,
    404: ErrorClass.NOT_FOUND,
    408: ErrorClass.TRANSIENT,
    500: ErrorClass.TRANSIENT,
    502: ErrorClass.TRANSIENT,
    503: ErrorClass.TRANSIENT,
    504: ErrorClass.TRANSIENT,
    400: ErrorClass.INVALID_ARGUMENT,
    405: ErrorClass.INVALID_ARGUMENT,
    409: ErrorClass.INVALID_ARGUMENT,
    422: ErrorClass.INVALID_ARGUMENT,
}

# Ordered registry: the first class whose pattern matches the lowercased text wins.
_CLASS_PATTERNS: list[tuple[ErrorClass, re.Pattern[str]]] = [
    (
        ErrorClass.RATE_LIMIT,
        re.compile(r"rate[ _-]?limit|too many requests|quota exceeded|throttl"),
    ),
    (
        ErrorClass.AUTH,
        re.compile(
            r"unauthori[sz]ed|forbidden|(?:expired|invalid|missing|revoked) (?:access |api |auth )?"
            r"(?:token|credentials?|api key|session)|(?:token|session|credentials?) (?:has )?"
            r"expired|not authenticated|authentication (?:failed|required|error)|"
            r"permission denied|access denied|login required|re-?authenticate"
        ),
    ),
    (
        ErrorClass.UNAVAILABLE,
        re.compile(
            r"deprecat|discontinued|\bgone\b|endpoint (?:was |has been )?removed|"
            r"no longer (?:available|supported|exists|maintained|served)|decommission|"
            r"\bretired\b|\bsunset|end[- ]of[- ]life|has been (?:removed|shut down)|\bdefunct\b"
        ),
    ),
    (
        ErrorClass.TRANSIENT,
        re.compile(
            r"time(?:d)?[ -]?out|temporar(?:y|ily)|service unavailable|\bunavailable\b|"
            r"try again|retry (?:later|after)|connection (?:reset|refused|aborted|error)|"
            r"overloaded|bad gateway|server error|\bbusy\b"
        ),
    ),
    (
        ErrorClass.INVALID_ARGUMENT,
        re.compile(r"unknown (?:argument|parameter|field|key|option|column)"),
    ),
    (
        ErrorClass.NOT_FOUND,
        re.compile(
            r"not[ _-]found|\bunknown\b|no such|does ?n[o']t exist|not exist|\bnonexistent|"
            r"\bno \w+(?: \w+)? (?:matches|match|found)\b"
        ),
    ),
    (
        ErrorClass.INVALID_ARGUMENT,
        re.compile(
            r"invalid|must (?:be|not|have|include|contain)|\bexpected\b|missing|required|"
            r"bad request|malformed|unprocessable|out of range|cannot be|can't be|"
            r"not (?:a )?valid|not allowed|too (?:long|short|large|small)|exceeds"
        ),
    ),
]


# codes a source also answers with once it is gone for good ("403: the cluster was retired",
# "503: this API is deprecated"): the words then say more than the code
_GENERIC_REFUSALS = (ErrorClass.AUTH, ErrorClass.TRANSIENT)
_GONE = next(p for c, p in _CLASS_PATTERNS if c is ErrorClass.UNAVAILABLE)


def _json(text: str) -> Any:
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return None
    try:
        return json.loads(stripped)
    except (ValueError, RecursionError):  # not JSON, or too deep to be data
        return None


def _status_code(obj: Any) -> int | None:
    if not isinstance(obj, dict):
        return None
    for key in _STATUS_KEYS:
        value = obj.get(key)
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            return value
        if isinstance(value, str) and value.strip().isdigit():
            return int(value.strip())
    return None


def _json_is_error(obj: Any) -> bool:
    if not isinstance(obj, dict):
        return False
    if obj.get("error") or obj.get("errors"):
        return True
    code = _status_code(obj)
    if code is not None and 400 <= code <= 599:
        return True
    status = obj.get("status")
    if isinstance(status, str) and status.strip().lower() in {"error", "failed", "failure", "fail"}:
        return True
    return obj.get("success") is False or obj.get("ok") is False


def is_empty_result(text: str) -> bool:
    """A successful call that returned nothing: not an error, and never a lesson."""
    stripped = text.strip()
    if stripped.lower() in _EMPTY_LITERALS or _EMPTY_TEXT.match(stripped):
        return True
    obj = _json(stripped)
    if isinstance(obj, list):
        return not obj
    if isinstance(obj, dict):
        if _json_is_error(obj):
            return False
        containers = [v for v in obj.values() if isinstance(v, list | dict)]
        return bool(containers) and all(not v for v in containers)
    return False


def is_error(text: str, *, flagged: bool = False) -> bool:
    """True when a tool result reports a failure (see the module docstring for the rules)."""
    if flagged:
        return True
    if is_empty_result(text):
        return False
    if _ERROR_PREFIX.match(text) or _TRACEBACK.search(text):
        return True
    return _json_is_error(_json(text))


def classify_error(text: str) -> ErrorClass:
    """Which kind of failure an error result is; `OTHER` when nothing more specific fits."""
    obj = _json(text)
    code = _status_code(obj)
    if code is None:
        match = _CODE_IN_TEXT.search(text)
        code = int(match.group(1)) if match else None
    lowered = text.lower()
    if code is not None and code in _CODE_CLASSES:
        by_code = _CODE_CLASSES[code]
        if by_code in _GENERIC_REFUSALS and _GONE.search(lowered):
            return ErrorClass.UNAVAILABLE  # "403 CLUSTER_RETIRED": a dead source, not a login
        return by_code
    for error_class, pattern in _CLASS_PATTERNS:
        if pattern.search(lowered):
            return error_class
    return ErrorClass.OTHER


def result_status(text: str, *, flagged: bool = False) -> ResultStatus:
    """Error / error class / empty for one tool result."""
    if is_error(text, flagged=flagged):
        return ResultStatus(True, classify_error(text), False)
    return ResultStatus(False, None, is_empty_result(text))


__all__ = [
    "ErrorClass",
    "ResultStatus",
    "classify_error",
    "is_empty_result",
    "is_error",
    "result_status",
]
